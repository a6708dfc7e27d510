/* SPDX-License-Identifier: MIT */
/* Timeline sink: per-interval bins per device, memory bounded by duration / interval. */
#include "analyze/blk_timeline.h"

#include <stdlib.h>
#include <string.h>

#include "common/jsonint.h"

/*
 * Bin k covers [start + k * interval, start + (k + 1) * interval), start being the first
 * event of the trace (common/bins.h). Completions are counted in the bin of their C; a seek
 * in the bin of its D; depth and idle time are spread over the bins they cover. Idle time
 * follows the idle sink's rules (gaps of at least the threshold, see blk_idle.c), so the bins
 * add up to its total; the depth follows the depth sink's (D adds one, C and R take one
 * away), so the bins' areas add up to its integral. When a bin index would reach max_bins,
 * the interval doubles and neighbouring bins are summed: memory grows with the trace's
 * duration, never past max_bins bins per device, and the devices share max_bins_total
 * (bins_share(): a trace of 4096 devices keeps 256 wider bins each, not 100 000).
 */

#define NONE UINT64_MAX

struct blk_timeline *blk_timeline_new(const struct blk_opts *o)
{
	struct blk_timeline *t = blk_zalloc(sizeof(*t));

	if (!t)
		return NULL;
	if (o)
		t->o = *o;
	else
		blk_opts_init(&t->o);
	if (!t->o.interval_ns)
		t->o.interval_ns = BLK_DEFAULT_INTERVAL_NS;
	if (!t->o.max_bins)
		t->o.max_bins = BLK_DEFAULT_MAX_BINS;
	if (t->o.max_bins < 2)
		t->o.max_bins = 2;
	if (!t->o.max_bins_total)
		t->o.max_bins_total = BLK_DEFAULT_MAX_BINS_TOTAL;
	bins_init(&t->clock, t->o.interval_ns, t->o.max_bins, false);
	return t;
}

void blk_timeline_free(struct blk_timeline *t)
{
	if (!t)
		return;
	for (unsigned i = 0; i < t->ndev; i++) {
		if (t->dev[i])
			free(t->dev[i]->bins);
		free(t->dev[i]);
	}
	free(t->dev);
	free(t);
}

static void bin_add(void *dst, const void *src)
{
	struct blk_bin *a = dst;
	const struct blk_bin *b = src;

	a->read_bytes += b->read_bytes;
	a->write_bytes += b->write_bytes;
	a->ios += b->ios;
	a->write_ios += b->write_ios;
	a->seeks += b->seeks;
	a->idle_ns += b->idle_ns;
	a->depth_area += b->depth_area;
	if (b->depth_max > a->depth_max)
		a->depth_max = b->depth_max;
}

/* bins_place()'s report of a wider interval: every device's bins follow. */
static void on_move(void *ctx, const struct bins_move *m)
{
	struct blk_timeline *t = ctx;

	for (unsigned i = 0; i < t->ndev; i++) {
		struct tl_dev *d = t->dev[i];

		if (d && d->nbins)
			bins_move_array(m, d->bins, d->nbins, sizeof(*d->bins), bin_add);
	}
	t->cur_hi = 0; /* drop the cache */
}

/* Index of the bin holding time ts, widening the interval until it fits under max_bins. */
static uint64_t bin_of(struct blk_timeline *t, uint64_t ts)
{
	if (ts >= t->cur_lo && ts < t->cur_hi)
		return t->cur_idx;
	t->cur_idx = bins_place(&t->clock, ts, on_move, t);
	t->cur_lo = bins_start_of(&t->clock, t->cur_idx);
	t->cur_hi = bins_end_of(&t->clock, t->cur_idx);
	return t->cur_idx;
}

/* The bin idx of d, allocated (zeroed) on first use; NULL without memory. */
static struct blk_bin *bin_at(struct tl_dev *d, uint64_t idx, uint64_t max)
{
	if (bins_reserve((void **)&d->bins, &d->nbins, idx, sizeof(*d->bins), max))
		return NULL;
	return &d->bins[idx];
}

enum spread_what { SPREAD_DEPTH, SPREAD_IDLE };

