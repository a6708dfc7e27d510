/* SPDX-License-Identifier: MIT */
/* Why was the disk idle: what the other devices did during each gap, on one clock over hosts. */
#include "analyze/idle_explain.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/topn.h"
#include "formats/blktrace.h"
#include "formats/manifest.h"

#define NONE UINT64_MAX

int idle_explain_new(struct idle_explain **out, unsigned top)
{
	struct idle_explain *x = calloc(1, sizeof(*x));

	*out = x;
	if (!x)
		return -ENOMEM;
	x->top = top;
	x->cap = -1;
	return 0;
}

static void dev_free(struct ie_dev *d, unsigned nhosts)
{
	if (!d)
		return;
	for (unsigned k = 0; k < d->nheap; k++) {
		struct ie_gap *g = &d->heap[k];

		for (unsigned h = 0; g->net && h < nhosts; h++)
			ie_flows_free(&g->net[h].flows);
		free(g->oth);
		free(g->net);
		free(g->nfs);
	}
	for (unsigned h = 0; d->net_tot && h < nhosts; h++)
		ie_flows_free(&d->net_tot[h].flows);
	free(d->net_tot);
	free(d->nfs_tot);
	free(d->heap);
	free(d->top);
	free(d->timed);
	free(d->all);
	free(d->snap);
	free(d->tot);
	free(d->key);
	free(d->role);
	free(d->group);
	ie_cmds_free(d);
	free(d);
}

void idle_explain_free(struct idle_explain *x)
{
	if (!x)
		return;
	for (unsigned i = 0; i < x->ndevs; i++)
		dev_free(x->devs[i], x->nhosts);
	for (unsigned h = 0; h < x->nhosts; h++) {
		free(x->host[h].dev);
		free(x->host[h].name);
		json_decref(x->host[h].kept);
	}
	free(x->devs);
	free(x->addrs);
	free(x->host);
	free(x);
}

/* ------------------------------------------------------------------------------------- */
/* Clocks                                                                                  */

/* The common clock's c on host h's trace clock. */
static uint64_t from_common(const struct idle_explain *x, unsigned h, uint64_t c)
{
	int64_t r;
	uint64_t t = c;

	if (h && ie_clock_to_real(&x->host[0].clk, c, &r))
		ie_clock_from_real(&x->host[h].clk, r, &t);
	return t;
}

uint64_t idle_explain_alignment_ns(const struct idle_explain *x)
{
	uint64_t worst = 0;

	/* each mapping goes through two clock pairs: the host's and the first host's */
	for (unsigned h = 0; h < x->nhosts; h++) {
		const struct manifest *m = x->host[h].clk.m;
		json_t *clock = m ? json_object_get(m->root, "clock") : NULL;
		uint64_t u = 0;

		for (int k = 0; k < 2; k++) {
			json_t *p = json_object_get(clock, k ? "end" : "start");
			json_int_t v = json_integer_value(json_object_get(p, "uncertainty_ns"));

			if (v > 0 && (uint64_t)v > u)
				u = (uint64_t)v;
		}
		if (u > worst)
			worst = u;
	}
	return x->nhosts > 1 ? 2 * worst : worst;
}

/* ------------------------------------------------------------------------------------- */
/* Devices                                                                                 */

/* What the run's manifest says the device is: its key, role and group (copied). */
static void ie_dev_ident(const struct ie_host *hs, struct ie_dev *d)
{
	const struct manifest_dev *md =
	    manifest_dev_find(hs->ident, BLK_DEV_MAJOR(d->devno), BLK_DEV_MINOR(d->devno));

	free(d->key);
	free(d->role);
	free(d->group);
	d->key = md && md->key ? strdup(md->key) : NULL;
	d->role = md && md->role ? strdup(md->role) : NULL;
	d->group = md && md->group ? strdup(md->group) : NULL;
}

void idle_explain_set_manifest(struct idle_explain *x, unsigned h, const struct manifest *m)
{
	if (h >= x->nhosts)
		return;
	x->host[h].ident = m;
	if (m) {
		json_decref(x->host[h].kept);
		x->host[h].kept =
		    json_deep_copy(json_object_get(json_object_get(m->root, "network"), "kept"));
	}
	/* NULL only lets go of the manifest: what the devices took from it stays */
	for (unsigned i = 0; m && i < x->host[h].ndev; i++)
		if (x->host[h].dev[i])
			ie_dev_ident(&x->host[h], x->host[h].dev[i]);
}

