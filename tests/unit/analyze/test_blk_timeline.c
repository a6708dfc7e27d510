/* SPDX-License-Identifier: MIT */
/* Unit tests: timeline bins (bytes, IOPS, seeks, depth, idle) and the interval widening. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyze/blk_timeline.h"
#include "test_blk_events.h"

static struct blk_timeline *run(unsigned max_bins)
{
	const struct blk_event evs[] = {
	    EV_D(0, 0, 8, R),    EV_C(25, 0, 8, R),   /* depth 1 on [0,25); idle [25,30) */
	    EV_D(30, 100, 8, W), EV_C(42, 100, 8, W), /* a seek at 30; idle [42,60) */
	    EV_Q(60, 200, 8, R),
	};
	struct blk_opts o;
	struct blk_timeline *t;

	blk_opts_init(&o);
	o.interval_ns = 10;
	o.idle_threshold_ns = 5;
	o.max_bins = max_bins;
	t = blk_timeline_new(&o);
	assert_non_null(t);
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++)
		blk_timeline_feed(t, 0, &evs[i]);
	blk_timeline_finish(t, 0, 60);
	return t;
}

static void test_bins(void **s)
{
	struct blk_timeline *t = run(0);
	struct blk_bin b;

	(void)s;
	assert_int_equal(blk_timeline_interval(t), 10);
	assert_int_equal(blk_timeline_widened(t), 0);
	assert_int_equal(blk_timeline_nbins(t), 7);
	b = blk_timeline_bin(t, 0, 0);
	assert_int_equal(b.depth_area, 10);
	assert_int_equal(b.idle_ns, 0);
	b = blk_timeline_bin(t, 0, 2);
	assert_int_equal(b.depth_area, 5);
	assert_int_equal(b.ios, 1);
	assert_int_equal(b.read_bytes, 4096);
	assert_int_equal(b.idle_ns, 5);
	b = blk_timeline_bin(t, 0, 3);
	assert_int_equal(b.seeks, 1);
	assert_int_equal(b.depth_area, 10);
	b = blk_timeline_bin(t, 0, 4);
	assert_int_equal(b.write_bytes, 4096);
	assert_int_equal(b.depth_area, 2);
	assert_int_equal(b.idle_ns, 8);
	assert_int_equal(blk_timeline_bin(t, 0, 5).idle_ns, 10);
	assert_int_equal(blk_timeline_bin(t, 0, 6).idle_ns, 0);
	assert_int_equal(blk_timeline_bin(t, 3, 0).ios, 0); /* unknown device */
	blk_timeline_free(t);
}

/* With room for 4 bins the interval doubles to 20: the sums do not change. */
static void test_widen(void **s)
{
	struct blk_timeline *t = run(4);
	uint64_t idle = 0, depth = 0, ios = 0;

	(void)s;
	assert_int_equal(blk_timeline_interval(t), 20);
	assert_int_equal(blk_timeline_widened(t), 1);
	assert_int_equal(blk_timeline_nbins(t), 4);
	for (uint64_t k = 0; k < 4; k++) {
		struct blk_bin b = blk_timeline_bin(t, 0, k);

		idle += b.idle_ns;
		depth += b.depth_area;
		ios += b.ios;
	}
	assert_int_equal(idle, 5 + 18);
	assert_int_equal(depth, 25 + 12);
	assert_int_equal(ios, 2);
	assert_int_equal(blk_timeline_bin(t, 0, 1).seeks, 1);
	assert_int_equal(blk_timeline_bin(t, 0, 1).idle_ns, 5);
	blk_timeline_free(t);
}

static void test_json(void **s)
{
	struct blk_timeline *t = run(0);
	json_t *o = json_object(), *arr, *b;

	(void)s;
	assert_int_equal(blk_timeline_to_json(t, 0, o), 0);
	arr = json_object_get(o, "timeline");
	assert_int_equal(json_array_size(arr), 7);
	b = json_array_get(arr, 2);
	assert_int_equal(json_integer_value(json_object_get(b, "start_ns")), 20);
	assert_true(json_real_value(json_object_get(b, "iops")) == 1e8);
	assert_true(json_real_value(json_object_get(b, "read_mbps")) == 409600.0);
	assert_true(json_real_value(json_object_get(b, "idle_frac")) == 0.5);
	assert_true(json_real_value(json_object_get(b, "depth")) == 0.5);
	json_decref(o);
	blk_timeline_free(t);
}

/* One pseudo-random trace of three devices, issues and completions at uneven times. */
static void feed_random(struct blk_timeline *t, int slow_only, uint64_t *end)
{
	uint64_t x = 88172645463325252ull, ts = 0;
	unsigned inflight[3] = {0};

	for (unsigned i = 0; i < 20000; i++) {
		struct blk_event e;
		unsigned dev, act;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		dev = (unsigned)(x % 3);
		/* mostly small steps, sometimes a long pause (idle gaps, many bins at once) */
		ts += (x >> 8) % 16 == 0 ? (x >> 12) % 5000 : (x >> 12) % 7;
		act = inflight[dev] && (x >> 20) % 2
		          ? ((x >> 21) % 9 ? BLK_A_COMPLETE : BLK_A_REQUEUE)
		          : BLK_A_ISSUE;
		if (act == BLK_A_ISSUE)
			inflight[dev]++;
		else
			inflight[dev]--;
		e = ev_make(act, ts, (x >> 24) % 4 ? (x >> 30) % 64 * 8 : 0, (x >> 36) % 3 * 8,
		            (x >> 40) % 2);
		if (slow_only)
			blk_timeline_feed_slow(t, dev, &e);
		else
			blk_timeline_feed(t, dev, &e);
	}
	*end = ts;
}

/* The inline usual case and the general path give the same bins, across bin edges, idle
 * gaps, requeues and widening (a test of blk_timeline_feed_inline's conditions). */
static void test_fast_path(void **s)
{
	(void)s;
	for (unsigned max_bins = 0; max_bins <= 64; max_bins += 64) {
		struct blk_opts o;
		struct blk_timeline *a, *b;
		uint64_t end;

		blk_opts_init(&o);
		o.interval_ns = 100;
		o.idle_threshold_ns = 20;
		o.max_bins = max_bins;
		a = blk_timeline_new(&o);
		b = blk_timeline_new(&o);
		assert_non_null(a);
		assert_non_null(b);
		feed_random(a, 0, &end);
		feed_random(b, 1, &end);
		blk_timeline_finish(a, 0, end);
		blk_timeline_finish(b, 0, end);
		assert_int_equal(blk_timeline_interval(a), blk_timeline_interval(b));
		assert_true(blk_timeline_nbins(a) > 100 || max_bins);
		assert_int_equal(blk_timeline_nbins(a), blk_timeline_nbins(b));
		for (unsigned dev = 0; dev < 3; dev++)
			for (uint64_t k = 0; k < blk_timeline_nbins(a); k++) {
				struct blk_bin x = blk_timeline_bin(a, dev, k),
				               y = blk_timeline_bin(b, dev, k);

				assert_memory_equal(&x, &y, sizeof(x));
			}
		blk_timeline_free(a);
		blk_timeline_free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bins),
	    cmocka_unit_test(test_widen),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_fast_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
