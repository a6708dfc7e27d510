/* SPDX-License-Identifier: MIT */
/* One run through the analysis: its `iotape analyze --json` summary, block trace and packets. */
#ifndef IOTAPE_ANALYZE_RUN_SUMMARY_H
#define IOTAPE_ANALYZE_RUN_SUMMARY_H

#include <stdbool.h>

#include <jansson.h>

#include "analyze/blk_analysis.h"
#include "common/err.h"
#include "formats/rpc.h"

struct pcap_src;
struct idle_explain;
struct pkt;
struct manifest;

/*
 * What report and compare read of a run: the document `iotape analyze --json` prints (the
 * block sinks' devices[] and span, the NFS statistics' "nfs"), and the block pass itself for a
 * caller that draws its sinks' series. Each figure is computed once, by its sink.
 */
struct run_summary {
	json_t *doc;
	struct blk_analysis *blk; /* after run_summary_block(), finished */
	struct idle_explain *x;   /* its gaps explained (analyze/idle_explain.h), as analyze does */
	bool has_block, has_nfs;
	uint64_t nfs_interval_ns; /* the NFS timeline's bin width (0: the default, 1 s) */
	/* optional, for run_summary_packets(): the run's manifest (clock pairs, addresses: the
	 * packets laid over the gaps on the block trace's clock; kept by the caller meanwhile),
	 * and a hook that sees every frame too (as nfs_pipe's frame_fn) */
	const struct manifest *clock;
	/* optional, for run_summary_block(): the run's manifest, its devices' key, role and group
	 * (into the document, and to the rules that explain the gaps; kept by the caller during
	 * the call) */
	const struct manifest *ident;
	void (*frame_fn)(void *arg, const struct pkt *p, uint64_t ts_ns);
	void *frame_arg;
};

/*
 * Each device of a document's devices[] (blk_analysis_to_json()'s) with what manifest m says
 * it is (NULL: nothing): "key" (how it is known across runs: capture's key, else its kernel
 * name, else "MAJOR,MINOR"), "role" and "group" (null when not known). With host, only the
 * devices of that host ("host" key). 0 or -ENOMEM.
 */
int blk_ident_json(json_t *devices, const struct manifest *m, const char *host);

int run_summary_init(struct run_summary *r);
void run_summary_release(struct run_summary *r);

/*
 * Every event of rd through a pass with options o (blk_analysis_read()); setup(ctx, pass),
 * when given, runs before the first event (to add sinks). Adds devices[], span_ns and the
 * timeline's keys to doc, the devices' timelines left out (null), and each device's idle gaps
 * explained by the others (idle.longest[].explain, idle.explain). 0 or -errno (e filled);
 * 1 when bad bytes stopped the trace after good records: the summary holds what came before
 * them, doc's "input" says {"partial": true, "error": e's message}, e says what stopped it.
 */
int run_summary_block(struct run_summary *r, struct bt_reader *rd, const struct blk_opts *o,
                      int (*setup)(void *ctx, struct blk_analysis *a), void *ctx,
                      struct iot_err *e);
/* Every packet of src through the RPC decoder into the NFS statistics ("nfs" in doc); also,
 * when given, sees every transaction too. After a block pass, the packets and NFS calls are
 * laid over its gaps (the devices' "idle" explanations rewritten). 0 or -errno (e filled); 1 for
 * partial results, as above ("nfs"'s "input" marked). */
int run_summary_packets(struct run_summary *r, struct pcap_src *src, rpc_txn_fn also, void *ctx,
                        struct iot_err *e);

#endif
