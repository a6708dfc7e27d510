/* SPDX-License-Identifier: MIT */
/* Loading a RUN for report and compare (defined in cmd-report.c). */
#ifndef IOTAPE_CLI_RUNS_H
#define IOTAPE_CLI_RUNS_H

#include <jansson.h>
#include <stdint.h>

#include "report/report_run.h"

struct cli_input;

/*
 * Analyze one RUN, opened (cli/inputs.h: a run directory, a trace set NAME, one trace file,
 * or a packet capture) into r: block events and packets both, when the directory has both.
 * Returns an exit code after printing any error.
 */
int report_load_run(struct cli_input *ci, uint64_t interval_ns, uint64_t idle_ns,
		    struct report_run *r, json_t **manifest);

#endif
