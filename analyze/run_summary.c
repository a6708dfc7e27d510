/* SPDX-License-Identifier: MIT */
/* One run through the analysis: its `iotape analyze --json` summary, block trace and packets. */
#include "analyze/run_summary.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/blk_bycg.h"
#include "analyze/blk_figures.h"
#include "analyze/blk_summary.h"
#include "analyze/idle_explain.h"
#include "analyze/nfs_stats.h"
#include "formats/blktrace.h"
#include "formats/manifest.h"
#include "formats/nfs_pipe.h"

int run_summary_init(struct run_summary *r, const struct blk_opts *o)
{
	memset(r, 0, sizeof(*r));
	if (o)
		r->o = *o;
	else
		blk_opts_init(&r->o);
	r->doc = json_object();
	return r->doc ? 0 : -ENOMEM;
}

void run_summary_release(struct run_summary *r)
{
	json_decref(r->doc);
	idle_explain_free(r->x);
	blk_analysis_free(r->blk);
	for (unsigned i = 0; r->hblk && i < r->nhosts; i++)
		blk_analysis_free(r->hblk[i]);
	free(r->hblk);
	blk_bycg_free(r->cg);
	bt_comm_table_free(r->comms);
	free(r->refs);
	blk_figures_free(r->figs, r->nfigs);
	if (r->nfs) {
		run_nfs_release(r->nfs);
		free(r->nfs);
	}
	memset(r, 0, sizeof(*r));
}

/* Bad bytes (not a failing system): what came before them makes partial results. */
static bool bad_bytes(int ret)
{
	return ret == -EINVAL || ret == -EPROTO;
}

/* Mark o (the summary's "input", or "nfs"'s) partial, with the error that stopped it. */
static void mark_partial(json_t *o, const struct iot_err *e)
{
	json_object_set_new(o, "partial", json_true());
	json_object_set_new(o, "error", json_string(e->msg));
}

int run_summary_block(struct run_summary *r, struct bt_reader *rd,
                      int (*setup)(void *ctx, struct blk_analysis *a), void *ctx, struct iot_err *e)
{
	struct ie_clock clk;
	int ret, stop;

	stop = run_summary_pass(r, &rd, 1, setup, ctx, e);
	if (stop && !(r->passed && bad_bytes(stop) && r->events))
		return stop;
	/* the first event on the common clock: the same ie_clock analyze gives a run set's host */
	clk = r->ident && r->ident->have_clock ? (struct ie_clock){.m = r->ident}
	                                       : run_trace_clock(bt_reader_stats(rd));
	clk.real_off_ns = r->real_off_ns;
	r->have_real_start = blk_analysis_ndevices(r->blk) &&
	                     ie_clock_to_real(&clk, blk_analysis_start(r->blk), &r->real_start_ns);
	ret = run_summary_json(r, r->doc);
	/* the manifest is the caller's: nothing of it is kept past the pass; the packets are
	 * placed on the TIMESTAMP's clock, or on the clock pairs of run_summary_packets()'s */
	idle_explain_set_manifest(r->x, 0, NULL);
	clk = run_trace_clock(bt_reader_stats(rd));
	idle_explain_set_clock(r->x, 0, &clk);
	if (ret)
		return iot_err_set(e, ret, "out of memory");
	if (stop) {
		json_t *in = json_object();

		mark_partial(in, e);
		json_object_set_new(r->doc, "input", in);
	}
	r->has_block = true;
	return stop ? 1 : 0;
}

int run_summary_file(struct run_summary *r, const char *path, struct iot_err *e)
{
	json_error_t je;
	json_t *sum = json_load_file(path, 0, &je);
	int ret;

	if (!sum)
		return iot_err_set(e, -EINVAL, "'%s': %s (line %d)", path, je.text, je.line);
	json_object_set_new(r->doc, "input",
	                    json_pack("{s:[s], s:s, s:[], s:I}", "paths", path, "summary", path,
	                              "files", "events", (json_int_t)0));
	blk_figures_free(r->figs, r->nfigs);
	r->figs = NULL;
	r->nfigs = 0;
	ret = blk_summary_read(sum, r->o.top, r->want_interval_ns, r->want_idle_ns, r->doc,
	                       &r->figs, &r->nfigs, e);
	json_decref(sum);
	if (ret)
		return iot_err_prefix(e, "'%s'", path), ret;
	r->from_summary = true;
	return 0;
}

static void run_nfs_txn(void *arg, const struct rpc_txn *t)
{
	struct run_nfs *n = arg;

	nfs_stats_txn(&n->s, t);
	if (n->x)
		idle_explain_txn(n->x, t);
	if (n->also)
		n->also(n->ctx, t);
}

/* Every frame: over the gaps, and to the caller's hook. */
static void run_nfs_frame(void *arg, const struct pkt *p, uint64_t ts_ns)
{
	struct run_nfs *n = arg;

	if (n->x)
		idle_explain_frame(n->x, p, ts_ns);
	if (n->frame_fn)
		n->frame_fn(n->frame_arg, p, ts_ns);
}

