/* SPDX-License-Identifier: MIT */
/* The report's own streaming pass: per-interval bins and a sector x time density grid. */
#ifndef IOTAPE_REPORT_REPORT_SCAN_H
#define IOTAPE_REPORT_REPORT_SCAN_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "common/hist.h"
#include "formats/blkevent.h"

/*
 * Memory is fixed per device whatever the trace length: RPT_MAX_BINS time bins whose width
 * doubles (pairs merged) when the trace outgrows them, and a grid of RPT_ROWS sector rows per
 * bin whose sector range doubles the same way. Sums merge exactly, so nothing is dropped:
 * a single IO or a single long idle gap survives every doubling. The renderer reduces
 * further, keeping per-point min/max/mean of the finer bins.
 */
#define RPT_MAX_BINS 2048u
#define RPT_ROWS 128u
#define RPT_MAX_DEVICES 16u
#define RPT_LAT_SUB_BITS 3u
#define RPT_LAT_SUB (1u << RPT_LAT_SUB_BITS) /* latency buckets per power of two: +-6 % */
#define RPT_LAT_BUCKETS (48u * RPT_LAT_SUB)
#define RPT_TOP_GAPS 64u
#define RPT_BASE_WIDTH_NS 1000ull /* bins start at 1 us and double */

struct rpt_bin {
	uint64_t rd_bytes, wr_bytes;
	uint32_t rd_ios, wr_ios;
	uint32_t issues, seeks;
	uint32_t qd_max;
	uint32_t lat_n;
	double qd_area; /* outstanding requests x ns */
	uint64_t idle_ns;
	uint32_t lat[RPT_LAT_BUCKETS]; /* D2C latency histogram for this interval */
};

struct rpt_gap {
	uint64_t start, len; /* ns, relative to the run start */
};

struct rpt_flight;

struct rpt_dev {
	uint32_t dev;
	struct rpt_bin *bin;           /* RPT_MAX_BINS */
	uint32_t (*grid)[RPT_ROWS][2]; /* [bin][row][read=0/write=1]: IOs issued */
	bool grid_init;
	uint64_t row_lo, row_span;       /* row r covers [row_lo + r*row_span, +row_span) */
	uint64_t min_sector, max_sector; /* exact, for the axis */
	struct rpt_flight *flight;       /* outstanding requests by sector */
	unsigned qd;
	uint64_t qd_t;
	uint64_t last_end;
	bool have_last;
	uint64_t idle_start;
	/* totals */
	struct hist d2c;
	uint64_t rd_ios, wr_ios, rd_bytes, wr_bytes, issues, seeks;
	uint64_t gaps, idle_total;
	struct rpt_gap top[RPT_TOP_GAPS];
	unsigned ntop;
	uint64_t untracked; /* issues not tracked because too many were outstanding */
};

struct rpt_run {
	uint64_t t0, tlast; /* absolute trace time of the first and last event */
	bool started;
	uint64_t width; /* current bin width, ns */
	unsigned nbins; /* bins in use */
	uint64_t idle_threshold;
	struct rpt_dev *dev[RPT_MAX_DEVICES];
	unsigned ndev;
	uint64_t events, ignored; /* ignored: devices past RPT_MAX_DEVICES */
};

/* interval_ns: starting bin width (0: automatic, 1 us doubling); idle_ns: shortest gap. */
int rpt_run_init(struct rpt_run *r, uint64_t interval_ns, uint64_t idle_ns);
void rpt_run_release(struct rpt_run *r);
/* Feed one event (time order). 0, or -ENOMEM. Notify events are ignored. */
int rpt_run_feed(struct rpt_run *r, const struct blk_event *ev);
/* Close open idle gaps at the end of the trace. */
void rpt_run_finish(struct rpt_run *r);
uint64_t rpt_run_span(const struct rpt_run *r);

/* Latency bucket of v and its representative value. */
unsigned rpt_lat_bucket(uint64_t ns);
uint64_t rpt_lat_value(unsigned b);
/* Quantile q of a bucket array (n values). */
uint64_t rpt_lat_quantile(const uint32_t *lat, uint64_t n, double q);

/* The run in the `iotape analyze --json` schema (devices[], span_ns): what compare reads
 * when the block-analysis sinks are not used. New reference, or NULL on ENOMEM. */
json_t *rpt_run_to_json(const struct rpt_run *r);

#endif
