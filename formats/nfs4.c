/* SPDX-License-Identifier: MIT */
/* NFSv4.0/4.1/4.2 COMPOUND (RFC 7530, 8881, 7862) op by op, and CB_COMPOUND for CB_OFFLOAD:
 * the calls' arguments and the main-op rule (the replies in nfs4_reply.c). */
#include <errno.h>
#include <string.h>

#include "formats/nfs4_int.h"

/*
 * Op classes for the main-op rule: 0 bookkeeping (SEQUENCE, PUTFH, PUTROOTFH, PUTPUBFH,
 * SAVEFH, RESTOREFH, GETFH), 1 checks (GETATTR, ACCESS, VERIFY, NVERIFY), 2 name lookups
 * (LOOKUP, LOOKUPP, SECINFO, SECINFO_NO_NAME, OPENATTR), 4 data movement (READ, WRITE,
 * COMMIT, READ_PLUS, COPY, CLONE, ALLOCATE, DEALLOCATE, COPY_NOTIFY, OFFLOAD_STATUS,
 * OFFLOAD_CANCEL, SEEK, IO_ADVISE, LAYOUTGET/COMMIT/RETURN), 3 the rest (OPEN, CLOSE,
 * CREATE, REMOVE, RENAME, LINK, SETATTR, READDIR, LOCK, EXCHANGE_ID, ...).
 */
int nfs4_op_class(uint32_t op)
{
	switch (op) {
	case OP4_SEQUENCE:
	case OP4_PUTFH:
	case OP4_PUTROOTFH:
	case OP4_PUTPUBFH:
	case OP4_SAVEFH:
	case OP4_RESTOREFH:
	case OP4_GETFH:
		return 0;
	case OP4_GETATTR:
	case OP4_ACCESS:
	case OP4_VERIFY:
	case OP4_NVERIFY:
		return 1;
	case OP4_LOOKUP:
	case OP4_LOOKUPP:
	case OP4_SECINFO:
	case OP4_SECINFO_NO_NAME:
	case OP4_OPENATTR:
		return 2;
	case OP4_READ:
	case OP4_WRITE:
	case OP4_COMMIT:
	case OP4_READ_PLUS:
	case OP4_COPY:
	case OP4_CLONE:
	case OP4_ALLOCATE:
	case OP4_DEALLOCATE:
	case OP4_COPY_NOTIFY:
	case OP4_OFFLOAD_STATUS:
	case OP4_OFFLOAD_CANCEL:
	case OP4_SEEK:
	case OP4_IO_ADVISE:
	case 49: /* LAYOUTCOMMIT */
	case 50: /* LAYOUTGET */
	case 51: /* LAYOUTRETURN */
		return 4;
	default:
		return 3;
	}
}

/* Does op at class cls replace the main op chosen so far (class best, -1 for none)? */
static bool takes_main(int cls, int best)
{
	return cls > best || (cls == 0 && best == 0);
}

int nfs4_main_op(const uint16_t *ops, unsigned n)
{
	unsigned i;
	int best = -1, idx = -1;

	for (i = 0; i < n; i++) {
		int cls = nfs4_op_class(ops[i]);

		if (takes_main(cls, best)) {
			best = cls;
			idx = (int)i;
		}
	}
	return idx;
}

/* --- XDR pieces of the arguments (those the replies share: nfs4_int.h) --- */

/* fattr4: bitmap4 attrmask; opaque attr_vals<> */
static void skip_fattr4(struct cur *c)
{
	skip_bitmap(c);
	xdr_skip_opaque(c, UINT32_MAX);
}

/* settime4 (RFC 7530 3.3.1): SET_TO_SERVER_TIME4 (0), or SET_TO_CLIENT_TIME4 (1) and an
 * nfstime4 (int64 seconds, uint32 nanoseconds); the NFS_SET_* bit it stands for, 0 if bad */
static unsigned settime4(struct cur *a, unsigned now, unsigned set, int64_t *s, uint32_t *ns)
{
	uint32_t how = xdr_u32(a);

	if (how == 0)
		return a->err ? 0 : now;
	if (how != 1) {
		a->err = true;
		return 0;
	}
	*s = (int64_t)xdr_u64(a);
	*ns = xdr_u32(a);
	return a->err ? 0 : set;
}

/* owner, owner_group (utf8str_mixed): a number ("1000") is an id; a name ("u@domain") is not
 * mapped here (named) */
