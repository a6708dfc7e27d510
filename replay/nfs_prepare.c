/* SPDX-License-Identifier: MIT */
/* --prepare: a first pass over the capture finds what the workload uses before it creates it,
 * and makes it in the target (directories, files of the sizes the capture shows, links). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/nfs_int.h"

#define NONE UINT32_MAX
#define DEPTH_MAX 2048 /* components of a path at the start (a path is at most 4 KiB) */
#define PATH_CAP 4096

/*
 * A tree of the names the workload has seen, each node the object at that name: a rename
 * moves a node (and so everything under it) in one step, whatever it holds, so the pass is
 * linear in the calls; a table of paths had to be rescanned and copied on every rename of a
 * directory (1000 renames of a 1000-file directory took 93 s). A node keeps the place it had
 * at the start (start parent, start name) when it is needed there; a name the workload made,
 * removed or renamed away stays in the tree as known, so that what comes there later is
 * not taken for something that existed at the start.
 */
struct pnode {
	uint32_t parent;  /* where it is now (NONE: replaced or removed) */
	uint32_t sparent; /* need: its parent at the start */
	uint32_t hnext;   /* the (parent, name) hash chain */
	char *name;       /* now */
	char *sname;      /* need: its name at the start (the same string until it is renamed) */
	uint64_t size;
	uint8_t ftype;
	bool known;   /* the workload has seen it (used, made, removed, or looked up in vain) */
	bool need;    /* first seen in use: it must exist at the start */
	bool touched; /* the workload changed it: later sizes are its own */
};

struct ptree {
	struct pnode *n;
	uint32_t nn, cap;
	uint32_t *idx; /* hash heads */
	uint32_t mask;
	size_t mem;
	bool oom;
};

static uint64_t key(uint32_t parent, const char *name, size_t len)
{
	return nr_hash(name, len, NR_HASH0 ^ ((uint64_t)parent * 0x9e3779b97f4a7c15ull));
}

static int grow_index(struct ptree *t)
{
	uint32_t nb = t->mask ? (t->mask + 1) * 2 : 1024;
	uint32_t *ni = malloc((size_t)nb * sizeof(*ni));

	if (!ni)
		return -ENOMEM;
	memset(ni, 0xff, (size_t)nb * sizeof(*ni));
	for (uint32_t i = 0; i < t->nn; i++) {
		struct pnode *x = &t->n[i];
		uint32_t h;

		if (x->parent == NONE)
			continue;
		h = (uint32_t)key(x->parent, x->name, strlen(x->name)) & (nb - 1);
		x->hnext = ni[h];
		ni[h] = i;
	}
	t->mem += (size_t)(nb - (t->mask ? t->mask + 1 : 0)) * sizeof(*ni);
	free(t->idx);
	t->idx = ni;
	t->mask = nb - 1;
	return 0;
}

static uint32_t child(const struct ptree *t, uint32_t parent, const char *name, size_t len)
{
	uint32_t id = t->idx[key(parent, name, len) & t->mask];

	for (; id != NONE; id = t->n[id].hnext)
		if (t->n[id].parent == parent && !strncmp(t->n[id].name, name, len) &&
		    !t->n[id].name[len])
			return id;
	return NONE;
}

static void link_in(struct ptree *t, uint32_t id, uint32_t parent)
{
	struct pnode *x = &t->n[id];
	uint32_t *h = &t->idx[key(parent, x->name, strlen(x->name)) & t->mask];

	x->parent = parent;
	x->hnext = *h;
	*h = id;
}

static void unlink_out(struct ptree *t, uint32_t id)
{
	struct pnode *x = &t->n[id];
	uint32_t *pp = &t->idx[key(x->parent, x->name, strlen(x->name)) & t->mask];

	while (*pp != NONE && *pp != id)
		pp = &t->n[*pp].hnext;
	if (*pp == id)
		*pp = x->hnext;
	x->parent = NONE;
}

/* A new node called name (len bytes) under parent; NONE when memory ran out. */
static uint32_t node_new(struct ptree *t, uint32_t parent, const char *name, size_t len)
{
	struct pnode *x;

	if (t->nn == t->cap) {
		uint32_t nc = t->cap ? t->cap * 2 : 1024;
		struct pnode *p = nc > t->cap ? realloc(t->n, (size_t)nc * sizeof(*p)) : NULL;

		if (!p) {
			t->oom = true;
			return NONE;
		}
		t->mem += (size_t)(nc - t->cap) * sizeof(*p);
		t->n = p;
		t->cap = nc;
	}
	if ((t->nn + 1) * 2 > t->mask + 1 && grow_index(t)) {
		t->oom = true;
		return NONE;
	}
	x = &t->n[t->nn];
	memset(x, 0, sizeof(*x));
	x->parent = x->sparent = x->hnext = NONE;
	if (!(x->name = strndup(name, len))) {
		t->oom = true;
		return NONE;
	}
	t->mem += len + 1;
	if (parent != NONE) /* the root is in no index */
		link_in(t, t->nn, parent);
	return t->nn++;
}

