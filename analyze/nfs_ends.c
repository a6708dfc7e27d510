/* SPDX-License-Identifier: MIT */
/* An NFS call seen from both ends: a run set's captures matched, response times split. */
#include "analyze/nfs_ends.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/nfs_stats.h"
#include "common/hist.h"
#include "common/jsonint.h"
#include "common/units.h"
#include "formats/netaddr.h"
#include "formats/nfs_pipe.h"

#define ROWS_MAX 128 /* as the statistics' rows; past it, one "other" row */

/* One transaction as one host saw it. */
struct rec {
	uint64_t call_ns, reply_ns; /* the host's own clock */
	int64_t acall_ns;           /* the call on the common clock */
	uint32_t xid;
	uint32_t mate; /* the other end's record + 1, 0 when unmatched */
	uint16_t host, row;
	struct net_endpoint client, server;
	uint8_t replied, is_server;
};

struct host {
	char *name;
	int64_t offset_ns;
	uint64_t error_ns;
	uint64_t txns, matched, unmatched, as_client, as_server;
};

struct row {
	uint32_t prog;
	char version[16], name[32];
	uint64_t calls, replied;
	struct hist server, total, rest;
};

/* the figures' sign checks: a value below 0 within the bound, beyond it */
struct negs {
	uint64_t within, beyond;
};

/* a matched call: its client's and its server's records */
struct pair {
	uint32_t c, s;
};

struct nfs_ends {
	struct host h[NFS_ENDS_MAX_HOSTS];
	unsigned nh;
	struct rec *r;
	size_t n, cap;
	struct row *rows;
	unsigned nrows;
	struct pair *p;
	size_t np;
	uint64_t unreplied; /* matched, but a reply missing at one end */
	struct negs rest, out, back;
};

