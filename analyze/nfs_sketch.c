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

uint64_t nfs_sketch_quantile(const struct nfs_sketch *s, double q)
{
	unsigned i, nb = SK_BUCKETS(SK_FINE);
	uint64_t v;

	if (!s->count)
		return 0;
	if (q <= 0)
		return s->min;
	if (q >= 1)
		return s->max;
	i = hist_rank_bucket32(s->b, nb, s->count, q);
	/* the end buckets have no width of their own: the exact extremes stand for them */
	if (i == 0)
		return s->min;
	if (i == nb - 1)
		return s->max;
	v = hist_range_mid(i, SK_FINE, SK_LO_BITS, SK_HI_BITS);
	return v < s->min ? s->min : v > s->max ? s->max : v;
}

uint64_t nfs_coarse_quantile(const struct nfs_coarse *c, uint64_t n, double q)
{
	if (!n)
		return 0;
	return hist_range_mid(hist_rank_bucket32(c->b, SK_BUCKETS(SK_COARSE), n, q), SK_COARSE,
	                      SK_LO_BITS, SK_HI_BITS);
}
