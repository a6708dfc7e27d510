/* SPDX-License-Identifier: MIT */
/* NFS/RPC statistics sink: per procedure, client, file handle and interval; server-side copy. */
#ifndef IOTAPE_ANALYZE_NFS_STATS_H
#define IOTAPE_ANALYZE_NFS_STATS_H

#include <jansson.h>
#include <stdint.h>

#include "common/hist.h"
#include "formats/nfs_pipe.h"
#include "formats/rpc.h"

#define NFS_ERR_SLOTS 8
#define NFS4_OPS_COUNTED 80 /* op numbers 0..79 (NFSv4.2 ends at 75) */

struct nfs_status_count {
	uint32_t status; /* NFS status; RPC-level failures use the NFS_ERR_RPC_* values */
	uint64_t n;
};

/* RPC-level failures in errors-by-status (no NFS status exists for them). */
#define NFS_ERR_RPC_DENIED 0xffff0000u
#define NFS_ERR_RPC_ACCEPT 0xffff0100u /* + accept_stat */

/* One row: a procedure (NFSv3, MOUNT, PORTMAP) or an NFSv4 main op, per version. */
struct nfs_proc_stats {
	enum rpc_kind kind;
	uint32_t prog, vers, minor;
	uint32_t op;      /* procedure or main op */
	int is_proc;      /* 1: op is an RPC procedure number; 0: an NFSv4 op */
	char version[16]; /* "3", "4.0", "4.1", ... */
	char name[32];
	uint64_t calls, replies, errors, bytes, read_bytes, write_bytes, retransmits;
	struct nfs_status_count err[NFS_ERR_SLOTS];
	unsigned nerr;
	uint64_t err_other;
	struct hist *srt;
};

struct nfs_client_stats {
	uint8_t family;
	uint8_t addr[16];
	uint64_t calls, replies, errors, read_bytes, write_bytes;
	long double srt_sum;
	uint64_t srt_max;
};

struct nfs_fh_stats {
	uint8_t len;
	uint8_t fh[NFS_FH_MAX];
	uint64_t ops, bytes, read_bytes, write_bytes;
	uint64_t size; /* latest size seen in attributes, UINT64_MAX if none */
};

struct nfs_bin {
	uint64_t ops, read_bytes, write_bytes, errors;
	uint64_t busy_ns; /* sum over transactions of their time outstanding within the bin */
};

struct nfs_copy_stats {
	uint64_t calls, sync, async, errors, bytes;
	uint64_t callbacks, cb_bytes, cb_errors;
	struct hist cb_latency; /* COPY call to CB_OFFLOAD call */
	struct hist srt;        /* COPY call to COPY reply */
};

struct nfs_stats_cfg {
	uint64_t interval_ns; /* timeline bin width (default 1 s) */
	unsigned top;         /* file handles listed (default 10) */
};

struct nfs_stats {
	struct nfs_stats_cfg cfg;
	struct nfs_proc_stats *procs;
	unsigned nprocs, cap_procs;
	struct nfs_client_stats *clients;
	unsigned nclients, cap_clients;
	uint64_t clients_dropped;
	uint64_t rows_dropped; /* transactions past the row cap */
	/* file handles: open addressing, fixed capacity */
	struct nfs_fh_stats *fhs;
	unsigned fh_cap, nfh;
	uint64_t fh_untracked;
	/* timeline: bins[i] covers [(bin0 + i) * interval_ns, +interval_ns) */
	struct nfs_bin *bins;
	uint64_t bin0;
	unsigned nbins;
	struct nfs_copy_stats copy;
	/* async copies waiting for their CB_OFFLOAD, and callbacks waiting for their COPY */
	struct {
		uint8_t stateid[16];
		uint64_t ns;
		int used;
	} copy_wait[256], cb_wait[256];
	/* every op of every NFSv4 COMPOUND (not only main ops), by minor version (3 = 3 and up) */
	uint64_t v4_ops[4][NFS4_OPS_COUNTED];
	uint64_t v4_ops_other; /* op numbers past the table */
	uint64_t txns, replied, rpc_retransmits;
	uint64_t first_call_ns, last_reply_ns;
};

int nfs_stats_init(struct nfs_stats *s, const struct nfs_stats_cfg *cfg);
/* Feed one transaction (signature of rpc_txn_fn, arg = the struct nfs_stats). */
void nfs_stats_txn(void *s, const struct rpc_txn *t);
/* Rows sorted: NFS first by version then procedure order, then the other programs. */
void nfs_stats_sort(struct nfs_stats *s);
/* Indices of the top file handles by ops (by_bytes = 0) or bytes; returns how many. */
unsigned nfs_stats_top_fh(const struct nfs_stats *s, int by_bytes, unsigned *idx, unsigned n);
/* The "nfs" JSON object (docs/nfs.md). */
json_t *nfs_stats_json(struct nfs_stats *s, const struct nfs_pipe *p);
void nfs_stats_release(struct nfs_stats *s);

/* A status as text: "NFS3ERR_NOENT", "NFS4ERR_DELAY" (v4: an NFSv4 or callback row),
 * "RPC_PROC_UNAVAIL", "RPC_DENIED", or the number. */
void nfs_status_str(uint32_t status, int v4, char *buf, size_t len);

/* Address to text ("10.0.0.1", "fe80::1"). */
void nfs_addr_str(uint8_t family, const uint8_t *a, char *buf, size_t len);

#endif
