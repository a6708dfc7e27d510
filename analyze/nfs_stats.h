/* SPDX-License-Identifier: MIT */
/* NFS/RPC statistics sink: procedures, clients, files by name, slowest calls, time series. */
#ifndef IOTAPE_ANALYZE_NFS_STATS_H
#define IOTAPE_ANALYZE_NFS_STATS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyze/nfs_sketch.h"
#include "common/bins.h"
#include "common/hist.h"
#include "formats/netaddr.h"
#include "formats/nfs_names.h"
#include "formats/nfs_pipe.h"
#include "formats/rpc.h"

#define NFS_ERR_SLOTS 8
#define NFS4_OPS_COUNTED 80  /* op numbers 0..79 (NFSv4.2 ends at 75) */
#define NFS_MAX_ROWS 128     /* each row holds a ~30 KiB histogram */
#define NFS_MAX_BINS 2048u   /* timeline bins; beyond, the interval doubles */
#define NFS_SERIES 24        /* per-procedure series: 23 rows in order of appearance, "other" */
#define NFS_SERIES_BINS 512u /* their own clock: enough points for a graph */
#define NFS_CLIENT_PROCS 6   /* procedures kept per client; the rest in its "other" */
#define NFS_MAX_FILES 4096u  /* files with an entry at once; the least busy are folded out */
#define NFS_MAX_SLOWEST 1000
#define NFS_MAX_EVENTS 1000 /* timestamped events listed; all are counted */

struct nfs_status_count {
	uint32_t status; /* NFS status; RPC-level failures use the NFS_ERR_RPC_* values */
	uint64_t n;
};

/* RPC-level failures in errors-by-status (no NFS status exists for them). */
#define NFS_ERR_RPC_DENIED 0xffff0000u
#define NFS_ERR_RPC_ACCEPT 0xffff0100u /* + accept_stat */

struct nfs_errs {
	uint64_t errors;
	struct nfs_status_count err[NFS_ERR_SLOTS];
	unsigned nerr;
	uint64_t err_other;
};

/* One row: a procedure (NFSv3, MOUNT, PORTMAP) or an NFSv4 main op, per version. */
struct nfs_proc_stats {
	unsigned id; /* order of creation: stable while rows are sorted */
	enum rpc_kind kind;
	uint32_t prog, vers, minor;
	uint32_t op;      /* procedure or main op */
	int is_proc;      /* 1: op is an RPC procedure number; 0: an NFSv4 op; 2: a cut COMPOUND */
	char version[16]; /* "3", "4.0", "4.1", ... */
	char name[32];
	uint64_t calls, replies, bytes, read_bytes, write_bytes, retransmits;
	struct nfs_errs e;
	struct hist *srt;
};

/* Per procedure of a client. */
struct nfs_client_proc {
	unsigned row; /* row id; UINT32_MAX for the client's "other" */
	uint64_t calls, errors, bytes;
	struct nfs_sketch srt;
};

enum nfs_client_kind {
	NFS_BY_ADDRESS,    /* the client's address */
	NFS_BY_CONNECTION, /* address and port (and server address and port) */
	NFS_BY_UID,        /* AUTH_SYS uid and gid */
	NFS_BY_MACHINE,    /* AUTH_SYS machine name */
	NFS_CLIENT_KINDS
};

struct nfs_client {
	/* the key: what of it is used depends on the table */
	struct net_endpoint client, server;
	uint32_t uid, gid;
	char *machine;
	uint64_t calls, replies, errors, read_bytes, write_bytes, retransmits;
	uint64_t wait_ns; /* sum of response times: time spent waiting */
	struct nfs_sketch srt;
	unsigned nprocs;
	uint8_t proto; /* of the key, here where it costs no room */
	struct nfs_client_proc proc[NFS_CLIENT_PROCS], other;
};

struct nfs_client_table {
	struct nfs_client *c;
	unsigned n, cap, max;
	uint32_t *idx; /* open addressing: client index + 1, 0 empty */
	unsigned mask;
	struct nfs_client other; /* what the clients past max did */
	uint64_t folded;         /* transactions folded into other */
};