/* The node at path (components joined by '/'), made (unknown) where missing when add; the
 * root is node 0. */
static uint32_t walk(struct ptree *t, const char *p, bool add)
{
	uint32_t id = 0;

	while (*p && id != NONE) {
		const char *s = strchr(p, '/');
		size_t len = s ? (size_t)(s - p) : strlen(p);
		uint32_t c = child(t, id, p, len);

		if (c == NONE && add)
			c = node_new(t, id, p, len);
		id = c;
		p += len + (s ? 1 : 0);
	}
	return id;
}

/* The object at id is needed at the start unless the workload made it (or removed it) before
 * it was first seen. */
static void need_node(struct ptree *t, uint32_t id, unsigned ftype)
{
	struct pnode *x;

	if (id == NONE || id == 0)
		return; /* the root */
	x = &t->n[id];
	if (!x->known) {
		x->known = x->need = true;
		x->ftype = (uint8_t)ftype;
		x->sparent = x->parent;
		x->sname = x->name;
	} else if (x->need && ftype == NFS_FT_DIR) {
		x->ftype = NFS_FT_DIR; /* seen as a parent: a directory */
	}
}

/* Every directory above path's last component (needed as directories); its node. */
static uint32_t parents(struct ptree *t, const char *p)
{
	uint32_t id = 0;

	for (const char *s = strchr(p, '/'); s && id != NONE; p = s + 1, s = strchr(p, '/')) {
		uint32_t c = child(t, id, p, (size_t)(s - p));

		if (c == NONE)
			c = node_new(t, id, p, (size_t)(s - p));
		need_node(t, c, NFS_FT_DIR);
		id = c;
	}
	return id;
}

static uint32_t need(struct ptree *t, const char *p, unsigned ftype)
{
	uint32_t id = *p ? walk(t, p, true) : NONE;

	need_node(t, id, ftype);
	return id;
}

/* made or removed by the workload: known from now on */
static void seen(struct ptree *t, const char *p)
{
	uint32_t id = *p ? walk(t, p, true) : NONE;

	if (id != NONE)
		t->n[id].known = t->n[id].touched = true;
}

