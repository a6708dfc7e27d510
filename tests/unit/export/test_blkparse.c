/* SPDX-License-Identifier: MIT */
/* export_blkparse() on hand-built per-CPU files: every kind of line, blkparse's batches, order. */
#include "test_export.h"

#include <fcntl.h>
#include <unistd.h>

#include "export/export.h"

/* The export of set NAME as a string (malloc'ed). */
static char *export_text(const char *set)
{
	char path[256], out[256], *arg = path, *text;
	struct export_stats st;
	struct iot_err e;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, set);
	snprintf(out, sizeof(out), "%s/%s.txt", tmpdir, set);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(export_blkparse(&arg, 1, fd, &st, &e), 0);
	close(fd);
	text = slurp(out);
	assert_int_equal(st.bytes, (uint64_t)strlen(text));
	return text;
}

/* One line of each kind blkparse prints, byte for byte as blkparse 1.2 prints them. */
static void test_lines(void **s)
{
	static const uint8_t unplug[8] = {0, 0, 0, 0, 0, 0, 0, 3}; /* a big-endian depth */
	static const uint8_t split[8] = {0, 0, 0, 0, 0, 0, 0x08, 0x08};
	/* a remap from 8,1 sector 63 to 8,16, as struct blk_io_trace_remap (big-endian) */
	static const uint8_t remap[16] = {0x00, 0x80, 0x00, 0x01, 0x00, 0x80, 0x00, 0x10,
	                                  0,    0,    0,    0,    0,    0,    0,    63};
	static const uint8_t cdb[16] = {0x28, 0, 0, 0, 0x10, 0, 0, 0, 8, 0};
	static const char *const want[] = {
	    "  8,16   0        1     0.000000000   100  Q  WS 2048 + 8 [dd]",
	    "  8,16   0        2     0.000000500   100  G  WS 2048 + 8 [dd]",
	    "  8,16   0        3     0.000000600   100  P   N [dd]",
	    "  8,16   0        4     0.000001000   100  M  WS 2056 + 8 [dd]",
	    "  8,16   0        5     0.000001100   100  F  WS 2040 + 8 [dd]",
	    "  8,16   0        6     0.000001500   100  U   N [dd] 3",
	    "  8,16   0        7     0.000002000   100  I  WS 2040 + 24 [dd]",
	    "  8,16   0        8     0.000003000   100  D  WS 2040 + 24 [dd]",
	    "  8,16   0        9     1.000003000     0  R  WS 2040 + 24 [0]",
	    "  8,16   0       10     1.000004000     0  D  WS 2040 + 24 [(null)]",
	    "  8,16   0       11     1.000008000     0  C  WS 2040 + 24 [0]",
	    "  8,16   0       12     1.000009000  4242  Q  RA 4096 + 128 [(null)]",
	    "  8,16   0       13     1.000010000  4242  X   R 4096 / 2056 [(null)]",
	    "  8,16   0       14     1.000011000  4242  A   R 2111 + 8 <- (8,1) 63",
	    "  8,16   0       15     1.000012000  4242  B   R 4096 + 8 [(null)]",
	    "  8,16   0       16     1.000013000  4242  S   R 4096 + 8 [(null)]",
	    "  8,16   0       17     1.000014000     0 UT   N [(null)] 3",
	    "  8,16   0       18     1.000015000   100  Q   D 8192 + 2048 [dd]",
	    "  8,16   0       19     1.000016000   100  Q  FW [dd]",
	    "  8,16   0        0     1.000017000     0  m   N hello",
	    ("  8,16   0       20     1.000018000   100  D   R 4096 (28 00 00 00 10 00 00 00 08 00 "
	     "..) [dd]"), /* one line, split for width */
	    "  8,16   0       21     1.000019000     0  C  WF 64 + 1 [0]",
	};
	static const char summary[] =
	    "CPU0 (kinds):\n"
	    " Reads Queued:           1,       64KiB\t Writes Queued:           3,     1028KiB\n"
	    " Read Dispatches:        0,        0KiB\t Write Dispatches:        2,       12KiB\n"
	    " Reads Requeued:         0\t\t Writes Requeued:         1\n"
	    " Reads Completed:        0,        0KiB\t Writes Completed:        2,       12KiB\n"
	    " Read Merges:            0,        0KiB\t Write Merges:            2,        8KiB\n"
	    " Read depth:             1        \t Write depth:             1\n"
	    " PC Reads Queued:        0,        0KiB\t PC Writes Queued:        0,        0KiB\n"
	    " PC Read Disp.:          1,        4KiB\t PC Write Disp.:          0,        0KiB\n"
	    " PC Reads Req.:          0\t\t PC Writes Req.:          0\n"
	    " PC Reads Compl.:        0\t\t PC Writes Compl.:        0\n"
	    " IO unplugs:             1        \t Timer unplugs:           1\n"
	    "\n"
	    "Throughput (R/W): 0KiB/s / 12KiB/s\n"
	    "Events (kinds): 23 entries\n"
	    "Skips: 0 forward (0 -   0.0%)\n";
	uint32_t w = BLK_F_WRITE | BLK_F_SYNC;
	struct file f;
	char *text, tail[256];
	const char *p;

	(void)s;
	file_open(&f, "kinds", 0);
	name(&f, 1000, 100, 0, "dd");
	put(&f, 1000, BLK_A_QUEUE, w | BLK_F_QUEUE, 2048, 4096, 100, 0, NULL, 0);
	put(&f, 1500, BLK_A_GETRQ, w | BLK_F_QUEUE, 2048, 4096, 100, 0, NULL, 0);
	put(&f, 1600, BLK_A_PLUG, BLK_F_QUEUE, 0, 0, 100, 0, NULL, 0);
	put(&f, 2000, BLK_A_BACKMERGE, w | BLK_F_QUEUE, 2056, 4096, 100, 0, NULL, 0);
	put(&f, 2100, BLK_A_FRONTMERGE, w | BLK_F_QUEUE, 2040, 4096, 100, 0, NULL, 0);
	put(&f, 2500, BLK_A_UNPLUG_IO, BLK_F_QUEUE, 0, 0, 100, 0, unplug, 8);
	put(&f, 3000, BLK_A_INSERT, w | BLK_F_QUEUE, 2040, 12288, 100, 0, NULL, 0);
	put(&f, 4000, BLK_A_ISSUE, w | BLK_F_ISSUE, 2040, 12288, 100, 0, NULL, 0);
	put(&f, 1000004000ull, BLK_A_REQUEUE, w | BLK_F_REQUEUE, 2040, 12288, 0, 0, NULL, 0);
	put(&f, 1000005000ull, BLK_A_ISSUE, w | BLK_F_ISSUE, 2040, 12288, 0, 0, NULL, 0);
	put(&f, 1000009000ull, BLK_A_COMPLETE, w | BLK_F_COMPLETE, 2040, 12288, 0, 0, NULL, 0);
	put(&f, 1000010000ull, BLK_A_QUEUE, BLK_F_READ | BLK_F_AHEAD | BLK_F_QUEUE, 4096, 65536,
	    4242, 0, NULL, 0);
	put(&f, 1000011000ull, BLK_A_SPLIT, BLK_F_READ | BLK_F_QUEUE, 4096, 65536, 4242, 0, split,
	    8);
	put(&f, 1000012000ull, BLK_A_REMAP, BLK_F_READ | BLK_F_QUEUE, 2111, 4096, 4242, 0, remap,
	    16);
	put(&f, 1000013000ull, BLK_A_BOUNCE, BLK_F_READ | BLK_F_QUEUE, 4096, 4096, 4242, 0, NULL,
	    0);
	put(&f, 1000014000ull, BLK_A_SLEEPRQ, BLK_F_READ | BLK_F_QUEUE, 4096, 4096, 4242, 0, NULL,
	    0);
	put(&f, 1000015000ull, BLK_A_UNPLUG_TIMER, BLK_F_QUEUE, 0, 0, 0, 0, unplug, 8);
	put(&f, 1000016000ull, BLK_A_QUEUE, BLK_F_DISCARD | BLK_F_WRITE | BLK_F_QUEUE, 8192,
	    1048576, 100, 0, NULL, 0);
	put(&f, 1000017000ull, BLK_A_QUEUE, BLK_F_FLUSH | BLK_F_WRITE | BLK_F_QUEUE, 0, 0, 100, 0,
	    NULL, 0);
	put(&f, 1000018000ull, BLK_N_MESSAGE, BLK_F_NOTIFY, 0, 0, 100, 0, "hello", 5);
	put(&f, 1000019000ull, BLK_A_ISSUE, BLK_F_PC | BLK_F_READ | BLK_F_ISSUE, 0, 4096, 100, 0,
	    cdb, 16);
	put(&f, 1000020000ull, BLK_A_COMPLETE, BLK_F_FUA | BLK_F_WRITE | BLK_F_COMPLETE, 64, 512, 0,
	    0, NULL, 0);
	put(&f, 1000021000ull, BLK_A_DRV_DATA, BLK_F_DRV_DATA, 0, 0, 0, 0, "xy", 2);
	file_close(&f);

	text = export_text("kinds");
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_string_equal(line(text, i), want[i]);
	/* then the summary, the input file and the note about driver data, and nothing else */
	p = strstr(text, summary);
	assert_non_null(p);
	assert_string_equal(line(text, 22), "CPU0 (kinds):");
	assert_int_equal(count(text, "\nCPU0 (kinds):\n"), 1);
	snprintf(tail, sizeof(tail),
	         "Input file %s/kinds.blktrace.0 added\n\ndiscarded traces containing low-level "
	         "device driver specific data (only available in binary output)\n",
	         tmpdir);
	assert_string_equal(p + strlen(summary), tail);
	free(text);
}

