/* SPDX-License-Identifier: MIT */
/* NFS files by name (nodes of the handle -> path map) and the slowest calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/nfs_stats.h"
#include "common/topn.h"

#define EVICT_SAMPLE 8 /* entries looked at to choose the one folded out */

static void file_init(struct nfs_file *f, uint32_t node)
{
	memset(f, 0, sizeof(*f));
	f->node = node;
	f->size = UINT64_MAX;
	f->rd.min = f->wr.min = UINT64_MAX;
	nfs_sketch_init(&f->srt);
}

void nfs_files_release(struct nfs_stats *s)
{
	free(s->files.f);
	free(s->files.idx);
}

static unsigned node_slot(uint32_t node, unsigned mask)
{
	uint64_t h = (uint64_t)node * 0x9e3779b97f4a7c15ull;

	return (unsigned)(h >> 32) & mask;
}

static void idx_rebuild(struct nfs_file_table *tb)
{
	memset(tb->idx, 0, ((size_t)tb->mask + 1) * sizeof(*tb->idx));
	for (unsigned j = 0; j < tb->n; j++) {
		unsigned i = node_slot(tb->f[j].node, tb->mask);

		while (tb->idx[i])
			i = (i + 1) & tb->mask;
		tb->idx[i] = j + 1;
	}
}

static struct nfs_file *file_find(struct nfs_file_table *tb, uint32_t node)
{
	unsigned i;

	if (!tb->idx)
		return NULL;
	for (i = node_slot(node, tb->mask); tb->idx[i]; i = (i + 1) & tb->mask)
		if (tb->f[tb->idx[i] - 1].node == node)
			return &tb->f[tb->idx[i] - 1];
	return NULL;
}

/* Remove node's slot from the index (linear probing: the entries after it shift back). */
static void idx_remove(struct nfs_file_table *tb, uint32_t node)
{
	unsigned i, j, k;

	for (i = node_slot(node, tb->mask); tb->idx[i]; i = (i + 1) & tb->mask)
		if (tb->f[tb->idx[i] - 1].node == node)
			break;
	if (!tb->idx[i])
		return;
	for (j = i;;) {
		tb->idx[i] = 0;
		for (;;) {
			j = (j + 1) & tb->mask;
			if (!tb->idx[j])
				return;
			k = node_slot(tb->f[tb->idx[j] - 1].node, tb->mask);
			/* move j back to i unless its home k lies cyclically in (i, j] */
			if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
				continue;
			break;
		}
		tb->idx[i] = tb->idx[j];
		i = j;
	}
}

/*
 * The table is full: fold the least busy of a few entries (by time waited, then calls) into
 * "other" and return its slot, so that busy files met late still get an entry.
 */
static struct nfs_file *evict(struct nfs_file_table *tb, uint32_t node)
{
	unsigned start = node_slot(node, UINT32_MAX) % tb->n, best = start;

	for (unsigned i = 1; i < EVICT_SAMPLE; i++) {
		unsigned k = (start + i * (tb->n / EVICT_SAMPLE + 1)) % tb->n;
		const struct nfs_file *a = &tb->f[k], *b = &tb->f[best];

		if (a->wait_ns < b->wait_ns || (a->wait_ns == b->wait_ns && a->ops < b->ops))
			best = k;
	}
	nfs_file_merge(&tb->other, &tb->f[best]);
	tb->evicted++;
	idx_remove(tb, tb->f[best].node);
	return &tb->f[best];
}

static struct nfs_file *file_get(struct nfs_file_table *tb, uint32_t node)
{
	struct nfs_file *f = file_find(tb, node);
	unsigned i;

	if (f)
		return f;
	if (tb->n >= NFS_MAX_FILES) {
		f = evict(tb, node);
	} else {
		if (tb->n == tb->cap) {
			unsigned nc = tb->cap ? tb->cap * 2 : 64, size = 128;
			struct nfs_file *p = realloc(tb->f, (size_t)nc * sizeof(*p));
			uint32_t *idx;

			if (!p)
				return NULL;
			tb->f = p;
			tb->cap = nc;
			while (size < 2 * nc)
				size *= 2;
			idx = calloc(size, sizeof(*idx));
			if (!idx)
				return NULL;
			free(tb->idx);
			tb->idx = idx;
			tb->mask = size - 1;
			idx_rebuild(tb);
		}
		f = &tb->f[tb->n++];
	}
	file_init(f, node);
	for (i = node_slot(node, tb->mask); tb->idx[i]; i = (i + 1) & tb->mask)
		;
	tb->idx[i] = (uint32_t)(f - tb->f) + 1;
	return f;
}

