/* SPDX-License-Identifier: MIT */
/* Hand-built XDR, RPC messages, record markers and packets for the NFS decoder tests. */
#ifndef IOTAPE_TESTS_NFS_BUILD_H
#define IOTAPE_TESTS_NFS_BUILD_H

#include <stdint.h>
#include <string.h>

#include "formats/pcap_src.h"

struct wb {
	uint8_t b[1 << 17];
	size_t n;
};

static inline void put32(struct wb *w, uint32_t v)
{
	w->b[w->n++] = (uint8_t)(v >> 24);
	w->b[w->n++] = (uint8_t)(v >> 16);
	w->b[w->n++] = (uint8_t)(v >> 8);
	w->b[w->n++] = (uint8_t)v;
}

static inline void put64(struct wb *w, uint64_t v)
{
	put32(w, (uint32_t)(v >> 32));
	put32(w, (uint32_t)v);
}

static inline void putbytes(struct wb *w, const void *p, size_t n)
{
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

/* opaque<>: length, bytes, zero padding */
static inline void putopaque(struct wb *w, const void *p, uint32_t n)
{
	put32(w, n);
	putbytes(w, p, n);
	while (w->n % 4)
		w->b[w->n++] = 0;
}

static inline void putzero(struct wb *w, size_t n)
{
	memset(w->b + w->n, 0, n);
	w->n += n;
}

enum { AUTHB_NONE, AUTHB_SYS, AUTHB_GSS_INTEG, AUTHB_GSS_PRIV };

/* RPC call header (RFC 5531 9): xid, CALL, 2, prog, vers, proc, cred, verf. */
static inline void rpc_call_hdr(struct wb *w, uint32_t xid, uint32_t prog, uint32_t vers,
                                uint32_t proc, int auth)
{
	put32(w, xid);
	put32(w, 0);
	put32(w, 2);
	put32(w, prog);
	put32(w, vers);
	put32(w, proc);
	if (auth == AUTHB_SYS) {
		struct wb c = {.n = 0};

		put32(&c, 12345);           /* stamp */
		putopaque(&c, "client", 6); /* machinename */
		put32(&c, 0);               /* uid */
		put32(&c, 0);               /* gid */
		put32(&c, 2);               /* gids */
		put32(&c, 1);
		put32(&c, 2);
		put32(w, 1);
		putopaque(w, c.b, (uint32_t)c.n);
		put32(w, 0);
		put32(w, 0);
	} else if (auth == AUTHB_GSS_INTEG || auth == AUTHB_GSS_PRIV) {
		struct wb c = {.n = 0};

		put32(&c, 1); /* version */
		put32(&c, 0); /* RPCSEC_GSS_DATA */
		put32(&c, 7); /* seq */
		put32(&c, auth == AUTHB_GSS_INTEG ? 2 : 3);
		putopaque(&c, "handle", 6);
		put32(w, 6);
		putopaque(w, c.b, (uint32_t)c.n);
		put32(w, 6);
		putopaque(w, "checksum", 8);
	} else {
		put32(w, 0);
		put32(w, 0);
		put32(w, 0);
		put32(w, 0);
	}
}

/* Accepted reply header: xid, REPLY, MSG_ACCEPTED, verf, accept_stat. */
static inline void rpc_reply_hdr(struct wb *w, uint32_t xid, uint32_t accept_stat)
{
	put32(w, xid);
	put32(w, 1);
	put32(w, 0);
	put32(w, 0);
	put32(w, 0);
	put32(w, accept_stat);
}

/* Frame a message with one record marker (last fragment). */
static inline void rm_frame(struct wb *out, const struct wb *msg)
{
	put32(out, 0x80000000u | (uint32_t)msg->n);
	putbytes(out, msg->b, msg->n);
}

/* A TCP packet between 10.0.0.1:port_c (client) and 10.0.0.2:2049. */
static inline struct pkt tcp_pkt(int from_server, uint16_t cport, uint32_t seq, const void *data,
                                 uint32_t caplen, uint32_t len, uint64_t ts, uint8_t flags)
{
	struct pkt p;

	memset(&p, 0, sizeof(p));
	p.ts_ns = ts;
	p.proto = 6;
	p.tcp_flags = flags;
	p.src =
	    (struct net_endpoint){{4, {10, 0, 0, from_server ? 2 : 1}}, from_server ? 2049 : cport};
	p.dst =
	    (struct net_endpoint){{4, {10, 0, 0, from_server ? 1 : 2}}, from_server ? cport : 2049};
	p.seq = seq;
	p.payload = data;
	p.caplen = caplen;
	p.len = len;
	return p;
}

#endif
