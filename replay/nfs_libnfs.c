/* SPDX-License-Identifier: MIT */
/* NFS replay onto an NFS server through libnfs: a mount (context) per stream. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <nfsc/libnfs.h>

#include "replay/nfs_int.h"

#define IO_MAX (1u << 20)
#define PATH_CAP 4200

struct ntgt {
	const char *url;
};

struct nctx {
	struct nfs_context *nfs;
	uint8_t *buf;
	char p1[PATH_CAP], p2[PATH_CAP];
};

/* A libnfs context mounted on the URL's export; -errno with e filled (opt names the option). */
int nr_mount_url(const char *opt, const char *url, struct nfs_context **out, struct iot_err *e)
{
	struct nfs_context *nfs = nfs_init_context();
	struct nfs_url *u;
	int ret;

	*out = NULL;
	if (!nfs)
		return iot_err_set(e, -ENOMEM, "%s: cannot make a libnfs context", opt);
	u = nfs_parse_url_dir(nfs, url); /* also takes ?version=4 and the other arguments */
	if (!u) {
		ret = iot_err_set(e, -EINVAL, "%s '%s': %s", opt, url, nfs_get_error(nfs));
		nfs_destroy_context(nfs);
		return ret;
	}
	ret = nfs_mount(nfs, u->server, u->path);
	if (ret) {
		iot_err_set(e, ret < 0 ? ret : -EIO, "%s '%s': mount: %s", opt, url,
		            nfs_get_error(nfs));
		nfs_destroy_url(u);
		nfs_destroy_context(nfs);
		return ret < 0 ? ret : -EIO;
	}
	nfs_destroy_url(u);
	*out = nfs;
	return 0;
}

static int n_open(void **out, const struct nfs_replay_opts *o, struct iot_err *e)
{
	struct ntgt *t = calloc(1, sizeof(*t));
	struct nfs_context *nfs;
	struct nfsdir *d;
	struct nfsdirent *de;
	int ret, n = 0;

	if (!t)
		return iot_err_set(e, -ENOMEM, "out of memory");
	t->url = o->nfs_url;
	if ((ret = nr_mount_url("--nfs", t->url, &nfs, e))) {
		free(t);
		return ret;
	}
	ret = nfs_opendir(nfs, "/", &d);
	if (!ret) {
		while ((de = nfs_readdir(nfs, d)))
			if (strcmp(de->name, ".") && strcmp(de->name, ".."))
				n++;
		nfs_closedir(nfs, d);
	}
	nfs_destroy_context(nfs);
	if (ret) {
		free(t);
		return iot_err_set(e, ret, "--nfs '%s': cannot list the export: %s", o->nfs_url,
		                   strerror(-ret));
	}
	if (n && !o->force) {
		free(t);
		return iot_err_set(
		    e, -EEXIST,
		    "--nfs '%s': the export is not empty: the replay creates, renames "
		    "and removes files in it (--force to replay into it anyway)",
		    o->nfs_url);
	}
	*out = t;
	return 0;
}

static void n_close(void *tgt)
{
	free(tgt);
}

static int n_ctx_new(void *tgt, void **out, struct iot_err *e)
{
	struct ntgt *t = tgt;
	struct nctx *c = calloc(1, sizeof(*c));
	int ret;

	if (!c || !(c->buf = malloc(IO_MAX))) {
		free(c);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < IO_MAX; i++)
		c->buf[i] = (uint8_t)(i * 7 + 1);
	if ((ret = nr_mount_url("--nfs", t->url, &c->nfs, e))) {
		free(c->buf);
		free(c);
		return ret;
	}
	*out = c;
	return 0;
}

static void n_ctx_free(void *ctx)
{
	struct nctx *c = ctx;

	if (c) {
		nfs_destroy_context(c->nfs);
		free(c->buf);
		free(c);
	}
}

/* "/" + path: libnfs's paths start at the export's root */
static const char *abs_path(char *buf, const char *path)
{
	snprintf(buf, PATH_CAP, "/%s", path);
	return buf;
}

static uint64_t io_len(const struct nr_op *op)
{
	return op->count > IO_MAX ? IO_MAX : op->count;
}

/* n bytes of p at off; the bytes written or -errno */
static int64_t pwrite_all(struct nctx *c, struct nfsfh *fh, const void *p, uint64_t n, uint64_t off)
{
	uint64_t done = 0;

	while (done < n) {
		int k = nfs_pwrite(c->nfs, fh, off + done, n - done, (const char *)p + done);

		if (k <= 0)
			return k < 0 ? k : -EIO;
		done += (uint64_t)k;
	}
	return (int64_t)done;
}

