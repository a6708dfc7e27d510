/* SPDX-License-Identifier: MIT */
/* Unit tests: a device's figures from a pass, each from its sink, against hand-counted values. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>

#include "analyze/blk_analysis.h"
#include "analyze/blk_figures.h"
#include "test_blk_events.h"

/*
 * 8,16 comes first (dense index 0) but sorts after 8,0 (position 0 of "devices"): a figure
 * taken at the wrong index is the other device's. Each distribution has its own count, min
 * and max, so one read from its neighbour's field shows.
 */
static struct blk_analysis *pass(void)
{
	struct blk_event ev[] = {
	    EV_Q(500, 0, 8, R),         EV_D(600, 0, 8, R),         /* 8,16 */
	    EV_C(1600, 0, 8, R),        EV_Q(1000, 0, 8, W),        /* 8,16; 8,0 */
	    EV_D(1100, 0, 8, W),        EV_C(2100, 0, 8, W),        /* 8,0 ... */
	    EV_Q(29999000, 8, 8, W),    EV_D(30000000, 8, 8, W),    /* after a 30 ms gap */
	    EV_C(30000500, 8, 8, W),    EV_Q(30001000, 100, 16, R), /* a seek forward */
	    EV_D(30001100, 100, 16, R), EV_C(30002100, 100, 16, R),
	};
	struct blk_analysis *a;
	struct blk_opts o;

	ev[0].dev = ev[1].dev = ev[2].dev = BLK_MKDEV(8, 16);
	/* in time order: 8,16's completion at 1600 after 8,0's Q and D */
	{
		struct blk_event c = ev[2];

		ev[2] = ev[3];
		ev[3] = ev[4];
		ev[4] = c;
	}
	blk_opts_init(&o);
	assert_int_equal(blk_analysis_new(&a, &o), 0);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		blk_analysis_feed(a, &ev[i]);
	blk_analysis_finish(a);
	return a;
}

#define SPAN (30002100.0 - 500.0)

