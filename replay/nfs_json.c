/* SPDX-License-Identifier: MIT */
/* The NFS replay's summary as JSON (--json, and the manifest of --record). */
#include <jansson.h>
#include <stdlib.h>

#include "common/jsonint.h"
#include "replay/internal.h"
#include "replay/nfs_int.h"

#define JI(x) json_u64((x))

static json_t *status_json(uint32_t s, unsigned vers)
{
	char b[48];

	nr_status_str(s, vers, b, sizeof(b));
	return json_string(b);
}

static json_t *procs_json(const struct nfs_replay_stats *st)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < st->nprocs; i++) {
		const struct nr_proc *p = &st->procs[i];
		json_t *o = json_object();

		json_object_set_new(o, "version", JI(p->vers));
		json_object_set_new(o, "name", json_string(p->name));
		json_object_set_new(o, "captured", JI(p->captured));
		json_object_set_new(o, "replayed", JI(p->replayed));
		json_object_set_new(o, "skipped", JI(p->skipped));
		json_object_set_new(o, "refused", JI(p->refused));
		json_object_set_new(o, "same_ok", JI(p->same_ok));
		json_object_set_new(o, "same_error", JI(p->same_err));
		json_object_set_new(o, "diverged", JI(p->diverged));
		json_object_set_new(o, "unanswered", JI(p->unanswered));
		json_object_set_new(o, "bytes", JI(p->bytes));
		json_object_set_new(o, "capture_bytes", JI(p->capture_bytes));
		json_object_set_new(o, "latency", rp_hist_json(&p->lat));
		json_object_set_new(o, "capture_srt", rp_hist_json(&p->srt));
		json_array_append_new(a, o);
	}
	return a;
}

/* What a divergence is, counted or shown: the procedure and the two statuses. */
static json_t *div_json(const struct nr_proc *p, uint32_t cap_status, uint32_t rep_status)
{
	json_t *x = json_object();

	json_object_set_new(x, "version", JI(p->vers));
	json_object_set_new(x, "procedure", json_string(p->name));
	json_object_set_new(x, "capture", status_json(cap_status, p->vers));
	json_object_set_new(x, "replay", status_json(rep_status, p->vers));
	return x;
}

static json_t *divs_json(const struct nfs_replay_stats *st)
{
	json_t *o = json_object(), *a = json_array(), *f = json_array();

	for (unsigned i = 0; i < st->ndivs; i++) {
		const struct nr_div *d = &st->divs[i];
		json_t *x = div_json(&st->procs[d->proc], d->cap_status, d->rep_status);

		json_object_set_new(x, "count", JI(d->n));
		json_array_append_new(a, x);
	}
	for (unsigned i = 0; i < st->nshown; i++) {
		const struct nr_div_shown *d = &st->shown[i];
		json_t *x = div_json(&st->procs[d->proc], d->cap_status, d->rep_status);

		json_object_set_new(x, "call", JI(d->seq));
		json_object_set_new(x, "path", json_string(d->path));
		json_array_append_new(f, x);
	}
	json_object_set_new(o, "by_status", a);
	json_object_set_new(o, "other", JI(st->divs_other));
	json_object_set_new(o, "first", f);
	return o;
}

/* --verify's object: the reference, the counts, the first differences. */
static json_t *verify_json(const char *ref, const struct nfs_verify_result *v)
{
	json_t *o = json_object(), *a = json_array();

	for (unsigned i = 0; i < v->nshown; i++)
		json_array_append_new(
		    a, json_pack("{ssss}", "path", v->shown[i].path, "what", v->shown[i].what));
	json_object_set_new(o, "reference", json_string(ref));
	json_object_set_new(o, "entries", JI(v->entries));
	json_object_set_new(o, "differences", JI(v->differences));
	json_object_set_new(o, "bytes", JI(v->bytes));
	json_object_set_new(o, "first", a);
	return o;
}

char *nfs_replay_json(const struct nfs_replay_opts *o, const struct nfs_replay_stats *st)
{
	return nfs_replay_json_verified(o, st, NULL, NULL);
}

