/* SPDX-License-Identifier: MIT */
/* analyze's text summary of block traces, from its passes' figures. */
#ifndef IOTAPE_ANALYZE_BLK_TEXT_H
#define IOTAPE_ANALYZE_BLK_TEXT_H

#include <jansson.h>
#include <stdio.h>

#include "common/err.h"

struct run_summary;

/*
 * The text summary of root (analyze's document: "input", "devices", "hosts", "cgroups", ...)
 * into f. Each device's figures come from its pass (analyze/blk_figures.h), found through s
 * (the run's, after run_summary_json(): its refs, and its cgroups' passes), or from s's figs
 * (after run_summary_file(): a summary run's); what a device is (dev, role, group, host), the
 * explanation of its gaps and the run's header are read from root. Without s (a run set of
 * summary runs: no figures kept) the figures are read from root's devices too. 0, -ENOMEM, or
 * -EPROTO (e says which) when a figure the text prints is absent from the document, or a device has
 * no pass: what was printed then must not be taken as a result.
 */
int blk_text_summary(FILE *f, const json_t *root, const struct run_summary *s, struct iot_err *e);

#endif
