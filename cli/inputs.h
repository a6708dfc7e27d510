/* SPDX-License-Identifier: MIT */
/* Opening a command's INPUT once: block trace, packet capture, manifest or saved JSON. */
#ifndef IOTAPE_CLI_INPUTS_H
#define IOTAPE_CLI_INPUTS_H

#include <jansson.h>
#include <stdbool.h>

#include "formats/blktrace.h"
#include "formats/instream.h"

/*
 * What one INPUT holds, opened (formats/rundir.h says what an INPUT may name):
 *   a run directory      its trace sets as one reader, its packet capture, its manifest
 *   a per-CPU set NAME   its files as one reader
 *   a file, '-', a FIFO  sniffed once: a trace, a capture, or (when the command takes one)
 *                        a JSON document
 */
struct cli_input {
	const char *arg;
	struct bt_reader *block;   /* NULL: no block trace */
	struct in_stream *capture; /* NULL: no packet capture */
	struct in_stream *json;    /* a JSON document (with CLI_INPUT_JSON only) */
	char *manifest;            /* the run directory's manifest.json, or NULL */
	char *summary; /* the run directory's summary.json (bpf --detail summary), or NULL */
};

enum {
	CLI_INPUT_JSON = 1, /* the command reads saved JSON documents (compare) */
};

/* Open arg; prints the error and returns an exit code (EXIT_OK on success). */
int cli_input_open(struct cli_input *ci, const char *arg, unsigned flags);
void cli_input_release(struct cli_input *ci);

/* What a library hands back for the user (analyze/run_load.h): each string a warning, each
 * {"error": TEXT} an error, printed in order. */
void print_msgs(const json_t *msgs);
/* Warnings about what a block reader read (files cut short, records missing): printed, and
 * appended to list (the JSON document's warnings) unless it is NULL. */
void warn_block_input(const struct bt_reader *rd, json_t *list);
/* Events of devices past BLK_MAX_DEVICES (the pass ignores them): a warning when there are
 * some, naming path when given. */
void warn_dropped_devices(const char *path, uint64_t events, json_t *list);
/* The same for a summary (`iotape analyze --json`) that counts such events. */
void warn_summary_dropped(const char *path, const json_t *summary);
/* Bad bytes stopped WHAT ("block trace", "capture") after good data: the partial-results
 * warning (printed, appended to list unless NULL); e kept in *stop for the command to print
 * last before it exits 2 (or printed now when *stop holds an earlier one). */
void partial_results(const char *what, const struct iot_err *e, struct iot_err *stop, json_t *list);

/* Print a reader's error ("'FILE': WHAT at offset N (record K)"); returns the exit code for
 * ret. */
int input_error(const struct iot_err *e, int ret);

#endif
