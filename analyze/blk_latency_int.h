/* SPDX-License-Identifier: MIT */
/* The latency sink's state, shared by blk_latency.c (the per-event matching) and
 * blk_latency_sink.c (made, freed, read, written) only. */
#ifndef IOTAPE_ANALYZE_BLK_LATENCY_INT_H
#define IOTAPE_ANALYZE_BLK_LATENCY_INT_H

#include "analyze/blk_latency.h"

/* A place in an age list: a circular list through a head, oldest first after the head, so
 * that linking and unlinking never test for the ends. */
struct age {
	struct age *older, *newer;
};

/* A tracked bio: a node of its device's tree. What a walk reads comes first, together. */
struct lat_bio {
	uint64_t start, end; /* sectors */
	/* the device's tree (left is also the free list); child[0] is left, child[1] right, so
	 * that the rebalancing writes each case once for both sides */
	union {
		struct {
			struct lat_bio *left, *right;
		};
		struct lat_bio *child[2];
	};
	struct lat_bio *parent;
	uint32_t dev;
	uint8_t red;
	uint64_t q, g, i, m, d; /* times, NONE when not seen */
	struct age age;
};

/* A request between its D and its C, in a hash on (device, start sector). */
struct lat_rq {
	uint64_t start, d;
	struct lat_rq *hnext; /* hash chain; free list */
	struct age age;
	uint32_t dev;
};

struct blk_latency {
	struct blk_latency_dev **dev;
	unsigned ndev;
	int finished;
	/*
	 * bios: a pool of max_inflight, the released ones on a free list and the never used
	 * ones past bio_fresh, so that a trace touches only as much of the pool as it has IO
	 * in flight (a full pool's pages would cost a thousand page faults at every start)
	 */
	struct lat_bio *bio, *bio_free;
	struct age bio_age;
	uint32_t bio_used, bio_fresh, cap;
	/* requests: the same, and the hash buckets */
	struct lat_rq *rq, *rq_free;
	uint32_t rq_fresh;
	struct age rq_age;
	struct lat_rq **bucket;
	uint32_t mask;
	struct lat_bio **found; /* the bios a C collected, in order (at most max_inflight) */
	/* per-interval D2C of the first nbinned devices, bins[dev][0..nbins[dev]) */
	struct bins clock;
	unsigned nbinned;
	struct hist_coarse **bins;
	uint64_t *nbins;
};

/* A wider interval (bins_place()): every device's bins follow. */
void blk_lat_bins_moved(void *ctx, const struct bins_move *m);

#endif