/* Add [a, b) to the bins it covers: depth x overlap, or the overlap as idle time. */
static void spread(struct blk_timeline *t, struct tl_dev *d, uint64_t a, uint64_t b,
                   enum spread_what what, uint64_t depth)
{
	bin_of(t, b); /* the interval is final for the whole span once its end fits */
	while (a < b) {
		uint64_t idx, seg = bins_segment(&t->clock, a, b, &idx);
		struct blk_bin *bin = bin_at(d, idx, t->clock.max);

		if (!bin)
			return;
		if (what == SPREAD_DEPTH) {
			bin->depth_area += depth * seg;
			if (depth > bin->depth_max)
				bin->depth_max = depth;
		} else {
			bin->idle_ns += seg;
		}
		a += seg;
	}
}

static void close_gap(struct blk_timeline *t, struct tl_dev *d, uint64_t end)
{
	uint64_t from = d->idle_since;

	if (end > from && end - from >= t->o.idle_threshold_ns)
		spread(t, d, from, end, SPREAD_IDLE, 0);
}

/* A device's state on its first event: off the hot path. */
static __attribute__((noinline, cold)) struct tl_dev *new_dev(struct blk_timeline *t, unsigned dev)
{
	struct tl_dev *d;
	uint64_t max = t->clock.max;

	if (dev >= t->ndev && blk_grow((void ***)&t->dev, &t->ndev, dev))
		return NULL;
	d = t->dev[dev] = blk_zalloc(sizeof(*d));
	if (!d)
		return NULL;
	d->last_change = d->idle_since = t->clock.origin;
	d->last_end = NONE;
	/* one more series on the clock: fewer, wider bins for all when the total would pass */
	bins_share(&t->clock, ++t->nseries, t->o.max_bins_total, on_move, t);
	if (t->clock.max < max)
		for (unsigned i = 0; i < t->ndev; i++)
			if (t->dev[i])
				bins_cut((void **)&t->dev[i]->bins, &t->dev[i]->nbins,
				         sizeof(*t->dev[i]->bins), t->clock.max);
	return d;
}

/* Every case: the first event, a new device, a bin to allocate or an interval to cross. */
void blk_timeline_feed_slow(struct blk_timeline *t, unsigned dev, const struct blk_event *ev)
{
	struct tl_dev *d;
	struct blk_bin *bin;
	uint64_t ts = ev->time;

	if (blk_is_notify(ev))
		return;
	if (!t->have_start) {
		bins_start(&t->clock, ts);
		t->end = ts;
		t->have_start = 1;
	}
	if (ts > t->end)
		t->end = ts;
	if (ev->action != BLK_A_ISSUE && ev->action != BLK_A_COMPLETE &&
	    ev->action != BLK_A_REQUEUE)
		return;
	d = dev < t->ndev && t->dev[dev] ? t->dev[dev] : new_dev(t, dev);
	if (!d)
		return;
	if (ts > d->last_change) {
		if (d->inflight)
			spread(t, d, d->last_change, ts, SPREAD_DEPTH, d->inflight);
		d->last_change = ts;
	}
	bin = bin_at(d, bin_of(t, ts), t->clock.max);
	if (!bin)
		return;
	if (ev->action == BLK_A_ISSUE && !d->inflight) {
		close_gap(t, d, ts);
		bin = bin_at(d, bin_of(t, ts), t->clock.max); /* close_gap may widen */
		if (!bin)
			return;
	}
	blk_timeline_account(d, bin, ev, ev->action);
}

void blk_timeline_feed(struct blk_timeline *t, unsigned dev, const struct blk_event *ev)
{
	blk_timeline_feed_inline(t, dev, ev, ev->action);
}

void blk_timeline_finish(struct blk_timeline *t, uint64_t start_ns, uint64_t end_ns)
{
	(void)start_ns;
	if (t->finished)
		return;
	t->finished = 1;
	if (end_ns > t->end)
		t->end = end_ns;
	if (t->have_start)
		bin_of(t, t->end); /* every bin of the trace fits: the count is final */
	for (unsigned i = 0; i < t->ndev; i++) {
		struct tl_dev *d = t->dev[i];

		if (!d)
			continue;
		if (t->end > d->last_change) {
			if (d->inflight)
				spread(t, d, d->last_change, t->end, SPREAD_DEPTH, d->inflight);
			d->last_change = t->end;
		}
		if (!d->inflight)
			close_gap(t, d, t->end);
	}
}

uint64_t blk_timeline_interval(const struct blk_timeline *t)
{
	return t->clock.width;
}

