/* SPDX-License-Identifier: MIT */
/* NFSv3 (RFC 1813): the 22 procedures' file handle, offset, count, stable, eof, status, size. */
#include "formats/nfs.h"

#include <errno.h>
#include <string.h>

#include "formats/xdr.h"

static const char *const proc_names[NFS3_NPROCS] = {
    "NULL",    "GETATTR",     "SETATTR", "LOOKUP", "ACCESS",   "READLINK", "READ",   "WRITE",
    "CREATE",  "MKDIR",       "SYMLINK", "MKNOD",  "REMOVE",   "RMDIR",    "RENAME", "LINK",
    "READDIR", "READDIRPLUS", "FSSTAT",  "FSINFO", "PATHCONF", "COMMIT",
};

enum {
	P3_NULL,
	P3_GETATTR,
	P3_SETATTR,
	P3_LOOKUP,
	P3_ACCESS,
	P3_READLINK,
	P3_READ,
	P3_WRITE,
	P3_CREATE,
	P3_MKDIR,
	P3_SYMLINK,
	P3_MKNOD,
	P3_REMOVE,
	P3_RMDIR,
	P3_RENAME,
	P3_LINK,
	P3_READDIR,
	P3_READDIRPLUS,
	P3_FSSTAT,
	P3_FSINFO,
	P3_PATHCONF,
	P3_COMMIT
};

const char *nfs3_proc_name(uint32_t proc)
{
	return proc < NFS3_NPROCS ? proc_names[proc] : NULL;
}

/* nfs_fh3: opaque<NFS3_FHSIZE = 64> */
static void get_fh(struct cur *c, struct nfs_call *out)
{
	uint32_t n;
	const uint8_t *p = xdr_opaque(c, 64, &n);

	if (p) {
		memcpy(out->fh, p, n);
		out->fh_len = (uint8_t)n;
	}
}

/* filename3 into a name record: a name past NFS_NAME_MAX makes the current handle unknown. */
static void put_name(struct cur *c, struct nfs_call *out, enum nfs_nameop kind)
{
	uint32_t n;
	const uint8_t *p = xdr_opaque(c, UINT32_MAX, &n);

	if (!p)
		return;
	if (n > NFS_NAME_MAX || !n)
		nfs_names_put(out, NN_LOST, 0, NULL, 0, NULL, 0);
	else
		nfs_names_put(out, kind, 0, p, n, NULL, 0);
}

/* nfs_fh3 as a name record (the current handle) */
static void put_fh(struct nfs_call *out, const uint8_t *fh, unsigned len)
{
	nfs_names_put(out, NN_FH, 0, fh, len, NULL, 0);
}

/* RENAME3args: from (dir, name), to (dir, name) */
static void rename_names(struct cur *c, struct nfs_call *out)
{
	uint32_t n1, n2, tl;
	const uint8_t *a = xdr_opaque(c, NFS_NAME_MAX, &n1), *tfh, *b;

	tfh = xdr_opaque(c, 64, &tl);
	b = xdr_opaque(c, NFS_NAME_MAX, &n2);
	if (!a || !tfh || !b || !n1 || !n2)
		return;
	put_fh(out, out->fh, out->fh_len);
	nfs_names_put(out, NN_SAVE, 0, NULL, 0, NULL, 0);
	put_fh(out, tfh, tl);
	nfs_names_put(out, NN_RENAME, 0, a, n1, b, n2);
}

/* set_atime, set_mtime (RFC 1813 2.6): DONT_CHANGE, SET_TO_SERVER_TIME, SET_TO_CLIENT_TIME */
static unsigned settime3(struct cur *c, unsigned now, unsigned set, int64_t *s, uint32_t *ns)
{
	uint32_t how = xdr_u32(c);

	if (how == 1)
		return now;
	if (how != 2)
		return 0;
	*s = xdr_u32(c); /* nfstime3: seconds are unsigned */
	*ns = xdr_u32(c);
	return set;
}

/* sattr3 (RFC 1813 2.6): the mode, owner, group, size and times a call sets */
static void sattr3(struct cur *c, struct nfs_call *out)
{
	uint32_t mode = 0, uid = 0, gid = 0, ans = 0, mns = 0;
	uint64_t size = 0;
	int64_t as = 0, ms = 0;
	unsigned set = 0;

	if (xdr_bool(c))
		mode = xdr_u32(c), set |= NFS_SET_MODE;
	if (xdr_bool(c))
		uid = xdr_u32(c), set |= NFS_SET_UID;
	if (xdr_bool(c))
		gid = xdr_u32(c), set |= NFS_SET_GID;
	if (xdr_bool(c))
		size = xdr_u64(c), set |= NFS_SET_SIZE;
	set |= settime3(c, NFS_SET_ATIME_NOW, NFS_SET_ATIME, &as, &ans);
	set |= settime3(c, NFS_SET_MTIME_NOW, NFS_SET_MTIME, &ms, &mns);
	if (c->err)
		return;
	out->set |= (uint8_t)set;
	out->set_mode = mode & 07777;
	out->set_uid = uid;
	out->set_gid = gid;
	out->set_size = size;
	out->set_atime_s = as;
	out->set_atime_ns = ans;
	out->set_mtime_s = ms;
	out->set_mtime_ns = mns;
}

