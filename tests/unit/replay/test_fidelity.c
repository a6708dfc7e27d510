/* SPDX-License-Identifier: MIT */
/* The replay against the kernel's view of it: equal, reordered, split, merged, missing, extra. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "formats/blktrace.h"
#include "replay/replay.h"
#include "../tmpdir.h"

#define DEV BLK_MKDEV(7, 0)

static struct rp_fid *f;
static uint64_t now;

static void expect(uint64_t sector, uint32_t bytes, unsigned op)
{
	rp_fid_expect(f, DEV, DEV, sector, bytes, op, 1000 + now++);
}

static void seen(uint64_t sector, uint32_t bytes, uint64_t flags)
{
	struct blk_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.action = BLK_A_ISSUE;
	ev.time = 2000 + now++;
	ev.dev = DEV;
	ev.sector = sector;
	ev.bytes = bytes;
	ev.flags = flags;
	assert_int_equal(rp_fid_observe(f, &ev), 0);
}

/* The comparison's result is the one wanted, field by field (a field not named: 0, false). */
static void want_result(const struct rp_fid_result *want)
{
	struct rp_fid_result r;

	rp_fid_result(f, &r);
	assert_int_equal(r.expected, want->expected);
	assert_int_equal(r.observed, want->observed);
	assert_int_equal(r.equal, want->equal);
	assert_int_equal(r.split, want->split);
	assert_int_equal(r.split_requests, want->split_requests);
	assert_int_equal(r.merged, want->merged);
	assert_int_equal(r.missing, want->missing);
	assert_int_equal(r.reordered, want->reordered);
	assert_int_equal(r.extra, want->extra);
	assert_int_equal(r.truncated, want->truncated);
	assert_int_equal(r.sequence_equal, want->sequence_equal);
}
#define WANT(...) want_result(&(struct rp_fid_result){__VA_ARGS__})

static int fresh(void **state)
{
	(void)state;
	now = 0;
	return rp_fid_new(&f, 0);
}

static int done(void **state)
{
	(void)state;
	rp_fid_free(f);
	f = NULL;
	return 0;
}

static void test_equal(void **state)
{
	(void)state;
	expect(0, 4096, RP_OP_READ);
	expect(100, 4096, RP_OP_WRITE);
	expect(200, 8192, RP_OP_DISCARD);
	expect(0, 0, RP_OP_FLUSH); /* no range: not compared */
	seen(0, 4096, BLK_F_READ);
	seen(100, 4096, BLK_F_WRITE);
	seen(200, 8192, BLK_F_WRITE | BLK_F_DISCARD);
	WANT(.expected = 3, .observed = 3, .equal = 3, .sequence_equal = true);
}

static void test_reordered(void **state)
{
	(void)state;
	for (int i = 0; i < 5; i++)
		expect(100 * (uint64_t)i, 4096, RP_OP_READ);
	seen(100, 4096, BLK_F_READ); /* one IO moved ahead of its predecessor */
	seen(0, 4096, BLK_F_READ);
	seen(200, 4096, BLK_F_READ);
	seen(300, 4096, BLK_F_READ);
	seen(400, 4096, BLK_F_READ);
	WANT(.expected = 5, .observed = 5, .equal = 5, .reordered = 1);
}

static void test_same_place_twice(void **state)
{
	(void)state;
	/* the same sector read twice: each request matches the oldest unseen IO there */
	expect(8, 4096, RP_OP_READ);
	expect(8, 4096, RP_OP_READ);
	seen(8, 4096, BLK_F_READ);
	seen(8, 4096, BLK_F_READ);
	WANT(.expected = 2, .observed = 2, .equal = 2, .sequence_equal = true);
}

static void test_split(void **state)
{
	(void)state;
	expect(1000, 2 << 20, RP_OP_WRITE); /* 2 MiB onto a device taking 1280 KiB */
	expect(9000, 2 << 20, RP_OP_READ);
	seen(1000, 1280 << 10, BLK_F_WRITE);
	seen(1000 + 2560, 768 << 10, BLK_F_WRITE);
	/* pieces in any order */
	seen(9000 + 2560, 768 << 10, BLK_F_READ);
	seen(9000, 1280 << 10, BLK_F_READ);
	WANT(.expected = 2, .observed = 4, .split = 2, .split_requests = 4);
}

static void test_merged(void **state)
{
	(void)state;
	expect(5000, 4096, RP_OP_WRITE);
	expect(5008, 4096, RP_OP_WRITE);
	expect(5016, 4096, RP_OP_WRITE);
	seen(5000, 12288, BLK_F_WRITE);
	WANT(.expected = 3, .observed = 1, .merged = 3);
}

