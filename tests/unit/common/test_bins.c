/* SPDX-License-Identifier: MIT */
/* Unit tests: interval bins that double, relative and aligned, near the end of the clock. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "common/bins.h"

#define MAXB 8

static void add_u64(void *dst, const void *src)
{
	*(uint64_t *)dst += *(const uint64_t *)src;
}

static void move_u64(void *ctx, const struct bins_move *m)
{
	bins_move_array(m, ctx, MAXB, sizeof(uint64_t), add_u64);
}

/* Count one at t. */
static void put(struct bins *b, uint64_t *arr, uint64_t t)
{
	arr[bins_place(b, t, move_u64, arr)]++;
}

static void test_relative(void **s)
{
	struct bins b;
	uint64_t arr[MAXB] = {0};

	(void)s;
	bins_init(&b, 10, 4, false);
	put(&b, arr, 100); /* origin 100 */
	assert_int_equal(b.origin, 100);
	put(&b, arr, 139);
	assert_int_equal(arr[3], 1);
	assert_int_equal(b.n, 4);
	put(&b, arr, 140); /* bin 4 of 4: the width doubles, bins 2 and 3 become 1 */
	assert_int_equal(b.width, 20);
	assert_int_equal(b.widened, 1);
	assert_int_equal(arr[0], 1);
	assert_int_equal(arr[1], 1);
	assert_int_equal(arr[2], 1);
	assert_int_equal(arr[3], 0);
	assert_int_equal(b.n, 3);
	/* earlier than the origin: bin 0 */
	put(&b, arr, 50);
	assert_int_equal(arr[0], 2);
	assert_int_equal(bins_start_of(&b, 2), 140);
	assert_int_equal(bins_end_of(&b, 2), 160);
}

static void test_aligned(void **s)
{
	struct bins b;
	uint64_t arr[MAXB] = {0};

	(void)s;
	bins_init(&b, 10, 4, true);
	put(&b, arr, 25);
	assert_int_equal(b.origin, 20); /* a multiple of the width */
	put(&b, arr, 5);                /* two bins to the left: moved right */
	assert_int_equal(b.origin, 0);
	assert_int_equal(b.n, 3);
	assert_int_equal(arr[0], 1);
	assert_int_equal(arr[2], 1);
	put(&b, arr, 45); /* bin 4: doubles to 20, still from 0 */
	assert_int_equal(b.width, 20);
	assert_int_equal(b.origin, 0);
	assert_int_equal(arr[0], 1);
	assert_int_equal(arr[1], 1);
	assert_int_equal(arr[2], 1);

	/* an odd first bin pairs with the one before it */
	memset(arr, 0, sizeof(arr));
	bins_init(&b, 10, 4, true);
	put(&b, arr, 15); /* origin 10: odd */
	put(&b, arr, 45);
	put(&b, arr, 55); /* doubles: origin 0, [0,20) [20,40) [40,60) */
	assert_int_equal(b.origin, 0);
	assert_int_equal(b.width, 20);
	assert_int_equal(arr[0], 1);
	assert_int_equal(arr[1], 0);
	assert_int_equal(arr[2], 2);
	assert_int_equal(b.n, 3);
}

static void test_clock_end(void **s)
{
	struct bins b;
	uint64_t arr[MAXB] = {0}, from, total = 0, k, len;

	(void)s;
	bins_init(&b, 4, 4, false);
	bins_start(&b, UINT64_MAX - 5);
	put(&b, arr, UINT64_MAX);
	assert_int_equal(arr[1], 1);
	assert_int_equal(bins_end_of(&b, 1), UINT64_MAX);
	assert_int_equal(bins_end_of(&b, 3), UINT64_MAX);
	/* a walk to the last nanosecond ends, and covers it once */
	for (from = UINT64_MAX - 5; from < UINT64_MAX; from += len) {
		len = bins_segment(&b, from, UINT64_MAX, &k);
		assert_true(len >= 1);
		total += len;
	}
	assert_int_equal(total, 5);
	/* a whole clock's span in two bins */
	bins_init(&b, 1, 2, false);
	put(&b, arr, 0);
	put(&b, arr, UINT64_MAX);
	assert_true(bins_index(&b, UINT64_MAX) < 2);
	bins_init(&b, 3, 2, true);
	put(&b, arr, UINT64_MAX);
	put(&b, arr, 0);
	assert_true(b.n <= 2);
}

/* Doublings keep every count: the sums before and after are the same. */
static void test_sums_kept(void **s)
{
	struct bins b;
	uint64_t arr[MAXB] = {0}, sum = 0, x = 12345;

	(void)s;
	for (int aligned = 0; aligned < 2; aligned++) {
		memset(arr, 0, sizeof(arr));
		bins_init(&b, 3, MAXB, aligned);
		for (int i = 0; i < 10000; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			put(&b, arr, 1000000 + (x >> 40));
		}
		sum = 0;
		for (int i = 0; i < MAXB; i++)
			sum += arr[i];
		assert_int_equal(sum, 10000);
		assert_true(b.n <= MAXB);
		assert_true(b.widened > 0);
		assert_int_equal(b.width, 3ull << b.widened);
	}
}

static void move_big(void *ctx, const struct bins_move *m)
{
	bins_move_array(m, ctx, 1000, sizeof(uint64_t), add_u64);
}

/* Series sharing a budget: fewer, wider bins, in halvings, only down, sums kept. */
static void test_share(void **s)
{
	struct bins b;
	uint64_t *arr = calloc(1000, sizeof(*arr)), cap = 1000, sum = 0;

	(void)s;
	bins_init(&b, 10, 1000, false);
	for (uint64_t t = 0; t < 10000; t += 10)
		arr[bins_place(&b, t, move_big, arr)]++;
	assert_int_equal(b.n, 1000);
	bins_share(&b, 1, 100000, move_big, arr); /* under the max asked for: nothing */
	assert_int_equal(b.max, 1000);
	bins_share(&b, 4, 1000, move_big, arr); /* 250 each: 128 */
	assert_int_equal(b.max, 128);
	assert_int_equal(b.width, 80);
	assert_int_equal(b.n, 125);
	assert_int_equal(b.widened, 3);
	for (unsigned k = 0; k < 1000; k++)
		sum += arr[k];
	assert_int_equal(sum, 1000);
	assert_int_equal(arr[0], 8);
	assert_int_equal(arr[124], 8);
	assert_int_equal(arr[125], 0);
	bins_cut((void **)&arr, &cap, sizeof(*arr), b.max);
	assert_int_equal(cap, 128);
	bins_share(&b, 2, 1000, move_big, arr); /* the max only goes down */
	assert_int_equal(b.max, 128);
	bins_share(&b, 1000000, 1000, move_big, arr); /* never under BINS_SHARE_MIN */
	assert_int_equal(b.max, BINS_SHARE_MIN);
	assert_true(b.n <= BINS_SHARE_MIN);
	assert_int_equal(arr[0], 64);
	/* before the clock starts: the max alone */
	bins_init(&b, 10, 1000, false);
	bins_share(&b, 3, 1000, NULL, NULL);
	assert_int_equal(b.max, 256);
	assert_int_equal(b.width, 10);
	free(arr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_relative),  cmocka_unit_test(test_aligned),
	    cmocka_unit_test(test_clock_end), cmocka_unit_test(test_sums_kept),
	    cmocka_unit_test(test_share),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
