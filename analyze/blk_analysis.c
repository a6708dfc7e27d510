/* SPDX-License-Identifier: MIT */
/* The block pass: map devices to dense indexes, push each event through every sink once. */
#include "analyze/blk_analysis.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonint.h"
#include "analyze/blk_counts.h"
#include "analyze/blk_depth.h"
#include "analyze/blk_idle.h"
#include "analyze/blk_latency.h"
#include "analyze/blk_seek.h"
#include "analyze/blk_timeline.h"

/* Sinks the pass calls directly (feed_run() below), by name. */
enum { S_COUNTS, S_LATENCY, S_DEPTH, S_IDLE, S_SEEK, S_TIMELINE, NSINKS };

static const struct blk_sink_ops *const all_sinks[NSINKS] = {
    [S_COUNTS] = &blk_counts_ops, [S_LATENCY] = &blk_latency_ops, [S_DEPTH] = &blk_depth_ops,
    [S_IDLE] = &blk_idle_ops,     [S_SEEK] = &blk_seek_ops,       [S_TIMELINE] = &blk_timeline_ops,
};

#define DEVHASH (2 * BLK_MAX_DEVICES) /* power of two, at most half full */

/*
 * Sinks fed through ops->feed() after those above, on the main side: a sink of analyze's
 * own goes in this list (a new sink is its file and one line here); a caller adds its own
 * with blk_analysis_add_sink().
 */
static const struct blk_sink_ops *const fed_sinks[] = {
    NULL, /* the end of the list */
};
#define MAX_EXTRA 8 /* fed_sinks plus the callers' */

#define ALL_SINKS ((1u << NSINKS) - 1)
/*
 * A split pass (blk_analysis_split) feeds these sinks from the reader's thread, on each batch
 * right after it is decoded (still in that CPU's cache), and the others from the caller's:
 * the reader's thread also bears the decoding and the kernel's page-table work for the mapped
 * file, and this split is the one that balances the two (bench/README.md, "History").
 */
#define SIDE_SINKS (1u << S_COUNTS | 1u << S_TIMELINE)
#define MAIN_SINKS (ALL_SINKS & ~SIDE_SINKS)

/* Device number to dense index: open addressing on dev + 1 (0 = empty). */
struct devtab {
	uint32_t hkey[DEVHASH];
	uint16_t hidx[DEVHASH];
	uint32_t devs[BLK_MAX_DEVICES];
	unsigned ndev;
	uint32_t last_key; /* one-entry cache (dev + 1, 0: none): consecutive events are mostly
	                    * one device */
	unsigned last_idx;
	int have_time; /* this side's sinks have seen the first event */
};

struct blk_analysis {
	struct blk_opts o;
	void *sink[NSINKS];
	const struct blk_sink_ops *extra_ops[MAX_EXTRA];
	void *extra[MAX_EXTRA];
	unsigned nextra;
	/*
	 * In a split pass each side has its own device table: both see the same events in the
	 * same order, so they number the devices alike.
	 */
	struct devtab main;
	/* its own cache lines: the reader's thread reads it for every event */
	_Alignas(64) struct devtab side;
	_Alignas(64) int split;
	uint64_t dropped;
	uint64_t start, end;
	int finished;
	const struct bt_comm_table *comms;
	unsigned sorted[BLK_MAX_DEVICES]; /* device index at each position of "devices" */
};

int blk_analysis_new(struct blk_analysis **out, const struct blk_opts *o)
{
	struct blk_analysis *a = blk_zalloc(sizeof(*a));

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
	for (unsigned i = 0; fed_sinks[i]; i++) {
		if (!blk_analysis_add_sink(a, fed_sinks[i])) {
			blk_analysis_free(a);
			return -ENOMEM;
		}
	}
	*out = a;
	return 0;
}

void *blk_analysis_add_sink(struct blk_analysis *a, const struct blk_sink_ops *ops)
{
	void *s;

	if (a->nextra == MAX_EXTRA || a->main.have_time)
		return NULL;
	s = ops->create(&a->o);
	if (!s)
		return NULL;
	a->extra_ops[a->nextra] = ops;
	a->extra[a->nextra++] = s;
	return s;
}

void *blk_analysis_sink(const struct blk_analysis *a, const struct blk_sink_ops *ops)
{
	for (unsigned i = 0; i < NSINKS; i++)
		if (all_sinks[i] == ops)
			return a->sink[i];
	for (unsigned i = 0; i < a->nextra; i++)
		if (a->extra_ops[i] == ops)
			return a->extra[i];
	return NULL;
}

