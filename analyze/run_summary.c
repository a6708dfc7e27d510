/* SPDX-License-Identifier: MIT */
/* One run through the analysis: its `iotape analyze --json` summary, block trace and packets. */
#include "analyze/run_summary.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "analyze/idle_explain.h"
#include "analyze/nfs_stats.h"
#include "formats/blktrace.h"
#include "formats/manifest.h"
#include "formats/nfs_pipe.h"

int run_summary_init(struct run_summary *r)
{
	memset(r, 0, sizeof(*r));
	r->doc = json_object();
	return r->doc ? 0 : -ENOMEM;
}

void run_summary_release(struct run_summary *r)
{
	json_decref(r->doc);
	idle_explain_free(r->x);
	blk_analysis_free(r->blk);
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

int run_summary_block(struct run_summary *r, struct bt_reader *rd, const struct blk_opts *o,
                      int (*setup)(void *ctx, struct blk_analysis *a), void *ctx, struct iot_err *e)
{
	struct ie_clock clk = {0};
	const struct bt_stats *st;
	int ret, stop;

	idle_explain_free(r->x);
	r->x = NULL;
	blk_analysis_free(r->blk);
	if (blk_analysis_new(&r->blk, o) || idle_explain_new(&r->x, o->top) ||
	    idle_explain_add_host(r->x, r->blk, NULL, &clk) < 0)
		return iot_err_set(e, -ENOMEM, "out of memory");
	if (setup && (ret = setup(ctx, r->blk)))
		return iot_err_set(e, ret, "out of memory");
	idle_explain_set_manifest(r->x, 0, r->ident);
	stop = blk_analysis_read(r->blk, rd, e);
	if (stop && !(bad_bytes(stop) && bt_reader_stats(rd)->events))
		return stop;
	/* without clock pairs, the trace's TIMESTAMP places the packets on its clock */
	st = bt_reader_stats(rd);
	if (st->have_wallclock) {
		clk = (struct ie_clock){.have_wall = true,
		                        .wall_ns = st->wall_sec * 1000000000ll + st->wall_nsec};
		idle_explain_set_clock(r->x, 0, &clk);
	}
	idle_explain_block_done(r->x);
	ret = blk_analysis_to_json(r->blk, r->doc, 0);
	if (!ret)
		ret = blk_ident_json(json_object_get(r->doc, "devices"), r->ident, NULL);
	if (!ret)
		ret = idle_explain_json(r->x, 0, json_object_get(r->doc, "devices"));
	/* the manifest is the caller's: nothing of it is kept past the pass */
	idle_explain_set_manifest(r->x, 0, NULL);
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

struct both {
	struct nfs_stats *s;
	rpc_txn_fn also;
	void *ctx;
	struct idle_explain *x; /* NULL: no gaps to lay the packets over */
	const struct run_summary *r;
};

static void both_txn(void *arg, const struct rpc_txn *t)
{
	struct both *b = arg;

	nfs_stats_txn(b->s, t);
	if (b->x)
		idle_explain_txn(b->x, t);
	if (b->also)
		b->also(b->ctx, t);
}

/* Every frame: over the gaps, and to the caller's hook. */
static void both_frame(void *arg, const struct pkt *p, uint64_t ts_ns)
{
	struct both *b = arg;

	if (b->x)
		idle_explain_frame(b->x, p, ts_ns);
	if (b->r->frame_fn)
		b->r->frame_fn(b->r->frame_arg, p, ts_ns);
}

int run_summary_packets(struct run_summary *r, struct pcap_src *src, rpc_txn_fn also, void *ctx,
                        struct iot_err *e)
{
	struct nfs_stats_cfg cfg = {.interval_ns = r->nfs_interval_ns};
	struct nfs_stats s;
	struct nfs_pipe p;
	/* the gaps' explanation: only after a block pass */
	struct both b = {&s, also, ctx, r->has_block ? r->x : NULL, r};
	struct tcp_cfg tcfg = {.event = nfs_stats_event, .event_arg = &s};
	struct rpc_dec_cfg rcfg = {.event = nfs_stats_event,
	                           .event_arg = &s,
	                           .call = b.x ? idle_explain_call : NULL,
	                           .call_arg = b.x};
	struct ie_clock before;
	json_t *j;
	int ret;

	if (nfs_stats_init(&s, &cfg))
		return iot_err_set(e, -ENOMEM, "out of memory");
	if (nfs_pipe_init(&p, &tcfg, &rcfg, both_txn, &b)) {
		nfs_stats_release(&s);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	if (b.x || r->frame_fn) {
		p.frame_fn = both_frame;
		p.frame_arg = &b;
	}
	if (b.x) {
		/* the manifest's clock pairs while the packets are placed (the caller keeps it) */
		before = b.x->host[0].clk;
		if (r->clock && r->clock->have_clock)
			idle_explain_set_clock(b.x, 0, &(struct ie_clock){.m = r->clock});
		idle_explain_capture_begin(b.x, 0);
	}
	ret = nfs_pipe_run(&p, src, e);
	if (!ret || (bad_bytes(ret) && p.n.frames)) {
		int stop = ret;

		nfs_pipe_finish(&p);
		if (b.x)
			idle_explain_capture_end(b.x);
		nfs_stats_sort(&s);
		j = nfs_stats_json(&s, &p);
		if (!j || (b.x && idle_explain_json(b.x, 0, json_object_get(r->doc, "devices")))) {
			json_decref(j);
			ret = iot_err_set(e, -ENOMEM, "out of memory");
		} else {
			if (stop)
				mark_partial(json_object_get(j, "input"), e);
			json_object_set_new(r->doc, "nfs", j);
			ret = stop ? 1 : 0;
		}
	}
	if (b.x)
		idle_explain_set_clock(b.x, 0, &before);
	nfs_pipe_release(&p);
	nfs_stats_release(&s);
	if (ret >= 0)
		r->has_nfs = true;
	return ret;
}
