/* SPDX-License-Identifier: MIT */
/* The block pass: map devices to dense indexes, push each event through every sink once. */
#include "analyze/blk_sink.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/blk_counts.h"
#include "analyze/blk_depth.h"
#include "analyze/blk_idle.h"
#include "analyze/blk_latency.h"
#include "analyze/blk_seek.h"
#include "analyze/blk_timeline.h"

/* The order of all_sinks is the order of the direct calls in blk_analysis_feed(). */
static const struct blk_sink_ops *const all_sinks[] = {
    &blk_counts_ops, &blk_latency_ops, &blk_depth_ops,
    &blk_idle_ops,   &blk_seek_ops,    &blk_timeline_ops,
};
#define NSINKS (sizeof(all_sinks) / sizeof(all_sinks[0]))

#define DEVHASH (2 * BLK_MAX_DEVICES) /* power of two, at most half full */

enum { S_COUNTS, S_LATENCY, S_DEPTH, S_IDLE, S_SEEK, S_TIMELINE };

struct blk_analysis {
	struct blk_opts o;
	void *sink[NSINKS];
	/* device table: open addressing on dev + 1 (0 = empty) */
	uint32_t hkey[DEVHASH];
	uint16_t hidx[DEVHASH];
	uint32_t devs[BLK_MAX_DEVICES];
	unsigned ndev;
	uint32_t last_dev; /* one-entry cache: consecutive events are mostly one device */
	unsigned last_idx;
	int have_last;
	int have_time; /* the sinks have seen the first event */
	uint64_t dropped;
	uint64_t start, end;
	int finished;
	const struct bt_comm_table *comms;
	unsigned sorted[BLK_MAX_DEVICES]; /* device index at each position of "devices" */
};

void blk_opts_init(struct blk_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->interval_ns = BLK_DEFAULT_INTERVAL_NS;
	o->idle_threshold_ns = BLK_DEFAULT_IDLE_NS;
	o->top = BLK_DEFAULT_TOP;
	o->max_inflight = BLK_DEFAULT_MAX_INFLIGHT;
	o->max_bins = BLK_DEFAULT_MAX_BINS;
}

int blk_analysis_new(struct blk_analysis **out, const struct blk_opts *o)
{
	struct blk_analysis *a = calloc(1, sizeof(*a));

	*out = NULL;
	if (!a)
		return -ENOMEM;
	a->o = *o;
	if (!a->o.interval_ns)
		a->o.interval_ns = BLK_DEFAULT_INTERVAL_NS;
	if (!a->o.max_inflight)
		a->o.max_inflight = BLK_DEFAULT_MAX_INFLIGHT;
	if (!a->o.max_bins)
		a->o.max_bins = BLK_DEFAULT_MAX_BINS;
	if (a->o.top > BLK_MAX_TOP)
		a->o.top = BLK_MAX_TOP;
	for (unsigned i = 0; i < NSINKS; i++) {
		a->sink[i] = all_sinks[i]->create(&a->o);
		if (!a->sink[i]) {
			blk_analysis_free(a);
			return -ENOMEM;
		}
	}
	*out = a;
	return 0;
}

void blk_analysis_free(struct blk_analysis *a)
{
	if (!a)
		return;
	for (unsigned i = 0; i < NSINKS; i++)
		if (a->sink[i])
			all_sinks[i]->destroy(a->sink[i]);
	free(a);
}

void blk_analysis_set_comms(struct blk_analysis *a, const struct bt_comm_table *comms)
{
	a->comms = comms;
}

/* Dense index of dev, or -1 when the table is full. */
static inline int dev_index(struct blk_analysis *a, uint32_t dev)
{
	uint32_t key = dev + 1, h;

	if (a->have_last && a->last_dev == dev)
		return (int)a->last_idx;
	h = (key * 0x9e3779b1u) & (DEVHASH - 1);
	while (a->hkey[h] && a->hkey[h] != key)
		h = (h + 1) & (DEVHASH - 1);
	if (!a->hkey[h]) {
		if (a->ndev == BLK_MAX_DEVICES)
			return -1;
		a->hkey[h] = key;
		a->hidx[h] = (uint16_t)a->ndev;
		a->devs[a->ndev++] = dev;
	}
	a->have_last = 1;
	a->last_dev = dev;
	a->last_idx = a->hidx[h];
	return (int)a->last_idx;
}

