/* SPDX-License-Identifier: MIT */
/* Seek sink: distance from the end of one issued IO to the start of the next, per device. */
#ifndef IOTAPE_ANALYZE_BLK_SEEK_H
#define IOTAPE_ANALYZE_BLK_SEEK_H

#include "analyze/blk_sink.h"

/* seekwatcher counts a seek when the head moves more than this many sectors */
#define BLK_SEEKWATCHER_SECTORS 128

struct blk_seek_dev {
	uint64_t last_end;    /* end sector of the previous issue, UINT64_MAX before the first */
	uint64_t transitions; /* issue-to-issue pairs */
	uint64_t seeks;       /* pairs with a non-zero distance */
	uint64_t seekwatcher; /* pairs more than BLK_SEEKWATCHER_SECTORS apart */
	uint64_t sequential;  /* pairs with distance 0 */
	uint64_t forward, backward;
	struct hist dist; /* |distance| in sectors of the non-zero ones */
};

struct blk_seek;

struct blk_seek *blk_seek_new(void);
void blk_seek_free(struct blk_seek *s);
void blk_seek_feed(struct blk_seek *s, unsigned dev, const struct blk_event *ev);
const struct blk_seek_dev *blk_seek_dev(const struct blk_seek *s, unsigned dev);
int blk_seek_to_json(const struct blk_seek *s, unsigned dev, json_t *obj, uint64_t span_ns);

#endif
