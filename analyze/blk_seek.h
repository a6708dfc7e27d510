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
	struct hist_few dist; /* |distance| in sectors of the non-zero ones */
};

struct blk_seek;

struct blk_seek *blk_seek_new(void);
void blk_seek_free(struct blk_seek *s);
void blk_seek_feed(struct blk_seek *s, unsigned dev, const struct blk_event *ev);
const struct blk_seek_dev *blk_seek_dev(const struct blk_seek *s, unsigned dev);
int blk_seek_to_json(const struct blk_seek *s, unsigned dev, json_t *obj, uint64_t span_ns);

/* ------------------------------------------------------------------------------------- */
/* Internal: the hot path, inline so that the pass compiles it into its loop             */
/* (blk_analysis.c), act being ev->action as a constant there; everyone else calls       */
/* blk_seek_feed().                                                                      */

struct blk_seek {
	struct blk_seek_dev **dev;
	unsigned ndev;
};

__attribute__((cold)) struct blk_seek_dev *blk_seek_new_dev(struct blk_seek *s, unsigned dev);

static inline __attribute__((always_inline)) void blk_seek_feed_inline(struct blk_seek *s,
                                                                       unsigned dev,
                                                                       const struct blk_event *ev,
                                                                       const unsigned act)
{
	struct blk_seek_dev *d;
	uint64_t end;

	if (act != BLK_A_ISSUE || blk_is_notify(ev) || !(ev->bytes >> 9))
		return;
	d = dev < s->ndev && s->dev[dev] ? s->dev[dev] : blk_seek_new_dev(s, dev);
	if (!d)
		return;
	end = ev->sector + (ev->bytes >> 9);
	if (d->last_end != UINT64_MAX) {
		uint64_t dist;

		d->transitions++;
		if (ev->sector == d->last_end) {
			d->sequential++;
		} else {
			if (ev->sector > d->last_end) {
				dist = ev->sector - d->last_end;
				d->forward++;
			} else {
				dist = d->last_end - ev->sector;
				d->backward++;
			}
			d->seeks++;
			if (dist > BLK_SEEKWATCHER_SECTORS)
				d->seekwatcher++;
			hist_few_add(&d->dist, dist);
		}
	}
	d->last_end = end;
}

#endif
