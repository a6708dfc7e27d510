/* SPDX-License-Identifier: MIT */
/* One device's block figures from a finished pass: each taken from the sink that computes it. */
#include "analyze/blk_figures.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/blk_analysis.h"
#include "analyze/blk_counts.h"
#include "analyze/blk_depth.h"
#include "analyze/blk_seek.h"

/*
 * The same reads of the same sinks as their to_json() (blk_counts_to_json(),
 * blk_latency_to_json(), ...): a figure here is the number the JSON view writes, never
 * computed a second time from other figures.
 */

void blk_fig_hist_of(struct blk_fig_hist *o, const struct hist *h)
{
	o->count = h->count;
	o->mean = hist_mean(h);
	o->min = h->count ? h->min : 0;
	o->p50 = hist_quantile(h, 0.50);
	o->p90 = hist_quantile(h, 0.90);
	o->p99 = hist_quantile(h, 0.99);
	o->max = h->max;
}

static void from_counts(struct blk_figures *f, const struct blk_counts *c, unsigned idx)
{
	static const struct blk_counts_dev zero;
	const struct blk_counts_dev *d = blk_counts_dev(c, idx);

	if (!d)
		d = &zero;
	f->events = d->events;
	f->reads = (struct blk_fig_io){d->done[0], d->done_bytes[0]};
	f->writes = (struct blk_fig_io){d->done[1], d->done_bytes[1]};
	f->data_writes =
	    (struct blk_fig_io){blk_counts_data_writes(d), blk_counts_data_write_bytes(d)};
	f->discards = (struct blk_fig_io){d->discards, d->discard_bytes};
	f->write_zeroes = (struct blk_fig_io){d->wzero, d->wzero_bytes};
	f->flushes = d->flushes;
	memcpy(f->act, d->fs.n, sizeof(f->act));
}

static void from_latency(struct blk_figures *f, const struct blk_latency *l, unsigned idx)
{
	const struct blk_latency_dev *d = blk_latency_dev(l, idx);
	struct hist empty, scratch;

	hist_init(&empty);
	for (unsigned k = 0; k < BLK_LAT_N; k++)
		blk_fig_hist_of(&f->lat[k], d ? hist_few_view(&d->h[k], &scratch) : &empty);
	f->lat_given = (1u << BLK_LAT_N) - 1;
	f->unmatched_completions = d ? d->unmatched_c : 0;
}

static void from_depth(struct blk_figures *f, const struct blk_depth *q, unsigned idx)
{
	const struct blk_depth_dev *d = blk_depth_dev(q, idx);

	f->depth_mean = blk_depth_mean(q, idx);
	f->depth_max = d ? d->max : 0;
	f->flush_completions = d ? d->flush_ends : 0;
}

static void fig_edge(struct blk_fig_edge *o, const struct blk_gap_io *io,
                     const struct bt_comm_table *comms)
{
	memset(o, 0, sizeof(*o));
	if (!io->action)
		return;
	o->present = true;
	o->has_pid = io->has_pid;
	o->pid = io->pid;
	o->comm = io->has_pid && comms ? bt_comm_table_get(comms, io->pid) : NULL;
	blk_rwbs(io->flags, io->bytes, o->rwbs);
	o->bytes = io->bytes;
}

static int from_idle(struct blk_figures *f, const struct blk_idle *s, unsigned idx, uint64_t span,
                     const struct bt_comm_table *comms)
{
	const struct blk_idle_dev *d = blk_idle_dev(s, idx);

	f->idle_threshold_ns = s->o.idle_threshold_ns;
	f->idle_gaps = d ? d->gaps : 0;
	f->idle_total_ns = d ? d->total_ns : 0;
	f->idle_pct = blk_pct(f->idle_total_ns, span);
	if (!d || !d->ntop)
		return 0;
	if (!(f->gaps = calloc(d->ntop, sizeof(*f->gaps))))
		return -ENOMEM;
	f->ngaps = d->ntop;
	for (unsigned i = 0; i < d->ntop; i++) {
		const struct blk_gap *g = &d->top[i];
		struct blk_fig_gap *o = &f->gaps[i];

		o->start_ns = g->start;
		o->end_ns = g->end;
		o->queued = g->queued;
		o->queued_ns = g->queued_ns;
		o->ended_by_end = g->ended_by != BLK_GAP_ISSUE;
		fig_edge(&o->before, &g->before, comms);
		fig_edge(&o->after, &g->after, comms);
	}
	return 0;
}

static void from_seek(struct blk_figures *f, const struct blk_seek *s, unsigned idx, uint64_t span)
{
	const struct blk_seek_dev *d = blk_seek_dev(s, idx);
	static const struct blk_seek_dev zero;

	if (!d)
		d = &zero;
	f->seeks = d->seeks;
	f->seekwatcher = d->seekwatcher;
	f->seq_transitions = d->transitions;
	f->sequential = d->sequential;
	f->forward = d->forward;
	f->backward = d->backward;
	f->sequential_pct = blk_pct(d->sequential, d->transitions);
	f->seeks_per_sec = blk_per_sec(d->seeks, span);
}

int blk_figures_from_analysis(struct blk_figures *f, const struct blk_analysis *a, unsigned pos)
{
	unsigned idx = blk_analysis_sorted(a, pos);
	uint64_t span = blk_analysis_end(a) - blk_analysis_start(a);

	memset(f, 0, sizeof(*f));
	if (idx == UINT_MAX)
		return -ENOENT;
	f->dev = blk_analysis_device(a, idx);
	from_counts(f, blk_analysis_sink(a, &blk_counts_ops), idx);
	from_latency(f, blk_analysis_sink(a, &blk_latency_ops), idx);
	from_depth(f, blk_analysis_sink(a, &blk_depth_ops), idx);
	from_seek(f, blk_analysis_sink(a, &blk_seek_ops), idx, span);
	return from_idle(f, blk_analysis_sink(a, &blk_idle_ops), idx, span, blk_analysis_comms(a));
}

void blk_figures_release(struct blk_figures *f)
{
	free(f->gaps);
	f->gaps = NULL;
	f->ngaps = 0;
}

void blk_figures_free(struct blk_figures *f, unsigned n)
{
	for (unsigned i = 0; f && i < n; i++)
		blk_figures_release(&f[i]);
	free(f);
}
