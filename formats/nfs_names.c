/* SPDX-License-Identifier: MIT */
/* The handle -> path map (formats/nfs_names.h): nodes, two hash indexes, name walks. */
#include "formats/nfs_names.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cursor.h"

#define NONE NFS_NAME_NONE
#define MAX_SERVERS 255 /* more servers share the last index */
#define MAX_DEPTH 4096  /* ancestors followed (cycle checks, paths) */
#define REPLY_FHS 32    /* handles kept from one reply (by op index) */

/* F_LINK: a hard link's name (LINK): a node of a name alone, its alias the file (the node
 * that has the handle and the name the file is shown by), on the file's list of links */
enum { F_ROOT = 1, F_REMOVED = 2, F_ALIAS = 4, F_V4ROOT = 8, F_LINK = 16 };

struct node {
	uint32_t parent;            /* NONE: a root, a placeholder or a removed name */
	uint32_t child, next, prev; /* first child; siblings */
	uint32_t fh_next, nm_next;  /* hash chains */
	uint32_t alias; /* F_ALIAS: the node this one was merged into; F_LINK: the file */
	uint32_t links; /* a file's other names (F_LINK nodes, chained by fh_next) */
	uint16_t server;
	uint16_t name_len;
	uint8_t fh_len;
	uint8_t fh_key; /* the handle's length as handles are compared (fh_norm) */
	uint8_t flags;
	bool in_names; /* linked in the (parent, name) index */
	uint8_t *data; /* fh_len handle bytes, then name_len name bytes */
};

struct server {
	uint8_t family;
	uint8_t addr[16];
	uint32_t v4root;
};

struct nfs_names {
	struct nfs_names_cfg cfg;
	struct node *n;
	uint32_t nn, cap;
	uint32_t *fh_idx, *nm_idx;
	uint32_t mask;
	struct server srv[MAX_SERVERS + 1];
	unsigned nsrv;
	uint32_t mount_root; /* the export root MOUNT gave; NONE: none, or several */
	bool mounts;         /* a MOUNT gave one */
	size_t mem;
	struct nfs_names_counters c;
};

/* --- nodes and indexes --- */

static uint64_t mix(const uint8_t *p, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h ^ h >> 29;
}

/*
 * The length of a handle as handles are compared: nfs-ganesha pads an NFSv3 handle with zero
 * bytes to a multiple of 4 that its NFSv4 twin does not have (23 bytes in v4, the same 23
 * and a zero in v3), so up to three trailing zeros of a handle whose length is a multiple of
 * 4 do not count: the two are one handle, and a capture of both versions one tree. Other
 * servers' twins are equal anyway (Linux knfsd).
 */
static unsigned fh_norm(const uint8_t *fh, unsigned len)
{
	if (len % 4 == 0)
		for (unsigned k = 0; k < 3 && len > 1 && !fh[len - 1]; k++)
			len--;
	return len;
}

/* the hash slot of a handle of key length len (fh_norm'd) */
static unsigned fh_slot(const struct nfs_names *m, unsigned srv, const uint8_t *fh, unsigned len)
{
	return (unsigned)mix(fh, len, 1469598103934665603ull ^ srv) & m->mask;
}

static unsigned nm_slot(const struct nfs_names *m, uint32_t parent, unsigned srv,
                        const uint8_t *name, unsigned len)
{
	uint64_t seed = 1469598103934665603ull ^ ((uint64_t)parent << 16) ^ srv;

	return (unsigned)mix(name, len, seed) & m->mask;
}

static const uint8_t *fh_of(const struct node *x)
{
	return x->data;
}

static const uint8_t *name_of(const struct node *x)
{
	return x->data ? x->data + x->fh_len : (const uint8_t *)""; /* a v4 root has no data */
}

static uint32_t resolve(const struct nfs_names *m, uint32_t id)
{
	unsigned k = 0;

	while (id < m->nn && (m->n[id].flags & (F_ALIAS | F_LINK)) && k++ < MAX_DEPTH)
		id = m->n[id].alias;
	return id < m->nn ? id : NONE;
}

static uint32_t fh_find(const struct nfs_names *m, unsigned srv, const uint8_t *fh, unsigned len)
{
	uint32_t id;

	if (!len)
		return NONE;
	len = fh_norm(fh, len);
	for (id = m->fh_idx[fh_slot(m, srv, fh, len)]; id != NONE; id = m->n[id].fh_next) {
		const struct node *x = &m->n[id];

		if (x->server == srv && x->fh_key == len && !memcmp(fh_of(x), fh, len))
			return id;
	}
	return NONE;
}

static uint32_t nm_find(const struct nfs_names *m, uint32_t parent, unsigned srv,
                        const uint8_t *name, unsigned len)
{
	uint32_t id;

	for (id = m->nm_idx[nm_slot(m, parent, srv, name, len)]; id != NONE;
	     id = m->n[id].nm_next) {
		const struct node *x = &m->n[id];

		if (x->parent == parent && x->server == srv && x->name_len == len &&
		    !memcmp(name_of(x), name, len))
			return id;
	}
	return NONE;
}

