/* SPDX-License-Identifier: MIT */
/* ONC RPC (RFC 5531): calls matched to replies by (connection, XID), NFS bodies decoded. */
#ifndef IOTAPE_FORMATS_RPC_H
#define IOTAPE_FORMATS_RPC_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/nfs.h"
#include "formats/tcp_stream.h"

#define RPC_PROG_PORTMAP 100000u
#define RPC_PROG_NFS 100003u
#define RPC_PROG_MOUNT 100005u

enum rpc_kind {
	RPC_KIND_OTHER = 0,
	RPC_KIND_NFS,    /* program 100003 */
	RPC_KIND_NFS_CB, /* an NFSv4 callback program (CB_COMPOUND) */
	RPC_KIND_MOUNT,
	RPC_KIND_PORTMAP,
};

/* One RPC transaction: a call and, when seen, its reply. */
struct rpc_txn {
	uint64_t conn_id;
	uint8_t proto;
	struct net_endpoint client, server; /* the call's sender and receiver */
	uint32_t xid, prog, vers, proc;
	enum rpc_kind kind;
	uint64_t call_ns, reply_ns;   /* reply_ns is 0 when no reply was seen */
	uint64_t call_len, reply_len; /* RPC message lengths */
	bool replied;
	int reply_stat;       /* 0 MSG_ACCEPTED, 1 MSG_DENIED */
	uint32_t accept_stat; /* 0 SUCCESS ... 5 SYSTEM_ERR (when accepted) */
	uint32_t reject_stat; /* when denied */
	uint32_t retransmits; /* duplicate calls seen for this XID while it was outstanding */
	uint32_t cred_flavor;
	uint32_t gss_service; /* RPCSEC_GSS: 1 none, 2 integrity, 3 privacy; 0 otherwise */
	/* AUTH_SYS credentials (RFC 5531 appendix A), when the call carried them */
	bool has_unix;
	uint32_t uid, gid;
	const char *machine; /* the machine name, printable (interned: valid until the decoder
	                      * is freed); NULL without AUTH_SYS or past the table's cap */
	bool call_cut;       /* the call's bytes were not all captured (snaplen, lost bytes) */
	bool reply_cut;      /* the same for the reply */
	/* During the callback only: the reply's results (NFS or MOUNT, after RPCSEC_GSS
	 * integrity), as far as they were captured; NULL otherwise. */
	const uint8_t *rbody;
	uint32_t rbody_len;
	struct nfs_call call;
	struct nfs_reply rep;
};

struct rpc_counters {
	uint64_t calls;
	uint64_t replies;
	uint64_t matched;
	uint64_t unmatched_calls;   /* calls never answered (end of capture or evicted) */
	uint64_t unmatched_replies; /* replies with no call on the same connection */
	uint64_t retransmits;       /* calls repeating an outstanding (connection, XID) */
	uint64_t evicted;           /* outstanding calls dropped for the max_pending cap */
	uint64_t not_rpc;           /* records that are not RPC messages */
	uint64_t bad_calls;         /* RPC calls whose header could not be read */
	uint64_t bad_replies;
	uint64_t undecoded;          /* NFS bodies not decoded (truncated, GSS privacy, ...) */
	uint64_t cut_calls;          /* calls not captured whole (snaplen, lost bytes) */
	uint64_t cut_replies;        /* replies not captured whole */
	uint64_t cut_compounds;      /* NFSv4 COMPOUND calls cut before their main op was known */
	uint64_t names_dropped;      /* calls whose names were not kept (names memory cap) */
	uint64_t machines_untracked; /* AUTH_SYS machine names past the table's cap */
	uint64_t data_dropped;       /* WRITE payloads not kept (keep_data: the memory cap) */
};

typedef void (*rpc_txn_fn)(void *arg, const struct rpc_txn *t);

struct rpc_dec_cfg {
	uint32_t max_pending; /* outstanding calls kept (default 16384); the oldest is evicted */
	net_event_fn event;   /* told of retransmitted calls (optional) */
	void *event_arg;
	/* told of each new call when it is seen (optional; not its retransmissions): with the
	 * transaction handed out at its reply, a count of calls outstanding in time order */
	rpc_txn_fn call;
	void *call_arg;
	/* keep each WRITE's payload (nfs_call.data, as far as the record was kept: the stream
	 * layer's call_cap) with the outstanding call, in at most data_total bytes (64 MiB);
	 * otherwise nfs_call.data is NULL when the transaction is handed out */
	bool keep_data;
	uint64_t data_total;
};

struct rpc_dec;

int rpc_dec_new(struct rpc_dec **out, const struct rpc_dec_cfg *cfg, rpc_txn_fn fn, void *arg);
/* A record from the stream layer (signature of rpc_record_fn, arg = the decoder). */
void rpc_dec_record(void *dec, const struct rpc_record *r);
/* End of capture: every outstanding call is reported as unmatched. */
void rpc_dec_finish(struct rpc_dec *d);
const struct rpc_counters *rpc_dec_counters(const struct rpc_dec *d);
/* The time of the oldest call still waiting for its reply, UINT64_MAX when none waits: every
 * transaction still to come was called at or after it (or is a reply to no known call). */
uint64_t rpc_dec_oldest_call(const struct rpc_dec *d);
size_t rpc_dec_mem(const struct rpc_dec *d);
void rpc_dec_free(struct rpc_dec *d);

/* Names: "NFS", "MOUNT", "PORTMAP", "NFS_CB" or NULL; the procedure of a program/version. */
const char *rpc_prog_name(uint32_t prog);
const char *rpc_proc_name(enum rpc_kind kind, uint32_t vers, uint32_t proc);

#endif