void idle_explain_set_comms(struct idle_explain *x, unsigned h, const struct bt_comm_table *c)
{
	if (h < x->nhosts)
		x->host[h].comms = c;
}

/* Room for one more device: the table doubles, and every device's snap[] and tot[] (by global
 * index) with it, the new entries zero. 0 or -ENOMEM (what grew stays, cap_devs does not). */
static int grow_devs(struct idle_explain *x)
{
	unsigned n = x->cap_devs ? 2 * x->cap_devs : 8;
	struct ie_dev **p;

	if (x->ndevs < x->cap_devs)
		return 0;
	if (x->cap_devs > UINT_MAX / 2 || !(p = realloc(x->devs, n * sizeof(*p))))
		return -ENOMEM;
	x->devs = p;
	for (unsigned k = 0; k < x->ndevs; k++) {
		struct ie_dev *d = x->devs[k];
		struct blk_idle_act *sn = realloc(d->snap, n * sizeof(*sn));
		struct ie_other *t;

		if (!sn)
			return -ENOMEM;
		d->snap = sn;
		if (!(t = realloc(d->tot, n * sizeof(*t))))
			return -ENOMEM;
		d->tot = t;
		memset(sn + x->cap_devs, 0, (n - x->cap_devs) * sizeof(*sn));
		memset(t + x->cap_devs, 0, (n - x->cap_devs) * sizeof(*t));
	}
	x->cap_devs = n;
	return 0;
}

struct ie_dev *ie_dev_get(struct idle_explain *x, unsigned h, unsigned idx)
{
	struct ie_host *hs = &x->host[h];
	struct ie_dev *d;

