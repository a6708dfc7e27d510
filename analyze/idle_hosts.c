/* SPDX-License-Identifier: MIT */
/* Several hosts' block traces through their passes in the order of one clock. */
#include "analyze/idle_explain.h"

#include <errno.h>
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
		if ((ret = bt_reader_prefetch(rd[h], e)) ||
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
