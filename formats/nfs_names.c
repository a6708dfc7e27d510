/* SPDX-License-Identifier: MIT */
/* The handle -> path map (formats/nfs_names.h): nodes, two hash indexes, the operations on them. */
#include "formats/nfs_names_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cursor.h"

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

uint32_t nn_nm_find(const struct nfs_names *m, uint32_t parent, unsigned srv, const uint8_t *name,
                    unsigned len)
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
void nn_remove_name(struct nfs_names *m, uint32_t id)
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
bool nn_move_to(struct nfs_names *m, uint32_t id, uint32_t parent, const uint8_t *name, unsigned nl)
{
	struct node *x = &m->n[id];
	uint32_t old;

	if (x->flags & F_ROOT)
		return false; /* an export's root keeps its path */
	if (parent != NONE && is_ancestor(m, id, parent)) {
		m->c.refused++;
		return false;
	}
	old = nn_nm_find(m, parent, x->server, name, nl);
	if (old == id || (old != NONE && resolve(m, old) == resolve(m, id)))
		return true;
	if (old != NONE)
		nn_remove_name(m, old);
	detach(m, id);
	if (set_data(m, x, fh_of(x), x->fh_len, name, nl)) {
		x->parent = NONE;
		return false;
	}
	attach(m, id, parent);
	return true;
}

/* The node called name under dir, made (without a handle) if new. */
uint32_t nn_child_get(struct nfs_names *m, uint32_t dir, const uint8_t *name, unsigned nl)
{
	unsigned srv;
	uint32_t id;

	dir = resolve(m, dir); /* a link's name is no directory: its file is */
	if (dir == NONE)
		return NONE;
	srv = m->n[dir].server;
	id = nn_nm_find(m, dir, srv, name, nl);
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
		if (nn_nm_find(m, to, x->server, name_of(x), x->name_len) != NONE ||
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
bool nn_add_link(struct nfs_names *m, uint32_t file, uint32_t dir, const uint8_t *name, unsigned nl)
{
	uint32_t old, l;
	struct node *x;

	file = resolve(m, file);
	dir = resolve(m, dir);
	if (file == NONE || dir == NONE || (m->n[file].flags & F_ROOT))
		return false;
	x = &m->n[file];
	if (x->parent == NONE || (x->flags & F_REMOVED))
		return nn_move_to(m, file, dir, name, nl);
	if (is_ancestor(m, file, dir)) {
		m->c.refused++;
		return false;
	}
	old = nn_nm_find(m, dir, x->server, name, nl);
	if (old != NONE && resolve(m, old) == file)
		return true;
	if (old != NONE)
		nn_remove_name(m, old);
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
bool nn_move_link(struct nfs_names *m, uint32_t l, uint32_t dir, const uint8_t *name, unsigned nl)
{
	uint32_t old = nn_nm_find(m, dir, m->n[l].server, name, nl);

	if (old == l || (old != NONE && resolve(m, old) == resolve(m, l)))
		return true;
	if (is_ancestor(m, resolve(m, l), dir)) {
		m->c.refused++;
		return false;
	}
	if (old != NONE)
		nn_remove_name(m, old);
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
uint32_t nn_bind(struct nfs_names *m, uint32_t c, const uint8_t *fh, unsigned fl)
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
				nn_move_to(m, p, parent, nm, nl);
		} else {
			nn_remove_name(m, c);
			if (!nn_move_to(m, p, parent, nm, nl))
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

unsigned nn_server_of(struct nfs_names *m, const struct rpc_txn *t)
{
	unsigned i;

	for (i = 0; i < m->nsrv; i++)
		if (net_addr_eq(&m->srv[i].addr, &t->server.addr))
			return i;
	if (m->nsrv > MAX_SERVERS - 1)
		return MAX_SERVERS;
	m->srv[m->nsrv].addr = t->server.addr;
	m->srv[m->nsrv].v4root = NONE;
	return m->nsrv++;
}

uint32_t nn_handle_get(struct nfs_names *m, unsigned srv, const uint8_t *fh, unsigned fl)
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

uint32_t nn_v4root(struct nfs_names *m, unsigned srv)
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
void nn_mount_root(struct nfs_names *m, unsigned srv, const uint8_t *path, unsigned pl,
                   const uint8_t *fh, unsigned fl)
{
	uint32_t id = nn_handle_get(m, srv, fh, fl);
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

/* --- queries --- */

uint32_t nfs_names_handle(struct nfs_names *m, const struct rpc_txn *t, const uint8_t *fh,
                          unsigned len, bool create)
{
	unsigned srv = nn_server_of(m, t);

	return create ? nn_handle_get(m, srv, fh, len) : fh_find(m, srv, fh, len);
}

uint32_t nfs_names_child(const struct nfs_names *m, uint32_t dir, const void *name, unsigned len)
{
	dir = resolve(m, dir);
	if (dir == NONE)
		return NONE;
	return nn_nm_find(m, dir, m->n[dir].server, name, len);
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
