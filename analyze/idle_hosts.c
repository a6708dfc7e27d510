/* SPDX-License-Identifier: MIT */
/* Several hosts' block traces through their passes in the order of one clock. */
#include "analyze/idle_explain.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* One host's reader: its current batch and the next event's time on the common clock. */
struct head {
	const struct blk_event *ev;
	unsigned n, i;
	uint64_t c;
	bool done;
};

static uint64_t common(const struct idle_explain *x, unsigned h, uint64_t t)
{
	uint64_t c;

	return idle_explain_to_common(x, h, t, &c) ? c : t;
}

/* The host's next batch; at its end, the host's pass finishes there and then, so that its
 * last gap (ended by the end of its trace) sees the other hosts as they were at that time. */
static int next_batch(struct idle_explain *x, unsigned h, struct bt_reader *rd, struct head *hd,
                      struct iot_err *e)
{
	int ret = bt_reader_next_batch(rd, &hd->ev, &hd->n, e);

	hd->i = 0;
	hd->done = ret <= 0;
	if (ret > 0) {
		hd->c = common(x, h, hd->ev[0].time);
		return 0;
	}
	blk_analysis_set_comms(x->host[h].a, bt_reader_comms(rd));
	blk_analysis_finish(x->host[h].a);
	return ret;
}

int idle_explain_read(struct idle_explain *x, struct bt_reader **rd, struct iot_err *e,
                      unsigned *bad)
{
	unsigned n = x->nhosts;
	struct head *hd = calloc(n ? n : 1, sizeof(*hd));
	int ret = 0;

	if (!hd)
		return iot_err_set(e, -ENOMEM, "out of memory");
	for (unsigned h = 0; h < n && !ret; h++)
		if (!rd[h]) { /* a host without a block trace (its packets alone): no events */
			hd[h].done = true;
			blk_analysis_finish(x->host[h].a);
		} else if ((ret = bt_reader_prefetch(rd[h], e)) ||
		           (ret = next_batch(x, h, rd[h], &hd[h], e)))
			*bad = h;
	while (!ret) {
		unsigned k = n, lh = n, run;

		/* the host with the earliest next event (equal times: the first host given) */
		for (unsigned h = 0; h < n; h++)
			if (!hd[h].done && (k == n || hd[h].c < hd[k].c))
				k = h;
		if (k == n)
			break;
		for (unsigned h = 0; h < n; h++)
			if (h != k && !hd[h].done && (lh == n || hd[h].c < hd[lh].c))
				lh = h;
		/* its events up to the next host's head, in one call to its pass */
		for (run = hd[k].i + 1; run < hd[k].n; run++) {
			uint64_t c = common(x, k, hd[k].ev[run].time);

			if (lh < n && (c > hd[lh].c || (c == hd[lh].c && lh < k)))
				break;
		}
		blk_analysis_feed_batch(x->host[k].a, hd[k].ev + hd[k].i, run - hd[k].i);
		hd[k].i = run;
		if (hd[k].i == hd[k].n) {
			if ((ret = next_batch(x, k, rd[k], &hd[k], e)))
				*bad = k;
		} else {
			hd[k].c = common(x, k, hd[k].ev[hd[k].i].time);
		}
	}
	/* after an error, the passes hold what came before it */
	for (unsigned h = 0; h < n; h++)
		if (!hd[h].done) {
			blk_analysis_set_comms(x->host[h].a, bt_reader_comms(rd[h]));
			blk_analysis_finish(x->host[h].a);
		}
	free(hd);
	return ret;
}

bool idle_explain_hosts_together(const struct idle_explain *x, char *msg, size_t len)
{
	uint64_t lo = UINT64_MAX, hi = 0, longest = 0, late_start = 0, early_end = UINT64_MAX;
	unsigned first = 0, last = 0;

	if (x->nhosts < 2)
		return true;
	for (unsigned h = 0; h < x->nhosts; h++) {
		uint64_t s = blk_analysis_start(x->host[h].a), f = blk_analysis_end(x->host[h].a);
		uint64_t cs, cf;

		if (f <= s || !idle_explain_to_common(x, h, s, &cs) ||
		    !idle_explain_to_common(x, h, f, &cf))
			continue;
		lo = cs < lo ? cs : lo;
		hi = cf > hi ? cf : hi;
		longest = cf - cs > longest ? cf - cs : longest;
		if (cs > late_start)
			late_start = cs, last = h;
		if (cf < early_end)
			early_end = cf, first = h;
	}
	if (!longest || (late_start < early_end && hi - lo <= IE_APART_FACTOR * longest))
		return true;
	snprintf(msg, len,
	         "--hosts: the traces span %.3f s on the common clock, %.0f times the longest "
	         "(%.3f s)%s%s%s%s%s: were they captured together? Idle gaps are explained by what "
	         "the other hosts did at the same moment, which only runs traced at once can say",
	         (double)(hi - lo) / 1e9, (double)(hi - lo) / (double)longest,
	         (double)longest / 1e9, late_start >= early_end ? "; " : "",
	         late_start >= early_end && x->host[first].name ? x->host[first].name : "",
	         late_start >= early_end ? " ends before " : "",
	         late_start >= early_end && x->host[last].name ? x->host[last].name : "",
	         late_start >= early_end ? " starts" : "");
	return false;
}