/* The first event starts every sink's clock (idle gaps, timeline bins): it goes to all. */
static void feed_first(struct blk_analysis *a, unsigned idx, const struct blk_event *ev)
{
	void *const *k = a->sink;

	blk_counts_feed(k[S_COUNTS], idx, ev);
	blk_latency_feed(k[S_LATENCY], idx, ev);
	blk_depth_feed(k[S_DEPTH], idx, ev);
	blk_idle_feed(k[S_IDLE], idx, ev);
	blk_seek_feed(k[S_SEEK], idx, ev);
	blk_timeline_feed(k[S_TIMELINE], idx, ev);
}

/*
 * The hot loop: direct calls, and only to the sinks that look at this action (each one
 * ignores the others anyway; the span's end reaches them through finish()). A third of the
 * time per event went to calls that returned at once.
 */
void blk_analysis_feed_batch(struct blk_analysis *a, const struct blk_event *ev, unsigned n)
{
	void *const *k = a->sink;

	for (unsigned i = 0; i < n; i++, ev++) {
		int idx;

		if (blk_is_notify(ev))
			continue;
		idx = dev_index(a, ev->dev);
		if (idx < 0) {
			a->dropped++;
			continue;
		}
		if (!a->have_time) {
			a->have_time = 1;
			a->start = a->end = ev->time;
			feed_first(a, (unsigned)idx, ev);
			continue;
		}
		if (ev->time > a->end)
			a->end = ev->time;
		blk_counts_feed(k[S_COUNTS], (unsigned)idx, ev);
		switch (ev->action) {
		case BLK_A_QUEUE:
		case BLK_A_INSERT:
			blk_latency_feed(k[S_LATENCY], (unsigned)idx, ev);
			blk_idle_feed(k[S_IDLE], (unsigned)idx, ev);
			break;
		case BLK_A_GETRQ:
		case BLK_A_BACKMERGE:
		case BLK_A_FRONTMERGE:
			blk_latency_feed(k[S_LATENCY], (unsigned)idx, ev);
			break;
		case BLK_A_ISSUE:
		case BLK_A_COMPLETE:
		case BLK_A_REQUEUE:
			if (ev->action != BLK_A_REQUEUE)
				blk_latency_feed(k[S_LATENCY], (unsigned)idx, ev);
			if (ev->action == BLK_A_ISSUE)
				blk_seek_feed(k[S_SEEK], (unsigned)idx, ev);
			blk_depth_feed(k[S_DEPTH], (unsigned)idx, ev);
			blk_idle_feed(k[S_IDLE], (unsigned)idx, ev);
			blk_timeline_feed(k[S_TIMELINE], (unsigned)idx, ev);
			break;
		default:
			break;
		}
	}
}

void blk_analysis_feed(struct blk_analysis *a, const struct blk_event *ev)
{
	blk_analysis_feed_batch(a, ev, 1);
}

void blk_analysis_finish(struct blk_analysis *a)
{
	if (a->finished)
		return;
	a->finished = 1;
	if (!a->have_time)
		a->start = a->end = 0;
	for (unsigned i = 0; i < NSINKS; i++)
		all_sinks[i]->finish(a->sink[i], a->start, a->end);
}

unsigned blk_analysis_ndevices(const struct blk_analysis *a)
{
	return a->ndev;
}

uint32_t blk_analysis_device(const struct blk_analysis *a, unsigned idx)
{
	return idx < a->ndev ? a->devs[idx] : 0;
}

uint64_t blk_analysis_start(const struct blk_analysis *a)
{
	return a->start;
}

uint64_t blk_analysis_end(const struct blk_analysis *a)
{
	return a->end;
}

uint64_t blk_analysis_dropped(const struct blk_analysis *a)
{
	return a->dropped;
}

/* dev is major << 20 | minor, so sorting (dev << 32 | idx) sorts by major, then minor */
static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

