/* SPDX-License-Identifier: MIT */
/* Small fixed-memory response-time histograms for the NFS tables kept per client and file. */
#ifndef IOTAPE_ANALYZE_NFS_SKETCH_H
#define IOTAPE_ANALYZE_NFS_SKETCH_H

#include <stdint.h>

#include "common/hist.h"

/*
 * struct hist is exact to 1.6 % but takes 30 KiB; the NFS statistics keep response times
 * for thousands of clients and files, and per procedure for every timeline bin, where that
 * would be hundreds of megabytes. These keep common/hist.h's log-linear buckets over
 * 1 us .. 2^40 ns (18 min) only (hist_bucket_range()), values outside in two end buckets, and
 * exact count, sum, min and max (so the mean is exact): a sketch has 4 buckets per power of
 * two (a percentile within 12.5 %, 488 bytes of buckets), a coarse one 2 (within 25 %, 248
 * bytes) for the per-interval series.
 */
#define SK_LO_BITS 10u /* 1024 ns */
#define SK_HI_BITS 40u
#define SK_BUCKETS(sub_bits) HIST_RANGE_BUCKETS(sub_bits, SK_LO_BITS, SK_HI_BITS)
#define SK_FINE 2u
#define SK_COARSE 1u

struct nfs_sketch {
	uint64_t count, min, max;
	double sum;
	uint32_t b[SK_BUCKETS(SK_FINE)];
};

/* Only bucket counts: count, min and max of a coarse series come from elsewhere. */
struct nfs_coarse {
	uint32_t b[SK_BUCKETS(SK_COARSE)];
};

static inline unsigned sk_bucket(uint64_t v, unsigned sub_bits)
{
	return hist_bucket_range(v, sub_bits, SK_LO_BITS, SK_HI_BITS);
}

static inline void sk_inc(uint32_t *b)
{
	if (*b != UINT32_MAX)
		(*b)++;
}

void nfs_sketch_init(struct nfs_sketch *s);
void nfs_sketch_add(struct nfs_sketch *s, uint64_t v);
void nfs_sketch_merge(struct nfs_sketch *dst, const struct nfs_sketch *src);
double nfs_sketch_mean(const struct nfs_sketch *s);
/* The value at quantile q (nearest rank; the bucket's midpoint, clamped to [min, max]). */
uint64_t nfs_sketch_quantile(const struct nfs_sketch *s, double q);

static inline void nfs_coarse_add(struct nfs_coarse *c, uint64_t v)
{
	sk_inc(&c->b[sk_bucket(v, SK_COARSE)]);
}
/* Quantile of a coarse histogram holding n values (0 when empty). */
uint64_t nfs_coarse_quantile(const struct nfs_coarse *c, uint64_t n, double q);

#endif
