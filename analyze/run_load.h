/* SPDX-License-Identifier: MIT */
/* One run's block trace and packets through a caller's feed, for report, compare and sweeps. */
#ifndef IOTAPE_ANALYZE_RUN_LOAD_H
#define IOTAPE_ANALYZE_RUN_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "common/err.h"

struct bt_reader;
struct in_stream;
struct manifest;
struct pcap_src;

/*
 * What loading a run feeds: its block trace (a reader ready to read) with the run's manifest
 * (what its devices are), and its packets, with the manifest as clock when it has both. The
 * report feeds its pass with graphs (report/report_run.h), compare the summary alone
 * (analyze/run_summary.h). Each returns 0, -errno, or 1: bad bytes stopped the input after
 * good data (partial results, e says why).
 */
struct run_feed {
	/* manifest: the run's (its devices' roles and groups), or NULL */
	int (*block)(void *ctx, struct bt_reader *rd, const struct manifest *manifest,
	             struct iot_err *e);
	int (*packets)(void *ctx, struct pcap_src *src, const struct manifest *clock,
	               struct iot_err *e);
	void *ctx;
	/* a summary run's summary.json (run_summary_file()'s), when the run has no records; NULL:
	 * the caller cannot take one (run_load() says so) */
	int (*summary)(void *ctx, const char *path, struct iot_err *e);
};

/* A run's parts, opened by the caller (a run directory, a trace set, a trace file, a packet
 * capture). */
struct run_src {
	struct bt_reader *block;   /* its block trace, or NULL (the caller's) */
	const char *manifest;      /* its manifest.json, or NULL */
	struct in_stream *capture; /* its packets, or NULL: taken by run_load() */
	const char *summary;       /* its summary.json, or NULL: read only without records */
};

/* What the caller tells the user after run_load(), in this order. */
struct run_load_notes {
	bool summary_read; /* a summary run: its summary.json went through the feed */
	bool block_read;   /* the block trace went through the feed */
	int block_partial; /* 1: bad bytes stopped it after good data (block_e says) */
	struct iot_err block_e;
	bool capture_truncated; /* the capture ends inside a packet record */
	int capture_partial;    /* 1: as block_partial, for the packets (capture_e) */
	struct iot_err capture_e;
	char capture_name[256]; /* the capture's name, for the messages */
};

/*
 * Feed s's block trace to f->block (with the manifest when it parses), then its packets to
 * f->packets (with the manifest as clock when the run has a block trace too: one time axis by
 * its clock pairs). Bad bytes after good data are partial results, in n. 0, or -errno (e
 * filled: the block trace's error as its reader says it, the capture's prefixed with its
 * name); n says what happened before. A summary run (no block trace, no packets) goes to
 * f->summary: -EOPNOTSUPP when f has none.
 */
int run_load(struct run_src *s, const struct run_feed *f, struct run_load_notes *n,
             struct iot_err *e);

/*
 * A saved `iotape analyze --json` document given where a run is read (compare's inputs, a
 * sweep's runs): 0 when doc is a summary; -EINVAL (e naming path) for a run's manifest (its
 * run directory is what to give) or any other document (no devices, no nfs).
 */
int run_summary_doc_check(const char *path, const json_t *doc, struct iot_err *e);
/* Did the analysis a saved summary holds stop at bad bytes (its block or NFS "input" partial)? */
bool run_summary_doc_partial(const json_t *doc);

/*
 * What loading runs tells the user, in order, for the command to print (a library never
 * prints): msgs holds strings, each a warning, and objects {"error": TEXT}, an error to print
 * there (bad bytes in a second input after a first one's: the first one's error is kept in
 * *stop for the command to print last, and exit 2 with).
 */
/* Bad bytes stopped WHAT ("block trace", "capture", "run set") after good data (e says where):
 * the partial-results warning into msgs, e into *stop or, when *stop holds an earlier one, an
 * error into msgs. 0 or -ENOMEM. */
int run_msgs_partial(json_t *msgs, const char *what, const struct iot_err *e, struct iot_err *stop);
/* What a block reader read that the user should know (files cut short, records missing, times
 * going backwards): a warning each into msgs. 0 or -ENOMEM. */
int run_block_warnings(const struct bt_reader *rd, json_t *msgs);
/* Events on devices past BLK_MAX_DEVICES (the pass ignores them): a warning when there are
 * some, naming path when given. 0 or -ENOMEM. */
int run_dropped_warning(const char *path, uint64_t events, json_t *msgs);
/* The same for a summary (`iotape analyze --json`) that counts such events. */
int run_summary_dropped_warning(const char *path, const json_t *summary, json_t *msgs);

/*
 * Read one RUN, opened (s: a run directory, a trace set, one trace file, or a packet capture),
 * into f as run_load() does, and its manifest, if any and if it parses, into *manifest (NULL
 * else, with a warning). The messages into msgs: what the block reader read, a capture cut
 * short, partial results (run_msgs_partial()). 0, or -errno (e filled).
 */
int run_load_msgs(struct run_src *s, const struct run_feed *f, json_t **manifest, json_t *msgs,
                  struct iot_err *stop, struct iot_err *e);

/*
 * A saved `iotape analyze --json` document at path (checked: run_summary_doc_check()), or a
 * RUN analyzed as analyze would with idle threshold idle_ns (the summary alone: no graphs),
 * into *summary, its manifest (if any) into *manifest: compare's inputs and a sweep's runs.
 * The messages into msgs as run_load_msgs(). 0, or -errno (e filled; *summary and *manifest
 * NULL).
 */
int run_summary_load(const char *path, uint64_t idle_ns, json_t **summary, json_t **manifest,
                     json_t *msgs, struct iot_err *stop, struct iot_err *e);

#endif
