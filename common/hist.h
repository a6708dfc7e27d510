/* SPDX-License-Identifier: MIT */
/* Fixed-memory log-linear histogram of u64 values (latencies in ns, distances in sectors). */
#ifndef IOTAPE_COMMON_HIST_H
#define IOTAPE_COMMON_HIST_H

#include <stddef.h>
#include <stdint.h>

/*
 * Values below 2^HIST_SUB_BITS are counted exactly; above, each power of two is split into
 * 2^HIST_SUB_BITS linear buckets, so a reported percentile is within 1/64 (1.6 %) of the true
 * value. Count, sum, min and max are exact, so the mean is exact. Memory is fixed (~15 KiB)
 * whatever the number of values: percentiles over any trace length without holding it.
 */
#define HIST_SUB_BITS 6
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_BUCKETS ((64 - HIST_SUB_BITS + 1) * HIST_SUB)

struct hist {
	uint64_t count;
	uint64_t min;
	uint64_t max;
	long double sum; /* exact for any realistic trace: 2^64 ns sums fit in the mantissa */
	uint64_t b[HIST_BUCKETS];
};

void hist_init(struct hist *h);
void hist_add(struct hist *h, uint64_t v);
/* Merge src into dst. */
void hist_merge(struct hist *dst, const struct hist *src);
/* Value at quantile q in [0,1]: the midpoint of the bucket holding the q-th value, clamped to
 * [min, max]; exact for values below 2^HIST_SUB_BITS. 0 for an empty histogram. */
uint64_t hist_quantile(const struct hist *h, double q);
double hist_mean(const struct hist *h);

/*
 * Buckets with 2^sub linear steps per power of two: values below 2^sub exactly, above in steps
 * of 2^(e - sub) for v's top bit e. With s = max(0, e - sub) the bucket is s * 2^sub + (v >> s),
 * and v | 2^sub makes s 0 below 2^sub: no branch. (64 - sub + 1) * 2^sub buckets in all.
 */
static inline unsigned hist_bucket_sub(uint64_t v, unsigned sub)
{
	unsigned s = (63u ^ (unsigned)__builtin_clzll(v | (1ull << sub))) - sub;

	return (s << sub) + (unsigned)(v >> s);
}
/* Bounds [lo, hi] of bucket idx of hist_bucket_sub(., sub). */
void hist_bucket_bounds_sub(unsigned idx, unsigned sub, uint64_t *lo, uint64_t *hi);

static inline unsigned hist_bucket(uint64_t v)
{
	return hist_bucket_sub(v, HIST_SUB_BITS);
}
void hist_bucket_bounds(unsigned idx, uint64_t *lo, uint64_t *hi);

/*
 * hist_add() for hot loops: the sum goes to *pending, a u64 beside the histogram, and the count
 * is left to hist_settle(), which adds both in (an x87 long double add per value costs twice
 * the rest of hist_add()). min, max and the buckets are current; count, sum, mean and
 * quantiles are right only after hist_settle(). Do not mix with hist_add() on one histogram.
 */
static inline void hist_add_fast(struct hist *h, uint64_t *pending, uint64_t v)
{
	h->b[hist_bucket(v)]++;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	if (__builtin_add_overflow(*pending, v, pending)) {
		h->sum += (long double)*pending + 18446744073709551616.0L;
		*pending = 0;
	}
}
void hist_settle(struct hist *h, uint64_t *pending);

/*
 * A histogram that takes its 30 KiB only once it has more than HIST_FEW values: until then
 * the values themselves are kept (exact). For tables with a histogram per device and kind,
 * where a device may see a handful of IOs: 4096 such devices cost 1.6 GB as whole
 * histograms. Read it through hist_few_view(), which gives the same figures either way.
 */
#define HIST_FEW 32

struct hist_few {
	struct hist *h; /* NULL until more than HIST_FEW values */
	uint32_t n;     /* values in v[] while h is NULL */
	uint64_t v[HIST_FEW];
};

/* The slow path of the adds below: keep v, or make the histogram with the kept values (added
 * with hist_add_fast() when pending is given, else hist_add()); without memory the value is
 * dropped, as a sink drops a device it cannot hold. */
__attribute__((cold)) void hist_few_add_slow(struct hist_few *f, uint64_t *pending, uint64_t v);

/* hist_add_fast() once the histogram exists (pending as there); hist_few_settle() at the end. */
static inline void hist_few_add_fast(struct hist_few *f, uint64_t *pending, uint64_t v)
{
	if (__builtin_expect(f->h != NULL, 1))
		hist_add_fast(f->h, pending, v);
	else
		hist_few_add_slow(f, pending, v);
}

/* hist_add() once the histogram exists; nothing to settle. */
static inline void hist_few_add(struct hist_few *f, uint64_t v)
{
	if (__builtin_expect(f->h != NULL, 1))
		hist_add(f->h, v);
	else
		hist_few_add_slow(f, NULL, v);
}

void hist_few_settle(struct hist_few *f, uint64_t *pending);
/* f as a struct hist: its histogram, or scratch filled with the values kept. */
const struct hist *hist_few_view(const struct hist_few *f, struct hist *scratch);
void hist_few_release(struct hist_few *f);

/*
 * The same buckets kept over [2^lo, 2^hi) only (lo >= sub), with one bucket for everything
 * below and one for everything above: bucket 0 below, 1 .. inside, HIST_RANGE_BUCKETS - 1
 * above. For tables of many small histograms (the NFS statistics' per client and per file).
 */
#define HIST_RANGE_BUCKETS(sub, lo, hi) ((((hi) - (lo)) << (sub)) + 2u)

static inline unsigned hist_bucket_range(uint64_t v, unsigned sub, unsigned lo, unsigned hi)
{
	if (v < (1ull << lo))
		return 0;
	if (v >> hi)
		return HIST_RANGE_BUCKETS(sub, lo, hi) - 1;
	return hist_bucket_sub(v, sub) - ((lo - sub + 1) << sub) + 1;
}
/* Midpoint of range bucket idx: 2^lo / 2 below the range, 2^hi above it. */
uint64_t hist_range_mid(unsigned idx, unsigned sub, unsigned lo, unsigned hi);

/* The bucket holding the nearest-rank q-quantile of n values counted in b[0 .. nb) (32-bit
 * counts; the last bucket when they count fewer than n). */
unsigned hist_rank_bucket32(const uint32_t *b, unsigned nb, uint64_t n, double q);

/*
 * The same buckets at 2^3 steps per power of two (a quantile within 1/16 of the true value),
 * 32-bit counts and nothing else: about 2 KiB, small enough for one per time interval (the
 * report's per-interval latency). Quantiles give the bucket's midpoint.
 */
#define HISTC_SUB_BITS 3
#define HISTC_BUCKETS ((64 - HISTC_SUB_BITS + 1) << HISTC_SUB_BITS)

struct hist_coarse {
	uint32_t count;
	uint32_t b[HISTC_BUCKETS];
};

static inline void histc_add(struct hist_coarse *h, uint64_t v)
{
	h->b[hist_bucket_sub(v, HISTC_SUB_BITS)]++;
	h->count++;
}
void histc_merge(struct hist_coarse *dst, const struct hist_coarse *src);
/* Nearest-rank quantile q in [0, 1] (0 for an empty histogram). */
uint64_t histc_quantile(const struct hist_coarse *h, double q);

#endif
