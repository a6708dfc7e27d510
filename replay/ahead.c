/* SPDX-License-Identifier: MIT */
/* The block replay's trace, read in batches, and the look ahead in them for an IO's C. */
#include <string.h>

#include "replay/sched.h"

/* The source's next events into [cur, end): a batch, or one event. 1, 0 at the end, -errno. */
int rp_fetch(struct rp *r)
{
	const struct rp_source *src = r->src;
	unsigned n = 0;
	int ret;

	if (r->src_end <= 0)
		return r->src_end;
	if (src->batch) {
		ret = src->batch(src->arg, &r->cur, &n, r->e);
	} else {
		ret = src->next(src->arg, &r->one, r->e);
		r->cur = &r->one;
		n = 1;
	}
	if (ret <= 0) {
		r->src_end = ret;
		r->cur = r->end = NULL;
		return ret;
	}
	r->end = r->cur + n;
	return 1;
}

/* Whether the trace completes the IO at window entry pend (-1: the trace IO at dev and sector,
 * were it the window's only live entry) before it issues another: the next IO then waits for
 * this one (the dependency rule), which may as well be done in this thread. Reads ahead in the
 * source's batch; past its end, the rest of it is kept (at most RP_AHEAD events, else: not
 * dependent) and the next batch looked at. */
bool rp_dependent(struct rp *r, long pend, uint32_t dev, uint64_t sector)
{
	unsigned want = r->o->from == RP_FROM_QUEUE ? BLK_A_QUEUE : BLK_A_ISSUE;
	unsigned i = r->ahead_pos;
	const struct blk_event *p = r->cur;

	for (;;) {
		const struct blk_event *ev;

		if (i < r->ahead_n) {
			ev = &r->ahead_ev[i++];
		} else if (p < r->end) {
			ev = p++;
		} else {
			size_t rest = (size_t)(r->end - r->cur);

			if (r->src_end <= 0)
				return false;
			if (r->ahead_pos) {
				r->ahead_n -= r->ahead_pos;
				memmove(r->ahead_ev, r->ahead_ev + r->ahead_pos,
				        r->ahead_n * sizeof(*r->ahead_ev));
				r->ahead_pos = 0;
			}
			if (r->ahead_n + rest > RP_AHEAD)
				return false;
			for (size_t k = 0; k < rest; k++) {
				r->ahead_ev[r->ahead_n + k] = r->cur[k];
				r->ahead_ev[r->ahead_n + k].pdu = NULL; /* the batch's, not kept */
				r->ahead_ev[r->ahead_n + k].pdu_len = 0;
			}
			r->ahead_n += (unsigned)rest;
			i = r->ahead_n;
			r->cur = r->end;
			if (rp_fetch(r) <= 0)
				return false;
			p = r->cur;
			continue;
		}
		if (blk_is_notify(ev))
			continue;
		if (ev->action == want)
			return false;
		if (ev->action == BLK_A_COMPLETE &&
		    (pend < 0 ? rp_pend_lone_completes(r, dev, sector, ev)
		              : rp_pend_completes(r, pend, ev)))
			return true;
	}
}