int blk_analysis_to_json(struct blk_analysis *a, json_t *root, int timeline)
{
	struct blk_json_ctx ctx = {a->start, a->end, a->comms};
	json_t *devs = json_array();
	uint64_t *order;
	char name[24];
	int ret = 0;

	blk_analysis_finish(a);
	order = malloc((a->ndev ? a->ndev : 1) * sizeof(*order));
	if (!devs || !order) {
		json_decref(devs);
		free(order);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < a->ndev; i++)
		order[i] = (uint64_t)a->devs[i] << 32 | i;
	qsort(order, a->ndev, sizeof(*order), cmp_u64);
	json_object_set_new(root, "start_ns", json_integer((json_int_t)a->start));
	json_object_set_new(root, "end_ns", json_integer((json_int_t)a->end));
	json_object_set_new(root, "span_ns", json_integer((json_int_t)(a->end - a->start)));
	if (a->dropped)
		json_object_set_new(root, "events_dropped_devices",
		                    json_integer((json_int_t)a->dropped));
	for (unsigned s = 0; s < NSINKS && !ret; s++)
		if (all_sinks[s]->root_json)
			ret = all_sinks[s]->root_json(a->sink[s], root);
	for (unsigned k = 0; k < a->ndev && !ret; k++) {
		unsigned i = (unsigned)(order[k] & 0xffffffffu);
		json_t *d = json_object();

		if (!d) {
			ret = -ENOMEM;
			break;
		}
		a->sorted[k] = i;
		json_object_set_new(d, "dev", json_string(blk_dev_name(a->devs[i], name)));
		for (unsigned s = 0; s < NSINKS && !ret; s++) {
			if (!timeline && all_sinks[s] == &blk_timeline_ops)
				json_object_set_new(d, "timeline", json_null());
			else
				ret = all_sinks[s]->to_json(a->sink[s], i, d, &ctx);
		}
		json_array_append_new(devs, d);
	}
	free(order);
	json_object_set_new(root, "devices", devs);
	return ret;
}

uint64_t blk_analysis_timeline_bins(const struct blk_analysis *a)
{
	return blk_timeline_nbins(a->sink[5]);
}

json_t *blk_analysis_timeline_bin(const struct blk_analysis *a, unsigned pos, uint64_t k)
{
	return blk_timeline_bin_json(a->sink[5], pos < a->ndev ? a->sorted[pos] : UINT32_MAX, k);
}

/* ------------------------------------------------------------------------------------- */

const char *blk_dev_name(uint32_t dev, char *buf)
{
	snprintf(buf, 24, "%u,%u", BLK_DEV_MAJOR(dev), BLK_DEV_MINOR(dev));
	return buf;
}

int blk_grow(void ***arr, unsigned *n, unsigned idx)
{
	unsigned nn;
	void **p;

	if (idx < *n)
		return 0;
	nn = *n ? *n : 4;
	while (nn <= idx)
		nn *= 2;
	p = realloc(*arr, nn * sizeof(*p));
	if (!p)
		return -ENOMEM;
	memset(p + *n, 0, (nn - *n) * sizeof(*p));
	*arr = p;
	*n = nn;
	return 0;
}

json_t *blk_hist_json(const struct hist *h, int buckets)
{
	json_t *o = json_object();

	json_object_set_new(o, "count", json_integer((json_int_t)h->count));
	json_object_set_new(o, "sum", json_integer((json_int_t)(uint64_t)h->sum));
	json_object_set_new(o, "mean", json_real(hist_mean(h)));
	json_object_set_new(o, "min", json_integer((json_int_t)(h->count ? h->min : 0)));
	json_object_set_new(o, "p50", json_integer((json_int_t)hist_quantile(h, 0.50)));
	json_object_set_new(o, "p90", json_integer((json_int_t)hist_quantile(h, 0.90)));
	json_object_set_new(o, "p99", json_integer((json_int_t)hist_quantile(h, 0.99)));
	json_object_set_new(o, "max", json_integer((json_int_t)h->max));
	if (buckets) {
		json_t *b = json_array();

		for (unsigned i = 0; i < HIST_BUCKETS && h->count; i++) {
			uint64_t lo, hi;
			json_t *e;

			if (!h->b[i])
				continue;
			hist_bucket_bounds(i, &lo, &hi);
			e = json_object();
			json_object_set_new(e, "lo", json_integer((json_int_t)lo));
			json_object_set_new(e, "hi", json_integer((json_int_t)hi));
			json_object_set_new(e, "count", json_integer((json_int_t)h->b[i]));
			json_array_append_new(b, e);
		}
		json_object_set_new(o, "buckets", b);
	}
	return o;
}
