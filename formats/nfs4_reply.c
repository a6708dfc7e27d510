/* SPDX-License-Identifier: MIT */
/* NFSv4 COMPOUND4res op by op: the reply's status, sizes, handles and the main op's result. */
#include <errno.h>
#include <string.h>

#include "formats/nfs4_int.h"

/* fattr4 in a GETATTR reply: find FATTR4_SIZE (attribute 4). Attributes 0..4 come first in
 * bit order: supported_attrs (bitmap4), type, fh_expire_type, change (u64), size (u64). */
static void fattr4_size(struct cur *c, struct nfs_reply *r)
{
	uint32_t nw = xdr_u32(c), w0 = 0, i, len;
	const uint8_t *v;
	struct cur a;

	if (c->err || nw > 64 || (uint64_t)nw * 4 > cur_left(c)) {
		c->err = true;
		return;
	}
	for (i = 0; i < nw; i++) {
		uint32_t w = xdr_u32(c);

		if (i == 0)
			w0 = w;
	}
	v = xdr_opaque(c, UINT32_MAX, &len);
	if (!v || !(w0 & (1u << 4)))
		return;
	a = cur_make(v, len);
	if (w0 & 1)
		skip_bitmap(&a);
	if (w0 & 2)
		cur_skip(&a, 4);
	if (w0 & 4)
		cur_skip(&a, 4);
	if (w0 & 8)
		cur_skip(&a, 8);
	r->size = xdr_u64(&a);
	r->has_size = !a.err;
}

/* change_info4: atomic, before, after */
#define CINFO 20

static void skip_ace(struct cur *c)
{
	cur_skip(c, 12);
	xdr_skip_opaque(c, NAME_MAX4);
}

/* open_delegation4 (RFC 7530 16.16, RFC 8881 18.16) */
static void skip_delegation(struct cur *c)
{
	uint32_t t = xdr_u32(c), why;

	switch (t) {
	case 0: /* OPEN_DELEGATE_NONE */
		break;
	case 1: /* READ */
		cur_skip(c, STATEID + 4);
		skip_ace(c);
		break;
	case 2: /* WRITE: stateid, recall, nfs_space_limit4, ace */
		cur_skip(c, STATEID + 4);
		t = xdr_u32(c);
		cur_skip(c, 8); /* filesize, or num_blocks + bytes_per_block */
		(void)t;
		skip_ace(c);
		break;
	case 3: /* OPEN_DELEGATE_NONE_EXT */
		why = xdr_u32(c);
		if (why == 2 || why == 3) /* WND4_CONTENTION, WND4_RESOURCE */
			cur_skip(c, 4);
		break;
	default:
		c->err = true;
	}
}

/* The result of one op whose status was NFS4_OK; false when it cannot be skipped. GETFH's
 * handle goes to *fh. */
