/* SPDX-License-Identifier: MIT */
/* NFSv4.0/4.1/4.2 COMPOUND (RFC 7530, 8881, 7862) op by op, and CB_COMPOUND for CB_OFFLOAD. */
#include "formats/nfs.h"

#include <errno.h>
#include <string.h>

#include "formats/xdr.h"

#define NAME_MAX4 4096 /* component4 / utf8str; bounded again by the bytes left */
#define OPS_LIMIT 1024 /* ops walked per COMPOUND */

static const char *const op_names[] = {
    [3] = "ACCESS",
    [4] = "CLOSE",
    [5] = "COMMIT",
    [6] = "CREATE",
    [7] = "DELEGPURGE",
    [8] = "DELEGRETURN",
    [9] = "GETATTR",
    [10] = "GETFH",
    [11] = "LINK",
    [12] = "LOCK",
    [13] = "LOCKT",
    [14] = "LOCKU",
    [15] = "LOOKUP",
    [16] = "LOOKUPP",
    [17] = "NVERIFY",
    [18] = "OPEN",
    [19] = "OPENATTR",
    [20] = "OPEN_CONFIRM",
    [21] = "OPEN_DOWNGRADE",
    [22] = "PUTFH",
    [23] = "PUTPUBFH",
    [24] = "PUTROOTFH",
    [25] = "READ",
    [26] = "READDIR",
    [27] = "READLINK",
    [28] = "REMOVE",
    [29] = "RENAME",
    [30] = "RENEW",
    [31] = "RESTOREFH",
    [32] = "SAVEFH",
    [33] = "SECINFO",
    [34] = "SETATTR",
    [35] = "SETCLIENTID",
    [36] = "SETCLIENTID_CONFIRM",
    [37] = "VERIFY",
    [38] = "WRITE",
    [39] = "RELEASE_LOCKOWNER",
    [40] = "BACKCHANNEL_CTL",
    [41] = "BIND_CONN_TO_SESSION",
    [42] = "EXCHANGE_ID",
    [43] = "CREATE_SESSION",
    [44] = "DESTROY_SESSION",
    [45] = "FREE_STATEID",
    [46] = "GET_DIR_DELEGATION",
    [47] = "GETDEVICEINFO",
    [48] = "GETDEVICELIST",
    [49] = "LAYOUTCOMMIT",
    [50] = "LAYOUTGET",
    [51] = "LAYOUTRETURN",
    [52] = "SECINFO_NO_NAME",
    [53] = "SEQUENCE",
    [54] = "SET_SSV",
    [55] = "TEST_STATEID",
    [56] = "WANT_DELEGATION",
    [57] = "DESTROY_CLIENTID",
    [58] = "RECLAIM_COMPLETE",
    [59] = "ALLOCATE",
    [60] = "COPY",
    [61] = "COPY_NOTIFY",
    [62] = "DEALLOCATE",
    [63] = "IO_ADVISE",
    [64] = "LAYOUTERROR",
    [65] = "LAYOUTSTATS",
    [66] = "OFFLOAD_CANCEL",
    [67] = "OFFLOAD_STATUS",
    [68] = "READ_PLUS",
    [69] = "SEEK",
    [70] = "WRITE_SAME",
    [71] = "CLONE",
    [72] = "GETXATTR",
    [73] = "SETXATTR",
    [74] = "LISTXATTRS",
    [75] = "REMOVEXATTR",
};

static const char *const cb_op_names[] = {
    [3] = "CB_GETATTR",
    [4] = "CB_RECALL",
    [5] = "CB_LAYOUTRECALL",
    [6] = "CB_NOTIFY",
    [7] = "CB_PUSH_DELEG",
    [8] = "CB_RECALL_ANY",
    [9] = "CB_RECALLABLE_OBJ_AVAIL",
    [10] = "CB_RECALL_SLOT",
    [11] = "CB_SEQUENCE",
    [12] = "CB_WANTS_CANCELLED",
    [13] = "CB_NOTIFY_LOCK",
    [14] = "CB_NOTIFY_DEVICEID",
    [15] = "CB_OFFLOAD",
};

const char *nfs4_op_name(uint32_t op)
{
	if (op == OP4_ILLEGAL)
		return "ILLEGAL";
	return op < sizeof(op_names) / sizeof(op_names[0]) ? op_names[op] : NULL;
}

const char *nfs4_cb_op_name(uint32_t op)
{
	return op < sizeof(cb_op_names) / sizeof(cb_op_names[0]) ? cb_op_names[op] : NULL;
}

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

/* --- shared XDR pieces --- */

#define STATEID 16

static void skip_bitmap(struct cur *c)
{
	xdr_skip_array(c, 4, 64);
}

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

/* netaddr4: r_netid string, r_addr string */
static void skip_netaddr(struct cur *c)
{
	xdr_skip_opaque(c, NAME_MAX4);
	xdr_skip_opaque(c, NAME_MAX4);
}

/* netloc4 (RFC 7862 3.3): NL4_NAME 1, NL4_URL 2 utf8; NL4_NETADDR 3 netaddr4 */
static void skip_netloc(struct cur *c)
{
	uint32_t t = xdr_u32(c);

	if (t == 1 || t == 2)
		xdr_skip_opaque(c, NAME_MAX4);
	else if (t == 3)
		skip_netaddr(c);
	else
		c->err = true;
}

/* state_owner4 / lock_owner4 / open_owner4: clientid, opaque owner<NFS4_OPAQUE_LIMIT> */
static void skip_owner(struct cur *c)
{
	cur_skip(c, 8);
	xdr_skip_opaque(c, 1024);
}

/* channel_attrs4 (RFC 8881 18.36): 6 counts and ca_rdma_ird<1> */
static void skip_channel_attrs(struct cur *c)
{
	cur_skip(c, 24);
	xdr_skip_array(c, 4, 1);
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

/* --- COMPOUND4res --- */

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
