/* SPDX-License-Identifier: MIT */
/* A sweep's done runs loaded with their figures, as `iotape analyze` gives them (compare, report).
 */
#ifndef IOTAPE_SWEEP_LOAD_H
#define IOTAPE_SWEEP_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "common/err.h"
#include "sweep/runs.h"

/*
 * The sweep in dir with its done runs (sweep_runs_load()), each captured one's summary as
 * `iotape analyze` gives it with idle threshold idle_ns: a run through analyze/run_load.h's
 * run_summary_load(), a cell captured on several hosts (RUNDIR/SWEEP_SET_DIR) as `iotape
 * analyze SET` reads its set (run_set_load_runset()), or host by host when its hosts cannot be
 * put on one clock. What the user should know goes into msgs as analyze/run_load.h says (bad
 * bytes after good data: partial results, the error in *stop), in order: each cell's, a run
 * set's hosts left out, then how many runs are left out of the tables. 0, or -errno (e filled;
 * *usage set when it is the user's to fix as a usage error: a cell's run set where no host
 * brought a whole run back). s is to be released either way (sweep_runs_release()).
 */
int sweep_load(struct sweep_runs *s, const char *dir, uint64_t idle_ns, json_t *msgs,
               struct iot_err *stop, bool *usage, struct iot_err *e);

#endif
