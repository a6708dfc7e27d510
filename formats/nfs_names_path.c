/* SPDX-License-Identifier: MIT */
/* The handle -> path map's queries: a node's parts, its path as text, its NFSv4 path. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "formats/nfs_names_int.h"

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
