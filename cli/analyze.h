/* SPDX-License-Identifier: MIT */
/* The analyze command's parts: block traces (cmd-analyze.c) and packet captures (analyze-nfs.c). */
#ifndef IOTAPE_CLI_ANALYZE_H
#define IOTAPE_CLI_ANALYZE_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

struct analyze_opts {
	int json;                   /* --json: write the JSON document instead of text */
	uint64_t interval_ns;       /* --interval, timeline bin width (default 1 s) */
	uint64_t idle_threshold_ns; /* --idle-threshold (default 10 ms) */
	unsigned top;               /* --top N: longest gaps, top file handles (default 10) */
};

/* 1 when path is a packet capture (pcap, pcapng, possibly gzip-compressed), else 0. */
int analyze_is_capture(const char *path);

/*
 * Analyze the packet capture at path. Adds an "nfs" object to root (the JSON document the
 * command writes with --json) and, when text is non-NULL, prints the text summary there.
 * Returns an exit code (EXIT_OK, EXIT_USAGE, EXIT_SYSTEM) after printing any error.
 */
int analyze_capture(const char *path, const struct analyze_opts *o, json_t *root, FILE *text);

#endif
