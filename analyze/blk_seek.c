/* SPDX-License-Identifier: MIT */
/* Seek sink: issue-to-issue head movement per device. */
#include "analyze/blk_seek.h"

#include <stdlib.h>

#include "common/jsonint.h"

/*
 * Only issues that move data count (a flush has no position). The distance is the next
 * issue's start sector minus the previous issue's end sector: 0 is sequential, positive a
 * forward seek, negative a backward one. A requeued request that is issued again counts
 * again, as the head really goes there twice.
 */

struct blk_seek *blk_seek_new(void)
{
	return blk_zalloc(sizeof(struct blk_seek));
}

void blk_seek_free(struct blk_seek *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->ndev; i++) {
		if (s->dev[i])
			hist_few_release(&s->dev[i]->dist);
		free(s->dev[i]);
	}
	free(s->dev);
	free(s);
}

/* A device's state on its first event: off the hot path. */
struct blk_seek_dev *blk_seek_new_dev(struct blk_seek *s, unsigned dev)
{
	struct blk_seek_dev *d;

	if (dev >= s->ndev && blk_grow((void ***)&s->dev, &s->ndev, dev))
		return NULL;
	d = s->dev[dev] = blk_zalloc(sizeof(*d));
	if (d)
		*d = (struct blk_seek_dev){.last_end = UINT64_MAX};
	return d;
}

void blk_seek_feed(struct blk_seek *s, unsigned dev, const struct blk_event *ev)
{
	blk_seek_feed_inline(s, dev, ev, ev->action);
}

const struct blk_seek_dev *blk_seek_dev(const struct blk_seek *s, unsigned dev)
{
	return dev < s->ndev ? s->dev[dev] : NULL;
}

int blk_seek_to_json(const struct blk_seek *s, unsigned dev, json_t *obj, uint64_t span_ns)
{
	const struct blk_seek_dev *d = blk_seek_dev(s, dev);
	struct blk_seek_dev zero = {.last_end = UINT64_MAX};
	struct hist scratch;
	json_t *o = json_object();

	if (!d)
		d = &zero;
	json_object_set_new(o, "count", json_u64(d->seeks));
	json_object_set_new(o, "seekwatcher", json_u64(d->seekwatcher));
	json_object_set_new(o, "transitions", json_u64(d->transitions));
	json_object_set_new(o, "sequential", json_u64(d->sequential));
	json_object_set_new(o, "sequential_pct", json_real(blk_pct(d->sequential, d->transitions)));
	json_object_set_new(o, "forward", json_u64(d->forward));
	json_object_set_new(o, "backward", json_u64(d->backward));
	json_object_set_new(o, "per_sec", json_real(blk_per_sec(d->seeks, span_ns)));
	json_object_set_new(o, "seekwatcher_per_sec",
	                    json_real(blk_per_sec(d->seekwatcher, span_ns)));
	json_object_set_new(o, "distance_sectors",
	                    blk_hist_json(hist_few_view(&d->dist, &scratch), 1));
	json_object_set_new(obj, "seeks", o);
	return 0;
}

/* ------------------------------------------------------------------------------------- */

static void *ops_create(const struct blk_opts *o)
{
	(void)o;
	return blk_seek_new();
}

static void ops_feed(void *s, unsigned dev, const struct blk_event *ev)
{
	blk_seek_feed(s, dev, ev);
}

static void ops_finish(void *s, uint64_t start, uint64_t end)
{
	(void)s;
	(void)start;
	(void)end;
}

static int ops_to_json(void *s, unsigned dev, json_t *obj, const struct blk_json_ctx *ctx)
{
	return blk_seek_to_json(s, dev, obj, ctx->end_ns - ctx->start_ns);
}

static void ops_destroy(void *s)
{
	blk_seek_free(s);
}

const struct blk_sink_ops blk_seek_ops = {
    .name = "seek",
    .create = ops_create,
    .feed = ops_feed,
    .finish = ops_finish,
    .to_json = ops_to_json,
    .destroy = ops_destroy,
};
