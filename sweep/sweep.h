/* SPDX-License-Identifier: MIT */
/* iotape sweep: a command run over a parameter matrix, each cell and repetition a run dir. */
#ifndef IOTAPE_SWEEP_SWEEP_H
#define IOTAPE_SWEEP_SWEEP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/err.h"

/*
 * The model (docs/sweep.md): parameters, each with a list of values, span a matrix of cells;
 * every cell runs `reps` times. A run is (cell, rep) and lives in
 * SWEEPDIR/NAME=V/NAME=V/.../rep-K/: an `iotape capture` run directory (or, with capture off,
 * a plain one) plus the command's output and result.json. SWEEPDIR/sweep.json holds the
 * definition, written once; each run's result.json is its state, rewritten atomically at every
 * step, so a sweep killed at any moment resumes where it stopped.
 */

#define SWEEP_FILE "sweep.json"
#define SWEEP_RESULT "result.json"
#define SWEEP_SET_DIR "set" /* a run's run set (sweep --host): RUNDIR/set/runset.json */
#define SWEEP_FORMAT "iotape-sweep"
#define SWEEP_FORMAT_VERSION 1
#define SWEEP_MAX_PARAMS 16
#define SWEEP_MAX_VALUES 10000 /* per parameter */
#define SWEEP_MAX_RUNS 1000000 /* cells x repetitions */
#define SWEEP_NAME_MAX 64

struct sweep_value {
	char *text; /* as written; what {NAME} becomes */
	double num; /* its number ("4k" is 4096), NaN when it is not one */
};

struct sweep_param {
	char name[SWEEP_NAME_MAX];
	struct sweep_value *v;
	size_t n;
	bool log;   /* sizes, or a multiplying range: graphs put it on a log axis */
	char *file; /* NAME=@FILE: the file the values were read from (an input), else NULL */
};

enum sweep_metric_kind { SWEEP_METRIC_REGEX, SWEEP_METRIC_JSON };

struct sweep_metric {
	char name[SWEEP_NAME_MAX];
	char unit[8]; /* NAME:UNIT=...: what the number counts ("B/s", "s"), or "" */
	enum sweep_metric_kind kind;
	char *expr; /* the regular expression (PCRE2), or the JSON path */
};

enum sweep_order {
	SWEEP_ORDER_SHUFFLED,   /* round by round, the cells in a new random order each round */
	SWEEP_ORDER_ROUNDS,     /* round by round, the cells in matrix order */
	SWEEP_ORDER_SEQUENTIAL, /* every repetition of a cell, then the next cell */
};

/* A captured run's wait for a busy blk tracer, by default (capture --wait-tracer). */
#define SWEEP_WAIT_TRACER_NS (600ull * 1000000000ull)

struct sweep_def {
	struct sweep_param param[SWEEP_MAX_PARAMS];
	size_t nparams;
	unsigned reps;
	char **cmd;             /* NULL-terminated; {NAME}, {rep} and {run} are substituted */
	char *setup, *teardown; /* shell commands (sh -c), or NULL */
	bool capture;           /* each run is an `iotape capture` of cmd */
	char **devs;            /* -d DEV for the capture, NULL-terminated (substituted too) */
	char *iface;            /* -i IFACE, or NULL */
	char **hosts;           /* --host SPEC for the capture (a run set a run), NULL-terminated
	                           (substituted) */
	char **capture_args;    /* further capture options, verbatim; NULL-terminated */
	struct sweep_metric *metric;
	size_t nmetrics;
	enum sweep_order order;
	uint64_t seed;
	uint64_t timeout_ns; /* a run's command is stopped after this long (0: never) */
	/* a captured run's capture waits this long for a busy blk tracer (capture
	 * --wait-tracer; not counted in timeout_ns) */
	uint64_t wait_tracer_ns;
	json_t *argv; /* the sweep's own command line, kept in sweep.json */
};

/* ---- parameters (param.c) ---- */

/*
 * "NAME=V1,V2,..." where each item is a value or a range A..B[:STEP] (STEP xF multiplies,
 * +D or D adds; A and B may carry size units as options do (common/parse.h: k m g t p,
 * binary), kept in the values it makes: 1k..4g:x2 is 1k 2k ... 512k 1m ... 4g), or "NAME=@FILE"
 * (one value a line; blank lines and lines starting with # are skipped). -EINVAL with e filled.
 */
