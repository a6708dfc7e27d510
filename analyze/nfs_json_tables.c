/* SPDX-License-Identifier: MIT */
/* The NFS JSON's tables: clients, files, slowest calls, per-procedure series, events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonint.h"
#include "analyze/nfs_stats.h"

#define JI(v) json_u64((v))

static void set_row(json_t *o, const struct nfs_stats *s, unsigned row)
{
	const struct nfs_proc_stats *r = nfs_stats_row(s, row);
	const char *pn;

	if (!r) {
		json_object_set_new(o, "name", json_string("other"));
		return;
	}
	pn = r->kind == RPC_KIND_NFS_CB ? "NFS_CB" : rpc_prog_name(r->prog);
	json_object_set_new(o, "program", pn ? json_string(pn) : JI(r->prog));
	json_object_set_new(o, "version", json_string(r->version));
	json_object_set_new(o, "name", json_string(r->name));
}

static void set_addr(json_t *o, const char *key, const struct net_addr *a)
{
	char buf[64];

	json_object_set_new(o, key, json_string(net_addr_str(a, buf, sizeof(buf))));
}

static json_t *client_proc_json(const struct nfs_stats *s, const struct nfs_client_proc *p)
{
	json_t *o = json_object();

	set_row(o, s, p->row);
	json_object_set_new(o, "calls", JI(p->calls));
	json_object_set_new(o, "errors", JI(p->errors));
	json_object_set_new(o, "bytes", JI(p->bytes));
	json_object_set_new(o, "srt_ns", nfs_sketch_json(&p->srt));
	return o;
}

static void client_figures(json_t *o, const struct nfs_stats *s, const struct nfs_client *c)
{
	json_t *procs = json_array();

	json_object_set_new(o, "calls", JI(c->calls));
	json_object_set_new(o, "replies", JI(c->replies));
	json_object_set_new(o, "errors", JI(c->errors));
	json_object_set_new(o, "read_bytes", JI(c->read_bytes));
	json_object_set_new(o, "write_bytes", JI(c->write_bytes));
	json_object_set_new(o, "retransmits", JI(c->retransmits));
	json_object_set_new(o, "wait_ns", JI(c->wait_ns));
	json_object_set_new(o, "srt_ns", nfs_sketch_json(&c->srt));
	for (unsigned i = 0; i < c->nprocs; i++)
		json_array_append_new(procs, client_proc_json(s, &c->proc[i]));
	if (c->other.calls)
		json_array_append_new(procs, client_proc_json(s, &c->other));
	json_object_set_new(o, "procedures", procs);
}

static json_t *client_json(const struct nfs_stats *s, enum nfs_client_kind k,
                           const struct nfs_client *c)
{
	json_t *o = json_object();

	switch (k) {
	case NFS_BY_CONNECTION:
		set_addr(o, "address", &c->client.addr);
		json_object_set_new(o, "port", JI(c->client.port));
		set_addr(o, "server", &c->server.addr);
		json_object_set_new(o, "server_port", JI(c->server.port));
		json_object_set_new(o, "protocol", json_string(c->proto == 17 ? "udp" : "tcp"));
		break;
	case NFS_BY_ADDRESS:
		set_addr(o, "address", &c->client.addr);
		break;
	case NFS_BY_UID:
		json_object_set_new(o, "uid", JI(c->uid));
		json_object_set_new(o, "gid", JI(c->gid));
		break;
	default:
		json_object_set_new(o, "machine", json_string(c->machine));
		break;
	}
	client_figures(o, s, c);
	return o;
}

static const char *const kind_key[NFS_CLIENT_KINDS] = {
    [NFS_BY_ADDRESS] = "by_address",
    [NFS_BY_CONNECTION] = "by_connection",
    [NFS_BY_UID] = "by_uid",
    [NFS_BY_MACHINE] = "by_machine",
};

/* The top clients of each table by time spent waiting; what the caps folded, in "other". */
json_t *nfs_clients_json(const struct nfs_stats *s)
{
	json_t *o = json_object(), *other = json_object(), *caps = json_object();
	json_t *tracked = json_object();

	for (unsigned k = 0; k < NFS_CLIENT_KINDS; k++) {
		const struct nfs_client_table *tb = &s->clients[k];
		unsigned *idx = calloc(s->cfg.top, sizeof(*idx));
		json_t *a = json_array(), *f = json_object();
		unsigned n = idx ? nfs_stats_top_clients(s, k, NFS_RANK_WAIT, idx, s->cfg.top) : 0;

		for (unsigned i = 0; i < n; i++)
			json_array_append_new(a, client_json(s, k, &tb->c[idx[i]]));
		free(idx);
		json_object_set_new(o, kind_key[k], a);
		client_figures(f, s, &tb->other);
		json_object_set_new(other, kind_key[k], f);
		json_object_set_new(caps, kind_key[k], JI(tb->max));
		json_object_set_new(tracked, kind_key[k], JI(tb->n));
	}
	json_object_set_new(o, "tracked", tracked);
	json_object_set_new(o, "other", other);
	json_object_set_new(o, "caps", caps);
	return o;
}

