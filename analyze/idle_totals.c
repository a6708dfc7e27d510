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

int idle_explain_totals(const struct idle_explain *x, const struct ie_dev *d, struct ie_totals *t)
{
	memset(t, 0, sizeof(*t));
	t->gaps_ns = d->gap_ns;
	/* one more than needed: calloc(0) may be NULL */
	t->devs = calloc(x->ndevs + 1, sizeof(*t->devs));
	t->nfs = calloc(x->nhosts + 1, sizeof(*t->nfs));
	if (!t->devs || !t->nfs) {
		idle_totals_release(t);
		return -ENOMEM;
	}
	for (unsigned k = 0; k < x->ndevs; k++)
		if (x->devs[k] != d)
			t->devs[t->ndevs++] = ie_fig_other(x->devs[k], &d->tot[k], d->gap_ns);
	/* a host without packets: nothing made for it */
	for (unsigned h = 0; d->net_tot && h < x->nhosts; h++)
		if (x->host[h].have_capture)
			t->nfs[t->nnfs++] = ie_fig_nfs(h, &d->nfs_tot[h], d->gap_ns);
	return 0;
}

void idle_totals_release(struct ie_totals *t)
{
	free(t->devs);
	free(t->nfs);
	memset(t, 0, sizeof(*t));
}
