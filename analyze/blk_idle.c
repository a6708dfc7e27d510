/* SPDX-License-Identifier: MIT */
/* Idle-gap sink: every gap of at least the threshold, a histogram and the longest N. */
#include "analyze/blk_idle.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonint.h"

/*
 * A device is idle while nothing is in flight: no request issued (D) and not yet completed
 * (C) or requeued (R). A gap runs from the moment the last request in flight finishes to the
 * next issue. The trace's start counts as the start of a gap for a device whose first
 * request event is an issue; a device whose first such event is a completion was busy before
 * the trace began, so its first gap starts at that completion. A device idle when the trace
 * ends has a final gap that ends with the trace (ended_by "end").
 */

#define NONE UINT64_MAX

struct blk_idle *blk_idle_new(const struct blk_opts *o)
{
	struct blk_idle *s = blk_zalloc(sizeof(*s));

	if (!s)
		return NULL;
	if (o)
		s->o = *o;
	else
		blk_opts_init(&s->o);
	return s;
}

void blk_idle_free(struct blk_idle *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->ndev; i++) {
		if (s->dev[i]) {
			free(s->dev[i]->top);
			hist_few_release(&s->dev[i]->h);
		}
		free(s->dev[i]);
	}
	free(s->dev);
	free(s);
}

/* A device's state on its first event: off the hot path. */
struct blk_idle_dev *blk_idle_new_dev(struct blk_idle *s, unsigned dev)
{
	struct blk_idle_dev *d;

	if (blk_grow((void ***)&s->dev, &s->ndev, dev))
		return NULL;
	d = blk_zalloc(sizeof(*d));
	if (!d)
		return NULL;
	d->top = calloc(s->o.top ? s->o.top : 1, sizeof(*d->top));
	if (!d->top) {
		free(d);
		return NULL;
	}
	d->idx = dev;
	d->idle_since = s->start;
	d->first_q = NONE;
	s->dev[dev] = d;
	s->nseen++;
	return d;
}

static void add_gap(struct blk_idle *s, struct blk_idle_dev *d, const struct blk_gap *g)
{
	uint64_t len = g->end - g->start;
	unsigned i;

	if (len < s->o.idle_threshold_ns || !len)
		return;
	d->gaps++;
	d->total_ns += len;
	hist_few_add(&d->h, len);
	if (s->on_gap)
		s->on_gap(s->on_gap_ctx, d->idx, g);
	if (!s->o.top)
		return;
	if (d->ntop == s->o.top && len <= d->top[d->ntop - 1].end - d->top[d->ntop - 1].start)
		return;
	/* insertion into the sorted list: gaps of equal length keep their order in time */
	i = d->ntop < s->o.top ? d->ntop++ : d->ntop - 1;
	while (i > 0 && d->top[i - 1].end - d->top[i - 1].start < len) {
		d->top[i] = d->top[i - 1];
		i--;
	}
	d->top[i] = *g;
}

/*
 * The IO that left d idle: the last completion (or requeue), and who issued it, looked up
 * among the device's last issues (newest first). None when the gap began with the trace.
 */
static void io_before(const struct blk_idle_dev *d, struct blk_gap_io *io)
{
	unsigned n = d->nissued < BLK_IDLE_ISSUERS ? d->nissued : BLK_IDLE_ISSUERS;

	if (!d->known)
		return;
	*io = d->last;
	io->has_pid = 0;
	for (unsigned i = 1; i <= n; i++) {
		unsigned k = (d->nissued - i) % BLK_IDLE_ISSUERS;

		if (d->issued[k].sector == io->sector) {
			io->pid = d->issued[k].pid;
			io->has_pid = 1;
			return;
		}
	}
}

/* The issue ev ends d's idle stretch, a gap of at least the threshold. */
void blk_idle_end_gap(struct blk_idle *s, struct blk_idle_dev *d, const struct blk_event *ev)
{
	struct blk_gap g;

	memset(&g, 0, sizeof(g));
	g.start = d->idle_since;
	g.end = ev->time > d->idle_since ? ev->time : d->idle_since;
	g.pid = ev->pid;
	g.ended_by = BLK_GAP_ISSUE;
	g.at_start = !d->known;
	io_before(d, &g.before);
	g.after = (struct blk_gap_io){ev->sector, ev->bytes, ev->flags, ev->pid, BLK_A_ISSUE, 1};
	if (d->first_q != NONE && d->first_q <= g.end) {
		g.queued = 1;
		g.queued_ns = g.end - (d->first_q > g.start ? d->first_q : g.start);
	}
	add_gap(s, d, &g);
}

