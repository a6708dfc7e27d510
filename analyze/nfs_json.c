/* SPDX-License-Identifier: MIT */
/* The "nfs" JSON object (layout in docs/nfs.md). */
#include "analyze/nfs_stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const accept_names[] = {"SUCCESS",     "PROG_UNAVAIL", "PROG_MISMATCH",
					   "PROC_UNAVAIL", "GARBAGE_ARGS", "SYSTEM_ERR"};

/* Status name for errors-by-status keys. */
void nfs_status_str(uint32_t st, int v4, char *buf, size_t len)
{
	const char *n;

	if (st == NFS_ERR_RPC_DENIED) {
		snprintf(buf, len, "RPC_DENIED");
	} else if ((st & 0xffffff00u) == NFS_ERR_RPC_ACCEPT) {
		unsigned a = st & 0xff;

		if (a < sizeof(accept_names) / sizeof(accept_names[0]))
			snprintf(buf, len, "RPC_%s", accept_names[a]);
		else
			snprintf(buf, len, "RPC_ACCEPT_%u", a);
	} else if ((n = nfs_status_name(st))) {
		snprintf(buf, len, "NFS%dERR_%s", v4 || st >= 10000 ? 4 : 3, n);
	} else {
		snprintf(buf, len, "%u", st);
	}
}

static json_t *hist_json(const struct hist *h)
{
	json_t *o = json_object();

	json_object_set_new(o, "count", json_integer((json_int_t)h->count));
	json_object_set_new(o, "min", json_integer(h->count ? (json_int_t)h->min : 0));
	json_object_set_new(o, "mean", json_real(hist_mean(h)));
	json_object_set_new(o, "p50", json_integer((json_int_t)hist_quantile(h, 0.50)));
	json_object_set_new(o, "p90", json_integer((json_int_t)hist_quantile(h, 0.90)));
	json_object_set_new(o, "p99", json_integer((json_int_t)hist_quantile(h, 0.99)));
	json_object_set_new(o, "max", json_integer((json_int_t)h->max));
	json_object_set_new(o, "sum", json_real((double)h->sum));
	return o;
}