/* What a CREATE, MKDIR, SYMLINK or MKNOD makes and with which attributes (after the name). */
static void create_args(struct cur *c, uint32_t proc, struct nfs_call *out)
{
	uint32_t how, n;
	const uint8_t *p;

	switch (proc) {
	case P3_CREATE:
		out->ftype = NFS_FT_REG;
		out->creates = true;
		how = xdr_u32(c); /* UNCHECKED, GUARDED: sattr3; EXCLUSIVE: a verifier */
		out->exclusive = how != 0;
		if (how == 2)
			cur_skip(c, 8);
		else
			sattr3(c, out);
		break;
	case P3_MKDIR:
		out->ftype = NFS_FT_DIR;
		sattr3(c, out);
		break;
	case P3_SYMLINK:
		out->ftype = NFS_FT_LNK;
		sattr3(c, out);
		p = xdr_opaque(c, 4096, &n);
		if (p)
			nfs_names_put(out, NN_DATA, 0, p, n, NULL, 0);
		break;
	case P3_MKNOD: /* mknoddata3: ftype3, then devicedata3 or sattr3 (or nothing) */
		n = xdr_u32(c);
		out->ftype = n >= 1 && n <= 7 ? (uint8_t)n : 0;
		if (n == NFS_FT_CHR || n == NFS_FT_BLK || n == NFS_FT_SOCK || n == NFS_FT_FIFO)
			sattr3(c, out);
		if (n == NFS_FT_CHR || n == NFS_FT_BLK) {
			out->spec1 = xdr_u32(c);
			out->spec2 = xdr_u32(c);
		}
		break;
	default:
		break;
	}
}

int nfs3_call(struct cur *c, uint32_t proc, struct nfs_call *out)
{
	out->op = proc;
	if (proc >= NFS3_NPROCS)
		return -EPROTO;
	if (proc == P3_NULL) {
		out->decoded = true;
		return 0;
	}
	get_fh(c, out); /* every procedure but NULL starts with a handle (LINK: the file) */
	switch (proc) {
	case P3_READ:
	case P3_COMMIT:
		out->offset = xdr_u64(c);
		out->count = xdr_u32(c);
		out->has_io = !c->err;
		break;
	case P3_WRITE: {
		uint32_t n;

		out->offset = xdr_u64(c);
		out->count = xdr_u32(c);
		out->stable = xdr_u32(c);
		out->has_io = !c->err;
		/* data<>: what the bytes at hand hold of it (usually nothing past the kept
		 * head; the replay keeps whole calls) */
		if (!c->err && cur_left(c) >= 4) {
			size_t left;

			n = xdr_u32(c);
			left = cur_left(c);
			out->data = c->pos;
			out->data_len = n < left ? n : (uint32_t)left;
		}
		break;
	}
	default:
		break;
	}
	/* what the statistics need ends here; the names below may be cut by the snaplen */
	out->decoded = !c->err;
	switch (proc) {
	case P3_LOOKUP:
	case P3_CREATE:
	case P3_MKDIR:
	case P3_SYMLINK:
	case P3_MKNOD:
		if (c->err)
			break;
		put_fh(out, out->fh, out->fh_len);
		put_name(c, out, proc == P3_LOOKUP ? NN_LOOKUP : NN_CREATE);
		nfs_names_put(out, NN_GETFH, 0, NULL, 0, NULL, 0);
		if (proc != P3_LOOKUP)
			create_args(c, proc, out);
		break;
	case P3_SETATTR:
		sattr3(c, out);
		break;
	case P3_REMOVE:
	case P3_RMDIR:
		if (c->err)
			break;
		put_fh(out, out->fh, out->fh_len);
		put_name(c, out, NN_REMOVE);
		break;
	case P3_RENAME:
		if (!c->err)
			rename_names(c, out);
		break;
	case P3_LINK: {
		uint32_t dl;
		const uint8_t *dfh = xdr_opaque(c, 64, &dl);

		if (!dfh)
			break;
		put_fh(out, out->fh, out->fh_len);
		nfs_names_put(out, NN_SAVE, 0, NULL, 0, NULL, 0);
		put_fh(out, dfh, dl);
		put_name(c, out, NN_LINK);
		break;
	}
	case P3_READDIRPLUS:
		if (!c->err) {
			put_fh(out, out->fh, out->fh_len);
			nfs_names_put(out, NN_LIST, 0, NULL, 0, NULL, 0);
		}
		break;
	default:
		break;
	}
	return out->decoded ? 0 : -EPROTO;
}

