/* SPDX-License-Identifier: MIT */
/* The HTML page of a sweep: its definition, its tables, a graph per metric and parameter. */
#ifndef IOTAPE_REPORT_SWEEP_REPORT_H
#define IOTAPE_REPORT_SWEEP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "common/err.h"
#include "compare/compare.h"

/* A parameter of the sweep, as the graphs need it (the report does not read sweep.json). */
struct sweep_report_param {
	const char *name;
	size_t n;
	const char *const *text; /* the values as written, in the order given */
	const double *num;       /* their numbers (NaN: not a number) */
	bool log;                /* sizes or a multiplying range: a log axis */
};

struct sweep_report {
	const char *title;
	const char *version;
	const char *dir;
	json_t *definition; /* sweep.json, shown folded */
	const struct sweep_report_param *param;
	size_t nparams;
	size_t runs_total, runs_done, runs_failed;
	json_t *failed;              /* [{"run": DIR, "error": TEXT}] */
	const struct compare *table; /* finished, in the layout asked for */
	const struct compare *cells; /* finished, one group per cell (--by every parameter) */
	/* --svg: called with each graph as a standalone SVG document (may be NULL) */
	int (*svg_out)(void *ctx, const char *name, const char *svg, size_t len);
	void *svg_ctx;
};

/*
 * Write the page. The graphs: for every metric the tables show and every parameter whose
 * values are all numbers, the metric's mean per cell against that parameter (log axis for
 * sizes; a log y axis for means over two decades), one line per combination of the other
 * parameters, with the 95 % confidence
 * interval of the mean as error bars. 0 or -errno (e filled).
 */
int sweep_report_write_html(FILE *f, const struct sweep_report *r, struct iot_err *e);

#endif
