/* SPDX-License-Identifier: MIT */
/* --prepare: a first pass over the capture finds what the workload uses before it creates it,
 * and makes it in the target (directories, files of the sizes the capture shows, links). */
#include <errno.h>
#include <stdio.h> /* asprintf */
#include <stdlib.h>
#include <string.h>

#include "replay/nfs_int.h"

struct ent {
	char *path;
	uint64_t hash, size;
	uint8_t ftype;
	bool known;   /* the workload has seen it (used, made, removed, or looked up in vain) */
	bool need;    /* first seen in use: it must exist at the start */
	bool touched; /* the workload changed it: later sizes are its own */
	bool parent;  /* something was seen under it */
};

struct ptab {
	struct ent *e;
	size_t n, cap; /* cap: a power of two */
	size_t mem;
};

static struct ent *find(struct ptab *t, const char *p, size_t len, bool add)
{
	uint64_t h = nr_hash(p, len, NR_HASH0);
	size_t i;

	if (add && (t->n + 1) * 2 > t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 1024;
		struct ent *ne = calloc(nc, sizeof(*ne));

		if (!ne)
			return NULL;
		for (size_t k = 0; k < t->cap; k++) {
			if (!t->e[k].path)
				continue;
			for (i = t->e[k].hash & (nc - 1); ne[i].path; i = (i + 1) & (nc - 1))
				;
			ne[i] = t->e[k];
		}
		free(t->e);
		t->e = ne;
		t->cap = nc;
	}
	if (!t->cap)
		return NULL;
	for (i = h & (t->cap - 1); t->e[i].path; i = (i + 1) & (t->cap - 1))
		if (t->e[i].hash == h && !strncmp(t->e[i].path, p, len) && !t->e[i].path[len])
			return &t->e[i];
	if (!add)
		return NULL;
	if (!(t->e[i].path = strndup(p, len)))
		return NULL;
	t->e[i].hash = h;
	t->mem += len + 1 + sizeof(struct ent);
	t->n++;
	return &t->e[i];
}

/* path is needed at the start unless the workload made it (or removed it) before */
static void need(struct ptab *t, const char *p, size_t len, unsigned ftype)
{
	struct ent *x;

	if (!len)
		return; /* the root */
	x = find(t, p, len, true);
	if (!x)
		return;
	if (!x->known) {
		x->known = x->need = true;
		x->ftype = (uint8_t)ftype;
	} else if (x->need && ftype == NFS_FT_DIR) {
		x->ftype = NFS_FT_DIR; /* seen as a parent: a directory */
	}
}

static void parents(struct ptab *t, const char *p)
{
	for (const char *s = strchr(p, '/'); s; s = strchr(s + 1, '/')) {
		struct ent *x;

		need(t, p, (size_t)(s - p), NFS_FT_DIR);
		if ((x = find(t, p, (size_t)(s - p), false)))
			x->parent = true;
	}
}

/* A directory renamed: what was known under its old name is known under the new one. */
static void moved(struct ptab *t, const char *from, const char *to)
{
	size_t fl = strlen(from), n = 0;
	char **list;
	struct ent *x = find(t, from, fl, false);

	if (!x || !x->parent || !(list = calloc(t->n + 1, sizeof(*list))))
		return;
	for (size_t i = 0; i < t->cap; i++) {
		const char *p = t->e[i].path;

		if (p && t->e[i].known && !strncmp(p, from, fl) && p[fl] == '/' &&
		    asprintf(&list[n], "%s%s", to, p + fl) > 0)
			n++;
	}
	for (size_t i = 0; i < n; i++) {
		struct ent *y = find(t, list[i], strlen(list[i]), true);

		if (y) {
			y->known = true;
			y->parent = true;
		}
		free(list[i]);
	}
	free(list);
}

/* made or removed by the workload: known from now on */
static void seen(struct ptab *t, const char *p)
{
	struct ent *x = *p ? find(t, p, strlen(p), true) : NULL;

	if (x) {
		x->known = true;
		x->touched = true;
	}
}

