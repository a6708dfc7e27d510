/* SPDX-License-Identifier: MIT */
/* A sweep's finished runs, walked in matrix order, as compare's samples (compare and report). */
#ifndef IOTAPE_SWEEP_RUNS_H
#define IOTAPE_SWEEP_RUNS_H

#include <stddef.h>

#include <jansson.h>

#include "compare/compare.h"
#include "sweep/sweep.h"

struct sweep_run_data {
	char *path; /* the run's directory (a run set's host: SET/HOST) */
	char *host; /* a cell captured on several hosts (sweep --host): its host, else NULL */
	size_t cell;
	json_t *summary, *manifest; /* a captured run's analysis and manifest, else NULL */
	json_t *params, *metrics;   /* {NAME: VALUE}; the --metric values and wall_s */
};

struct sweep_runs {
	const char *dir;
	struct sweep_def def;
	json_t *definition;         /* sweep.json as written */
	struct sweep_run_data *run; /* the runs that are done, in matrix order (a run set's: a
	                             * run per host) */
	size_t n;
	size_t total, done, failed, missing; /* the sweep's runs (a run set is one) */
	size_t nhosts;       /* the hosts' names the runs of run-set cells have (0: none) */
	char **hosts;        /* in the order first seen */
	json_t *failed_list; /* [{"run", "error"}] */
};

/*
 * A captured run's analysis (the caller's: the figures iotape analyze gives RUNDIR), each
 * through sweep_cell_add(): once for a run, once a host for a cell captured on several hosts
 * (its run set, RUNDIR/SWEEP_SET_DIR). 0, or anything else, which ends the walk and is
 * returned by sweep_runs_load() as it is.
 */
struct sweep_cell_runs;
typedef int (*sweep_load_fn)(void *ctx, const char *rundir, struct sweep_cell_runs *out);
/*
 * One run of the cell being loaded: host NULL (a run) or its host in the cell's run set (the
 * run's parameters then have "host" too), path its directory; summary and manifest (or NULL)
 * are taken over, whatever the outcome. 0 or -ENOMEM.
 */
int sweep_cell_add(struct sweep_cell_runs *out, const char *host, const char *path, json_t *summary,
                   json_t *manifest);

/*
 * Open the sweep in dir and load each run that is done (through load, when the sweep
 * captures), in matrix order, so that rows and columns come out in the order the values were
 * given. Failed and unfinished runs are left out and counted (s->failed, s->missing). 0,
 * -errno (e says why; -ENOENT: no run is done) or load's return; s is to be released either
 * way.
 */
int sweep_runs_load(struct sweep_runs *s, const char *dir, sweep_load_fn load, void *ctx,
                    struct iot_err *e);
void sweep_runs_release(struct sweep_runs *s);
/* The sweep's metrics' units into c (compare_sweep_unit()), before its runs. 0 or -errno. */
int sweep_runs_units(const struct sweep_runs *s, struct compare *c, struct iot_err *e);
/* Add every loaded run to c (with the units). 0 or -errno (e says why). */
int sweep_runs_add(const struct sweep_runs *s, struct compare *c, struct iot_err *e);

/* Without --rows, --cols, --tables or --by: two parameters make rows and columns, three or
 * more a table per value of the first, columns the last and rows the ones between (names
 * holds the names o then points to). Cells captured on several hosts have "host" as their
 * first dimension: a row per host beside one parameter, a table per host beside more. */
#define SWEEP_LAYOUT_MAX (SWEEP_MAX_PARAMS * SWEEP_NAME_MAX)
void sweep_default_layout(const struct sweep_runs *s, struct compare_opts *o,
                          char names[3][SWEEP_LAYOUT_MAX]);

#endif
