/* SPDX-License-Identifier: MIT */
/* The report's NFS pass: per-interval operations by type, outstanding requests, response time. */
#ifndef IOTAPE_ANALYZE_REPORT_NFS_H
#define IOTAPE_ANALYZE_REPORT_NFS_H

#include <stdint.h>

#include "analyze/report_scan.h"
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

struct rpt_nfs {
	struct rpt_nfs_bin *bin;
	uint64_t t0, tlast, width;
	bool started;
	unsigned nbins;
	char slot[RPT_NFS_SLOTS][40]; /* "v3 READ" */
	unsigned nslots;
	uint64_t txns, replied, ignored; /* ignored: not NFS (MOUNT, portmap, callbacks) */
	uint64_t clamped;                 /* calls before the first one seen (reply order) */
};

int rpt_nfs_init(struct rpt_nfs *n, uint64_t interval_ns);
void rpt_nfs_release(struct rpt_nfs *n);
/* rpc_txn_fn: arg is the struct rpt_nfs. */
void rpt_nfs_txn(void *arg, const struct rpc_txn *t);
uint64_t rpt_nfs_span(const struct rpt_nfs *n);

#endif