void blk_idle_busy_until(struct blk_idle *s, struct blk_idle_dev *d, const struct blk_event *ev)
{
	d->busy_ns += ev->time > d->idle_since ? ev->time - d->idle_since : 0;
	d->known = 1;
	d->idle_since = ev->time;
	d->first_q = NONE;
	d->last = (struct blk_gap_io){ev->sector, ev->bytes, ev->flags, 0, (uint8_t)ev->action, 0};
	if (s->on_idle && s->nseen > s->on_idle_min)
		s->on_idle(s->on_idle_ctx, d->idx, ev->time);
}

void blk_idle_feed(struct blk_idle *s, unsigned dev, const struct blk_event *ev)
{
	blk_idle_feed_inline(s, dev, ev, ev->action);
}

void blk_idle_finish(struct blk_idle *s, uint64_t start_ns, uint64_t end_ns)
{
	(void)start_ns;
	if (s->finished)
		return;
	s->finished = 1;
	for (unsigned i = 0; i < s->ndev; i++) {
		struct blk_idle_dev *d = s->dev[i];
		struct blk_gap g;

		if (!d || d->inflight || end_ns <= d->idle_since)
			continue;
		memset(&g, 0, sizeof(g));
		g.start = d->idle_since;
		g.end = end_ns;
		g.ended_by = BLK_GAP_END;
		g.at_start = !d->known;
		io_before(d, &g.before);
		if (d->first_q != NONE) {
			g.queued = 1;
			g.queued_ns = end_ns - (d->first_q > g.start ? d->first_q : g.start);
		}
		add_gap(s, d, &g);
	}
}

const struct blk_idle_dev *blk_idle_dev(const struct blk_idle *s, unsigned dev)
{
	return dev < s->ndev ? s->dev[dev] : NULL;
}

void blk_idle_on_gap(struct blk_idle *s, blk_gap_fn fn, void *ctx)
{
	s->on_gap = fn;
	s->on_gap_ctx = ctx;
}

int blk_idle_current(const struct blk_idle *s, unsigned dev, uint64_t now, struct blk_gap *g)
{
	const struct blk_idle_dev *d = blk_idle_dev(s, dev);

	if (!d || !d->known || d->inflight || s->finished || now <= d->idle_since ||
	    now - d->idle_since < s->o.idle_threshold_ns)
		return 0;
	memset(g, 0, sizeof(*g));
	g->start = d->idle_since;
	g->end = now;
	g->queued = d->first_q != NONE && d->first_q <= now;
	if (g->queued)
		g->queued_ns = now - (d->first_q > g->start ? d->first_q : g->start);
	io_before(d, &g->before);
	return 1;
}

int blk_idle_activity(const struct blk_idle *s, unsigned dev, uint64_t t, struct blk_idle_act *a)
{
	const struct blk_idle_dev *d = blk_idle_dev(s, dev);

	memset(a, 0, sizeof(*a));
	if (!d)
		return -ENOENT;
	a->busy_ns = d->busy_ns;
	if (d->inflight && t > d->busy_since)
		a->busy_ns += t - d->busy_since;
	a->ios = d->ios;
	a->bytes = d->bytes;
	a->inflight = d->inflight;
	return 0;
}

void blk_idle_on_idle(struct blk_idle *s, blk_idle_fn fn, void *ctx, int always)
{
	s->on_idle = fn;
	s->on_idle_ctx = ctx;
	s->on_idle_min = always ? 0 : 1;
}

