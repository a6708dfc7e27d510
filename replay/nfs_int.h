/* SPDX-License-Identifier: MIT */
/* What the NFS replay's files share: calls as actions, the source, the targets. */
#ifndef IOTAPE_REPLAY_NFS_INT_H
#define IOTAPE_REPLAY_NFS_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "formats/nfs.h"
#include "replay/nfs_replay.h"

/* What a call is replayed as. */
enum nr_act {
	NR_SKIP = 0, /* no action on a file system (session state, locks, NULL, ...) */
	NR_GETATTR,  /* stat (GETATTR, ACCESS, LOOKUP, VERIFY) */
	NR_SETATTR,  /* truncate and/or chmod */
	NR_READLINK,
	NR_READ,
	NR_WRITE,
	NR_COMMIT, /* fdatasync */
	NR_CREATE, /* a regular file (v3 CREATE, v4 OPEN with create) */
	NR_OPEN,   /* v4 OPEN of an existing file */
	NR_MKDIR,
	NR_SYMLINK,
	NR_MKNOD, /* fifos and sockets */
	NR_REMOVE,
	NR_RMDIR,
	NR_RENAME,
	NR_LINK,
	NR_READDIR,
	NR_FSSTAT,
	NR_ALLOCATE,
	NR_DEALLOCATE,
	NR_ACT_N,
};

/* One call of the capture, ready to replay. Paths are relative to the target's root,
 * components checked (no '', '.', '..', '/', NUL); "" is the root itself. */
struct nr_op {
	uint64_t seq;      /* in call order, from 0 */
	uint64_t call_ns;  /* capture times */
	uint64_t reply_ns; /* 0: no reply */
	uint64_t conn;
	uint64_t file_key; /* the object's (or the directory's) hash: per-file order */
	uint32_t proc;     /* index into the stats' procedure table */
	uint8_t act;       /* enum nr_act */
	uint8_t vers;
	uint8_t set;   /* NFS_SET_* */
	uint8_t ftype; /* NFS_FT_* of a create */
	bool exclusive, stable, answered, refused, hostile, placeholder;
	bool overlaps;       /* the next call was made before this one's reply (or it had none) */
	bool attrs_skipped;  /* an owner or group not set (not root, or a v4 name) */
	uint32_t cap_status; /* the capture's outcome (answered) */
	uint32_t mode, uid, gid;
	int64_t atime_s, mtime_s; /* with NFS_SET_ATIME, NFS_SET_MTIME */
	uint32_t atime_ns, mtime_ns;
	uint32_t spec1, spec2; /* a device's numbers (MKNOD) */
	uint64_t off, count, size;
	const uint8_t *wdata; /* a WRITE's payload as captured: wlen of its count bytes */
	uint32_t wlen;
	uint64_t cap_count; /* bytes the capture's reply says were moved */
	uint64_t attr_size; /* the file's size in the capture's reply, with has_size */
	bool has_size;
	const char *path, *path2, *data; /* path2: RENAME, LINK target; data: a symlink's text */
	/* result */
	uint32_t rep_status;
	uint64_t rep_bytes;
	uint64_t t_due, t_issue, t_done;
	uint32_t stream;    /* index of its client connection */
	uint32_t mem_bytes; /* what it holds, for the source's accounting */
	struct nr_op *next; /* queues */
	atomic_int done;
	uint8_t mem[]; /* the paths */
};

/* The capture as calls in call order (nfs_source.c). */
struct nr_source;
int nr_source_open(struct nr_source **out, const struct nfs_replay_opts *o,
                   struct nfs_replay_stats *st, struct iot_err *e);
/* The next call (the caller frees it), NULL at the end or on error (*err set, e filled). */
struct nr_op *nr_source_next(struct nr_source *s, int *err, struct iot_err *e);
size_t nr_source_mem(const struct nr_source *s);
void nr_source_free(struct nr_source *s);
/* The procedure table in st: index of (vers, op), added when new. */
unsigned nr_proc_index(struct nfs_replay_stats *st, unsigned vers, unsigned op);

/* A target: a context per thread that executes calls. */
struct nr_target_ops {
	const char *kind;
	/* the target itself (checks: a directory, empty unless force) */
	int (*open)(void **tgt, const struct nfs_replay_opts *o, struct iot_err *e);
	void (*close)(void *tgt);
	/* a context for one thread */
	int (*ctx_new)(void *tgt, void **ctx, struct iot_err *e);
	void (*ctx_free)(void *ctx);
	/* do op: fills rep_status (0 or an NFS status) and rep_bytes; -EXDEV through
	 * rep_status NR_ESCAPE for a path that leaves the target */
	void (*exec)(void *ctx, struct nr_op *op);
	/* --prepare: a directory, or a file of size bytes (a hole), or a symbolic link */
	int (*prep)(void *ctx, const char *path, unsigned ftype, uint64_t size);
};

#define NR_ESCAPE 0xffff0001u  /* rep_status: the path resolves outside the target */
#define NR_NOTDONE 0xffff0002u /* rep_status: the target has no such action (skipped) */
#define NR_SPECIAL 0xffff0003u /* rep_status: refused, a FIFO, socket or device for data */
#define NR_LINKED 0xffff0004u  /* rep_status: refused, a file also linked from elsewhere */

extern const struct nr_target_ops nr_target_posix;
/* chmod through any descriptor (nfs_posix.c): how the mode is set, chosen at run time */
enum { NR_CHMOD_AUTO, NR_CHMOD_FCHMODAT2, NR_CHMOD_PROC };
int nr_chmod_fd(int fd, unsigned mode, int how);
extern const struct nr_target_ops nr_target_libnfs;
struct nfs_context;
/* A libnfs context mounted on an nfs:// URL's export (nfs_libnfs.c); opt names the option. */
int nr_mount_url(const char *opt, const char *url, struct nfs_context **out, struct iot_err *e);

/* --record RUNDIR (nfs_record.c) */
struct nr_record;
int nr_record_open(struct nr_record **out, const char *dir, struct iot_err *e);
int nr_record_call(struct nr_record *r, const struct nfs_replay_stats *st, const struct nr_op *op,
                   uint32_t stream, struct iot_err *e);
/* Writes the manifest and frees r. */
int nr_record_close(struct nr_record *r, const struct nfs_replay_opts *o,
                    const struct nfs_replay_stats *st, struct iot_err *e);
void nr_record_abort(struct nr_record *r);

/* The prepare pass over the capture (nfs_prepare.c). */
int nr_prepare(const struct nfs_replay_opts *o, const struct nr_target_ops *t, void *ctx,
               struct nfs_replay_stats *st, struct iot_err *e);

static inline uint64_t nr_hash(const void *p, size_t n, uint64_t h)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h ^ h >> 31;
}

#define NR_HASH0 1469598103934665603ull

#endif