/* --- files --- */

static json_t *io_json(const struct nfs_io *io)
{
	json_t *o = json_object();

	json_object_set_new(o, "ops", JI(io->ops));
	json_object_set_new(o, "bytes", JI(io->bytes));
	json_object_set_new(o, "min_size", JI(io->ops ? io->min : 0));
	json_object_set_new(o, "max_size", JI(io->max));
	json_object_set_new(o, "mean_size", json_real(io->ops ? (double)io->bytes / io->ops : 0));
	json_object_set_new(o, "sequential", JI(io->seq));
	json_object_set_new(o, "random", JI(io->ops - io->seq));
	return o;
}

static void file_figures(json_t *o, const struct nfs_stats *s, const struct nfs_file *f)
{
	json_t *calls = json_array();

	json_object_set_new(o, "ops", JI(f->ops));
	json_object_set_new(o, "errors", JI(f->errors));
	json_object_set_new(o, "wait_ns", JI(f->wait_ns));
	json_object_set_new(o, "bytes", JI(f->rd.bytes + f->wr.bytes));
	for (unsigned i = 0; i < f->nrows; i++) {
		json_t *c = json_object();

		set_row(c, s, f->calls[i].row);
		json_object_set_new(c, "calls", JI(f->calls[i].n));
		json_array_append_new(calls, c);
	}
	if (f->calls_other)
		json_array_append_new(calls, json_pack("{sssI}", "name", "other", "calls",
		                                       (json_int_t)f->calls_other));
	json_object_set_new(o, "calls", calls);
	if (f->rd.ops)
		json_object_set_new(o, "read", io_json(&f->rd));
	if (f->wr.ops)
		json_object_set_new(o, "write", io_json(&f->wr));
	if (f->size != UINT64_MAX)
		json_object_set_new(o, "size", JI(f->size));
	json_object_set_new(o, "srt_ns", nfs_sketch_json(&f->srt));
}

static const char *path_state(unsigned flags)
{
	return flags & NFS_PATH_REMOVED       ? "removed"
	       : flags & NFS_PATH_PLACEHOLDER ? "unnamed"
	       : flags & NFS_PATH_ROOTED      ? "named"
	                                      : "partial";
}

static json_t *file_json(const struct nfs_stats *s, const struct nfs_file *f)
{
	json_t *o = json_object();
	struct nfs_name_info in;
	char buf[1024], hex[2 * NFS_FH_MAX + 1];
	unsigned flags = nfs_names_path(s->names, f->node, buf, sizeof(buf));

	json_object_set_new(o, "path", json_string(buf));
	json_object_set_new(o, "name_state", json_string(path_state(flags)));
	if (nfs_names_info(s->names, f->node, &in) == 0 && in.fh) {
		for (unsigned k = 0; k < in.fh_len; k++)
			snprintf(hex + 2 * k, 3, "%02x", in.fh[k]);
		hex[2 * in.fh_len] = 0;
		json_object_set_new(o, "fh", json_string(hex));
	}
	file_figures(o, s, f);
	return o;
}