int run_nfs_init(struct run_nfs *n, const struct blk_opts *o, uint64_t interval_ns,
                 struct idle_explain *x, unsigned h)
{
	struct nfs_stats_cfg cfg = {.interval_ns = interval_ns ? interval_ns : o->interval_ns,
	                            .top = o->top};
	struct tcp_cfg tcfg = {.event = nfs_stats_event, .event_arg = &n->s};
	struct rpc_dec_cfg rcfg = {.event = nfs_stats_event,
	                           .event_arg = &n->s,
	                           .call = x ? idle_explain_call : NULL,
	                           .call_arg = x};

	/* not a memset of the whole: the statistics and the pipe clear their own parts */
	n->x = x;
	n->also = NULL;
	n->ctx = NULL;
	n->frame_fn = NULL;
	n->frame_arg = NULL;
	if (nfs_stats_init(&n->s, &cfg))
		return -ENOMEM;
	if (nfs_pipe_init(&n->p, &tcfg, &rcfg, run_nfs_txn, n)) {
		nfs_stats_release(&n->s);
		return -ENOMEM;
	}
	if (x)
		idle_explain_capture_begin(x, h);
	return 0;
}

int run_nfs_read(struct run_nfs *n, struct pcap_src **src, struct nfs_pipe_file *files,
                 unsigned count, struct iot_err *e, unsigned *bad)
{
	if (n->x || n->frame_fn) {
		n->p.frame_fn = run_nfs_frame;
		n->p.frame_arg = n;
	}
	*bad = 0;
	return files ? nfs_pipe_run_many(&n->p, src, files, count, e, bad)
	             : nfs_pipe_run(&n->p, src[0], e);
}

json_t *run_nfs_finish(struct run_nfs *n, const struct iot_err *stop)
{
	json_t *j, *in;

	nfs_pipe_finish(&n->p);
	if (n->x)
		idle_explain_capture_end(n->x);
	nfs_stats_sort(&n->s);
	j = nfs_stats_json(&n->s, &n->p);
	in = json_object_get(j, "input");
	json_object_set_new(in, "partial", json_boolean(stop != NULL));
	if (stop)
		json_object_set_new(in, "error", json_string(stop->msg));
	return j;
}

void run_nfs_release(struct run_nfs *n)
{
	nfs_pipe_release(&n->p);
	nfs_stats_release(&n->s);
}

/* Host h's clock while its packets are placed: the clock pairs of r->clock (the caller's),
 * when given, for the one host of a run. */
static void packets_clock(struct run_summary *r, struct idle_explain *x, unsigned h,
                          struct ie_clock *before)
{
	*before = x->host[h].clk;
	if (!h && r->clock && r->clock->have_clock)
		idle_explain_set_clock(x, 0, &(struct ie_clock){.m = r->clock});
}

int run_summary_captures(struct run_summary *r, const struct run_captures *c, struct iot_err *e,
                         unsigned *bad)
{
	/* the gaps' explanation: only after a block pass */
	struct idle_explain *x = r->passed ? r->x : NULL;
	struct ie_clock before;
	struct run_nfs *n;
	json_t *j;
	int ret;

	*bad = 0;
	if (r->nfs) {
		run_nfs_release(r->nfs);
		free(r->nfs);
	}
	if (!(r->nfs = n = malloc(sizeof(*n))))
		return iot_err_set(e, -ENOMEM, "out of memory");
	if (x)
		packets_clock(r, x, c->host, &before);
	if (run_nfs_init(n, &r->o, r->nfs_interval_ns, x, c->host)) {
		free(n);
		r->nfs = NULL;
		if (x)
			idle_explain_set_clock(x, c->host, &before);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	n->also = c->also;
	n->ctx = c->ctx;
	n->frame_fn = r->frame_fn;
	n->frame_arg = r->frame_arg;
	ret = run_nfs_read(n, c->src, c->files, c->n, e, bad);
	if (ret && c->files)
		iot_err_prefix(e, "'%s'", c->files[*bad].name);
	if (!ret || (bad_bytes(ret) && n->p.n.frames)) {
		int stop = ret;

		j = run_nfs_finish(n, stop ? e : NULL);
		if (!j || (x && c->devices && idle_explain_json(x, c->host, c->devices))) {
			json_decref(j);
			ret = iot_err_set(e, -ENOMEM, "out of memory");
		} else {
			json_object_set_new(c->into, "nfs", j);
			ret = stop ? 1 : 0;
		}
	}
	if (x)
		idle_explain_set_clock(x, c->host, &before);
	return ret;
}

int run_summary_packets(struct run_summary *r, struct pcap_src *src, rpc_txn_fn also, void *ctx,
                        struct iot_err *e)
{
	struct run_captures c = {.src = &src,
	                         .n = 1,
	                         .into = r->doc,
	                         .devices = json_object_get(r->doc, "devices"),
	                         .also = also,
	                         .ctx = ctx};
	unsigned bad;
	int ret = run_summary_captures(r, &c, e, &bad);

	/* the statistics are in the document: the pipeline's tables go */
	if (r->nfs) {
		run_nfs_release(r->nfs);
		free(r->nfs);
		r->nfs = NULL;
	}
	if (ret >= 0)
		r->has_nfs = true;
	return ret;
}