static bool owner_id(struct cur *a, uint32_t *id, bool *named)
{
	uint32_t n;
	const uint8_t *p = xdr_opaque(a, NAME_MAX4, &n);
	uint64_t v = 0;

	if (!p)
		return false;
	for (uint32_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9' || (v = v * 10 + (p[i] - '0')) > UINT32_MAX) {
			*named = true;
			return false;
		}
	}
	if (!n) {
		*named = true;
		return false;
	}
	*id = (uint32_t)v;
	return true;
}

/*
 * fattr4 in a call (SETATTR, OPEN's createattrs, CREATE): the size (attribute 4), mode (33),
 * owner (36), owner_group (37), time_access_set (48) and time_modify_set (54) it sets. The
 * values come in bit order (RFC 7530 3.3); the other settable attributes before the last of
 * those (acl 12, archive 14, hidden 25, mimetype 32, system 46, time_backup 49, time_create
 * 50) are stepped over; at any other bit the walk stops (its size is not known).
 */
static void fattr4_set(struct cur *c, struct nfs_call *o)
{
	uint32_t nw = xdr_u32(c), w[2] = {0, 0}, len, n;
	const uint8_t *v;
	unsigned set = 0;
	struct cur a;

	if (c->err || nw > 64 || (uint64_t)nw * 4 > cur_left(c)) {
		c->err = true;
		return;
	}
	for (uint32_t i = 0; i < nw; i++) {
		uint32_t x = xdr_u32(c);

		if (i < 2)
			w[i] = x;
	}
	v = xdr_opaque(c, UINT32_MAX, &len);
	if (!v)
		return;
	a = cur_make(v, len);
	for (unsigned b = 0; b < 64 && !a.err; b++) {
		if (!(w[b / 32] & (1u << (b % 32))))
			continue;
		switch (b) {
		case 4:
			o->set_size = xdr_u64(&a);
			set |= NFS_SET_SIZE;
			break;
		case 12: /* acl: nfsace4<>: type, flag, access_mask, who */
			n = xdr_u32(&a);
			if (n > cur_left(&a) / 16)
				a.err = true;
			while (n-- && !a.err) {
				cur_skip(&a, 12);
				xdr_skip_opaque(&a, NAME_MAX4);
			}
			break;
		case 14: /* archive, hidden, system: bool */
		case 25:
		case 46:
			cur_skip(&a, 4);
			break;
		case 32: /* mimetype */
			xdr_skip_opaque(&a, NAME_MAX4);
			break;
		case 33:
			o->set_mode = xdr_u32(&a) & 07777;
			set |= NFS_SET_MODE;
			break;
		case 36:
			if (owner_id(&a, &o->set_uid, &o->owner_named))
				set |= NFS_SET_UID;
			break;
		case 37:
			if (owner_id(&a, &o->set_gid, &o->owner_named))
				set |= NFS_SET_GID;
			break;
		case 48:
			set |= settime4(&a, NFS_SET_ATIME_NOW, NFS_SET_ATIME, &o->set_atime_s,
			                &o->set_atime_ns);
			break;
		case 49: /* time_backup, time_create: nfstime4 */
		case 50:
			cur_skip(&a, 12);
			break;
		case 54:
			set |= settime4(&a, NFS_SET_MTIME_NOW, NFS_SET_MTIME, &o->set_mtime_s,
			                &o->set_mtime_ns);
			break;
		default:
			a.err = true; /* not settable, or of a size not known here */
			break;
		}
		if (a.err) /* the value that failed is not set */
			set &= ~(b == 4    ? (unsigned)NFS_SET_SIZE
			         : b == 33 ? (unsigned)NFS_SET_MODE
			                   : 0u);
	}
	o->set |= (uint8_t)set;
}

/* state_owner4 / lock_owner4 / open_owner4: clientid, opaque owner<NFS4_OPAQUE_LIMIT> */
static void skip_owner(struct cur *c)
{
	cur_skip(c, 8);
	xdr_skip_opaque(c, 1024);
}

/* callback_sec_parms4: AUTH_NONE 0, AUTH_SYS 1 (authsys_parms), RPCSEC_GSS 6 */
static void skip_cb_sec(struct cur *c)
{
	uint32_t n = xdr_u32(c), i;

	for (i = 0; i < n && !c->err; i++) {
		uint32_t flavor = xdr_u32(c);

		if (flavor == 1) {
			cur_skip(c, 4);
			xdr_skip_opaque(c, 255);
			cur_skip(c, 8);
			xdr_skip_array(c, 4, 16);
		} else if (flavor == 6) {
			cur_skip(c, 4);
			xdr_skip_opaque(c, NAME_MAX4);
			xdr_skip_opaque(c, NAME_MAX4);
		} else if (flavor != 0) {
			c->err = true;
		}
	}
}

