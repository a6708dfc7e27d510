/* SPDX-License-Identifier: MIT */
/* Block-event sinks: the interface every block analyzer implements, and their shared helpers. */
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
	uint64_t max_bins_total;    /* timeline bins of all devices together (0: default): with
	                             * many devices each keeps fewer, wider bins */
	unsigned lat_bins_devices;  /* per-interval D2C histograms on the timeline's clock for
	                             * the first this many devices (0: none; the report's graphs) */
};

#define BLK_DEFAULT_INTERVAL_NS 1000000000ull
#define BLK_DEFAULT_IDLE_NS 10000000ull /* --idle-threshold of analyze, report and compare */
#define BLK_DEFAULT_IDLE_TEXT "10ms"    /* the same, for their usage texts */
#define BLK_DEFAULT_TOP 10u
#define BLK_MAX_TOP 10000u
#define BLK_DEFAULT_MAX_INFLIGHT (1u << 16)
#define BLK_DEFAULT_MAX_BINS 100000u
#define BLK_DEFAULT_MAX_BINS_TOTAL (1ull << 20) /* 64 MiB of timeline bins */
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
	void (*destroy)(void *s);
	/* optional: the device's keys in the JSON document */
	int (*to_json)(void *s, unsigned dev, json_t *obj, const struct blk_json_ctx *ctx);
	/* optional: keys of the whole document (e.g. the timeline's effective interval) */
	int (*root_json)(void *s, json_t *root);
	/* optional: the time of the trace's first event, before it is fed (a clock's origin) */
	void (*start)(void *s, uint64_t t0);
	/* sinks fed through feed() (blk_analysis_add_sink()): the actions wanted, a bit per
	 * BLK_A_* value (0: every action) */
	uint32_t actions;
};

extern const struct blk_sink_ops blk_counts_ops;
extern const struct blk_sink_ops blk_latency_ops;
extern const struct blk_sink_ops blk_depth_ops;
extern const struct blk_sink_ops blk_idle_ops;
extern const struct blk_sink_ops blk_seek_ops;
extern const struct blk_sink_ops blk_timeline_ops;

/* ------------------------------------------------------------------------------------- */
/* Helpers shared by the sinks.                                                           */

/* {count, sum, mean, min, p50, p90, p99, max}, plus the non-empty buckets when buckets. */
json_t *blk_hist_json(const struct hist *h, int buckets);
/* "MAJOR,MINOR" into buf (at least 24 bytes). */
const char *blk_dev_name(uint32_t dev, char *buf);
/*
 * Zeroed memory on cache lines of its own (free() releases it): sink state, so that two sinks
 * fed from two threads never share a line (false sharing would cost a split pass much of its
 * gain).
 */
void *blk_zalloc(size_t size);
/* Grow a per-device pointer array so that idx fits; 0 or -ENOMEM. */
int blk_grow(void ***arr, unsigned *n, unsigned idx);

/*
 * A completion that ends a flush sequence, not an issued request. The block layer's flush
 * machinery (block/blk-flush.c) issues flush requests of its own (D and C with the flush
 * category), then completes the request they served without ever issuing it: a write with a
 * preflush and no data, or a FUA write whose data went out and whose postflush is done
 * (btrfs writes both; the latter's is a second C for its sector). That completion carries no
 * data and no flush category. Zone management and passthrough requests carry no data either,
 * but are issued. The sinks that follow what is in flight (depth, idle, timeline) skip it;
 * the depth sink counts it apart.
 */
#define BLK_F_ZONE_MGMT                                                                            \
	(BLK_F_ZONE_RESET | BLK_F_ZONE_RESET_ALL | BLK_F_ZONE_FINISH | BLK_F_ZONE_OPEN |           \
	 BLK_F_ZONE_CLOSE)

static inline int blk_ends_flush_seq(const struct blk_event *ev)
{
	return !ev->bytes && !(ev->flags & (BLK_F_FLUSH | BLK_F_PC | BLK_F_ZONE_MGMT));
}

/* btt's interval rule: a zero or negative interval counts as 1 ns. */
/* part as a percentage of whole (0 when whole is): idle time of the span, sequential issues of
 * the transitions; one definition for the sinks' JSON, their figures and a summary run's. */
static inline double blk_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* n events a second over span_ns (0 when the span is empty). */
static inline double blk_per_sec(uint64_t n, uint64_t span_ns)
{
	return span_ns ? (double)n * 1e9 / (double)span_ns : 0.0;
}

static inline uint64_t blk_tdelta(uint64_t from, uint64_t to)
{
	return from < to ? to - from : 1;
}

#endif