static void test_device_by_position(void **s)
{
	struct blk_analysis *a = pass();
	struct blk_figures f;
	const struct blk_fig_gap *g;

	(void)s;
	assert_int_equal(blk_figures_from_analysis(&f, a, 0), 0);
	assert_int_equal(f.dev, BLK_MKDEV(8, 0));
	/* counts */
	assert_int_equal(f.events, 9);
	assert_int_equal(f.reads.ios, 1);
	assert_int_equal(f.reads.bytes, 8192);
	assert_int_equal(f.writes.ios, 2);
	assert_int_equal(f.writes.bytes, 8192);
	assert_int_equal(f.data_writes.ios, 2);
	assert_int_equal(f.discards.ios, 0);
	assert_int_equal(f.flushes, 0);
	assert_int_equal(f.act[BLK_A_QUEUE][0], 1);
	assert_int_equal(f.act[BLK_A_QUEUE][1], 2);
	assert_int_equal(f.act[BLK_A_ISSUE][1], 2);
	/* latency: Q2D 100, 1000, 100; D2C 1000, 500, 1000; Q2C 1100, 1500, 1100 */
	assert_int_equal(f.lat[BLK_LAT_Q2D].count, 3);
	assert_int_equal(f.lat[BLK_LAT_Q2D].min, 100);
	assert_int_equal(f.lat[BLK_LAT_Q2D].max, 1000);
	assert_true(f.lat[BLK_LAT_Q2D].mean == 1200.0 / 3);
	assert_int_equal(f.lat[BLK_LAT_D2C].min, 500);
	assert_int_equal(f.lat[BLK_LAT_D2C].max, 1000);
	assert_true(f.lat[BLK_LAT_D2C].mean == 2500.0 / 3);
	assert_int_equal(f.lat[BLK_LAT_Q2C].min, 1100);
	assert_int_equal(f.lat[BLK_LAT_Q2C].max, 1500);
	assert_true(f.lat[BLK_LAT_Q2C].p50 >= 1100 && f.lat[BLK_LAT_Q2C].p50 <= 1500);
	assert_int_equal(f.lat[BLK_LAT_D2C_REQ].count, 3);
	assert_int_equal(f.lat[BLK_LAT_Q2M].count, 0);
	assert_int_equal(f.unmatched_completions, 0);
	/* depth: one request at a time, 2500 ns in all */
	assert_int_equal(f.depth_max, 1);
	assert_true(f.depth_mean == 2500.0 / SPAN);
	assert_int_equal(f.flush_completions, 0);
	/* idle: 2100 to 30000000, a write queued 1000 ns before the issue that ended it */
	assert_int_equal(f.idle_threshold_ns, BLK_DEFAULT_IDLE_NS);
	assert_int_equal(f.idle_gaps, 1);
	assert_int_equal(f.idle_total_ns, 30000000 - 2100);
	assert_true(f.idle_pct == 100.0 * (30000000 - 2100) / SPAN);
	assert_int_equal(f.ngaps, 1);
	g = &f.gaps[0];
	assert_int_equal(g->start_ns, 2100);
	assert_int_equal(g->end_ns, 30000000);
	assert_true(g->queued);
	assert_int_equal(g->queued_ns, 1000);
	assert_false(g->ended_by_end);
	assert_true(g->before.present && g->before.has_pid);
	assert_string_equal(g->before.rwbs, "W");
	assert_int_equal(g->before.bytes, 4096);
	assert_int_equal(g->before.pid, 100);
	assert_null(g->before.comm); /* no names given to the pass */
	assert_true(g->after.present);
	assert_int_equal(g->after.bytes, 4096);
	/* seeks: 0 -> 8 sequential, 16 -> 100 forward by 84 sectors (not seekwatcher's) */
	assert_int_equal(f.seq_transitions, 2);
	assert_int_equal(f.sequential, 1);
	assert_int_equal(f.seeks, 1);
	assert_int_equal(f.forward, 1);
	assert_int_equal(f.backward, 0);
	assert_int_equal(f.seekwatcher, 0);
	assert_true(f.sequential_pct == 50.0);
	assert_true(f.seeks_per_sec == 1e9 / SPAN);
	blk_figures_release(&f);
	blk_analysis_free(a);
}

static void test_second_device_and_end(void **s)
{
	struct blk_analysis *a = pass();
	struct blk_figures f;

	(void)s;
	assert_int_equal(blk_figures_from_analysis(&f, a, 1), 0);
	assert_int_equal(f.dev, BLK_MKDEV(8, 16));
	assert_int_equal(f.events, 3);
	assert_int_equal(f.reads.ios, 1);
	assert_int_equal(f.reads.bytes, 4096);
	assert_int_equal(f.writes.ios, 0);
	assert_int_equal(f.lat[BLK_LAT_Q2C].count, 1);
	assert_int_equal(f.lat[BLK_LAT_Q2C].min, 1100);
	/* idle from its completion to the trace's end */
	assert_int_equal(f.idle_gaps, 1);
	assert_int_equal(f.ngaps, 1);
	assert_int_equal(f.gaps[0].start_ns, 1600);
	assert_int_equal(f.gaps[0].end_ns, 30002100);
	assert_true(f.gaps[0].ended_by_end);
	assert_false(f.gaps[0].after.present);
	assert_string_equal(f.gaps[0].before.rwbs, "R");
	assert_int_equal(f.seeks, 0);
	blk_figures_release(&f);
	/* no third device */
	assert_int_equal(blk_figures_from_analysis(&f, a, 2), -ENOENT);
	blk_figures_release(&f);
	assert_int_equal(blk_analysis_sorted(a, 0), 1);
	assert_int_equal(blk_analysis_sorted(a, 1), 0);
	assert_int_equal(blk_analysis_sorted(a, 2), UINT_MAX);
	blk_analysis_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_device_by_position),
	    cmocka_unit_test(test_second_device_and_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