/* fattr3 (RFC 1813 2.6): type, mode, nlink, uid, gid, size, ... 84 bytes */
static void fattr3(struct cur *c, struct nfs_reply *r)
{
	struct cur a = cur_sub(c, 84);

	cur_skip(&a, 20);
	r->size = xdr_u64(&a);
	r->has_size = !a.err;
}

static void post_op_attr(struct cur *c, struct nfs_reply *r)
{
	if (xdr_bool(c))
		fattr3(c, r);
}

static void wcc_data(struct cur *c, struct nfs_reply *r)
{
	if (xdr_bool(c))
		cur_skip(c, 24); /* wcc_attr: size, mtime, ctime */
	post_op_attr(c, r);
}

int nfs3_reply(struct cur *c, uint32_t proc, struct nfs_reply *r)
{
	uint32_t st;

	if (proc == P3_NULL) {
		r->decoded = r->has_status = true;
		return 0;
	}
	st = r->status = xdr_u32(c);
	if (c->err)
		return -EPROTO;
	r->has_status = true;
	switch (proc) {
	case P3_GETATTR:
		if (st == 0)
			fattr3(c, r);
		break;
	case P3_SETATTR:
	case P3_REMOVE:
	case P3_RMDIR:
	case P3_COMMIT:
		wcc_data(c, r);
		break;
	case P3_WRITE:
		wcc_data(c, r);
		if (st == 0) {
			r->count = xdr_u32(c);
			r->committed = xdr_u32(c);
		}
		break;
	case P3_LOOKUP:
		if (st == 0)
			xdr_skip_opaque(c, 64);
		post_op_attr(c, r);
		break;
	case P3_READ:
		post_op_attr(c, r);
		if (st == 0) {
			r->count = xdr_u32(c);
			r->eof = xdr_bool(c);
		}
		break;
	case P3_CREATE:
	case P3_MKDIR:
	case P3_SYMLINK:
	case P3_MKNOD:
		if (st == 0) {
			if (xdr_bool(c))
				xdr_skip_opaque(c, 64);
			post_op_attr(c, r);
		}
		break;
	case P3_RENAME:
		break;
	default: /* ACCESS, READLINK, LINK, READDIR(PLUS), FSSTAT, FSINFO, PATHCONF */
		post_op_attr(c, r);
		break;
	}
	r->decoded = !c->err;
	return 0;
}

/* post_op_fh3: handle_follows, nfs_fh3 */
static void post_op_fh(struct cur *c, unsigned idx, nfs_fh_fn fn, void *arg)
{
	uint32_t n;
	const uint8_t *p;

	if (!xdr_bool(c))
		return;
	p = xdr_opaque(c, 64, &n);
	if (p && n)
		fn(arg, idx, NULL, 0, p, n);
}

/* READDIRPLUS3resok after the status (RFC 1813 3.3.17): dir attributes, cookie verifier,
 * entries (fileid, name, cookie, attributes, handle); the list may be cut by the head cap. */
static void readdirplus_entries(struct cur *c, nfs_fh_fn fn, void *arg)
{
	struct nfs_reply r;
	unsigned guard = 0;

	post_op_attr(c, &r);
	cur_skip(c, 8);
	while (xdr_bool(c) && guard++ < 65536) {
		uint32_t nl, fl;
		const uint8_t *name, *fh = NULL;

		cur_skip(c, 8);
		name = xdr_opaque(c, UINT32_MAX, &nl);
		cur_skip(c, 8);
		post_op_attr(c, &r);
		if (xdr_bool(c))
			fh = xdr_opaque(c, 64, &fl);
		if (c->err)
			return;
		if (fh && fl && nl && nl <= NFS_NAME_MAX)
			fn(arg, 0, name, nl, fh, fl);
	}
}

int nfs3_reply_fhs(struct cur *c, uint32_t proc, nfs_fh_fn fn, void *arg)
{
	uint32_t st = xdr_u32(c), n;
	const uint8_t *p;

	if (c->err)
		return -EPROTO;
	if (st != 0)
		return 0;
	switch (proc) {
	case P3_LOOKUP:
		p = xdr_opaque(c, 64, &n);
		if (p && n)
			fn(arg, 0, NULL, 0, p, n);
		break;
	case P3_CREATE:
	case P3_MKDIR:
	case P3_SYMLINK:
	case P3_MKNOD:
		post_op_fh(c, 0, fn, arg);
		break;
	case P3_READDIRPLUS:
		readdirplus_entries(c, fn, arg);
		break;
	default:
		break;
	}
	return 1;
}

