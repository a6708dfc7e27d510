/* SPDX-License-Identifier: MIT */
/* NFS statistics: fed one RPC transaction at a time, fixed memory per row, bin and table. */
#include "analyze/nfs_stats.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int nfs_stats_init(struct nfs_stats *s, const struct nfs_stats_cfg *cfg)
{
	struct nfs_names_cfg ncfg = {.max_nodes = cfg ? cfg->max_names : 0};

	memset(s, 0, sizeof(*s));
	s->cfg.interval_ns = cfg && cfg->interval_ns ? cfg->interval_ns : 1000000000ull;
	bins_init(&s->clock, s->cfg.interval_ns, NFS_MAX_BINS, true);
	bins_init(&s->sclock, s->cfg.interval_ns, NFS_SERIES_BINS, true);
	s->cfg.top = cfg && cfg->top ? cfg->top : 10;
	if (s->cfg.top > NFS_MAX_SLOWEST)
		s->cfg.top = NFS_MAX_SLOWEST;
	hist_init(&s->copy.cb_latency);
	hist_init(&s->copy.srt);
	s->first_call_ns = UINT64_MAX;
	nfs_clients_init(s);
	s->slow = calloc(s->cfg.top, sizeof(*s->slow));
	s->events = calloc(NFS_MAX_EVENTS, sizeof(*s->events));
	if (!s->slow || !s->events || nfs_names_new(&s->names, &ncfg)) {
		nfs_stats_release(s);
		return -ENOMEM;
	}
	s->files.max = NFS_MAX_FILES;
	nfs_sketch_init(&s->files.other.srt);
	s->files.other.size = UINT64_MAX;
	s->files.other.rd.min = s->files.other.wr.min = UINT64_MAX;
	return 0;
}

void nfs_stats_release(struct nfs_stats *s)
{
	unsigned i;

	for (i = 0; i < s->nprocs; i++)
		free(s->procs[i].srt);
	free(s->procs);
	nfs_clients_release(s);
	nfs_files_release(s);
	nfs_names_free(s->names);
	free(s->slow);
	free(s->bins);
	free(s->series);
	free(s->events);
	memset(s, 0, sizeof(*s));
}

size_t nfs_stats_mem(const struct nfs_stats *s)
{
	size_t m = sizeof(*s) + (size_t)s->cap_procs * sizeof(*s->procs) +
	           (size_t)s->nprocs * sizeof(struct hist);
	unsigned k;

	for (k = 0; k < NFS_CLIENT_KINDS; k++)
		m += (size_t)s->clients[k].cap * sizeof(struct nfs_client) +
		     (size_t)(s->clients[k].mask + 1) * sizeof(uint32_t);
	m += (size_t)s->files.cap * sizeof(struct nfs_file) +
	     (size_t)(s->files.mask + 1) * sizeof(uint32_t);
	m += (size_t)s->cfg.top * sizeof(struct nfs_slow) +
	     NFS_MAX_EVENTS * sizeof(struct nfs_event);
	if (s->bins)
		m += NFS_MAX_BINS * sizeof(*s->bins);
	if (s->series)
		m += (size_t)NFS_SERIES_BINS * NFS_SERIES * sizeof(*s->series);
	return m + nfs_names_mem(s->names);
}

/* --- rows --- */

static bool is_v4(const struct rpc_txn *t)
{
	return t->kind == RPC_KIND_NFS && t->vers == 4 && t->proc == 1;
}

static void row_key(const struct rpc_txn *t, uint32_t *minor, uint32_t *op, int *is_proc)
{
	*minor = 0;
	*op = t->proc;
	*is_proc = 1;
	if ((t->kind == RPC_KIND_NFS && t->vers == 4) || t->kind == RPC_KIND_NFS_CB) {
		*minor = t->call.minor;
		if (is_v4(t) && t->call.cut) {
			*is_proc = 2; /* cut by the snaplen before its main op: a row of its own */
		} else if (t->proc == 1 && t->call.op) {
			*op = t->call.op;
			*is_proc = 0;
		}
	}
}

