/* SPDX-License-Identifier: MIT */
/* --verify: the replayed tree beside a reference tree (a directory or an NFS export): names,
 * types, sizes, modes, link counts, symbolic link targets, device numbers, content hashes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <nfsc/libnfs.h>

#include "replay/nfs_int.h"

#define DEPTH_MAX 256
#define BUF (1u << 20)
#define NFS_READ (32u << 10) /* libnfs reads in pieces it can always encode and decode */

/* One name in a directory, as both kinds of tree describe it. */
struct vent {
	char *name;
	unsigned type; /* S_IFMT bits */
	unsigned mode; /* 07777 */
	uint64_t size, nlink, rdev;
};

/* A tree: a local directory (fd) or an NFS export (nfs). */
struct vtree {
	const char *where;
	int root;
	struct nfs_context *nfs;
	uint8_t *buf;
	uint64_t hashed;
};

static int cmp_ent(const void *a, const void *b)
{
	return strcmp(((const struct vent *)a)->name, ((const struct vent *)b)->name);
}

static void ents_free(struct vent *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

static int push(struct vent **v, size_t *n, size_t *cap, const char *name)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		struct vent *p = realloc(*v, nc * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*v = p;
		*cap = nc;
	}
	memset(&(*v)[*n], 0, sizeof(**v));
	if (!((*v)[*n].name = strdup(name)))
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* rel beneath the tree's root, never through a symbolic link */
static int open_local(const struct vtree *t, const char *rel, int flags)
{
	struct open_how how = {
	    .flags = (uint64_t)flags | O_CLOEXEC | O_NOFOLLOW,
	    .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, t->root, *rel ? rel : ".", &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

static int list_local(struct vtree *t, const char *rel, struct vent **out, size_t *nout)
{
	int fd = open_local(t, rel, O_RDONLY | O_DIRECTORY), ret = 0;
	struct vent *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return fd;
	if (!(d = fdopendir(fd))) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while (!ret && (de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			ret = -errno;
			break;
		}
		if ((ret = push(&v, &n, &cap, de->d_name)))
			break;
		v[n - 1].type = st.st_mode & S_IFMT;
		v[n - 1].mode = st.st_mode & 07777;
		v[n - 1].size = (uint64_t)st.st_size;
		v[n - 1].nlink = st.st_nlink;
		v[n - 1].rdev = st.st_rdev;
	}
	closedir(d);
	if (ret) {
		ents_free(v, n);
		return ret;
	}
	*out = v;
	*nout = n;
	return 0;
}

static int list_nfs(struct vtree *t, const char *rel, struct vent **out, size_t *nout)
{
	char p[4200];
	struct nfsdir *d;
	struct nfsdirent *de;
	struct vent *v = NULL;
	size_t n = 0, cap = 0;
	int ret;

	snprintf(p, sizeof(p), "/%s", rel);
	if ((ret = nfs_opendir(t->nfs, p, &d)))
		return ret;
	while ((de = nfs_readdir(t->nfs, d))) {
		static const unsigned types[] = {0,       S_IFREG, S_IFDIR,  S_IFBLK,
		                                 S_IFCHR, S_IFLNK, S_IFSOCK, S_IFIFO};

		if (!strcmp(de->name, ".") || !strcmp(de->name, ".."))
			continue;
		if ((ret = push(&v, &n, &cap, de->name)))
			break;
		v[n - 1].type = de->type < 8 ? types[de->type] : 0;
		v[n - 1].mode = de->mode & 07777;
		v[n - 1].size = de->size;
		v[n - 1].nlink = de->nlink;
		v[n - 1].rdev = de->rdev;
	}
	nfs_closedir(t->nfs, d);
	if (ret) {
		ents_free(v, n);
		return ret;
	}
	*out = v;
	*nout = n;
	return 0;
}

static int readlink_at(struct vtree *t, const char *rel, char *buf, size_t len)
{
	char p[4200];
	ssize_t n;
	int fd;

	if (t->nfs) {
		snprintf(p, sizeof(p), "/%s", rel);
		return nfs_readlink(t->nfs, p, buf, (int)len);
	}
	fd = open_local(t, rel, O_PATH);
	if (fd < 0)
		return fd;
	n = readlinkat(fd, "", buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

/* a 64-bit hash of a file's content, eight bytes a step */
static uint64_t hash_more(uint64_t h, const uint8_t *p, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	for (; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static int hash_file(struct vtree *t, const char *rel, uint64_t *out)
{
	uint64_t h = NR_HASH0, off = 0;
	int ret = 0;

	if (t->nfs) {
		char p[4200];
		struct nfsfh *fh;
		int n;

		snprintf(p, sizeof(p), "/%s", rel);
		if ((ret = nfs_open(t->nfs, p, O_RDONLY, &fh)))
			return ret;
		while ((n = nfs_pread(t->nfs, fh, off, NFS_READ, t->buf)) > 0) {
			h = hash_more(h, t->buf, (size_t)n);
			off += (uint64_t)n;
		}
		ret = n < 0 ? n : 0;
		nfs_close(t->nfs, fh);
	} else {
		/* a regular file: listed as one, and opened without blocking or following */
		int fd = open_local(t, rel, O_RDONLY | O_NONBLOCK);
		struct stat st;
		ssize_t n;

		if (fd < 0)
			return fd;
		if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
			close(fd);
			return -EINVAL;
		}
		while ((n = read(fd, t->buf, BUF)) > 0) {
			h = hash_more(h, t->buf, (size_t)n);
			off += (uint64_t)n;
		}
		ret = n < 0 ? -errno : 0;
		close(fd);
	}
	t->hashed += off;
	*out = h ^ off;
	return ret;
}

struct verify {
	struct vtree a, b; /* the replay's, the reference */
	struct nfs_verify_result *r;
	char path[4096];
};

static void differs(struct verify *v, const char *rel, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void differs(struct verify *v, const char *rel, const char *fmt, ...)
{
	struct nfs_verify_result *r = v->r;
	va_list ap;

	r->differences++;
	if (r->nshown >= NR_VERIFY_SHOWN)
		return;
	snprintf(r->shown[r->nshown].path, sizeof(r->shown[0].path), "%s", *rel ? rel : ".");
	va_start(ap, fmt);
	vsnprintf(r->shown[r->nshown].what, sizeof(r->shown[0].what), fmt, ap);
	va_end(ap);
	r->nshown++;
}

static const char *type_name(unsigned t)
{
	switch (t) {
	case S_IFREG:
		return "file";
	case S_IFDIR:
		return "directory";
	case S_IFLNK:
		return "symbolic link";
	case S_IFIFO:
		return "FIFO";
	case S_IFSOCK:
		return "socket";
	case S_IFCHR:
		return "character device";
	case S_IFBLK:
		return "block device";
	default:
		return "?";
	}
}

static int walk(struct verify *v, const char *rel, unsigned depth);

/* One name both trees have. */
static int compare(struct verify *v, const char *rel, const struct vent *x, const struct vent *y,
                   unsigned depth)
{
	int ret;

	if (x->type != y->type) {
		differs(v, rel, "a %s, the reference's a %s", type_name(x->type),
		        type_name(y->type));
		return 0;
	}
	if (x->type != S_IFLNK && x->mode != y->mode)
		differs(v, rel, "mode %04o, the reference's %04o", x->mode, y->mode);
	switch (x->type) {
	case S_IFDIR:
		return depth < DEPTH_MAX ? walk(v, rel, depth + 1) : 0;
	case S_IFLNK: {
		char la[4096], lb[4096];

		if ((ret = readlink_at(&v->a, rel, la, sizeof(la))) ||
		    (ret = readlink_at(&v->b, rel, lb, sizeof(lb))))
			return ret;
		if (strcmp(la, lb))
			differs(v, rel, "links to '%.200s', the reference's to '%.200s'", la, lb);
		return 0;
	}
	case S_IFREG: {
		uint64_t ha, hb;

		if (x->nlink != y->nlink)
			differs(v, rel, "%llu links, the reference's %llu",
			        (unsigned long long)x->nlink, (unsigned long long)y->nlink);
		if (x->size != y->size) {
			differs(v, rel, "%llu bytes, the reference's %llu",
			        (unsigned long long)x->size, (unsigned long long)y->size);
			return 0;
		}
		if ((ret = hash_file(&v->a, rel, &ha)) || (ret = hash_file(&v->b, rel, &hb)))
			return ret;
		if (ha != hb)
			differs(v, rel, "another content (hash %016llx, the reference's %016llx)",
			        (unsigned long long)ha, (unsigned long long)hb);
		return 0;
	}
	case S_IFCHR:
	case S_IFBLK:
		if (x->rdev != y->rdev)
			differs(v, rel, "device %llx, the reference's %llx",
			        (unsigned long long)x->rdev, (unsigned long long)y->rdev);
		return 0;
	default:
		return 0;
	}
}

/* The directory rel of both trees, name by name in sorted order. */
static int walk(struct verify *v, const char *rel, unsigned depth)
{
	struct vent *ea = NULL, *eb = NULL;
	size_t na = 0, nb = 0, i = 0, k = 0, len = strlen(rel);
	int ret;

	if ((ret = (v->a.nfs ? list_nfs : list_local)(&v->a, rel, &ea, &na)))
		return ret;
	if ((ret = (v->b.nfs ? list_nfs : list_local)(&v->b, rel, &eb, &nb))) {
		ents_free(ea, na);
		return ret;
	}
	if (na) /* an empty directory's list is NULL, which qsort() must not get */
		qsort(ea, na, sizeof(*ea), cmp_ent);
	if (nb)
		qsort(eb, nb, sizeof(*eb), cmp_ent);
	while (!ret && (i < na || k < nb)) {
		int c = i == na ? 1 : k == nb ? -1 : strcmp(ea[i].name, eb[k].name);
		const char *name = c <= 0 ? ea[i].name : eb[k].name;
		char *sub = v->path;

		if (len + 1 + strlen(name) >= sizeof(v->path)) {
			ret = -ENAMETOOLONG;
			break;
		}
		/* rel is v->path's own prefix (or ""): the child's path written after it */
		if (rel != v->path)
			memcpy(v->path, rel, len + 1);
		snprintf(sub + len, sizeof(v->path) - len, "%s%s", len ? "/" : "", name);
		v->r->entries++;
		if (c < 0)
			differs(v, sub, "not in the reference (a %s)", type_name(ea[i].type));
		else if (c > 0)
			differs(v, sub, "missing (the reference has a %s)", type_name(eb[k].type));
		else
			ret = compare(v, sub, &ea[i], &eb[k], depth);
		v->path[len] = 0;
		i += c <= 0;
		k += c >= 0;
	}
	ents_free(ea, na);
	ents_free(eb, nb);
	return ret;
}

static int tree_open(struct vtree *t, const char *where, struct iot_err *e)
{
	int ret;

	t->where = where;
	t->root = -1;
	if (!strncmp(where, "nfs://", 6))
		return nr_mount_url("--verify", where, &t->nfs, e);
	t->root = open(where, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->root < 0) {
		ret = -errno;
		return iot_err_set(e, ret, "--verify: '%s': %s", where, strerror(-ret));
	}
	return 0;
}

static void tree_close(struct vtree *t)
{
	if (t->nfs)
		nfs_destroy_context(t->nfs);
	if (t->root >= 0)
		close(t->root);
	free(t->buf);
}

int nfs_replay_verify(const char *tree, const char *ref, struct nfs_verify_result *r,
                      struct iot_err *e)
{
	struct verify v = {.r = r};
	int ret;

	memset(r, 0, sizeof(*r));
	v.a.root = v.b.root = -1;
	if ((ret = tree_open(&v.a, tree, e)) || (ret = tree_open(&v.b, ref, e)))
		goto out;
	if (!(v.a.buf = malloc(BUF)) || !(v.b.buf = malloc(BUF))) {
		ret = iot_err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	v.path[0] = 0;
	ret = walk(&v, v.path, 0);
	if (ret)
		iot_err_set(e, ret, "--verify: '%s' beside '%s': %s", tree, ref, strerror(-ret));
	r->bytes = v.a.hashed + v.b.hashed;
out:
	tree_close(&v.a);
	tree_close(&v.b);
	return ret;
}
