/* SPDX-License-Identifier: MIT */
/* A replay's calls as NFSv3 RPC messages in a pcap (formats/nfs_rec.h): XDR, TCP, pcap. */
#include "formats/nfs_rec.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STREAMS 256
#define MSG_MAX 8192
#define PORT0 700

struct nfs_rec {
	FILE *f;
	char *path;
	uint32_t xid;
	struct {
		uint32_t cseq, sseq; /* next sequence numbers, client and server side */
		uint8_t open;
	} s[MAX_STREAMS];
};

/* ---- XDR into a buffer ---- */

struct xb {
	uint8_t b[MSG_MAX];
	size_t n;
	int err;
};

static void x32(struct xb *x, uint32_t v)
{
	if (x->n + 4 > sizeof(x->b)) {
		x->err = 1;
		return;
	}
	x->b[x->n++] = (uint8_t)(v >> 24);
	x->b[x->n++] = (uint8_t)(v >> 16);
	x->b[x->n++] = (uint8_t)(v >> 8);
	x->b[x->n++] = (uint8_t)v;
}

static void x64(struct xb *x, uint64_t v)
{
	x32(x, (uint32_t)(v >> 32));
	x32(x, (uint32_t)v);
}

static void xopaque(struct xb *x, const void *p, size_t n)
{
	if (n > 4096 || x->n + 4 + n + 3 > sizeof(x->b)) {
		x->err = 1;
		return;
	}
	x32(x, (uint32_t)n);
	memcpy(x->b + x->n, p, n);
	x->n += n;
	while (x->n % 4)
		x->b[x->n++] = 0;
}

static void xfh(struct xb *x, uint64_t fh)
{
	uint8_t b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(fh >> (56 - 8 * i));
	xopaque(x, b, 8);
}

static void xstr(struct xb *x, const char *s)
{
	xopaque(x, s ? s : "", s ? strlen(s) : 0);
}

static void xzero(struct xb *x, unsigned words)
{
	while (words--)
		x32(x, 0);
}

uint64_t nfs_rec_fh(const char *path, size_t len)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)path[i]) * 1099511628211ull;
	return h ^ h >> 29;
}

/* sattr3: the mode when has_mode, nothing else */
static void xsattr(struct xb *x, const struct nfs_rec_call *c)
{
	x32(x, c->has_mode);
	if (c->has_mode)
		x32(x, c->mode);
	xzero(x, 5);
}

/* RFC 1813 3.3: the arguments of each procedure */
static void args(struct xb *x, const struct nfs_rec_call *c)
{
	switch (c->proc) {
	case 3:  /* LOOKUP */
	case 12: /* REMOVE */
	case 13: /* RMDIR */
		xfh(x, c->dir_fh);
		xstr(x, c->name);
		break;
	case 8: /* CREATE: UNCHECKED, sattr3 */
		xfh(x, c->dir_fh);
		xstr(x, c->name);
		x32(x, 0);
		xsattr(x, c);
		break;
	case 9: /* MKDIR */
		xfh(x, c->dir_fh);
		xstr(x, c->name);
		xsattr(x, c);
		break;
	case 10: /* SYMLINK */
		xfh(x, c->dir_fh);
		xstr(x, c->name);
		xzero(x, 6);
		xstr(x, c->data);
		break;
	case 11: /* MKNOD: a FIFO */
		xfh(x, c->dir_fh);
		xstr(x, c->name);
		x32(x, 7);
		xzero(x, 6);
		break;
	case 14: /* RENAME */
		xfh(x, c->dir_fh);
		xstr(x, c->name);
		xfh(x, c->to_dir_fh);
		xstr(x, c->to_name);
		break;
	case 15: /* LINK */
		xfh(x, c->fh);
		xfh(x, c->to_dir_fh);
		xstr(x, c->to_name);
		break;
	case 4: /* ACCESS */
		xfh(x, c->fh);
		x32(x, 0x3f);
		break;
	case 6:  /* READ */
	case 21: /* COMMIT */
		xfh(x, c->fh);
		x64(x, c->offset);
		x32(x, (uint32_t)c->count);
		break;
	case 7: /* WRITE: the count, no data (or the tests' wdata) */
		xfh(x, c->fh);
		x64(x, c->offset);
		x32(x, (uint32_t)c->count);
		x32(x, c->stable);
		if (c->wdata)
			xopaque(x, c->wdata, (size_t)c->count);
		else
			x32(x, 0);
		break;
	case 2: /* SETATTR: sattr3 and guard */
		xfh(x, c->fh);
		xsattr(x, c);
		x32(x, 0);
		break;
	case 16: /* READDIR */
		xfh(x, c->fh);
		xzero(x, 4);
		x32(x, 32768);
		break;
	case 17: /* READDIRPLUS */
		xfh(x, c->fh);
		xzero(x, 4);
		x32(x, 32768);
		x32(x, 32768);
		break;
	default: /* GETATTR, READLINK, FSSTAT, FSINFO, PATHCONF */
		xfh(x, c->fh);
		break;
	}
}