/* READ/WRITE of t, as (is_write, offset, count); false for other procedures. */
static bool txn_io(const struct rpc_txn *t, bool *is_write)
{
	uint32_t op = t->vers == 3 ? t->proc : t->call.op;

	if (!t->call.has_io || t->kind != RPC_KIND_NFS)
		return false;
	if (t->vers == 3 && (op == 6 || op == 7)) {
		*is_write = op == 7;
		return true;
	}
	if (t->vers == 4 && t->proc == 1 && !t->call.cut &&
	    (op == OP4_READ || op == OP4_READ_PLUS || op == OP4_WRITE)) {
		*is_write = op == OP4_WRITE;
		return true;
	}
	return false;
}

/* Sequential: the IO starts where the previous one in the same direction ended. */
static void io_add(struct nfs_io *io, uint64_t off, uint64_t count, uint64_t bytes)
{
	if (io->ops ? off == io->next : off == 0)
		io->seq++;
	io->ops++;
	io->bytes += bytes;
	if (count < io->min)
		io->min = count;
	if (count > io->max)
		io->max = count;
	io->next = off + count;
}

void nfs_files_txn(struct nfs_stats *s, const struct rpc_txn *t, uint32_t node, unsigned row,
                   uint64_t srt, uint32_t st, uint64_t rd, uint64_t wr)
{
	struct nfs_file_table *tb = &s->files;
	struct nfs_file *f;
	bool w;
	unsigned i;

	if (node == NFS_NAME_NONE && !t->call.fh_len)
		return;
	f = node != NFS_NAME_NONE ? file_get(tb, node) : NULL;
	if (!f) {
		f = &tb->other; /* a handle the names map could not keep */
		tb->folded++;
	}
	f->ops++;
	if (t->replied) {
		f->errors += st != 0;
		f->wait_ns += srt;
		nfs_sketch_add(&f->srt, srt);
		if (t->rep.has_size)
			f->size = t->rep.size;
	}
	for (i = 0; i < f->nrows && f->calls[i].row != row; i++)
		;
	if (i < f->nrows) {
		f->calls[i].n++;
	} else if (f->nrows < 4 && row != UINT32_MAX) {
		f->calls[f->nrows].row = row;
		f->calls[f->nrows++].n = 1;
	} else {
		f->calls_other++;
	}
	if (txn_io(t, &w)) {
		if (w)
			io_add(&f->wr, t->call.offset, t->call.count, wr);
		else if (t->replied)
			io_add(&f->rd, t->call.offset, t->call.count, rd);
	}
}

static void io_merge(struct nfs_io *a, const struct nfs_io *b)
{
	a->ops += b->ops;
	a->bytes += b->bytes;
	a->seq += b->seq;
	if (b->min < a->min)
		a->min = b->min;
	if (b->max > a->max)
		a->max = b->max;
}

void nfs_file_merge(struct nfs_file *a, const struct nfs_file *b)
{
	unsigned i, k;

	a->ops += b->ops;
	a->errors += b->errors;
	a->wait_ns += b->wait_ns;
	a->calls_other += b->calls_other;
	for (k = 0; k < b->nrows; k++) {
		for (i = 0; i < a->nrows && a->calls[i].row != b->calls[k].row; i++)
			;
		if (i < a->nrows) {
			a->calls[i].n += b->calls[k].n;
		} else if (a->nrows < 4) {
			a->calls[a->nrows++] = b->calls[k];
		} else {
			a->calls_other += b->calls[k].n;
		}
	}
	io_merge(&a->rd, &b->rd);
	io_merge(&a->wr, &b->wr);
	if (b->size != UINT64_MAX && (a->size == UINT64_MAX || b->size > a->size))
		a->size = b->size;
	nfs_sketch_merge(&a->srt, &b->srt);
}

/* Nodes the map merged since (a name learnt for a handle seen under another node): one entry. */
void nfs_files_merge(struct nfs_stats *s)
{
	struct nfs_file_table *tb = &s->files;
	struct nfs_name_info in;
	unsigned j, o = 0;
	bool moved = false;

	for (j = 0; j < tb->n; j++) {
		if (nfs_names_info(s->names, tb->f[j].node, &in) == 0 && in.id != tb->f[j].node) {
			tb->f[j].node = in.id;
			moved = true;
		}
	}
	if (!moved)
		return;
	idx_rebuild(tb);
	for (j = 0; j < tb->n; j++) {
		struct nfs_file *first = file_find(tb, tb->f[j].node);

		if (first != &tb->f[j]) {
			nfs_file_merge(first, &tb->f[j]);
			tb->f[j].node = NFS_NAME_NONE;
		}
	}
	for (j = 0; j < tb->n; j++)
		if (tb->f[j].node != NFS_NAME_NONE)
			tb->f[o++] = tb->f[j];
	tb->n = o;
	idx_rebuild(tb);
}