unsigned blk_timeline_widened(const struct blk_timeline *t)
{
	return t->clock.widened;
}

const struct bins *blk_timeline_clock(const struct blk_timeline *t)
{
	return &t->clock;
}

uint64_t blk_timeline_nbins(const struct blk_timeline *t)
{
	if (!t->have_start)
		return 0;
	return bins_index(&t->clock, t->end) + 1;
}

struct blk_bin blk_timeline_bin(const struct blk_timeline *t, unsigned dev, uint64_t idx)
{
	struct blk_bin zero = {0};
	const struct tl_dev *d = dev < t->ndev ? t->dev[dev] : NULL;

	if (!d || idx >= d->nbins)
		return zero;
	return d->bins[idx];
}

json_t *blk_timeline_bin_json(const struct blk_timeline *t, unsigned dev, uint64_t k)
{
	uint64_t nb = blk_timeline_nbins(t);
	struct blk_bin b = blk_timeline_bin(t, dev, k);
	uint64_t lo = bins_start_of(&t->clock, k);
	/* the last bin ends with the trace: rates over the time it covers */
	uint64_t width = k + 1 < nb ? t->clock.width : t->end - lo;
	double secs;
	json_t *e = json_object();

	if (!width)
		width = 1;
	secs = (double)width / 1e9;
	json_object_set_new(e, "start_ns", json_u64(lo));
	json_object_set_new(e, "width_ns", json_u64(width));
	json_object_set_new(e, "read_bytes", json_u64(b.read_bytes));
	json_object_set_new(e, "write_bytes", json_u64(b.write_bytes));
	json_object_set_new(e, "read_mbps", json_real((double)b.read_bytes / 1e6 / secs));
	json_object_set_new(e, "write_mbps", json_real((double)b.write_bytes / 1e6 / secs));
	json_object_set_new(e, "ios", json_u64(b.ios));
	json_object_set_new(e, "write_ios", json_u64(b.write_ios));
	json_object_set_new(e, "iops", json_real((double)b.ios / secs));
	json_object_set_new(e, "seeks", json_u64(b.seeks));
	json_object_set_new(e, "depth", json_real((double)b.depth_area / (double)width));
	json_object_set_new(e, "depth_max", json_u64(b.depth_max));
	json_object_set_new(e, "idle_ns", json_u64(b.idle_ns));
	json_object_set_new(e, "idle_frac", json_real((double)b.idle_ns / (double)width));
	return e;
}

int blk_timeline_to_json(const struct blk_timeline *t, unsigned dev, json_t *obj)
{
	uint64_t nb = blk_timeline_nbins(t);
	json_t *arr = json_array();

	for (uint64_t k = 0; k < nb; k++)
		json_array_append_new(arr, blk_timeline_bin_json(t, dev, k));
	json_object_set_new(obj, "timeline", arr);
	return 0;
}

/* ------------------------------------------------------------------------------------- */

static void *ops_create(const struct blk_opts *o)
{
	return blk_timeline_new(o);
}

static void ops_feed(void *s, unsigned dev, const struct blk_event *ev)
{
	blk_timeline_feed(s, dev, ev);
}

static void ops_finish(void *s, uint64_t start, uint64_t end)
{
	blk_timeline_finish(s, start, end);
}

static int ops_to_json(void *s, unsigned dev, json_t *obj, const struct blk_json_ctx *ctx)
{
	(void)ctx;
	return blk_timeline_to_json(s, dev, obj);
}

static void ops_destroy(void *s)
{
	blk_timeline_free(s);
}

static int ops_root_json(void *s, json_t *root)
{
	const struct blk_timeline *t = s;

	json_object_set_new(root, "timeline",
	                    json_pack("{sIsIsIsIsI}", "interval_ns", (json_int_t)t->clock.width,
	                              "requested_interval_ns", (json_int_t)t->o.interval_ns,
	                              "widened", (json_int_t)t->clock.widened, "bins",
	                              (json_int_t)blk_timeline_nbins(t), "max_bins",
	                              (json_int_t)t->clock.max));
	return 0;
}

const struct blk_sink_ops blk_timeline_ops = {
    .name = "timeline",
    .create = ops_create,
    .feed = ops_feed,
    .finish = ops_finish,
    .to_json = ops_to_json,
    .destroy = ops_destroy,
    .root_json = ops_root_json,
};
