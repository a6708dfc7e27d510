/* SPDX-License-Identifier: MIT */
/* Loading a RUN for report, compare and a sweep's runs, the messages printed (cli/runs.c): the
 * loading is analyze/run_load.h's, analyze/run_set_load.h's and sweep/load.h's. */
#ifndef IOTAPE_CLI_RUNS_H
#define IOTAPE_CLI_RUNS_H

#include <jansson.h>
#include <stdint.h>

#include "analyze/run_load.h"
#include "analyze/run_set_load.h"
#include "analyze/run_summary.h"
#include "formats/runset.h"
#include "common/err.h"

struct cli_input;

/*
 * Read one RUN, opened (cli/inputs.h: a run directory, a trace set NAME, one trace file, or a
 * packet capture), into f: block events and packets both, when the directory has both; its
 * manifest, if any, into *manifest. Returns an exit code after printing any error. Bad bytes
 * after good data give partial results: a warning is printed, the error goes into *stop
 * (the first one kept) for the caller to print last and exit 2 with, and EXIT_OK returned.
 */
int load_run(struct cli_input *ci, const struct run_feed *f, json_t **manifest,
             struct iot_err *stop);

/* --svg DIR: each graph into DIR/NAME; ctx is a struct svg_dir. -errno after
 * printing the error. */
struct svg_dir {
	const char *dir;
	unsigned files;
};
int write_svg(void *ctx, const char *name, const char *svg, size_t len);

/* A saved `iotape analyze --json` document, or a RUN analyzed as analyze would (the summary
 * alone): compare's inputs, and a sweep's runs. An exit code. */
int load_summary(const char *path, uint64_t idle_ns, json_t **summary, json_t **manifest,
                 struct iot_err *stop);

/* A sweep's done runs (sweep/runs.h), each captured one's summary through load_summary(), with
 * the warning about the runs left out. An exit code after printing any error; s is to be
 * released either way. */
struct sweep_runs;
int load_sweep(struct sweep_runs *s, const char *dir, uint64_t idle_ns, struct iot_err *stop);

/*
 * A run set (iotape capture --host) given as a RUN, opened by formats/runset.h's
 * runset_open(): each failed host warned about, with its reason. -ENOENT when path is
 * not a run set (nothing printed); else an exit code after printing any error. rs is released
 * with runset_release().
 */
int cli_runset_open(const char *path, struct runset *rs);
/*
 * A run set of several hosts read as `iotape analyze SET` reads it (analyze/run_set_load.h,
 * run_set_load(): its hosts opened, one pass over every host, each host's gaps explained by
 * all of them, its packets too), with the messages: the set's warnings, what each host's
 * reader read, partial results as load_run()'s. An exit code after printing any error, or
 * RUNSET_APART (only the set's warnings printed) when a host cannot be put on the set's clock:
 * its hosts are then read as runs of their own. l is to be released either way
 * (run_set_load_release()).
 */
#define RUNSET_APART (-1)
int load_runset(struct run_set_load *l, const struct runset *rs, const struct blk_opts *o,
                uint64_t nfs_interval_ns,
                int (*setup)(void *ctx, unsigned host, struct blk_analysis *a),
                void (*packets)(void *ctx, unsigned host, struct run_set_host *h), void *ctx,
                struct iot_err *stop);

#endif
