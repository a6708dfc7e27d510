/* SPDX-License-Identifier: MIT */
/* Block-event sinks: the interface every block analyzer implements, and the pass that runs them. */
#ifndef IOTAPE_ANALYZE_BLK_SINK_H
#define IOTAPE_ANALYZE_BLK_SINK_H

#include <jansson.h>
#include <stdint.h>

#include "common/hist.h"
#include "formats/blktrace.h"

/* Options shared by the block sinks (the analyze command's flags). */
struct blk_opts {
	uint64_t interval_ns;       /* timeline bin width (default 1 s) */
	uint64_t idle_threshold_ns; /* shortest idle gap that counts (default 10 ms) */
	unsigned top;               /* how many of the longest gaps to keep (default 10) */
	unsigned max_inflight;      /* cap on tracked outstanding bios (0: default) */
	unsigned max_bins;          /* timeline bins before the interval doubles (0: default) */
};

#define BLK_DEFAULT_INTERVAL_NS 1000000000ull
#define BLK_DEFAULT_IDLE_NS 10000000ull
#define BLK_DEFAULT_TOP 10u
#define BLK_MAX_TOP 10000u
#define BLK_DEFAULT_MAX_INFLIGHT (1u << 16)
#define BLK_DEFAULT_MAX_BINS 100000u
#define BLK_MAX_DEVICES 4096u

void blk_opts_init(struct blk_opts *o);

/* What a sink needs when it writes its part of a device's JSON object. */
struct blk_json_ctx {
	uint64_t start_ns, end_ns;         /* trace span: first and last non-notify event */
	const struct bt_comm_table *comms; /* pid -> command name, may be NULL */
};

/*
 * A sink sees events once each, in time order, with a dense device index (0, 1, ... in order
 * of first appearance) so that it can keep per-device state in an array. The pass gives
 * every sink the trace's first event, then only the actions the sink looks at (see
 * blk_analysis_feed()); a sink ignores whatever else it is given. Notify events are not
 * passed (process names come through blk_json_ctx.comms). finish() is called once
 * after the last event with the trace span; to_json() adds the sink's keys to one device's
 * object and may be called once per device after finish().
 */
struct blk_sink_ops {
	const char *name;
	void *(*create)(const struct blk_opts *o);
	void (*feed)(void *s, unsigned dev, const struct blk_event *ev);
	void (*finish)(void *s, uint64_t start_ns, uint64_t end_ns);
	int (*to_json)(void *s, unsigned dev, json_t *obj, const struct blk_json_ctx *ctx);
	void (*destroy)(void *s);
	/* optional: keys of the whole document (e.g. the timeline's effective interval) */
	int (*root_json)(void *s, json_t *root);
};

extern const struct blk_sink_ops blk_counts_ops;
extern const struct blk_sink_ops blk_latency_ops;
extern const struct blk_sink_ops blk_depth_ops;
extern const struct blk_sink_ops blk_idle_ops;
extern const struct blk_sink_ops blk_seek_ops;
extern const struct blk_sink_ops blk_timeline_ops;

/* ------------------------------------------------------------------------------------- */
/* The pass: a device table plus every sink, fed one event at a time.                    */

struct blk_analysis;

/* 0 or -ENOMEM. */
int blk_analysis_new(struct blk_analysis **out, const struct blk_opts *o);
void blk_analysis_free(struct blk_analysis *a);
/* Names for pids (the reader's table; it may keep growing while events are fed). */
void blk_analysis_set_comms(struct blk_analysis *a, const struct bt_comm_table *comms);
void blk_analysis_feed(struct blk_analysis *a, const struct blk_event *ev);
/* The same for n events in a row (notifies among them are skipped). */
void blk_analysis_feed_batch(struct blk_analysis *a, const struct blk_event *ev, unsigned n);
/*
 * A pass over two threads: after blk_analysis_split(), blk_analysis_feed_batch() runs only
 * part of the sinks and blk_analysis_feed_side() the others (counts, depth, seeks, timeline).
 * Each must be given every event, in the same order, from one thread (the side typically
 * from the reader's tap, bt_reader_prefetch_tap()); call blk_analysis_finish() once both are
 * done. The results are those of the single pass.
 */
void blk_analysis_split(struct blk_analysis *a);
void blk_analysis_feed_side(struct blk_analysis *a, const struct blk_event *ev, unsigned n);
void blk_analysis_finish(struct blk_analysis *a);
/* Devices seen, in order of first appearance, and the trace span (non-notify events). */
unsigned blk_analysis_ndevices(const struct blk_analysis *a);
uint32_t blk_analysis_device(const struct blk_analysis *a, unsigned idx);
uint64_t blk_analysis_start(const struct blk_analysis *a);
uint64_t blk_analysis_end(const struct blk_analysis *a);
/* Events on devices past BLK_MAX_DEVICES (ignored, counted). */
uint64_t blk_analysis_dropped(const struct blk_analysis *a);
/*
 * The "devices" array (sorted by major, minor) and the span keys, added to root. With
 * timeline 0 the devices' "timeline" arrays are left out (a null stands in their place):
 * a fine timeline as jansson objects takes about 1.7 KiB a bin, so a writer with a memory
 * bound streams them one bin at a time with blk_analysis_timeline_bin() instead.
 */
int blk_analysis_to_json(struct blk_analysis *a, json_t *root, int timeline);
/* Bins of every device's timeline, and bin k of the device at position pos of "devices". */
uint64_t blk_analysis_timeline_bins(const struct blk_analysis *a);
json_t *blk_analysis_timeline_bin(const struct blk_analysis *a, unsigned pos, uint64_t k);

/* ------------------------------------------------------------------------------------- */
/* Helpers shared by the sinks.                                                           */

/* {count, sum, mean, min, p50, p90, p99, max}, plus the non-empty buckets when buckets. */
json_t *blk_hist_json(const struct hist *h, int buckets);
/* "MAJOR,MINOR" into buf (at least 24 bytes). */
const char *blk_dev_name(uint32_t dev, char *buf);
/*
 * Zeroed memory on cache lines of its own (free() releases it): sink state, so that two sinks
 * fed from two threads never share a line (a split pass lost a fifth of its speed to that).
 */
void *blk_zalloc(size_t size);
/* Grow a per-device pointer array so that idx fits; 0 or -ENOMEM. */
int blk_grow(void ***arr, unsigned *n, unsigned idx);

/* btt's interval rule: a zero or negative interval counts as 1 ns. */
static inline uint64_t blk_tdelta(uint64_t from, uint64_t to)
{
	return from < to ? to - from : 1;
}

#endif
