/* SPDX-License-Identifier: MIT */
/* TCP reassembly per connection with ONC RPC record marking (RFC 5531 section 11); UDP too. */
#ifndef IOTAPE_FORMATS_TCP_STREAM_H
#define IOTAPE_FORMATS_TCP_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/pcap_src.h"

/* One RPC message as found on a stream: the first head_len bytes of it, and its full length. */
struct rpc_record {
	const uint8_t *head;
	uint32_t head_len; /* bytes available at head (<= head cap) */
	uint64_t len;      /* message length (all fragments, without markers) */
	bool incomplete;   /* bytes inside the head range are missing (gap, snaplen) */
	uint64_t ts_ns;    /* time of the packet holding the last byte (as tshark's SRT) */
	uint64_t conn_id;  /* unique per connection in this capture */
	int dir;           /* 0: from the endpoint that sent the first packet, 1: the other */
	uint8_t proto;     /* 6 TCP, 17 UDP */
	const struct net_endpoint *src, *dst; /* the sender and the receiver */
};

/* Things that happened on a stream, with when and where, for the timestamped event lists. */
enum net_event_type {
	NET_EV_GAP,        /* stream bytes never seen: a hole given up on (bytes) */
	NET_EV_RETRANSMIT, /* an RPC call repeated while outstanding (xid) */
	NET_EV_TYPES
};

struct net_event {
	enum net_event_type type;
	uint64_t ts_ns;
	uint64_t conn_id;
	uint8_t proto;
	const struct net_endpoint *src, *dst; /* the sender of the bytes, the receiver */
	uint32_t xid;                         /* NET_EV_RETRANSMIT */
	uint64_t bytes;                       /* NET_EV_GAP */
};

typedef void (*net_event_fn)(void *arg, const struct net_event *ev);

struct tcp_cfg {
	uint32_t head_cap;   /* bytes of each record kept for the decoders (default 2048) */
	uint32_t max_record; /* larger records are implausible: resynchronise (16 MiB) */
	uint32_t ooo_cap;    /* out-of-order bytes held per direction (0: up to ooo_total) */
	uint64_t ooo_total;  /* out-of-order bytes held over all connections (8 MiB) */
	uint32_t max_conns;  /* connections tracked at once; least recently used evicted (2048) */
	/* the NFS replay's WRITE payloads: an RPC CALL record is kept up to call_cap bytes
	 * (0, or not above head_cap: head_cap like every record), in buffers of at most
	 * call_total bytes over all connections (64 MiB); past that a call keeps head_cap */
	uint32_t call_cap;
	uint64_t call_total;
	net_event_fn event; /* told of gaps (optional) */
	void *event_arg;
};

struct tcp_counters {
	uint64_t packets;      /* TCP and UDP packets seen */
	uint64_t records;      /* RPC records delivered */
	uint64_t lost_bytes;   /* stream bytes never seen: gaps, snaplen cuts, resync skips, of
	                        * directions that carried RPC */
	uint64_t retransmits;  /* segments carrying bytes already seen */
	uint64_t out_of_order; /* segments that arrived ahead of a gap */
	uint64_t ooo_peak;     /* the most bytes held for them at once (payload and bookkeeping) */
	uint64_t ooo_given_up; /* holes given up because there was no room to wait */
	uint64_t resyncs;      /* times record marking was lost and searched for again */
	uint64_t bad_records;  /* implausible record markers */
	uint64_t conns;        /* connections seen */
	uint64_t evicted;      /* connections dropped for the max_conns cap */
	/* TCP traffic of another protocol: directions that ended (or the capture did) without
	 * one RPC record, their bytes, and connections of which neither direction carried one */
	uint64_t non_rpc_bytes;
	uint64_t non_rpc_conns;
};

typedef void (*rpc_record_fn)(void *arg, const struct rpc_record *r);

struct tcp_table;

int tcp_table_new(struct tcp_table **out, const struct tcp_cfg *cfg, rpc_record_fn fn, void *arg);
/* Feed a decoded packet (TCP or UDP). */
void tcp_table_packet(struct tcp_table *t, const struct pkt *p);
/* End of capture: give up on gaps, deliver what can be delivered. */
void tcp_table_finish(struct tcp_table *t);
const struct tcp_counters *tcp_table_counters(const struct tcp_table *t);
/* Bytes currently held (heads, out-of-order queues, connection structs): for the memory tests. */
size_t tcp_table_mem(const struct tcp_table *t);
void tcp_table_free(struct tcp_table *t);

/* Is this a plausible start of an RPC record? Needs 24 bytes: marker, xid, message type and
 * the first words of the call (rpcvers 2, program, version) or reply (status, verifier). */
bool rpc_record_plausible(const uint8_t *p, size_t n, uint32_t max_record);

#endif
