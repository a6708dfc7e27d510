/* SPDX-License-Identifier: MIT */
/* One run through the analysis: its `iotape analyze --json` summary, block trace and packets. */
#include "analyze/run_summary.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "analyze/nfs_stats.h"
#include "formats/blktrace.h"
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
	int ret, stop;

	blk_analysis_free(r->blk);
	if (blk_analysis_new(&r->blk, o))
		return iot_err_set(e, -ENOMEM, "out of memory");
	if (setup && (ret = setup(ctx, r->blk)))
		return iot_err_set(e, ret, "out of memory");
	stop = blk_analysis_read(r->blk, rd, e);
	if (stop && !(bad_bytes(stop) && bt_reader_stats(rd)->events))
		return stop;
	ret = blk_analysis_to_json(r->blk, r->doc, 0);
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
};

static void both_txn(void *arg, const struct rpc_txn *t)
{
	struct both *b = arg;

	nfs_stats_txn(b->s, t);
	if (b->also)
		b->also(b->ctx, t);
}

int run_summary_packets(struct run_summary *r, struct pcap_src *src, rpc_txn_fn also, void *ctx,
                        struct iot_err *e)
{
	struct nfs_stats_cfg cfg = {.interval_ns = r->nfs_interval_ns};
	struct nfs_stats s;
	struct nfs_pipe p;
	struct both b = {&s, also, ctx};
	struct tcp_cfg tcfg = {.event = nfs_stats_event, .event_arg = &s};
	struct rpc_dec_cfg rcfg = {.event = nfs_stats_event, .event_arg = &s};
	json_t *j;
	int ret;

	if (nfs_stats_init(&s, &cfg))
		return iot_err_set(e, -ENOMEM, "out of memory");
	if (nfs_pipe_init(&p, &tcfg, &rcfg, both_txn, &b)) {
		nfs_stats_release(&s);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	ret = nfs_pipe_run(&p, src, e);
	if (!ret || (bad_bytes(ret) && p.n.frames)) {
		int stop = ret;

		nfs_pipe_finish(&p);
		nfs_stats_sort(&s);
		j = nfs_stats_json(&s, &p);
		if (!j) {
			ret = iot_err_set(e, -ENOMEM, "out of memory");
		} else {
			if (stop)
				mark_partial(json_object_get(j, "input"), e);
			json_object_set_new(r->doc, "nfs", j);
			ret = stop ? 1 : 0;
		}
	}
	nfs_pipe_release(&p);
	nfs_stats_release(&s);
	if (ret >= 0)
		r->has_nfs = true;
	return ret;
}
