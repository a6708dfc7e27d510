/* SPDX-License-Identifier: MIT */
/* A device's gaps explained in total, as figures: the JSON and the text are written from them. */
#include "analyze/idle_explain.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/blk_sink.h"

struct ie_fig_other ie_fig_other(const struct ie_dev *o, const struct ie_other *r, uint64_t len)
{
	return (struct ie_fig_other){.dev = o,
	                             .busy_ns = r->busy_ns,
	                             .busy_pct = blk_pct(r->busy_ns, len),
	                             .ios = r->ios,
	                             .bytes = r->bytes,
	                             .gaps_busy = r->gaps_busy};
}

struct ie_fig_nfs ie_fig_nfs(unsigned h, const struct ie_nfs *n, uint64_t len)
{
	return (struct ie_fig_nfs){.host = h,
	                           .busy_ns = n->busy_ns,
	                           .busy_pct = blk_pct(n->busy_ns, len),
	                           .outstanding_mean = len ? n->area / (double)len : 0.0,
	                           .max = n->max,
	                           .arrivals = n->arrivals};
}

static int flow_dir(const struct ie_host *hs, const struct ie_flow *f)
{
	int src = ie_is_local(hs, &f->src.addr), dst = ie_is_local(hs, &f->dst.addr);

	if (!hs->nlocal)
		return IE_DIR_UNKNOWN;
	return src && dst ? IE_DIR_LOCAL : src ? IE_DIR_OUT : dst ? IE_DIR_IN : IE_DIR_OTHER;
}

static int by_bytes(const void *a, const void *b)
{
	const struct ie_flow *x = *(struct ie_flow *const *)a, *y = *(struct ie_flow *const *)b;

	return x->bytes > y->bytes ? -1 : x->bytes < y->bytes;
}

void ie_fig_net(const struct idle_explain *x, unsigned h, const struct ie_net *n, uint64_t len,
                struct ie_fig_net *o)
{
	const struct ie_host *hs = &x->host[h];
	/* out of memory: the flows not listed (their packets still counted) */
	const struct ie_flow **v = calloc(n->flows.n + 1, sizeof(*v));
	unsigned nv = 0;

	memset(o, 0, sizeof(*o));
	o->host = h;
	o->packets = n->packets;
	o->bytes = n->bytes;
	o->frames_other = n->frames_other;
	o->mb_per_s = len ? (double)n->bytes * 1e3 / (double)len : 0.0;
	o->mapped = hs->cap_mapped;
	o->kept = hs->kept;
	for (unsigned i = 0; i < n->flows.cap; i++) {
		const struct ie_flow *f = &n->flows.f[i];
		int d;

		if (!f->used)
			continue;
		d = flow_dir(hs, f);
		o->dir_packets[d] += f->packets;
		o->dir_bytes[d] += f->bytes;
		if (v)
			v[nv++] = f;
	}
	o->dir_packets[IE_DIR_UNKNOWN] += n->flows.over_packets;
	o->dir_bytes[IE_DIR_UNKNOWN] += n->flows.over_bytes;
	if (v)
		qsort(v, nv, sizeof(*v), by_bytes);
	for (unsigned i = 0; i < nv && i < IE_FLOWS; i++) {
		o->flows[i] = v[i];
		o->flow_dir[i] = (uint8_t)flow_dir(hs, v[i]);
		o->nflows++;
	}
	free(v);
}

static int by_began(const void *a, const void *b)
{
	const struct ie_cmd *x = *(const struct ie_cmd *const *)a;
	const struct ie_cmd *y = *(const struct ie_cmd *const *)b;

	if (x->began_ns != y->began_ns)
		return x->began_ns > y->began_ns ? -1 : 1;
	return strcmp(x->comm, y->comm);
}

/* The gaps by the command that ended them (with its periodicity) or began them, most idle
 * time first; at most IE_CMDS listed, the rest summed as "(others)". 0 or -ENOMEM. */
static int cmds(const struct ie_dev *d, bool ended, struct ie_fig_cmd **out, unsigned *nout)
{
	const struct ie_cmd **v = calloc(d->ncmds + 1, sizeof(*v));
	struct ie_fig_cmd *r = calloc(IE_CMDS + 1, sizeof(*r));
	unsigned n = 0, nr = 0;

	*out = r;
	*nout = 0;
	if (!v || !r) {
		free(v);
		return -ENOMEM;
	}
	for (unsigned k = 0; k < d->ncmds; k++)
		if (ended ? d->cmds[k].ended : d->cmds[k].began)
			v[n++] = &d->cmds[k];
	if (!ended)
		qsort(v, n, sizeof(*v), by_began);
	for (unsigned k = 0; k < n; k++) {
		const struct ie_cmd *c = v[k];
		uint64_t gaps = ended ? c->ended : c->began, ns = ended ? c->ended_ns : c->began_ns;

		if (k < IE_CMDS) {
			r[nr++] = (struct ie_fig_cmd){.comm = c->comm,
			                              .process = c->process,
			                              .gaps = gaps,
			                              .total_ns = ns,
			                              .per = ended ? &c->per : NULL};
			continue;
		}
		r[nr].comm = "(others)";
		r[nr].gaps += gaps;
		r[nr].total_ns += ns;
		r[nr].commands++;
	}
	if (n > IE_CMDS)
		nr++;
	for (unsigned k = 0; k < nr; k++)
		r[k].pct = blk_pct(r[k].total_ns, d->gap_ns);
	*nout = nr;
	free(v);
	return 0;
}

int idle_explain_totals(const struct idle_explain *x, const struct ie_dev *d, struct ie_totals *t)
{
	memset(t, 0, sizeof(*t));
	t->gaps_ns = d->gap_ns;
	t->per = &d->per;
	t->cause_gaps = d->cause_gaps;
	/* one more than needed: calloc(0) may be NULL */
	t->devs = calloc(x->ndevs + 1, sizeof(*t->devs));
	t->nfs = calloc(x->nhosts + 1, sizeof(*t->nfs));
	t->net = calloc(x->nhosts + 1, sizeof(*t->net));
	if (!t->devs || !t->nfs || !t->net || cmds(d, true, &t->ended, &t->nended) ||
	    cmds(d, false, &t->began, &t->nbegan)) {
		idle_totals_release(t);
		return -ENOMEM;
	}
	for (unsigned k = 0; k < x->ndevs; k++)
		if (x->devs[k] != d)
			t->devs[t->ndevs++] = ie_fig_other(x->devs[k], &d->tot[k], d->gap_ns);
	/* a host without packets: nothing made for it */
	for (unsigned h = 0; d->net_tot && h < x->nhosts; h++) {
		if (!x->host[h].have_capture)
			continue;
		ie_fig_net(x, h, &d->net_tot[h], d->gap_ns, &t->net[t->nnfs]);
		t->nfs[t->nnfs++] = ie_fig_nfs(h, &d->nfs_tot[h], d->gap_ns);
	}
	return 0;
}

void idle_totals_release(struct ie_totals *t)
{
	free(t->devs);
	free(t->nfs);
	free(t->net);
	free(t->ended);
	free(t->began);
	memset(t, 0, sizeof(*t));
}
