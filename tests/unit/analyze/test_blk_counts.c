/* SPDX-License-Identifier: MIT */
/* Unit tests: the counts sink totals actions, bytes, KiB, depth and skips as blkparse does. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyze/blk_counts.h"
#include "test_blk_events.h"

static void test_actions(void **s)
{
	struct blk_event ev[] = {
	    EV_Q(0, 100, 8, W),
	    EV_G(1, 100, 8, W),
	    EV_Q(2, 108, 8, W),
	    EV_M(3, 108, 8, W),
	    EV_Q(4, 92, 8, W),
	    EV_F(5, 92, 8, W),
	    EV_I(6, 92, 24, W),
	    EV_D(7, 92, 24, W),
	    EV_R(8, 92, 24, W),
	    EV_D(9, 92, 24, W),
	    EV_C(10, 92, 24, W),
	    EV_Q(11, 7, 3, R), /* 1536 bytes */
	    EV_D(12, 7, 3, R),
	    EV_C(13, 7, 3, R),
	    EV_D(14, 0, 0, R), /* flush */
	    EV_C(15, 0, 0, R),
	    ev_make(BLK_A_PLUG, 16, 0, 0, R),
	    ev_make(BLK_A_UNPLUG_IO, 17, 0, 0, R),
	    ev_make(BLK_A_UNPLUG_TIMER, 18, 0, 0, R),
	    EV_D(19, 500, 2, R),
	    EV_C(20, 500, 2, R),
	};
	struct blk_counts *c = blk_counts_new();
	const struct blk_counts_dev *d;

	(void)s;
	ev[19].flags = ev[20].flags = BLK_F_PC | BLK_F_READ;
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		ev[i].seq = (uint32_t)i + 1;
		blk_counts_feed(c, 0, &ev[i]);
	}
	d = blk_counts_dev(c, 0);
	assert_int_equal(d->events, 21);
	assert_int_equal(d->fs.n[BLK_A_QUEUE][1], 3);
	assert_int_equal(d->fs.bytes[BLK_A_QUEUE][1], 3 * 4096);
	assert_int_equal(d->fs.n[BLK_A_BACKMERGE][1] + d->fs.n[BLK_A_FRONTMERGE][1], 2);
	assert_int_equal(d->fs.n[BLK_A_ISSUE][1], 2);
	assert_int_equal(d->fs.n[BLK_A_REQUEUE][1], 1);
	assert_int_equal(d->fs.bytes[BLK_A_QUEUE][0], 1536);
	assert_int_equal(d->fs.bytes[BLK_A_ISSUE][1] - d->fs.bytes[BLK_A_REQUEUE][1], 12288);
	/* the flush has no write bit: a read for blkparse, but no data completed */
	assert_int_equal(d->fs.n[BLK_A_COMPLETE][0], 2);
	assert_int_equal(d->done[0], 2); /* the 1536-byte read and the passthrough read */
	assert_int_equal(d->done_bytes[0], 1536 + 1024);
	assert_int_equal(d->done[1], 1);
	assert_int_equal(d->done_bytes[1], 12288);
	assert_int_equal(d->fs.n[BLK_A_UNPLUG_IO][0], 1);
	assert_int_equal(d->fs.n[BLK_A_UNPLUG_TIMER][0], 1);
	assert_int_equal(d->pc.n[BLK_A_ISSUE][0], 1);
	assert_int_equal(d->fs.n[BLK_A_ISSUE][0], 2);
	assert_int_equal(d->max_depth[0], 1);
	assert_int_equal(d->max_depth[1], 1);
	assert_int_equal(d->skips, 0);
	blk_counts_free(c);
}

/* blkparse's depth: per direction, file-system requests, never below zero. */
static void test_depth(void **s)
{
	const struct blk_event ev[] = {
	    EV_C(0, 1, 8, W), EV_D(1, 8, 8, W),  EV_D(2, 16, 8, W), EV_D(3, 24, 8, R),
	    EV_C(4, 8, 8, W), EV_D(5, 32, 8, W), EV_D(6, 40, 8, W),
	};
	struct blk_counts *c = blk_counts_new();

	(void)s;
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		blk_counts_feed(c, 0, &ev[i]);
	assert_int_equal(blk_counts_dev(c, 0)->max_depth[1], 3);
	assert_int_equal(blk_counts_dev(c, 0)->max_depth[0], 1);
	blk_counts_free(c);
}

/* Sequence gaps per CPU: a gap of 3 on CPU 0 and one of 1 on CPU 1, notify records aside. */
static void test_skips(void **s)
{
	struct blk_counts *c = blk_counts_new();
	static const uint32_t seq[][2] = {{0, 1}, {0, 2}, {1, 5}, {0, 6}, {1, 7}, {1, 8}, {0, 7}};
	struct blk_event n = EV_Q(0, 0, 0, R);

	(void)s;
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		struct blk_event e = EV_Q(i, 8 * i, 8, R);

		e.cpu = seq[i][0];
		e.seq = seq[i][1];
		blk_counts_feed(c, 0, &e);
	}
	n.flags = BLK_F_NOTIFY;
	n.seq = 100;
	blk_counts_feed(c, 0, &n);
	assert_int_equal(blk_counts_dev(c, 0)->skips, 3 + 1);
	assert_int_equal(blk_counts_dev(c, 0)->skip_ranges, 2);
	assert_int_equal(blk_counts_dev(c, 0)->events, 7);
	blk_counts_free(c);
}