static void learn(struct ptab *t, const struct nr_op *op)
{
	bool ok = op->answered && !op->cap_status;
	bool noent = op->answered && op->cap_status == 2;
	unsigned type = op->act == NR_READDIR || op->act == NR_RMDIR ? NFS_FT_DIR
	                : op->act == NR_READLINK                     ? NFS_FT_LNK
	                                                             : NFS_FT_REG;
	struct ent *x;

	parents(t, op->path);
	if (op->path2)
		parents(t, op->path2);
	if (noent && *op->path) {
		x = find(t, op->path, strlen(op->path), true);
		if (x)
			x->known = true; /* missing at the start: a failed lookup fails again */
		return;
	}
	if (!ok)
		return;
	switch (op->act) {
	case NR_CREATE:
	case NR_MKDIR:
	case NR_SYMLINK:
	case NR_MKNOD:
		seen(t, op->path);
		return;
	case NR_REMOVE:
	case NR_RMDIR:
		need(t, op->path, strlen(op->path), type);
		seen(t, op->path);
		return;
	case NR_RENAME:
		need(t, op->path, strlen(op->path), NFS_FT_REG);
		moved(t, op->path, op->path2);
		seen(t, op->path);
		seen(t, op->path2);
		return;
	case NR_LINK:
		need(t, op->path, strlen(op->path), NFS_FT_REG);
		seen(t, op->path2);
		return;
	default:
		break;
	}
	if (!*op->path)
		return;
	need(t, op->path, strlen(op->path), type);
	x = find(t, op->path, strlen(op->path), false);
	if (!x || !x->need || x->touched)
		return;
	if (op->has_size && op->attr_size > x->size && op->act != NR_WRITE && op->act != NR_SETATTR)
		x->size = op->attr_size;
	if (op->act == NR_READ && op->off + op->cap_count > x->size)
		x->size = op->off + op->cap_count;
	if (op->act == NR_WRITE || op->act == NR_SETATTR || op->act == NR_ALLOCATE ||
	    op->act == NR_DEALLOCATE)
		x->touched = true;
}

static int by_length(const void *a, const void *b)
{
	const struct ent *x = *(const struct ent *const *)a, *y = *(const struct ent *const *)b;
	size_t lx = strlen(x->path), ly = strlen(y->path);

	return lx < ly ? -1 : lx > ly;
}

int nr_prepare(const struct nfs_replay_opts *o, const struct nr_target_ops *tg, void *ctx,
               struct nfs_replay_stats *st, struct iot_err *e)
{
	struct nfs_replay_stats scratch = {0};
	struct nfs_replay_opts po = *o;
	struct nr_source *src;
	struct ptab t = {0};
	struct nr_op *op;
	struct ent **list = NULL;
	size_t n = 0;
	int ret, err = 0;

	po.notice = NULL; /* the replay's pass says it */
	if ((ret = nr_source_open(&src, &po, &scratch, e)))
		goto out;
	while ((op = nr_source_next(src, &err, e))) {
		if (op->act != NR_SKIP && !op->refused)
			learn(&t, op);
		free(op);
	}
	nr_source_free(src);
	if (err) {
		ret = err;
		goto out;
	}
	if (t.mem + scratch.peak_mem > st->peak_mem)
		st->peak_mem = t.mem + scratch.peak_mem;
	list = calloc(t.n + 1, sizeof(*list));
	if (!list) {
		ret = iot_err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < t.cap; i++)
		if (t.e[i].path && t.e[i].need)
			list[n++] = &t.e[i];
	qsort(list, n, sizeof(*list), by_length); /* parents before their children */
	for (size_t i = 0; i < n; i++) {
		struct ent *x = list[i];
		int r = tg->prep(ctx, x->path, x->ftype, x->size);

		if (r) {
			st->prep_failed++;
			continue;
		}
		if (x->ftype == NFS_FT_DIR)
			st->prep_dirs++;
		else if (x->ftype == NFS_FT_LNK)
			st->prep_links++;
		else {
			st->prep_files++;
			st->prep_bytes += x->size;
		}
	}
out:
	free(list);
	for (size_t i = 0; i < t.cap; i++)
		free(t.e[i].path);
	free(t.e);
	nfs_replay_stats_release(&scratch);
	return ret;
}
