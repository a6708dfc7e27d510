/* SPDX-License-Identifier: MIT */
/* NFS replay onto a local directory: POSIX calls, every path opened beneath the root. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "replay/nfs_int.h"

#define IO_MAX (1u << 20) /* the largest READ or WRITE done in one call */

struct ptgt {
	int root; /* O_PATH descriptor of the target directory */
};

struct pctx {
	struct ptgt *t;
	uint8_t *buf; /* IO_MAX bytes: writes' pattern, reads' destination */
};

static int openat2_beneath(int dir, const char *path, int flags, mode_t mode)
{
	struct open_how how = {
	    .flags = (uint64_t)flags | O_CLOEXEC,
	    .mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
	    /* nothing outside the root, through '..', an absolute symlink or a magic link */
	    .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, dir, *path ? path : ".", &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

/* The directory a path's last component is in (opened beneath the root), and that name. */
static int parent_of(struct ptgt *t, const char *path, const char **name)
{
	const char *s = strrchr(path, '/');
	char dir[4096];
	size_t n;

	if (!s) {
		*name = path;
		return openat2_beneath(t->root, "", O_PATH | O_DIRECTORY, 0);
	}
	n = (size_t)(s - path);
	if (n >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, n);
	dir[n] = 0;
	*name = s + 1;
	return openat2_beneath(t->root, dir, O_PATH | O_DIRECTORY, 0);
}

static int p_open(void **out, const struct nfs_replay_opts *o, struct iot_err *e)
{
	struct ptgt *t = calloc(1, sizeof(*t));
	struct stat st;
	DIR *d;
	struct dirent *de;
	int fd, n = 0;

	if (!t)
		return iot_err_set(e, -ENOMEM, "out of memory");
	t->root = open(o->target_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->root < 0) {
		int err = -errno;

		free(t);
		return iot_err_set(e, err, "--target '%s': %s", o->target_dir, strerror(-err));
	}
	/* empty unless --force: the replay creates, renames and removes in it */
	fd = openat(t->root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !(d = fdopendir(fd))) {
		int err = -errno;

		if (fd >= 0)
			close(fd);
		close(t->root);
		free(t);
		return iot_err_set(e, err, "--target '%s': %s", o->target_dir, strerror(-err));
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	if (n && !o->force) {
		close(t->root);
		free(t);
		return iot_err_set(e, -EEXIST,
		                   "--target '%s' is not empty: the replay creates, renames and "
		                   "removes files in it (--force to replay into it anyway)",
		                   o->target_dir);
	}
	*out = t;
	return 0;
}

static void p_close(void *tgt)
{
	struct ptgt *t = tgt;

	if (t) {
		close(t->root);
		free(t);
	}
}

static int p_ctx_new(void *tgt, void **out, struct iot_err *e)
{
	struct pctx *c = calloc(1, sizeof(*c));

	if (!c || !(c->buf = malloc(IO_MAX))) {
		free(c);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < IO_MAX; i++)
		c->buf[i] = (uint8_t)(i * 7 + 1);
	c->t = tgt;
	*out = c;
	return 0;
}

static void p_ctx_free(void *ctx)
{
	struct pctx *c = ctx;

	if (c) {
		free(c->buf);
		free(c);
	}
}

static int p_list(int fd)
{
	char buf[32768];
	long n;

	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		;
	return n < 0 ? -errno : 0;
}

static int io_len(const struct nr_op *op)
{
	return op->count > IO_MAX ? (int)IO_MAX : (int)op->count;
}

/* The action; 0 or -errno, bytes moved into *bytes. */
static int run(struct pctx *c, struct nr_op *op, uint64_t *bytes)
{
	struct ptgt *t = c->t;
	const char *name, *name2;
	struct stat st;
	struct statfs sf;
	int fd = -1, fd2 = -1, ret = 0;
	ssize_t n;

	switch (op->act) {
	case NR_GETATTR:
		fd = openat2_beneath(t->root, op->path, O_PATH | O_NOFOLLOW, 0);
		if (fd >= 0 && fstat(fd, &st))
			ret = -errno;
		break;
	case NR_READLINK: {
		char lb[4096];

		fd = openat2_beneath(t->root, op->path, O_PATH | O_NOFOLLOW, 0);
		if (fd >= 0 && readlinkat(fd, "", lb, sizeof(lb)) < 0)
			ret = -errno;
		break;
	}
	case NR_SETATTR:
		if (!(op->set & (NFS_SET_SIZE | NFS_SET_MODE))) {
			fd = openat2_beneath(t->root, op->path, O_PATH | O_NOFOLLOW, 0);
			break; /* uid, gid, times: not replayed; the file must exist */
		}
		fd = openat2_beneath(t->root, op->path,
		                     (op->set & NFS_SET_SIZE) ? O_WRONLY : O_PATH | O_NOFOLLOW, 0);
		if (fd >= 0 && (op->set & NFS_SET_SIZE) && ftruncate(fd, (off_t)op->size))
			ret = -errno;
		if (fd >= 0 && !ret && (op->set & NFS_SET_MODE) &&
		    fchmodat(fd, "", op->mode, AT_EMPTY_PATH) && errno != EOPNOTSUPP)
			ret = -errno;
		break;
	case NR_READ:
		fd = openat2_beneath(t->root, op->path, O_RDONLY, 0);
		if (fd >= 0) {
			n = pread(fd, c->buf, (size_t)io_len(op), (off_t)op->off);
			if (n < 0)
				ret = -errno;
			else
				*bytes = (uint64_t)n;
		}
		break;
	case NR_WRITE:
		fd = openat2_beneath(t->root, op->path, O_WRONLY, 0);
		if (fd >= 0) {
			n = pwrite(fd, c->buf, (size_t)io_len(op), (off_t)op->off);
			if (n < 0)
				ret = -errno;
			else
				*bytes = (uint64_t)n;
			if (n >= 0 && op->stable && fdatasync(fd))
				ret = -errno;
		}
		break;
	case NR_COMMIT:
		fd = openat2_beneath(t->root, op->path, O_WRONLY, 0);
		if (fd >= 0 && fdatasync(fd))
			ret = -errno;
		break;
	case NR_CREATE:
	case NR_OPEN: {
		/* an OPEN of a file that exists only checks it can be opened (its READs and
		 * WRITEs open their own descriptors); a create opens it for writing */
		int fl = op->act == NR_OPEN
		             ? O_RDONLY | O_NOFOLLOW
		             : O_RDWR | O_NOFOLLOW | O_CREAT | (op->exclusive ? O_EXCL : 0);

		fd = openat2_beneath(t->root, op->path, fl,
		                     (op->set & NFS_SET_MODE) ? op->mode : 0644);
		if (fd >= 0 && (op->set & NFS_SET_SIZE) && ftruncate(fd, (off_t)op->size))
			ret = -errno;
		break;
	}
	case NR_MKDIR:
	case NR_SYMLINK:
	case NR_MKNOD:
		fd = parent_of(t, op->path, &name);
		if (fd < 0)
			break;
		if (op->act == NR_MKDIR)
			ret = mkdirat(fd, name, (op->set & NFS_SET_MODE) ? op->mode : 0755);
		else if (op->act == NR_SYMLINK)
			ret = symlinkat(op->data, fd, name);
		else
			ret = mknodat(fd, name,
			              (op->ftype == NFS_FT_FIFO ? S_IFIFO : S_IFSOCK) | 0644, 0);
		ret = ret ? -errno : 0;
		break;
	case NR_REMOVE:
	case NR_RMDIR:
		fd = parent_of(t, op->path, &name);
		if (fd < 0)
			break;
		ret = unlinkat(fd, name, op->act == NR_RMDIR ? AT_REMOVEDIR : 0) ? -errno : 0;
		if (ret == -EISDIR && op->vers == 4) /* v4 REMOVE removes directories too */
			ret = unlinkat(fd, name, AT_REMOVEDIR) ? -errno : 0;
		break;
	case NR_RENAME:
	case NR_LINK:
		if (op->act == NR_RENAME) {
			fd = parent_of(t, op->path, &name);
		} else {
			fd = openat2_beneath(t->root, op->path, O_PATH | O_NOFOLLOW, 0);
			name = "";
		}
		if (fd < 0)
			break;
		fd2 = parent_of(t, op->path2, &name2);
		if (fd2 < 0) {
			ret = fd2;
			break;
		}
		if (op->act == NR_RENAME)
			ret = renameat(fd, name, fd2, name2) ? -errno : 0;
		else
			ret = linkat(fd, "", fd2, name2, AT_EMPTY_PATH) ? -errno : 0;
		break;
	case NR_READDIR:
		fd = openat2_beneath(t->root, op->path, O_RDONLY | O_DIRECTORY, 0);
		if (fd >= 0)
			ret = p_list(fd);
		break;
	case NR_FSSTAT:
		fd = openat2_beneath(t->root, op->path, O_PATH, 0);
		if (fd >= 0 && fstatfs(fd, &sf))
			ret = -errno;
		break;
	case NR_ALLOCATE:
	case NR_DEALLOCATE:
		fd = openat2_beneath(t->root, op->path, O_WRONLY, 0);
		if (fd >= 0 &&
		    fallocate(
		        fd, op->act == NR_ALLOCATE ? 0 : FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		        (off_t)op->off, (off_t)op->count))
			ret = -errno;
		break;
	default:
		ret = -EOPNOTSUPP;
		break;
	}
	if (fd < 0)
		ret = fd;
	else
		close(fd);
	if (fd2 >= 0)
		close(fd2);
	return ret;
}

static void p_exec(void *ctx, struct nr_op *op)
{
	uint64_t bytes = 0;
	int ret = run(ctx, op, &bytes);

	op->rep_bytes = bytes;
	/* EXDEV: openat2 found the path leaving the root (RESOLVE_BENEATH) */
	op->rep_status = ret == -EXDEV ? NR_ESCAPE : nr_errno_status(-ret);
}

static int p_prep(void *ctx, const char *path, unsigned ftype, uint64_t size)
{
	struct pctx *c = ctx;
	const char *name;
	int fd, ret = 0;

	if (ftype == NFS_FT_DIR) {
		fd = parent_of(c->t, path, &name);
		if (fd < 0)
			return fd;
		if (mkdirat(fd, name, 0755) && errno != EEXIST)
			ret = -errno;
		close(fd);
		return ret;
	}
	if (ftype == NFS_FT_LNK) {
		fd = parent_of(c->t, path, &name);
		if (fd < 0)
			return fd;
		/* the target is not in the capture: a link to nothing */
		if (symlinkat(NR_UNNAMED_DIR "/unknown-target", fd, name) && errno != EEXIST)
			ret = -errno;
		close(fd);
		return ret;
	}
	fd = openat2_beneath(c->t->root, path, O_WRONLY | O_CREAT | O_NOFOLLOW, 0644);
	if (fd < 0)
		return fd;
	if (size && ftruncate(fd, (off_t)size)) /* a hole: the data is not in the capture */
		ret = -errno;
	close(fd);
	return ret;
}

const struct nr_target_ops nr_target_posix = {
    .kind = "directory",
    .open = p_open,
    .close = p_close,
    .ctx_new = p_ctx_new,
    .ctx_free = p_ctx_free,
    .exec = p_exec,
    .prep = p_prep,
};
