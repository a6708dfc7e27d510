/* SPDX-License-Identifier: MIT */
/* NFS call and reply summaries (RFC 1813 NFSv3, RFC 7530/8881/7862 NFSv4.0/4.1/4.2). */
#ifndef IOTAPE_FORMATS_NFS_H
#define IOTAPE_FORMATS_NFS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/cursor.h"

#define NFS_PROGRAM 100003u
#define NFS_CB_PROGRAM_LINUX 0x40000000u /* the callback program Linux and libnfs use */
#define NFS_FH_MAX 128                   /* NFS4_FHSIZE; NFSv3 allows 64 */
#define NFS_OPS_MAX 24 /* v4 ops remembered per COMPOUND (more are counted, not listed) */

/* NFSv4 operation numbers used by the decoders (RFC 7530 16, RFC 8881 18, RFC 7862 15). */
enum {
	OP4_ACCESS = 3,
	OP4_CLOSE = 4,
	OP4_COMMIT = 5,
	OP4_CREATE = 6,
	OP4_DELEGRETURN = 8,
	OP4_GETATTR = 9,
	OP4_GETFH = 10,
	OP4_LINK = 11,
	OP4_LOCK = 12,
	OP4_LOCKT = 13,
	OP4_LOCKU = 14,
	OP4_LOOKUP = 15,
	OP4_LOOKUPP = 16,
	OP4_NVERIFY = 17,
	OP4_OPEN = 18,
	OP4_OPENATTR = 19,
	OP4_OPEN_CONFIRM = 20,
	OP4_OPEN_DOWNGRADE = 21,
	OP4_PUTFH = 22,
	OP4_PUTPUBFH = 23,
	OP4_PUTROOTFH = 24,
	OP4_READ = 25,
	OP4_READDIR = 26,
	OP4_READLINK = 27,
	OP4_REMOVE = 28,
	OP4_RENAME = 29,
	OP4_RENEW = 30,
	OP4_RESTOREFH = 31,
	OP4_SAVEFH = 32,
	OP4_SECINFO = 33,
	OP4_SETATTR = 34,
	OP4_SETCLIENTID = 35,
	OP4_SETCLIENTID_CONFIRM = 36,
	OP4_VERIFY = 37,
	OP4_WRITE = 38,
	OP4_RELEASE_LOCKOWNER = 39,
	OP4_BIND_CONN = 41,
	OP4_EXCHANGE_ID = 42,
	OP4_CREATE_SESSION = 43,
	OP4_DESTROY_SESSION = 44,
	OP4_FREE_STATEID = 45,
	OP4_SECINFO_NO_NAME = 52,
	OP4_SEQUENCE = 53,
	OP4_TEST_STATEID = 55,
	OP4_DESTROY_CLIENTID = 57,
	OP4_RECLAIM_COMPLETE = 58,
	OP4_ALLOCATE = 59,
	OP4_COPY = 60,
	OP4_COPY_NOTIFY = 61,
	OP4_DEALLOCATE = 62,
	OP4_IO_ADVISE = 63,
	OP4_OFFLOAD_CANCEL = 66,
	OP4_OFFLOAD_STATUS = 67,
	OP4_READ_PLUS = 68,
	OP4_SEEK = 69,
	OP4_CLONE = 71,
	OP4_ILLEGAL = 10044,
};

/*
 * The names a call carries, for the handle -> path map (formats/nfs_names.h): records in call
 * order, each [kind u8][op index u8][length u16, host order][bytes], in a buffer the caller
 * lends (nfs_call.names, names_cap bytes; what does not fit sets names_cut). v3 procedures
 * are written as the v4 ops they amount to, so the map follows one language: LOOKUP is
 * FH(dir) LOOKUP(name) GETFH; RENAME is FH(from) SAVE FH(to) RENAME(old, new).
 */
enum nfs_nameop {
	NN_FH = 1,  /* bytes: a handle that becomes the current one (v4 PUTFH, v3 arguments) */
	NN_ROOT,    /* v4 PUTROOTFH, PUTPUBFH: the root of the server's namespace */
	NN_LOOKUP,  /* bytes: a name; current = current/name */
	NN_LOOKUPP, /* current = the parent of current */
	NN_SAVE,    /* saved = current */
	NN_RESTORE, /* current = saved */
	NN_OPEN,    /* bytes: a name; current = current/name, perhaps created (v4 OPEN) */
	NN_CREATE,  /* bytes: a name; current = current/name, a new object */
	NN_REMOVE,  /* bytes: a name; current/name is removed */
	NN_RENAME,  /* bytes: old name's length (1 byte), old, new; saved/old becomes current/new */
	NN_LINK,    /* bytes: a name; saved is linked as current/name */
	NN_GETFH,   /* the reply's handle for this op is current's */
	NN_LIST,    /* current is a directory whose reply lists names with handles (READDIRPLUS) */
	NN_MOUNT,   /* bytes: a path (MOUNT MNT); the reply's handle is the root of that export */
	NN_LOST,    /* current can no longer be followed (an op the decoder does not know) */
	NN_DATA,    /* bytes: a symbolic link's target (v3 SYMLINK, v4 CREATE NF4LNK); no move */
};
#define NFS_NAME_MAX 255 /* longer names are not learnt (the current handle becomes unknown) */
#define NFS_NAMES_BUF 1024

