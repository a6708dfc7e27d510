/* SPDX-License-Identifier: MIT */
/* A run set of several hosts opened and read as `iotape analyze SET` reads it, for report,
 * compare and a sweep's cells. */
#ifndef IOTAPE_ANALYZE_RUN_SET_LOAD_H
#define IOTAPE_ANALYZE_RUN_SET_LOAD_H

#include <stdint.h>

#include <jansson.h>

#include "analyze/run_summaries.h"
#include "analyze/run_summary.h"
#include "common/err.h"

/* run_set_open()'s and run_set_load()'s answer when a host cannot be put on the set's clock (a
 * trace alone, a summary run, a manifest without clock pairs): report reads each host apart,
 * analyze refuses the set */
#define RUN_SET_APART 2
/* run_set_open()'s answer when a host's manifest cannot be read (e says why): run_set_load()
 * answers RUN_SET_APART for it */
#define RUN_SET_BAD_MANIFEST 3

struct in_stream;

/*
 * After run_set_open(): host i's block trace h[i].host.rd (NULL: packets alone), manifest
 * man[i] (h[i].host.m) and as JSON manifest[i], name h[i].host.name, first packet capture
 * capture[i] (NULL: none) read from capture_path[i]. After run_set_load(): its capture read
 * (capture[i] NULL), its document h[i].doc, its pass s.hblk[i] (until taken), its block reader
 * h[i].host.rd (what it read, for the caller's warnings). What a caller takes it sets NULL
 * (h[i].host.m: the manifest is the caller's). Released by run_set_load_release(), whatever either
 * returned.
 */
struct run_set_load {
	struct run_summary s;
	struct run_set_host *h;
	struct manifest *man;
	json_t **manifest;
	struct in_stream **capture;
	char **capture_path; /* capture[i]'s file (NULL: none), kept after it is read */
	char **names;        /* the names run_set_open() gave from the manifests */
	unsigned n;
};

/*
 * The hosts hosts[0..n-1] opened as every command opens a run set's hosts: each a run
 * directory with a block trace or packets (its first packet capture opened as a stream; a
 * warning when it has several) and a manifest with clock pairs, with its measured clock offset.
 * A host without a name (hosts[i].name NULL, analyze --hosts) is named by its manifest's
 * host.hostname, or by its path when that is missing or an earlier host has the name. o: the
 * passes' options (NULL: blk_opts_init()'s), for run_set_load() or the caller's own passes
 * over l->s. Warnings are appended to warnings as strings, in order. 0; RUN_SET_APART or
 * RUN_SET_BAD_MANIFEST (e says why, naming the host's path); else -errno (e filled).
 */
int run_set_open(struct run_set_load *l, const struct run_summaries_host *hosts, unsigned n,
                 const struct blk_opts *o, json_t *warnings, struct iot_err *e);

/*
 * The hosts hosts[0..n-1] (each a run directory with its measured clock offset, as
 * formats/runset.h's runset_open() gives them), opened by run_set_open() and read through
 * run_summary_set() (setup, packets and ctx as there): one pass over every host, each host's
 * gaps explained by all of them, its packets too; o the passes' options (NULL:
 * blk_opts_init()'s), nfs_interval_ns the NFS bins (0: o's). What the user should know but
 * does not stop it (a host with several captures) is appended to warnings as strings, in
 * order. 0; 1 when bad bytes stopped a trace or capture after good records (partial results, e
 * says what stopped it); RUN_SET_APART when a host cannot be put on the set's clock (a summary
 * run, a manifest without clock pairs or that cannot be read: analyze refuses the set; nothing
 * read); else -errno (e filled).
 */
int run_set_load(struct run_set_load *l, const struct run_summaries_host *hosts, unsigned n,
                 const struct blk_opts *o, uint64_t nfs_interval_ns,
                 int (*setup)(void *ctx, unsigned host, struct blk_analysis *a),
                 void (*packets)(void *ctx, unsigned host, struct run_set_host *h), void *ctx,
                 json_t *warnings, struct iot_err *e);
void run_set_load_release(struct run_set_load *l);

/* The hosts of run set rs as run_set_load() takes them (pointing into rs; malloc'd, NULL: out
 * of memory). */
struct runset;
struct run_summaries_host *run_set_hosts(const struct runset *rs);
/*
 * Run set rs (formats/runset.h's runset_open()) of several hosts read through run_set_load()
 * (the other arguments as there), what the user should know into msgs as
 * analyze/run_load.h's run_load_msgs() does: the set's warnings, what each host's reader read,
 * partial results (run_msgs_partial(): e into *stop, 0 returned). 0, RUN_SET_APART (only the
 * set's warnings in msgs), or -errno (e filled). l is to be released either way.
 */
int run_set_load_runset(struct run_set_load *l, const struct runset *rs, const struct blk_opts *o,
                        uint64_t nfs_interval_ns,
                        int (*setup)(void *ctx, unsigned host, struct blk_analysis *a),
                        void (*packets)(void *ctx, unsigned host, struct run_set_host *h),
                        void *ctx, json_t *msgs, struct iot_err *stop, struct iot_err *e);
/*
 * A run set's NFS calls seen from both ends (analyze/nfs_ends.h), after run_set_open(): each
 * host's packet capture (l->capture_path[i]) read again on its own, the calls two hosts saw
 * matched and split into *out, the hosts named as l names them, with hosts[i]'s clock offset
 * and its error; *out NULL when fewer than two hosts have a capture. A capture that cannot be
 * read, or stops at bad bytes, is a warning (the host's own analysis says more). 0; -E2BIG
 * past NFS_ENDS_MAX_HOSTS hosts with captures, or -ENOMEM (e filled).
 */
struct nfs_ends;
int run_set_ends(const struct run_set_load *l, const struct run_summaries_host *hosts,
                 struct nfs_ends **out, json_t *warnings, struct iot_err *e);

/* Every device of summary's devices[] keyed "HOST:KEY": a run set's hosts' devices apart,
 * whatever their names. 0 or -ENOMEM. */
int run_set_key_devices(json_t *summary, const char *host);

#endif
