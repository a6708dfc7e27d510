/* SPDX-License-Identifier: MIT */
/* The NFS replay's paths: a call's handles and names made into paths from the target's root
 * (the export's root found, NFSv4 paths mapped onto the export, --root-path applied). */
#include <stdio.h>
#include <string.h>

#include "replay/nfs_source_int.h"

static bool name_ok(const uint8_t *p, unsigned n)
{
	if (!n || n > NFS_NAME_MAX || (n == 1 && p[0] == '.') ||
	    (n == 2 && p[0] == '.' && p[1] == '.'))
		return false;
	return !memchr(p, '/', n) && !memchr(p, 0, n);
}

static void pb_add(struct pbuf *b, const uint8_t *name, unsigned n)
{
	if (!name_ok(name, n)) {
		b->hostile = true;
		return;
	}
	if (b->len + 1 + n >= PATH_CAP) {
		b->known = false;
		return;
	}
	if (b->len)
		b->b[b->len++] = '/';
	memcpy(b->b + b->len, name, n);
	b->len += n;
	b->b[b->len] = 0;
}

static void pb_up(struct pbuf *b)
{
	char *s = memrchr(b->b, '/', b->len);

	b->len = s ? (size_t)(s - b->b) : 0;
	b->b[b->len] = 0;
}

static void pb_unnamed(struct pbuf *b, const uint8_t *fh, unsigned fl)
{
	int n = snprintf(b->b, PATH_CAP, "%s/", NR_UNNAMED_DIR);

	for (unsigned i = 0; i < fl && n + 3 < PATH_CAP; i++)
		n += snprintf(b->b + n, PATH_CAP - (size_t)n, "%02x", fh[i]);
	b->len = (size_t)n;
	b->placeholder = true;
}

static bool is_root_fh(const struct nr_source *s, const uint8_t *fh, unsigned fl)
{
	return s->root_fh_len && fl == s->root_fh_len && !memcmp(fh, s->root_fh, fl);
}

/*
 * The path of a node, from the root of the target: an export root (MOUNT), the v4 root
 * (PUTROOTFH) and the --root-fh handle are the target's root. A handle never named is a
 * placeholder under NR_UNNAMED_DIR, except by the first-directory rule: when no root is known,
 * the first unnamed handle a call uses as a directory (to look up, create, remove or rename a
 * name in it) becomes the root (docs/replay-nfs.md).
 */
void nr_path_of(struct nr_source *s, uint32_t id, const uint8_t *fh, unsigned fl, bool as_dir,
                struct pbuf *b)
{
	uint32_t chain[DEPTH_CAP];
	unsigned n = 0;
	struct nfs_name_info in;

	b->len = 0;
	b->b[0] = 0;
	b->known = true;
	b->hostile = b->placeholder = b->v4 = false;
	if (id == NFS_NAME_NONE) {
		if (fl && is_root_fh(s, fh, fl))
			return;
		pb_unnamed(b, fh, fl);
		return;
	}
	while (n < DEPTH_CAP && !nfs_names_info(s->names, id, &in)) {
		chain[n++] = in.id;
		if (in.parent == NFS_NAME_NONE)
			break;
		if (in.fh && is_root_fh(s, in.fh, in.fh_len)) {
			s->root_id = in.id;
			break;
		}
		id = in.parent;
	}
	if (!n || n == DEPTH_CAP) {
		b->known = false;
		return;
	}
	/* the top */
	nfs_names_info(s->names, chain[n - 1], &in);
	if (!(in.flags & NFS_PATH_ROOTED) && !(in.fh && is_root_fh(s, in.fh, in.fh_len))) {
		if (!in.fh) {
			b->known = false;
			return;
		}
		if (!s->root_seen && as_dir && n == 1 && !(in.flags & NFS_PATH_REMOVED)) {
			memcpy(s->root_fh, in.fh, in.fh_len);
			s->root_fh_len = in.fh_len;
			s->root_seen = true;
			s->root_id = in.id;
			if (s->o->notice)
				s->o->notice(
				    s->o->notice_arg,
				    "no MOUNT reply or PUTROOTFH in the capture: the first "
				    "unnamed directory handle is taken as the export's root");
			return;
		}
		pb_unnamed(b, in.fh, in.fh_len);
	} else {
		s->root_seen = true;
		/* the server's NFSv4 root (no name), not an export's */
		b->v4 = (in.flags & NFS_PATH_ROOTED) && !in.name_len;
	}
	for (unsigned k = n - 1; k-- > 0;) {
		nfs_names_info(s->names, chain[k], &in);
		pb_add(b, in.name, in.name_len);
	}
}

/* Follow the call's name records up to its main op (and a LOOKUP chain the main op starts),
 * as the map does, but into paths, before the map learns from the reply. */
