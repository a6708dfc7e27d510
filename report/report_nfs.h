/* SPDX-License-Identifier: MIT */
/* The report's NFS series: per-interval operations by type, outstanding requests, response time. */
#ifndef IOTAPE_REPORT_REPORT_NFS_H
#define IOTAPE_REPORT_REPORT_NFS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/bins.h"
#include "common/hist.h"
#include "formats/rpc.h"

/*
 * The graphs' data, beside the NFS statistics (which make the tables): RPT_MAX_BINS
 * intervals whose width doubles (common/bins.h), from the first call seen or, aligned, from
 * the block trace's first event. Operations get one of RPT_NFS_SLOTS named slots in order of
 * first appearance; later kinds share the last slot, "other".
 */
#define RPT_MAX_BINS 2048u
#define RPT_BASE_WIDTH_NS 1000ull /* bins start at 1 us and double */
#define RPT_NFS_SLOTS 9u

struct rpt_nfs_bin {
	uint32_t ops[RPT_NFS_SLOTS]; /* calls, counted at call time */
	uint32_t replies, errors;
	double busy; /* outstanding requests x ns */
	struct hist_coarse srt;
	uint64_t net_bytes; /* every TCP and UDP packet's payload (any protocol), when aligned */
	uint32_t net_packets;
};

struct manifest;

struct rpt_nfs {
	struct rpt_nfs_bin *bin;          /* RPT_MAX_BINS */
	struct bins clock;                /* origin: the first call, or the block run's start */
	const struct manifest *clock_map; /* packet times onto the block trace's clock, or NULL */
	bool aligned;                     /* on the block run's time axis */
	uint64_t tlast;
	/* the first call seen: its capture time, and that time on the graphs' clock (they differ
	 * when aligned), to put series made on the capture's clock on the same axis */
	uint64_t cap0, map0;
	/* seconds added to every time on the graphs: where origin falls on a run set's one time
	 * axis (report_run_nfs_real0()), as the block graphs' report_input.t0_s; 0 otherwise */
	double shift_s;
	char slot[RPT_NFS_SLOTS][40]; /* "v3 READ" */
	unsigned nslots;
	uint64_t txns, replied, ignored; /* ignored: not NFS (MOUNT, portmap, callbacks) */
	uint64_t clamped;                /* calls before the first one seen (reply order) */
	uint64_t net_packets;            /* frames in the network series */
};

int rpt_nfs_init(struct rpt_nfs *n, uint64_t interval_ns);
void rpt_nfs_release(struct rpt_nfs *n);
/* Put packet times on the trace clock with the manifest's clock pairs, from the block run's
 * first event t0 (trace clock), so the NFS graphs share the block graphs' time axis. */
void rpt_nfs_align(struct rpt_nfs *n, const struct manifest *m, uint64_t t0);
/* rpc_txn_fn: arg is the struct rpt_nfs. */
void rpt_nfs_txn(void *arg, const struct rpc_txn *t);
/* nfs_pipe's frame_fn: every frame's payload into the network series, once the series are
 * on the block trace's clock (rpt_nfs_align()); arg is the struct rpt_nfs. */
struct pkt;
void rpt_nfs_frame(void *arg, const struct pkt *p, uint64_t ts_ns);
uint64_t rpt_nfs_span(const struct rpt_nfs *n);
/* Seconds on the graphs' axis of a capture time t (shift_s included). */
double rpt_nfs_x(const struct rpt_nfs *n, uint64_t t);

#endif
