/* SPDX-License-Identifier: MIT */
/* A sweep's report page built from its loaded runs: the tables, the cells and the parameters. */
#ifndef IOTAPE_REPORT_SWEEP_PAGE_H
#define IOTAPE_REPORT_SWEEP_PAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"
#include "compare/compare.h"
#include "report/sweep_report.h"
#include "sweep/runs.h"

/* The options of `iotape report SWEEPDIR`. */
struct sweep_page_opts {
	const char *dir;        /* the sweep's directory, as given */
	const char *title;      /* NULL: dir */
	const char *version;    /* the page's footer */
	struct compare_opts co; /* the tables' layout, metrics and baseline (NULLs: the default) */
	char *const *rules;     /* --fail-if, already checked */
	size_t nrules;
	/* --svg: each graph as a standalone SVG document (NULL: none) */
	int (*svg_out)(void *ctx, const char *name, const char *svg, size_t len);
	void *svg_ctx;
};

/*
 * The page of a sweep: r is what sweep_report_write_html() takes, pointing into the rest (so a
 * built page is never copied). table is laid out as `iotape compare SWEEPDIR` lays it out with
 * the same options, its rules applied (table.nfailed: groups that crossed one); cells has one
 * group per cell, the metrics of the table, for the graphs.
 */
struct sweep_page {
	struct sweep_report r;
	struct compare table, cells;
	struct sweep_report_param param[SWEEP_MAX_PARAMS + 1]; /* + the hosts (sweep --host) */
	double *host_num;
	const char **text[SWEEP_MAX_PARAMS];
	double *num[SWEEP_MAX_PARAMS];
	char layout[3][SWEEP_LAYOUT_MAX];
	bool bad_opts; /* the failure was the options' (a rule, the layout or a baseline) */
};

/* Build p from the loaded runs s (which it points into: s outlives p). 0 or -errno (e says
 * why, and p->bad_opts whether the options were at fault); p is to be released either way. */
int sweep_page_build(struct sweep_page *p, const struct sweep_runs *s,
                     const struct sweep_page_opts *o, struct iot_err *e);
/* Write the page to path, beside it and renamed, so that a failure never leaves half a page
 * ("-": standard output). 0 or -errno (e says why). */
int sweep_page_write(const struct sweep_page *p, const char *path, struct iot_err *e);
void sweep_page_release(struct sweep_page *p);

#endif