/* MNT (RFC 1813 I.5.2, RFC 1094 A.5.1): dirpath<1024> */
int nfs_mnt_call(struct cur *c, struct nfs_call *out)
{
	uint32_t n;
	const uint8_t *p = xdr_opaque(c, 1024, &n);

	if (!p)
		return -EPROTO;
	out->decoded = true;
	if (n)
		nfs_names_put(out, NN_MOUNT, 0, p, n, NULL, 0);
	return 0;
}

/* mountres3: fhs_status, fhandle3<64>, auth_flavors<>; v1/v2 fhstatus: status, fhandle[32] */
int nfs_mnt_reply_fhs(struct cur *c, uint32_t vers, nfs_fh_fn fn, void *arg)
{
	uint32_t st = xdr_u32(c), n = 32;
	const uint8_t *p;

	if (c->err)
		return -EPROTO;
	if (st != 0)
		return 0;
	p = vers == 3 ? xdr_opaque(c, 64, &n) : cur_bytes(c, 32);
	if (!p || !n)
		return -EPROTO;
	fn(arg, 0, NULL, 0, p, n);
	return 1;
}

static const struct {
	uint32_t v;
	const char *name;
} status_names[] = {
    {0, "NFS_OK"},
    {1, "PERM"},
    {2, "NOENT"},
    {5, "IO"},
    {6, "NXIO"},
    {13, "ACCES"},
    {17, "EXIST"},
    {18, "XDEV"},
    {19, "NODEV"},
    {20, "NOTDIR"},
    {21, "ISDIR"},
    {22, "INVAL"},
    {27, "FBIG"},
    {28, "NOSPC"},
    {30, "ROFS"},
    {31, "MLINK"},
    {63, "NAMETOOLONG"},
    {66, "NOTEMPTY"},
    {69, "DQUOT"},
    {70, "STALE"},
    {71, "REMOTE"},
    {10001, "BADHANDLE"},
    {10002, "NOT_SYNC"},
    {10003, "BAD_COOKIE"},
    {10004, "NOTSUPP"},
    {10005, "TOOSMALL"},
    {10006, "SERVERFAULT"},
    {10007, "BADTYPE"},
    {10008, "DELAY"},
    {10009, "SAME"},
    {10010, "DENIED"},
    {10011, "EXPIRED"},
    {10012, "LOCKED"},
    {10013, "GRACE"},
    {10014, "FHEXPIRED"},
    {10015, "SHARE_DENIED"},
    {10016, "WRONGSEC"},
    {10017, "CLID_INUSE"},
    {10018, "RESOURCE"},
    {10019, "MOVED"},
    {10020, "NOFILEHANDLE"},
    {10021, "MINOR_VERS_MISMATCH"},
    {10022, "STALE_CLIENTID"},
    {10023, "STALE_STATEID"},
    {10024, "OLD_STATEID"},
    {10025, "BAD_STATEID"},
    {10026, "BAD_SEQID"},
    {10027, "NOT_SAME"},
    {10028, "LOCK_RANGE"},
    {10029, "SYMLINK"},
    {10030, "RESTOREFH"},
    {10031, "LEASE_MOVED"},
    {10032, "ATTRNOTSUPP"},
    {10033, "NO_GRACE"},
    {10034, "RECLAIM_BAD"},
    {10035, "RECLAIM_CONFLICT"},
    {10036, "BADXDR"},
    {10037, "LOCKS_HELD"},
    {10038, "OPENMODE"},
    {10039, "BADOWNER"},
    {10040, "BADCHAR"},
    {10041, "BADNAME"},
    {10042, "BAD_RANGE"},
    {10043, "LOCK_NOTSUPP"},
    {10044, "OP_ILLEGAL"},
    {10045, "DEADLOCK"},
    {10046, "FILE_OPEN"},
    {10047, "ADMIN_REVOKED"},
    {10048, "CB_PATH_DOWN"},
    {10052, "BADSESSION"},
    {10053, "BADSLOT"},
    {10054, "COMPLETE_ALREADY"},
    {10055, "CONN_NOT_BOUND_TO_SESSION"},
    {10057, "DELEG_ALREADY_WANTED"},
    {10063, "SEQ_MISORDERED"},
    {10068, "SEQ_FALSE_RETRY"},
    {10071, "OP_NOT_IN_SESSION"},
    {10076, "NOT_ONLY_OP"},
    {10077, "RETRY_UNCACHED_REP"},
    {10082, "OFFLOAD_DENIED"},
    {10084, "PARTNER_NOTSUPP"},
    {10085, "PARTNER_NO_AUTH"},
    {10087, "OFFLOAD_NO_REQS"},
};

const char *nfs_status_name(uint32_t status)
{
	size_t i;

	for (i = 0; i < sizeof(status_names) / sizeof(status_names[0]); i++)
		if (status_names[i].v == status)
			return status_names[i].name;
	return NULL;
}