/*
 * blkparse learns a pid's name when it reads the note's batch of 512 records: the events of
 * earlier batches print "(null)", the events of the note's batch before the note print the
 * name. Records of another CPU (dropped) take their place in a batch; notes take none.
 */
static void test_batches(void **s)
{
	struct file f;
	char *text;
	uint64_t t = 0;

	(void)s;
	file_open(&f, "late", 0);
	for (unsigned i = 0; i < 600; i++, t += 1000) {
		if (i == 560)
			name(&f, t, 7, 0, "late-named-process");
		put(&f, t, BLK_A_QUEUE, BLK_F_READ | BLK_F_QUEUE, i * 8, 4096, 7, 0, NULL, 0);
	}
	file_close(&f);
	text = export_text("late");
	assert_int_equal(count(text, "[(null)]"), 512);
	assert_int_equal(count(text, "[late-named-proc]"), 88); /* 15 characters */
	assert_string_equal(line(text, 511),
	                    "  8,16   0      512     0.000511000     7  Q   R 4088 + 8 [(null)]");
	assert_string_equal(line(text, 512),
	                    "  8,16   0      513     0.000512000     7  Q   R 4096 + 8 "
	                    "[late-named-proc]");
	free(text);

	/* 300 events, 212 records of CPU 1 in CPU 0's file: the note is in the second batch */
	file_open(&f, "foreign", 0);
	t = 0;
	for (unsigned i = 0; i < 300; i++, t += 1000)
		put(&f, t, BLK_A_QUEUE, BLK_F_READ | BLK_F_QUEUE, i * 8, 4096, 7, 0, NULL, 0);
	for (unsigned i = 0; i < 212; i++, t += 1000)
		put(&f, t, BLK_A_QUEUE, BLK_F_READ | BLK_F_QUEUE, i * 8, 4096, 9, 1, NULL, 0);
	name(&f, t, 7, 0, "named");
	for (unsigned i = 0; i < 10; i++, t += 1000)
		put(&f, t, BLK_A_QUEUE, BLK_F_READ | BLK_F_QUEUE, i * 8, 4096, 7, 0, NULL, 0);
	file_close(&f);
	text = export_text("foreign");
	assert_int_equal(count(text, "[(null)]"), 300);
	assert_int_equal(count(text, "[named]"), 10);
	assert_int_equal(count(text, "     9  Q"), 0); /* the other CPU's records print nothing */
	free(text);

	/* a batch of nothing but another CPU's records ends the file */
	file_open(&f, "ends", 0);
	t = 0;
	for (unsigned i = 0; i < 5; i++, t += 1000)
		put(&f, t, BLK_A_QUEUE, BLK_F_READ | BLK_F_QUEUE, i * 8, 4096, 7, 0, NULL, 0);
	for (unsigned i = 0; i < 507 + 512; i++, t += 1000)
		put(&f, t, BLK_A_QUEUE, BLK_F_READ | BLK_F_QUEUE, i * 8, 4096, 9, 1, NULL, 0);
	for (unsigned i = 0; i < 5; i++, t += 1000)
		put(&f, t, BLK_A_QUEUE, BLK_F_READ | BLK_F_QUEUE, i * 8, 4096, 7, 0, NULL, 0);
	file_close(&f);
	text = export_text("ends");
	assert_int_equal(count(text, "     7  Q"), 5);
	free(text);
}

