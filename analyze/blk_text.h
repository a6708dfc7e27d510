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
 * into f. Each device's figures come from s (analyze/blk_figures.h): from its pass through
 * s->refs (after run_summary_json()) and s->cg's passes, or s->figs (after run_summary_file()
 * or run_summaries_read(): summary runs); what a device is (dev, role, group, host), the
 * explanation of its gaps and the run's header are read from root. 0, -ENOMEM, or -EPROTO (e
 * says which) when a key the text reads is absent from the document, or s has no figures for
 * one of its devices: what was printed then must not be taken as a result.
 */
int blk_text_summary(FILE *f, const json_t *root, const struct run_summary *s, struct iot_err *e);

#endif