/* The last component of a path. */
static const char *last(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Is a an ancestor of (or) b? */
static bool above(const struct ptree *t, uint32_t a, uint32_t b)
{
	for (unsigned k = 0; b != NONE && k <= DEPTH_MAX; k++, b = t->n[b].parent)
		if (b == a)
			return true;
	return b != NONE;
}

/* RENAME from to: the object at from (and all it holds) is at to now; from stays known. */
static void moved(struct ptree *t, const char *from, const char *to)
{
	uint32_t f = walk(t, from, false), dir = parents(t, to), old, tomb;
	const char *tn = last(to), *fn = last(from);
	struct pnode *x;
	char *name;

	if (f == NONE || dir == NONE || f == 0 || above(t, f, dir))
		return;
	old = child(t, dir, tn, strlen(tn));
	if (old == f)
		return;
	if (!(name = strdup(tn))) {
		t->oom = true;
		return;
	}
	t->mem += strlen(tn) + 1;
	if (old != NONE)
		unlink_out(t, old); /* replaced */
	tomb = t->n[f].parent;
	unlink_out(t, f);
	x = &t->n[f];
	if (x->name != x->sname)
		free(x->name);
	x->name = name;
	link_in(t, f, dir);
	x->known = x->touched = true;
	/* the old name: known, empty */
	tomb = node_new(t, tomb, fn, strlen(fn));
	if (tomb != NONE)
		t->n[tomb].known = t->n[tomb].touched = true;
}

static void learn(struct ptree *t, const struct nr_op *op)
{
	bool ok = op->answered && !op->cap_status;
	bool noent = op->answered && op->cap_status == 2;
	unsigned type = op->act == NR_READDIR || op->act == NR_RMDIR ? NFS_FT_DIR
	                : op->act == NR_READLINK                     ? NFS_FT_LNK
	                                                             : NFS_FT_REG;
	uint32_t id;
	struct pnode *x;

	parents(t, op->path);
	if (op->path2)
		parents(t, op->path2);
	if (noent && *op->path) {
		id = walk(t, op->path, true);
		/* missing at the start: a failed lookup fails again */
		if (id != NONE)
			t->n[id].known = true;
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
		need(t, op->path, type);
		id = walk(t, op->path, false);
		if (id != NONE && id != 0) {
			/* the object goes; its name stays known, empty */
			const char *n = last(op->path);
			uint32_t dir = t->n[id].parent;

			unlink_out(t, id);
			id = node_new(t, dir, n, strlen(n));
			if (id != NONE)
				t->n[id].known = t->n[id].touched = true;
		}
		return;
	case NR_RENAME:
		need(t, op->path, NFS_FT_REG);
		moved(t, op->path, op->path2);
		return;
	case NR_LINK:
		need(t, op->path, NFS_FT_REG);
		seen(t, op->path2);
		return;
	default:
		break;
	}
	if (!*op->path)
		return;
	id = need(t, op->path, type);
	if (id == NONE)
		return;
	x = &t->n[id];
	if (!x->need || x->touched)
		return;
	if (op->has_size && op->attr_size > x->size && op->act != NR_WRITE && op->act != NR_SETATTR)
		x->size = op->attr_size;
	if (op->act == NR_READ && op->off + op->cap_count > x->size)
		x->size = op->off + op->cap_count;
	if (op->act == NR_WRITE || op->act == NR_SETATTR || op->act == NR_ALLOCATE ||
	    op->act == NR_DEALLOCATE)
		x->touched = true;
}

/* What to make: a node needed at the start, its path there and its depth. */
struct made {
	uint32_t id;
	unsigned depth;
	char *path;
};

/* The start path of a needed node: through start parents that were there too, up to the
 * root. NULL when one was not (made by the workload: nothing of the start is under it). */
static char *start_path(const struct ptree *t, uint32_t id, unsigned *depth)
{
	uint32_t chain[DEPTH_MAX];
	unsigned n = 0, k;
	size_t len = 0, o = 0;
	char *p;

	while (id != 0) {
		const struct pnode *x;

		if (id == NONE || n == DEPTH_MAX)
			return NULL;
		x = &t->n[id];
		if (!x->need)
			return NULL;
		chain[n++] = id;
		len += strlen(x->sname) + 1;
		id = x->sparent;
	}
	if (!n || len > PATH_CAP || !(p = malloc(len)))
		return NULL;
	for (k = n; k--;) {
		size_t l = strlen(t->n[chain[k]].sname);

		memcpy(p + o, t->n[chain[k]].sname, l);
		o += l;
		p[o++] = k ? '/' : 0;
	}
	*depth = n;
	return p;
}

static int by_depth(const void *a, const void *b)
{
	const struct made *x = a, *y = b;

	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

static void tree_free(struct ptree *t)
{
	for (uint32_t i = 0; i < t->nn; i++) {
		if (t->n[i].sname && t->n[i].sname != t->n[i].name)
			free(t->n[i].sname);
		free(t->n[i].name);
	}
	free(t->n);
	free(t->idx);
}

int nr_prepare(const struct nfs_replay_opts *o, const struct nr_target_ops *tg, void *ctx,
               struct nfs_replay_stats *st, struct iot_err *e)
{
	struct nfs_replay_stats scratch = {0};
	struct nfs_replay_opts po = *o;
	struct nr_source *src;
	struct ptree t = {0};
	struct nr_op *op;
	struct made *list = NULL;
	size_t n = 0;
	int ret, err = 0;

	po.notice = NULL;                   /* the replay's pass says it */
	if (node_new(&t, NONE, "", 0) != 0) /* node 0: the root */
		return iot_err_set(e, -ENOMEM, "out of memory");
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
	if (t.oom) {
		ret = iot_err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	if (t.mem + scratch.peak_mem > st->peak_mem)
		st->peak_mem = t.mem + scratch.peak_mem;
	memcpy(st->v4_root, scratch.v4_root, sizeof(st->v4_root)); /* for the replay's pass */
	list = calloc((size_t)t.nn + 1, sizeof(*list));
	if (!list) {
		ret = iot_err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t i = 1; i < t.nn; i++) {
		if (!t.n[i].need)
			continue;
		list[n].id = i;
		list[n].path = start_path(&t, i, &list[n].depth);
		if (!list[n].path) {
			st->prep_failed++;
			continue;
		}
		n++;
	}
	qsort(list, n, sizeof(*list), by_depth); /* parents before their children */
	for (size_t i = 0; i < n; i++) {
		const struct pnode *x = &t.n[list[i].id];
		int r = tg->prep(ctx, list[i].path, x->ftype, x->size);

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
	for (size_t i = 0; list && i < n; i++)
		free(list[i].path);
	free(list);
	tree_free(&t);
	nfs_replay_stats_release(&scratch);
	return ret;
}
