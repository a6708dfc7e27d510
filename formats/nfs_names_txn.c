/* SPDX-License-Identifier: MIT */
/* The handle -> path map learns from one transaction: the names of a call, the handles of its
 * reply, in the language of formats/nfs.h's name records. */
#include <string.h>

#include "common/cursor.h"
#include "formats/nfs_names_int.h"

#define REPLY_FHS 32 /* handles kept from one reply (by op index) */

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
	c = nn_child_get(r->m, r->dir, name, nl);
	if (c != NONE)
		nn_bind(r->m, c, fh, fl);
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
	srv = nn_server_of(m, t);
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
			cur = nn_handle_get(m, srv, a, len);
			break;
		case NN_ROOT:
			cur = nn_v4root(m, srv);
			break;
		case NN_LOOKUP:
		case NN_OPEN:
		case NN_CREATE:
			cur = cur != NONE && len ? nn_child_get(m, cur, a, len) : NONE;
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
				         x = nn_nm_find(m, d, m->n[d].server, a, len);

				if (x != NONE)
					nn_remove_name(m, x);
			}
			break;
		case NN_RENAME:
			if (cur != NONE && saved != NONE && len > 1 && a[0] + 1u < len) {
				uint32_t from = resolve(m, saved), to = resolve(m, cur);
				uint32_t x = nn_nm_find(m, from, m->n[from].server, a + 1, a[0]);
				const uint8_t *nn = a + 1 + a[0];
				unsigned nl = len - 1 - a[0];

				if (x != NONE && (m->n[x].flags & F_LINK)) {
					if (nn_move_link(m, x, to, nn, nl))
						m->c.renamed++;
				} else if (x != NONE) {
					if (nn_move_to(m, x, to, nn, nl))
						m->c.renamed++;
				} else {
					/* replaced by what we did not know */
					x = nn_nm_find(m, to, m->n[to].server, nn, nl);
					if (x != NONE)
						nn_remove_name(m, x);
				}
			}
			break;
		case NN_LINK:
			if (cur != NONE && saved != NONE && len &&
			    nn_add_link(m, saved, cur, a, len))
				m->c.linked++;
			break;
		case NN_GETFH:
			for (unsigned k = 0; k < r.n; k++) {
				if (r.h[k].idx != idx)
					continue;
				cur = cur != NONE ? nn_bind(m, cur, r.h[k].fh, r.h[k].len)
				                  : nn_handle_get(m, srv, r.h[k].fh, r.h[k].len);
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
				nn_mount_root(m, srv, a, len, r.h[0].fh, r.h[0].len);
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
	return t->call.fh_len ? nn_handle_get(m, srv, t->call.fh, t->call.fh_len) : NONE;
}
