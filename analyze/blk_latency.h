/* SPDX-License-Identifier: MIT */
/* Latency sink: Q2D, D2C, Q2C (and Q2G, G2I, Q2M, I2D, M2D, Q2Q) per device, matched as btt does.
 */
#ifndef IOTAPE_ANALYZE_BLK_LATENCY_H
#define IOTAPE_ANALYZE_BLK_LATENCY_H

#include "analyze/blk_sink.h"
#include "common/bins.h"

enum blk_lat {
	BLK_LAT_Q2D,     /* queue -> issue of the request holding the bio, per bio */
	BLK_LAT_D2C,     /* issue -> completion, per bio (btt's D2C) */
	BLK_LAT_Q2C,     /* queue -> completion, per bio */
	BLK_LAT_Q2G,     /* queue -> get request */
	BLK_LAT_G2I,     /* get request -> insert */
	BLK_LAT_Q2M,     /* queue -> merge into an existing request */
	BLK_LAT_I2D,     /* insert -> issue */
	BLK_LAT_M2D,     /* merge -> issue */
	BLK_LAT_Q2Q,     /* between consecutive queued bios */
	BLK_LAT_D2C_REQ, /* issue -> completion per request (one per C) */
	BLK_LAT_N,
};

/* JSON key of each distribution. */
extern const char *const blk_lat_names[BLK_LAT_N];

struct lat_bio;

struct blk_latency_dev {
	struct hist_few h[BLK_LAT_N]; /* sums complete once the sink is finished */
	uint64_t sum[BLK_LAT_N];      /* the part of each sum not yet folded into h[].sum */
	uint64_t last_q;              /* time of the last tracked Q, UINT64_MAX before the first */
	uint64_t duplicates;     /* Qs that replaced a tracked bio with the same start sector */
	uint64_t unmatched_c;    /* completions (with data) that closed no tracked bio */
	uint64_t outstanding;    /* bios still tracked at the end (set by finish) */
	uint64_t outstanding_rq; /* issued requests never completed (set by finish) */
	uint64_t evicted;        /* bios dropped because the table was full */
	struct lat_bio *root;    /* the device's bio tree (nodes of the sink's pool) */
};

struct blk_latency;

struct blk_latency *blk_latency_new(const struct blk_opts *o);
void blk_latency_free(struct blk_latency *l);
void blk_latency_feed(struct blk_latency *l, unsigned dev, const struct blk_event *ev);
void blk_latency_finish(struct blk_latency *l);
const struct blk_latency_dev *blk_latency_dev(const struct blk_latency *l, unsigned dev);
/* Bios tracked right now (all devices): bounded by blk_opts.max_inflight. */
unsigned blk_latency_tracked(const struct blk_latency *l);
int blk_latency_to_json(const struct blk_latency *l, unsigned dev, json_t *obj);
/*
 * Per-interval D2C (blk_opts.lat_bins_devices): the D2C of each request (d2c_request: the
 * pieces of a split bio each, which btt's per-bio D2C cannot match) in the bin of its
 * completion, on a clock like the timeline's (same origin, interval and max_bins, so the
 * same bins once the pass has finished). NULL for a bin without completions or a device
 * without bins.
 */
const struct bins *blk_latency_clock(const struct blk_latency *l);
const struct hist_coarse *blk_latency_bin(const struct blk_latency *l, unsigned dev, uint64_t k);

#endif