/* One edge IO as JSON, or null. */
static json_t *io_json(const struct blk_gap_io *io, const struct blk_json_ctx *ctx)
{
	const char *comm = NULL;
	char rwbs[8];
	json_t *o;

	if (!io->action)
		return json_null();
	o = json_object();
	json_object_set_new(o, "action", json_string(blk_action_name(io->action)));
	if (io->has_pid) {
		json_object_set_new(o, "pid", json_integer(io->pid));
		if (ctx->comms)
			comm = bt_comm_table_get(ctx->comms, io->pid);
	} else {
		json_object_set_new(o, "pid", json_null());
	}
	json_object_set_new(o, "comm", comm ? json_string(comm) : json_null());
	json_object_set_new(o, "rwbs", json_string(blk_rwbs(io->flags, io->bytes, rwbs)));
	json_object_set_new(o, "write", json_boolean(io->flags & BLK_F_WRITE));
	json_object_set_new(o, "bytes", json_integer(io->bytes));
	json_object_set_new(o, "sector", json_u64(io->sector));
	json_object_set_new(o, "flush", json_boolean(io->flags & BLK_F_FLUSH));
	json_object_set_new(o, "fua", json_boolean(io->flags & BLK_F_FUA));
	json_object_set_new(o, "sync", json_boolean(io->flags & BLK_F_SYNC));
	return o;
}

int blk_idle_to_json(const struct blk_idle *s, unsigned dev, json_t *obj,
                     const struct blk_json_ctx *ctx)
{
	const struct blk_idle_dev *d = blk_idle_dev(s, dev);
	uint64_t span = ctx->end_ns - ctx->start_ns;
	json_t *o = json_object(), *list = json_array();
	struct hist empty;

	hist_init(&empty);
	json_object_set_new(o, "threshold_ns", json_u64(s->o.idle_threshold_ns));
	json_object_set_new(o, "gaps", json_u64((d ? d->gaps : 0)));
	json_object_set_new(o, "total_ns", json_u64((d ? d->total_ns : 0)));
	json_object_set_new(o, "pct", json_real(blk_pct(d ? d->total_ns : 0, span)));
	json_object_set_new(o, "histogram",
	                    blk_hist_json(d ? hist_few_view(&d->h, &empty) : &empty, 1));
	for (unsigned i = 0; d && i < d->ntop; i++) {
		const struct blk_gap *g = &d->top[i];
		const char *comm = NULL;
		json_t *e = json_object();

		json_object_set_new(e, "start_ns", json_u64(g->start));
		json_object_set_new(e, "end_ns", json_u64(g->end));
		/* the same from the trace's first event: the seconds the text shows */
		json_object_set_new(e, "start_offset_ns", json_u64((g->start - ctx->start_ns)));
		json_object_set_new(e, "end_offset_ns", json_u64((g->end - ctx->start_ns)));
		json_object_set_new(e, "duration_ns", json_u64((g->end - g->start)));
		json_object_set_new(e, "queued", json_boolean(g->queued));
		json_object_set_new(e, "queued_ns", json_u64(g->queued_ns));
		json_object_set_new(e, "at_start", json_boolean(g->at_start));
		json_object_set_new(e, "ended_by",
		                    json_string(g->ended_by == BLK_GAP_ISSUE ? "issue" : "end"));
		if (g->ended_by == BLK_GAP_ISSUE) {
			json_object_set_new(e, "pid", json_integer(g->pid));
			if (ctx->comms)
				comm = bt_comm_table_get(ctx->comms, g->pid);
			json_object_set_new(e, "comm", comm ? json_string(comm) : json_null());
		} else {
			json_object_set_new(e, "pid", json_null());
			json_object_set_new(e, "comm", json_null());
		}
		json_object_set_new(e, "io_before", io_json(&g->before, ctx));
		json_object_set_new(e, "io_after", io_json(&g->after, ctx));
		json_array_append_new(list, e);
	}
	json_object_set_new(o, "longest", list);
	json_object_set_new(obj, "idle", o);
	return 0;
}

/* ------------------------------------------------------------------------------------- */

static void *ops_create(const struct blk_opts *o)
{
	return blk_idle_new(o);
}

static void ops_feed(void *s, unsigned dev, const struct blk_event *ev)
{
	blk_idle_feed(s, dev, ev);
}

static void ops_finish(void *s, uint64_t start, uint64_t end)
{
	blk_idle_finish(s, start, end);
}

static int ops_to_json(void *s, unsigned dev, json_t *obj, const struct blk_json_ctx *ctx)
{
	return blk_idle_to_json(s, dev, obj, ctx);
}

static void ops_destroy(void *s)
{
	blk_idle_free(s);
}

const struct blk_sink_ops blk_idle_ops = {
    .name = "idle",
    .create = ops_create,
    .feed = ops_feed,
    .finish = ops_finish,
    .to_json = ops_to_json,
    .destroy = ops_destroy,
};
