/* SPDX-License-Identifier: MIT */
/* Queue depth sink: D adds one, C and R (requeue) take one away; time-weighted mean and max. */
#include "analyze/blk_depth.h"

#include <stdlib.h>

struct blk_depth *blk_depth_new(void)
{
	return blk_zalloc(sizeof(struct blk_depth));
}

void blk_depth_free(struct blk_depth *q)
{
	if (!q)
		return;
	for (unsigned i = 0; i < q->ndev; i++)
		free(q->dev[i]);
	free(q->dev);
	free(q);
}

/*
 * Every request counts, with or without data (a flush occupies the device too), file-system
 * or passthrough. A completion at depth 0 belongs to a request issued before the trace began:
 * the depth stays at 0 rather than going negative.
 */
/* A device's state on its first event: off the hot path. */
struct blk_depth_dev *blk_depth_new_dev(struct blk_depth *q, unsigned dev)
{
	struct blk_depth_dev *d;

	if (dev >= q->ndev && blk_grow((void ***)&q->dev, &q->ndev, dev))
		return NULL;
	d = q->dev[dev] = blk_zalloc(sizeof(*d));
	if (d)
		d->last = q->start;
	return d;
}

void blk_depth_feed(struct blk_depth *q, unsigned dev, const struct blk_event *ev)
{
	blk_depth_feed_inline(q, dev, ev, ev->action);
}

void blk_depth_finish(struct blk_depth *q, uint64_t start_ns, uint64_t end_ns)
{
	q->start = start_ns;
	q->end = end_ns;
	for (unsigned i = 0; i < q->ndev; i++) {
		struct blk_depth_dev *d = q->dev[i];

		if (d && end_ns > d->last) {
			d->area += (unsigned __int128)d->cur * (end_ns - d->last);
			d->last = end_ns;
		}
	}
}

const struct blk_depth_dev *blk_depth_dev(const struct blk_depth *q, unsigned dev)
{
	return dev < q->ndev ? q->dev[dev] : NULL;
}

double blk_depth_mean(const struct blk_depth *q, unsigned dev)
{
	const struct blk_depth_dev *d = blk_depth_dev(q, dev);

	if (!d || q->end <= q->start)
		return 0.0;
	return (double)((long double)d->area / (long double)(q->end - q->start));
}

int blk_depth_to_json(const struct blk_depth *q, unsigned dev, json_t *obj)
{
	const struct blk_depth_dev *d = blk_depth_dev(q, dev);

	json_object_set_new(obj, "depth",
	                    json_pack("{sfsIsIsI}", "mean", blk_depth_mean(q, dev), "max",
	                              (json_int_t)(d ? d->max : 0), "unmatched_completions",
	                              (json_int_t)(d ? d->unmatched_c : 0), "flush_completions",
	                              (json_int_t)(d ? d->flush_ends : 0)));
	return 0;
}

/* ------------------------------------------------------------------------------------- */

static void *ops_create(const struct blk_opts *o)
{
	(void)o;
	return blk_depth_new();
}

static void ops_feed(void *s, unsigned dev, const struct blk_event *ev)
{
	blk_depth_feed(s, dev, ev);
}

static void ops_finish(void *s, uint64_t start, uint64_t end)
{
	blk_depth_finish(s, start, end);
}

static int ops_to_json(void *s, unsigned dev, json_t *obj, const struct blk_json_ctx *ctx)
{
	(void)ctx;
	return blk_depth_to_json(s, dev, obj);
}

static void ops_destroy(void *s)
{
	blk_depth_free(s);
}

const struct blk_sink_ops blk_depth_ops = {
    .name = "depth",
    .create = ops_create,
    .feed = ops_feed,
    .finish = ops_finish,
    .to_json = ops_to_json,
    .destroy = ops_destroy,
};
