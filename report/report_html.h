/* SPDX-License-Identifier: MIT */
/* The HTML report: runs, manifests, summary tables, comparison and per-device graphs. */
#ifndef IOTAPE_REPORT_REPORT_HTML_H
#define IOTAPE_REPORT_REPORT_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "compare/compare.h"
#include "report/report_nfs.h"
#include "report/report_scan.h"
#include "common/err.h"

struct report_input {
	const char *path;
	const char *label;          /* legend name; NULL: the path's last component */
	json_t *manifest;           /* may be NULL */
	json_t *summary;            /* `iotape analyze --json` document (devices[], span_ns, nfs) */
	const struct rpt_run *bins; /* block bins (a run with no block trace has no devices) */
	const struct rpt_nfs *nfs;  /* NFS bins, or NULL when the run has no packets */
};

struct report_opts {
	const char *title;
	const char *version;
	uint64_t interval_ns;      /* wanted width of a plotted interval (0: automatic) */
	unsigned max_points;       /* points per series (0: 600) */
	const struct compare *cmp; /* comparison section, or NULL */
	/* --svg: called with each graph as a standalone SVG document */
	int (*svg_out)(void *ctx, const char *name, const char *svg, size_t len);
	void *svg_ctx;
};

/* Write the whole document to f. 0 or -errno (e filled). */
int report_write_html(FILE *f, const struct report_input *in, size_t n, const struct report_opts *o,
                      struct iot_err *e);

/* The display reduction, exposed for tests: per-point mean/min/max of a run's bins. */
struct report_points {
	size_t n;
	double *x; /* seconds, point centre */
	double *rd_mbps, *wr_mbps, *mbps, *mbps_lo, *mbps_hi;
	double *rd_iops, *wr_iops, *iops, *iops_lo, *iops_hi;
	double *seeks, *seeks_lo, *seeks_hi;
	double *qd, *qd_lo, *qd_hi;
	double *p50, *p99; /* ns; NaN where no IO completed */
	double *idle_frac; /* share of the point's time inside idle gaps */
};

/* Reduce device dev of run r to points of width_ns (a multiple of r->width). */
int report_points_make(const struct rpt_run *r, const struct rpt_dev *d, uint64_t width_ns,
                       struct report_points *p);
void report_points_release(struct report_points *p);

#endif
