/* SPDX-License-Identifier: MIT */
/* The report's NFS pass: per-interval operations by type, outstanding requests, response time. */
#ifndef IOTAPE_REPORT_REPORT_NFS_H
#define IOTAPE_REPORT_REPORT_NFS_H

#include <stdint.h>

#include "report/report_scan.h"
#include "formats/rpc.h"

/*
 * Same memory discipline as the block bins: RPT_MAX_BINS intervals whose width doubles.
 * Operations get one of RPT_NFS_SLOTS named slots in order of first appearance; later kinds
 * share the last slot, "other". Times are the capture's, from the first call seen.
 */
#define RPT_NFS_SLOTS 9u

struct rpt_nfs_bin {
	uint32_t ops[RPT_NFS_SLOTS]; /* calls, counted at call time */
	uint32_t replies, errors;
	double busy; /* outstanding requests x ns */
	uint32_t srt[RPT_LAT_BUCKETS];
};

struct manifest;

struct rpt_nfs {
	struct rpt_nfs_bin *bin;
	const struct manifest *clock; /* packet times onto the block trace's clock, or NULL */
	bool aligned;                 /* t0 is the block run's: graphs share its time axis */
	uint64_t t0, tlast, width;
	bool started;
	unsigned nbins;
	char slot[RPT_NFS_SLOTS][40]; /* "v3 READ" */
	unsigned nslots;
	uint64_t txns, replied, ignored; /* ignored: not NFS (MOUNT, portmap, callbacks) */
	uint64_t clamped;                /* calls before the first one seen (reply order) */
};

int rpt_nfs_init(struct rpt_nfs *n, uint64_t interval_ns);
void rpt_nfs_release(struct rpt_nfs *n);
/* Put packet times on the trace clock with the manifest's clock pairs, from the block run's
 * first event t0 (trace clock), so the NFS graphs share the block graphs' time axis. */
void rpt_nfs_align(struct rpt_nfs *n, const struct manifest *m, uint64_t t0);
/* rpc_txn_fn: arg is the struct rpt_nfs. */
void rpt_nfs_txn(void *arg, const struct rpc_txn *t);
uint64_t rpt_nfs_span(const struct rpt_nfs *n);

#endif