static void chain_unlink(struct nfs_names *m, uint32_t *head, uint32_t id, bool fh)
{
	uint32_t *pp = head;

	while (*pp != NONE) {
		if (*pp == id) {
			*pp = fh ? m->n[id].fh_next : m->n[id].nm_next;
			return;
		}
		pp = fh ? &m->n[*pp].fh_next : &m->n[*pp].nm_next;
	}
}

/* Replace a node's handle and name bytes (either may be kept by passing the node's own). */
static int set_data(struct nfs_names *m, struct node *x, const uint8_t *fh, unsigned fl,
                    const uint8_t *name, unsigned nl)
{
	uint8_t *d = malloc(fl + nl ? fl + nl : 1);

	if (!d)
		return -ENOMEM;
	if (fl) /* fh and name may be NULL when empty: memcpy() wants a pointer all the same */
		memcpy(d, fh, fl);
	if (nl)
		memcpy(d + fl, name, nl);
	m->mem += (size_t)fl + nl;
	m->mem -= (size_t)x->fh_len + x->name_len;
	free(x->data);
	x->data = d;
	x->fh_len = (uint8_t)fl;
	x->fh_key = (uint8_t)fh_norm(d, fl);
	x->name_len = (uint16_t)nl;
	return 0;
}

static uint32_t node_new(struct nfs_names *m, unsigned srv)
{
	struct node *x;

	if (m->nn >= m->cfg.max_nodes) {
		m->c.untracked++;
		return NONE;
	}
	if (m->nn == m->cap) {
		uint32_t nc = m->cap ? m->cap * 2 : 256;
		struct node *p;

		if (nc > m->cfg.max_nodes)
			nc = m->cfg.max_nodes;
		p = realloc(m->n, (size_t)nc * sizeof(*p));
		if (!p)
			return NONE;
		m->mem += (size_t)(nc - m->cap) * sizeof(*p);
		m->n = p;
		m->cap = nc;
	}
	x = &m->n[m->nn];
	memset(x, 0, sizeof(*x));
	x->parent = x->child = x->next = x->prev = x->fh_next = x->nm_next = x->alias = NONE;
	x->links = NONE;
	x->server = (uint16_t)srv;
	m->c.nodes++;
	return m->nn++;
}

static void fh_link(struct nfs_names *m, uint32_t id)
{
	struct node *x = &m->n[id];
	uint32_t *h = &m->fh_idx[fh_slot(m, x->server, fh_of(x), x->fh_key)];

	x->fh_next = *h;
	*h = id;
}

/* Take a node out of its parent's children and the name index (it keeps parent and name, so
 * its last path can still be shown). */
static void detach(struct nfs_names *m, uint32_t id)
{
	struct node *x = &m->n[id];

	if (x->in_names) {
		chain_unlink(m,
		             &m->nm_idx[nm_slot(m, x->parent, x->server, name_of(x), x->name_len)],
		             id, false);
		x->in_names = false;
	}
	if (x->parent != NONE) {
		if (x->prev != NONE)
			m->n[x->prev].next = x->next;
		else if (m->n[x->parent].child == id)
			m->n[x->parent].child = x->next;
		if (x->next != NONE)
			m->n[x->next].prev = x->prev;
	}
	x->next = x->prev = NONE;
}

/* Is a an ancestor of (or) b? */
static bool is_ancestor(const struct nfs_names *m, uint32_t a, uint32_t b)
{
	unsigned k = 0;

	for (; b != NONE && k < MAX_DEPTH; b = m->n[b].parent, k++)
		if (b == a)
			return true;
	return k >= MAX_DEPTH;
}

static void attach(struct nfs_names *m, uint32_t id, uint32_t parent)
{
	struct node *x = &m->n[id];
	uint32_t *h = &m->nm_idx[nm_slot(m, parent, x->server, name_of(x), x->name_len)];

	x->parent = parent;
	x->nm_next = *h;
	*h = id;
	x->in_names = true;
	x->flags &= (uint8_t)~F_REMOVED;
	if (parent != NONE) {
		x->next = m->n[parent].child;
		x->prev = NONE;
		if (x->next != NONE)
			m->n[x->next].prev = id;
		m->n[parent].child = id;
	}
}

/* Mark a node removed: its name no longer leads to it. */
static void remove_node(struct nfs_names *m, uint32_t id)
{
	if (m->n[id].flags & (F_REMOVED | F_ROOT))
		return;
	detach(m, id);
	m->n[id].flags |= F_REMOVED;
	m->c.removed++;
}

/* A link node off its file's list of links. */
static void link_unchain(struct nfs_names *m, uint32_t l)
{
	uint32_t *pp = &m->n[m->n[l].alias].links;

	while (*pp != NONE && *pp != l)
		pp = &m->n[*pp].fh_next;
	if (*pp == l)
		*pp = m->n[l].fh_next;
	m->n[l].fh_next = NONE;
}