void blk_analysis_free(struct blk_analysis *a)
{
	if (!a)
		return;
	for (unsigned i = 0; i < NSINKS; i++)
		if (a->sink[i])
			all_sinks[i]->destroy(a->sink[i]);
	for (unsigned i = 0; i < a->nextra; i++)
		a->extra_ops[i]->destroy(a->extra[i]);
	free(a);
}

const struct bt_comm_table *blk_analysis_comms(const struct blk_analysis *a)
{
	return a->comms;
}

void blk_analysis_set_comms(struct blk_analysis *a, const struct bt_comm_table *comms)
{
	a->comms = comms;
}

/* Dense index of dev, or -1 when the table is full. */
static inline int dev_index(struct devtab *t, uint32_t dev)
{
	uint32_t key = dev + 1, h;

	if (t->last_key == key)
		return (int)t->last_idx;
	h = (key * 0x9e3779b1u) & (DEVHASH - 1);
	while (t->hkey[h] && t->hkey[h] != key)
		h = (h + 1) & (DEVHASH - 1);
	if (!t->hkey[h]) {
		if (t->ndev == BLK_MAX_DEVICES)
			return -1;
		t->hkey[h] = key;
		t->hidx[h] = (uint16_t)t->ndev;
		t->devs[t->ndev++] = dev;
	}
	t->last_key = key;
	t->last_idx = t->hidx[h];
	return (int)t->last_idx;
}

#define ON(k) (mask & (1u << (k)))

/* The added sinks that want this action. */
static void feed_extra(struct blk_analysis *a, unsigned idx, const struct blk_event *ev)
{
	for (unsigned i = 0; i < a->nextra; i++) {
		uint32_t want = a->extra_ops[i]->actions;

		if (!want || (ev->action < 32 && (want >> ev->action & 1)))
			a->extra_ops[i]->feed(a->extra[i], idx, ev);
	}
}

/* The first event starts every sink's clock (idle gaps, timeline bins): it goes to all. */
static void feed_first(struct blk_analysis *a, unsigned mask, int main, unsigned idx,
                       const struct blk_event *ev)
{
	void *const *k = a->sink;

	for (unsigned i = 0; i < NSINKS; i++)
		if (ON(i) && all_sinks[i]->start)
			all_sinks[i]->start(k[i], ev->time);
	if (main) /* the added sinks are the main side's */
		for (unsigned i = 0; i < a->nextra; i++)
			if (a->extra_ops[i]->start)
				a->extra_ops[i]->start(a->extra[i], ev->time);

	if (ON(S_COUNTS))
		blk_counts_feed(k[S_COUNTS], idx, ev);
	if (ON(S_LATENCY))
		blk_latency_feed(k[S_LATENCY], idx, ev);
	if (ON(S_DEPTH))
		blk_depth_feed(k[S_DEPTH], idx, ev);
	if (ON(S_IDLE))
		blk_idle_feed(k[S_IDLE], idx, ev);
	if (ON(S_SEEK))
		blk_seek_feed(k[S_SEEK], idx, ev);
	if (ON(S_TIMELINE))
		blk_timeline_feed(k[S_TIMELINE], idx, ev);
	if (main)
		feed_extra(a, idx, ev);
}

/*
 * The hot loop: direct calls, and only to the sinks in mask that look at this action (each
 * one ignores the others anyway; the span's end reaches them through finish()): a call that
 * returns at once costs as much as a sink's work. mask, main and extra are constants at every
 * call site, so each use compiles to its own loop without the tests. The sinks' hot paths are
 * inline, and each case calls them with the action known, so that their own tests of it fold
 * away.
 */
