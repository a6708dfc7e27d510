/* SPDX-License-Identifier: MIT */
/* Small response-time histograms (analyze/nfs_sketch.h). */
#include "analyze/nfs_sketch.h"

#include <string.h>

void nfs_sketch_init(struct nfs_sketch *s)
{
	memset(s, 0, sizeof(*s));
	s->min = UINT64_MAX;
}

void nfs_sketch_add(struct nfs_sketch *s, uint64_t v)
{
	sk_inc(&s->b[sk_bucket(v, SK_FINE)]);
	s->count++;
	s->sum += (double)v;
	if (v < s->min)
		s->min = v;
	if (v > s->max)
		s->max = v;
}

void nfs_sketch_merge(struct nfs_sketch *dst, const struct nfs_sketch *src)
{
	if (!src->count)
		return;
	for (unsigned i = 0; i < SK_BUCKETS(SK_FINE); i++) {
		uint64_t v = (uint64_t)dst->b[i] + src->b[i];

		dst->b[i] = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
	}
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

double nfs_sketch_mean(const struct nfs_sketch *s)
{
	return s->count ? s->sum / (double)s->count : 0;
}

/* Midpoint of bucket i; the end buckets have no width of their own (callers clamp). */
static uint64_t mid(unsigned i, unsigned sub_bits, unsigned nb)
{
	unsigned g, k;
	uint64_t lo, w;

	if (i == 0)
		return 0;
	if (i == nb - 1)
		return UINT64_MAX;
	g = (i - 1) >> sub_bits;
	k = (i - 1) & ((1u << sub_bits) - 1u);
	w = 1ull << (SK_LO_BITS + g - sub_bits);
	lo = (1ull << (SK_LO_BITS + g)) + k * w;
	return lo + w / 2;
}

static unsigned rank_bucket(const uint32_t *b, unsigned nb, uint64_t n, double q)
{
	uint64_t rank = (uint64_t)(q * (double)n), seen = 0;
	unsigned i;

	if ((double)rank < q * (double)n)
		rank++;
	if (!rank)
		rank = 1;
	for (i = 0; i < nb; i++) {
		seen += b[i];
		if (seen >= rank)
			return i;
	}
	return nb - 1;
}

uint64_t nfs_sketch_quantile(const struct nfs_sketch *s, double q)
{
	uint64_t v;

	if (!s->count)
		return 0;
	if (q <= 0)
		return s->min;
	if (q >= 1)
		return s->max;
	v = mid(rank_bucket(s->b, SK_BUCKETS(SK_FINE), s->count, q), SK_FINE, SK_BUCKETS(SK_FINE));
	return v < s->min ? s->min : v > s->max ? s->max : v;
}

uint64_t nfs_coarse_quantile(const struct nfs_coarse *c, uint64_t n, double q)
{
	unsigned i, nb = SK_BUCKETS(SK_COARSE);

	if (!n)
		return 0;
	i = rank_bucket(c->b, nb, n, q);
	if (i == 0)
		return 1ull << (SK_LO_BITS - 1);
	if (i == nb - 1)
		return 1ull << SK_HI_BITS;
	return mid(i, SK_COARSE, nb);
}
