/* SPDX-License-Identifier: MIT */
/* A sweep's finished runs as compare's samples, for iotape compare and iotape report. */
#ifndef IOTAPE_CLI_SWEEP_RUNS_H
#define IOTAPE_CLI_SWEEP_RUNS_H

#include <stdint.h>

#include <jansson.h>

#include "compare/compare.h"
#include "sweep/sweep.h"

struct sweep_run_data {
	char *path;
	json_t *summary, *manifest; /* a captured run's analysis and manifest, else NULL */
	json_t *params, *metrics;   /* {NAME: VALUE}; the --metric values and wall_s */
};

struct sweep_runs {
	const char *dir;
	struct sweep_def def;
	json_t *definition;         /* sweep.json as written */
	struct sweep_run_data *run; /* the runs that are done, in matrix order */
	size_t n;
	size_t total, failed, missing;
	json_t *failed_list; /* [{"run", "error"}] */
};

/* Open the sweep in dir and analyze each run that is done (the same sinks as iotape
 * analyze). Failed and unfinished runs are left out, with a warning. An exit code after
 * printing any error; s is to be released either way. A run whose trace has bad bytes part
 * way is kept with what was read before them, and the first such message goes to stop (as
 * for compare's other inputs). */
int sweep_runs_load(struct sweep_runs *s, const char *dir, uint64_t idle_ns, struct iot_err *stop);
void sweep_runs_release(struct sweep_runs *s);
/* Add every loaded run to c. An exit code after printing any error. */
int sweep_runs_add(const struct sweep_runs *s, struct compare *c);

/* Without --rows, --cols, --tables or --by: two parameters make rows and columns, three or
 * more a table per value of the first, columns the last and rows the ones between (names
 * holds the names o then points to). */
#define SWEEP_LAYOUT_MAX (SWEEP_MAX_PARAMS * SWEEP_NAME_MAX)
void sweep_default_layout(const struct sweep_def *d, struct compare_opts *o,
                          char names[3][SWEEP_LAYOUT_MAX]);

/* iotape report SWEEPDIR: the whole page (cmd-report.c's options). An exit code. */
struct report_sweep_opts {
	const char *outpath, *title, *svg_dir;
	uint64_t idle_ns;
	struct compare_opts co;
	char *const *rules;
	size_t nrules;
};
int report_sweep(const char *dir, const struct report_sweep_opts *o);

#endif
