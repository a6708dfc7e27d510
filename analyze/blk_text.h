/* SPDX-License-Identifier: MIT */
/* analyze's text summary of block traces, from the JSON document the sinks wrote. */
#ifndef IOTAPE_ANALYZE_BLK_TEXT_H
#define IOTAPE_ANALYZE_BLK_TEXT_H

#include <jansson.h>
#include <stdio.h>

#include "common/err.h"

/*
 * The text summary of root (analyze's document: "input", "devices", "hosts", "cgroups", ...)
 * into f. 0, or -EPROTO (e says which) when a figure the text prints is absent from the
 * document: what was printed then shows 0 for it and must not be taken as a result.
 */
int blk_text_summary(FILE *f, const json_t *root, struct iot_err *e);

#endif