static inline __attribute__((always_inline)) void feed_run(struct blk_analysis *a, struct devtab *t,
                                                           const unsigned mask, const int main,
                                                           const int extra,
                                                           const struct blk_event *ev, unsigned n)
{
	void *const *k = a->sink;
	uint64_t end = a->end; /* written back once: the other thread reads nearby lines */

	for (unsigned i = 0; i < n; i++, ev++) {
		int r;
		unsigned idx;

		if (blk_is_notify(ev))
			continue;
		r = dev_index(t, ev->dev);
		if (r < 0) {
			if (main)
				a->dropped++;
			continue;
		}
		idx = (unsigned)r;
		if (__builtin_expect(!t->have_time, 0)) {
			t->have_time = 1;
			if (main)
				a->start = end = ev->time;
			feed_first(a, mask, main, idx, ev);
			continue;
		}
		if (main && ev->time > end)
			end = ev->time;
#define COUNTS(act)                                                                                \
	do {                                                                                       \
		if (ON(S_COUNTS))                                                                  \
			blk_counts_feed_inline(k[S_COUNTS], idx, ev, act);                         \
	} while (0)
#define QUEUED(act)                                                                                \
	do {                                                                                       \
		COUNTS(act);                                                                       \
		if (ON(S_LATENCY))                                                                 \
			blk_latency_feed(k[S_LATENCY], idx, ev);                                   \
		if (ON(S_IDLE))                                                                    \
			blk_idle_feed_inline(k[S_IDLE], idx, ev, act);                             \
	} while (0)
#define REQUEST(act)                                                                               \
	do {                                                                                       \
		COUNTS(act);                                                                       \
		if (act != BLK_A_REQUEUE && ON(S_LATENCY))                                         \
			blk_latency_feed(k[S_LATENCY], idx, ev);                                   \
		if (ON(S_SEEK))                                                                    \
			blk_seek_feed_inline(k[S_SEEK], idx, ev, act);                             \
		if (ON(S_DEPTH))                                                                   \
			blk_depth_feed_inline(k[S_DEPTH], idx, ev, act);                           \
		if (ON(S_IDLE))                                                                    \
			blk_idle_feed_inline(k[S_IDLE], idx, ev, act);                             \
		if (ON(S_TIMELINE))                                                                \
			blk_timeline_feed_inline(k[S_TIMELINE], idx, ev, act);                     \
	} while (0)
		switch (ev->action) {
		case BLK_A_QUEUE:
			QUEUED(BLK_A_QUEUE);
			break;
		case BLK_A_INSERT:
			QUEUED(BLK_A_INSERT);
			break;
		case BLK_A_GETRQ:
		case BLK_A_BACKMERGE:
		case BLK_A_FRONTMERGE:
			COUNTS(ev->action);
			if (ON(S_LATENCY))
				blk_latency_feed(k[S_LATENCY], idx, ev);
			break;
		case BLK_A_ISSUE:
			REQUEST(BLK_A_ISSUE);
			break;
		case BLK_A_COMPLETE:
			REQUEST(BLK_A_COMPLETE);
			break;
		case BLK_A_REQUEUE:
			REQUEST(BLK_A_REQUEUE);
			break;
		default:
			COUNTS(ev->action);
			break;
		}
#undef COUNTS
#undef QUEUED
#undef REQUEST
		if (extra)
			feed_extra(a, idx, ev);
	}
	if (main)
		a->end = end;
}
#undef ON

void blk_analysis_feed_batch(struct blk_analysis *a, const struct blk_event *ev, unsigned n)
{
	/* added sinks on the main side, in a loop of their own: none costs nothing per event */
	if (a->nextra)
		feed_run(a, &a->main, a->split ? MAIN_SINKS : ALL_SINKS, 1, 1, ev, n);
	else if (a->split)
		feed_run(a, &a->main, MAIN_SINKS, 1, 0, ev, n);
	else
		feed_run(a, &a->main, ALL_SINKS, 1, 0, ev, n);
}

void blk_analysis_feed(struct blk_analysis *a, const struct blk_event *ev)
{
	blk_analysis_feed_batch(a, ev, 1);
}

void blk_analysis_split(struct blk_analysis *a)
{
	a->split = 1;
}

void blk_analysis_feed_side(struct blk_analysis *a, const struct blk_event *ev, unsigned n)
{
	feed_run(a, &a->side, SIDE_SINKS, 0, 0, ev, n);
}

/* The reader thread's share of a split pass. */
static void side_tap(void *arg, const struct blk_event *ev, unsigned n)
{
	blk_analysis_feed_side(arg, ev, n);
}

int blk_analysis_read(struct blk_analysis *a, struct bt_reader *rd, struct iot_err *e)
{
	const struct blk_event *ev;
	unsigned n;
	int ret;

	blk_analysis_split(a);
	ret = bt_reader_prefetch_tap(rd, side_tap, a, e);
	while (!ret && (ret = bt_reader_next_batch(rd, &ev, &n, e)) > 0) {
		blk_analysis_feed_batch(a, ev, n);
		ret = 0;
	}
	/* names are complete once the reader is done; after an error, the sinks hold what came
	 * before it (partial results, for a caller that reports them) */
	blk_analysis_set_comms(a, bt_reader_comms(rd));
	blk_analysis_finish(a);
	return ret < 0 ? ret : 0;
}

