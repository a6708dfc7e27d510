/* SPDX-License-Identifier: MIT */
/* The HTML report: runs, manifests, summary tables, comparison and per-device graphs. */
#ifndef IOTAPE_REPORT_REPORT_HTML_H
#define IOTAPE_REPORT_REPORT_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "analyze/blk_analysis.h"
#include "common/err.h"
#include "common/units.h"
#include "compare/compare.h"
#include "report/report_nfs.h"

struct report_input {
	const char *path;
	const char *label; /* legend name; NULL: the path's last component */
	json_t *manifest;  /* may be NULL */
	json_t *summary;   /* `iotape analyze --json` document (devices[], span_ns, nfs) */
	const struct blk_analysis *blk; /* the block pass (report_run.h), or NULL: no block trace */
	const struct rpt_nfs *nfs;      /* NFS series, or NULL when the run has no packets */
	/* a run set's host (iotape capture --host): its name, and where its first event falls on
	 * the set's common clock, in seconds after the earliest host's (its graphs start there:
	 * one time axis for every host); NULL and 0 for a run of its own */
	const char *host;
	double t0_s;
	int64_t offset_ns;      /* its clock's measured offset from the capturing host's */
	uint64_t offset_err_ns; /* right within this */
};

/* A host of a run set that brought no whole run back, and why (runset.json's reason). */
struct report_fault {
	const char *host, *reason;
};

struct report_opts {
	const char *title;
	const char *version;
	uint64_t interval_ns;      /* wanted width of a plotted interval (0: automatic) */
	unsigned max_points;       /* points per series (0: 600) */
	const struct compare *cmp; /* comparison section, or NULL */
	/* the inputs are a run set's hosts: the set's path and its failed hosts */
	const char *runset;
	const struct report_fault *faults;
	size_t nfaults;
	/* --svg: called with each graph as a standalone SVG document */
	int (*svg_out)(void *ctx, const char *name, const char *svg, size_t len);
	void *svg_ctx;
};

/* Write the whole document to f. 0 or -errno (e filled). */
int report_write_html(FILE *f, const struct report_input *in, size_t n, const struct report_opts *o,
                      struct iot_err *e);

/* The display reduction, exposed for tests: per-point mean/min/max of a run's timeline bins. */
struct report_points {
	size_t n;
	double *x; /* seconds, point centre */
	double *rd_mbps, *wr_mbps, *mbps, *mbps_lo, *mbps_hi;
	double *rd_iops, *wr_iops, *iops, *iops_lo, *iops_hi;
	double *seeks, *seeks_lo, *seeks_hi;
	double *qd, *qd_lo, *qd_hi;
	double *p50, *p99; /* ns; NaN where no IO completed */
	double *idle_frac; /* share of the point's time inside idle gaps */
	uint64_t *idle_ns; /* the idle time itself (the timeline's bins summed) */
};

/* Reduce device idx (the pass's numbering) of a finished pass to points of width_ns, a
 * power-of-two multiple of the timeline's interval (rounded up to one). The envelope (lo, hi)
 * is of sub-intervals of fine_ns (rounded to whole bins; 0: the timeline's bins). */
int report_points_make(const struct blk_analysis *a, unsigned idx, uint64_t width_ns,
                       uint64_t fine_ns, struct report_points *p);

/*
 * A rate over an interval holding one IO says nothing but the interval's width: in 64 us bins
 * one 512 KiB write is 7629 MiB/s, though the run averaged 125. So no rate is plotted over an
 * interval narrower than one in which the device averaged RPT_MIN_IOS_PER_POINT IOs: a lone IO
 * then reads at most 1/RPT_MIN_IOS_PER_POINT of the run's mean, and a peak of k times the mean
 * needs k * RPT_MIN_IOS_PER_POINT IOs in one interval.
 */
#define RPT_MIN_IOS_PER_POINT 8
/* That narrowest interval for device idx: a power-of-two multiple of the timeline's interval. */
uint64_t report_points_min_width(const struct blk_analysis *a, unsigned idx);
void report_points_release(struct report_points *p);
/* Every point moved s seconds later (a run set's host on the set's time axis). */
void report_points_shift(struct report_points *p, double s);

#endif