/* A link node that names nothing any more: an alias of its file (ids stay valid). */
static void link_retire(struct nfs_names *m, uint32_t l, uint32_t file)
{
	detach(m, l);
	m->n[l].parent = NONE;
	m->n[l].flags = (uint8_t)((m->n[l].flags & ~F_LINK) | F_ALIAS);
	m->n[l].alias = file;
}

/*
 * A name goes (REMOVE, a rename over it): a link's name just goes; the name a file is shown
 * by passes to one of its other links (the file lives while any does); a file's last name
 * going marks it removed.
 */
static void remove_name(struct nfs_names *m, uint32_t id)
{
	struct node *x = &m->n[id];

	if (x->flags & F_LINK) {
		link_unchain(m, id);
		link_retire(m, id, x->alias);
		return;
	}
	if (x->links != NONE && !(x->flags & (F_ROOT | F_REMOVED))) {
		uint32_t l = x->links, parent = m->n[l].parent;
		uint8_t nm[NFS_NAME_MAX + 1];
		unsigned nl = m->n[l].name_len;

		if (nl > NFS_NAME_MAX)
			nl = NFS_NAME_MAX;
		memcpy(nm, name_of(&m->n[l]), nl);
		x->links = m->n[l].fh_next;
		m->n[l].fh_next = NONE;
		link_retire(m, l, id);
		detach(m, id);
		if (set_data(m, x, fh_of(x), x->fh_len, nm, nl)) {
			x->parent = NONE;
			return;
		}
		attach(m, id, parent);
		return;
	}
	remove_node(m, id);
}

/* Give node id the name (parent, name); a name there already goes (remove_name), unless it is
 * a link of the same file (rename(2) of one link over another does nothing). False if that
 * would make a cycle or memory ran out. */
static bool move_to(struct nfs_names *m, uint32_t id, uint32_t parent, const uint8_t *name,
                    unsigned nl)
{
	struct node *x = &m->n[id];
	uint32_t old;

	if (x->flags & F_ROOT)
		return false; /* an export's root keeps its path */
	if (parent != NONE && is_ancestor(m, id, parent)) {
		m->c.refused++;
		return false;
	}
	old = nm_find(m, parent, x->server, name, nl);
	if (old == id || (old != NONE && resolve(m, old) == resolve(m, id)))
		return true;
	if (old != NONE)
		remove_name(m, old);
	detach(m, id);
	if (set_data(m, x, fh_of(x), x->fh_len, name, nl)) {
		x->parent = NONE;
		return false;
	}
	attach(m, id, parent);
	return true;
}

/* The node called name under dir, made (without a handle) if new. */
static uint32_t child_get(struct nfs_names *m, uint32_t dir, const uint8_t *name, unsigned nl)
{
	unsigned srv;
	uint32_t id;

	dir = resolve(m, dir); /* a link's name is no directory: its file is */
	if (dir == NONE)
		return NONE;
	srv = m->n[dir].server;
	id = nm_find(m, dir, srv, name, nl);
	if (id != NONE)
		return id;
	id = node_new(m, srv);
	if (id == NONE)
		return NONE;
	if (set_data(m, &m->n[id], NULL, 0, name, nl)) {
		m->nn--;
		return NONE;
	}
	attach(m, id, dir);
	m->c.named++;
	return id;
}

/* Move every child of from under to (from is merged into to). */
static void adopt_children(struct nfs_names *m, uint32_t from, uint32_t to)
{
	while (m->n[from].child != NONE) {
		uint32_t c = m->n[from].child;
		struct node *x = &m->n[c];

		detach(m, c);
		if (nm_find(m, to, x->server, name_of(x), x->name_len) != NONE ||
		    is_ancestor(m, c, to)) {
			x->parent = NONE; /* a duplicate name: this one loses */
			x->flags |= F_REMOVED;
			continue;
		}
		attach(m, c, to);
	}
}

/* LINK: the file is also called (dir, name). A file never named yet (or removed) takes it as
 * the name it is shown by; else a link node. */
static bool add_link(struct nfs_names *m, uint32_t file, uint32_t dir, const uint8_t *name,
                     unsigned nl)
{
	uint32_t old, l;
	struct node *x;

	file = resolve(m, file);
	dir = resolve(m, dir);
	if (file == NONE || dir == NONE || (m->n[file].flags & F_ROOT))
		return false;
	x = &m->n[file];
	if (x->parent == NONE || (x->flags & F_REMOVED))
		return move_to(m, file, dir, name, nl);
	if (is_ancestor(m, file, dir)) {
		m->c.refused++;
		return false;
	}
	old = nm_find(m, dir, x->server, name, nl);
	if (old != NONE && resolve(m, old) == file)
		return true;
	if (old != NONE)
		remove_name(m, old);
	l = node_new(m, m->n[file].server);
	if (l == NONE)
		return false;
	if (set_data(m, &m->n[l], NULL, 0, name, nl)) {
		m->nn--;
		return false;
	}
	attach(m, l, dir);
	x = &m->n[file];
	m->n[l].flags |= F_LINK;
	m->n[l].alias = file;
	m->n[l].fh_next = x->links;
	x->links = l;
	return true;
}

