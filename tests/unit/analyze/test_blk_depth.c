/* SPDX-License-Identifier: MIT */
/* Unit tests: time-weighted queue depth, its maximum, requeues and unmatched completions. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyze/blk_depth.h"
#include "test_blk_events.h"

static void test_mean_max(void **s)
{
	/* depth: 0 on [0,10), 1 on [10,20), 2 on [20,30), 1 on [30,40) (requeue), 0 to 100 */
	const struct blk_event ev[] = {
	    EV_Q(0, 0, 8, R),   EV_D(10, 0, 8, R),  EV_D(20, 8, 8, W), EV_R(30, 8, 8, W),
	    EV_C(40, 0, 8, R),  EV_C(50, 99, 8, R), /* issued before the trace: stays 0 */
	    EV_Q(100, 0, 8, R),
	};
	struct blk_depth *q = blk_depth_new();
	const struct blk_depth_dev *d;

	(void)s;
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		blk_depth_feed(q, 0, &ev[i]);
	blk_depth_finish(q, 0, 100);
	d = blk_depth_dev(q, 0);
	assert_int_equal(d->max, 2);
	assert_int_equal(d->cur, 0);
	assert_int_equal(d->unmatched_c, 1);
	assert_true(d->area == 10 + 20 + 10);
	assert_true(blk_depth_mean(q, 0) == 0.4);
	assert_true(blk_depth_mean(q, 3) == 0.0);
	blk_depth_free(q);
}

/* Still in flight at the end: the depth counts up to the last event. */
static void test_open_at_end(void **s)
{
	const struct blk_event ev[] = {EV_D(0, 0, 8, R), EV_D(50, 8, 8, R), EV_Q(100, 0, 8, R)};
	struct blk_depth *q = blk_depth_new();
	json_t *o = json_object();

	(void)s;
	for (size_t i = 0; i < 3; i++)
		blk_depth_feed(q, 0, &ev[i]);
	blk_depth_finish(q, 0, 100);
	assert_true(blk_depth_mean(q, 0) == 1.5);
	assert_int_equal(blk_depth_to_json(q, 0, o), 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "depth"), "max")),
	                 2);
	json_decref(o);
	blk_depth_free(q);
}

/* An event with flags of its own (the flush category, no data). */
static struct blk_event ev_flags(unsigned act, uint64_t t, uint64_t sector, uint32_t sectors,
                                 uint32_t flags)
{
	struct blk_event e = ev_make(act, t, sector, sectors, R);

	e.flags = flags | BLK_F_FS;
	return e;
}

/*
 * btrfs's flushes (samples/btrfs): a write with a preflush and no data is queued (Q FWS), the
 * flush machinery issues a flush request of its own (D FN, C FN), then completes the queued
 * request without ever issuing it (C WS, no data); a FUA write's original completes the same
 * way after its postflush (C WSM, no data, a second C for its sector). Those completions end
 * no issue: they are counted apart and take nothing from the depth (here a read is in flight
 * meanwhile, from 0 to 100).
 */
static void test_flush_sequence(void **s)
{
	const uint32_t wfua = BLK_F_WRITE | BLK_F_SYNC | BLK_F_FUA;
	const struct blk_event ev[] = {
	    EV_D(0, 1000, 8, R),
	    ev_flags(BLK_A_QUEUE, 10, 0, 0, BLK_F_FLUSH | BLK_F_WRITE | BLK_F_SYNC),
	    ev_flags(BLK_A_ISSUE, 11, 0, 0, BLK_F_FLUSH),
	    ev_flags(BLK_A_COMPLETE, 20, 0, 0, BLK_F_FLUSH),
	    ev_flags(BLK_A_COMPLETE, 21, 0, 0, BLK_F_WRITE | BLK_F_SYNC),
	    ev_flags(BLK_A_ISSUE, 30, 128, 8, wfua),
	    ev_flags(BLK_A_COMPLETE, 40, 128, 8, wfua),
	    ev_flags(BLK_A_ISSUE, 41, 0, 0, BLK_F_FLUSH),
	    ev_flags(BLK_A_COMPLETE, 50, 0, 0, BLK_F_FLUSH),
	    ev_flags(BLK_A_COMPLETE, 51, 128, 0, wfua),
	    EV_C(100, 1000, 8, R),
	};
	struct blk_depth *q = blk_depth_new();
	const struct blk_depth_dev *d;
	json_t *o = json_object(), *j;

	(void)s;
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		blk_depth_feed(q, 0, &ev[i]);
	blk_depth_finish(q, 0, 100);
	d = blk_depth_dev(q, 0);
	assert_int_equal(d->unmatched_c, 0);
	assert_int_equal(d->flush_ends, 2);
	assert_int_equal(d->cur, 0);
	assert_int_equal(d->max, 2);
	/* the read all along, the flushes 9 + 9 ns, the FUA write 10 ns */
	assert_true(d->area == 100 + 9 + 10 + 9);
	assert_int_equal(blk_depth_to_json(q, 0, o), 0);
	j = json_object_get(o, "depth");
	assert_int_equal(json_integer_value(json_object_get(j, "unmatched_completions")), 0);
	assert_int_equal(json_integer_value(json_object_get(j, "flush_completions")), 2);
	json_decref(o);
	blk_depth_free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mean_max),
	    cmocka_unit_test(test_open_at_end),
	    cmocka_unit_test(test_flush_sequence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