/* fattr3 (84 bytes): a regular file of the given size */
static void fattr3(struct xb *x, uint64_t size)
{
	x32(x, 1);
	x32(x, 0644);
	x32(x, 1);
	xzero(x, 2);
	x64(x, size);
	x64(x, size);
	xzero(x, 2);
	x64(x, 1);
	x64(x, 0);
	xzero(x, 6);
}

static void results(struct xb *x, const struct nfs_rec_call *c)
{
	x32(x, c->status);
	switch (c->proc) {
	case 1: /* GETATTR */
		if (!c->status)
			fattr3(x, c->size);
		break;
	case 3: /* LOOKUP */
		if (!c->status)
			xfh(x, c->fh);
		xzero(x, c->status ? 1 : 2);
		break;
	case 6: /* READ */
		x32(x, 0);
		if (!c->status) {
			x32(x, (uint32_t)c->done);
			x32(x, c->done < c->count);
			x32(x, 0); /* the data is not recorded */
		}
		break;
	case 7: /* WRITE */
		xzero(x, 2);
		if (!c->status) {
			x32(x, (uint32_t)c->done);
			x32(x, c->stable);
			x64(x, 0);
		}
		break;
	case 8:
	case 9:
	case 10:
	case 11: /* CREATE, MKDIR, SYMLINK, MKNOD: post_op_fh3, attributes, wcc_data */
		if (!c->status) {
			x32(x, 1);
			xfh(x, c->fh);
			x32(x, 0);
		}
		xzero(x, 2);
		break;
	case 14: /* RENAME: two wcc_data */
		xzero(x, 4);
		break;
	case 15: /* LINK: post_op_attr, wcc_data */
		xzero(x, 3);
		break;
	case 16: /* READDIR(PLUS): post_op_attr, cookieverf, an empty list, eof */
	case 17:
		x32(x, 0);
		if (!c->status) {
			xzero(x, 3);
			x32(x, 1);
		}
		break;
	case 4: /* ACCESS */
		x32(x, 0);
		if (!c->status)
			x32(x, 0x3f);
		break;
	default: /* a post_op_attr or wcc_data with nothing in it, then what a status needs */
		xzero(x, 2);
		break;
	}
}

/* ---- TCP/IPv4/Ethernet frames and pcap records ---- */

static uint16_t csum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static void be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void be32(uint8_t *p, uint32_t v)
{
	be16(p, (uint16_t)(v >> 16));
	be16(p + 2, (uint16_t)v);
}