/* A WRITE: the capture's payload, then a pattern for what the capture does not hold of it. */
static int write_all(struct nctx *c, struct nfsfh *fh, const struct nr_op *op)
{
	int64_t done = pwrite_all(c, fh, op->wdata, op->wlen, op->off);
	uint64_t off = op->off + op->wlen, left = op->count - op->wlen;

	while (done >= 0 && left) {
		uint64_t k = left < IO_MAX ? left : IO_MAX;
		int64_t r = pwrite_all(c, fh, c->buf, k, off);

		if (r < 0)
			return (int)r;
		done += r;
		off += k;
		left -= k;
	}
	return done < 0 ? (int)done : (int)(done > INT32_MAX ? INT32_MAX : done);
}

/* SETATTR's attributes but the size, in the POSIX target's order: owner and group, mode,
 * times (libnfs takes both times, to the microsecond: one not set is kept as it is) */
static int set_attrs(struct nfs_context *nfs, const char *p, const struct nr_op *op)
{
	struct nfs_stat_64 st = {0};
	int ret = 0;
	unsigned ids = op->set & (NFS_SET_UID | NFS_SET_GID);

	if ((ids && ids != (NFS_SET_UID | NFS_SET_GID)) ||
	    (op->set & (NFS_SET_ATIME | NFS_SET_MTIME)) == NFS_SET_ATIME ||
	    (op->set & (NFS_SET_ATIME | NFS_SET_MTIME)) == NFS_SET_MTIME)
		ret = nfs_lstat64(nfs, p, &st); /* what is kept */
	if (ret)
		return ret;
	if ((op->set & (NFS_SET_UID | NFS_SET_GID)) &&
	    (ret = nfs_lchown(nfs, p, (int)((op->set & NFS_SET_UID) ? op->uid : st.nfs_uid),
	                      (int)((op->set & NFS_SET_GID) ? op->gid : st.nfs_gid))))
		return ret;
	if ((op->set & NFS_SET_MODE) && (ret = nfs_lchmod(nfs, p, (int)op->mode)))
		return ret;
	if (op->set & (NFS_SET_ATIME | NFS_SET_MTIME)) {
		struct timeval tv[2] = {
		    {.tv_sec = (time_t)st.nfs_atime, .tv_usec = (long)(st.nfs_atime_nsec / 1000)},
		    {.tv_sec = (time_t)st.nfs_mtime, .tv_usec = (long)(st.nfs_mtime_nsec / 1000)}};

		if (op->set & NFS_SET_ATIME)
			tv[0] = (struct timeval){op->atime_s, op->atime_ns / 1000};
		if (op->set & NFS_SET_MTIME)
			tv[1] = (struct timeval){op->mtime_s, op->mtime_ns / 1000};
		return nfs_lutimes(nfs, p, tv);
	}
	if (op->set & (NFS_SET_ATIME_NOW | NFS_SET_MTIME_NOW)) {
		/* the server's time: libnfs 4.0's NFSv4 path crashes on NULL times, so ours */
		struct timeval tv[2];

		gettimeofday(&tv[0], NULL);
		tv[1] = tv[0];
		return nfs_lutimes(nfs, p, tv);
	}
	return 0;
}