/* dev is major << 20 | minor, so sorting (dev << 32 | idx) sorts by major, then minor */
static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* a->sorted: the devices by major, then minor (the order of "devices"). */
static void sort_devices(struct blk_analysis *a)
{
	uint64_t order[BLK_MAX_DEVICES];

	for (unsigned i = 0; i < a->main.ndev; i++)
		order[i] = (uint64_t)a->main.devs[i] << 32 | i;
	qsort(order, a->main.ndev, sizeof(*order), cmp_u64);
	for (unsigned k = 0; k < a->main.ndev; k++)
		a->sorted[k] = (unsigned)(order[k] & 0xffffffffu);
}

void blk_analysis_finish(struct blk_analysis *a)
{
	if (a->finished)
		return;
	a->finished = 1;
	if (!a->main.have_time)
		a->start = a->end = 0;
	sort_devices(a);
	for (unsigned i = 0; i < NSINKS; i++)
		all_sinks[i]->finish(a->sink[i], a->start, a->end);
	for (unsigned i = 0; i < a->nextra; i++)
		a->extra_ops[i]->finish(a->extra[i], a->start, a->end);
}

unsigned blk_analysis_ndevices(const struct blk_analysis *a)
{
	return a->main.ndev;
}

uint32_t blk_analysis_device(const struct blk_analysis *a, unsigned idx)
{
	return idx < a->main.ndev ? a->main.devs[idx] : 0;
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

int blk_analysis_to_json(struct blk_analysis *a, json_t *root, int timeline)
{
	struct blk_json_ctx ctx = {a->start, a->end, a->comms};
	json_t *devs = json_array();
	char name[24];
	int ret = 0;

	blk_analysis_finish(a);
	if (!devs)
		return -ENOMEM;
	json_object_set_new(root, "start_ns", json_u64(a->start));
	json_object_set_new(root, "end_ns", json_u64(a->end));
	json_object_set_new(root, "span_ns", json_u64((a->end - a->start)));
	if (a->dropped)
		json_object_set_new(root, "events_dropped_devices", json_u64(a->dropped));
	for (unsigned s = 0; s < NSINKS && !ret; s++)
		if (all_sinks[s]->root_json)
			ret = all_sinks[s]->root_json(a->sink[s], root);
	for (unsigned s = 0; s < a->nextra && !ret; s++)
		if (a->extra_ops[s]->root_json)
			ret = a->extra_ops[s]->root_json(a->extra[s], root);
	for (unsigned k = 0; k < a->main.ndev && !ret; k++) {
		unsigned i = a->sorted[k];
		json_t *d = json_object();

		if (!d) {
			ret = -ENOMEM;
			break;
		}
		json_object_set_new(d, "dev", json_string(blk_dev_name(a->main.devs[i], name)));
		for (unsigned s = 0; s < NSINKS && !ret; s++) {
			if (!timeline && s == S_TIMELINE)
				json_object_set_new(d, "timeline", json_null());
			else
				ret = all_sinks[s]->to_json(a->sink[s], i, d, &ctx);
		}
		for (unsigned s = 0; s < a->nextra && !ret; s++)
			if (a->extra_ops[s]->to_json)
				ret = a->extra_ops[s]->to_json(a->extra[s], i, d, &ctx);
		json_array_append_new(devs, d);
	}
	json_object_set_new(root, "devices", devs);
	return ret;
}

unsigned blk_analysis_sorted(const struct blk_analysis *a, unsigned pos)
{
	return a->finished && pos < a->main.ndev ? a->sorted[pos] : UINT_MAX;
}

uint64_t blk_analysis_timeline_bins(const struct blk_analysis *a)
{
	return blk_timeline_nbins(a->sink[S_TIMELINE]);
}

json_t *blk_analysis_timeline_bin(const struct blk_analysis *a, unsigned pos, uint64_t k)
{
	return blk_timeline_bin_json(a->sink[S_TIMELINE],
	                             pos < a->main.ndev ? a->sorted[pos] : UINT32_MAX, k);
}
