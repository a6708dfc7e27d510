/* SPDX-License-Identifier: MIT */
/* The "nfs" JSON object (layout in docs/nfs.md). */
#include "analyze/nfs_stats.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonint.h"

static json_t *errs_json(const struct nfs_errs *e, int v4)
{
	json_t *o = json_object();
	char buf[64];

	for (unsigned k = 0; k < e->nerr; k++) {
		nfs_status_str(e->err[k].status, v4, buf, sizeof(buf));
		json_object_set_new(o, buf, json_u64(e->err[k].n));
	}
	if (e->err_other)
		json_object_set_new(o, "other", json_u64(e->err_other));
	return o;
}

static const char *row_kind(const struct nfs_proc_stats *r)
{
	return r->is_proc == 2 ? "cut" : r->is_proc ? "procedure" : "main_op";
}

static json_t *procs_json(const struct nfs_stats *s)
{
	json_t *a = json_array();
	unsigned i;

	for (i = 0; i < s->nprocs; i++) {
		const struct nfs_proc_stats *r = &s->procs[i];
		json_t *o = json_object();
		const char *pn = r->kind == RPC_KIND_NFS_CB ? "NFS_CB" : rpc_prog_name(r->prog);

		if (pn)
			json_object_set_new(o, "program", json_string(pn));
		else
			json_object_set_new(o, "program", json_integer(r->prog));
		json_object_set_new(o, "version", json_string(r->version));
		json_object_set_new(o, "name", json_string(r->name));
		json_object_set_new(o, "kind", json_string(row_kind(r)));
		json_object_set_new(o, "calls", json_u64(r->calls));
		json_object_set_new(o, "replies", json_u64(r->replies));
		json_object_set_new(o, "errors", json_u64(r->e.errors));
		json_object_set_new(o, "errors_by_status", errs_json(&r->e, r->vers != 3));
		json_object_set_new(o, "bytes", json_u64(r->bytes));
		json_object_set_new(o, "read_bytes", json_u64(r->read_bytes));
		json_object_set_new(o, "write_bytes", json_u64(r->write_bytes));
		json_object_set_new(o, "retransmits", json_u64(r->retransmits));
		json_object_set_new(o, "srt_ns", nfs_hist_json(r->srt));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *timeline_json(const struct nfs_stats *s)
{
	json_t *a = json_array();
	double secs = (double)s->clock.width / 1e9;

	for (uint64_t i = 0; s->bins && i < s->clock.n; i++) {
		const struct nfs_bin *b = &s->bins[i];
		json_t *o = json_object();

		json_object_set_new(o, "start_ns", json_u64(bins_start_of(&s->clock, i)));
		json_object_set_new(o, "ops", json_u64(b->ops));
		json_object_set_new(o, "errors", json_u64(b->errors));
		json_object_set_new(o, "ops_per_s", json_real((double)b->ops / secs));
		json_object_set_new(o, "read_bytes", json_u64(b->read_bytes));
		json_object_set_new(o, "write_bytes", json_u64(b->write_bytes));
		json_object_set_new(o, "read_mb_per_s",
		                    json_real((double)b->read_bytes / 1e6 / secs));
		json_object_set_new(o, "write_mb_per_s",
		                    json_real((double)b->write_bytes / 1e6 / secs));
		json_object_set_new(o, "outstanding",
		                    json_real((double)b->busy_ns / (double)s->clock.width));
		json_array_append_new(a, o);
	}
	return a;
}

/* An object naming NFSv4 op op of minor version m ("4.1", "4.3+" for 3 and later). */
static json_t *v4_op_json(unsigned m, unsigned op)
{
	const char *n = nfs4_op_name(op);
	char v[8], name[24];

	if (!n) {
		snprintf(name, sizeof(name), "OP_%u", op);
		n = name;
	}
	snprintf(v, sizeof(v), m < 3 ? "4.%u" : "4.%u+", m);
	return json_pack("{ssss}", "version", v, "name", n);
}

/*
 * Every op of the COMPOUNDs, per minor version (what the main-op rows fold together), or
 * (errors) the errors charged to the op that failed inside a COMPOUND: the one whose status is
 * not NFS4_OK.
 */
static json_t *v4_ops_json(const struct nfs_stats *s, bool errors)
{
	json_t *a = json_array(), *o;

	for (unsigned m = 0; m < 4; m++) {
		for (unsigned op = 0; op < NFS4_OPS_COUNTED; op++) {
			const struct nfs_errs *e = &s->v4_op_errs[m][op];

			if (!(errors ? e->errors : s->v4_ops[m][op]))
				continue;
			o = v4_op_json(m, op);
			if (!errors) {
				json_object_set_new(o, "count", json_u64(s->v4_ops[m][op]));
			} else {
				json_object_set_new(o, "errors", json_u64(e->errors));
				json_object_set_new(o, "errors_by_status", errs_json(e, 1));
			}
			json_array_append_new(a, o);
		}
	}
	return a;
}

static json_t *copy_json(const struct nfs_stats *s)
{
	const struct nfs_copy_stats *c = &s->copy;
	json_t *o = json_object();

	json_object_set_new(o, "calls", json_u64(c->calls));
	json_object_set_new(o, "synchronous", json_u64((c->calls - c->async)));
	json_object_set_new(o, "asynchronous", json_u64(c->async));
	json_object_set_new(o, "requested_sync", json_u64(c->sync));
	json_object_set_new(o, "errors", json_u64(c->errors));
	json_object_set_new(o, "bytes", json_u64(c->bytes));
	json_object_set_new(o, "callbacks", json_u64(c->callbacks));
	json_object_set_new(o, "callback_bytes", json_u64(c->cb_bytes));
	json_object_set_new(o, "callback_errors", json_u64(c->cb_errors));
	json_object_set_new(o, "srt_ns", nfs_hist_json(&c->srt));
	json_object_set_new(o, "copy_to_callback_ns", nfs_hist_json(&c->cb_latency));
	return o;
}

static json_t *stream_json(const struct nfs_stats *s, const struct nfs_pipe *p)
{
	const struct tcp_counters *t = tcp_table_counters(p->tcp);
	const struct rpc_counters *r = rpc_dec_counters(p->rpc);
	json_t *o = json_object();

#define SET(k, v) json_object_set_new(o, k, json_u64((v)))
	SET("lost_bytes", t->lost_bytes);
	SET("retransmits", r->retransmits);
	SET("unmatched_calls", r->unmatched_calls);
	SET("unmatched_replies", r->unmatched_replies);
	SET("tcp_retransmits", t->retransmits);
	SET("out_of_order", t->out_of_order);
	SET("out_of_order_peak_bytes", t->ooo_peak);
	SET("out_of_order_given_up", t->ooo_given_up);
	SET("resyncs", t->resyncs);
	SET("bad_records", t->bad_records);
	SET("records", t->records);
	SET("connections", t->conns);
	SET("non_rpc_connections", t->non_rpc_conns);
	SET("non_rpc_bytes", t->non_rpc_bytes);
	SET("evicted_connections", t->evicted);
	SET("calls", r->calls);
	SET("replies", r->replies);
	SET("evicted_calls", r->evicted);
	SET("not_rpc", r->not_rpc);
	SET("bad_calls", r->bad_calls);
	SET("bad_replies", r->bad_replies);
	SET("undecoded", r->undecoded);
	SET("cut_calls", r->cut_calls);
	SET("cut_replies", r->cut_replies);
	SET("cut_compounds", r->cut_compounds);
	SET("names_dropped", r->names_dropped);
	SET("machines_untracked", r->machines_untracked);
	SET("rows_untracked", s->rows_dropped);
#undef SET
	return o;
}

static json_t *input_json(const struct nfs_pipe *p)
{
	static const char *const skip_names[PKT_SKIP_MAX] = {
	    [PKT_SHORT] = "short",        [PKT_NOT_IP] = "not_ip",
	    [PKT_NOT_L4] = "not_tcp_udp", [PKT_FRAGMENT] = "ip_fragment",
	    [PKT_LINKTYPE] = "link_type",
	};
	json_t *o = json_object(), *sk = json_object();
	unsigned i;

	json_object_set_new(o, "frames", json_u64(p->n.frames));
	for (i = 1; i < PKT_SKIP_MAX; i++)
		json_object_set_new(sk, skip_names[i], json_u64(p->n.skipped[i]));
	json_object_set_new(o, "skipped", sk);
	json_object_set_new(o, "link_type", json_integer(p->n.dlt));
	json_object_set_new(o, "gzip", json_boolean(p->n.gzip));
	json_object_set_new(o, "truncated", json_boolean(p->n.truncated));
	json_object_set_new(o, "first_ns", json_u64(p->n.first_ns));
	json_object_set_new(o, "last_ns", json_u64(p->n.last_ns));
	json_object_set_new(o, "duration_ns", json_u64((p->n.last_ns - p->n.first_ns)));
	if (p->nfiles) {
		json_t *a = json_array();

		for (unsigned k = 0; k < p->nfiles; k++)
			json_array_append_new(a, json_pack("{sssIsisbsb}", "path", p->files[k].name,
			                                   "frames", (json_int_t)p->files[k].frames,
			                                   "link_type", p->files[k].dlt, "gzip",
			                                   p->files[k].gzip, "truncated",
			                                   p->files[k].truncated));
		json_object_set_new(o, "files", a);
	}
	return o;
}

json_t *nfs_stats_json(struct nfs_stats *s, const struct nfs_pipe *p)
{
	json_t *o = json_object();

	nfs_stats_sort(s);
	json_object_set_new(o, "input", input_json(p));
	json_object_set_new(
	    o, "main_op_rule",
	    json_string("first op of the highest class: data (READ, WRITE, COMMIT, "
	                "COPY, ...) > other ops (OPEN, REMOVE, ...) > lookups (LOOKUP, "
	                "LOOKUPP, SECINFO) > checks (GETATTR, "
	                "ACCESS, VERIFY) > bookkeeping (SEQUENCE, PUTFH, SAVEFH, GETFH, "
	                "...; the last one)"));
	json_object_set_new(o, "procedures", procs_json(s));
	json_object_set_new(o, "v4_ops", v4_ops_json(s, false));
	json_object_set_new(o, "v4_op_errors", v4_ops_json(s, true));
	json_object_set_new(o, "clients", nfs_clients_json(s));
	json_object_set_new(o, "files", nfs_files_json(s));
	/* the origin of the text's seconds (slowest calls), when there was a call */
	if (s->first_call_ns != UINT64_MAX)
		json_object_set_new(o, "first_call_ns", json_u64(s->first_call_ns));
	json_object_set_new(o, "slowest", nfs_slowest_json(s));
	json_object_set_new(o, "interval_ns", json_u64(s->clock.width));
	json_object_set_new(o, "timeline", timeline_json(s));
	json_object_set_new(o, "timeline_by_procedure", nfs_series_json(s));
	json_object_set_new(o, "events", nfs_events_json(s));
	json_object_set_new(o, "copy", copy_json(s));
	json_object_set_new(o, "stream", stream_json(s, p));
	return o;
}