static bool op_res(struct cur *c, uint32_t op, struct nfs_reply *r, bool is_main,
                   const uint8_t **fh, uint32_t *fh_len)
{
	uint32_t n;

	switch (op) {
	case OP4_PUTFH:
	case OP4_PUTROOTFH:
	case OP4_PUTPUBFH:
	case OP4_SAVEFH:
	case OP4_RESTOREFH:
	case OP4_LOOKUP:
	case OP4_LOOKUPP:
	case OP4_DELEGRETURN:
	case OP4_FREE_STATEID:
	case OP4_RENEW:
	case OP4_SETCLIENTID_CONFIRM:
	case OP4_RELEASE_LOCKOWNER:
	case OP4_VERIFY:
	case OP4_NVERIFY:
	case OP4_RECLAIM_COMPLETE:
	case OP4_DESTROY_SESSION:
	case OP4_DESTROY_CLIENTID:
	case OP4_LOCKT:
	case OP4_ALLOCATE:
	case OP4_DEALLOCATE:
	case OP4_OFFLOAD_CANCEL:
	case OP4_CLONE:
	case 7: /* DELEGPURGE */
	case OP4_OPENATTR:
		break;
	case OP4_SEQUENCE:
		cur_skip(c, 16 + 20);
		break;
	case OP4_GETFH:
		*fh = xdr_opaque(c, NFS_FH_MAX, fh_len);
		break;
	case OP4_GETATTR:
		fattr4_size(c, r);
		break;
	case OP4_ACCESS:
		cur_skip(c, 8);
		break;
	case OP4_READ:
		r->eof = xdr_bool(c);
		n = xdr_u32(c);
		if (is_main)
			r->count = n;
		if (!c->err && !xdr_skip(c, n))
			return false;
		break;
	case OP4_WRITE:
		n = xdr_u32(c);
		if (is_main) {
			r->count = n;
			r->committed = xdr_u32(c);
		} else {
			cur_skip(c, 4);
		}
		cur_skip(c, 8);
		break;
	case OP4_COMMIT:
		cur_skip(c, 8);
		break;
	case OP4_CLOSE:
	case OP4_OPEN_CONFIRM:
	case OP4_OPEN_DOWNGRADE:
	case OP4_LOCK:
	case OP4_LOCKU:
		cur_skip(c, STATEID);
		break;
	case OP4_OPEN:
		cur_skip(c, STATEID + CINFO + 4);
		skip_bitmap(c);
		skip_delegation(c);
		break;
	case OP4_SETATTR:
		skip_bitmap(c);
		break;
	case OP4_CREATE:
		cur_skip(c, CINFO);
		skip_bitmap(c);
		break;
	case OP4_LINK:
	case OP4_REMOVE:
		cur_skip(c, CINFO);
		break;
	case OP4_RENAME:
		cur_skip(c, 2 * CINFO);
		break;
	case OP4_READLINK:
		xdr_skip_opaque(c, UINT32_MAX);
		break;
	case OP4_SETCLIENTID:
		cur_skip(c, 16);
		break;
	case OP4_CREATE_SESSION:
		cur_skip(c, 16 + 8);
		skip_channel_attrs(c);
		skip_channel_attrs(c);
		break;
	case OP4_BIND_CONN:
		cur_skip(c, 16 + 8);
		break;
	case OP4_TEST_STATEID:
		xdr_skip_array(c, 4, 1u << 20);
		break;
	case OP4_SEEK:
		cur_skip(c, 12);
		break;
	case OP4_COPY: /* write_response4, copy_requirements4 */
		n = xdr_u32(c);
		if (n == 1) {
			const uint8_t *s = cur_bytes(c, STATEID);

			if (s && is_main) {
				memcpy(r->copy_stateid, s, STATEID);
				r->copy_async = true;
			}
		} else if (n != 0) {
			c->err = true;
		}
		if (is_main) {
			r->count = xdr_u64(c);
			r->committed = xdr_u32(c);
		} else {
			cur_skip(c, 12);
		}
		cur_skip(c, 8 + 8);
		break;
	case OP4_OFFLOAD_STATUS:
		if (is_main)
			r->count = xdr_u64(c);
		else
			cur_skip(c, 8);
		xdr_skip_array(c, 4, 1);
		break;
	case OP4_COPY_NOTIFY:
		cur_skip(c, 12 + STATEID);
		n = xdr_u32(c);
		if (n > cur_left(c) / 4)
			c->err = true;
		while (n-- > 0 && !c->err)
			skip_netloc(c);
		break;
	case OP4_READ_PLUS: {
		uint64_t total = 0;

		r->eof = xdr_bool(c);
		n = xdr_u32(c); /* read_plus_content4<> */
		while (n-- > 0 && !c->err) {
			uint32_t t = xdr_u32(c), len;

			cur_skip(c, 8); /* offset */
			if (t == 0) {   /* NFS4_CONTENT_DATA */
				len = xdr_u32(c);
				total += len;
				if (!c->err && !xdr_skip(c, len))
					break;
			} else if (t == 1) { /* NFS4_CONTENT_HOLE */
				total += xdr_u64(c);
			} else {
				c->err = true;
			}
		}
		if (is_main)
			r->count = total;
		return false; /* contents usually run past the kept head */
	}
	default:
		return false;
	}
	return !c->err;
}

/*
 * Walk COMPOUND4res: status, tag, then each op's number, status and result, stopping at the
 * first failed op (the COMPOUND stops there) or at a result that cannot be stepped over.
 * Fills r (call may be NULL: no main op) and hands GETFH handles to fn. Returns the number of
 * leading ops that succeeded and whose results were read, or -EPROTO.
 */
static int walk_res(struct cur *c, const struct nfs_call *call, struct nfs_reply *r, nfs_fh_fn fn,
                    void *arg)
{
	uint32_t n, i;

	r->status = xdr_u32(c);
	if (c->err)
		return -EPROTO;
	r->has_status = true;
	xdr_skip_opaque(c, NAME_MAX4);
	n = xdr_u32(c);
	if (c->err)
		return -EPROTO;
	r->decoded = true;
	for (i = 0; i < n && i < OPS_LIMIT; i++) {
		uint32_t op = xdr_u32(c), st = xdr_u32(c), fl = 0;
		bool is_main = call && i == call->main_idx && op == call->op;
		const uint8_t *fh = NULL;

		if (c->err)
			break;
		if (r->nops < NFS_OPS_MAX)
			r->ops[r->nops] = (uint16_t)(op > 0xffff ? 0xffff : op);
		r->nops++;
		if (is_main)
			r->op_status = st;
		if (st != 0) {
			r->failed = true;
			r->fail_idx = (uint16_t)(i > 0xffff ? 0xffff : i);
			r->fail_op = op;
			r->fail_status = st;
			break; /* the COMPOUND stopped here */
		}
		if (!op_res(c, op, r, is_main, &fh, &fl))
			return (int)i + 1;
		if (fh && fl && fn)
			fn(arg, i, NULL, 0, fh, fl);
	}
	r->ops_all = i == n && !c->err;
	return (int)i;
}

int nfs4_reply(struct cur *c, const struct nfs_call *call, struct nfs_reply *r)
{
	int ret = walk_res(c, call, r, NULL, NULL);

	return ret < 0 ? ret : 0;
}

int nfs4_reply_fhs(struct cur *c, nfs_fh_fn fn, void *arg)
{
	struct nfs_reply r;

	memset(&r, 0, sizeof(r));
	return walk_res(c, NULL, &r, fn, arg);
}