struct rank_ctx {
	const struct nfs_file_table *tb;
	enum nfs_rank by;
};

static uint64_t file_key(const void *ctx, unsigned i)
{
	const struct rank_ctx *r = ctx;
	const struct nfs_file *f = &r->tb->f[i];

	return r->by == NFS_RANK_WAIT    ? f->wait_ns
	       : r->by == NFS_RANK_BYTES ? f->rd.bytes + f->wr.bytes
	                                 : f->ops;
}

unsigned nfs_stats_top_files(const struct nfs_stats *s, enum nfs_rank by, unsigned *idx, unsigned n)
{
	struct rank_ctx r = {&s->files, by};

	return nfs_rank_top(&r, r.tb->n, file_key, true, idx, n);
}

unsigned nfs_stats_file_path(const struct nfs_stats *s, uint32_t node, const uint8_t *fh,
                             unsigned fh_len, char *buf, size_t len)
{
	size_t o;
	unsigned k;

	if (node != NFS_NAME_NONE)
		return nfs_names_path(s->names, node, buf, len);
	o = (size_t)snprintf(buf, len, "<fh:");
	for (k = 0; k < fh_len && o + 4 < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%02x", fh[k]);
	snprintf(buf + o, len - o, ">");
	return NFS_PATH_PLACEHOLDER;
}

/* --- the slowest calls: a top-N heap (common/topn.h) of cfg.top entries on the response
 * time --- */

static bool slower(const struct nfs_slow *a, const struct nfs_slow *b)
{
	return a->srt > b->srt || (a->srt == b->srt && a->call_ns < b->call_ns);
}

/* the heap drops the least slow first */
static bool less_slow(const void *a, const void *b)
{
	return slower(b, a);
}

void nfs_slow_txn(struct nfs_stats *s, const struct rpc_txn *t, unsigned row, uint32_t node,
                  uint64_t srt, uint32_t st)
{
	struct iot_topn top = {s->slow, sizeof(*s->slow), s->nslow, s->slow ? s->cfg.top : 0};
	struct nfs_slow e;

	e.srt = srt;
	e.call_ns = t->call_ns;
	if (!iot_topn_wants(&top, &e, less_slow))
		return;
	memset(&e, 0, sizeof(e));
	e.srt = srt;
	e.call_ns = t->call_ns;
	e.xid = t->xid;
	e.client = t->client;
	e.server = t->server;
	e.has_unix = t->has_unix;
	e.uid = t->uid;
	e.gid = t->gid;
	if (t->machine)
		snprintf(e.machine, sizeof(e.machine), "%s", t->machine);
	e.row = row;
	if (t->vers == 4 && t->proc == 1) {
		e.nops = t->call.nops < NFS_OPS_MAX ? t->call.nops : NFS_OPS_MAX;
		memcpy(e.ops, t->call.ops, e.nops * sizeof(e.ops[0]));
	}
	e.node = node;
	e.fh_len = t->call.fh_len;
	memcpy(e.fh, t->call.fh, t->call.fh_len);
	e.has_io = t->call.has_io;
	e.offset = t->call.offset;
	e.count = t->call.count;
	e.status = st;
	iot_topn_put(&top, &e, NULL, less_slow);
	s->nslow = top.n;
}

static int slow_cmp(const void *a, const void *b)
{
	return slower(a, b) ? -1 : slower(b, a) ? 1 : 0;
}

unsigned nfs_stats_slowest(const struct nfs_stats *s, struct nfs_slow *out, unsigned n)
{
	struct nfs_slow *all;

	if (!s->nslow)
		return 0;
	all = malloc((size_t)s->nslow * sizeof(*all));
	if (!all)
		return 0;
	memcpy(all, s->slow, (size_t)s->nslow * sizeof(*all));
	qsort(all, s->nslow, sizeof(*all), slow_cmp);
	if (n > s->nslow)
		n = s->nslow;
	memcpy(out, all, (size_t)n * sizeof(*out));
	free(all);
	return n;
}