static void row_name(struct nfs_proc_stats *r)
{
	const char *n = NULL;

	if (r->is_proc == 2)
		n = "COMPOUND_CUT";
	else if (r->is_proc)
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

void nfs_txn_row_name(const struct rpc_txn *t, char *version, size_t vlen, char *name, size_t nlen)
{
	struct nfs_proc_stats r;

	memset(&r, 0, sizeof(r));
	row_key(t, &r.minor, &r.op, &r.is_proc);
	if (r.minor > 99)
		r.minor = 99;
	r.kind = t->kind;
	r.prog = t->prog;
	r.vers = t->vers;
	row_name(&r);
	snprintf(version, vlen, "%s", r.version);
	snprintf(name, nlen, "%s", r.name);
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
	if (s->nprocs >= NFS_MAX_ROWS) {
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
	r->id = s->nprocs;
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

const struct nfs_proc_stats *nfs_stats_row(const struct nfs_stats *s, unsigned id)
{
	unsigned i;

	if (id < s->nprocs && s->procs[id].id == id)
		return &s->procs[id];
	for (i = 0; i < s->nprocs; i++)
		if (s->procs[i].id == id)
			return &s->procs[i];
	return NULL;
}

static void count_error(struct nfs_errs *e, uint32_t status)
{
	unsigned i;

	e->errors++;
	for (i = 0; i < e->nerr; i++) {
		if (e->err[i].status == status) {
			e->err[i].n++;
			return;
		}
	}
	if (e->nerr < NFS_ERR_SLOTS) {
		e->err[e->nerr].status = status;
		e->err[e->nerr++].n = 1;
	} else {
		e->err_other++;
	}
}

uint32_t nfs_txn_status(const struct rpc_txn *t)
{
	if (!t->replied)
		return 0;
	if (t->reply_stat == 1)
		return NFS_ERR_RPC_DENIED;
	if (t->accept_stat != 0)
		return NFS_ERR_RPC_ACCEPT + (t->accept_stat & 0xff);
	/* the status word, even when what follows it was cut by the snaplen */
	if (t->kind == RPC_KIND_NFS && t->rep.has_status)
		return t->rep.status;
	return 0;
}

/* Data bytes moved: READ/READ_PLUS from the reply, WRITE from the call. */
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

/* --- timeline and per-procedure series --- */

/*
 * The timeline keeps at most NFS_MAX_BINS bins (common/bins.h, aligned: absolute intervals):
 * when the capture spans more intervals than that, adjacent bins are merged and the interval
 * doubles (fixed memory whatever the time span, even for captures with bogus timestamps).
 * interval_ns in the output is the final width.
 */
static void series_merge(struct nfs_series_bin *a, const struct nfs_series_bin *b)
{
	unsigned k;

	a->calls += b->calls;
	a->replies += b->replies;
	a->errors += b->errors;
	if (b->srt_max > a->srt_max)
		a->srt_max = b->srt_max;
	for (k = 0; k < SK_BUCKETS(SK_COARSE); k++) {
		uint64_t v = (uint64_t)a->srt.b[k] + b->srt.b[k];

		a->srt.b[k] = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
	}
}

static void bin_add(void *dst, const void *src)
{
	struct nfs_bin *a = dst;
	const struct nfs_bin *b = src;

	a->ops += b->ops;
	a->read_bytes += b->read_bytes;
	a->write_bytes += b->write_bytes;
	a->errors += b->errors;
	a->busy_ns += b->busy_ns;
}

/* A bin's series: NFS_SERIES of them side by side. */
static void series_add(void *dst, const void *src)
{
	for (unsigned k = 0; k < NFS_SERIES; k++)
		series_merge((struct nfs_series_bin *)dst + k,
		             (const struct nfs_series_bin *)src + k);
}

static void moved(void *ctx, const struct bins_move *m)
{
	struct nfs_stats *s = ctx;

	bins_move_array(m, s->bins, NFS_MAX_BINS, sizeof(*s->bins), bin_add);
}

static void smoved(void *ctx, const struct bins_move *m)
{
	struct nfs_stats *s = ctx;

	bins_move_array(m, s->series, NFS_SERIES_BINS, NFS_SERIES * sizeof(*s->series), series_add);
}

/* The index of the bin holding time ns (may coarsen or extend the timeline first), or -1. */
static long bin_at(struct nfs_stats *s, uint64_t ns)
{
	if (!s->bins) {
		s->bins = calloc(NFS_MAX_BINS, sizeof(*s->bins));
		s->series = calloc((size_t)NFS_SERIES_BINS * NFS_SERIES, sizeof(*s->series));
		if (!s->bins || !s->series)
			return -1;
	}
	return (long)bins_place(&s->clock, ns, moved, s);
}

/*
 * Procedures that set things up or hold nothing (NULL, FSINFO, SETCLIENTID, EXCHANGE_ID, ...)
 * share the series "other": the named ones go to procedures whose time a reader follows.
 */
static bool series_worth(const struct nfs_proc_stats *r)
{
	if (r->is_proc == 2 || (r->is_proc && r->op == 0))
		return false;
	if (r->is_proc) /* NFSv3: FSSTAT, FSINFO, PATHCONF */
		return !(r->vers == 3 && r->op >= 18 && r->op <= 20);
	switch (r->op) {
	case OP4_SETCLIENTID:
	case OP4_SETCLIENTID_CONFIRM:
	case OP4_EXCHANGE_ID:
	case OP4_CREATE_SESSION:
	case OP4_DESTROY_SESSION:
	case OP4_DESTROY_CLIENTID:
	case OP4_RECLAIM_COMPLETE:
	case OP4_RENEW:
	case OP4_BIND_CONN:
	case OP4_FREE_STATEID:
	case OP4_TEST_STATEID:
		return false;
	default:
		return nfs4_op_class(r->op) > 0;
	}
}

static unsigned series_slot(struct nfs_stats *s, const struct nfs_proc_stats *r)
{
	unsigned i;

	if (!r || !series_worth(r))
		return NFS_SERIES - 1;
	for (i = 0; i < s->nseries; i++)
		if (s->series_row[i] == r->id)
			return i;
	if (s->nseries < NFS_SERIES - 1) {
		s->series_row[s->nseries] = r->id;
		return s->nseries++;
	}
	return NFS_SERIES - 1;
}

static void timeline(struct nfs_stats *s, const struct rpc_txn *t, const struct nfs_proc_stats *r,
                     uint64_t rd, uint64_t wr, uint64_t srt, int err)
{
	long bi;
	struct nfs_bin *b;
	struct nfs_series_bin *sb;

	/* make room for both ends first: the interval is final for this transaction after */
	if (t->replied && t->reply_ns >= t->call_ns && bin_at(s, t->reply_ns) < 0)
		return;
	bi = bin_at(s, t->call_ns);
	if (bi < 0)
		return;
	b = &s->bins[bi];
	b->ops++;
	b->read_bytes += rd;
	b->write_bytes += wr;
	b->errors += err != 0;
	sb = &s->series[(size_t)bins_place(&s->sclock, t->call_ns, smoved, s) * NFS_SERIES +
	                series_slot(s, r)];
	sb->calls++;
	sb->errors += err != 0;
	if (t->replied) {
		sb->replies++;
		nfs_coarse_add(&sb->srt, srt);
		if (srt > sb->srt_max)
			sb->srt_max = srt;
	}
	if (!t->replied || t->reply_ns < t->call_ns)
		return;
	for (uint64_t from = t->call_ns, k, len; from < t->reply_ns; from += len) {
		len = bins_segment(&s->clock, from, t->reply_ns, &k);
		s->bins[k].busy_ns += len;
	}
}

/* --- server-side copy --- */

/* srt: the transaction's response time, clamped at 0 by the caller (one computation). */
static void copy_track(struct nfs_stats *s, const struct rpc_txn *t, uint64_t srt, uint32_t st)
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
	if (!is_v4(t) || t->call.op != OP4_COPY || t->call.cut)
		return;
	c->calls++;
	if (t->call.copy_sync)
		c->sync++;
	if (!t->replied)
		return;
	hist_add(&c->srt, srt);
	if (st) {
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

/* --- NFSv4: every op, and the op that failed --- */

static void v4_ops(struct nfs_stats *s, const struct rpc_txn *t)
{
	unsigned i, n = t->call.nops < NFS_OPS_MAX ? t->call.nops : NFS_OPS_MAX;
	unsigned m = t->call.minor < 3 ? t->call.minor : 3;

	for (i = 0; i < n; i++) {
		if (t->call.ops[i] < NFS4_OPS_COUNTED)
			s->v4_ops[m][t->call.ops[i]]++;
		else
			s->v4_ops_other++;
	}
	if (t->replied && t->rep.failed && t->rep.fail_op < NFS4_OPS_COUNTED)
		count_error(&s->v4_op_errs[m][t->rep.fail_op], t->rep.fail_status);
}

void nfs_stats_event(void *arg, const struct net_event *ev)
{
	struct nfs_stats *s = arg;

	if ((unsigned)ev->type >= NET_EV_TYPES)
		return;
	s->event_counts[ev->type]++;
	if (s->nevents < NFS_MAX_EVENTS && s->events) {
		struct nfs_event *e = &s->events[s->nevents++];

		e->type = ev->type;
		e->ts_ns = ev->ts_ns;
		e->conn_id = ev->conn_id;
		e->bytes = ev->bytes;
		e->xid = ev->xid;
		e->proto = ev->proto;
		e->src = *ev->src;
		e->dst = *ev->dst;
	}
}

void nfs_stats_txn(void *arg, const struct rpc_txn *t)
{
	struct nfs_stats *s = arg;
	struct nfs_proc_stats *r = row_get(s, t);
	unsigned row = r ? r->id : UINT32_MAX;
	uint32_t node = NFS_NAME_NONE;
	uint64_t rd, wr, srt = 0;
	uint32_t st = nfs_txn_status(t);

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
				count_error(&r->e, st);
		}
	}
	if (t->kind == RPC_KIND_NFS || t->kind == RPC_KIND_MOUNT)
		node = nfs_names_txn(s->names, t);
	if (t->kind == RPC_KIND_NFS) {
		nfs_clients_txn(s, t, row, srt, st, rd, wr);
		nfs_files_txn(s, t, node, row, srt, st, rd, wr);
		timeline(s, t, r, rd, wr, srt, st != 0);
		if (t->replied)
			nfs_slow_txn(s, t, row, node, srt, st);
	}
	if (is_v4(t))
		v4_ops(s, t);
	copy_track(s, t, srt, st);
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
		return x->is_proc == 1 ? -1 : y->is_proc == 1 ? 1 : x->is_proc - y->is_proc;
	return x->op < y->op ? -1 : x->op > y->op;
}

void nfs_stats_sort(struct nfs_stats *s)
{
	if (s->nprocs)
		qsort(s->procs, s->nprocs, sizeof(*s->procs), row_cmp);
	nfs_files_merge(s);
}