static void test_missing_extra(void **state)
{
	struct blk_event ev;

	(void)state;
	expect(0, 4096, RP_OP_READ);
	expect(64, 4096, RP_OP_WRITE);
	seen(0, 4096, BLK_F_READ);
	seen(64, 4096, BLK_F_READ); /* a read where a write was issued: not it */
	seen(9999, 4096, BLK_F_READ);
	/* not counted: before the replay's first IO, another device, a flush */
	memset(&ev, 0, sizeof(ev));
	ev.action = BLK_A_ISSUE;
	ev.dev = DEV;
	ev.bytes = 4096;
	ev.time = 10;
	assert_int_equal(rp_fid_observe(f, &ev), 0);
	ev.time = 5000;
	ev.dev = BLK_MKDEV(7, 1);
	assert_int_equal(rp_fid_observe(f, &ev), 0);
	ev.dev = DEV;
	ev.bytes = 0;
	ev.flags = BLK_F_FLUSH | BLK_F_WRITE;
	assert_int_equal(rp_fid_observe(f, &ev), 0);
	WANT(.expected = 2, .observed = 3, .equal = 1, .missing = 1, .extra = 2);
}

static void test_limit(void **state)
{
	(void)state;
	rp_fid_free(f);
	assert_int_equal(rp_fid_new(&f, 2), 0);
	expect(0, 4096, RP_OP_READ);
	expect(8, 4096, RP_OP_READ);
	expect(16, 4096, RP_OP_READ);
	seen(0, 4096, BLK_F_READ);
	seen(8, 4096, BLK_F_READ);
	WANT(.expected = 2, .observed = 2, .equal = 2, .truncated = true);
}

/* --capture: the capture read from its file in time order; one that cannot be read is an error
 * and no result. */
static void test_compare_file(void **state)
{
	static const struct {
		uint8_t action;
		uint64_t sector, flags;
	} evs[] = {
	    {BLK_A_QUEUE, 0, BLK_F_READ}, /* only issues are the kernel's requests */
	    {BLK_A_ISSUE, 0, BLK_F_READ},   {BLK_A_ISSUE, 500, BLK_F_READ}, /* not the replay's */
	    {BLK_A_ISSUE, 64, BLK_F_WRITE}, {BLK_A_COMPLETE, 64, BLK_F_WRITE},
	};
	struct rp_fid_result r;
	struct bt_writer *w;
	struct blk_event ev;
	struct iot_err e = {{0}};
	const char *path = tpath("capture.blktrace.0");

	(void)state;
	expect(0, 4096, RP_OP_READ);
	expect(64, 4096, RP_OP_WRITE);
	assert_int_equal(bt_writer_open(&w, path, &e), 0);
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		memset(&ev, 0, sizeof(ev));
		ev.action = evs[i].action;
		ev.time = 3000 + i;
		ev.dev = DEV;
		ev.sector = evs[i].sector;
		ev.bytes = 4096;
		ev.flags = evs[i].flags;
		assert_int_equal(bt_writer_write(w, &ev, &e), 0);
	}
	assert_int_equal(bt_writer_close(w, &e), 0);
	memset(&r, 0xee, sizeof(r));
	assert_int_equal(rp_fid_compare(f, path, &r, &e), 0);
	assert_int_equal(r.expected, 2);
	assert_int_equal(r.observed, 3);
	assert_int_equal(r.equal, 2);
	assert_int_equal(r.extra, 1);
	assert_false(r.sequence_equal);

	memset(&r, 0xee, sizeof(r));
	assert_true(rp_fid_compare(f, tpath("none"), &r, &e) < 0);
	assert_non_null(strstr(e.msg, "none"));
	assert_int_equal(r.expected, 0xeeeeeeeeeeeeeeeeull); /* untouched */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_equal, fresh, done),
	    cmocka_unit_test_setup_teardown(test_reordered, fresh, done),
	    cmocka_unit_test_setup_teardown(test_same_place_twice, fresh, done),
	    cmocka_unit_test_setup_teardown(test_split, fresh, done),
	    cmocka_unit_test_setup_teardown(test_merged, fresh, done),
	    cmocka_unit_test_setup_teardown(test_missing_extra, fresh, done),
	    cmocka_unit_test_setup_teardown(test_limit, fresh, done),
	    cmocka_unit_test_setup_teardown(test_compare_file, fresh, done),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown));
}
