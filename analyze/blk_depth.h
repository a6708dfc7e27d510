/* SPDX-License-Identifier: MIT */
/* Queue depth sink: requests issued and not completed, per device, over time. */
#ifndef IOTAPE_ANALYZE_BLK_DEPTH_H
#define IOTAPE_ANALYZE_BLK_DEPTH_H

#include "analyze/blk_sink.h"

struct blk_depth_dev {
	unsigned cur, max;
	uint64_t last; /* time of the last change */
	/* integral of depth over time, depth x ns: exact in 128 bits, where a long double's x87
	 * multiply-add would cost more than the rest of the sink */
	unsigned __int128 area;
	uint64_t unmatched_c; /* completions or requeues seen at depth 0 */
	uint64_t flush_ends;  /* completions that end a flush sequence (blk_ends_flush_seq()) */
};

struct blk_depth;

struct blk_depth *blk_depth_new(void);
void blk_depth_free(struct blk_depth *q);
void blk_depth_feed(struct blk_depth *q, unsigned dev, const struct blk_event *ev);
/* Close the integrals at end_ns; the mean is area / (end - start). */
void blk_depth_finish(struct blk_depth *q, uint64_t start_ns, uint64_t end_ns);
const struct blk_depth_dev *blk_depth_dev(const struct blk_depth *q, unsigned dev);
double blk_depth_mean(const struct blk_depth *q, unsigned dev);
int blk_depth_to_json(const struct blk_depth *q, unsigned dev, json_t *obj);

/* ------------------------------------------------------------------------------------- */
/* Internal: the hot path, inline so that the pass compiles it into its loop             */
/* (blk_analysis.c), act being ev->action as a constant there; everyone else calls       */
/* blk_depth_feed().                                                                     */

struct blk_depth {
	struct blk_depth_dev **dev;
	unsigned ndev;
	uint64_t start, end;
	int have_start;
};

__attribute__((cold)) struct blk_depth_dev *blk_depth_new_dev(struct blk_depth *q, unsigned dev);

static inline __attribute__((always_inline)) void blk_depth_feed_inline(struct blk_depth *q,
                                                                        unsigned dev,
                                                                        const struct blk_event *ev,
                                                                        const unsigned act)
{
	struct blk_depth_dev *d;

	if (blk_is_notify(ev))
		return;
	if (!q->have_start) {
		q->start = ev->time;
		q->have_start = 1;
	}
	if (act != BLK_A_ISSUE && act != BLK_A_COMPLETE && act != BLK_A_REQUEUE)
		return;
	d = dev < q->ndev && q->dev[dev] ? q->dev[dev] : blk_depth_new_dev(q, dev);
	if (!d)
		return;
	if (ev->time > d->last) {
		d->area += (unsigned __int128)d->cur * (ev->time - d->last);
		d->last = ev->time;
	}
	if (act == BLK_A_ISSUE) {
		if (++d->cur > d->max)
			d->max = d->cur;
	} else if (act == BLK_A_COMPLETE && blk_ends_flush_seq(ev)) {
		d->flush_ends++;
	} else if (d->cur) {
		d->cur--;
	} else {
		d->unmatched_c++;
	}
}

#endif