/* t (a host's clock) less off, saturated: offsets come from a file anyone may edit */
static int64_t minus(int64_t t, int64_t off)
{
	int64_t r;

	if (__builtin_sub_overflow(t, off, &r))
		return off > 0 ? INT64_MIN : INT64_MAX;
	return r;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

int nfs_ends_new(struct nfs_ends **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void nfs_ends_free(struct nfs_ends *x)
{
	if (!x)
		return;
	for (unsigned i = 0; i < x->nh; i++)
		free(x->h[i].name);
	free(x->r);
	free(x->rows);
	free(x->p);
	free(x);
}

int nfs_ends_add_host(struct nfs_ends *x, const char *name, int64_t offset_ns, uint64_t error_ns)
{
	struct host *h;

	if (x->nh == NFS_ENDS_MAX_HOSTS)
		return -E2BIG;
	h = &x->h[x->nh];
	memset(h, 0, sizeof(*h));
	if (!(h->name = strdup(name)))
		return -ENOMEM;
	h->offset_ns = offset_ns;
	h->error_ns = error_ns;
	return (int)x->nh++;
}

static int row_of(struct nfs_ends *x, const struct rpc_txn *t, uint16_t *row)
{
	char version[16], name[32];
	unsigned i;

	nfs_txn_row_name(t, version, sizeof(version), name, sizeof(name));
	for (i = 0; i < x->nrows; i++)
		if (x->rows[i].prog == t->prog && !strcmp(x->rows[i].version, version) &&
		    !strcmp(x->rows[i].name, name))
			break;
	if (i == x->nrows) {
		struct row *w;

		if (x->nrows == ROWS_MAX) {
			*row =
			    ROWS_MAX - 1; /* a flood of made-up procedures: the last row holds it */
			return 0;
		}
		if (!x->rows && !(x->rows = calloc(ROWS_MAX, sizeof(*x->rows))))
			return -ENOMEM;
		w = &x->rows[x->nrows++];
		w->prog = t->prog;
		snprintf(w->version, sizeof(w->version), "%s", version);
		snprintf(w->name, sizeof(w->name), "%s", x->nrows == ROWS_MAX ? "other" : name);
		hist_init(&w->server);
		hist_init(&w->total);
		hist_init(&w->rest);
	}
	*row = (uint16_t)i;
	return 0;
}

int nfs_ends_txn(struct nfs_ends *x, unsigned h, const struct rpc_txn *t)
{
	struct rec *r;

	if (h >= x->nh)
		return -EINVAL;
	if (x->n == x->cap) {
		size_t nc = x->cap ? x->cap * 2 : 1024;
		void *p = realloc(x->r, nc * sizeof(*x->r));

		if (!p)
			return -ENOMEM;
		x->r = p;
		x->cap = nc;
	}
	r = &x->r[x->n];
	memset(r, 0, sizeof(*r));
	if (row_of(x, t, &r->row))
		return -ENOMEM;
	r->call_ns = t->call_ns;
	r->reply_ns = t->replied ? t->reply_ns : 0;
	r->replied = t->replied && t->reply_ns >= t->call_ns;
	r->acall_ns = minus((int64_t)t->call_ns, x->h[h].offset_ns);
	r->xid = t->xid;
	r->host = (uint16_t)h;
	r->client = t->client;
	r->server = t->server;
	x->h[h].txns++;
	x->n++;
	return 0;
}

struct reader {
	struct nfs_ends *x;
	unsigned h;
	int err;
};

static void read_txn(void *arg, const struct rpc_txn *t)
{
	struct reader *rd = arg;

	if (!rd->err)
		rd->err = nfs_ends_txn(rd->x, rd->h, t);
}

int nfs_ends_read(struct nfs_ends *x, unsigned h, struct pcap_src *src, int *partial,
                  struct iot_err *e)
{
	struct reader rd = {x, h, 0};
	struct tcp_cfg tcfg = {0};
	struct rpc_dec_cfg rcfg = {0};
	struct nfs_pipe p;
	int ret;

	*partial = 0;
	if (nfs_pipe_init(&p, &tcfg, &rcfg, read_txn, &rd))
		return iot_err_set(e, -ENOMEM, "out of memory");
	ret = nfs_pipe_run(&p, src, e);
	if (ret && ret != -ENOMEM && ret != -EIO && p.n.frames) {
		*partial = 1; /* bad bytes after good frames: what came before counts */
		ret = 0;
	}
	if (!ret)
		nfs_pipe_finish(&p);
	nfs_pipe_release(&p);
	if (!ret && rd.err)
		ret = iot_err_set(e, rd.err, "out of memory");
	return ret;
}

/* ---- matching ---- */

static int conn_cmp(const struct rec *a, const struct rec *b)
{
	int d = net_endpoint_cmp(&a->client, &b->client);

	return d ? d : net_endpoint_cmp(&a->server, &b->server);
}

static int idx_cmp(const void *pa, const void *pb, void *base)
{
	const struct rec *r = base, *a = &r[*(const uint32_t *)pa], *b = &r[*(const uint32_t *)pb];
	int d = conn_cmp(a, b);

	if (d)
		return d;
	if (a->xid != b->xid)
		return a->xid < b->xid ? -1 : 1;
	if (a->acall_ns != b->acall_ns)
		return a->acall_ns < b->acall_ns ? -1 : 1;
	return a->host < b->host ? -1 : a->host > b->host;
}

static uint64_t absdiff(int64_t a, int64_t b)
{
	return a > b ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a;
}

static double srt(const struct rec *r)
{
	return (double)(r->reply_ns - r->call_ns);
}

/*
 * The records of one connection, idx[lo..hi) sorted by XID then call time: each XID's
 * sightings by two hosts close in time paired; then which end is the server, by the sums of
 * the paired calls' times at each end (the server's lies inside the client's).
 */
static void match_conn(struct nfs_ends *x, const uint32_t *idx, size_t lo, size_t hi)
{
	double sum = 0; /* of times up to 2^64 each: the sign is what counts */
	int64_t lead = 0;
	int pa = -1, pb = -1;

	for (size_t i = lo; i + 1 < hi; i++) {
		struct rec *a = &x->r[idx[i]], *b = &x->r[idx[i + 1]];

		if (a->xid != b->xid || a->host == b->host ||
		    absdiff(a->acall_ns, b->acall_ns) > NFS_ENDS_WINDOW_NS)
			continue;
		a->mate = idx[i + 1] + 1;
		b->mate = idx[i] + 1;
		if (a->host > b->host) {
			struct rec *t = a;

			a = b, b = t;
		}
		if (pa < 0)
			pa = a->host, pb = b->host;
		if (a->host == pa && b->host == pb) {
			if (a->replied && b->replied)
				sum += srt(a) - srt(b);
			lead += a->acall_ns < b->acall_ns ? 1 : -1;
		}
		i++;
	}
	for (size_t i = lo; i < hi; i++) {
		struct rec *a = &x->r[idx[i]], *b;
		bool a_server;

		if (!a->mate || a->mate - 1 < idx[i])
			continue; /* unmatched, or done from its mate */
		b = &x->r[a->mate - 1];
		if ((a->host == pa && b->host == pb) || (a->host == pb && b->host == pa)) {
			/* sum < 0: the lower host's times are the shorter ones, it is the server;
			 * no reply at all: the end that saw the call later is (the request's leg)
			 */
			bool lower = sum != 0 ? sum < 0 : lead < 0;

			a_server = lower == (a->host == pa);
		} else if (a->replied && b->replied && srt(a) != srt(b)) {
			a_server = srt(a) < srt(b);
		} else {
			a_server = a->acall_ns > b->acall_ns;
		}
		a->is_server = a_server;
		b->is_server = !a_server;
	}
}

static void neg(struct negs *n, int64_t v, uint64_t bound)
{
	if (v >= 0)
		return;
	if ((uint64_t)0 - (uint64_t)v <= bound)
		n->within++;
	else
		n->beyond++;
}

static int pair_cmp(const void *pa, const void *pb, void *base)
{
	const struct pair *a = pa, *b = pb;
	const struct rec *r = base, *ra = &r[a->c], *rb = &r[b->c];

	if (ra->acall_ns != rb->acall_ns)
		return ra->acall_ns < rb->acall_ns ? -1 : 1;
	return a->c < b->c ? -1 : a->c > b->c;
}

int nfs_ends_match(struct nfs_ends *x)
{
	uint32_t *idx = malloc((x->n ? x->n : 1) * sizeof(*idx));
	size_t lo = 0;

	if (!idx)
		return -ENOMEM;
	free(x->p);
	x->p = NULL;
	x->np = 0;
	for (size_t i = 0; i < x->n; i++)
		idx[i] = (uint32_t)i;
	qsort_r(idx, x->n, sizeof(*idx), idx_cmp, x->r);
	for (size_t i = 1; i <= x->n; i++)
		if (i == x->n || conn_cmp(&x->r[idx[lo]], &x->r[idx[i]])) {
			match_conn(x, idx, lo, i);
			lo = i;
		}
	free(idx);
	if (!(x->p = malloc((x->n / 2 + 1) * sizeof(*x->p))))
		return -ENOMEM;
	for (size_t i = 0; i < x->n; i++) {
		struct rec *c = &x->r[i];

		if (!c->mate) {
			x->h[c->host].unmatched++;
			continue;
		}
		x->h[c->host].matched++;
		if (c->is_server) {
			x->h[c->host].as_server++;
			continue;
		}
		x->h[c->host].as_client++;
		x->p[x->np++] = (struct pair){(uint32_t)i, c->mate - 1};
	}
	qsort_r(x->p, x->np, sizeof(*x->p), pair_cmp, x->r);
	for (size_t i = 0; i < x->np; i++) {
		struct nfs_ends_call k;
		struct row *w = &x->rows[x->r[x->p[i].c].row];

		nfs_ends_call(x, i, &k);
		w->calls++;
		if (!k.replied) {
			x->unreplied++;
			continue;
		}
		w->replied++;
		hist_add(&w->server, k.server_ns);
		hist_add(&w->total, k.total_ns);
		hist_add(&w->rest, k.rest_ns > 0 ? (uint64_t)k.rest_ns : 0);
		neg(&x->rest, k.rest_ns, k.bound_ns);
		neg(&x->out, k.out_ns, k.bound_ns);
		neg(&x->back, k.back_ns, k.bound_ns);
	}
	return 0;
}

size_t nfs_ends_ncalls(const struct nfs_ends *x)
{
	return x->np;
}

void nfs_ends_call(const struct nfs_ends *x, size_t i, struct nfs_ends_call *k)
{
	const struct rec *c = &x->r[x->p[i].c], *s = &x->r[x->p[i].s];
	const struct host *hc = &x->h[c->host], *hs = &x->h[s->host];

	memset(k, 0, sizeof(*k));
	k->xid = c->xid;
	k->client_host = c->host;
	k->server_host = s->host;
	k->version = x->rows[c->row].version;
	k->procedure = x->rows[c->row].name;
	k->call_ns = (uint64_t)c->acall_ns;
	k->bound_ns = sat_add(hc->error_ns, hs->error_ns);
	k->replied = c->replied && s->replied;
	if (!k->replied)
		return;
	k->server_ns = s->reply_ns - s->call_ns;
	k->total_ns = c->reply_ns - c->call_ns;
	k->rest_ns = (int64_t)(k->total_ns - k->server_ns);
	/* the legs on the common clock: each host's time less its offset */
	k->out_ns = minus(s->acall_ns, c->acall_ns);
	k->back_ns = minus(minus((int64_t)c->reply_ns, hc->offset_ns),
	                   minus((int64_t)s->reply_ns, hs->offset_ns));
}

void nfs_ends_host_counts(const struct nfs_ends *x, unsigned h, uint64_t *txns, uint64_t *matched,
                          uint64_t *unmatched)
{
	*txns = x->h[h].txns;
	*matched = x->h[h].matched;
	*unmatched = x->h[h].unmatched;
}

/* ---- output ---- */

static uint64_t max_bound(const struct nfs_ends *x)
{
	uint64_t e1 = 0, e2 = 0;

	for (unsigned i = 0; i < x->nh; i++) {
		if (x->h[i].error_ns > e1)
			e2 = e1, e1 = x->h[i].error_ns;
		else if (x->h[i].error_ns > e2)
			e2 = x->h[i].error_ns;
	}
	return sat_add(e1, e2);
}

static json_t *negs_json(const struct negs *n)
{
	return json_pack("{s:o, s:o}", "within_alignment", json_u64(n->within), "beyond_alignment",
	                 json_u64(n->beyond));
}

static const char *flag_of(const struct nfs_ends_call *k)
{
	int64_t v[3] = {k->rest_ns, k->out_ns, k->back_ns};
	const char *f = NULL;

	for (unsigned i = 0; k->replied && i < 3; i++)
		if (v[i] < 0)
			f = (uint64_t)0 - (uint64_t)v[i] > k->bound_ns ? "beyond_alignment"
			    : f                                        ? f
			                                               : "clock_error";
	return f;
}

json_t *nfs_ends_json(const struct nfs_ends *x)
{
	json_t *o = json_object(), *hosts = json_array(), *procs = json_array(),
	       *calls = json_array();

	if (!o || !hosts || !procs || !calls)
		goto nomem;
	for (unsigned i = 0; i < x->nh; i++) {
		const struct host *h = &x->h[i];

		json_array_append_new(
		    hosts, json_pack("{s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "host", h->name,
		                     "offset_ns", (json_int_t)h->offset_ns, "error_ns",
		                     json_u64(h->error_ns), "calls", json_u64(h->txns), "matched",
		                     json_u64(h->matched), "unmatched", json_u64(h->unmatched),
		                     "as_client", json_u64(h->as_client), "as_server",
		                     json_u64(h->as_server)));
	}
	for (unsigned i = 0; i < x->nrows; i++) {
		const struct row *w = &x->rows[i];
		const char *pn = rpc_prog_name(w->prog);

		if (!w->calls)
			continue;
		json_array_append_new(
		    procs, json_pack("{s:o, s:s, s:s, s:o, s:o, s:o, s:o, s:o}", "program",
		                     pn ? json_string(pn) : json_u64(w->prog), "version",
		                     w->version, "procedure", w->name, "calls", json_u64(w->calls),
		                     "replied", json_u64(w->replied), "server_ns",
		                     nfs_hist_json(&w->server), "rest_ns", nfs_hist_json(&w->rest),
		                     "total_ns", nfs_hist_json(&w->total)));
	}
	for (size_t i = 0; i < x->np && i < NFS_ENDS_MAX_CALLS; i++) {
		struct nfs_ends_call k;
		const struct rec *c = &x->r[x->p[i].c];
		char ca[64], sa[64];
		const char *f;
		json_t *j;

		nfs_ends_call(x, i, &k);
		net_addr_str(&c->client.addr, ca, sizeof(ca));
		net_addr_str(&c->server.addr, sa, sizeof(sa));
		j = json_pack("{s:o, s:s, s:s, s:s, s:i, s:s, s:i, s:o, s:s, s:s}", "xid",
		              json_u64(k.xid), "client_host", x->h[k.client_host].name,
		              "server_host", x->h[k.server_host].name, "client", ca, "client_port",
		              (int)c->client.port, "server", sa, "server_port", (int)c->server.port,
		              "call_ns", json_u64(k.call_ns), "version", k.version, "procedure",
		              k.procedure);
		if (j && k.replied) {
			json_object_set_new(j, "server_ns", json_u64(k.server_ns));
			json_object_set_new(j, "rest_ns", json_integer(k.rest_ns));
			json_object_set_new(j, "total_ns", json_u64(k.total_ns));
			json_object_set_new(j, "out_ns", json_integer(k.out_ns));
			json_object_set_new(j, "back_ns", json_integer(k.back_ns));
			f = flag_of(&k);
			json_object_set_new(j, "flag", f ? json_string(f) : json_null());
		}
		json_array_append_new(calls, j);
	}
	json_object_set_new(o, "alignment_error_ns", json_u64(max_bound(x)));
	json_object_set_new(o, "hosts", hosts);
	json_object_set_new(o, "matched", json_u64(x->np));
	json_object_set_new(o, "unreplied", json_u64(x->unreplied));
	json_object_set_new(o, "negative",
	                    json_pack("{s:o, s:o, s:o}", "rest", negs_json(&x->rest), "out",
	                              negs_json(&x->out), "back", negs_json(&x->back)));
	json_object_set_new(o, "procedures", procs);
	json_object_set_new(o, "calls", calls);
	json_object_set_new(o, "calls_left_off",
	                    json_u64(x->np > NFS_ENDS_MAX_CALLS ? x->np - NFS_ENDS_MAX_CALLS : 0));
	return o;
nomem:
	json_decref(o);
	json_decref(hosts);
	json_decref(procs);
	json_decref(calls);
	return NULL;
}

static const char *dur(const struct hist *h, double q, char *b, size_t len)
{
	if (!h->count)
		return snprintf(b, len, "-"), b;
	return iot_fmt_dur((double)hist_quantile(h, q), b, len);
}

void nfs_ends_text(FILE *f, const struct nfs_ends *x)
{
	char b[9][24];
	uint64_t bound = max_bound(x);
	unsigned shown = 0;

	fprintf(f, "\nNFS calls seen from both ends (clocks aligned within %s)\n",
	        iot_fmt_dur((double)bound, b[0], sizeof(b[0])));
	fprintf(f, "%-20s %10s %10s %10s %10s %10s\n", "host", "calls", "matched", "unmatched",
	        "as client", "as server");
	for (unsigned i = 0; i < x->nh; i++) {
		const struct host *h = &x->h[i];

		fprintf(f, "%-20s %10llu %10llu %10llu %10llu %10llu\n", h->name,
		        (unsigned long long)h->txns, (unsigned long long)h->matched,
		        (unsigned long long)h->unmatched, (unsigned long long)h->as_client,
		        (unsigned long long)h->as_server);
	}
	if (!x->np) {
		fprintf(f, "no call was seen by two hosts\n");
		return;
	}
	fprintf(f, "\n%-8s %-7s %-16s %7s | %9s %9s %9s | %9s %9s %9s | %9s %9s %9s\n", "program",
	        "version", "procedure", "calls", "server", "p90", "p99", "rest", "p90", "p99",
	        "total", "p90", "p99");
	fprintf(f, "%-8s %-7s %-16s %7s | %9s %9s %9s | %9s %9s %9s | %9s %9s %9s\n", "", "", "",
	        "", "p50", "", "", "p50", "", "", "p50", "", "");
	for (unsigned i = 0; i < x->nrows; i++) {
		const struct row *w = &x->rows[i];
		const char *pn = rpc_prog_name(w->prog);
		char pb[16];

		if (!w->calls)
			continue;
		if (!pn)
			snprintf(pb, sizeof(pb), "%u", w->prog), pn = pb;
		fprintf(f, "%-8s %-7s %-16s %7llu | %9s %9s %9s | %9s %9s %9s | %9s %9s %9s\n", pn,
		        w->version, w->name, (unsigned long long)w->calls,
		        dur(&w->server, .5, b[0], 24), dur(&w->server, .9, b[1], 24),
		        dur(&w->server, .99, b[2], 24), dur(&w->rest, .5, b[3], 24),
		        dur(&w->rest, .9, b[4], 24), dur(&w->rest, .99, b[5], 24),
		        dur(&w->total, .5, b[6], 24), dur(&w->total, .9, b[7], 24),
		        dur(&w->total, .99, b[8], 24));
	}
	fprintf(f, "server: call to reply at the server; rest: the client's time less the "
	           "server's (network both ways, the client's side)\n");
	if (x->unreplied)
		fprintf(f, "%llu matched calls lack a reply at one end: not split\n",
		        (unsigned long long)x->unreplied);
	if (x->rest.within + x->out.within + x->back.within)
		fprintf(f,
		        "below zero within the alignment error (clock error, not time): rest %llu, "
		        "request leg %llu, reply leg %llu\n",
		        (unsigned long long)x->rest.within, (unsigned long long)x->out.within,
		        (unsigned long long)x->back.within);
	if (x->rest.beyond + x->out.beyond + x->back.beyond)
		fprintf(
		    f,
		    "FLAGGED: below zero beyond the alignment error: rest %llu, request leg %llu, "
		    "reply leg %llu (a clock stepped or a capture's time stamps are off)\n",
		    (unsigned long long)x->rest.beyond, (unsigned long long)x->out.beyond,
		    (unsigned long long)x->back.beyond);
	for (size_t i = 0; i < x->np && shown < 10; i++) {
		struct nfs_ends_call k;
		const char *fl;

		nfs_ends_call(x, i, &k);
		if (!(fl = flag_of(&k)) || strcmp(fl, "beyond_alignment"))
			continue;
		shown++;
		fprintf(f, "  xid 0x%08x %s %s: server %s, total %s, rest %lld ns\n", k.xid,
		        k.version, k.procedure, iot_fmt_dur((double)k.server_ns, b[0], 24),
		        iot_fmt_dur((double)k.total_ns, b[1], 24), (long long)k.rest_ns);
	}
}