static void take_fh(struct cur *c, uint8_t *fh, uint8_t *fh_len)
{
	uint32_t n;
	const uint8_t *p = xdr_opaque(c, NFS_FH_MAX, &n);

	if (p) {
		memcpy(fh, p, n);
		*fh_len = (uint8_t)n;
	}
}

/* --- COMPOUND4args --- */

static void set_io(struct nfs_call *o, uint64_t off, uint64_t cnt)
{
	o->offset = off;
	o->count = cnt;
	o->has_io = true;
}

/* The names an op's arguments carry (component4, RFC 7530 4.2). */
struct op_names {
	const uint8_t *a, *b;
	uint32_t alen, blen;
	bool follow; /* an OPEN claim by name */
};

/* Read one op's arguments; false when the op cannot be skipped (unknown, or bad bytes). */
static bool op_args(struct cur *c, uint32_t op, struct nfs_call *o, uint8_t *fh, uint8_t *fh_len,
                    bool is_main, struct op_names *nm)
{
	uint32_t t;
	uint64_t off, cnt;

	switch (op) {
	case OP4_ACCESS:
	case OP4_OPENATTR:
	case OP4_SECINFO_NO_NAME:
	case OP4_RECLAIM_COMPLETE:
		cur_skip(c, 4);
		break;
	case OP4_CLOSE: /* seqid, stateid */
	case OP4_OPEN_CONFIRM:
		cur_skip(c, 4 + STATEID);
		break;
	case OP4_OPEN_DOWNGRADE:
		cur_skip(c, STATEID + 12);
		break;
	case OP4_COMMIT:
		off = xdr_u64(c);
		cnt = xdr_u32(c);
		if (is_main)
			set_io(o, off, cnt);
		break;
	case OP4_CREATE:
		t = xdr_u32(c);
		o->ftype = t >= 1 && t <= 7 ? (uint8_t)t : 0;
		if (t == 5) { /* NF4LNK */
			nm->b = xdr_opaque(c, 4096, &nm->blen);
		} else if (t == 3 || t == 4) { /* NF4BLK, NF4CHR: specdata4 */
			o->spec1 = xdr_u32(c);
			o->spec2 = xdr_u32(c);
		}
		nm->a = xdr_opaque(c, NAME_MAX4, &nm->alen);
		fattr4_set(c, o);
		break;
	case 7: /* DELEGPURGE */
	case OP4_RENEW:
	case OP4_DESTROY_CLIENTID:
		cur_skip(c, 8);
		break;
	case OP4_DELEGRETURN:
	case OP4_FREE_STATEID:
	case OP4_OFFLOAD_CANCEL:
	case OP4_OFFLOAD_STATUS:
		cur_skip(c, STATEID);
		break;
	case OP4_GETATTR:
		skip_bitmap(c);
		break;
	case OP4_GETFH:
	case OP4_LOOKUPP:
	case OP4_READLINK:
	case OP4_RESTOREFH:
	case OP4_SAVEFH:
	case OP4_PUTPUBFH:
	case OP4_PUTROOTFH:
		if (op == OP4_PUTROOTFH || op == OP4_PUTPUBFH)
			*fh_len = 0;
		break;
	case OP4_LINK:
	case OP4_LOOKUP:
	case OP4_REMOVE:
	case OP4_SECINFO:
		nm->a = xdr_opaque(c, NAME_MAX4, &nm->alen);
		break;
	case OP4_LOCK:
		cur_skip(c, 4 + 4 + 16);
		if (xdr_bool(c)) { /* open_to_lock_owner4 */
			cur_skip(c, 4 + STATEID + 4);
			skip_owner(c);
		} else {
			cur_skip(c, STATEID + 4);
		}
		break;
	case OP4_LOCKT:
		cur_skip(c, 4 + 16);
		skip_owner(c);
		break;
	case OP4_LOCKU:
		cur_skip(c, 8 + STATEID + 16);
		break;
	case OP4_NVERIFY:
	case OP4_VERIFY:
		skip_fattr4(c);
		break;
	case OP4_OPEN:
		cur_skip(c, 12); /* seqid, share_access, share_deny */
		skip_owner(c);
		if (xdr_u32(c) == 1) { /* OPEN4_CREATE: createhow4 */
			t = xdr_u32(c);
			o->creates = true;
			o->ftype = NFS_FT_REG;
			o->exclusive = t != 0;
			if (t == 0 || t == 1) { /* UNCHECKED4, GUARDED4 */
				fattr4_set(c, o);
			} else if (t == 2) { /* EXCLUSIVE4 */
				cur_skip(c, 8);
			} else if (t == 3) { /* EXCLUSIVE4_1 */
				cur_skip(c, 8);
				fattr4_set(c, o);
			} else {
				c->err = true;
			}
		}
		t = xdr_u32(c); /* open_claim4: NULL, DELEGATE_PREV and DELEGATE_CUR name a file */
		if (t == 0 || t == 3) {
			nm->a = xdr_opaque(c, NAME_MAX4, &nm->alen);
			nm->follow = true;
		} else if (t == 1) {
			cur_skip(c, 4);
		} else if (t == 2) {
			cur_skip(c, STATEID);
			nm->a = xdr_opaque(c, NAME_MAX4, &nm->alen);
			nm->follow = true;
		} else if (t == 5)
			cur_skip(c, STATEID);
		else if (t != 4 && t != 6)
			c->err = true;
		break;
	case OP4_PUTFH:
		take_fh(c, fh, fh_len);
		break;
	case OP4_READ:
	case OP4_READ_PLUS:
		cur_skip(c, STATEID);
		off = xdr_u64(c);
		cnt = xdr_u32(c);
		if (is_main)
			set_io(o, off, cnt);
		break;
	case OP4_READDIR:
		cur_skip(c, 8 + 8 + 8);
		skip_bitmap(c);
		break;
	case OP4_RENAME:
		nm->a = xdr_opaque(c, NAME_MAX4, &nm->alen);
		nm->b = xdr_opaque(c, NAME_MAX4, &nm->blen);
		break;
	case OP4_SETATTR:
		cur_skip(c, STATEID);
		fattr4_set(c, o);
		break;
	case OP4_SETCLIENTID:
		cur_skip(c, 8);
		xdr_skip_opaque(c, 1024);
		o->cb_program = xdr_u32(c);
		skip_netaddr(c);
		cur_skip(c, 4);
		break;
	case OP4_SETCLIENTID_CONFIRM:
		cur_skip(c, 16);
		break;
	case OP4_WRITE: {
		uint32_t n;

		cur_skip(c, STATEID);
		off = xdr_u64(c);
		t = xdr_u32(c);
		n = xdr_u32(c);
		if (is_main) {
			set_io(o, off, n);
			o->stable = t;
		}
		/* the data: usually beyond the kept head of the record, which ends the walk
		 * after this op (the cursor error) but not the op itself; what there is of it
		 * is the payload (the replay keeps whole calls) */
		if (!c->err) {
			if (is_main) {
				size_t left = cur_left(c);

				o->data = c->pos;
				o->data_len = n < left ? n : (uint32_t)left;
			}
			xdr_skip(c, n);
		}
		return true;
	}
	case OP4_RELEASE_LOCKOWNER:
		skip_owner(c);
		break;
	case OP4_BIND_CONN:
		cur_skip(c, 16 + 8);
		break;
	case OP4_EXCHANGE_ID:
		cur_skip(c, 8);
		xdr_skip_opaque(c, 1024);
		cur_skip(c, 4);
		t = xdr_u32(c); /* state_protect4_a */
		if (t == 1) {
			skip_bitmap(c);
			skip_bitmap(c);
		} else if (t != 0) {
			return false;
		}
		if (xdr_u32(c) == 1) { /* client_impl_id<1> */
			xdr_skip_opaque(c, NAME_MAX4);
			xdr_skip_opaque(c, NAME_MAX4);
			cur_skip(c, 12);
		}
		break;
	case OP4_CREATE_SESSION:
		cur_skip(c, 16);
		skip_channel_attrs(c);
		skip_channel_attrs(c);
		o->cb_program = xdr_u32(c);
		skip_cb_sec(c);
		break;
	case OP4_DESTROY_SESSION:
		cur_skip(c, 16);
		break;
	case OP4_SEQUENCE:
		cur_skip(c, 16 + 16);
		break;
	case OP4_TEST_STATEID:
		xdr_skip_array(c, STATEID, 1u << 20);
		break;
	case OP4_ALLOCATE:
	case OP4_DEALLOCATE:
		cur_skip(c, STATEID);
		off = xdr_u64(c);
		cnt = xdr_u64(c);
		if (is_main)
			set_io(o, off, cnt);
		break;
	case OP4_COPY:
		cur_skip(c, 2 * STATEID);
		off = xdr_u64(c); /* source offset */
		cur_skip(c, 8);
		cnt = xdr_u64(c);
		cur_skip(c, 4); /* consecutive */
		if (xdr_bool(c) && is_main)
			o->copy_sync = true;
		if (is_main)
			set_io(o, off, cnt);
		t = xdr_u32(c); /* ca_source_server<> */
		if (t > cur_left(c) / 4)
			c->err = true;
		while (t-- > 0 && !c->err)
			skip_netloc(c);
		break;
	case OP4_COPY_NOTIFY:
		cur_skip(c, STATEID);
		skip_netloc(c);
		break;
	case OP4_IO_ADVISE:
		cur_skip(c, STATEID + 16);
		skip_bitmap(c);
		break;
	case OP4_SEEK:
		cur_skip(c, STATEID + 12);
		break;
	case OP4_CLONE:
		cur_skip(c, 2 * STATEID);
		off = xdr_u64(c);
		cur_skip(c, 8);
		cnt = xdr_u64(c);
		if (is_main)
			set_io(o, off, cnt);
		break;
	default:
		return false;
	}
	return !c->err;
}

