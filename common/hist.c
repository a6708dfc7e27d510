/* SPDX-License-Identifier: MIT */
/* Log-linear histogram. */
#include "common/hist.h"

#include <string.h>

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void hist_bucket_bounds(unsigned idx, uint64_t *lo, uint64_t *hi)
{
	unsigned g = idx / HIST_SUB, s = idx % HIST_SUB;
	unsigned shift;

	if (g == 0) {
		*lo = *hi = s;
		return;
	}
	shift = g - 1;
	*lo = ((uint64_t)HIST_SUB + s) << shift;
	*hi = *lo + ((uint64_t)1 << shift) - 1;
}

void hist_add(struct hist *h, uint64_t v)
{
	h->b[hist_bucket(v)]++;
	h->count++;
	h->sum += (long double)v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	if (!src->count)
		return;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen = 0, lo, hi, v;

	if (!h->count)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* nearest-rank: the smallest value with at least ceil(q*n) values at or below it */
	rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	if (rank == 0)
		rank = 1;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			hist_bucket_bounds(i, &lo, &hi);
			v = lo + (hi - lo) / 2;
			if (v < h->min)
				v = h->min;
			if (v > h->max)
				v = h->max;
			return v;
		}
	}
	return h->max;
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)(h->sum / (long double)h->count) : 0.0;
}