/* RENAME of a link's name: the link moves; a name there goes, unless it is the same file's. */
static bool move_link(struct nfs_names *m, uint32_t l, uint32_t dir, const uint8_t *name,
                      unsigned nl)
{
	uint32_t old = nm_find(m, dir, m->n[l].server, name, nl);

	if (old == l || (old != NONE && resolve(m, old) == resolve(m, l)))
		return true;
	if (is_ancestor(m, resolve(m, l), dir)) {
		m->c.refused++;
		return false;
	}
	if (old != NONE)
		remove_name(m, old);
	detach(m, l);
	if (set_data(m, &m->n[l], NULL, 0, name, nl)) {
		link_unchain(m, l);
		link_retire(m, l, m->n[l].alias);
		return false;
	}
	attach(m, l, dir);
	return true;
}

/* A name node c merged into p: its links are p's. */
static void links_move(struct nfs_names *m, uint32_t c, uint32_t p)
{
	while (m->n[c].links != NONE) {
		uint32_t l = m->n[c].links;

		m->n[c].links = m->n[l].fh_next;
		m->n[l].alias = p;
		m->n[l].fh_next = m->n[p].links;
		m->n[p].links = l;
	}
}

/* Do two nodes have the same name? */
static bool same_name(const struct nfs_names *m, uint32_t a, uint32_t b)
{
	return m->n[a].name_len == m->n[b].name_len &&
	       !memcmp(name_of(&m->n[a]), name_of(&m->n[b]), m->n[a].name_len);
}

/*
 * d, a directory known by name only (an NFSv4 LOOKUP never followed by GETFH), is the
 * directory to: what is under d is to's. When to is an export's root (its handle was a
 * MOUNT's, or an NFSv4 pseudo path led to it), d's name stays as a link to it (an NFSv4
 * pseudo path to the export: later walks find it); else d is an alias, and when d's parent
 * is known by name only too and d and to have the same name, that parent is to's parent:
 * the same, one level up.
 */
static void join_dir(struct nfs_names *m, uint32_t d, uint32_t to)
{
	for (unsigned k = 0; k < MAX_DEPTH; k++) {
		uint32_t up = m->n[d].parent, top = m->n[to].parent;
		bool again;

		if (d == to || is_ancestor(m, d, to) || is_ancestor(m, to, d))
			return;
		adopt_children(m, d, to);
		links_move(m, d, to);
		m->c.merged++;
		if (m->n[to].flags & F_ROOT) {
			m->n[d].flags |= F_LINK;
			m->n[d].alias = to;
			m->n[d].fh_next = m->n[to].links;
			m->n[to].links = d;
			return;
		}
		again = up != NONE && top != NONE && up != top && same_name(m, d, to) &&
		        !m->n[up].fh_len && !(m->n[up].flags & (F_ROOT | F_LINK | F_ALIAS));
		detach(m, d);
		m->n[d].parent = NONE;
		m->n[d].flags |= F_ALIAS;
		m->n[d].alias = to;
		if (!again)
			return;
		d = up;
		to = top;
	}
}

/*
 * The handle fh belongs to the node called c (found by a name walk). Returns the node that
 * now holds both: c itself, or the node that had the handle already (c merged into it).
 */
static uint32_t bind(struct nfs_names *m, uint32_t c, const uint8_t *fh, unsigned fl)
{
	struct node *x = &m->n[c];
	uint32_t p = fh_find(m, x->server, fh, fl), n;

	if (x->flags & F_LINK) {
		if (p != NONE && p == resolve(m, c))
			return p;
		/* the link's name leads to another object now: a name of its own */
		link_unchain(m, c);
		x->flags &= (uint8_t)~F_LINK;
		x->alias = NONE;
	}
	if (p == c)
		return c;
	if (p == NONE && !x->fh_len) {
		if (set_data(m, x, fh, fl, name_of(x), x->name_len))
			return c;
		fh_link(m, c);
		return c;
	}
	if (p == NONE) {
		/* the name now leads to another object (recreated where we did not see it) */
		n = node_new(m, x->server);
		if (n == NONE)
			return c;
		x = &m->n[c];
		if (set_data(m, &m->n[n], fh, fl, NULL, 0)) {
			m->nn--;
			return c;
		}
		fh_link(m, n);
		p = n;
	}
	/* p has the handle: it takes the name c was found by (the latest name wins) */
	{
		uint32_t parent = x->parent;
		uint8_t nm[NFS_NAME_MAX + 1];
		unsigned nl = x->name_len;
		bool was_unnamed = m->n[p].parent == NONE && !(m->n[p].flags & F_ROOT);

		if (nl > NFS_NAME_MAX || parent == NONE || (x->flags & F_ROOT))
			return p;
		memcpy(nm, name_of(x), nl);
		if (!x->fh_len && (m->n[p].flags & F_ROOT)) {
			/* an export's root found by a name (an NFSv4 pseudo path to a MOUNT's
			 * export): the name leads to it from now on */
			join_dir(m, c, p);
		} else if (!x->fh_len) {
			/* a name without a handle: merge it into the handle's node, which takes
			 * the name; but where that node has the same name in another directory
			 * and c's directory is known by name only, the two directories are one */
			uint32_t pp = m->n[p].parent;
			bool one_dir = pp != NONE && pp != parent && !(m->n[p].flags & F_REMOVED) &&
			               same_name(m, c, p) && !m->n[parent].fh_len &&
			               !(m->n[parent].flags & (F_ROOT | F_LINK | F_ALIAS));

			detach(m, c);
			m->n[c].parent = NONE;
			adopt_children(m, c, p);
			links_move(m, c, p);
			m->n[c].flags |= F_ALIAS;
			m->n[c].alias = p;
			m->c.merged++;
			if (one_dir)
				join_dir(m, parent, pp);
			else
				move_to(m, p, parent, nm, nl);
		} else {
			remove_name(m, c);
			if (!move_to(m, p, parent, nm, nl))
				return p;
			if (was_unnamed)
				m->c.merged++;
			else
				m->c.renamed++;
		}
		if (was_unnamed)
			m->c.named++;
	}
	return p;
}