static bool name_ok(const uint8_t *p, uint32_t n)
{
	return p && n && n <= NFS_NAME_MAX;
}

/* The name record an op amounts to, once its arguments were read (enum nfs_nameop). */
static void op_name_record(struct nfs_call *o, unsigned i, uint32_t op, const uint8_t *fh,
                           unsigned fh_len, const struct op_names *nm)
{
	enum nfs_nameop k;

	switch (op) {
	case OP4_PUTFH:
		nfs_names_put(o, NN_FH, i, fh, fh_len, NULL, 0);
		return;
	case OP4_PUTROOTFH:
	case OP4_PUTPUBFH:
		k = NN_ROOT;
		break;
	case OP4_LOOKUPP:
		k = NN_LOOKUPP;
		break;
	case OP4_SAVEFH:
		k = NN_SAVE;
		break;
	case OP4_RESTOREFH:
		k = NN_RESTORE;
		break;
	case OP4_GETFH:
		k = NN_GETFH;
		break;
	case OP4_LOOKUP:
	case OP4_CREATE:
	case OP4_REMOVE:
	case OP4_LINK:
		k = op == OP4_LOOKUP   ? NN_LOOKUP
		    : op == OP4_CREATE ? NN_CREATE
		    : op == OP4_REMOVE ? NN_REMOVE
		                       : NN_LINK;
		if (!name_ok(nm->a, nm->alen))
			k = NN_LOST;
		if (op == OP4_CREATE && nm->b)
			nfs_names_put(o, NN_DATA, i, nm->b, nm->blen, NULL, 0);
		nfs_names_put(o, k, i, nm->a, k == NN_LOST ? 0 : nm->alen, NULL, 0);
		return;
	case OP4_OPEN:
		if (!nm->follow)
			return; /* claimed by handle: the current one is the file */
		k = name_ok(nm->a, nm->alen) ? NN_OPEN : NN_LOST;
		nfs_names_put(o, k, i, nm->a, k == NN_LOST ? 0 : nm->alen, NULL, 0);
		return;
	case OP4_RENAME:
		if (name_ok(nm->a, nm->alen) && name_ok(nm->b, nm->blen))
			nfs_names_put(o, NN_RENAME, i, nm->a, nm->alen, nm->b, nm->blen);
		return;
	case OP4_OPENATTR:
	case OP4_SECINFO:
	case OP4_SECINFO_NO_NAME:
		k = NN_LOST; /* the current handle changes to one we cannot name, or is consumed */
		break;
	default:
		return;
	}
	nfs_names_put(o, k, i, NULL, 0, NULL, 0);
}