static json_t *top_files(const struct nfs_stats *s, enum nfs_rank by)
{
	json_t *a = json_array();
	unsigned *idx = calloc(s->cfg.top, sizeof(*idx)), n;

	if (!idx)
		return a;
	n = nfs_stats_top_files(s, by, idx, s->cfg.top);
	for (unsigned i = 0; i < n; i++)
		json_array_append_new(a, file_json(s, &s->files.f[idx[i]]));
	free(idx);
	return a;
}

json_t *nfs_files_json(const struct nfs_stats *s)
{
	const struct nfs_names_counters *c = nfs_names_counters(s->names);
	json_t *o = json_object(), *other = json_object();

	json_object_set_new(o, "by_time", top_files(s, NFS_RANK_WAIT));
	json_object_set_new(o, "by_bytes", top_files(s, NFS_RANK_BYTES));
	json_object_set_new(o, "by_ops", top_files(s, NFS_RANK_OPS));
	json_object_set_new(o, "tracked", JI(s->files.n));
	json_object_set_new(o, "cap", JI(s->files.max));
	json_object_set_new(o, "evicted", JI(s->files.evicted));
	file_figures(other, s, &s->files.other);
	json_object_set_new(o, "other", other);
	json_object_set_new(o, "names",
	                    json_pack("{sIsIsIsIsIsIsIsIsI}", "nodes", (json_int_t)c->nodes,
	                              "named", (json_int_t)c->named, "roots", (json_int_t)c->roots,
	                              "removed", (json_int_t)c->removed, "renamed",
	                              (json_int_t)c->renamed, "linked", (json_int_t)c->linked,
	                              "merged", (json_int_t)c->merged, "untracked",
	                              (json_int_t)c->untracked, "refused", (json_int_t)c->refused));
	return o;
}

/* --- the slowest calls --- */

json_t *nfs_slowest_json(const struct nfs_stats *s)
{
	json_t *a = json_array();
	struct nfs_slow *v = calloc(s->nslow ? s->nslow : 1, sizeof(*v));
	unsigned n = v ? nfs_stats_slowest(s, v, s->nslow) : 0;
	char buf[1024], st[48];

	for (unsigned i = 0; i < n; i++) {
		const struct nfs_slow *e = &v[i];
		const struct nfs_proc_stats *r = nfs_stats_row(s, e->row);
		json_t *o = json_object();

		json_object_set_new(o, "call_ns", JI(e->call_ns));
		json_object_set_new(o, "call_offset_ns", JI(e->call_ns - s->first_call_ns));
		json_object_set_new(o, "srt_ns", JI(e->srt));
		json_object_set_new(o, "xid", JI(e->xid));
		set_addr(o, "client", &e->client.addr);
		json_object_set_new(o, "client_port", JI(e->client.port));
		set_addr(o, "server", &e->server.addr);
		json_object_set_new(o, "server_port", JI(e->server.port));
		if (e->has_unix) {
			json_object_set_new(o, "uid", JI(e->uid));
			json_object_set_new(o, "gid", JI(e->gid));
			json_object_set_new(o, "machine", json_string(e->machine));
		}
		set_row(o, s, e->row);
		if (e->nops) {
			json_t *ops = json_array();

			for (unsigned k = 0; k < e->nops; k++) {
				const char *on = nfs4_op_name(e->ops[k]);

				json_array_append_new(ops, on ? json_string(on) : JI(e->ops[k]));
			}
			json_object_set_new(o, "ops", ops);
		}
		if (e->node != NFS_NAME_NONE || e->fh_len) {
			nfs_stats_file_path(s, e->node, e->fh, e->fh_len, buf, sizeof(buf));
			json_object_set_new(o, "file", json_string(buf));
		}
		if (e->has_io) {
			json_object_set_new(o, "offset", JI(e->offset));
			json_object_set_new(o, "count", JI(e->count));
		}
		nfs_status_str(e->status, r && r->vers != 3, st, sizeof(st));
		json_object_set_new(o, "status", json_string(e->status ? st : "OK"));
		json_array_append_new(a, o);
	}
	free(v);
	return a;
}

