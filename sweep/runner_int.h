/* SPDX-License-Identifier: MIT */
/* Shared by the files of the sweep's runner (runner.c, run_end.c) only. */
#ifndef IOTAPE_SWEEP_RUNNER_INT_H
#define IOTAPE_SWEEP_RUNNER_INT_H

#include <stddef.h>

#include "sweep/sweep.h"

#define OUTPUT_MAX (64u << 20) /* metrics look at the first 64 MiB of each output */

/* How a run ended: done (its metrics count), failed, the sweep stopped, or the sweep cannot
 * go on. */
enum run_end { RUN_OK, RUN_FAILED, RUN_STOPPED, RUN_FATAL };

/* RUNDIR/name opened with flags (and O_CLOEXEC, mode 0644): an fd, or -1 with errno. */
int sweep_open_in(const char *dir, const char *name, int flags);
/* The first OUTPUT_MAX bytes of RUNDIR/name (an empty buffer when it is missing). */
char *sweep_slurp(const char *dir, const char *name, size_t *len);
/* After a capture, the command's status st, ended early for why ('S' stop, 'T' timeout, or
 * 0): what its manifest says about the run (exit_status, wall_ns and error in res). */
enum run_end sweep_capture_outcome(const char *rundir, int st, char why, struct sweep_result *res);
/* The same after a capture on several hosts (--host), from RUNDIR/set/runset.json. */
enum run_end sweep_set_outcome(const char *rundir, int st, char why, struct sweep_result *res);

#endif