/* One file (a node of the handle -> path map). */
struct nfs_file {
	uint32_t node;
	uint64_t ops, errors, wait_ns;
	unsigned nrows;
	struct {
		unsigned row;
		uint64_t n;
	} calls[4]; /* calls by procedure (row id), first four; the rest in calls_other */
	uint64_t calls_other;
	struct nfs_io {
		uint64_t ops, bytes, min, max, seq, next;
	} rd, wr;
	uint64_t size; /* latest size seen in attributes, UINT64_MAX if none */
	struct nfs_sketch srt;
};

struct nfs_file_table {
	struct nfs_file *f;
	unsigned n, cap, max;
	uint32_t *idx; /* node -> file index + 1 */
	unsigned mask;
	struct nfs_file
	    other;        /* files folded out of the table, and handles the map could not keep */
	uint64_t folded;  /* calls on handles the map could not keep */
	uint64_t evicted; /* entries folded into other to make room */
};

/* One slow call, as kept for the slowest list. */
struct nfs_slow {
	uint64_t call_ns, srt;
	uint32_t xid;
	struct net_endpoint client, server;
	bool has_unix;
	uint32_t uid, gid;
	char machine[64];
	unsigned row;
	uint16_t nops;
	uint16_t ops[NFS_OPS_MAX];
	uint32_t node;
	uint8_t fh_len;
	uint8_t fh[NFS_FH_MAX];
	bool has_io;
	uint64_t offset, count;
	uint32_t status; /* txn_status(): 0, an NFS status or NFS_ERR_RPC_* */
};

struct nfs_bin {
	uint64_t ops, read_bytes, write_bytes, errors;
	uint64_t busy_ns; /* sum over transactions of their time outstanding within the bin */
};

/* A procedure's share of a timeline bin. */
struct nfs_series_bin {
	uint32_t calls, replies, errors;
	uint64_t srt_max;
	struct nfs_coarse srt;
};

/* A stream event as kept (net_event's addresses copied). */
struct nfs_event {
	enum net_event_type type;
	uint64_t ts_ns, conn_id, bytes;
	uint32_t xid;
	uint8_t proto;
	struct net_endpoint src, dst;
};

struct nfs_copy_stats {
	uint64_t calls, sync, async, errors, bytes;
	uint64_t callbacks, cb_bytes, cb_errors;
	struct hist cb_latency; /* COPY call to CB_OFFLOAD call */
	struct hist srt;        /* COPY call to COPY reply */
};

struct nfs_stats_cfg {
	uint64_t interval_ns; /* timeline bin width (default 1 s) */
	unsigned top;         /* files, clients and slowest calls listed (default 10) */
	uint32_t max_names;   /* handle -> path map cap (default: the map's) */
};

struct nfs_stats {
	struct nfs_stats_cfg cfg;
	struct nfs_proc_stats *procs;
	unsigned nprocs, cap_procs;
	uint64_t rows_dropped; /* transactions past the row cap */
	struct nfs_client_table clients[NFS_CLIENT_KINDS];
	struct nfs_names *names;
	struct nfs_file_table files;
	/* the slowest calls: a min-heap on srt, cfg.top entries */
	struct nfs_slow *slow;
	unsigned nslow;
	/* timeline: bins[i] covers [bins_start_of(&clock, i), + clock.width), absolute intervals
	 * (aligned bins, common/bins.h); clock.n of them in use */
	struct nfs_bin *bins;
	struct bins clock;
	/* per-procedure series on a clock of their own: series[i * NFS_SERIES + slot] */
	struct nfs_series_bin *series;
	struct bins sclock;
	unsigned series_row[NFS_SERIES - 1]; /* row id of each named slot */
	unsigned nseries;
	/* events (retransmissions, gaps): the first NFS_MAX_EVENTS, and counts of all */
	struct nfs_event *events;
	unsigned nevents;
	uint64_t event_counts[NET_EV_TYPES];
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
	/* errors by the op that failed inside a COMPOUND */
	struct nfs_errs v4_op_errs[4][NFS4_OPS_COUNTED];
	uint64_t txns, replied, rpc_retransmits;
	uint64_t first_call_ns, last_reply_ns;
};