void nr_walk_names(struct nr_source *s, const struct rpc_txn *t, bool dir_op, struct walk *w)
{
	const uint8_t *p = t->call.names, *end = p ? p + t->call.names_len : NULL;
	unsigned main_idx = t->vers == 4 ? t->call.main_idx : 0;
	bool chain = false;

	w->cur.len = w->saved.len = w->obj.len = w->to.len = 0;
	w->cur.b[0] = w->saved.b[0] = w->obj.b[0] = w->to.b[0] = 0;
	w->cur.known = w->saved.known = w->obj.known = w->to.known = false;
	w->cur.hostile = w->cur.placeholder = w->saved.hostile = w->saved.placeholder = false;
	w->obj.hostile = w->obj.placeholder = w->to.hostile = w->to.placeholder = false;
	w->cur.v4 = w->saved.v4 = w->obj.v4 = w->to.v4 = false;
	w->data = NULL;
	w->data_len = 0;
	w->have_obj = w->have_to = false;
	while (p && end - p >= 4) {
		unsigned kind = p[0], idx = p[1], len;
		uint16_t l16;
		const uint8_t *a;

		memcpy(&l16, p + 2, 2);
		len = l16;
		a = p + 4;
		if ((size_t)(end - a) < len)
			break;
		p = a + len;
		if (idx > main_idx && !(chain && (kind == NN_LOOKUP || kind == NN_GETFH)))
			break;
		switch (kind) {
		case NN_FH: {
			uint32_t id = nfs_names_handle(s->names, t, a, len, true);
			bool h = w->cur.hostile;

			nr_path_of(s, id, a, len, dir_op, &w->cur);
			w->cur.hostile |= h;
			break;
		}
		case NN_ROOT:
			w->cur.len = 0;
			w->cur.b[0] = 0;
			w->cur.known = true;
			w->cur.v4 = true;
			s->root_seen = true;
			break;
		case NN_LOOKUP:
		case NN_OPEN:
		case NN_CREATE:
			if (idx == main_idx)
				chain = true;
			pb_add(&w->cur, a, len);
			if (idx >= main_idx) {
				pb_copy(&w->obj, &w->cur);
				w->have_obj = true;
			}
			break;
		case NN_LOOKUPP:
			pb_up(&w->cur);
			break;
		case NN_SAVE:
			pb_copy(&w->saved, &w->cur);
			break;
		case NN_RESTORE:
			pb_copy(&w->cur, &w->saved);
			break;
		case NN_REMOVE:
		case NN_LINK:
			pb_copy(&w->obj, &w->cur);
			pb_add(&w->obj, a, len);
			w->have_obj = true;
			if (kind == NN_LINK) {
				pb_copy(&w->to, &w->obj);
				pb_copy(&w->obj, &w->saved);
				w->have_to = true;
			}
			break;
		case NN_RENAME:
			if (len > 1 && a[0] + 1u < len) {
				pb_copy(&w->obj, &w->saved);
				pb_add(&w->obj, a + 1, a[0]);
				pb_copy(&w->to, &w->cur);
				pb_add(&w->to, a + 1 + a[0], len - 1 - a[0]);
				w->have_obj = w->have_to = true;
			}
			break;
		case NN_DATA:
			w->data = a;
			w->data_len = len;
			break;
		case NN_GETFH:
		case NN_LIST:
			break;
		default:
			w->cur.known = false;
			break;
		}
	}
	if (!w->have_obj)
		pb_copy(&w->obj, &w->cur);
}

/* The mapping found (or the prepare pass's, handed on): kept in the statistics, said once. */
void nr_set_v4_root(struct nr_source *s, const char *p)
{
	char msg[400];

	snprintf(s->v4_root, sizeof(s->v4_root), "%s", p);
	s->v4_root_len = strlen(s->v4_root);
	s->v4_mapped = true;
	snprintf(s->st->v4_root, sizeof(s->st->v4_root), "%s", s->v4_root);
	if (s->o->notice) {
		snprintf(msg, sizeof(msg),
		         "the NFSv4 path /%s is the export the NFSv3 calls use (the same handle): "
		         "both are replayed into the target as one tree",
		         s->v4_root);
		s->o->notice(s->o->notice_arg, msg);
	}
}

/* v3 and v4 to one export: a path from the NFSv4 root into the export is from the target's
 * root (what --root-path does, found by the map: the export's root has that v4 path) */
void nr_v4_to_export(const struct nr_source *s, struct pbuf *b)
{
	size_t n = s->v4_root_len;

	if (!b->v4 || strncmp(b->b, s->v4_root, n) || (b->b[n] && b->b[n] != '/'))
		return;
	b->len -= n + (b->b[n] ? 1 : 0);
	memmove(b->b, b->b + n + (b->b[n] ? 1 : 0), b->len + 1);
	b->v4 = false;
}

/* A path of plain components ('/' between them, none empty, '.' or '..') */
static bool plain_path(const char *p)
{
	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (!n || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (!e)
			return true;
		p = e + 1;
		if (!*p)
			return false;
	}
	return false;
}

/* Once the export's root is known and the map finds an NFSv4 path to it, v4 paths under that
 * path are the export's. */
void nr_find_v4_root(struct nr_source *s)
{
	uint32_t root = s->root_id != NFS_NAME_NONE ? s->root_id : nfs_names_mount_root(s->names);
	char p[sizeof(s->v4_root)];

	if (root == NFS_NAME_NONE || nfs_names_v4_path(s->names, root, p, sizeof(p)) ||
	    !plain_path(p))
		return;
	nr_set_v4_root(s, p);
}

/* --root-path: a path at or below root (no '/' at either end) becomes relative to it; false
 * for one outside it (placeholders are kept as they are). */
bool nr_under_root(const char *root, struct pbuf *b)
{
	size_t n = strlen(root);

	if (b->placeholder || !n)
		return true;
	if (strncmp(b->b, root, n) || (b->b[n] && b->b[n] != '/'))
		return false;
	b->len -= n + (b->b[n] ? 1 : 0);
	memmove(b->b, b->b + n + (b->b[n] ? 1 : 0), b->len + 1);
	return true;
}