static json_t *procs_json(const struct nfs_stats *s)
{
	json_t *a = json_array();
	unsigned i, k;
	char buf[64];

	for (i = 0; i < s->nprocs; i++) {
		const struct nfs_proc_stats *r = &s->procs[i];
		json_t *o = json_object(), *e = json_object();
		const char *pn = r->kind == RPC_KIND_NFS_CB ? "NFS_CB" : rpc_prog_name(r->prog);

		if (pn)
			json_object_set_new(o, "program", json_string(pn));
		else
			json_object_set_new(o, "program", json_integer(r->prog));
		json_object_set_new(o, "version", json_string(r->version));
		json_object_set_new(o, "name", json_string(r->name));
		json_object_set_new(o, "kind", json_string(r->is_proc ? "procedure" : "main_op"));
		json_object_set_new(o, "calls", json_integer((json_int_t)r->calls));
		json_object_set_new(o, "replies", json_integer((json_int_t)r->replies));
		json_object_set_new(o, "errors", json_integer((json_int_t)r->errors));
		for (k = 0; k < r->nerr; k++) {
			nfs_status_str(r->err[k].status, r->vers != 3, buf, sizeof(buf));
			json_object_set_new(e, buf, json_integer((json_int_t)r->err[k].n));
		}
		if (r->err_other)
			json_object_set_new(e, "other", json_integer((json_int_t)r->err_other));
		json_object_set_new(o, "errors_by_status", e);
		json_object_set_new(o, "bytes", json_integer((json_int_t)r->bytes));
		json_object_set_new(o, "read_bytes", json_integer((json_int_t)r->read_bytes));
		json_object_set_new(o, "write_bytes", json_integer((json_int_t)r->write_bytes));
		json_object_set_new(o, "retransmits", json_integer((json_int_t)r->retransmits));
		json_object_set_new(o, "srt_ns", hist_json(r->srt));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *clients_json(const struct nfs_stats *s)
{
	json_t *a = json_array();
	unsigned i;
	char buf[64];

	for (i = 0; i < s->nclients; i++) {
		const struct nfs_client_stats *c = &s->clients[i];
		json_t *o = json_object();

		nfs_addr_str(c->family, c->addr, buf, sizeof(buf));
		json_object_set_new(o, "address", json_string(buf));
		json_object_set_new(o, "calls", json_integer((json_int_t)c->calls));
		json_object_set_new(o, "replies", json_integer((json_int_t)c->replies));
		json_object_set_new(o, "errors", json_integer((json_int_t)c->errors));
		json_object_set_new(o, "read_bytes", json_integer((json_int_t)c->read_bytes));
		json_object_set_new(o, "write_bytes", json_integer((json_int_t)c->write_bytes));
		json_object_set_new(o, "srt_mean_ns",
				    json_integer(c->replies ? (json_int_t)(c->srt_sum / c->replies +
									    0.5L)
							    : 0));
		json_object_set_new(o, "srt_max_ns", json_integer((json_int_t)c->srt_max));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *fh_json(const struct nfs_stats *s, int by_bytes)
{
	json_t *a = json_array();
	unsigned *idx = calloc(s->cfg.top ? s->cfg.top : 1, sizeof(*idx));
	unsigned n, i, k;
	char hex[2 * NFS_FH_MAX + 1];

	if (!idx)
		return a;
	n = nfs_stats_top_fh(s, by_bytes, idx, s->cfg.top);
	for (i = 0; i < n; i++) {
		const struct nfs_fh_stats *f = &s->fhs[idx[i]];
		json_t *o = json_object();

		for (k = 0; k < f->len; k++)
			snprintf(hex + 2 * k, 3, "%02x", f->fh[k]);
		hex[2 * f->len] = 0;
		json_object_set_new(o, "fh", json_string(hex));
		json_object_set_new(o, "ops", json_integer((json_int_t)f->ops));
		json_object_set_new(o, "bytes", json_integer((json_int_t)f->bytes));
		json_object_set_new(o, "read_bytes", json_integer((json_int_t)f->read_bytes));
		json_object_set_new(o, "write_bytes", json_integer((json_int_t)f->write_bytes));
		if (f->size != UINT64_MAX)
			json_object_set_new(o, "size", json_integer((json_int_t)f->size));
		json_array_append_new(a, o);
	}
	free(idx);
	return a;
}

static json_t *timeline_json(const struct nfs_stats *s)
{
	json_t *a = json_array();
	double secs = (double)s->cfg.interval_ns / 1e9;
	unsigned i;

	for (i = 0; i < s->nbins; i++) {
		const struct nfs_bin *b = &s->bins[i];
		json_t *o = json_object();

		json_object_set_new(o, "start_ns",
				    json_integer((json_int_t)((s->bin0 + i) * s->cfg.interval_ns)));
		json_object_set_new(o, "ops", json_integer((json_int_t)b->ops));
		json_object_set_new(o, "errors", json_integer((json_int_t)b->errors));
		json_object_set_new(o, "ops_per_s", json_real((double)b->ops / secs));
		json_object_set_new(o, "read_bytes", json_integer((json_int_t)b->read_bytes));
		json_object_set_new(o, "write_bytes", json_integer((json_int_t)b->write_bytes));
		json_object_set_new(o, "read_mb_per_s", json_real((double)b->read_bytes / 1e6 / secs));
		json_object_set_new(o, "write_mb_per_s",
				    json_real((double)b->write_bytes / 1e6 / secs));
		json_object_set_new(o, "outstanding",
				    json_real((double)b->busy_ns / (double)s->cfg.interval_ns));
		json_array_append_new(a, o);
	}
	return a;
}

/* Every op of the COMPOUNDs, per minor version: what the main-op rows fold together. */
static json_t *v4_ops_json(const struct nfs_stats *s)
{
	json_t *a = json_array();
	unsigned m, op;
	char v[8], name[24];

	for (m = 0; m < 4; m++) {
		for (op = 0; op < NFS4_OPS_COUNTED; op++) {
			const char *n = nfs4_op_name(op);
			json_t *o;

			if (!s->v4_ops[m][op])
				continue;
			if (!n) {
				snprintf(name, sizeof(name), "OP_%u", op);
				n = name;
			}
			snprintf(v, sizeof(v), m < 3 ? "4.%u" : "4.%u+", m);
			o = json_object();
			json_object_set_new(o, "version", json_string(v));
			json_object_set_new(o, "name", json_string(n));
			json_object_set_new(o, "count", json_integer((json_int_t)s->v4_ops[m][op]));
			json_array_append_new(a, o);
		}
	}
	return a;
}

static json_t *copy_json(const struct nfs_stats *s)
{
	const struct nfs_copy_stats *c = &s->copy;
	json_t *o = json_object();

	json_object_set_new(o, "calls", json_integer((json_int_t)c->calls));
	json_object_set_new(o, "synchronous", json_integer((json_int_t)(c->calls - c->async)));
	json_object_set_new(o, "asynchronous", json_integer((json_int_t)c->async));
	json_object_set_new(o, "requested_sync", json_integer((json_int_t)c->sync));
	json_object_set_new(o, "errors", json_integer((json_int_t)c->errors));
	json_object_set_new(o, "bytes", json_integer((json_int_t)c->bytes));
	json_object_set_new(o, "callbacks", json_integer((json_int_t)c->callbacks));
	json_object_set_new(o, "callback_bytes", json_integer((json_int_t)c->cb_bytes));
	json_object_set_new(o, "callback_errors", json_integer((json_int_t)c->cb_errors));
	json_object_set_new(o, "srt_ns", hist_json(&c->srt));
	json_object_set_new(o, "copy_to_callback_ns", hist_json(&c->cb_latency));
	return o;
}

static json_t *stream_json(const struct nfs_stats *s, const struct nfs_pipe *p)
{
	const struct tcp_counters *t = tcp_table_counters(p->tcp);
	const struct rpc_counters *r = rpc_dec_counters(p->rpc);
	json_t *o = json_object();

#define SET(k, v) json_object_set_new(o, k, json_integer((json_int_t)(v)))
	SET("lost_bytes", t->lost_bytes);
	SET("retransmits", r->retransmits);
	SET("unmatched_calls", r->unmatched_calls);
	SET("unmatched_replies", r->unmatched_replies);
	SET("tcp_retransmits", t->retransmits);
	SET("out_of_order", t->out_of_order);
	SET("resyncs", t->resyncs);
	SET("bad_records", t->bad_records);
	SET("records", t->records);
	SET("connections", t->conns);
	SET("evicted_connections", t->evicted);
	SET("calls", r->calls);
	SET("replies", r->replies);
	SET("evicted_calls", r->evicted);
	SET("not_rpc", r->not_rpc);
	SET("bad_calls", r->bad_calls);
	SET("bad_replies", r->bad_replies);
	SET("undecoded", r->undecoded);
	SET("clients_untracked", s->clients_dropped);
	SET("fh_untracked", s->fh_untracked);
	SET("rows_untracked", s->rows_dropped);
#undef SET
	return o;
}

static json_t *input_json(const struct nfs_pipe *p)
{
	static const char *const skip_names[PKT_SKIP_MAX] = {
		[PKT_SHORT] = "short", [PKT_NOT_IP] = "not_ip", [PKT_NOT_L4] = "not_tcp_udp",
		[PKT_FRAGMENT] = "ip_fragment", [PKT_LINKTYPE] = "link_type",
	};
	json_t *o = json_object(), *sk = json_object();
	unsigned i;

	json_object_set_new(o, "frames", json_integer((json_int_t)p->n.frames));
	for (i = 1; i < PKT_SKIP_MAX; i++)
		json_object_set_new(sk, skip_names[i], json_integer((json_int_t)p->n.skipped[i]));
	json_object_set_new(o, "skipped", sk);
	json_object_set_new(o, "link_type", json_integer(p->n.dlt));
	json_object_set_new(o, "gzip", json_boolean(p->n.gzip));
	json_object_set_new(o, "truncated", json_boolean(p->n.truncated));
	json_object_set_new(o, "first_ns", json_integer((json_int_t)p->n.first_ns));
	json_object_set_new(o, "last_ns", json_integer((json_int_t)p->n.last_ns));
	json_object_set_new(o, "duration_ns",
			    json_integer((json_int_t)(p->n.last_ns - p->n.first_ns)));
	return o;
}

json_t *nfs_stats_json(struct nfs_stats *s, const struct nfs_pipe *p)
{
	json_t *o = json_object(), *fh = json_object();

	nfs_stats_sort(s);
	json_object_set_new(o, "input", input_json(p));
	json_object_set_new(o, "main_op_rule",
			    json_string("first op of the highest class: data (READ, WRITE, COMMIT, "
					"COPY, ...) > other ops (OPEN, REMOVE, ...) > lookups (LOOKUP, "
					"LOOKUPP, SECINFO) > checks (GETATTR, "
					"ACCESS, VERIFY) > bookkeeping (SEQUENCE, PUTFH, SAVEFH, GETFH, "
					"...; the last one)"));
	json_object_set_new(o, "procedures", procs_json(s));
	json_object_set_new(o, "v4_ops", v4_ops_json(s));
	json_object_set_new(o, "clients", clients_json(s));
	json_object_set_new(fh, "by_ops", fh_json(s, 0));
	json_object_set_new(fh, "by_bytes", fh_json(s, 1));
	json_object_set_new(o, "file_handles", fh);
	json_object_set_new(o, "interval_ns", json_integer((json_int_t)s->cfg.interval_ns));
	json_object_set_new(o, "timeline", timeline_json(s));
	json_object_set_new(o, "copy", copy_json(s));
	json_object_set_new(o, "stream", stream_json(s, p));
	return o;
}
