/* SPDX-License-Identifier: MIT */
/* NFS replay onto a local directory: POSIX calls, every path opened beneath the root. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stdatomic.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "replay/nfs_int.h"

#define IO_MAX (1u << 20) /* the largest READ or WRITE done in one call */

/* Refusals the target decides (beside -errno): what it must not open, or not write. */
#define E_SPECIAL 100001 /* a FIFO, socket or device node where the call moves data */
#define E_LINKED 100002  /* a file with another link, not one the replay made */

/* The files the replay gave a second name (LINK): written through any of their names. */
struct linked {
	pthread_mutex_t mu;
	struct {
		dev_t dev;
		ino_t ino;
		bool used;
	} * v; /* a hash set of (dev, ino) */
	size_t n, cap;
};

struct ptgt {
	int root;       /* O_PATH descriptor of the target directory */
	bool root_user; /* may give files away: owners and groups are set */
	struct linked links;
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

/* The slot of (dev, ino) in the open-addressed table (cap a power of two, never full). */
static size_t linked_slot(const struct linked *l, dev_t dev, ino_t ino)
{
	uint64_t h =
	    ((uint64_t)ino * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)dev * 0xff51afd7ed558ccdull);
	size_t i = (size_t)(h ^ h >> 32) & (l->cap - 1);

	while (l->v[i].used && (l->v[i].dev != dev || l->v[i].ino != ino))
		i = (i + 1) & (l->cap - 1);
	return i;
}

static bool linked_has(struct linked *l, const struct stat *st)
{
	bool found;

	pthread_mutex_lock(&l->mu);
	found = l->cap && l->v[linked_slot(l, st->st_dev, st->st_ino)].used;
	pthread_mutex_unlock(&l->mu);
	return found;
}

static void linked_add(struct linked *l, const struct stat *st)
{
	size_t i;

	pthread_mutex_lock(&l->mu);
	if ((l->n + 1) * 2 > l->cap) {
		struct linked g = {.cap = l->cap ? l->cap * 2 : 64};

		/* not remembered when memory runs out: writes through its names are refused */
		if (!(g.v = calloc(g.cap, sizeof(*g.v)))) {
			pthread_mutex_unlock(&l->mu);
			return;
		}
		for (size_t k = 0; k < l->cap; k++)
			if (l->v[k].used)
				g.v[linked_slot(&g, l->v[k].dev, l->v[k].ino)] = l->v[k];
		free(l->v);
		l->v = g.v;
		l->cap = g.cap;
	}
	i = linked_slot(l, st->st_dev, st->st_ino);
	if (!l->v[i].used) {
		l->v[i].dev = st->st_dev;
		l->v[i].ino = st->st_ino;
		l->v[i].used = true;
		l->n++;
	}
	pthread_mutex_unlock(&l->mu);
}

/*
 * What a call may change through: a regular file with one link, or links the replay made
 * (a file in the target hard-linked to one outside it is refused, -E_LINKED). A FIFO,
 * socket or device node is refused for data (-E_SPECIAL) and for nothing else.
 */
static int may_change(struct ptgt *t, const struct stat *st, bool data)
{
	if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode) && !S_ISLNK(st->st_mode))
		return data ? -E_SPECIAL : 0;
	if (S_ISREG(st->st_mode) && st->st_nlink > 1 && !linked_has(&t->links, st))
		return -E_LINKED;
	return 0;
}

/*
 * Open path for data (READ, WRITE, COMMIT, a truncate): only a regular file or a directory
 * is opened, so an open never blocks (a FIFO waits for its other end) and never reaches a
 * driver; the type is checked on an O_PATH descriptor first, and again on what was opened
 * (O_NONBLOCK, O_NOFOLLOW), which must be the same file. write: the file must be one the
 * replay may change (may_change). Returns the descriptor or -errno / -E_SPECIAL / -E_LINKED.
 */