int sweep_param_parse(const char *spec, struct sweep_param *p, struct iot_err *e);
/* NAME is [A-Za-z_][A-Za-z0-9_]*, not rep or run, and not an environment variable a shell
 * or the loader relies on (PATH, HOME, LD_*, IOTAPE_*, ...). */
int sweep_name_check(const char *name, struct iot_err *e);
/* The number a value stands for: "4096", "4k" (4096), "1.5M", "128KiB"; NaN otherwise.
 * *size (may be NULL) tells whether it had a size suffix. */
double sweep_value_num(const char *text, bool *size);
/* Add a value as written (checks duplicates and the limit). */
int sweep_param_add(struct sweep_param *p, const char *text, struct iot_err *e);
void sweep_param_release(struct sweep_param *p);
/* "NAME=VALUE" as a directory name: bytes other than [A-Za-z0-9._,+@:-] become %XX, and so
 * does a leading dot. A name longer than SWEEP_SEGMENT_MAX (a value of a few hundred bytes)
 * is cut at a whole escape and ends in "~" and 16 hex digits of the value's FNV-1a hash, so
 * it stays a directory the file system takes (NAME_MAX); shorter names are as they always
 * were, so that older sweeps resume. cap must exceed SWEEP_SEGMENT_MAX: -ENAMETOOLONG
 * (buf empty) otherwise, never a silently cut name. */
#define SWEEP_SEGMENT_MAX 255
int sweep_path_escape(const char *name, const char *value, char *buf, size_t cap);

/* ---- the definition (def.c) ---- */

void sweep_def_init(struct sweep_def *d);
void sweep_def_release(struct sweep_def *d);
/* No output is ever an input (formats/outcheck.h): SWEEPDIR against the parameters' @FILEs,
 * before it is made. */
int sweep_check_output(const struct sweep_def *d, const char *dir, struct iot_err *e);
/* Consistency checks before a sweep starts: a command, reps, capture needs -d or -i, ... */
int sweep_def_check(const struct sweep_def *d, struct iot_err *e);
json_t *sweep_def_to_json(const struct sweep_def *d);
int sweep_def_from_json(const json_t *j, struct sweep_def *d, struct iot_err *e);
const char *sweep_order_name(enum sweep_order o);
int sweep_order_parse(const char *s, enum sweep_order *o);

/* Cells are numbered in matrix order (the first parameter varies slowest). */
size_t sweep_ncells(const struct sweep_def *d);
/* The value index of each parameter in cell (idx has d->nparams entries). */
void sweep_cell_index(const struct sweep_def *d, size_t cell, size_t *idx);
/* "NAME=V/NAME=V" (escaped; "" without parameters) and the run's "CELL/rep-K". */
int sweep_cell_path(const struct sweep_def *d, size_t cell, char *buf, size_t cap);
int sweep_run_path(const struct sweep_def *d, size_t cell, unsigned rep, char *buf, size_t cap);
/* {"NAME": "VALUE", ...} of a cell (new reference). */
json_t *sweep_cell_params(const struct sweep_def *d, size_t cell);

struct sweep_slot {
	size_t cell;
	unsigned rep;   /* 1-based */
	unsigned round; /* 1-based: the repetition round it belongs to */
};
/* Every run in execution order (d->reps * ncells slots, malloc'd into *out). */
int sweep_plan(const struct sweep_def *d, struct sweep_slot **out, size_t *n, struct iot_err *e);

/* {NAME}, {rep} and {run} in s replaced by the cell's values, rep and the run directory;
 * other braces stay as they are. New string or NULL (ENOMEM). */
char *sweep_subst(const struct sweep_def *d, size_t cell, unsigned rep, const char *rundir,
                  const char *s);
/* The environment of a run's commands: ours, plus NAME=VALUE for every parameter and
 * IOTAPE_SWEEP_{DIR,RUN,CELL,REP}. NULL-terminated; free with sweep_env_free(). */
char **sweep_env(const struct sweep_def *d, size_t cell, unsigned rep, const char *sweepdir,
                 const char *rundir);
void sweep_env_free(char **env);

/* ---- metrics (metric.c) ---- */

/* "NAME=REGEX" (the first capture group, else the whole match, as a number) or
 * "NAME=json:PATH" (a.b[0].c, ["key.with.dots"], [*] sums over an array). */
int sweep_metric_parse(const char *spec, struct sweep_metric *m, struct iot_err *e);
void sweep_metric_release(struct sweep_metric *m);
/*
 * The metric's value in a run's output: a regex is tried on out, then on err (dd and time
 * report on stderr); a JSON path reads the JSON document in out (lines before it, such as
 * warnings, are skipped). 0 with *v set, -ENOENT when absent (e says why), -EINVAL for a bad
 * expression, -E2BIG for a regex that backtracks past its limits on this output, -EINTR when
 * *stop (may be NULL) became non-zero during the match.
 */