static unsigned server_of(struct nfs_names *m, const struct rpc_txn *t)
{
	unsigned i;

	for (i = 0; i < m->nsrv; i++)
		if (m->srv[i].family == t->family && !memcmp(m->srv[i].addr, t->server, 16))
			return i;
	if (m->nsrv > MAX_SERVERS - 1)
		return MAX_SERVERS;
	m->srv[m->nsrv].family = t->family;
	memcpy(m->srv[m->nsrv].addr, t->server, 16);
	m->srv[m->nsrv].v4root = NONE;
	return m->nsrv++;
}

static uint32_t handle_get(struct nfs_names *m, unsigned srv, const uint8_t *fh, unsigned fl)
{
	uint32_t id = fh_find(m, srv, fh, fl);

	if (id != NONE || !fl)
		return id;
	id = node_new(m, srv);
	if (id == NONE)
		return NONE;
	if (set_data(m, &m->n[id], fh, fl, NULL, 0)) {
		m->nn--;
		return NONE;
	}
	fh_link(m, id);
	return id;
}

static uint32_t v4root(struct nfs_names *m, unsigned srv)
{
	uint32_t id = m->srv[srv].v4root;

	if (id == NONE) {
		id = node_new(m, srv);
		if (id == NONE)
			return NONE;
		m->n[id].flags = F_ROOT | F_V4ROOT;
		m->srv[srv].v4root = id;
		m->c.roots++;
	}
	return id;
}

/* An export's root from MOUNT: the handle's node becomes a root named by the path. */
static void mount_root(struct nfs_names *m, unsigned srv, const uint8_t *path, unsigned pl,
                       const uint8_t *fh, unsigned fl)
{
	uint32_t id = handle_get(m, srv, fh, fl);
	struct node *x;

	if (id == NONE)
		return;
	x = &m->n[id];
	if ((x->flags & F_ROOT) && x->name_len == pl && !memcmp(name_of(x), path, pl))
		return;
	/* named already (an NFSv4 pseudo path to the export, seen first): that name stays, a
	 * link to the root, as when the root is found by the name */
	if (x->parent != NONE && !(x->flags & (F_ROOT | F_REMOVED)) &&
	    x->name_len <= NFS_NAME_MAX) {
		uint32_t parent = x->parent, l;
		uint8_t nm[NFS_NAME_MAX + 1];
		unsigned nl = x->name_len;

		memcpy(nm, name_of(x), nl);
		detach(m, id);
		x->parent = NONE;
		l = node_new(m, x->server);
		if (l != NONE && !set_data(m, &m->n[l], NULL, 0, nm, nl)) {
			attach(m, l, parent);
			m->n[l].flags |= F_LINK;
			m->n[l].alias = id;
			m->n[l].fh_next = m->n[id].links;
			m->n[id].links = l;
		} else if (l != NONE) {
			m->nn--;
		}
		x = &m->n[id];
	}
	detach(m, id);
	if (set_data(m, x, fh, fl, path, pl))
		return;
	x->parent = NONE;
	x->flags = (uint8_t)((x->flags & ~F_REMOVED) | F_ROOT);
	m->c.roots++;
	m->mount_root = m->mounts && m->mount_root != id ? NONE : id;
	m->mounts = true;
}

/* --- one transaction --- */

struct reply_fhs {
	struct {
		unsigned idx, len;
		const uint8_t *fh;
	} h[REPLY_FHS];
	unsigned n;
	struct nfs_names *m;
	uint32_t dir; /* READDIRPLUS: the directory listed */
};

