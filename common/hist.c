/* SPDX-License-Identifier: MIT */
/* Log-linear histogram. */
#include "common/hist.h"

#include <stdlib.h>
#include <string.h>

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void hist_bucket_bounds_sub(unsigned idx, unsigned sub, uint64_t *lo, uint64_t *hi)
{
	unsigned g = idx >> sub, s = idx & ((1u << sub) - 1);

	if (g == 0) {
		*lo = *hi = s;
		return;
	}
	*lo = ((uint64_t)(1u << sub) + s) << (g - 1);
	*hi = *lo + ((uint64_t)1 << (g - 1)) - 1;
}

void hist_bucket_bounds(unsigned idx, uint64_t *lo, uint64_t *hi)
{
	hist_bucket_bounds_sub(idx, HIST_SUB_BITS, lo, hi);
}

/* The rank of quantile q among n values (nearest rank: the smallest value with at least
 * ceil(q * n) values at or below it), 1..n. */
static uint64_t rank_of(double q, uint64_t n)
{
	uint64_t rank = (uint64_t)(q * (double)n);

	if ((double)rank < q * (double)n)
		rank++;
	if (rank == 0)
		rank = 1;
	return rank > n ? n : rank;
}

static uint64_t midpoint(unsigned idx, unsigned sub)
{
	uint64_t lo, hi;

	hist_bucket_bounds_sub(idx, sub, &lo, &hi);
	return lo + (hi - lo) / 2;
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
	uint64_t rank, seen = 0, v;

	if (!h->count)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	rank = rank_of(q, h->count);
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			v = midpoint(i, HIST_SUB_BITS);
			if (v < h->min)
				v = h->min;
			if (v > h->max)
				v = h->max;
			return v;
		}
	}
	return h->max;
}

void hist_settle(struct hist *h, uint64_t *pending)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		n += h->b[i];
	h->count = n;
	h->sum += (long double)*pending;
	*pending = 0;
}

uint64_t hist_range_mid(unsigned idx, unsigned sub, unsigned lo, unsigned hi)
{
	if (idx == 0)
		return 1ull << lo >> 1;
	if (idx >= HIST_RANGE_BUCKETS(sub, lo, hi) - 1)
		return 1ull << hi;
	return midpoint(idx - 1 + ((lo - sub + 1) << sub), sub);
}

unsigned hist_rank_bucket32(const uint32_t *b, unsigned nb, uint64_t n, double q)
{
	uint64_t rank = rank_of(q < 0 ? 0 : q > 1 ? 1 : q, n ? n : 1), seen = 0;

	for (unsigned i = 0; i < nb; i++) {
		seen += b[i];
		if (seen >= rank)
			return i;
	}
	return nb - 1;
}

void histc_merge(struct hist_coarse *dst, const struct hist_coarse *src)
{
	if (!src->count)
		return;
	for (unsigned i = 0; i < HISTC_BUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
}

uint64_t histc_quantile(const struct hist_coarse *h, double q)
{
	if (!h->count)
		return 0;
	return midpoint(hist_rank_bucket32(h->b, HISTC_BUCKETS, h->count, q), HISTC_SUB_BITS);
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)(h->sum / (long double)h->count) : 0.0;
}

void hist_few_add_slow(struct hist_few *f, uint64_t *pending, uint64_t v)
{
	struct hist *h;

	if (f->n < HIST_FEW) {
		f->v[f->n++] = v;
		return;
	}
	h = malloc(sizeof(*h));
	if (!h)
		return;
	hist_init(h);
	for (unsigned i = 0; i <= f->n; i++) {
		uint64_t x = i < f->n ? f->v[i] : v;

		if (pending)
			hist_add_fast(h, pending, x);
		else
			hist_add(h, x);
	}
	f->h = h;
	f->n = 0;
}

void hist_few_settle(struct hist_few *f, uint64_t *pending)
{
	if (f->h)
		hist_settle(f->h, pending);
}

const struct hist *hist_few_view(const struct hist_few *f, struct hist *scratch)
{
	if (f->h)
		return f->h;
	hist_init(scratch);
	for (unsigned i = 0; i < f->n; i++)
		hist_add(scratch, f->v[i]);
	return scratch;
}

void hist_few_release(struct hist_few *f)
{
	free(f->h);
	f->h = NULL;
	f->n = 0;
}