char *nfs_replay_json_verified(const struct nfs_replay_opts *o, const struct nfs_replay_stats *st,
                               const char *ref, const struct nfs_verify_result *v)
{
	json_t *root = json_object(), *opt = json_object(), *cap = json_object();
	json_t *rep = json_object(), *prep = json_object(), *safety = json_object();
	char *s;

	json_object_set_new(opt, "timing",
	                    json_string(o->timing == RP_TIMING_AFAP ? "afap" : "original"));
	json_object_set_new(opt, "speed", json_real(o->speed > 0 ? o->speed : 1.0));
	json_object_set_new(opt, "target", json_string(o->nfs_url ? o->nfs_url : o->target_dir));
	json_object_set_new(opt, "target_kind", json_string(st->target_kind));
	json_object_set_new(opt, "prepare", json_boolean(o->prepare));
	json_object_set_new(opt, "depth", JI(o->depth ? o->depth : NR_DEFAULT_DEPTH));
	json_object_set_new(opt, "root_path",
	                    o->root_path ? json_string(o->root_path) : json_null());
	json_object_set_new(root, "options", opt);

	json_object_set_new(cap, "calls", JI(st->calls));
	json_object_set_new(cap, "other_rpc", JI(st->other_rpc));
	json_object_set_new(cap, "unanswered", JI(st->unanswered));
	json_object_set_new(cap, "duration_ns", JI(st->capture_span_ns));
	json_object_set_new(cap, "bytes_read", JI(st->cap_bytes_read));
	json_object_set_new(cap, "bytes_written", JI(st->cap_bytes_written));
	json_object_set_new(cap, "late", JI(st->late));
	json_object_set_new(cap, "write_payloads_cut", JI(st->payload_cut));
	json_object_set_new(cap, "write_payload_bytes_missing", JI(st->payload_cut_bytes));
	json_object_set_new(root, "capture", cap);

	json_object_set_new(rep, "calls", JI(st->replayed));
	json_object_set_new(rep, "skipped", JI(st->skipped));
	json_object_set_new(rep, "refused", JI(st->refused));
	json_object_set_new(rep, "same", JI(st->same));
	json_object_set_new(rep, "diverged", JI(st->diverged));
	json_object_set_new(rep, "errors", JI(st->errors));
	json_object_set_new(rep, "bytes_read", JI(st->bytes_read));
	json_object_set_new(rep, "bytes_written", JI(st->bytes_written));
	json_object_set_new(rep, "duration_ns", JI(st->replay_span_ns));
	json_object_set_new(rep, "calls_per_s",
	                    json_real(st->replay_span_ns
	                                  ? (double)st->replayed * 1e9 / (double)st->replay_span_ns
	                                  : 0.0));
	json_object_set_new(rep, "streams", JI(st->streams));
	json_object_set_new(rep, "max_inflight", JI(st->max_inflight));
	json_object_set_new(rep, "dependency_waits", JI(st->dep_waits));
	json_object_set_new(rep, "file_waits", JI(st->file_waits));
	json_object_set_new(rep, "depth_waits", JI(st->depth_waits));
	json_object_set_new(rep, "placeholders", JI(st->placeholders));
	json_object_set_new(rep, "owners_not_set", JI(st->attrs_skipped));
	json_object_set_new(rep, "v4_export_path",
	                    st->v4_root[0] ? json_string(st->v4_root) : json_null());
	json_object_set_new(rep, "stopped", json_boolean(st->stopped));
	json_object_set_new(rep, "issue_lag", rp_hist_json(&st->lag));
	json_object_set_new(rep, "peak_table_bytes", JI(st->peak_mem));
	json_object_set_new(rep, "handles", JI(st->nodes));
	json_object_set_new(rep, "handles_untracked", JI(st->untracked));
	json_object_set_new(root, "replay", rep);

	json_object_set_new(prep, "directories", JI(st->prep_dirs));
	json_object_set_new(prep, "files", JI(st->prep_files));
	json_object_set_new(prep, "symlinks", JI(st->prep_links));
	json_object_set_new(prep, "bytes", JI(st->prep_bytes));
	json_object_set_new(prep, "failed", JI(st->prep_failed));
	json_object_set_new(root, "prepare", prep);

	json_object_set_new(safety, "hostile_names", JI(st->hostile));
	json_object_set_new(safety, "escapes", JI(st->escapes));
	json_object_set_new(safety, "outside_root", JI(st->outside_root));
	json_object_set_new(safety, "special_files", JI(st->special));
	json_object_set_new(safety, "hard_links", JI(st->linked));
	json_object_set_new(root, "safety", safety);

	json_object_set_new(root, "procedures", procs_json(st));
	json_object_set_new(root, "divergences", divs_json(st));
	if (v)
		json_object_set_new(root, "verify", verify_json(ref, v));
	s = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(root);
	return s;
}
