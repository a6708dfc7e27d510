/* SPDX-License-Identifier: MIT */
/* The replay summary as JSON: what the CLI prints with --json and the manifest carries. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonint.h"
#include "replay/internal.h"

static const char *const op_names[RP_OP_N] = {"read", "write", "flush", "discard", "write_zeroes"};

json_t *rp_hist_json(const struct hist *h)
{
	json_t *o = json_object();

	json_object_set_new(o, "count", json_u64(h->count));
	json_object_set_new(o, "min_ns", json_u64((h->count ? h->min : 0)));
	json_object_set_new(o, "mean_ns", json_real(hist_mean(h)));
	json_object_set_new(o, "p50_ns", json_u64(hist_quantile(h, 0.50)));
	json_object_set_new(o, "p90_ns", json_u64(hist_quantile(h, 0.90)));
	json_object_set_new(o, "p99_ns", json_u64(hist_quantile(h, 0.99)));
	json_object_set_new(o, "p999_ns", json_u64(hist_quantile(h, 0.999)));
	json_object_set_new(o, "max_ns", json_u64(h->max));
	return o;
}

/* {"read": v[0], "write": v[1], ...} */
static json_t *by_op(const uint64_t *v)
{
	json_t *o = json_object();

	for (int i = 0; i < RP_OP_N; i++)
		json_object_set_new(o, op_names[i], json_u64(v[i]));
	return o;
}

static double per_sec(uint64_t n, uint64_t ns)
{
	return ns ? (double)n * 1e9 / (double)ns : 0.0;
}

char *replay_stats_json(const struct replay_opts *o, const struct replay_stats *st)
{
	json_t *root = json_object(), *tr = json_object(), *rp = json_object(), *sk = json_object(),
	       *opt = json_object();
	char *s;

	json_object_set_new(opt, "engine", json_string(st->engine ? st->engine : ""));
	json_object_set_new(opt, "timing",
	                    json_string(o->timing == RP_TIMING_AFAP ? "afap" : "original"));
	json_object_set_new(opt, "speed", json_real(o->speed > 0 ? o->speed : 1.0));
	json_object_set_new(opt, "from", json_string(o->from == RP_FROM_QUEUE ? "queue" : "issue"));
	json_object_set_new(opt, "depth", json_integer(o->depth ? o->depth : RP_DEFAULT_DEPTH));
	json_object_set_new(opt, "direct", json_boolean(!o->buffered));
	json_object_set_new(opt, "allow_writes", json_boolean(o->allow_writes));
	json_object_set_new(opt, "writes_as_reads", json_boolean(o->writes_as_reads));
	json_object_set_new(opt, "offset", json_u64(o->offset));
	json_object_set_new(opt, "wrap", json_boolean(o->wrap));
	json_object_set_new(root, "options", opt);

	json_object_set_new(tr, "ios", json_u64(st->trace_ios));
	json_object_set_new(tr, "bytes", json_u64(st->trace_bytes));
	json_object_set_new(tr, "duration_ns", json_u64(st->trace_span_ns));
	json_object_set_new(tr, "iops", json_real(per_sec(st->trace_ios, st->trace_span_ns)));
	json_object_set_new(tr, "mb_per_s",
	                    json_real(per_sec(st->trace_bytes, st->trace_span_ns) / 1e6));
	json_object_set_new(tr, "max_depth", json_integer(st->trace_max_depth));
	json_object_set_new(tr, "ops", by_op(st->trace_ops));
	json_object_set_new(tr, "op_bytes", by_op(st->trace_op_bytes));
	json_object_set_new(root, "trace", tr);

	json_object_set_new(rp, "ios", json_u64(st->ios));
	json_object_set_new(rp, "bytes", json_u64(st->bytes));
	json_object_set_new(rp, "ops", by_op(st->ops));
	json_object_set_new(rp, "op_bytes", by_op(st->op_bytes));
	json_object_set_new(rp, "split",
	                    json_pack("{s:o, s:o, s:o, s:o, s:b}", "ios", json_u64(st->split_ios),
	                              "requests", json_u64(st->split_requests), "ios_max",
	                              json_u64(st->split_ios_max), "requests_max",
	                              json_u64(st->split_requests_max), "estimate",
	                              st->split_estimate));
	json_object_set_new(rp, "duration_ns", json_u64(st->replay_span_ns));
	json_object_set_new(rp, "iops", json_real(per_sec(st->ios, st->replay_span_ns)));
	json_object_set_new(rp, "mb_per_s",
	                    json_real(per_sec(st->bytes, st->replay_span_ns) / 1e6));
	json_object_set_new(rp, "duration_ratio",
	                    json_real(st->trace_span_ns
	                                  ? (double)st->replay_span_ns / (double)st->trace_span_ns
	                                  : 0.0));
	json_object_set_new(rp, "max_inflight", json_integer(st->max_inflight));
	json_object_set_new(rp, "dependency_waits", json_u64(st->dep_waits));
	json_object_set_new(rp, "depth_waits", json_u64(st->depth_waits));
	json_object_set_new(rp, "inline", json_u64(st->inline_ios));
	json_object_set_new(rp, "errors", json_u64(st->errors));
	if (st->errors) {
		json_object_set_new(rp, "first_error", json_string(strerror(-st->first_error)));
		json_object_set_new(rp, "first_error_io", json_u64(st->first_error_seq));
	}
	json_object_set_new(rp, "wrapped", json_u64(st->wrapped));
	json_object_set_new(rp, "unaligned_buffered", json_u64(st->unaligned_buffered));
	json_object_set_new(rp, "pending_evicted", json_u64(st->pend_evicted));
	json_object_set_new(rp, "stopped", json_boolean(st->stopped));
	json_object_set_new(rp, "issue_lag", rp_hist_json(&st->lag));
	json_object_set_new(rp, "latency", rp_hist_json(&st->lat));
	json_object_set_new(root, "replay", rp);

	if (st->fidelity) {
		const struct rp_fid_result *f = st->fidelity;

		json_object_set_new(
		    root, "fidelity",
		    json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:b}", "ios",
		              (json_int_t)f->expected, "requests_seen", (json_int_t)f->observed,
		              "equal", (json_int_t)f->equal, "split", (json_int_t)f->split,
		              "split_requests", (json_int_t)f->split_requests, "merged",
		              (json_int_t)f->merged, "missing", (json_int_t)f->missing, "reordered",
		              (json_int_t)f->reordered, "extra_requests", (json_int_t)f->extra,
		              "truncated", f->truncated, "sequence_equal", f->sequence_equal));
	}
	json_object_set_new(sk, "writes", json_u64(st->skipped_writes));
	json_object_set_new(sk, "writes_as_reads", json_u64(st->writes_as_reads));
	json_object_set_new(sk, "discard", json_u64(st->skipped_discard));
	json_object_set_new(sk, "write_zeroes", json_u64(st->skipped_wzero));
	json_object_set_new(sk, "unmapped", json_u64(st->skipped_unmapped));
	json_object_set_new(sk, "out_of_range", json_u64(st->skipped_range));
	json_object_set_new(sk, "other", json_u64(st->skipped_other));
	json_object_set_new(root, "skipped", sk);

	s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	json_decref(root);
	return s;
}
