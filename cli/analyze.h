/* SPDX-License-Identifier: MIT */
/* The analyze command's parts: block traces (cmd-analyze.c) and packet captures (analyze-nfs.c). */
#ifndef IOTAPE_CLI_ANALYZE_H
#define IOTAPE_CLI_ANALYZE_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"

struct analyze_opts {
	int json;                   /* --json: write the JSON document instead of text */
	uint64_t interval_ns;       /* --interval, timeline bin width (default 1 s) */
	uint64_t idle_threshold_ns; /* --idle-threshold (default 10 ms) */
	unsigned top;               /* --top N: longest gaps, top file handles (default 10) */
};

struct in_stream;
struct run_summary;

/*
 * Analyze the packet captures in[0..n-1] (streams sniffed as pcap or pcapng; taken, closed
 * here), merged by time through s's NFS pipeline (analyze/run_summary.h
 * run_summary_captures()) as host h's: after s's block pass, the packets and NFS calls are laid
 * over its gaps. Bad bytes in the middle end the reading with partial results: they are
 * rendered (marked partial, with a warning), the error goes into *stop (when stop is not NULL;
 * else it is printed) and EXIT_OK is returned, so that the caller prints it last. Adds an "nfs"
 * object to root (the JSON document the command writes with --json, or a host's entry) and,
 * when text is non-NULL, prints the text summary there. Returns an exit code (EXIT_OK,
 * EXIT_USAGE, EXIT_SYSTEM) after printing any error.
 */
int analyze_captures(struct in_stream **in, unsigned n, struct run_summary *s, unsigned h,
                     json_t *root, FILE *text, struct iot_err *stop);

#endif