/* Callback operations (RFC 8881 20, RFC 7862 16). */
enum { CB4_GETATTR = 3, CB4_RECALL = 4, CB4_SEQUENCE = 11, CB4_OFFLOAD = 15 };

/* What a call says (filled by nfs3_call, nfs4_call, nfs4_cb_call). */
struct nfs_call {
	uint32_t minor; /* NFSv4 minor version */
	uint32_t op;    /* v3: the procedure; v4: the main op (see nfs4_main_op), 0 if none */
	bool decoded;   /* the arguments were read up to the main op */
	uint8_t fh_len;
	uint8_t fh[NFS_FH_MAX]; /* the file handle the main op works on */
	bool has_io;
	uint64_t offset;
	uint64_t count;    /* READ/WRITE/COMMIT/COPY/CLONE... count as sent */
	uint32_t stable;   /* WRITE stable_how */
	uint16_t nops;     /* v4 ops in the COMPOUND (all of them) */
	uint16_t main_idx; /* index of the main op */
	uint16_t ops[NFS_OPS_MAX];
	bool copy_sync;      /* COPY asked for a synchronous copy */
	uint32_t cb_program; /* callback program announced (SETCLIENTID, CREATE_SESSION), 0 none */
	/* CB_OFFLOAD in a CB_COMPOUND */
	bool cb_offload;
	uint32_t cb_status;
	uint64_t cb_count;
	uint8_t cb_stateid[16];
	/* names (see enum nfs_nameop): written only when names_cap is non-zero */
	uint8_t *names;
	uint16_t names_len, names_cap;
	bool names_cut;
	bool cut; /* the arguments end before the COMPOUND's last op (snaplen, lost bytes) */
	/* attributes a call sets (v3 sattr3 of SETATTR, CREATE, MKDIR, SYMLINK, MKNOD; v4
	 * fattr4 of SETATTR, OPEN's createattrs and CREATE), for the replay */
	uint8_t set;           /* NFS_SET_* */
	uint8_t ftype;         /* what a CREATE makes: NFS_FT_* (v3 CREATE/MKDIR/SYMLINK/MKNOD) */
	bool creates;          /* v4 OPEN with OPEN4_CREATE; v3 CREATE */
	bool exclusive;        /* the create fails if the name exists (GUARDED, EXCLUSIVE) */
	bool owner_named;      /* v4: an owner or group given as a name, not a number (not set) */
	uint32_t set_mode;     /* with NFS_SET_MODE: the permission bits */
	uint64_t set_size;     /* with NFS_SET_SIZE */
	uint32_t set_uid;      /* with NFS_SET_UID */
	uint32_t set_gid;      /* with NFS_SET_GID */
	int64_t set_atime_s;   /* with NFS_SET_ATIME: the client's time */
	int64_t set_mtime_s;   /* with NFS_SET_MTIME */
	uint32_t set_atime_ns; /* (NFS_SET_*TIME_NOW: the server's time instead) */
	uint32_t set_mtime_ns;
	uint32_t spec1, spec2; /* a device a MKNOD or CREATE makes: major, minor (specdata) */
	/* WRITE: the bytes of its payload in the bytes decoded (a pointer into them, valid
	 * while they are; the RPC decoder copies them out when asked to keep them) */
	const uint8_t *data;
	uint32_t data_len; /* at most count: what the capture holds of it */
};

enum {
	NFS_SET_MODE = 1,
	NFS_SET_SIZE = 2,
	NFS_SET_UID = 4,
	NFS_SET_GID = 8,
	NFS_SET_ATIME = 16,     /* to set_atime_s, set_atime_ns */
	NFS_SET_MTIME = 32,     /* to set_mtime_s, set_mtime_ns */
	NFS_SET_ATIME_NOW = 64, /* to the server's time (SET_TO_SERVER_TIME) */
	NFS_SET_MTIME_NOW = 128,
};
/* File types, as nftype4 numbers them (ftype3 is the same for 1..7). */
enum {
	NFS_FT_REG = 1,
	NFS_FT_DIR = 2,
	NFS_FT_BLK = 3,
	NFS_FT_CHR = 4,
	NFS_FT_LNK = 5,
	NFS_FT_SOCK = 6,
	NFS_FT_FIFO = 7
};