/* From per-CPU files the series is the file's (blkparse's key): a record of file 2 whose CPU
 * field says 0 continues file 2's numbers, no gap on either (issue #25 item 17) */
static void test_skips_per_file(void **s)
{
	struct blk_counts *c = blk_counts_new();
	static const uint32_t rec[][3] = {{2, 2, 1}, {2, 0, 2}, {2, 2, 3}, {0, 0, 1}, {0, 1, 2}};

	(void)s;
	for (size_t i = 0; i < sizeof(rec) / sizeof(rec[0]); i++) {
		struct blk_event e = EV_Q(i, 8 * i, 8, R);

		e.src = (uint16_t)(rec[i][0] + 1);
		e.cpu = rec[i][1];
		e.seq = rec[i][2];
		blk_counts_feed(c, 0, &e);
	}
	assert_int_equal(blk_counts_dev(c, 0)->skips, 0);
	blk_counts_free(c);
}

static void test_json(void **s)
{
	struct blk_counts *c = blk_counts_new();
	struct blk_event e = EV_C(0, 8, 8, W);
	json_t *o = json_object(), *bp;

	(void)s;
	e.flags |= BLK_F_DISCARD;
	blk_counts_feed(c, 2, &e);
	assert_null(blk_counts_dev(c, 0));
	assert_int_equal(blk_counts_to_json(c, 2, o), 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "writes"), "ios")),
	                 1);
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(o, "discards"), "bytes")), 4096);
	bp = json_object_get(o, "blkparse");
	assert_int_equal(json_integer_value(json_object_get(bp, "writes_completed_kib")), 4);
	assert_int_equal(json_integer_value(json_object_get(bp, "events")), 1);
	/* an unknown device reads as zeros */
	assert_int_equal(blk_counts_to_json(c, 7, o), 0);
	json_decref(o);
	blk_counts_free(c);
}

static uint64_t jget(const json_t *o, const char *key, const char *sub)
{
	return (uint64_t)json_integer_value(json_object_get(json_object_get(o, key), sub));
}

/*
 * Discards, write-zeroes and flushes are counted on their own: a discard's or write-zeroes'
 * range is no data (fstrim's "592 MiB of writes"), an empty flush request is no IO of data.
 * "writes" keeps blkparse's count; "data_writes" and the throughput are data only.
 */
static void test_ops(void **s)
{
	struct blk_event ev[] = {
	    EV_C(0, 8, 8, W),    /* a discard of 4 KiB */
	    EV_C(10, 64, 16, W), /* write-zeroes of 8 KiB */
	    EV_C(20, 0, 0, R),   /* a flush request */
	    EV_C(30, 128, 2, W), /* a data write with a preflush: a write, not a flush */
	    EV_C(40, 128, 0, W), /* the end of a flush sequence: neither */
	    EV_C(1000000040, 256, 4, R),
	};
	struct blk_counts *c;
	const struct blk_counts_dev *d;
	const struct blk_json_ctx ctx = {0, 1000000040, NULL};
	json_t *o = json_object();
	void *sink;

	(void)s;
	ev[0].flags |= BLK_F_DISCARD;
	ev[1].flags |= BLK_F_WRITE_ZEROES;
	ev[2].flags |= BLK_F_FLUSH;
	ev[3].flags |= BLK_F_FLUSH | BLK_F_FUA;
	sink = blk_counts_ops.create(&(struct blk_opts){0});
	c = sink;
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		ev[i].seq = (uint32_t)i + 1;
		blk_counts_feed(c, 0, &ev[i]);
	}
	d = blk_counts_dev(c, 0);
	assert_int_equal(d->discards, 1);
	assert_int_equal(d->discard_bytes, 4096);
	assert_int_equal(d->wzero, 1);
	assert_int_equal(d->wzero_bytes, 8192);
	assert_int_equal(d->flushes, 1);
	assert_int_equal(d->done[1], 3); /* blkparse's writes: the discard and write-zeroes too */
	assert_int_equal(blk_counts_ops.to_json(sink, 0, o, &ctx), 0);
	assert_int_equal(jget(o, "writes", "ios"), 3);
	assert_int_equal(jget(o, "writes", "bytes"), 4096 + 8192 + 1024);
	assert_int_equal(jget(o, "data_writes", "ios"), 1);
	assert_int_equal(jget(o, "data_writes", "bytes"), 1024);
	assert_int_equal(jget(o, "discards", "ios"), 1);
	assert_int_equal(jget(o, "write_zeroes", "ios"), 1);
	assert_int_equal(jget(o, "write_zeroes", "bytes"), 8192);
	assert_int_equal(json_integer_value(json_object_get(o, "flushes")), 1);
	/* 1024 + 2048 data bytes and 2 IOs over 1.00000004 s */
	assert_float_equal(
	    json_real_value(json_object_get(json_object_get(o, "throughput"), "mbps")),
	    3072 / 1000000040.0 * 1e3, 1e-12);
	assert_float_equal(
	    json_real_value(json_object_get(json_object_get(o, "throughput"), "iops")),
	    2 / 1000000040.0 * 1e9, 1e-9);
	json_decref(o);
	blk_counts_ops.destroy(sink);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_actions), cmocka_unit_test(test_depth),
	    cmocka_unit_test(test_skips),   cmocka_unit_test(test_skips_per_file),
	    cmocka_unit_test(test_json),    cmocka_unit_test(test_ops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