/* --- per-procedure series, aligned with the timeline's bins --- */

json_t *nfs_series_json(const struct nfs_stats *s)
{
	json_t *o = json_object(), *a = json_array();
	unsigned slots = s->nseries;
	uint64_t nb = s->series ? s->sclock.n : 0;

	json_object_set_new(o, "interval_ns", JI(s->sclock.width));
	json_object_set_new(o, "start_ns", JI(nb ? bins_start_of(&s->sclock, 0) : 0));
	json_object_set_new(o, "bins", JI(nb));
	/* the "other" series only when something went there */
	for (uint64_t b = 0; b < nb && slots < NFS_SERIES; b++)
		if (s->series[(size_t)b * NFS_SERIES + NFS_SERIES - 1].calls)
			slots = NFS_SERIES;
	for (unsigned k = 0; k < slots; k++) {
		json_t *x = json_object(), *calls = json_array(), *errs = json_array();
		json_t *p50 = json_array(), *p90 = json_array(), *p99 = json_array();
		json_t *mx = json_array();

		/* slots past the named ones are "other" */
		set_row(x, s, k < s->nseries ? s->series_row[k] : UINT32_MAX);
		if (k >= s->nseries)
			k = NFS_SERIES - 1;
		for (uint64_t b = 0; b < nb; b++) {
			const struct nfs_series_bin *y = &s->series[(size_t)b * NFS_SERIES + k];
			uint64_t q[3] = {nfs_coarse_quantile(&y->srt, y->replies, .5),
			                 nfs_coarse_quantile(&y->srt, y->replies, .9),
			                 nfs_coarse_quantile(&y->srt, y->replies, .99)};

			/* a bucket's midpoint may lie past the largest value: the max is exact */
			for (unsigned i = 0; i < 3; i++)
				if (q[i] > y->srt_max)
					q[i] = y->srt_max;
			json_array_append_new(calls, JI(y->calls));
			json_array_append_new(errs, JI(y->errors));
			json_array_append_new(p50, JI(q[0]));
			json_array_append_new(p90, JI(q[1]));
			json_array_append_new(p99, JI(q[2]));
			json_array_append_new(mx, JI(y->srt_max));
		}
		json_object_set_new(x, "calls", calls);
		json_object_set_new(x, "errors", errs);
		json_object_set_new(x, "srt_p50_ns", p50);
		json_object_set_new(x, "srt_p90_ns", p90);
		json_object_set_new(x, "srt_p99_ns", p99);
		json_object_set_new(x, "srt_max_ns", mx);
		json_array_append_new(a, x);
	}
	json_object_set_new(o, "procedures", a);
	return o;
}

/* --- events --- */

json_t *nfs_events_json(const struct nfs_stats *s)
{
	static const char *const names[NET_EV_TYPES] = {
	    [NET_EV_GAP] = "gap",
	    [NET_EV_RETRANSMIT] = "retransmit",
	};
	json_t *o = json_object(), *counts = json_object(), *list = json_array();

	for (unsigned k = 0; k < NET_EV_TYPES; k++)
		json_object_set_new(counts, names[k], JI(s->event_counts[k]));
	for (unsigned i = 0; i < s->nevents; i++) {
		const struct nfs_event *e = &s->events[i];
		json_t *x = json_object();

		json_object_set_new(x, "type", json_string(names[e->type]));
		json_object_set_new(x, "ns", JI(e->ts_ns));
		set_addr(x, "from", &e->src.addr);
		json_object_set_new(x, "from_port", JI(e->src.port));
		set_addr(x, "to", &e->dst.addr);
		json_object_set_new(x, "to_port", JI(e->dst.port));
		json_object_set_new(x, "connection", JI(e->conn_id));
		if (e->type == NET_EV_RETRANSMIT)
			json_object_set_new(x, "xid", JI(e->xid));
		else
			json_object_set_new(x, "bytes", JI(e->bytes));
		json_array_append_new(list, x);
	}
	json_object_set_new(o, "counts", counts);
	json_object_set_new(o, "listed", JI(s->nevents));
	json_object_set_new(o, "list", list);
	return o;
}
