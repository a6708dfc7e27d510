/* SPDX-License-Identifier: MIT */
/* Loading a RUN for report and compare (defined in cmd-report.c). */
#ifndef IOTAPE_CLI_RUNS_H
#define IOTAPE_CLI_RUNS_H

#include <jansson.h>
#include <stdint.h>

#include "common/err.h"

struct bt_reader;
struct cli_input;
struct manifest;
struct pcap_src;

/*
 * What loading a run feeds: its block trace (a reader ready to read) and its packets, with the
 * run's manifest as clock when it has both. The report feeds its pass with graphs
 * (report/report_run.h), compare the summary alone (analyze/run_summary.h).
 */
struct run_feed {
	int (*block)(void *ctx, struct bt_reader *rd, struct iot_err *e);
	int (*packets)(void *ctx, struct pcap_src *src, const struct manifest *clock,
	               struct iot_err *e);
	void *ctx;
};

/*
 * Read one RUN, opened (cli/inputs.h: a run directory, a trace set NAME, one trace file, or a
 * packet capture), into f: block events and packets both, when the directory has both; its
 * manifest, if any, into *manifest. Returns an exit code after printing any error.
 */
int load_run(struct cli_input *ci, const struct run_feed *f, json_t **manifest);

#endif