int nfs_stats_init(struct nfs_stats *s, const struct nfs_stats_cfg *cfg);
/* Feed one transaction (signature of rpc_txn_fn, arg = the struct nfs_stats). */
void nfs_stats_txn(void *s, const struct rpc_txn *t);
/* Feed one stream event (signature of net_event_fn, arg = the struct nfs_stats). */
void nfs_stats_event(void *s, const struct net_event *ev);
/* Rows sorted: NFS first by version then procedure order, then the other programs. Also
 * merges file entries whose nodes the map has since merged. */
void nfs_stats_sort(struct nfs_stats *s);
/* The row with a given id (rows move when sorted), or NULL. */
const struct nfs_proc_stats *nfs_stats_row(const struct nfs_stats *s, unsigned id);
/* The row a transaction is counted in, as named in the rows: version ("3", "4.1") and
 * procedure or main op ("READ", "COMPOUND_CUT"). */
void nfs_txn_row_name(const struct rpc_txn *t, char *version, size_t vlen, char *name, size_t nlen);
/* The status of a transaction as counted: 0, an NFS status or an NFS_ERR_RPC_* code. */
uint32_t nfs_txn_status(const struct rpc_txn *t);

/* Rankings: indices of the top n entries by a key, best first; returns how many. */
enum nfs_rank { NFS_RANK_WAIT, NFS_RANK_BYTES, NFS_RANK_OPS };
/* The top n of count items by key(item i), best first, ties in item order; items whose key is
 * 0 are left out when skip_zero. */
unsigned nfs_rank_top(const void *ctx, unsigned count, uint64_t (*key)(const void *ctx, unsigned i),
                      bool skip_zero, unsigned *idx, unsigned n);
unsigned nfs_stats_top_clients(const struct nfs_stats *s, enum nfs_client_kind k, enum nfs_rank by,
                               unsigned *idx, unsigned n);
unsigned nfs_stats_top_files(const struct nfs_stats *s, enum nfs_rank by, unsigned *idx,
                             unsigned n);
/* The slowest calls, slowest first, into out (at most n); returns how many. */
unsigned nfs_stats_slowest(const struct nfs_stats *s, struct nfs_slow *out, unsigned n);
/* A file's path (nfs_names_path), or its handle in hex when the map has no node for it. */
unsigned nfs_stats_file_path(const struct nfs_stats *s, uint32_t node, const uint8_t *fh,
                             unsigned fh_len, char *buf, size_t len);

/* The "nfs" JSON object (docs/json.md). */
json_t *nfs_stats_json(struct nfs_stats *s, const struct nfs_pipe *p);
void nfs_stats_release(struct nfs_stats *s);
/* Bytes held (for the memory bound's tests). */
size_t nfs_stats_mem(const struct nfs_stats *s);

/* A status as text: "NFS3ERR_NOENT", "NFS4ERR_DELAY" (v4: an NFSv4 or callback row),
 * "RPC_PROC_UNAVAIL", "RPC_DENIED", or the number. */
void nfs_status_str(uint32_t status, int v4, char *buf, size_t len);

/* --- internal to analyze/nfs_*.c --- */
void nfs_clients_init(struct nfs_stats *s);
void nfs_clients_txn(struct nfs_stats *s, const struct rpc_txn *t, unsigned row, uint64_t srt,
                     uint32_t st, uint64_t rd, uint64_t wr);
void nfs_clients_release(struct nfs_stats *s);
void nfs_files_txn(struct nfs_stats *s, const struct rpc_txn *t, uint32_t node, unsigned row,
                   uint64_t srt, uint32_t st, uint64_t rd, uint64_t wr);
void nfs_files_merge(struct nfs_stats *s);
void nfs_file_merge(struct nfs_file *a, const struct nfs_file *b);
void nfs_files_release(struct nfs_stats *s);
void nfs_slow_txn(struct nfs_stats *s, const struct rpc_txn *t, unsigned row, uint32_t node,
                  uint64_t srt, uint32_t st);
json_t *nfs_hist_json(const struct hist *h);
json_t *nfs_sketch_json(const struct nfs_sketch *k);
json_t *nfs_clients_json(const struct nfs_stats *s);
json_t *nfs_files_json(const struct nfs_stats *s);
json_t *nfs_slowest_json(const struct nfs_stats *s);
json_t *nfs_series_json(const struct nfs_stats *s);
json_t *nfs_events_json(const struct nfs_stats *s);

#endif
