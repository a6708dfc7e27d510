/* SPDX-License-Identifier: MIT */
/* NFS statistics: fed one RPC transaction at a time, fixed memory per row. */
#include "analyze/nfs_stats.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CLIENTS 4096
#define MAX_ROWS 512 /* each row holds a ~30 KiB histogram */
#define FH_CAP 65536   /* distinct file handles tracked (power of two) */
#define MAX_BINS 8192u /* timeline bins; beyond, the interval doubles */

int nfs_stats_init(struct nfs_stats *s, const struct nfs_stats_cfg *cfg)
{
	memset(s, 0, sizeof(*s));
	s->cfg.interval_ns = cfg && cfg->interval_ns ? cfg->interval_ns : 1000000000ull;
	s->cfg.top = cfg && cfg->top ? cfg->top : 10;
	hist_init(&s->copy.cb_latency);
	hist_init(&s->copy.srt);
	s->first_call_ns = UINT64_MAX;
	return 0;
}

void nfs_stats_release(struct nfs_stats *s)
{
	unsigned i;

	for (i = 0; i < s->nprocs; i++)
		free(s->procs[i].srt);
	free(s->procs);
	free(s->clients);
	free(s->fhs);
	free(s->bins);
	memset(s, 0, sizeof(*s));
}

void nfs_addr_str(uint8_t family, const uint8_t *a, char *buf, size_t len)
{
	if (!inet_ntop(family == 6 ? AF_INET6 : AF_INET, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
}

/* --- rows --- */

static void row_key(const struct rpc_txn *t, uint32_t *minor, uint32_t *op, int *is_proc)
{
	*minor = 0;
	*op = t->proc;
	*is_proc = 1;
	if ((t->kind == RPC_KIND_NFS && t->vers == 4) || t->kind == RPC_KIND_NFS_CB) {
		*minor = t->call.minor;
		if (t->proc == 1 && t->call.op) {
			*op = t->call.op;
			*is_proc = 0;
		}
	}
}

static void row_name(struct nfs_proc_stats *r)
{
	const char *n = NULL;

	if (r->is_proc)
		n = rpc_proc_name(r->kind, r->vers, r->op);
	else if (r->kind == RPC_KIND_NFS_CB)
		n = nfs4_cb_op_name(r->op);
	else
		n = nfs4_op_name(r->op);
	if (n)
		snprintf(r->name, sizeof(r->name), "%s", n);
	else
		snprintf(r->name, sizeof(r->name), "%s_%u", r->is_proc ? "PROC" : "OP", r->op);
	if ((r->kind == RPC_KIND_NFS && r->vers == 4) || r->kind == RPC_KIND_NFS_CB)
		snprintf(r->version, sizeof(r->version), "%u.%u", r->vers == 1 ? 4 : r->vers,
			 r->minor);
	else
		snprintf(r->version, sizeof(r->version), "%u", r->vers);
}

static struct nfs_proc_stats *row_get(struct nfs_stats *s, const struct rpc_txn *t)
{
	uint32_t minor, op;
	int is_proc;
	unsigned i;
	struct nfs_proc_stats *r;

	row_key(t, &minor, &op, &is_proc);
	if (minor > 99)
		minor = 99;
	for (i = 0; i < s->nprocs; i++) {
		r = &s->procs[i];
		if (r->prog == t->prog && r->vers == t->vers && r->minor == minor && r->op == op &&
		    r->is_proc == is_proc && r->kind == t->kind)
			return r;
	}
	if (s->nprocs >= MAX_ROWS) {
		s->rows_dropped++; /* a flood of made-up programs or procedures: bounded */
		return NULL;
	}
	if (s->nprocs == s->cap_procs) {
		unsigned nc = s->cap_procs ? s->cap_procs * 2 : 32;
		void *p = realloc(s->procs, nc * sizeof(*s->procs));

		if (!p)
			return NULL;
		s->procs = p;
		s->cap_procs = nc;
	}
	r = &s->procs[s->nprocs];
	memset(r, 0, sizeof(*r));
	r->srt = malloc(sizeof(*r->srt));
	if (!r->srt)
		return NULL;
	hist_init(r->srt);
	r->kind = t->kind;
	r->prog = t->prog;
	r->vers = t->vers;
	r->minor = minor;
	r->op = op;
	r->is_proc = is_proc;
	row_name(r);
	s->nprocs++;
	return r;
}

static void count_error(struct nfs_proc_stats *r, uint32_t status)
{
	unsigned i;

	r->errors++;
	for (i = 0; i < r->nerr; i++) {
		if (r->err[i].status == status) {
			r->err[i].n++;
			return;
		}
	}
	if (r->nerr < NFS_ERR_SLOTS) {
		r->err[r->nerr].status = status;
		r->err[r->nerr++].n = 1;
	} else {
		r->err_other++;
	}
}

/* 0 on success, else the status to count (NFS status or an RPC-level code). */
static uint32_t txn_status(const struct rpc_txn *t)
{
	if (t->reply_stat == 1)
		return NFS_ERR_RPC_DENIED;
	if (t->accept_stat != 0)
		return NFS_ERR_RPC_ACCEPT + (t->accept_stat & 0xff);
	if (t->kind == RPC_KIND_NFS && t->rep.decoded)
		return t->rep.status;
	return 0;
}

static int is_v4(const struct rpc_txn *t)
{
	return t->kind == RPC_KIND_NFS && t->vers == 4 && t->proc == 1;
}

/* Data bytes moved: READ/READ_PLUS from the reply, WRITE from the call, COPY from the reply. */
static void txn_bytes(const struct rpc_txn *t, uint64_t *rd, uint64_t *wr)
{
	*rd = *wr = 0;
	if (t->kind != RPC_KIND_NFS)
		return;
	if (t->vers == 3) {
		if (t->proc == 6)
			*rd = t->rep.count;
		else if (t->proc == 7)
			*wr = t->call.count;
	} else if (is_v4(t)) {
		switch (t->call.op) {
		case OP4_READ:
		case OP4_READ_PLUS:
			*rd = t->rep.count;
			break;
		case OP4_WRITE:
			*wr = t->call.count;
			break;
		default:
			break;
		}
	}
}

static struct nfs_client_stats *client_get(struct nfs_stats *s, const struct rpc_txn *t)
{
	unsigned i;
	struct nfs_client_stats *c;

	for (i = 0; i < s->nclients; i++) {
		c = &s->clients[i];
		if (c->family == t->family && !memcmp(c->addr, t->client, 16))
			return c;
	}
	if (s->nclients >= MAX_CLIENTS) {
		s->clients_dropped++;
		return NULL;
	}
	if (s->nclients == s->cap_clients) {
		unsigned nc = s->cap_clients ? s->cap_clients * 2 : 8;
		void *p = realloc(s->clients, nc * sizeof(*s->clients));

		if (!p)
			return NULL;
		s->clients = p;
		s->cap_clients = nc;
	}
	c = &s->clients[s->nclients++];
	memset(c, 0, sizeof(*c));
	c->family = t->family;
	memcpy(c->addr, t->client, 16);
	return c;
}

static uint64_t fh_hash(const uint8_t *fh, unsigned len)
{
	uint64_t h = 1469598103934665603ull;
	unsigned i;

	for (i = 0; i < len; i++)
		h = (h ^ fh[i]) * 1099511628211ull;
	return h ^ h >> 31;
}

/* Double the table (rehash); the table starts small and stops growing at FH_CAP. */
static int fh_grow(struct nfs_stats *s)
{
	unsigned ncap = s->fh_cap ? s->fh_cap * 2 : 1024, i, mask = ncap - 1;
	struct nfs_fh_stats *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (i = 0; i < s->fh_cap; i++) {
		struct nfs_fh_stats *f = &s->fhs[i];
		unsigned k;

		if (!f->len)
			continue;
		for (k = (unsigned)fh_hash(f->fh, f->len) & mask; n[k].len; k = (k + 1) & mask)
			;
		n[k] = *f;
	}
	free(s->fhs);
	s->fhs = n;
	s->fh_cap = ncap;
	return 0;
}

static struct nfs_fh_stats *fh_get(struct nfs_stats *s, const uint8_t *fh, unsigned len)
{
	unsigned i, mask;
	uint64_t h;

	if (!len)
		return NULL;
	/* keep the table at most 3/4 full so probes stay short */
	if ((!s->fhs || s->nfh >= s->fh_cap / 4 * 3) && s->fh_cap < FH_CAP && fh_grow(s))
		return NULL;
	mask = s->fh_cap - 1;
	h = fh_hash(fh, len);
	for (i = (unsigned)h & mask;; i = (i + 1) & mask) {
		struct nfs_fh_stats *f = &s->fhs[i];

		if (!f->len) {
			if (s->nfh >= s->fh_cap / 4 * 3) {
				s->fh_untracked++;
				return NULL;
			}
			f->len = (uint8_t)len;
			memcpy(f->fh, fh, len);
			f->size = UINT64_MAX;
			s->nfh++;
			return f;
		}
		if (f->len == len && !memcmp(f->fh, fh, len))
			return f;
	}
}

/*
 * The timeline keeps at most MAX_BINS bins: when the capture spans more intervals than that,
 * adjacent bins are merged and the interval doubles (fixed memory whatever the time span,
 * even for captures with bogus timestamps). interval_ns in the output is the final width.
 */
static void coarsen(struct nfs_stats *s)
{
	uint64_t nb0 = s->bin0 / 2;
	unsigned i, last = 0;
	struct nfs_bin acc = {0};

	for (i = 0; i < s->nbins; i++) {
		unsigned j = (unsigned)((s->bin0 + i) / 2 - nb0);
		const struct nfs_bin *b = &s->bins[i];

		if (i && j != last) {
			s->bins[last] = acc;
			memset(&acc, 0, sizeof(acc));
		}
		last = j;
		acc.ops += b->ops;
		acc.read_bytes += b->read_bytes;
		acc.write_bytes += b->write_bytes;
		acc.errors += b->errors;
		acc.busy_ns += b->busy_ns;
	}
	if (s->nbins) {
		s->bins[last] = acc;
		s->nbins = last + 1;
	}
	s->bin0 = nb0;
	s->cfg.interval_ns *= 2;
}

/* The bin holding time ns (may coarsen the timeline first). */
static struct nfs_bin *bin_at(struct nfs_stats *s, uint64_t ns)
{
	uint64_t abs;

	if (!s->bins) {
		s->bins = calloc(MAX_BINS, sizeof(*s->bins));
		if (!s->bins)
			return NULL;
	}
	for (;;) {
		abs = ns / s->cfg.interval_ns;
		if (!s->nbins) {
			s->bin0 = abs;
			s->nbins = 1;
			memset(s->bins, 0, sizeof(*s->bins));
		}
		if (abs >= s->bin0 && abs - s->bin0 < MAX_BINS)
			break;
		if (abs < s->bin0 && s->bin0 + s->nbins - abs <= MAX_BINS) {
			uint64_t shift = s->bin0 - abs;

			memmove(s->bins + shift, s->bins, (size_t)s->nbins * sizeof(*s->bins));
			memset(s->bins, 0, (size_t)shift * sizeof(*s->bins));
			s->nbins += (unsigned)shift;
			s->bin0 = abs;
			break;
		}
		if (s->cfg.interval_ns > UINT64_MAX / 4)
			return NULL;
		coarsen(s);
	}
	if (abs - s->bin0 >= s->nbins) {
		unsigned need = (unsigned)(abs - s->bin0 + 1);

		memset(s->bins + s->nbins, 0, (size_t)(need - s->nbins) * sizeof(*s->bins));
		s->nbins = need;
	}
	return &s->bins[abs - s->bin0];
}

static void timeline(struct nfs_stats *s, const struct rpc_txn *t, uint64_t rd, uint64_t wr,
		     int err)
{
	uint64_t iv, k, end;
	struct nfs_bin *b;

	/* make room for both ends first: the interval is final for this transaction after */
	if (t->replied && t->reply_ns >= t->call_ns && !bin_at(s, t->reply_ns))
		return;
	b = bin_at(s, t->call_ns);
	if (!b)
		return;
	b->ops++;
	b->read_bytes += rd;
	b->write_bytes += wr;
	b->errors += err != 0;
	if (!t->replied || t->reply_ns < t->call_ns)
		return;
	iv = s->cfg.interval_ns;
	end = t->reply_ns / iv;
	for (k = t->call_ns / iv; k <= end; k++) {
		uint64_t lo = k * iv, hi = lo + iv;
		uint64_t a = t->call_ns > lo ? t->call_ns : lo;
		uint64_t z = t->reply_ns < hi ? t->reply_ns : hi;

		if (k < s->bin0 || k - s->bin0 >= s->nbins)
			break;
		s->bins[k - s->bin0].busy_ns += z - a;
	}
}

/* srt: the transaction's response time, clamped at 0 by the caller (one computation). */
static void copy_track(struct nfs_stats *s, const struct rpc_txn *t, uint64_t srt)
{
	struct nfs_copy_stats *c = &s->copy;
	unsigned i;

	if (t->kind == RPC_KIND_NFS_CB) {
		if (!t->call.cb_offload)
			return;
		c->callbacks++;
		c->cb_bytes += t->call.cb_count;
		c->cb_errors += t->call.cb_status != 0;
		for (i = 0; i < 256; i++) {
			if (s->copy_wait[i].used &&
			    !memcmp(s->copy_wait[i].stateid, t->call.cb_stateid, 16)) {
				s->copy_wait[i].used = 0;
				if (t->call_ns >= s->copy_wait[i].ns)
					hist_add(&c->cb_latency, t->call_ns - s->copy_wait[i].ns);
				return;
			}
		}
		i = (unsigned)(t->call_ns % 256);
		memcpy(s->cb_wait[i].stateid, t->call.cb_stateid, 16);
		s->cb_wait[i].ns = t->call_ns;
		s->cb_wait[i].used = 1;
		return;
	}
	if (!is_v4(t) || t->call.op != OP4_COPY)
		return;
	c->calls++;
	if (t->call.copy_sync)
		c->sync++;
	if (!t->replied)
		return;
	hist_add(&c->srt, srt);
	if (txn_status(t)) {
		c->errors++;
		return;
	}
	c->bytes += t->rep.count;
	if (!t->rep.copy_async)
		return;
	c->async++;
	for (i = 0; i < 256; i++) {
		if (s->cb_wait[i].used && !memcmp(s->cb_wait[i].stateid, t->rep.copy_stateid, 16)) {
			s->cb_wait[i].used = 0;
			if (s->cb_wait[i].ns >= t->call_ns)
				hist_add(&c->cb_latency, s->cb_wait[i].ns - t->call_ns);
			return;
		}
	}
	i = (unsigned)(t->xid % 256);
	memcpy(s->copy_wait[i].stateid, t->rep.copy_stateid, 16);
	s->copy_wait[i].ns = t->call_ns;
	s->copy_wait[i].used = 1;
}

void nfs_stats_txn(void *arg, const struct rpc_txn *t)
{
	struct nfs_stats *s = arg;
	struct nfs_proc_stats *r = row_get(s, t);
	struct nfs_client_stats *c = NULL;
	struct nfs_fh_stats *f = NULL;
	uint64_t rd, wr, srt = 0;
	uint32_t st = t->replied ? txn_status(t) : 0;

	s->txns++;
	s->rpc_retransmits += t->retransmits;
	if (t->call_ns < s->first_call_ns)
		s->first_call_ns = t->call_ns;
	if (t->replied) {
		s->replied++;
		srt = t->reply_ns >= t->call_ns ? t->reply_ns - t->call_ns : 0;
		if (t->reply_ns > s->last_reply_ns)
			s->last_reply_ns = t->reply_ns;
	}
	txn_bytes(t, &rd, &wr);
	if (r) {
		r->calls++;
		r->retransmits += t->retransmits;
		r->read_bytes += rd;
		r->write_bytes += wr;
		r->bytes += rd + wr;
		if (t->replied) {
			r->replies++;
			hist_add(r->srt, srt);
			if (st)
				count_error(r, st);
		}
	}
	if (t->kind == RPC_KIND_NFS) {
		c = client_get(s, t);
		if (c) {
			c->calls++;
			c->read_bytes += rd;
			c->write_bytes += wr;
			if (t->replied) {
				c->replies++;
				c->errors += st != 0;
				c->srt_sum += srt;
				if (srt > c->srt_max)
					c->srt_max = srt;
			}
		}
		f = fh_get(s, t->call.fh, t->call.fh_len);
		if (f) {
			f->ops++;
			f->read_bytes += rd;
			f->write_bytes += wr;
			f->bytes += rd + wr;
			if (t->rep.has_size)
				f->size = t->rep.size;
		}
		timeline(s, t, rd, wr, st != 0);
	}
	if (is_v4(t)) {
		unsigned i, n = t->call.nops < NFS_OPS_MAX ? t->call.nops : NFS_OPS_MAX;
		unsigned m = t->call.minor < 3 ? t->call.minor : 3;

		for (i = 0; i < n; i++) {
			if (t->call.ops[i] < NFS4_OPS_COUNTED)
				s->v4_ops[m][t->call.ops[i]]++;
			else
				s->v4_ops_other++;
		}
	}
	copy_track(s, t, srt);
}

static int row_rank(const struct nfs_proc_stats *r)
{
	switch (r->kind) {
	case RPC_KIND_NFS:
		return 0;
	case RPC_KIND_NFS_CB:
		return 1;
	case RPC_KIND_MOUNT:
		return 2;
	case RPC_KIND_PORTMAP:
		return 3;
	default:
		return 4;
	}
}

static int row_cmp(const void *a, const void *b)
{
	const struct nfs_proc_stats *x = a, *y = b;
	int d = row_rank(x) - row_rank(y);

	if (d)
		return d;
	if (x->prog != y->prog)
		return x->prog < y->prog ? -1 : 1;
	if (x->vers != y->vers)
		return x->vers < y->vers ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	if (x->is_proc != y->is_proc)
		return x->is_proc ? -1 : 1;
	return x->op < y->op ? -1 : x->op > y->op;
}

void nfs_stats_sort(struct nfs_stats *s)
{
	if (s->nprocs)
		qsort(s->procs, s->nprocs, sizeof(*s->procs), row_cmp);
}

unsigned nfs_stats_top_fh(const struct nfs_stats *s, int by_bytes, unsigned *idx, unsigned n)
{
	unsigned i, k, got = 0;

	if (!s->fhs)
		return 0;
	/* insertion into a small sorted list: n is the --top count */
	for (i = 0; i < s->fh_cap; i++) {
		const struct nfs_fh_stats *f = &s->fhs[i];
		uint64_t v = by_bytes ? f->bytes : f->ops;

		if (!f->len || (by_bytes && !v))
			continue;
		for (k = got; k > 0; k--) {
			const struct nfs_fh_stats *g = &s->fhs[idx[k - 1]];

			if ((by_bytes ? g->bytes : g->ops) >= v)
				break;
			if (k < n)
				idx[k] = idx[k - 1];
		}
		if (k < n) {
			idx[k] = i;
			if (got < n)
				got++;
		}
	}
	return got;
}
