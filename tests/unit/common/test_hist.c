/* SPDX-License-Identifier: MIT */
/* Unit tests: histogram buckets, quantiles and exact moments; cursor bounds; error buffers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/cursor.h"
#include "common/err.h"
#include "common/hist.h"

static void test_hist_exact_small(void **s)
{
	static struct hist h;

	(void)s;
	hist_init(&h);
	for (uint64_t v = 1; v <= 10; v++)
		hist_add(&h, v);
	assert_int_equal(h.count, 10);
	assert_int_equal(h.min, 1);
	assert_int_equal(h.max, 10);
	assert_true(hist_mean(&h) == 5.5);
	assert_int_equal(hist_quantile(&h, 0.5), 5);
	assert_int_equal(hist_quantile(&h, 0.9), 9);
	assert_int_equal(hist_quantile(&h, 0.99), 10);
	assert_int_equal(hist_quantile(&h, 0), 1);
	assert_int_equal(hist_quantile(&h, 1), 10);
}

static void test_hist_relative_error(void **s)
{
	static struct hist h;

	(void)s;
	/* every bucket's bounds contain the value and are within 1/64 of it */
	for (uint64_t v = 1; v < (1ull << 40); v = v * 3 + 1) {
		uint64_t lo, hi;
		unsigned b = hist_bucket(v);

		hist_bucket_bounds(b, &lo, &hi);
		assert_true(lo <= v && v <= hi);
		assert_true((double)(hi - lo) <= (double)v / 64.0 + 1);
	}
	assert_true(hist_bucket(UINT64_MAX) < HIST_BUCKETS);
	hist_init(&h);
	for (uint64_t i = 1; i <= 100000; i++)
		hist_add(&h, i * 1000);
	{
		double p50 = (double)hist_quantile(&h, 0.5), p99 = (double)hist_quantile(&h, 0.99);
		assert_true(p50 > 50000000 * 0.984 && p50 < 50000000 * 1.016);
		assert_true(p99 > 99000000 * 0.984 && p99 < 99000000 * 1.016);
	}
	assert_true(hist_mean(&h) == 50000500.0);
}

static void test_hist_merge_empty(void **s)
{
	static struct hist a, b;

	(void)s;
	hist_init(&a);
	hist_init(&b);
	assert_int_equal(hist_quantile(&a, 0.5), 0);
	assert_true(hist_mean(&a) == 0);
	hist_add(&b, 7);
	hist_merge(&a, &b);
	assert_int_equal(a.count, 1);
	assert_int_equal(a.min, 7);
	assert_int_equal(hist_quantile(&a, 0.5), 7);
}

/* hist_few: no histogram up to HIST_FEW values, one past them, and the same figures as a
 * plain histogram either way (through the fast add and its pending sum too). */
static void test_hist_few(void **s)
{
	static struct hist ref, scratch;
	struct hist_few f = {0}, g = {0};
	uint64_t pending = 0;

	(void)s;
	hist_init(&ref);
	for (uint64_t i = 0; i < 3 * HIST_FEW; i++) {
		uint64_t v = i * i * 977 + (i & 1 ? UINT64_MAX / 3 : 5);
		const struct hist *h;

		hist_add(&ref, v);
		hist_few_add(&f, v);
		hist_few_add_fast(&g, &pending, v);
		assert_true((f.h != NULL) == (i >= HIST_FEW));
		assert_true((g.h != NULL) == (i >= HIST_FEW));
		h = hist_few_view(&f, &scratch);
		assert_int_equal(h->count, ref.count);
		assert_int_equal(h->min, ref.min);
		assert_int_equal(h->max, ref.max);
		assert_true(h->sum == ref.sum);
		assert_memory_equal(h->b, ref.b, sizeof(ref.b));
	}
	hist_few_settle(&g, &pending);
	assert_int_equal(hist_few_view(&g, &scratch)->count, ref.count);
	assert_true(hist_few_view(&g, &scratch)->sum == ref.sum);
	assert_int_equal(hist_quantile(hist_few_view(&g, &scratch), 0.5), hist_quantile(&ref, 0.5));
	hist_few_release(&f);
	hist_few_release(&g);
	assert_null(f.h);
	/* an empty one reads as an empty histogram */
	assert_int_equal(hist_few_view(&f, &scratch)->count, 0);
	assert_int_equal(hist_quantile(hist_few_view(&f, &scratch), 0.99), 0);
}

static void test_cursor(void **s)
{
	const uint8_t buf[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
	struct cur c = cur_make(buf, sizeof(buf)), sub;

	(void)s;
	assert_int_equal(cur_be32(&c), 0x01020304);
	assert_int_equal(cur_le16(&c), 0x0605);
	sub = cur_sub(&c, 2);
	assert_int_equal(cur_left(&sub), 2);
	assert_int_equal(cur_be16(&sub), 0x0708);
	assert_int_equal(cur_u8(&sub), 0); /* past the sub-cursor: error, sticky */
	assert_true(sub.err);
	assert_false(c.err);
	assert_int_equal(cur_be32(&c), 0); /* 1 byte left */
	assert_true(c.err);
	assert_int_equal(cur_u8(&c), 0); /* stays failed */
	assert_int_equal(cur_left(&c), 0);
	c = cur_make(buf, sizeof(buf));
	assert_false(cur_skip(&c, 10));
	sub = cur_sub(&c, 1);
	assert_true(sub.err);
}

static void test_err(void **s)
{
	struct iot_err e;
	size_t out;

	(void)s;
	assert_int_equal(iot_err_set(&e, -EINVAL, "bad %s", "thing"), -EINVAL);
	assert_string_equal(e.msg, "bad thing");
	iot_err_prefix(&e, "'%s'", "f");
	assert_string_equal(e.msg, "'f': bad thing");
	assert_int_equal(iot_err_set(NULL, -EIO, "x"), -EIO);
	assert_int_equal(size_mul(SIZE_MAX, 2, &out), -EOVERFLOW);
	assert_int_equal(size_add(1, 2, &out), 0);
	assert_int_equal(out, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hist_exact_small), cmocka_unit_test(test_hist_relative_error),
	    cmocka_unit_test(test_hist_merge_empty), cmocka_unit_test(test_hist_few),
	    cmocka_unit_test(test_cursor),           cmocka_unit_test(test_err),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
