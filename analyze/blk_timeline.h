/* SPDX-License-Identifier: MIT */
/* Timeline sink: throughput, IOPS, seeks, queue depth and idle time per interval, per device. */
#ifndef IOTAPE_ANALYZE_BLK_TIMELINE_H
#define IOTAPE_ANALYZE_BLK_TIMELINE_H

#include "analyze/blk_sink.h"

struct blk_bin {
	uint64_t read_bytes, write_bytes; /* completed, with data */
	uint64_t ios;                     /* completions with data */
	uint64_t seeks;                   /* issues at a non-zero distance from the previous one */
	uint64_t idle_ns;                 /* time inside idle gaps of at least the threshold */
	uint64_t depth_area;              /* integral of the depth, depth x ns */
};

struct blk_timeline;

struct blk_timeline *blk_timeline_new(const struct blk_opts *o);
void blk_timeline_free(struct blk_timeline *t);
void blk_timeline_feed(struct blk_timeline *t, unsigned dev, const struct blk_event *ev);
void blk_timeline_finish(struct blk_timeline *t, uint64_t start_ns, uint64_t end_ns);
/* Effective bin width (doubles each time the bin count would pass opts.max_bins). */
uint64_t blk_timeline_interval(const struct blk_timeline *t);
unsigned blk_timeline_widened(const struct blk_timeline *t);
/* Bins of the whole trace (same for every device once finished). */
uint64_t blk_timeline_nbins(const struct blk_timeline *t);
/* Bin idx of dev; a zero bin when the device has none there. */
struct blk_bin blk_timeline_bin(const struct blk_timeline *t, unsigned dev, uint64_t idx);
/* One bin as a JSON object (docs/json.md, timeline[]). */
json_t *blk_timeline_bin_json(const struct blk_timeline *t, unsigned dev, uint64_t k);
/* The whole "timeline" array of dev (memory grows with the bins: see blk_analysis_to_json). */
int blk_timeline_to_json(const struct blk_timeline *t, unsigned dev, json_t *obj);

#endif