static void collect(void *arg, unsigned idx, const uint8_t *name, unsigned nl, const uint8_t *fh,
                    unsigned fl)
{
	struct reply_fhs *r = arg;

	if (name || r->n >= REPLY_FHS)
		return;
	r->h[r->n].idx = idx;
	r->h[r->n].fh = fh;
	r->h[r->n++].len = fl;
	(void)nl;
}

static void list_entry(void *arg, unsigned idx, const uint8_t *name, unsigned nl, const uint8_t *fh,
                       unsigned fl)
{
	struct reply_fhs *r = arg;
	uint32_t c;

	(void)idx;
	if (!name || (nl == 1 && name[0] == '.') || (nl == 2 && name[0] == '.' && name[1] == '.'))
		return;
	c = child_get(r->m, r->dir, name, nl);
	if (c != NONE)
		bind(r->m, c, fh, fl);
}

/* The results of t as a cursor over its body, and how many leading ops succeeded. */
static int reply_walk(const struct rpc_txn *t, nfs_fh_fn fn, void *arg)
{
	struct cur c;

	if (!t->replied || !t->rbody || t->reply_stat != 0 || t->accept_stat != 0)
		return 0;
	c = cur_make(t->rbody, t->rbody_len);
	if (t->kind == RPC_KIND_MOUNT)
		return t->proc == 1 ? nfs_mnt_reply_fhs(&c, t->vers, fn, arg) : 0;
	if (t->kind != RPC_KIND_NFS)
		return 0;
	if (t->vers == 3)
		return nfs3_reply_fhs(&c, t->proc, fn, arg);
	if (t->vers == 4 && t->proc == 1)
		return nfs4_reply_fhs(&c, fn, arg);
	return 0;
}

static bool is_v4(const struct rpc_txn *t)
{
	return t->kind == RPC_KIND_NFS && t->vers == 4 && t->proc == 1;
}

uint32_t nfs_names_txn(struct nfs_names *m, const struct rpc_txn *t)
{
	struct reply_fhs r = {.n = 0, .m = m, .dir = NONE};
	const uint8_t *p = t->call.names, *end = p ? p + t->call.names_len : NULL;
	uint32_t cur = NONE, saved = NONE, main = NONE, snap = NONE;
	unsigned srv, main_idx = is_v4(t) ? t->call.main_idx : 0;
	bool snapped = false, walk = false;
	int ok;

	m->c.txns++;
	m->c.names_cut += t->call.names_cut;
	if (t->kind != RPC_KIND_NFS && t->kind != RPC_KIND_MOUNT)
		return NONE;
	srv = server_of(m, t);
	ok = p ? reply_walk(t, collect, &r) : 0;
	while (p && ok > 0 && end - p >= 4) {
		unsigned kind = p[0], idx = p[1], len;
		uint16_t l16;
		const uint8_t *a;

		memcpy(&l16, p + 2, 2);
		len = l16;
		if (idx > main_idx && !snapped) {
			snap = cur;
			snapped = true;
		}
		a = p + 4;
		if ((size_t)(end - a) < len || (int)idx >= ok)
			break; /* the records of ops that failed, or were not seen answered */
		p = a + len;
		/* a main op that names an object (LOOKUP, OPEN, CREATE) works on the object the
		 * walk it starts ends at: PUTROOTFH LOOKUP a LOOKUP b GETFH is about a/b */
		if (kind != NN_GETFH && kind != NN_LOOKUP && kind != NN_OPEN && kind != NN_CREATE)
			walk = false;
		switch (kind) {
		case NN_FH:
			cur = handle_get(m, srv, a, len);
			break;
		case NN_ROOT:
			cur = v4root(m, srv);
			break;
		case NN_LOOKUP:
		case NN_OPEN:
		case NN_CREATE:
			cur = cur != NONE && len ? child_get(m, cur, a, len) : NONE;
			if (idx == main_idx)
				walk = true;
			if (walk)
				main = cur;
			break;
		case NN_LOOKUPP:
			cur = cur != NONE ? m->n[resolve(m, cur)].parent : NONE;
			break;
		case NN_SAVE:
			saved = cur;
			break;
		case NN_RESTORE:
			cur = saved;
			break;
		case NN_REMOVE:
			if (cur != NONE && len) {
				uint32_t d = resolve(m, cur),
				         x = nm_find(m, d, m->n[d].server, a, len);

				if (x != NONE)
					remove_name(m, x);
			}
			break;
		case NN_RENAME:
			if (cur != NONE && saved != NONE && len > 1 && a[0] + 1u < len) {
				uint32_t from = resolve(m, saved), to = resolve(m, cur);
				uint32_t x = nm_find(m, from, m->n[from].server, a + 1, a[0]);
				const uint8_t *nn = a + 1 + a[0];
				unsigned nl = len - 1 - a[0];

				if (x != NONE && (m->n[x].flags & F_LINK)) {
					if (move_link(m, x, to, nn, nl))
						m->c.renamed++;
				} else if (x != NONE) {
					if (move_to(m, x, to, nn, nl))
						m->c.renamed++;
				} else {
					/* replaced by what we did not know */
					x = nm_find(m, to, m->n[to].server, nn, nl);
					if (x != NONE)
						remove_name(m, x);
				}
			}
			break;
		case NN_LINK:
			if (cur != NONE && saved != NONE && len && add_link(m, saved, cur, a, len))
				m->c.linked++;
			break;
		case NN_GETFH:
			for (unsigned k = 0; k < r.n; k++) {
				if (r.h[k].idx != idx)
					continue;
				cur = cur != NONE ? bind(m, cur, r.h[k].fh, r.h[k].len)
				                  : handle_get(m, srv, r.h[k].fh, r.h[k].len);
				if (walk)
					main = cur;
				break;
			}
			break;
		case NN_LIST:
			if (cur != NONE && t->kind == RPC_KIND_NFS && t->vers == 3) {
				r.dir = resolve(m, cur);
				reply_walk(t, list_entry, &r);
			}
			break;
		case NN_MOUNT:
			if (r.n && len)
				mount_root(m, srv, a, len, r.h[0].fh, r.h[0].len);
			break;
		case NN_DATA:
			break; /* a symbolic link's target: no handle moves */
		case NN_LOST:
		default:
			cur = NONE;
			break;
		}
	}
	if (p && p == end && !snapped)
		snap = cur, snapped = true; /* every record applied: cur is what the main op saw */
	if (main != NONE)
		return resolve(m, main);
	if (t->kind != RPC_KIND_NFS)
		return NONE;
	if (snapped && snap != NONE)
		return resolve(m, snap); /* PUTFH d LOOKUP a READ: the READ is a's */
	return t->call.fh_len ? handle_get(m, srv, t->call.fh, t->call.fh_len) : NONE;
}

