/* SPDX-License-Identifier: MIT */
/* Fixed-memory log-linear histogram of u64 values (latencies in ns, distances in sectors). */
#ifndef IOTAPE_COMMON_HIST_H
#define IOTAPE_COMMON_HIST_H

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
/* Bucket index of v and the bounds [lo, hi] of a bucket (for rendering). */
static inline unsigned hist_bucket(uint64_t v)
{
	unsigned e, g;

	if (v < HIST_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v); /* e >= HIST_SUB_BITS */
	g = e - HIST_SUB_BITS + 1;
	return g * HIST_SUB + (unsigned)((v >> (e - HIST_SUB_BITS)) - HIST_SUB);
}
void hist_bucket_bounds(unsigned idx, uint64_t *lo, uint64_t *hi);

#endif
