/* SPDX-License-Identifier: MIT */
/* The split prediction from a queue's limits, and the buffers on huge pages it relies on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "replay/internal.h"

#define KIB 1024u

/* a loop device's queue: max_sectors_kb 1280, max_segments 128, max_segment_size 64 KiB */
static struct rp_target loopdev(void)
{
	struct rp_target t;

	memset(&t, 0, sizeof(t));
	t.split = RP_SPLIT_LIMITS;
	t.max_io = 1280 * KIB;
	t.max_segs = 128;
	t.seg_bytes = 64 * KIB;
	t.page = 4096;
	t.whole = rp_split_whole(&t);
	return t;
}

static void expect(const struct rp_target *t, uint64_t off, uint32_t len, uint32_t unit,
                   uint32_t lo, uint32_t hi)
{
	uint32_t a, b;

	rp_split_predict(t, off, len, unit, &a, &b);
	if (a != lo || b != hi)
		fail_msg("%u bytes at %llu, unit %u: %u..%u requests, want %u..%u", len,
		         (unsigned long long)off, unit, a, b, lo, hi);
}

/* #25 item 16: 516-640 KiB went whole on such a queue, predicted split: on huge pages the
 * limits alone decide; on pages of unknown layout the count is a range */
static void test_loop_queue(void **state)
{
	struct rp_target t = loopdev();
	uint32_t huge = 2048 * KIB;

	(void)state;
	assert_int_equal(t.whole, 512 * KIB); /* 128 segments of a page */
	expect(&t, 0, 512 * KIB, huge, 1, 1);
	expect(&t, 0, 516 * KIB, huge, 1, 1);
	expect(&t, 0, 640 * KIB, huge, 1, 1);
	expect(&t, 0, 1280 * KIB, huge, 1, 1);
	expect(&t, 0, 1284 * KIB, huge, 2, 2);
	expect(&t, 0, 2048 * KIB, huge, 2, 2); /* 1280 + 768, as the capture shows */
	expect(&t, 0, 4096 * KIB, huge, 4, 4); /* two huge pages: 64 KiB segments either way */
	expect(&t, 0, 640 * KIB, 0, 1, 2);     /* 4 KiB pages, as they come: 1 or 2 */
	expect(&t, 0, 1280 * KIB, 0, 1, 3);
	expect(&t, 0, 2048 * KIB, 0, 2, 4);
	expect(&t, 0, 512 * KIB, 0, 1, 1);
}

static void test_limits(void **state)
{
	struct rp_target t = loopdev();

	(void)state;
	/* max_sectors binds before the segments can: the layout does not matter */
	t.max_io = 256 * KIB;
	t.whole = rp_split_whole(&t);
	expect(&t, 0, 1024 * KIB, 0, 4, 4);
	expect(&t, 0, 1028 * KIB, 2048 * KIB, 5, 5);
	/* no request crosses a multiple of chunk_sectors */
	t = loopdev();
	t.chunk = 256 * KIB;
	expect(&t, 192 * KIB, 128 * KIB, 2048 * KIB, 2, 2);
	expect(&t, 0, 256 * KIB, 2048 * KIB, 1, 1);
	expect(&t, 128 * KIB, 1024 * KIB, 2048 * KIB, 5, 5);
	/* NVMe-like: segments as long as the memory is contiguous */
	t = loopdev();
	t.max_io = 512 * KIB;
	t.max_segs = 33;
	t.seg_bytes = UINT32_MAX;
	t.whole = rp_split_whole(&t);
	assert_int_equal(t.whole, 132 * KIB);
	expect(&t, 0, 512 * KIB, 2048 * KIB, 1, 1);
	expect(&t, 0, 512 * KIB, 0, 1, 4);
	/* nothing known: whole */
	memset(&t, 0, sizeof(t));
	t.split = RP_SPLIT_LIMITS;
	t.whole = rp_split_whole(&t);
	assert_int_equal(t.whole, UINT32_MAX);
	expect(&t, 0, 8192 * KIB, 0, 1, 1);
}

/* zram, brd, pmem take any bio whole; device-mapper and md: at most the limits' count */
static void test_bio_based(void **state)
{
	struct rp_target t = loopdev();

	(void)state;
	t.split = RP_SPLIT_NONE;
	assert_int_equal(rp_split_whole(&t), UINT32_MAX);
	expect(&t, 0, 4096 * KIB, 0, 1, 1);
	t.split = RP_SPLIT_GUESS;
	expect(&t, 0, 2048 * KIB, 2048 * KIB, 1, 2);
	expect(&t, 0, 640 * KIB, 0, 1, 2);
}

/* buffers: powers of two, never across a huge page when on huge pages; given back, reused */
static void test_bufs(void **state)
{
	struct rp_bufs b;
	struct rp_buf x, y, z;

	(void)state;
	rp_bufs_init(&b);
	assert_int_equal(rp_bufs_get(&b, 129 * KIB, &x), 0);
	assert_int_equal(x.cap, 256 * KIB);
	assert_int_equal((uintptr_t)x.p % 4096, 0);
	memset(x.p, 1, x.cap);
	assert_int_equal(rp_bufs_get(&b, 3000 * KIB, &y), 0);
	assert_int_equal(y.cap, 4096 * KIB);
	memset(y.p, 2, y.cap);
	if (x.unit) {
		/* naturally aligned inside its huge page */
		assert_int_equal(x.unit, b.huge);
		assert_int_equal((uintptr_t)x.p % x.cap, 0);
		assert_true((uintptr_t)x.p % x.unit + x.cap <= x.unit);
	}
	if (y.unit)
		assert_int_equal((uintptr_t)y.p % y.unit, 0);
	else
		print_message("no huge pages here: buffers of unknown layout\n");
	assert_int_equal(rp_bufs_put(&b, &x), 0);
	assert_int_equal(rp_bufs_get(&b, 200 * KIB, &z), 0);
	assert_ptr_equal(z.p, x.p);
	rp_bufs_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_loop_queue),
	    cmocka_unit_test(test_limits),
	    cmocka_unit_test(test_bio_based),
	    cmocka_unit_test(test_bufs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