/* --- queries --- */

uint32_t nfs_names_handle(struct nfs_names *m, const struct rpc_txn *t, const uint8_t *fh,
                          unsigned len, bool create)
{
	unsigned srv = server_of(m, t);

	return create ? handle_get(m, srv, fh, len) : fh_find(m, srv, fh, len);
}

uint32_t nfs_names_child(const struct nfs_names *m, uint32_t dir, const void *name, unsigned len)
{
	dir = resolve(m, dir);
	if (dir == NONE)
		return NONE;
	return nm_find(m, dir, m->n[dir].server, name, len);
}

static unsigned node_flags(const struct node *x)
{
	unsigned f = 0;

	if (x->flags & F_ROOT)
		f |= NFS_PATH_ROOTED;
	else if (x->parent == NONE && !(x->flags & F_REMOVED))
		f |= NFS_PATH_PLACEHOLDER;
	if (x->flags & F_REMOVED)
		f |= NFS_PATH_REMOVED;
	if (!x->fh_len)
		f |= NFS_PATH_NO_FH;
	return f;
}

int nfs_names_info(const struct nfs_names *m, uint32_t id, struct nfs_name_info *out)
{
	const struct node *x;

	id = resolve(m, id);
	if (id == NONE)
		return -ENOENT;
	x = &m->n[id];
	out->id = id;
	out->parent = x->parent;
	out->fh = x->fh_len ? fh_of(x) : NULL;
	out->fh_len = x->fh_len;
	out->name = name_of(x);
	out->name_len = x->name_len;
	out->flags = node_flags(x);
	out->server = x->server;
	return 0;
}

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if none. */
static unsigned utf8_len(const uint8_t *p, size_t n)
{
	unsigned len, i;
	uint32_t cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

/* Render a component (a root's path when slash), escaped, into tmp; returns its length. */
static size_t render_name(const uint8_t *p, size_t n, char *tmp, size_t cap, bool slash)
{
	size_t o = 0, i = 0;

	while (i < n && o + 5 < cap) {
		unsigned l = utf8_len(p + i, n - i);

		if (l == 1 &&
		    (p[i] < 0x20 || p[i] == 0x7f || (p[i] == '/' && !slash) || p[i] == '\\'))
			l = 0;
		if (!l) {
			o += (size_t)snprintf(tmp + o, cap - o, "\\x%02x", p[i]);
			i++;
			continue;
		}
		memcpy(tmp + o, p + i, l);
		o += l;
		i += l;
	}
	return o;
}

unsigned nfs_names_path(const struct nfs_names *m, uint32_t id, char *buf, size_t len)
{
	uint32_t chain[64];
	unsigned depth = 0, flags = 0, k;
	size_t o = 0;
	char tmp[4 * NFS_NAME_MAX + 8];
	const struct node *top;

	buf[0] = 0;
	id = resolve(m, id);
	if (id == NONE || len < 8)
		return 0;
	/* collect the last 64 components: deeper paths are shown from "..." */
	for (k = 0; id != NONE && k < MAX_DEPTH; id = m->n[id].parent, k++) {
		if (m->n[id].flags & F_REMOVED)
			flags |= NFS_PATH_REMOVED;
		if (depth == 64) {
			memmove(chain, chain + 1, 63 * sizeof(chain[0]));
			depth--;
			flags |= NFS_PATH_CUT;
		}
		chain[depth++] = id;
	}
	if (id != NONE)
		flags |= NFS_PATH_CUT;
	top = &m->n[chain[depth - 1]];
	if (flags & NFS_PATH_CUT) {
		o += (size_t)snprintf(buf, len, "...");
	} else if (top->flags & F_ROOT) {
		flags |= NFS_PATH_ROOTED;
		if (!(top->flags & F_V4ROOT))
			o = render_name(name_of(top), top->name_len, buf, len, true);
		if (depth == 1 && o == 0)
			o += (size_t)snprintf(buf, len, "/");
	} else if (top->fh_len && !top->name_len) {
		flags |= NFS_PATH_PLACEHOLDER;
		o += (size_t)snprintf(buf, len, "<fh:");
		for (k = 0; k < top->fh_len && o + 3 < len; k++)
			o += (size_t)snprintf(buf + o, len - o, "%02x", fh_of(top)[k]);
		if (o + 1 < len)
			buf[o++] = '>';
	} else {
		/* a removed name whose parent is gone, or a name without a root: its name */
		o = render_name(name_of(top), top->name_len, buf, len, false);
	}
	if (o >= len)
		o = len - 1;
	for (k = depth - 1; k-- > 0;) {
		const struct node *x = &m->n[chain[k]];
		size_t l = render_name(name_of(x), x->name_len, tmp, sizeof(tmp), false);

		if (o + 1 + l >= len) {
			/* does not fit: keep the start, mark it cut */
			flags |= NFS_PATH_CUT;
			break;
		}
		buf[o++] = '/';
		memcpy(buf + o, tmp, l);
		o += l;
	}
	buf[o < len ? o : len - 1] = 0;
	return flags;
}

/* The components of node id up to an NFSv4 root, raw, joined by '/'; false if its parents do
 * not lead to one or it does not fit. */
static bool v4_chain(const struct nfs_names *m, uint32_t id, char *buf, size_t len)
{
	uint32_t chain[64];
	unsigned n = 0;
	size_t o = 0;

	for (; id != NONE && !(m->n[id].flags & F_V4ROOT); id = m->n[id].parent) {
		if (n == 64 || (m->n[id].flags & (F_ROOT | F_REMOVED)))
			return false;
		chain[n++] = id;
	}
	if (id == NONE || !n)
		return false;
	while (n--) {
		const struct node *x = &m->n[chain[n]];

		if (o + x->name_len + 2 > len)
			return false;
		memcpy(buf + o, name_of(x), x->name_len);
		o += x->name_len;
		buf[o++] = n ? '/' : 0;
	}
	return true;
}

uint32_t nfs_names_mount_root(const struct nfs_names *m)
{
	return m->mounts ? resolve(m, m->mount_root) : NONE;
}

int nfs_names_v4_path(const struct nfs_names *m, uint32_t id, char *buf, size_t len)
{
	id = resolve(m, id);
	if (id == NONE || !len)
		return -ENOENT;
	if (v4_chain(m, id, buf, len))
		return 0;
	for (uint32_t l = m->n[id].links, k = 0; l != NONE && k < MAX_DEPTH;
	     l = m->n[l].fh_next, k++)
		if (v4_chain(m, l, buf, len))
			return 0;
	return -ENOENT;
}

const struct nfs_names_counters *nfs_names_counters(const struct nfs_names *m)
{
	return &m->c;
}

size_t nfs_names_mem(const struct nfs_names *m)
{
	return m->mem;
}

int nfs_names_new(struct nfs_names **out, const struct nfs_names_cfg *cfg)
{
	struct nfs_names *m = calloc(1, sizeof(*m));
	uint32_t b = 1024;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	m->cfg.max_nodes = cfg && cfg->max_nodes ? cfg->max_nodes : 65536;
	m->mount_root = NONE;
	if (m->cfg.max_nodes >= NONE)
		m->cfg.max_nodes = NONE - 1;
	while (b < m->cfg.max_nodes / 2 && b < (1u << 24))
		b *= 2;
	m->mask = b - 1;
	m->fh_idx = malloc((size_t)b * sizeof(uint32_t));
	m->nm_idx = malloc((size_t)b * sizeof(uint32_t));
	if (!m->fh_idx || !m->nm_idx) {
		nfs_names_free(m);
		return -ENOMEM;
	}
	memset(m->fh_idx, 0xff, (size_t)b * sizeof(uint32_t));
	memset(m->nm_idx, 0xff, (size_t)b * sizeof(uint32_t));
	m->mem = sizeof(*m) + 2 * (size_t)b * sizeof(uint32_t);
	*out = m;
	return 0;
}

void nfs_names_free(struct nfs_names *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->nn; i++)
		free(m->n[i].data);
	free(m->n);
	free(m->fh_idx);
	free(m->nm_idx);
	free(m);
}
