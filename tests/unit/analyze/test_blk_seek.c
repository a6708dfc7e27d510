/* SPDX-License-Identifier: MIT */
/* Unit tests: seeks forward, backward, sequential, seekwatcher's 128 sectors, per device. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyze/blk_seek.h"
#include "test_blk_events.h"

static void test_distances(void **s)
{
	struct blk_event ev[] = {
	    EV_D(0, 1000, 8, R), /* first: no previous */
	    EV_D(1, 1008, 8, R), /* sequential */
	    EV_D(2, 1016, 8, W), /* sequential, direction does not matter */
	    EV_D(3, 1152, 8, R), /* forward 128: a seek, not seekwatcher's */
	    EV_D(4, 1289, 8, R), /* forward 129 */
	    EV_D(5, 0, 8, R),    /* backward 1297 */
	    EV_D(6, 500, 0, R),  /* a flush: no position, ignored */
	    EV_D(7, 0, 8, R),    /* backward 8 (re-read) */
	    EV_Q(8, 9999, 8, R), /* not an issue */
	};
	struct blk_seek *sk = blk_seek_new();
	const struct blk_seek_dev *d;
	static struct hist scratch;
	const struct hist *h;

	(void)s;
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		blk_seek_feed(sk, 0, &ev[i]);
	d = blk_seek_dev(sk, 0);
	assert_int_equal(d->transitions, 6);
	assert_int_equal(d->sequential, 2);
	assert_int_equal(d->seeks, 4);
	assert_int_equal(d->forward, 2);
	assert_int_equal(d->backward, 2);
	assert_int_equal(d->seekwatcher, 2);
	h = hist_few_view(&d->dist, &scratch);
	assert_int_equal(h->count, 4);
	assert_int_equal(h->min, 8);
	assert_int_equal(h->max, 1297);
	assert_int_equal((uint64_t)h->sum, 128 + 129 + 1297 + 8);
	blk_seek_free(sk);
}

static void test_two_devices_json(void **s)
{
	struct blk_event ev[] = {EV_D(0, 0, 8, R), EV_D(1, 800, 8, R), EV_D(2, 8, 8, R),
	                         EV_D(3, 808, 8, R)};
	struct blk_seek *sk = blk_seek_new();
	json_t *o = json_object(), *j;

	(void)s;
	for (size_t i = 0; i < 4; i++)
		blk_seek_feed(sk, (unsigned)(i & 1), &ev[i]);
	assert_int_equal(blk_seek_dev(sk, 0)->sequential, 1);
	assert_int_equal(blk_seek_dev(sk, 1)->sequential, 1);
	assert_int_equal(blk_seek_dev(sk, 0)->seeks, 0);
	blk_seek_feed(sk, 0, &ev[1]); /* device 0: 16 -> 800 */
	assert_int_equal(blk_seek_to_json(sk, 0, o, 2000000000ull), 0);
	j = json_object_get(o, "seeks");
	assert_int_equal(json_integer_value(json_object_get(j, "count")), 1);
	assert_true(json_real_value(json_object_get(j, "sequential_pct")) == 50.0);
	assert_true(json_real_value(json_object_get(j, "per_sec")) == 0.5);
	assert_int_equal(blk_seek_to_json(sk, 5, o, 0), 0); /* unknown device: zeros */
	json_decref(o);
	blk_seek_free(sk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_distances),
	    cmocka_unit_test(test_two_devices_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