static int open_data(struct ptgt *t, const char *path, int flags, bool write)
{
	struct stat a, b;
	int fd = openat2_beneath(t->root, path, O_PATH | O_NOFOLLOW, 0), ret;

	if (fd < 0)
		return fd;
	ret = fstat(fd, &a) ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	if (!S_ISREG(a.st_mode) && !S_ISDIR(a.st_mode) && !S_ISLNK(a.st_mode))
		return -E_SPECIAL;
	if (write && (ret = may_change(t, &a, true)))
		return ret;
	fd = openat2_beneath(t->root, path, flags | O_NOFOLLOW | O_NONBLOCK, 0);
	if (fd < 0)
		return fd;
	if (fstat(fd, &b) || b.st_dev != a.st_dev || b.st_ino != a.st_ino ||
	    (b.st_mode & S_IFMT) != (a.st_mode & S_IFMT) || (write && b.st_nlink > a.st_nlink)) {
		close(fd);
		return -E_SPECIAL; /* changed under us: not the file that was checked */
	}
	return fd;
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
	pthread_mutex_init(&t->links.mu, NULL);
	t->root_user = geteuid() == 0;
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
		pthread_mutex_destroy(&t->links.mu);
		free(t->links.v);
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

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452 /* Linux 6.6; the same number on every architecture */
#endif

/*
 * chmod of the file fd refers to, an O_PATH descriptor included: fchmod() wants a descriptor
 * opened for IO (which a FIFO or a device must never get), and glibc 2.36's fchmodat() refuses
 * AT_EMPTY_PATH (EINVAL) without asking the kernel. fchmodat2 takes it (Linux 6.6); on an
 * older kernel (ENOSYS, remembered) /proc/self/fd/N names the file. Never for a symbolic
 * link: chmod() would follow it. how: NR_CHMOD_AUTO, or one of the two alone (the tests).
 */
int nr_chmod_fd(int fd, unsigned mode, int how)
{
	static atomic_int no_fchmodat2;
	char p[40];

	if (how != NR_CHMOD_PROC && !atomic_load(&no_fchmodat2)) {
		if (!syscall(SYS_fchmodat2, fd, "", (mode_t)mode, AT_EMPTY_PATH))
			return 0;
		if (errno != ENOSYS || how == NR_CHMOD_FCHMODAT2)
			return -errno;
		atomic_store(&no_fchmodat2, 1);
	}
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	return chmod(p, (mode_t)mode) ? -errno : 0;
}

/*
 * The attributes a SETATTR (or a create) sets, but the size, on fd (any descriptor of the
 * file, O_PATH too): owner and group first (a chown clears the set-user-ID bit a mode sets),
 * as root only (else op->attrs_skipped), then the mode (not of a symbolic link: Linux has
 * none), then the times (a truncate before them moved the mtime).
 */
static int set_attrs(struct ptgt *t, int fd, const struct stat *st, struct nr_op *op)
{
	int ret;

	if (op->set & (NFS_SET_UID | NFS_SET_GID)) {
		uid_t uid = (op->set & NFS_SET_UID) ? (uid_t)op->uid : (uid_t)-1;
		gid_t gid = (op->set & NFS_SET_GID) ? (gid_t)op->gid : (gid_t)-1;

		if (!t->root_user)
			op->attrs_skipped = true;
		else if (fchownat(fd, "", uid, gid, AT_EMPTY_PATH))
			return -errno;
	}
	if ((op->set & NFS_SET_MODE) && !S_ISLNK(st->st_mode) &&
	    (ret = nr_chmod_fd(fd, op->mode, NR_CHMOD_AUTO)))
		return ret;
	if (op->set & (NFS_SET_ATIME | NFS_SET_MTIME | NFS_SET_ATIME_NOW | NFS_SET_MTIME_NOW)) {
		struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_nsec = UTIME_OMIT}};

		if (op->set & NFS_SET_ATIME)
			ts[0] = (struct timespec){.tv_sec = op->atime_s, .tv_nsec = op->atime_ns};
		else if (op->set & NFS_SET_ATIME_NOW)
			ts[0].tv_nsec = UTIME_NOW;
		if (op->set & NFS_SET_MTIME)
			ts[1] = (struct timespec){.tv_sec = op->mtime_s, .tv_nsec = op->mtime_ns};
		else if (op->set & NFS_SET_MTIME_NOW)
			ts[1].tv_nsec = UTIME_NOW;
		if (utimensat(fd, "", ts, AT_EMPTY_PATH))
			return -errno;
	}
	return 0;
}

/* What was made at path (a directory, link or node): its attributes set as the call says. */
static int set_attrs_at(struct ptgt *t, const char *path, struct nr_op *op)
{
	struct stat st;
	int fd, ret;

	if (!(op->set & ~NFS_SET_SIZE))
		return 0;
	fd = openat2_beneath(t->root, path, O_PATH | O_NOFOLLOW, 0);
	if (fd < 0)
		return fd;
	ret = fstat(fd, &st) ? -errno : set_attrs(t, fd, &st, op);
	close(fd);
	return ret;
}