/* Two files merged: by time; at equal times the file that was already ahead goes on. */
static void test_merge(void **s)
{
	struct file f0, f1;
	char *text;

	(void)s;
	file_open(&f0, "two", 0);
	file_open(&f1, "two", 1);
	put(&f0, 100, BLK_A_QUEUE, BLK_F_READ | BLK_F_QUEUE, 0, 4096, 1, 0, NULL, 0);
	put(&f1, 150, BLK_A_QUEUE, BLK_F_READ | BLK_F_QUEUE, 8, 4096, 2, 1, NULL, 0);
	put(&f0, 200, BLK_A_QUEUE, BLK_F_READ | BLK_F_QUEUE, 16, 4096, 1, 0, NULL, 0);
	put(&f1, 200, BLK_A_QUEUE, BLK_F_READ | BLK_F_QUEUE, 24, 4096, 2, 1, NULL, 0);
	put(&f1, 200, BLK_A_QUEUE, BLK_F_READ | BLK_F_QUEUE, 32, 4096, 2, 1, NULL, 0);
	put(&f0, 200, BLK_A_QUEUE, BLK_F_READ | BLK_F_QUEUE, 40, 4096, 1, 0, NULL, 0);
	put(&f0, 300, BLK_A_QUEUE, BLK_F_READ | BLK_F_QUEUE, 48, 4096, 1, 0, NULL, 0);
	file_close(&f0);
	file_close(&f1);
	text = export_text("two");
	assert_string_equal(line(text, 0),
	                    "  8,16   0        1     0.000000000     1  Q   R 0 + 8 [(null)]");
	assert_string_equal(line(text, 1),
	                    "  8,16   1        1     0.000000050     2  Q   R 8 + 8 [(null)]");
	assert_string_equal(line(text, 2),
	                    "  8,16   1        2     0.000000100     2  Q   R 24 + 8 [(null)]");
	assert_string_equal(line(text, 3),
	                    "  8,16   1        3     0.000000100     2  Q   R 32 + 8 [(null)]");
	assert_string_equal(line(text, 4),
	                    "  8,16   0        2     0.000000100     1  Q   R 16 + 8 [(null)]");
	assert_string_equal(line(text, 5),
	                    "  8,16   0        3     0.000000100     1  Q   R 40 + 8 [(null)]");
	assert_string_equal(line(text, 6),
	                    "  8,16   0        4     0.000000200     1  Q   R 48 + 8 [(null)]");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lines),
	    cmocka_unit_test(test_batches),
	    cmocka_unit_test(test_merge),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown));
}