/* What the reply says (nfs3_reply, nfs4_reply). */
struct nfs_reply {
	bool decoded;       /* the results were read as far as the decoder goes */
	bool has_status;    /* the status word was read (even if what follows was cut) */
	uint32_t status;    /* v3 status, v4 COMPOUND status */
	uint32_t op_status; /* v4: the main op's own status (0 when it was not reached) */
	uint64_t count;     /* bytes read, written or copied */
	bool eof;
	uint32_t committed;
	bool has_size;
	uint64_t size; /* file size from the returned attributes */
	/* COPY */
	bool copy_async; /* the server answered with a callback stateid */
	uint8_t copy_stateid[16];
	/* v4: the op whose status was not NFS4_OK (the COMPOUND stops there) */
	bool failed;
	uint16_t fail_idx;
	uint32_t fail_op, fail_status;
	/* v4: the ops listed in the results (to find the main op of a call that was cut) */
	bool ops_all; /* every op of the COMPOUND is listed (it succeeded, all was read) */
	uint16_t nops;
	uint16_t ops[NFS_OPS_MAX];
};

/* Append a name record to call->names (nothing when names_cap is 0; names_cut when full). */
void nfs_names_put(struct nfs_call *call, enum nfs_nameop kind, unsigned idx, const void *a,
                   size_t alen, const void *b, size_t blen);

/*
 * Handles in a reply, for the names map: fn is called for each handle the results carry, with
 * the index of the call's op it belongs to (v3: 0), and for a listing's entries with their
 * name. Returns the number of leading ops that succeeded (v3: 1 or 0; v4: the ops before the
 * first failed one, counting only results actually read), or -EPROTO.
 */
typedef void (*nfs_fh_fn)(void *arg, unsigned idx, const uint8_t *name, unsigned name_len,
                          const uint8_t *fh, unsigned fh_len);
int nfs3_reply_fhs(struct cur *c, uint32_t proc, nfs_fh_fn fn, void *arg);
int nfs4_reply_fhs(struct cur *c, nfs_fh_fn fn, void *arg);
/* MOUNT (RFC 1813 appendix I, RFC 1094 A): MNT's path into call->names, its reply's handle. */
int nfs_mnt_call(struct cur *c, struct nfs_call *out);
int nfs_mnt_reply_fhs(struct cur *c, uint32_t vers, nfs_fh_fn fn, void *arg);

int nfs3_call(struct cur *c, uint32_t proc, struct nfs_call *out);
int nfs3_reply(struct cur *c, uint32_t proc, struct nfs_reply *out);
const char *nfs3_proc_name(uint32_t proc);
#define NFS3_NPROCS 22

int nfs4_call(struct cur *c, struct nfs_call *out);
int nfs4_reply(struct cur *c, const struct nfs_call *call, struct nfs_reply *out);
int nfs4_cb_call(struct cur *c, struct nfs_call *out);
const char *nfs4_op_name(uint32_t op);
const char *nfs4_cb_op_name(uint32_t op);
/*
 * The "main op" of a COMPOUND, the one its latency is charged to: the first op of the highest
 * class present, where the classes are 4 data movement (READ, WRITE, COMMIT, READ_PLUS, COPY,
 * CLONE, ALLOCATE, DEALLOCATE, COPY_NOTIFY, OFFLOAD_*, SEEK, IO_ADVISE, LAYOUT*), 3 every other
 * op (OPEN, CLOSE, CREATE, REMOVE, RENAME, LINK, SETATTR, READDIR, LOCK, ...), 2 name lookups
 * (LOOKUP, LOOKUPP, SECINFO*, OPENATTR), 1 checks (GETATTR, ACCESS, VERIFY, NVERIFY) and
 * 0 bookkeeping (SEQUENCE, PUTFH, PUTROOTFH, PUTPUBFH, SAVEFH, RESTOREFH, GETFH); among
 * bookkeeping ops only, the last one. Returns the index, or -1 for an empty COMPOUND.
 */
int nfs4_main_op(const uint16_t *ops, unsigned n);
int nfs4_op_class(uint32_t op);
/* NFSv3/v4 status names (nfsstat3, nfsstat4); "NFS_OK" for 0, NULL if unknown. */
const char *nfs_status_name(uint32_t status);

#endif