static int frame(struct nfs_rec *r, unsigned st, bool from_client, uint8_t flags, const void *pl,
                 size_t len, uint64_t ts)
{
	uint8_t h[54];
	uint32_t *seq = from_client ? &r->s[st].cseq : &r->s[st].sseq;
	uint32_t *ack = from_client ? &r->s[st].sseq : &r->s[st].cseq;
	uint16_t cport = (uint16_t)(PORT0 + st);
	uint32_t rec[4] = {(uint32_t)(ts / 1000000000ull), (uint32_t)(ts % 1000000000ull),
	                   (uint32_t)(54 + len), (uint32_t)(54 + len)};

	memset(h, 0, sizeof(h));
	memcpy(h, from_client ? "\2\0\0\0\0\2\2\0\0\0\0\1" : "\2\0\0\0\0\1\2\0\0\0\0\2", 12);
	be16(h + 12, 0x0800);
	h[14] = 0x45;
	be16(h + 16, (uint16_t)(40 + len));
	be16(h + 18, 1);
	be16(h + 20, 0x4000);
	h[22] = 64;
	h[23] = 6;
	memcpy(h + 26, from_client ? "\x7f\0\0\1\x7f\0\0\2" : "\x7f\0\0\2\x7f\0\0\1", 8);
	be16(h + 24, csum(h + 14, 20));
	be16(h + 34, from_client ? cport : 2049);
	be16(h + 36, from_client ? 2049 : cport);
	be32(h + 38, *seq);
	be32(h + 42, *ack);
	h[46] = 0x50;
	h[47] = flags;
	be16(h + 48, 65535);
	*seq += (uint32_t)len + ((flags & 0x03) ? 1 : 0);
	if (fwrite(rec, sizeof(rec), 1, r->f) != 1 || fwrite(h, sizeof(h), 1, r->f) != 1 ||
	    (len && fwrite(pl, len, 1, r->f) != 1))
		return -EIO;
	return 0;
}

int nfs_rec_open(struct nfs_rec **out, const char *path, struct iot_err *e)
{
	struct nfs_rec *r = calloc(1, sizeof(*r));
	/* pcap, nanosecond timestamps, version 2.4, snaplen 262144, Ethernet */
	const uint32_t hdr[6] = {0xa1b23c4d, 2 | 4u << 16, 0, 0, 262144, 1};

	*out = NULL;
	if (!r || !(r->path = strdup(path))) {
		free(r);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	r->f = fopen(path, "wbx");
	if (!r->f) {
		int err = -errno;

		free(r->path);
		free(r);
		return iot_err_set(e, err, "'%s': %s", path, strerror(-err));
	}
	r->xid = 1;
	if (fwrite(hdr, sizeof(hdr), 1, r->f) != 1) {
		nfs_rec_close(r, NULL);
		return iot_err_set(e, -EIO, "'%s': cannot write", path);
	}
	*out = r;
	return 0;
}

int nfs_rec_write(struct nfs_rec *r, const struct nfs_rec_call *c, struct iot_err *e)
{
	struct xb call = {.n = 4}, rep = {.n = 4};
	unsigned st = c->stream % MAX_STREAMS;
	uint32_t xid = r->xid++;
	int ret = 0;

	if (!r->s[st].open) {
		/* the connection's handshake, just before its first call */
		r->s[st].open = 1;
		r->s[st].cseq = 1000 + st;
		r->s[st].sseq = 5000 + st;
		ret = frame(r, st, true, 0x02, NULL, 0, c->call_ns);
		if (!ret)
			ret = frame(r, st, false, 0x12, NULL, 0, c->call_ns);
	}
	/* RFC 5531: xid, CALL, rpcvers 2, NFS 100003 v3, proc, AUTH_NONE cred and verifier */
	x32(&call, xid);
	x32(&call, 0);
	x32(&call, 2);
	x32(&call, 100003);
	x32(&call, 3);
	x32(&call, c->proc);
	xzero(&call, 4);
	args(&call, c);
	/* xid, REPLY, MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS */
	x32(&rep, xid);
	x32(&rep, 1);
	xzero(&rep, 4);
	results(&rep, c);
	if (call.err || rep.err)
		return iot_err_set(e, -EINVAL, "'%s': a call too large to record", r->path);
	be32(call.b, 0x80000000u | (uint32_t)(call.n - 4)); /* record marks: one fragment */
	be32(rep.b, 0x80000000u | (uint32_t)(rep.n - 4));
	if (!ret)
		ret = frame(r, st, true, 0x18, call.b, call.n, c->call_ns);
	if (!ret)
		ret = frame(r, st, false, 0x18, rep.b, rep.n,
		            c->reply_ns > c->call_ns ? c->reply_ns : c->call_ns);
	return ret ? iot_err_set(e, ret, "'%s': cannot write", r->path) : 0;
}

int nfs_rec_close(struct nfs_rec *r, struct iot_err *e)
{
	int ret = 0;

	if (!r)
		return 0;
	if (fclose(r->f))
		ret = -errno;
	if (ret && e)
		iot_err_set(e, ret, "'%s': %s", r->path, strerror(-ret));
	free(r->path);
	free(r);
	return ret;
}