/* n bytes of p at off (again after a short write); 0 or -errno, *done the bytes written */
static int pwrite_all(int fd, const uint8_t *p, size_t n, uint64_t off, uint64_t *done)
{
	while (n) {
		ssize_t k = pwrite(fd, p, n, (off_t)off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		p += k;
		n -= (size_t)k;
		off += (uint64_t)k;
		*done += (uint64_t)k;
	}
	return 0;
}

/* A WRITE: the capture's payload, and a generated pattern for what the capture does not hold
 * of it (the snaplen cut it), count bytes in all. */
static int write_all(struct pctx *c, int fd, const struct nr_op *op, uint64_t *done)
{
	uint64_t off = op->off + op->wlen, left = op->count - op->wlen;
	int ret = pwrite_all(fd, op->wdata, op->wlen, op->off, done);

	while (!ret && left) {
		size_t k = left < IO_MAX ? (size_t)left : IO_MAX;

		ret = pwrite_all(fd, c->buf, k, off, done);
		off += k;
		left -= k;
	}
	return ret;
}

/*
 * CREATE (v3) and OPEN with create (v4): a new regular file, or (unless exclusive) the one
 * there, opened for writing as open_data() opens it; a descriptor or -errno.
 */
static int create_file(struct ptgt *t, const struct nr_op *op, bool *made)
{
	mode_t mode = (op->set & NFS_SET_MODE) ? op->mode : 0644;

	for (int k = 0; k < 2; k++) {
		int fd = openat2_beneath(t->root, op->path, O_RDWR | O_CREAT | O_EXCL, mode);

		if (fd != -EEXIST) {
			*made = fd >= 0;
			return fd;
		}
		if (op->exclusive)
			return -EEXIST;
		fd = open_data(t, op->path, O_RDWR, (op->set & NFS_SET_SIZE) != 0);
		if (fd != -ENOENT) /* removed between the two: once more */
			return fd;
	}
	return -EEXIST;
}

/* What a MKNOD (or v4 CREATE) makes: a FIFO, socket, character or block device. */
static mode_t node_type(const struct nr_op *op)
{
	switch (op->ftype) {
	case NFS_FT_FIFO:
		return S_IFIFO;
	case NFS_FT_CHR:
		return S_IFCHR;
	case NFS_FT_BLK:
		return S_IFBLK;
	default:
		return S_IFSOCK;
	}
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
		if (op->set & NFS_SET_SIZE) {
			fd = open_data(t, op->path, O_WRONLY, true);
			if (fd >= 0 && ftruncate(fd, (off_t)op->size))
				ret = -errno;
		} else {
			fd = openat2_beneath(t->root, op->path, O_PATH | O_NOFOLLOW, 0);
		}
		if (fd >= 0 && !ret)
			ret = fstat(fd, &st) ? -errno : may_change(t, &st, false);
		if (fd >= 0 && !ret)
			ret = set_attrs(t, fd, &st, op);
		break;
	case NR_READ:
		fd = open_data(t, op->path, O_RDONLY, false);
		if (fd >= 0) {
			n = pread(fd, c->buf, (size_t)io_len(op), (off_t)op->off);
			if (n < 0)
				ret = -errno;
			else
				*bytes = (uint64_t)n;
		}
		break;
	case NR_WRITE:
		fd = open_data(t, op->path, O_WRONLY, true);
		if (fd >= 0) {
			ret = write_all(c, fd, op, bytes);
			if (!ret && op->stable && fdatasync(fd))
				ret = -errno;
		}
		break;
	case NR_COMMIT:
		fd = open_data(t, op->path, O_RDONLY, false);
		if (fd >= 0 && fdatasync(fd))
			ret = -errno;
		break;
	case NR_OPEN:
		/* an OPEN of a file that exists only checks it can be opened (its READs and
		 * WRITEs open their own descriptors) */
		fd = open_data(t, op->path, O_RDONLY, false);
		break;
	case NR_CREATE: {
		bool made = false;

		fd = create_file(t, op, &made);
		if (fd >= 0 && (op->set & NFS_SET_SIZE) && ftruncate(fd, (off_t)op->size))
			ret = -errno;
		/* a new file gets the call's attributes exactly (the umask took bits of the
		 * mode); one that was there keeps its own, as on a server */
		if (fd >= 0 && !ret && made)
			ret = fstat(fd, &st) ? -errno : set_attrs(t, fd, &st, op);
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
			ret =
			    mknodat(fd, name, node_type(op) | 0644, makedev(op->spec1, op->spec2));
		ret = ret ? -errno : set_attrs_at(t, op->path, op);
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
		if (op->act == NR_RENAME) {
			ret = renameat(fd, name, fd2, name2) ? -errno : 0;
		} else {
			/* a file of one link, or of links the replay made, may be written through
			 * the new one too; one linked from elsewhere stays refused */
			bool ours = !fstat(fd, &st) && S_ISREG(st.st_mode) &&
			            (st.st_nlink == 1 || linked_has(&t->links, &st));

			ret = linkat(fd, "", fd2, name2, AT_EMPTY_PATH) ? -errno : 0;
			if (!ret && ours)
				linked_add(&t->links, &st);
		}
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
		fd = open_data(t, op->path, O_WRONLY, true);
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
	op->rep_status = ret == -EXDEV       ? NR_ESCAPE
	                 : ret == -E_SPECIAL ? NR_SPECIAL
	                 : ret == -E_LINKED  ? NR_LINKED
	                                     : nr_errno_status(-ret);
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
	/* a file there already (--force) is opened as the replay's writes open it: a FIFO,
	 * a device or a file linked from elsewhere is left as it is */
	fd = openat2_beneath(c->t->root, path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd == -EEXIST)
		fd = open_data(c->t, path, O_WRONLY, true);
	if (fd < 0)
		return fd < -4095 ? -EPERM : fd;
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
