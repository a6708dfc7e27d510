/* SPDX-License-Identifier: MIT */
/* One device's block figures as a struct: what analyze's text prints, each from its sink. */
#ifndef IOTAPE_ANALYZE_BLK_FIGURES_H
#define IOTAPE_ANALYZE_BLK_FIGURES_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/blk_idle.h"
#include "analyze/blk_latency.h"

struct blk_analysis;

/* A distribution as blk_hist_json() sums it up (min 0 when empty). */
struct blk_fig_hist {
	uint64_t count, min, p50, p90, p99, max;
	double mean;
};

struct blk_fig_io {
	uint64_t ios, bytes;
};

/* The IO at an edge of a gap (struct blk_gap_io), as the JSON view names it. */
struct blk_fig_edge {
	bool present; /* false: the gap began with the trace, or the trace ended it */
	bool has_pid; /* the process that issued it is known */
	char rwbs[8]; /* blk_rwbs() */
	uint64_t bytes;
	uint32_t pid;
	const char *comm; /* its name (the pass's table), or NULL */
};

/* One of the longest gaps (struct blk_gap). */
struct blk_fig_gap {
	uint64_t start_ns, end_ns, queued_ns;
	bool queued;       /* a request waited while the device sat idle, queued_ns long */
	bool ended_by_end; /* the trace ended it (else an issue) */
	struct blk_fig_edge before, after;
};

/*
 * What a level of detail cannot give (a summary run's "not_given", analyze/blk_summary.h):
 * those figures are 0 here, and are not measured zeros.
 */
enum {
	BLK_FIG_NO_EVENTS = 1u << 0,  /* events */
	BLK_FIG_NO_ACTIONS = 1u << 1, /* act[][] */
	BLK_FIG_NO_DEPTH = 1u << 2,   /* depth_*, unmatched_completions */
	BLK_FIG_NO_SEEKS = 1u << 3,   /* seeks */
	BLK_FIG_NO_IDLE = 1u << 4,    /* idle_* */
};

struct blk_figures {
	uint32_t dev;       /* BLK_MKDEV(major, minor) */
	unsigned not_given; /* BLK_FIG_NO_* */
	/* the counts sink's */
	uint64_t events;
	struct blk_fig_io reads, writes, data_writes, discards, write_zeroes;
	uint64_t flushes;
	uint64_t act[BLK_A_MAX][2]; /* file-system requests per action and direction (0 read) */
	/* the latency sink's; lat_given: a bit per distribution the level gives */
	struct blk_fig_hist lat[BLK_LAT_N];
	uint32_t lat_given;
	uint64_t unmatched_completions; /* completions with data that closed no tracked bio */
	/* the depth sink's */
	double depth_mean;
	uint64_t depth_max, flush_completions;
	/* the idle sink's; gaps[0..ngaps-1]: the longest, longest first (owned) */
	uint64_t idle_threshold_ns, idle_gaps, idle_total_ns;
	double idle_pct;
	struct blk_fig_gap *gaps;
	unsigned ngaps;
	/* the seek sink's */
	uint64_t seeks, seekwatcher, seq_transitions, sequential, forward, backward;
	double sequential_pct, seeks_per_sec;
};

/*
 * Device pos of a finished pass's "devices" (sorted by major, minor, as
 * blk_analysis_to_json() lays them out) into f, each figure taken from the sink that
 * computes it, as the JSON view takes it; the gaps' process names point into a's table (valid
 * while a is). 0, -ENOENT when there is no such device, or -ENOMEM; release f after either.
 */
int blk_figures_from_analysis(struct blk_figures *f, const struct blk_analysis *a, unsigned pos);
/* Frees what f owns (the gaps). */
void blk_figures_release(struct blk_figures *f);
/* Releases f[0..n-1] and frees f (NULL: nothing). */
void blk_figures_free(struct blk_figures *f, unsigned n);
/* h's figures as blk_hist_json() writes them. */
struct hist;
void blk_fig_hist_of(struct blk_fig_hist *o, const struct hist *h);

#endif
