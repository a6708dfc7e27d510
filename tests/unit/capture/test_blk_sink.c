/* SPDX-License-Identifier: MIT */
/* Unit tests: the sink routes records per device and CPU, numbers sequences, adds PROCESS
 * and TIMESTAMP notifies, and counts records that are not ours. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/cap_int.h"
#include "formats/blktrace.h"
#include "../tmpdir.h"

static size_t rec(uint8_t *b, uint32_t dev, uint32_t pid, uint32_t cpu, uint64_t time)
{
	struct blk_event ev = {0};

	ev.time = time;
	ev.sector = time;
	ev.bytes = 4096;
	ev.action = BLK_A_QUEUE;
	ev.flags = BLK_F_WRITE | BLK_F_QUEUE;
	ev.pid = pid;
	ev.cpu = cpu;
	ev.dev = dev;
	return bt_encode7(&ev, b, 128);
}

static void test_sink(void **state)
{
	struct cap_dev devs[2] = {{.name = "loop7", .kdev = BLK_MKDEV(7, 7)},
	                          {.name = "loop8", .kdev = BLK_MKDEV(7, 8)}};
	struct cap_clock_pair cp = {.real_ns = 1700000000123456789ll, .mono_ns = 500};
	struct cap_sink *s;
	struct bt_reader *r;
	struct blk_event ev;
	struct iot_err e;
	uint8_t b[128];
	char path[128], comm[32] = "";
	uint64_t events, bytes;
	uint32_t me = (uint32_t)getpid();
	unsigned q = 0, proc = 0, ts = 0;
	FILE *f;
	struct stat st;

	(void)state;
	f = fopen("/proc/self/comm", "r");
	assert_non_null(f);
	assert_non_null(fgets(comm, sizeof(comm), f));
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';

	assert_int_equal(cap_sink_new(&s, tmpdir, devs, 2, "", &e), 0);
	assert_int_equal(cap_sink_timestamp(s, &cp, &e), 0);
	assert_int_equal(cap_sink_record(s, 0, b, rec(b, BLK_MKDEV(7, 7), me, 0, 1000), &e), 0);
	assert_int_equal(cap_sink_record(s, 0, b, rec(b, BLK_MKDEV(7, 7), me, 0, 2000), &e), 0);
	assert_int_equal(cap_sink_record(s, 1, b, rec(b, BLK_MKDEV(7, 7), me, 1, 1500), &e), 0);
	assert_int_equal(cap_sink_record(s, 1, b, rec(b, BLK_MKDEV(7, 8), me, 1, 1600), &e), 0);
	/* someone else's device, and bytes that are not a record */
	assert_int_equal(cap_sink_record(s, 0, b, rec(b, BLK_MKDEV(7, 9), me, 0, 1700), &e), 0);
	memset(b, 0x55, 48);
	assert_int_equal(cap_sink_record(s, 0, b, 48, &e), 0);
	assert_int_equal(cap_sink_foreign(s), 1);
	assert_int_equal(cap_sink_bad(s), 1);
	cap_sink_counts(s, &events, &bytes);
	/* 2 TIMESTAMP + 4 records + 2 PROCESS (one per device, on the CPU where the pid first
	 * appeared: loop7 on cpu 0, loop8 on cpu 1; loop7 cpu 1 already knows the pid) */
	assert_int_equal(events, 2 + 4 + 2);
	assert_int_equal(cap_sink_dev_events(s, 0), 1 + 3 + 1);
	assert_int_equal(cap_sink_close(s, &e), 0);

	/* loop8 saw only CPU 1: its CPU 0 file exists (blkparse stops at the first gap) */
	snprintf(path, sizeof(path), "%s/loop8.blktrace.0", tmpdir);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/loop7", tmpdir);
	assert_int_equal(bt_reader_open(&r, path, &e), 0);
	while (bt_reader_next(r, &ev, &e) > 0) {
		if (blk_is_notify(&ev) && ev.action == BLK_N_PROCESS) {
			proc++;
			assert_int_equal(ev.pid, me);
			assert_int_equal(ev.seq, 0); /* notifies take no sequence number */
		} else if (blk_is_notify(&ev) && ev.action == BLK_N_TIMESTAMP) {
			ts++;
			assert_int_equal(ev.time, 500);
			assert_int_equal(ev.seq, 0);
		} else {
			q++;
			/* sequences restart at 1 on each CPU and have no gaps */
			assert_true(ev.seq >= 1);
		}
	}
	assert_int_equal(q, 3);
	assert_int_equal(proc, 1);
	assert_int_equal(ts, 1);
	assert_int_equal(bt_reader_stats(r)->skips, 0);
	assert_true(bt_reader_stats(r)->have_wallclock);
	assert_int_equal(bt_reader_stats(r)->wall_sec, 1700000000);
	assert_int_equal(bt_reader_stats(r)->wall_nsec, 123456789);
	assert_non_null(bt_reader_comm(r, me));
	assert_string_equal(bt_reader_comm(r, me), comm);
	bt_reader_free(r);
}

static void test_sink_lost_gap(void **state)
{
	struct cap_dev dev = {.name = "loop6", .kdev = BLK_MKDEV(7, 6)};
	struct cap_sink *s;
	struct bt_reader *r;
	struct blk_event ev;
	struct iot_err e;
	uint8_t b[128];
	char path[128];

	(void)state;
	assert_int_equal(cap_sink_new(&s, tmpdir, &dev, 1, "", &e), 0);
	assert_int_equal(cap_sink_record(s, 0, b, rec(b, BLK_MKDEV(7, 6), 0, 0, 10), &e), 0);
	/* 5 events lost on CPU 0 between two records: the sequence numbers show the gap */
	cap_sink_lost(s, 0, 5);
	assert_int_equal(cap_sink_record(s, 0, b, rec(b, BLK_MKDEV(7, 6), 0, 0, 20), &e), 0);
	assert_int_equal(cap_sink_close(s, &e), 0);
	snprintf(path, sizeof(path), "%s/loop6", tmpdir);
	assert_int_equal(bt_reader_open(&r, path, &e), 0);
	while (bt_reader_next(r, &ev, &e) > 0)
		;
	assert_int_equal(bt_reader_stats(r)->skips, 5);
	bt_reader_free(r);
}

static void test_sink_write_error(void **state)
{
	struct cap_dev dev = {.name = "loop9", .kdev = BLK_MKDEV(7, 9)};
	struct cap_sink *s;
	struct iot_err e;

	(void)state;
	/* a directory that does not exist: the first record's file cannot be created */
	assert_int_equal(cap_sink_new(&s, "/nonexistent-iotape-dir", &dev, 1, "", &e), 0);
	{
		uint8_t b[128];
		size_t n = rec(b, BLK_MKDEV(7, 9), 1, 0, 1);

		assert_int_equal(cap_sink_record(s, 0, b, n, &e), -ENOENT);
		assert_non_null(strstr(e.msg, "/nonexistent-iotape-dir"));
	}
	cap_sink_close(s, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sink),
	    cmocka_unit_test(test_sink_lost_gap),
	    cmocka_unit_test(test_sink_write_error),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown));
}