	if (idx < hs->ndev && hs->dev[idx])
		return hs->dev[idx];
	if (x->ndevs == IE_MAX_DEVICES) {
		x->untracked++;
		return NULL;
	}
	if (grow_devs(x))
		return NULL;
	if (idx >= hs->ndev) {
		unsigned n = idx + 8;
		struct ie_dev **p = realloc(hs->dev, n * sizeof(*p));

		if (!p)
			return NULL;
		memset(p + hs->ndev, 0, (n - hs->ndev) * sizeof(*p));
		hs->dev = p;
		hs->ndev = n;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->snap = calloc(x->cap_devs, sizeof(*d->snap));
	d->tot = calloc(x->cap_devs, sizeof(*d->tot));
	d->heap = calloc(x->top ? x->top : 1, sizeof(*d->heap));
	if (!d->snap || !d->tot || !d->heap) {
		dev_free(d, 0);
		return NULL;
	}
	d->host = h;
	d->idx = idx;
	d->g = x->ndevs;
	d->devno = blk_analysis_device(hs->a, idx);
	d->snap_t = NONE;
	ie_dev_ident(hs, d);
	x->devs[x->ndevs++] = d;
	hs->dev[idx] = d;
	return d;
}

/* Every device every pass has seen, on the explainer's list (so that a snapshot has them). */
static void know_all(struct idle_explain *x)
{
	for (unsigned h = 0; h < x->nhosts; h++) {
		const struct blk_idle *s = x->host[h].idle;

		for (unsigned i = 0; i < s->ndev; i++)
			if (s->dev[i])
				ie_dev_get(x, h, i);
	}
}

/* What device o had done by common time c. */
static void activity(const struct idle_explain *x, const struct ie_dev *o, uint64_t c,
                     struct blk_idle_act *a)
{
	blk_idle_activity(x->host[o->host].idle, o->idx, from_common(x, o->host, c), a);
}

/* A device became idle at t (its host's clock): note what the others had done by then. */
static void on_idle(void *ctx, unsigned idx, uint64_t t)
{
	struct ie_host *hs = ctx;
	struct idle_explain *x = hs->x;
	struct ie_dev *d = ie_dev_get(x, hs->h, idx);
	uint64_t c;

	if (!d || !idle_explain_to_common(x, hs->h, t, &c))
		return;
	know_all(x);
	d->snap_t = t;
	d->snap_n = x->ndevs;
	for (unsigned k = 0; k < x->ndevs; k++)
		if (x->devs[k] != d)
			activity(x, x->devs[k], c, &d->snap[k]);
}

/* Top-N heap (common/topn.h) of the longest gaps: the root is the one the idle sink would
 * drop first (the shortest; of equal ones, the latest). */
static bool drops_first(const void *pa, const void *pb)
{
	const struct ie_gap *a = pa, *b = pb;
	uint64_t la = a->g.end - a->g.start, lb = b->g.end - b->g.start;

	return la < lb || (la == lb && a->g.start > b->g.start);
}

/* Keep gap g (with its others) among the longest, as the idle sink keeps its list. */
static void keep_longest(struct idle_explain *x, struct ie_dev *d, struct ie_gap *g)
{
	struct iot_topn top = {d->heap, sizeof(*d->heap), d->nheap, x->top};
	struct ie_gap out;
	uint64_t len = g->g.end - g->g.start;

	/* equal to the shortest kept: the sink keeps the earlier */
	if (!iot_topn_wants(&top, g, drops_first) ||
	    (d->nheap == x->top && len <= d->heap[0].g.end - d->heap[0].g.start)) {
		free(g->oth);
		return;
	}
	if (iot_topn_put(&top, g, &out, drops_first))
		free(out.oth);
	d->nheap = top.n;
}

static void keep_span(struct ie_dev *d, uint64_t cs, uint64_t ce, const struct blk_gap *bg)
{
	if (d->nall == d->cap_all) {
		size_t n = d->cap_all ? 2 * d->cap_all : 64;
		struct ie_span *p;

		if (d->nall == IE_MAX_GAPS || !(p = realloc(d->all, n * sizeof(*p)))) {
			d->all_dropped++;
			return;
		}
		d->all = p;
		d->cap_all = n;
	}
	d->all[d->nall++] = (struct ie_span){.cs = cs,
	                                     .ce = ce,
	                                     .end_pid = bg->pid,
	                                     .begin_pid = bg->before.pid,
	                                     .cmd = UINT32_MAX,
	                                     .by_issue = bg->ended_by == BLK_GAP_ISSUE,
	                                     .has_begin = bg->before.action && bg->before.has_pid};
}

/* The idle sink counted a gap of device idx: what the others did during it. */
static void on_gap(void *ctx, unsigned idx, const struct blk_gap *bg)
{
	struct ie_host *hs = ctx;
	struct idle_explain *x = hs->x;
	struct ie_dev *d = ie_dev_get(x, hs->h, idx);
	struct ie_gap g;
	bool snap;

	memset(&g, 0, sizeof(g));
	if (!d || !idle_explain_to_common(x, hs->h, bg->start, &g.cs) ||
	    !idle_explain_to_common(x, hs->h, bg->end, &g.ce))
		return;
	know_all(x);
	g.g = *bg;
	if (g.ce < g.cs)
		g.ce = g.cs;
	d->gaps++;
	d->gap_ns += bg->end - bg->start;
	keep_span(d, g.cs, g.ce, bg);
	/* the snapshot taken when this stretch began; none: it began with the trace, or before
	 * any other device existed, when all of them had done nothing */
	snap = d->snap_t == bg->start;
	g.n_oth = x->ndevs;
	g.oth = calloc(x->ndevs, sizeof(*g.oth));
	if (!g.oth)
		return;
	for (unsigned k = 0; k < x->ndevs; k++) {
		const struct ie_dev *o = x->devs[k];
		struct blk_idle_act now, then = {0};
		struct ie_other *r = &g.oth[k];

		if (o == d)
			continue;
		activity(x, o, g.ce, &now);
		if (snap && k < d->snap_n)
			then = d->snap[k];
		r->busy_ns = now.busy_ns > then.busy_ns ? now.busy_ns - then.busy_ns : 0;
		r->ios = now.ios - then.ios;
		r->bytes = now.bytes - then.bytes;
		r->inflight_start = then.inflight;
		r->inflight_end = now.inflight;
		d->tot[k].busy_ns += r->busy_ns;
		d->tot[k].ios += r->ios;
		d->tot[k].bytes += r->bytes;
		d->tot[k].gaps_busy += r->busy_ns > 0;
	}
	keep_longest(x, d, &g);
}

int idle_explain_add_host(struct idle_explain *x, struct blk_analysis *a, const char *name,
                          const struct ie_clock *clk)
{
	struct ie_host *hs;
	unsigned h = x->nhosts;

	if (h && !clk->m)
		return -EINVAL; /* hosts meet on the realtime clock: clock pairs needed */
	if (h == x->cap_hosts) {
		unsigned n = x->cap_hosts ? 2 * x->cap_hosts : 4;
		struct ie_host *p = h < UINT_MAX / 2 ? realloc(x->host, n * sizeof(*p)) : NULL;

		if (!p)
			return -ENOMEM;
		x->host = p;
		x->cap_hosts = n;
	}
	hs = &x->host[h];
	memset(hs, 0, sizeof(*hs));
	hs->x = x;
	hs->h = h;
	hs->a = a;
	hs->idle = blk_analysis_sink(a, &blk_idle_ops);
	hs->clk = *clk;
	if (name && !(hs->name = strdup(name)))
		return -ENOMEM;
	x->nhosts++;
	/* with several hosts, every idle start matters: the others are on other passes */
	for (unsigned k = 0; k < x->nhosts; k++) {
		blk_idle_on_idle(x->host[k].idle, on_idle, &x->host[k], x->nhosts > 1);
		blk_idle_on_gap(x->host[k].idle, on_gap, &x->host[k]);
	}
	return (int)h;
}

void idle_explain_set_clock(struct idle_explain *x, unsigned h, const struct ie_clock *clk)
{
	if (h < x->nhosts)
		x->host[h].clk = *clk;
}

static int by_start(const void *a, const void *b)
{
	const struct ie_gap *x = *(struct ie_gap *const *)a, *y = *(struct ie_gap *const *)b;

	return x->g.start < y->g.start ? -1 : x->g.start > y->g.start;
}

void idle_explain_block_done(struct idle_explain *x)
{
	if (x->block_done)
		return;
	x->block_done = true;
	know_all(x);
	for (unsigned k = 0; k < x->ndevs; k++) {
		struct ie_dev *d = x->devs[k];
		const struct blk_idle_dev *s = blk_idle_dev(x->host[d->host].idle, d->idx);
		unsigned n = s ? s->ntop : 0;

		d->top = calloc(n ? n : 1, sizeof(*d->top));
		d->timed = calloc(n ? n : 1, sizeof(*d->timed));
		if (!d->top || !d->timed)
			continue;
		/* the sink's list, each with the explanation kept for it */
		for (unsigned i = 0; i < n; i++) {
			for (unsigned j = 0; j < d->nheap; j++) {
				if (d->heap[j].g.start == s->top[i].start &&
				    d->heap[j].g.end == s->top[i].end) {
					d->top[d->ntop] = d->timed[d->ntop] = &d->heap[j];
					d->ntop++;
					break;
				}
			}
		}
		qsort(d->timed, d->ntop, sizeof(*d->timed), by_start);
		if (!x->host[d->host].comms)
			x->host[d->host].comms = blk_analysis_comms(x->host[d->host].a);
		ie_period_find(d, x->host[d->host].idle->o.idle_threshold_ns);
		ie_cmds_build(x, d, x->host[d->host].idle->o.idle_threshold_ns);
	}
	for (unsigned k = 0; k < x->ndevs; k++) {
		ie_causes(x, x->devs[k]);
	}
}

unsigned idle_explain_hosts(const struct idle_explain *x)
{
	return x->nhosts;
}

const char *idle_explain_host_name(const struct idle_explain *x, unsigned h)
{
	return h < x->nhosts ? x->host[h].name : NULL;
}

unsigned idle_explain_ndevs(const struct idle_explain *x)
{
	return x->ndevs;
}

const struct ie_dev *idle_explain_dev(const struct idle_explain *x, unsigned g)
{
	return g < x->ndevs ? x->devs[g] : NULL;
}

const struct ie_dev *idle_explain_find(const struct idle_explain *x, unsigned h, unsigned idx)
{
	return h < x->nhosts && idx < x->host[h].ndev ? x->host[h].dev[idx] : NULL;
}

int idle_explain_json(struct idle_explain *x, unsigned h, json_t *devices)
{
	idle_explain_block_done(x);
	return ie_json(x, h, devices);
}
