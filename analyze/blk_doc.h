/* SPDX-License-Identifier: MIT */
/* analyze's JSON document, written with its devices' timelines streamed from their passes. */
#ifndef IOTAPE_ANALYZE_BLK_DOC_H
#define IOTAPE_ANALYZE_BLK_DOC_H

#include <jansson.h>
#include <stdio.h>

struct blk_analysis;

/* Device i of the document's "devices" is the device at position pos of a's. */
struct devref {
	const struct blk_analysis *a;
	unsigned pos;
};

/*
 * root into f as jansson's JSON_INDENT(2) would write it, but each device's "timeline" (null in
 * root) streamed one bin at a time from refs[i] (as jansson objects a 100000-bin timeline would
 * take 170 MB), one bin a line. 0 or -EIO (a write error).
 */
int blk_doc_write(FILE *f, const json_t *root, const struct devref *refs);

#endif
