/* SPDX-License-Identifier: MIT */
/* Interval bins whose width doubles: per-interval series in bounded memory over any time span. */
#ifndef IOTAPE_COMMON_BINS_H
#define IOTAPE_COMMON_BINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The clock of a binned series: bin k covers [origin + k * width, origin + (k + 1) * width).
 * When a time would need bin max or later, the width doubles and neighbouring bins are
 * summed, so a series never holds more than max bins and nothing is dropped: sums merge
 * exactly. The data live in the caller's arrays (one per device, say, all on one clock);
 * bins_place() calls back for every change of layout, and bins_move_array() applies it to
 * one array.
 *
 * Relative bins start at the first time placed (bins_start()); a time before the origin
 * falls in bin 0. Aligned bins keep the origin a multiple of the width (absolute intervals:
 * 0 .. 1 s, 1 .. 2 s, ...) and make room for an earlier time by moving the bins right,
 * which needs arrays of max elements.
 *
 * Ends are computed without wrapping: the last bins of a trace near the end of the u64 clock
 * end at UINT64_MAX.
 */
struct bins {
	uint64_t origin;  /* start of bin 0 */
	uint64_t width;   /* ns, at least 1 */
	uint64_t width0;  /* the width asked for */
	uint64_t max;     /* bins kept, at least 2 */
	uint64_t max0;    /* the max asked for (bins_share() lowers max) */
	uint64_t n;       /* bins in use: the highest placed + 1 (0 before the first) */
	unsigned widened; /* doublings so far */
	bool aligned;
	bool started;
};

/* One change of layout: bin k of before becomes bin ((k + off) >> widen) + right. */
struct bins_move {
	uint64_t used;  /* bins in use before */
	uint64_t off;   /* with widen: 1 when the old origin was an odd multiple of the width */
	uint64_t right; /* bins moved right (aligned bins, a time before the origin) */
	unsigned widen; /* 1: the width doubled */
};

/* Called by bins_place() for each change (the clock already shows the new layout); ctx is the
 * caller's. */
typedef void (*bins_move_fn)(void *ctx, const struct bins_move *m);

void bins_init(struct bins *b, uint64_t width, uint64_t max, bool aligned);
/* Start relative bins at origin (aligned bins start at the first time placed). */
void bins_start(struct bins *b, uint64_t origin);
/* The bin of t after making room for it (moves reported to fn first; fn may be NULL when
 * the caller holds no arrays yet). Starts the clock at t if it has not started. */
uint64_t bins_place(struct bins *b, uint64_t t, bins_move_fn fn, void *ctx);

/* Bin of t on the current layout (no room made: t must have been placed, or be earlier). */
static inline uint64_t bins_index(const struct bins *b, uint64_t t)
{
	uint64_t k = t > b->origin ? (t - b->origin) / b->width : 0;

	return k < b->max ? k : b->max - 1;
}

/*
 * Many series on one clock share total bins: with nseries series each keeps at most
 * total / nseries (a power of two, at least BINS_SHARE_MIN, never above the max asked for),
 * so that memory follows total, not the number of series. A lower max widens the bins now
 * (moves reported to fn); arrays then hold bins past the new max that are zero and can be cut
 * (bins_cut()). The max only goes down.
 */
#define BINS_SHARE_MIN 16u
void bins_share(struct bins *b, uint64_t nseries, uint64_t total, bins_move_fn fn, void *ctx);
/* Cut an array of *cap elements down to max (after bins_share()); keeps it if realloc fails. */
void bins_cut(void **arr, uint64_t *cap, size_t size, uint64_t max);

/* Start and end of bin k, saturating at UINT64_MAX. */
uint64_t bins_start_of(const struct bins *b, uint64_t k);
uint64_t bins_end_of(const struct bins *b, uint64_t k);

/*
 * The part of [from, to) inside the bin holding from: its length (at least 1 when from < to),
 * the bin in *k. Walk a span with: while (from < to) { len = bins_segment(...); ...; from +=
 * len; }. to must have been placed.
 */
static inline uint64_t bins_segment(const struct bins *b, uint64_t from, uint64_t to, uint64_t *k)
{
	uint64_t end;

	*k = bins_index(b, from);
	end = bins_end_of(b, *k);
	return (end < to ? end : to) - from;
}

/*
 * Room for bin k in an array grown as a series reaches it (*cap elements, zeroed as they are
 * added; at most max): doubles *cap past k. 0, or -ENOMEM with the array as it was.
 */
int bins_reserve(void **arr, uint64_t *cap, uint64_t k, size_t size, uint64_t max);

/* Apply one move to an array of cap elements of size bytes (cap: what it holds; a move right
 * needs max). add(dst, src) sums one bin into another; the bins left behind are zeroed. */
void bins_move_array(const struct bins_move *m, void *arr, uint64_t cap, size_t size,
                     void (*add)(void *dst, const void *src));

#endif
