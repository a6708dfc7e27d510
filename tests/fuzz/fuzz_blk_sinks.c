/* SPDX-License-Identifier: MIT */
/* libFuzzer target: analyze's block sinks and the report's consumers over decoded events. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analyze/blk_analysis.h"
#include "report/report_grid.h"
#include "report/report_html.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The readers hand the sinks events in any order and with any values a file holds (times
 * that go back or leap to near 2^64, sectors anywhere, unknown actions): 16 bytes make one
 * event, with the values that broke the report pass (time and sector near 2^64) easy to reach.
 */
#define EV_BYTES 16u
#define MAX_EVENTS 4096u

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static const uint32_t flag_bits[8] = {BLK_F_READ, BLK_F_WRITE,   BLK_F_FLUSH,        BLK_F_FUA,
                                      BLK_F_SYNC, BLK_F_DISCARD, BLK_F_WRITE_ZEROES, BLK_F_PC};

static size_t decode(const uint8_t *data, size_t size, struct blk_event *ev)
{
	uint64_t t = 1000000;
	uint32_t seq[4] = {0};
	size_t n = 0;

	for (size_t off = 0; off + EV_BYTES <= size && n < MAX_EVENTS; off += EV_BYTES, n++) {
		const uint8_t *p = data + off;
		struct blk_event *e = &ev[n];
		uint32_t dt = rd32(p + 4), sec = rd32(p + 8);
		unsigned mode = p[15];

		memset(e, 0, sizeof(*e));
		/* time: forward by dt, or back, or to near 2^64 */
		if ((mode & 3) == 3)
			t = UINT64_MAX - dt;
		else if ((mode & 3) == 2)
			t = t > dt ? t - dt : 0;
		else
			t += (uint64_t)dt << ((mode & 3) ? 12 : 0);
		e->time = t;
		e->sector = (mode & 4) ? UINT64_MAX - sec : (mode & 8) ? (uint64_t)sec << 24 : sec;
		e->action = p[0] % BLK_A_MAX;
		e->flags = BLK_F_FS;
		for (unsigned b = 0; b < 8; b++)
			if (p[1] >> b & 1)
				e->flags |= flag_bits[b];
		if (e->flags & BLK_F_PC)
			e->flags &= ~BLK_F_FS;
		if (p[0] >= 250) { /* a notify: the pass skips it, the span does not count it */
			e->flags = BLK_F_NOTIFY;
			e->action = BLK_N_PROCESS;
		}
		/* a few devices (each costs the sinks' per-device state), majors at both ends */
		e->dev = BLK_MKDEV((p[2] & 0x80) ? 4095 : 8, p[2] & 1);
		e->cpu = p[3] & 3;
		e->pid = 100 + (p[3] >> 2);
		e->seq = seq[e->cpu] += 1 + (mode >> 7); /* a skip now and then */
		e->bytes = (mode & 16) ? rd32(p + 12) : (uint32_t)(p[12] | p[13] << 8) * 512u;
		e->error = (mode & 32) ? p[14] : 0;
	}
	return n;
}

static void opts(struct blk_opts *o, const uint8_t *data, size_t size)
{
	blk_opts_init(o);
	if (!size)
		return;
	/* small limits, so widening, eviction and the gap list are reached */
	o->interval_ns = 1ull << (data[0] & 31);
	o->idle_threshold_ns = (uint64_t)(data[0] >> 5) * 1000000;
	o->max_bins = 4 + (data[0] & 7);
	o->max_inflight = 8;
	o->top = 3;
	o->lat_bins_devices = 2;
}

static json_t *run(const struct blk_event *ev, size_t n, const struct blk_opts *o, int split,
                   int report)
{
	struct blk_analysis *a;
	json_t *root;

	if (blk_analysis_new(&a, o))
		return NULL;
	if (report && !blk_analysis_add_sink(a, &rpt_grid_ops)) {
		blk_analysis_free(a);
		return NULL;
	}
	if (split)
		blk_analysis_split(a);
	/* batches of uneven sizes, as the reader hands them out */
	for (size_t i = 0; i < n;) {
		unsigned k = (unsigned)(n - i < 7 ? n - i : 7);

		if (split)
			blk_analysis_feed_side(a, ev + i, k);
		blk_analysis_feed_batch(a, ev + i, k);
		i += k;
	}
	blk_analysis_finish(a);
	root = json_object();
	if (root && blk_analysis_to_json(a, root, 1)) {
		json_decref(root);
		root = NULL;
	}
	if (root && report) {
		/* the report's points, at the timeline's width and a coarser one */
		for (unsigned d = 0; d < blk_analysis_ndevices(a) && d < 2; d++)
			for (unsigned w = 0; w < 2; w++) {
				struct report_points p;

				if (!report_points_make(a, d, w ? UINT64_MAX / 2 : 1, 0, &p))
					report_points_release(&p);
			}
		for (unsigned d = 0; d < blk_analysis_ndevices(a); d++)
			(void)rpt_grid_dev(blk_analysis_sink(a, &rpt_grid_ops), d);
	}
	blk_analysis_free(a);
	return root;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct blk_event *ev = malloc(MAX_EVENTS * sizeof(*ev));
	struct blk_opts o;
	json_t *one, *two;
	size_t n;

	if (!ev || !size) {
		free(ev);
		return 0;
	}
	opts(&o, data, size);
	n = decode(data + 1, size - 1, ev);
	one = run(ev, n, &o, 0, 1);
	two = run(ev, n, &o, 1, 0);
	/* the pass split over two threads gives what the single pass gives */
	if (one && two && !json_equal(one, two))
		abort();
	json_decref(one);
	json_decref(two);
	free(ev);
	return 0;
}
