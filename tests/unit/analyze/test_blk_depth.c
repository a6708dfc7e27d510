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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mean_max),
	    cmocka_unit_test(test_open_at_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