int nfs4_call(struct cur *c, struct nfs_call *o)
{
	uint8_t fh[NFS_FH_MAX], saved[NFS_FH_MAX];
	uint8_t fh_len = 0, saved_len = 0;
	uint32_t n, i;
	bool walked = true, main_ok = false, short_list = false;
	int best = -1;

	xdr_skip_opaque(c, NAME_MAX4); /* tag */
	o->minor = xdr_u32(c);
	n = xdr_u32(c);
	if (c->err) {
		o->cut = true;
		return -EPROTO;
	}
	if (n > cur_left(c) / 4) {
		n = (uint32_t)(cur_left(c) / 4); /* every op takes at least 4 bytes */
		short_list = true;
	}
	o->nops = 0;
	for (i = 0; i < n && i < OPS_LIMIT; i++) {
		uint32_t op = xdr_u32(c);
		int cls = nfs4_op_class(op);
		struct op_names nm = {0};
		bool is_main;

		if (c->err) {
			walked = false;
			short_list = true;
			break;
		}
		if (o->nops < NFS_OPS_MAX)
			o->ops[o->nops] = (uint16_t)(op > 0xffff ? 0xffff : op);
		o->nops++;
		is_main = takes_main(cls, best);
		if (is_main) {
			best = cls;
			o->main_idx = (uint16_t)i;
			o->op = op;
			memcpy(o->fh, fh, fh_len);
			o->fh_len = fh_len;
			o->has_io = false;
			o->offset = o->count = 0;
			o->stable = 0;
			o->copy_sync = false;
			o->data = NULL;
			o->data_len = 0;
		}
		if (op == OP4_SAVEFH) {
			memcpy(saved, fh, fh_len);
			saved_len = fh_len;
		} else if (op == OP4_RESTOREFH) {
			memcpy(fh, saved, saved_len);
			fh_len = saved_len;
		}
		if (!op_args(c, op, o, fh, &fh_len, is_main, &nm)) {
			walked = false;
			short_list |=
			    c->err; /* ran out of bytes, rather than an op we do not know */
			if (is_main)
				main_ok = false;
			break;
		}
		if (i < 256)
			op_name_record(o, i, op, fh, fh_len, &nm);
		else
			o->names_cut = true;
		if (is_main)
			main_ok = true;
	}
	/* The captured part ends before the last op: a later op could still be the main one
	 * unless a data op (the highest class) was seen. */
	o->cut = short_list && best < 4;
	o->decoded = walked || main_ok;
	return 0;
}