static int run(struct nctx *c, struct nr_op *op, uint64_t *bytes)
{
	struct nfs_context *nfs = c->nfs;
	const char *p = abs_path(c->p1, op->path);
	struct nfs_stat_64 st;
	struct nfsfh *fh = NULL;
	int ret = 0;

	switch (op->act) {
	case NR_GETATTR:
		return nfs_lstat64(nfs, p, &st);
	case NR_READLINK: {
		char lb[4096];

		return nfs_readlink(nfs, p, lb, sizeof(lb));
	}
	case NR_SETATTR:
		if ((op->set & NFS_SET_SIZE) && (ret = nfs_truncate(nfs, p, op->size)))
			return ret;
		if (op->set & ~NFS_SET_SIZE)
			return set_attrs(nfs, p, op);
		return (op->set & NFS_SET_SIZE) ? 0 : nfs_lstat64(nfs, p, &st);
	case NR_READ:
	case NR_WRITE:
	case NR_COMMIT:
		ret = nfs_open(nfs, p, op->act == NR_READ ? O_RDONLY : O_WRONLY, &fh);
		if (ret)
			return ret;
		if (op->act == NR_READ)
			ret = nfs_pread(nfs, fh, op->off, io_len(op), c->buf);
		else if (op->act == NR_WRITE)
			ret = write_all(c, fh, op);
		if (ret >= 0) {
			*bytes = op->act == NR_COMMIT ? 0 : (uint64_t)ret;
			ret = 0;
			if (op->act == NR_COMMIT || op->stable)
				ret = nfs_fsync(nfs, fh);
		}
		nfs_close(nfs, fh);
		return ret;
	case NR_CREATE:
		ret = nfs_create(nfs, p, O_RDWR | (op->exclusive ? O_EXCL : 0),
		                 (op->set & NFS_SET_MODE) ? (int)op->mode : 0644, &fh);
		if (ret == -EEXIST && !op->exclusive)
			ret = nfs_open(nfs, p, O_RDWR, &fh);
		if (!ret && (op->set & NFS_SET_SIZE))
			ret = nfs_ftruncate(nfs, fh, op->size);
		if (fh)
			nfs_close(nfs, fh);
		return ret;
	case NR_OPEN:
		ret = nfs_open(nfs, p, O_RDONLY, &fh);
		if (!ret)
			nfs_close(nfs, fh);
		return ret;
	case NR_MKDIR:
		return nfs_mkdir2(nfs, p, (op->set & NFS_SET_MODE) ? (int)op->mode : 0755);
	case NR_SYMLINK:
		return nfs_symlink(nfs, op->data, p);
	case NR_MKNOD:
		return nfs_mknod(nfs, p, (op->ftype == NFS_FT_FIFO ? S_IFIFO : S_IFSOCK) | 0644, 0);
	case NR_REMOVE:
		ret = nfs_unlink(nfs, p);
		if (ret && op->vers == 4 && !nfs_lstat64(nfs, p, &st) && S_ISDIR(st.nfs_mode))
			ret = nfs_rmdir(nfs, p);
		return ret;
	case NR_RMDIR:
		return nfs_rmdir(nfs, p);
	case NR_RENAME:
		return nfs_rename(nfs, p, abs_path(c->p2, op->path2));
	case NR_LINK:
		return nfs_link(nfs, p, abs_path(c->p2, op->path2));
	case NR_READDIR: {
		struct nfsdir *d;

		ret = nfs_opendir(nfs, p, &d);
		if (!ret) {
			while (nfs_readdir(nfs, d))
				;
			nfs_closedir(nfs, d);
		}
		return ret;
	}
	case NR_FSSTAT: {
		struct nfs_statvfs_64 sv;

		return nfs_statvfs64(nfs, p, &sv);
	}
	default:
		return -ENOSYS; /* ALLOCATE, DEALLOCATE: no call for them in libnfs */
	}
}

static void n_exec(void *ctx, struct nr_op *op)
{
	uint64_t bytes = 0;
	int ret = run(ctx, op, &bytes);

	op->rep_bytes = bytes;
	op->rep_status = ret == -ENOSYS ? NR_NOTDONE : nr_errno_status(ret < 0 ? -ret : 0);
}

static int n_prep(void *ctx, const char *path, unsigned ftype, uint64_t size)
{
	struct nctx *c = ctx;
	const char *p = abs_path(c->p1, path);
	struct nfsfh *fh;
	int ret;

	if (ftype == NFS_FT_DIR) {
		ret = nfs_mkdir2(c->nfs, p, 0755);
		return ret == -EEXIST ? 0 : ret;
	}
	if (ftype == NFS_FT_LNK) {
		ret = nfs_symlink(c->nfs, NR_UNNAMED_DIR "/unknown-target", p);
		return ret == -EEXIST ? 0 : ret;
	}
	ret = nfs_create(c->nfs, p, O_WRONLY, 0644, &fh);
	if (ret)
		return ret;
	if (size)
		ret = nfs_ftruncate(c->nfs, fh, size);
	nfs_close(c->nfs, fh);
	return ret;
}

const struct nr_target_ops nr_target_libnfs = {
    .kind = "nfs",
    .open = n_open,
    .close = n_close,
    .ctx_new = n_ctx_new,
    .ctx_free = n_ctx_free,
    .exec = n_exec,
    .prep = n_prep,
};
