/* SPDX-License-Identifier: MIT */
/* One run for the report: the analysis summary and pass, plus the series only the report draws. */
#include "report/report_run.h"

#include <errno.h>
#include <string.h>

#include "analyze/idle_explain.h"
#include "formats/manifest.h"
#include "report/report_grid.h"

int report_run_init(struct report_run *r, uint64_t interval_ns, uint64_t idle_ns)
{
	struct blk_opts o;

	memset(r, 0, sizeof(*r));
	r->interval_ns = interval_ns;
	r->idle_ns = idle_ns;
	blk_opts_init(&o);
	o.interval_ns = interval_ns ? interval_ns : RPT_BASE_WIDTH_NS;
	o.max_bins = RPT_MAX_BINS;
	if (idle_ns)
		o.idle_threshold_ns = idle_ns;
	o.lat_bins_devices = RPT_GRID_DEVICES;
	if (run_summary_init(&r->s, &o) || rpt_nfs_init(&r->nfs, interval_ns)) {
		report_run_release(r);
		return -ENOMEM;
	}
	return 0;
}

void report_run_release(struct report_run *r)
{
	run_summary_release(&r->s);
	rpt_nfs_release(&r->nfs);
	memset(r, 0, sizeof(*r));
}

static int add_grid(void *ctx, struct blk_analysis *a)
{
	(void)ctx;
	return blk_analysis_add_sink(a, &rpt_grid_ops) ? 0 : -ENOMEM;
}

int report_run_block(struct report_run *r, struct bt_reader *rd, const struct manifest *m,
                     struct iot_err *e)
{
	int ret;

	r->s.ident = m;
	ret = run_summary_block(&r->s, rd, add_grid, NULL, e);
	r->s.ident = NULL;
	return ret;
}

int report_run_summary(struct report_run *r, const char *path, struct iot_err *e)
{
	/* the bins and threshold asked for, if any: a summary's own else */
	r->s.want_interval_ns = r->interval_ns;
	r->s.want_idle_ns = r->idle_ns;
	return run_summary_file(&r->s, path, e);
}

int report_run_packets(struct report_run *r, struct pcap_src *src, const struct manifest *clock,
                       struct iot_err *e)
{
	int ret;

	if (clock && clock->have_clock && r->s.has_block && blk_analysis_ndevices(r->s.blk))
		rpt_nfs_align(&r->nfs, clock, blk_analysis_start(r->s.blk));
	r->s.nfs_interval_ns = report_run_nfs_interval(r);
	/* the clock pairs place the packets over the idle gaps; every frame to the network graph */
	r->s.clock = clock;
	r->s.frame_fn = rpt_nfs_frame;
	r->s.frame_arg = &r->nfs;
	ret = run_summary_packets(&r->s, src, rpt_nfs_txn, &r->nfs, e);
	r->nfs.clock_map = NULL; /* the caller's manifest: no longer needed */
	r->s.clock = NULL;
	return ret;
}

bool report_run_nfs_real0(const struct report_run *r, int64_t *real)
{
	/* packet times are the capturing host's CLOCK_REALTIME: the same clock as a trace's
	 * TIMESTAMP with no distance to it, the run's offset taken off as for the block pass */
	const struct ie_clock clk = {.have_wall = true, .real_off_ns = r->s.real_off_ns};

	if (!r->nfs.txns)
		return false;
	if (r->nfs.aligned) { /* the series start at the block pass's first event */
		*real = r->s.real_start_ns;
		return r->s.have_real_start;
	}
	return ie_clock_to_real(&clk, r->nfs.clock.origin, real);
}

uint64_t report_run_nfs_interval(const struct report_run *r)
{
	/* fine bins for the per-procedure graphs (they double as the capture needs) */
	return r->interval_ns ? r->interval_ns : 1000000;
}

int report_run_set_setup(void *ctx, unsigned h, struct blk_analysis *a)
{
	(void)h;
	return add_grid(ctx, a);
}

void report_run_set_packets(void *ctx, unsigned h, struct run_set_host *sh)
{
	struct report_run_set *set = ctx;
	struct report_run *r = &set->runs[h];
	struct blk_analysis *a = set->s->hblk[h];

	/* as report_run_packets(): the NFS series on the block trace's clock */
	if (sh->host.m && sh->host.m->have_clock && sh->host.rd && blk_analysis_ndevices(a))
		rpt_nfs_align(&r->nfs, sh->host.m, blk_analysis_start(a));
	sh->also = rpt_nfs_txn;
	sh->ctx = &r->nfs;
	sh->frame_fn = rpt_nfs_frame;
	sh->frame_arg = &r->nfs;
}

void report_run_adopt(struct report_run *r, struct run_summary *s, unsigned h,
                      struct run_set_host *sh)
{
	r->nfs.clock_map = NULL; /* the set's manifest: no longer needed */
	r->s.has_block = sh->host.rd != NULL;
	if (r->s.has_block) {
		r->s.blk = s->hblk[h];
		s->hblk[h] = NULL;
	}
	r->s.has_nfs = sh->src && json_object_get(sh->doc, "nfs");
	r->s.real_off_ns = sh->host.real_off_ns; /* its NFS series placed as its pass */
	r->s.have_real_start = sh->have_real_start;
	r->s.real_start_ns = sh->real_start_ns;
	json_decref(r->s.doc);
	r->s.doc = sh->doc;
	sh->doc = NULL;
}