/* --- CB_COMPOUND4args (RFC 8881 20, RFC 7862 16.1 CB_OFFLOAD) --- */

int nfs4_cb_call(struct cur *c, struct nfs_call *o)
{
	uint32_t n, i;

	xdr_skip_opaque(c, NAME_MAX4);
	o->minor = xdr_u32(c);
	cur_skip(c, 4); /* callback_ident */
	n = xdr_u32(c);
	if (c->err)
		return -EPROTO;
	if (n > cur_left(c) / 4)
		n = (uint32_t)(cur_left(c) / 4);
	for (i = 0; i < n && i < OPS_LIMIT && !c->err; i++) {
		uint32_t op = xdr_u32(c), k;

		if (o->nops < NFS_OPS_MAX)
			o->ops[o->nops] = (uint16_t)(op > 0xffff ? 0xffff : op);
		o->nops++;
		if (op != CB4_SEQUENCE && !o->op) {
			o->op = op;
			o->main_idx = (uint16_t)i;
		}
		switch (op) {
		case CB4_SEQUENCE:
			cur_skip(c, 16 + 16);
			k = xdr_u32(c); /* referring_call_list4<> */
			if (k > cur_left(c) / 20)
				c->err = true;
			while (k-- > 0 && !c->err) {
				cur_skip(c, 16);
				xdr_skip_array(c, 8, 1u << 20);
			}
			break;
		case CB4_OFFLOAD: {
			const uint8_t *s;

			take_fh(c, o->fh, &o->fh_len);
			s = cur_bytes(c, STATEID);
			o->cb_status = xdr_u32(c);
			if (o->cb_status == 0) {
				k = xdr_u32(c);
				if (k == 1)
					cur_skip(c, STATEID);
				else if (k)
					c->err = true;
				o->cb_count = xdr_u64(c);
				cur_skip(c, 4 + 8);
			} else {
				o->cb_count = xdr_u64(c);
			}
			if (s && !c->err) {
				memcpy(o->cb_stateid, s, STATEID);
				o->cb_offload = true;
			}
			break;
		}
		case CB4_RECALL:
			cur_skip(c, STATEID + 4);
			take_fh(c, o->fh, &o->fh_len);
			break;
		case CB4_GETATTR:
			take_fh(c, o->fh, &o->fh_len);
			skip_bitmap(c);
			break;
		default:
			i = n;
			break;
		}
	}
	if (!o->op && o->nops)
		o->op = o->ops[0];
	o->decoded = !c->err;
	return 0;
}
