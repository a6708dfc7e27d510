/* SPDX-License-Identifier: MIT */
/* One run for report and compare: the analysis summary plus the report's own bins. */
#include "report/report_run.h"

#include <errno.h>
#include <string.h>

#include "analyze/blk_analysis.h"
#include "analyze/nfs_stats.h"
#include "formats/blktrace.h"
#include "formats/manifest.h"
#include "formats/nfs_pipe.h"
#include "formats/pcap_src.h"

int report_run_init(struct report_run *r, uint64_t interval_ns, uint64_t idle_ns)
{
	memset(r, 0, sizeof(*r));
	rpt_run_init(&r->bins, interval_ns, idle_ns);
	r->summary = json_object();
	if (!r->summary || rpt_nfs_init(&r->nfs, interval_ns)) {
		report_run_release(r);
		return -ENOMEM;
	}
	return 0;
}

void report_run_release(struct report_run *r)
{
	json_decref(r->summary);
	rpt_run_release(&r->bins);
	rpt_nfs_release(&r->nfs);
	memset(r, 0, sizeof(*r));
}

/* The block trace through the analysis and the report's bins. The reader decodes in a thread
 * of its own while this one feeds both (as analyze does; without the thread, in batches). */
int report_run_block(struct report_run *r, struct bt_reader *rd, struct iot_err *e)
{
	struct blk_analysis *a;
	struct blk_opts o;
	const struct blk_event *ev;
	struct iot_err pf_err;
	unsigned n;
	int ret;

	blk_opts_init(&o);
	o.idle_threshold_ns = r->bins.idle_threshold;
	if (blk_analysis_new(&a, &o))
		return iot_err_set(e, -ENOMEM, "out of memory");
	blk_analysis_set_comms(a, bt_reader_comms(rd));
	(void)bt_reader_prefetch(rd, &pf_err); /* on failure, batches are read in this thread */
	while ((ret = bt_reader_next_batch(rd, &ev, &n, e)) > 0) {
		int err = 0;

		blk_analysis_feed_batch(a, ev, n);
		for (unsigned i = 0; i < n && !err; i++)
			if (!blk_is_notify(&ev[i]))
				err = rpt_run_feed(&r->bins, &ev[i]);
		if (err) {
			blk_analysis_free(a);
			return iot_err_set(e, err, "out of memory");
		}
	}
	if (ret < 0) {
		blk_analysis_free(a);
		return ret;
	}
	blk_analysis_finish(a);
	rpt_run_finish(&r->bins);
	ret = blk_analysis_to_json(a, r->summary, 0); /* graphs come from the report bins */
	blk_analysis_free(a);
	if (ret)
		return iot_err_set(e, ret, "out of memory");
	r->has_block = true;
	return 0;
}

struct both {
	struct nfs_stats *s;
	struct rpt_nfs *n;
};

static void both_txn(void *arg, const struct rpc_txn *t)
{
	struct both *b = arg;

	nfs_stats_txn(b->s, t);
	rpt_nfs_txn(b->n, t);
}

int report_run_packets(struct report_run *r, struct pcap_src *src, const struct manifest *clock,
                       struct iot_err *e)
{
	struct nfs_stats_cfg cfg = {0};
	struct nfs_stats s;
	struct nfs_pipe p;
	struct both b = {&s, &r->nfs};
	json_t *j;
	int ret;

	if (clock && clock->have_clock && r->has_block && r->bins.started)
		rpt_nfs_align(&r->nfs, clock, r->bins.t0);
	if (nfs_stats_init(&s, &cfg))
		return iot_err_set(e, -ENOMEM, "out of memory");
	if (nfs_pipe_init(&p, NULL, NULL, both_txn, &b)) {
		nfs_stats_release(&s);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	ret = nfs_pipe_run(&p, src, e);
	if (!ret) {
		nfs_pipe_finish(&p);
		nfs_stats_sort(&s);
		j = nfs_stats_json(&s, &p);
		if (!j)
			ret = iot_err_set(e, -ENOMEM, "out of memory");
		else
			json_object_set_new(r->summary, "nfs", j);
	}
	nfs_pipe_release(&p);
	nfs_stats_release(&s);
	if (!ret)
		r->has_nfs = true;
	return ret;
}