int sweep_metric_eval(const struct sweep_metric *m, const char *out, size_t outlen, const char *err,
                      size_t errlen, const volatile sig_atomic_t *stop, double *v,
                      struct iot_err *e);

/* ---- the state of runs (state.c) ---- */

enum sweep_run_state {
	SWEEP_RUN_PENDING, /* no result.json */
	SWEEP_RUN_SETUP,   /* interrupted during setup */
	SWEEP_RUN_RUNNING, /* interrupted while the command ran */
	SWEEP_RUN_DONE,
	SWEEP_RUN_FAILED,
};

enum sweep_teardown { SWEEP_TD_NONE, SWEEP_TD_PENDING, SWEEP_TD_OK, SWEEP_TD_FAILED };

struct sweep_result {
	enum sweep_run_state state;
	enum sweep_teardown teardown;
	unsigned attempt;
	int exit_status;  /* -1 when the command did not run */
	uint64_t wall_ns; /* the command's wall time */
	uint64_t run_ns;  /* the whole run: setup, command, metrics, teardown */
	char error[512];  /* why it failed */
	json_t *metrics;  /* {"NAME": number}; owned */
	json_t *root;     /* the whole document as read, or NULL; owned */
};

const char *sweep_run_state_name(enum sweep_run_state s);
void sweep_result_release(struct sweep_result *r);
/* RUNDIR/result.json: -ENOENT when there is none; -EINVAL when it is not one. */
int sweep_result_load(const char *rundir, struct sweep_result *r, struct iot_err *e);
int sweep_result_parse(const char *buf, size_t len, struct sweep_result *r, struct iot_err *e);
/* Write it atomically (with the cell's parameters and rep for whoever reads the directory). */
int sweep_result_save(const char *rundir, const struct sweep_def *d, size_t cell, unsigned rep,
                      const struct sweep_result *r, struct iot_err *e);

/* SWEEPDIR/sweep.json: write (refused when one exists) and read. */
int sweep_create(const char *dir, const struct sweep_def *d, struct iot_err *e);
int sweep_open(const char *dir, struct sweep_def *d, struct iot_err *e);
/* Is dir a sweep (has sweep.json)? */
bool sweep_is_dir(const char *dir);
/* One sweep at a time in a directory: an exclusive flock on SWEEPDIR/.lock (fd kept open);
 * -EBUSY when another holds it. */
int sweep_lock(const char *dir, int *fd, struct iot_err *e);

/* ---- running (runner.c) ---- */

enum sweep_event_kind {
	SWEEP_EV_START,  /* a run starts */
	SWEEP_EV_END,    /* a run ended: result says how */
	SWEEP_EV_SKIP,   /* a run finished before (or failed, without --retry-failed) */
	SWEEP_EV_NOTICE, /* a message for the user (msg) */
};

struct sweep_event {
	enum sweep_event_kind kind;
	size_t index, total; /* the run's place in the plan (1-based) and the plan's size */
	const struct sweep_slot *slot;
	const char *cell; /* "fs=ext4/bs=4k" */
	const char *rundir;
	const struct sweep_result *result; /* SWEEP_EV_END, SWEEP_EV_SKIP */
	uint64_t elapsed_ns;               /* since this invocation started */
	uint64_t eta_ns;                   /* estimated time left (0: unknown yet) */
	const char *msg;
};

struct sweep_runner {
	const char *dir;
	const struct sweep_def *def;
	const char *exe;   /* the iotape binary that runs the captures */
	bool retry_failed; /* run failed runs again */
	/* set asynchronously (a signal handler) to stop: the signal number */
	volatile sig_atomic_t *stop;
	void (*event)(void *arg, const struct sweep_event *ev);
	void *arg;
	/* counts of this invocation, and of the whole sweep at the end */
	size_t ran, failed, skipped;
	size_t total_done, total_failed;
};

/*
 * Run every run of the plan that has not finished. 0 when the plan got to its end (failed
 * runs included: see r->failed), -EINTR when *stop ended it (the run in progress is left to
 * be run again), another -errno when the sweep cannot go on (a capture that cannot start,
 * a directory that cannot be written).
 */
int sweep_run(struct sweep_runner *r, struct iot_err *e);

#endif
