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

/* run_set_load()'s answer when a host cannot be put on the set's clock: read each host apart */
#define RUN_SET_APART 2

/*
 * After run_set_load(): host i's document h[i].doc, its manifest as JSON manifest[i], its pass
 * s.hblk[i] (until taken), its block reader h[i].host.rd (what it read, for the caller's
 * warnings). Released by run_set_load_release(), whatever run_set_load() returned.
 */
struct run_set_load {
	struct run_summary s;
	struct run_set_host *h;
	struct manifest *man;
	json_t **manifest;
	unsigned n;
};

/*
 * The hosts hosts[0..n-1] (each a run directory with its measured clock offset, as
 * formats/runset.h's runset_open() gives them), each opened (its block trace, its first
 * packet capture, its manifest with clock pairs) and read through run_summary_set() (setup,
 * packets and ctx as there): one pass over every host, each host's gaps explained by all of
 * them, its packets too; o the passes' options (NULL: blk_opts_init()'s), nfs_interval_ns the
 * NFS bins (0: o's). What the user should know but does not stop it (a host with several
 * captures) is appended to warnings as strings, in order. 0; 1 when bad bytes stopped a trace
 * or capture after good records (partial results, e says what stopped it); RUN_SET_APART when
 * a host cannot be put on the set's clock (a summary run, a manifest without clock pairs:
 * analyze refuses the set; nothing read); else -errno (e filled).
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

/* Every device of summary's devices[] keyed "HOST:KEY": a run set's hosts' devices apart,
 * whatever their names. 0 or -ENOMEM. */
int run_set_key_devices(json_t *summary, const char *host);

#endif
