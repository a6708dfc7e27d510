/* SPDX-License-Identifier: MIT */
/* Unit tests: blktrace decoding, reading (merge, gzip, notify, skips, bad input), writing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <byteswap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "formats/blktrace.h"
#include "../tmpdir.h"

/* Build a record by hand in the given version and byte order. */
static size_t mkrec(uint8_t *b, int v8, int sw, uint32_t seq, uint64_t time, uint64_t sector,
                    uint32_t bytes, uint64_t action, uint32_t pid, uint32_t dev, uint32_t cpu,
                    uint16_t error, const void *pdu, uint16_t pdu_len)
{
/* the BITS-bit value v at b + off, byte-swapped where sw */
#define WN(bits, off, v)                                                                           \
	do {                                                                                       \
		uint##bits##_t x = (v);                                                            \
		if (sw)                                                                            \
			x = bswap_##bits(x);                                                       \
		memcpy(b + (off), &x, (bits) / 8);                                                 \
	} while (0)
#define W16(off, v) WN(16, off, v)
#define W32(off, v) WN(32, off, v)
#define W64(off, v) WN(64, off, v)
	size_t hdr = v8 ? 64 : 48;

	memset(b, 0, hdr);
	W32(0, BT_MAGIC | (v8 ? 8 : 7));
	W32(4, seq);
	W64(8, time);
	W64(16, sector);
	W32(24, bytes);
	if (v8) {
		W32(28, pid);
		W64(32, action);
		W32(40, dev);
		W32(44, cpu);
		W16(48, error);
		W16(50, pdu_len);
	} else {
		W32(28, (uint32_t)action);
		W32(32, pid);
		W32(36, dev);
		W32(40, cpu);
		W16(44, error);
		W16(46, pdu_len);
	}
	if (pdu_len)
		memcpy(b + hdr, pdu, pdu_len);
	return hdr + pdu_len;
}

#define ACT(code, cats) ((uint64_t)(cats) << 16 | (code))

static void check_decoded(int v8, int sw)
{
	uint8_t b[128];
	struct blk_event ev;
	struct iot_err e;
	size_t n = mkrec(b, v8, sw, 42, 123456789012ull, 1ull << 40, 4096,
	                 ACT(BLK_A_COMPLETE, BLK_F_WRITE | BLK_F_SYNC | BLK_F_COMPLETE), 777,
	                 BLK_MKDEV(8, 16), 3, 5, NULL, 0);

	assert_int_equal(bt_decode(b, n, &ev, &e), (long)n);
	assert_int_equal(ev.seq, 42);
	assert_true(ev.time == 123456789012ull);
	assert_true(ev.sector == 1ull << 40);
	assert_int_equal(ev.bytes, 4096);
	assert_int_equal(ev.action, BLK_A_COMPLETE);
	assert_true(ev.flags == (BLK_F_WRITE | BLK_F_SYNC | BLK_F_COMPLETE));
	assert_int_equal(ev.pid, 777);
	assert_int_equal(BLK_DEV_MAJOR(ev.dev), 8);
	assert_int_equal(BLK_DEV_MINOR(ev.dev), 16);
	assert_int_equal(ev.cpu, 3);
	assert_int_equal(ev.error, 5);
	assert_int_equal(ev.pdu_len, 0);
	/* one byte short of the header: need more */
	assert_int_equal(bt_decode(b, n - 1, &ev, &e), 0);
}

static void test_decode_v7_native(void **s)
{
	(void)s;
	check_decoded(0, 0);
}

static void test_decode_v7_swapped(void **s)
{
	(void)s;
	check_decoded(0, 1);
}

static void test_decode_v8_native(void **s)
{
	(void)s;
	check_decoded(1, 0);
}

static void test_decode_v8_swapped(void **s)
{
	(void)s;
	check_decoded(1, 1);
}

static void test_decode_v8_wide_categories(void **s)
{
	uint8_t b[128];
	struct blk_event ev;
	size_t n =
	    mkrec(b, 1, 0, 1, 1, 0, 0, ACT(BLK_A_COMPLETE, BLK_F_WRITE_ZEROES | BLK_F_COMPLETE), 1,
	          1, 0, 0, NULL, 0);

	(void)s;
	assert_int_equal(bt_decode(b, n, &ev, NULL), (long)n);
	assert_true(ev.flags & BLK_F_WRITE_ZEROES);
	assert_int_equal(ev.action, BLK_A_COMPLETE);
}

static void test_decode_cgroup_and_pdu(void **s)
{
	uint8_t b[128], pdu[12];
	uint64_t cg = 0x1122334455667788ull;
	struct blk_event ev;
	size_t n;

	(void)s;
	memcpy(pdu, &cg, 8);
	memcpy(pdu + 8, "abcd", 4);
	n = mkrec(b, 0, 0, 1, 1, 0, 0, ACT(BLK_A_DRV_DATA | 0x100, BLK_F_DRV_DATA), 1, 1, 0, 0, pdu,
	          12);
	assert_int_equal(bt_decode(b, n, &ev, NULL), (long)n);
	assert_true(ev.flags & BLK_F_CGROUP);
	assert_true(ev.cgroup == cg);
	assert_int_equal(ev.pdu_len, 4);
	assert_memory_equal(ev.pdu, "abcd", 4);
	assert_int_equal(ev.action, BLK_A_DRV_DATA);
}

/*
 * iotape's cgroup PDU (formats/bt_decode.h): an 8-byte PDU on an action the kernel gives none
 * (Q M F G S R D C I), without the kernel's cgroup bit, which blkparse 1.3 rejects. A
 * passthrough record's PDU (its command) and the PDUs of U, X and A are not cgroups.
 */
static void test_decode_cgroup_pdu_without_bit(void **s)
{
	uint8_t b[128];
	uint64_t cg = 4242, be = 0x0100000000000000ull;
	struct blk_event ev;
	size_t n;

	(void)s;
	for (int sw = 0; sw < 2; sw++) {
		uint64_t v = sw ? bswap_64(cg) : cg;

		n = mkrec(b, 0, sw, 1, 1, 8, 4096,
		          ACT(BLK_A_ISSUE, BLK_F_ISSUE | BLK_F_WRITE | BLK_F_FS), 1, 1, 0, 0, &v,
		          8);
		assert_int_equal(bt_decode(b, n, &ev, NULL), (long)n);
		assert_true(ev.flags & BLK_F_CGROUP);
		assert_true(ev.cgroup == cg);
		assert_int_equal(ev.pdu_len, 0);
	}
	n = mkrec(b, 0, 0, 1, 1, 8, 4096, ACT(BLK_A_QUEUE, BLK_F_QUEUE | BLK_F_READ), 1, 1, 0, 0,
	          &cg, 8);
	assert_int_equal(bt_decode(b, n, &ev, NULL), (long)n);
	assert_true(ev.cgroup == cg && (ev.flags & BLK_F_CGROUP));
	/* the unplug depth stays the unplug's */
	n = mkrec(b, 0, 0, 1, 1, 0, 0, ACT(BLK_A_UNPLUG_IO, BLK_F_QUEUE), 1, 1, 0, 0, &be, 8);
	assert_int_equal(bt_decode(b, n, &ev, NULL), (long)n);
	assert_false(ev.flags & BLK_F_CGROUP);
	assert_int_equal(ev.pdu_len, 8);
	/* a passthrough command of 8 bytes is a command */
	n = mkrec(b, 0, 0, 1, 1, 0, 0, ACT(BLK_A_ISSUE, BLK_F_ISSUE | BLK_F_PC), 1, 1, 0, 0, &cg,
	          8);
	assert_int_equal(bt_decode(b, n, &ev, NULL), (long)n);
	assert_false(ev.flags & BLK_F_CGROUP);
	assert_int_equal(ev.pdu_len, 8);
}

/* The writer writes that form where the kernel's would stop blkparse, and the kernel's
 * (the bit) where the action has a PDU of its own; both read back. */
static void test_encode_cgroup(void **s)
{
	uint8_t b[128], pdu[8] = {0, 0, 0, 0, 0, 0, 0, 9};
	struct blk_event ev = {0}, got;
	uint32_t action;
	size_t n;

	(void)s;
	ev.action = BLK_A_COMPLETE;
	ev.flags = BLK_F_COMPLETE | BLK_F_READ | BLK_F_FS | BLK_F_CGROUP;
	ev.cgroup = 77;
	ev.bytes = 4096;
	n = bt_encode7(&ev, b, sizeof(b));
	assert_int_equal(n, BT_REC7_SIZE + 8);
	memcpy(&action, b + BT7_ACTION, 4);
	assert_int_equal(action & 0xffff, BLK_A_COMPLETE);
	assert_int_equal(bt_decode(b, n, &got, NULL), (long)n);
	assert_true(got.cgroup == 77 && (got.flags & BLK_F_CGROUP) && !got.pdu_len);
	ev.action = BLK_A_SPLIT;
	ev.flags = BLK_F_READ | BLK_F_CGROUP;
	ev.pdu = pdu;
	ev.pdu_len = 8;
	n = bt_encode7(&ev, b, sizeof(b));
	assert_int_equal(n, BT_REC7_SIZE + 16);
	memcpy(&action, b + BT7_ACTION, 4);
	assert_int_equal(action & 0xffff, BLK_A_SPLIT | 0x100);
	assert_int_equal(bt_decode(b, n, &got, NULL), (long)n);
	assert_true(got.cgroup == 77 && got.pdu_len == 8);
}

static void test_decode_remap(void **s)
{
	uint8_t b[128];
	/* struct blk_io_trace_remap is big-endian whatever the record order */
	uint8_t pdu[16] = {0, 0x80, 0, 1, 0, 0x10, 0, 2, 0, 0, 0, 0, 0, 0, 0x12, 0x34};
	struct blk_event ev;
	size_t n = mkrec(b, 0, 1, 1, 1, 99, 512, ACT(BLK_A_REMAP, BLK_F_QUEUE | BLK_F_READ), 1,
	                 BLK_MKDEV(1, 2), 0, 0, pdu, 16);
	uint32_t dev = 0;
	uint64_t sector = 0;

	(void)s;
	assert_int_equal(bt_decode(b, n, &ev, NULL), (long)n);
	assert_int_equal(ev.action, BLK_A_REMAP);
	assert_true(blk_event_remap(&ev, &dev, &sector));
	assert_int_equal(dev, 0x00800001);
	assert_true(sector == 0x1234);
	/* a PDU too short for the remap source */
	ev.pdu_len = 15;
	assert_false(blk_event_remap(&ev, &dev, &sector));
}

static void test_decode_bad(void **s)
{
	uint8_t b[128];
	struct blk_event ev;
	struct iot_err e;
	size_t n = mkrec(b, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, NULL, 0);

	(void)s;
	b[3] = 0x99; /* the magic's top byte */
	assert_int_equal(bt_decode(b, n, &ev, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "bad magic"));
	n = mkrec(b, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, NULL, 0);
	b[0] = 6; /* version 6 */
	assert_int_equal(bt_decode(b, n, &ev, &e), -EPROTO);
	assert_non_null(strstr(e.msg, "version 6"));
	/* a PDU that is not all there yet: need more bytes */
	n = mkrec(b, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, "xyz", 3);
	assert_int_equal(bt_decode(b, n - 1, &ev, &e), 0);
	assert_int_equal(bt_decode(b, 3, &ev, &e), 0);
}

static void write_file(const char *name, const void *buf, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* Two per-CPU files with interleaved times come out merged by time. */
static void test_reader_merge(void **s)
{
	uint8_t b0[48 * 4], b1[48 * 4];
	size_t n0 = 0, n1 = 0;
	struct bt_reader *r;
	struct blk_event ev;
	struct iot_err e;
	uint64_t times0[] = {10, 30, 50, 70}, times1[] = {20, 40, 41, 90};
	uint64_t want[] = {10, 20, 30, 40, 41, 50, 70, 90}, got[8];
	int k = 0;

	(void)s;
	for (int i = 0; i < 4; i++) {
		n0 += mkrec(b0 + n0, 0, 0, (uint32_t)i + 1, times0[i], 0, 0,
		            ACT(BLK_A_QUEUE, BLK_F_QUEUE), 1, 1, 0, 0, NULL, 0);
		n1 += mkrec(b1 + n1, 0, 0, (uint32_t)i + 1, times1[i], 0, 0,
		            ACT(BLK_A_QUEUE, BLK_F_QUEUE), 1, 1, 1, 0, NULL, 0);
	}
	write_file("m.blktrace.0", b0, n0);
	write_file("m.blktrace.1", b1, n1);
	assert_int_equal(bt_reader_open(&r, tpath("m"), &e), 0);
	while (bt_reader_next(r, &ev, &e) == 1)
		got[k++] = ev.time;
	assert_int_equal(k, 8);
	assert_memory_equal(got, want, sizeof(want));
	assert_int_equal(bt_reader_stats(r)->nfiles, 2);
	assert_int_equal(bt_reader_stats(r)->skips, 0);
	bt_reader_free(r);
	/* the directory form finds the same set */
	assert_int_equal(bt_reader_open(&r, tmpdir, &e), 0);
	k = 0;
	while (bt_reader_next(r, &ev, &e) == 1)
		k++;
	assert_int_equal(k, 8);
	bt_reader_free(r);
}

static void test_reader_skips_and_notify(void **s)
{
	uint8_t b[512];
	size_t n = 0;
	struct bt_reader *r;
	struct blk_event ev;
	struct iot_err e;
	uint32_t ts[2] = {1700000000, 123};
	int events = 0;

	(void)s;
	n += mkrec(b + n, 0, 0, 0, 1, 0, 0, ACT(BLK_N_PROCESS, BLK_F_NOTIFY), 4242, 1, 0, 0,
	           "fio\0\0\0\0", 8);
	n += mkrec(b + n, 0, 0, 0, 1, 0, 0, ACT(BLK_N_TIMESTAMP, BLK_F_NOTIFY), 0, 1, 0, 0, ts, 8);
	n += mkrec(b + n, 0, 0, 1, 2, 0, 0, ACT(BLK_A_QUEUE, BLK_F_QUEUE), 4242, 1, 0, 0, NULL, 0);
	n += mkrec(b + n, 0, 0, 2, 3, 0, 0, ACT(BLK_A_QUEUE, BLK_F_QUEUE), 4242, 1, 0, 0, NULL, 0);
	/* 3, 4, 5 lost */
	n += mkrec(b + n, 0, 0, 6, 4, 0, 0, ACT(BLK_A_QUEUE, BLK_F_QUEUE), 4242, 1, 0, 0, NULL, 0);
	write_file("sk.bin", b, n);
	assert_int_equal(bt_reader_open(&r, tpath("sk.bin"), &e), 0);
	while (bt_reader_next(r, &ev, &e) == 1)
		events++;
	assert_int_equal(events, 5);
	assert_int_equal(bt_reader_stats(r)->skips, 3);
	assert_int_equal(bt_reader_stats(r)->notifies, 2);
	assert_string_equal(bt_reader_comm(r, 4242), "fio");
	assert_null(bt_reader_comm(r, 1));
	assert_int_equal(bt_reader_stats(r)->have_wallclock, 1);
	assert_int_equal(bt_reader_stats(r)->wall_sec, 1700000000);
	assert_int_equal(bt_reader_stats(r)->wall_nsec, 123);
	bt_reader_free(r);
}

static void test_reader_truncated_final(void **s)
{
	uint8_t b[256];
	size_t n = 0;
	struct bt_reader *r;
	struct blk_event ev;
	struct iot_err e;
	int events = 0;

	(void)s;
	n += mkrec(b + n, 0, 0, 1, 1, 0, 0, ACT(BLK_A_QUEUE, BLK_F_QUEUE), 1, 1, 0, 0, NULL, 0);
	n += mkrec(b + n, 0, 0, 2, 2, 0, 0, ACT(BLK_A_QUEUE, BLK_F_QUEUE), 1, 1, 0, 0, NULL, 0);
	mkrec(b + n, 0, 0, 3, 3, 0, 0, ACT(BLK_A_QUEUE, BLK_F_QUEUE), 1, 1, 0, 0, NULL, 0);
	write_file("tr.bin", b, n + 20); /* the first 20 bytes of a third record */
	assert_int_equal(bt_reader_open(&r, tpath("tr.bin"), &e), 0);
	while (bt_reader_next(r, &ev, &e) == 1)
		events++;
	assert_int_equal(events, 2);
	assert_int_equal(bt_reader_stats(r)->files[0].truncated, 1);
	assert_int_equal(bt_reader_stats(r)->files[0].trunc_at, 96);
	bt_reader_free(r);
}

static void test_reader_bad_inputs(void **s)
{
	static uint8_t big[2048];
	uint8_t b[256];
	size_t n;
	struct bt_reader *r;
	struct blk_event ev;
	struct iot_err e;
	int ret;

	(void)s;
	/* only a partial record: an error naming file and offset */
	n = mkrec(b, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, NULL, 0);
	write_file("part.bin", b, n - 8);
	assert_int_equal(bt_reader_open(&r, tpath("part.bin"), &e), -EINVAL);
	assert_non_null(strstr(e.msg, "part.bin"));
	assert_non_null(strstr(e.msg, "offset 0"));
	/* pdu_len runs past the end of the file */
	n = mkrec(b, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, NULL, 0);
	b[46] = 0xff;
	write_file("pdu.bin", b, n);
	assert_int_equal(bt_reader_open(&r, tpath("pdu.bin"), &e), -EINVAL);
	assert_non_null(strstr(e.msg, "pdu_len"));
	/* a pdu_len no kernel writes is bad bytes, not a truncated record, wherever it is */
	memset(big, 0, sizeof(big));
	n = mkrec(big, 0, 0, 1, 1, 0, 0, ACT(BLK_A_QUEUE, BLK_F_QUEUE), 1, 1, 0, 0, NULL, 0);
	n += mkrec(big + n, 0, 0, 2, 2, 0, 0, ACT(BLK_A_QUEUE, BLK_F_QUEUE), 1, 1, 0, 0, NULL, 0);
	big[48 + 46] = 0x01;
	big[48 + 47] = 0x04; /* 1025 (little-endian host), more than BT_PDU_MAX */
	write_file("pdumax.bin", big, sizeof(big));
	assert_int_equal(bt_reader_open(&r, tpath("pdumax.bin"), &e), 0);
	assert_int_equal(bt_reader_next(r, &ev, &e), 1);
	assert_int_equal(bt_reader_next(r, &ev, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "'"));
	assert_non_null(strstr(e.msg, "pdumax.bin': impossible pdu_len 1025"));
	assert_non_null(strstr(e.msg, "at offset 48 (record 2)"));
	bt_reader_free(r);
	/* bad magic in the middle: an error with the offset of the bad record */
	n = mkrec(b, 0, 0, 1, 1, 0, 0, ACT(BLK_A_QUEUE, BLK_F_QUEUE), 1, 1, 0, 0, NULL, 0);
	n += mkrec(b + n, 0, 0, 2, 2, 0, 0, ACT(BLK_A_QUEUE, BLK_F_QUEUE), 1, 1, 0, 0, NULL, 0);
	memcpy(b + 48, "JUNK", 4);
	write_file("magic.bin", b, n);
	assert_int_equal(bt_reader_open(&r, tpath("magic.bin"), &e), 0);
	assert_int_equal(bt_reader_next(r, &ev, &e), 1);
	ret = bt_reader_next(r, &ev, &e);
	assert_int_equal(ret, -EINVAL);
	assert_non_null(strstr(e.msg, "bad magic 0x4b4e554a at offset 48 (record 2)"));
	bt_reader_free(r);
	/* unsupported version */
	n = mkrec(b, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, NULL, 0);
	b[0] = 9;
	write_file("v9.bin", b, n);
	assert_int_equal(bt_reader_open(&r, tpath("v9.bin"), &e), -EPROTO);
	assert_non_null(strstr(e.msg, "version 9"));
	/* empty file, empty set, missing set */
	write_file("empty.bin", b, 0);
	assert_int_equal(bt_reader_open(&r, tpath("empty.bin"), &e), -EINVAL);
	assert_non_null(strstr(e.msg, "empty"));
	write_file("es.blktrace.0", b, 0);
	write_file("es.blktrace.1", b, 0);
	assert_int_equal(bt_reader_open(&r, tpath("es"), &e), -EINVAL);
	assert_non_null(strstr(e.msg, "empty trace set"));
	assert_int_equal(bt_reader_open(&r, tpath("nothing"), &e), -ENOENT);
}

static void test_reader_gzip(void **s)
{
	uint8_t b[256];
	size_t n = 0;
	struct bt_reader *r;
	struct blk_event ev;
	struct iot_err e;
	gzFile gz;
	int events = 0;

	(void)s;
	for (int i = 0; i < 3; i++)
		n += mkrec(b + n, 1, 1, (uint32_t)i + 1, (uint64_t)i, 0, 512,
		           ACT(BLK_A_ISSUE, BLK_F_READ | BLK_F_ISSUE), 1, 1, 0, 0, NULL, 0);
	gz = gzopen(tpath("z.blktrace.0.gz"), "wb");
	assert_non_null(gz);
	assert_int_equal(gzwrite(gz, b, (unsigned)n), (int)n);
	gzclose(gz);
	assert_int_equal(bt_reader_open(&r, tpath("z"), &e), 0);
	while (bt_reader_next(r, &ev, &e) == 1) {
		assert_int_equal(ev.bytes, 512);
		events++;
	}
	assert_int_equal(events, 3);
	assert_int_equal(bt_reader_stats(r)->files[0].gzip, 1);
	assert_int_equal(bt_reader_stats(r)->files[0].version, 8);
	assert_int_equal(bt_reader_stats(r)->files[0].swapped, 1);
	bt_reader_free(r);
}

/* Writer output reads back identically, and each CPU gets its file (even an empty one). */
static void test_writer_roundtrip(void **s)
{
	struct bt_set_writer *w;
	struct bt_reader *r;
	struct blk_event ev, got;
	struct iot_err e;
	struct stat st;
	char dir[128];
	int k = 0;

	(void)s;
	snprintf(dir, sizeof(dir), "%s/wr", tmpdir);
	mkdir(dir, 0755);
	assert_int_equal(bt_set_writer_open(&w, dir, "loop9", &e), 0);
	memset(&ev, 0, sizeof(ev));
	ev.dev = BLK_MKDEV(7, 9);
	for (int i = 0; i < 10; i++) {
		ev.time = (uint64_t)i * 1000;
		ev.seq = (uint32_t)i / 2 + 1;
		ev.cpu = (i % 2) ? 2 : 1; /* CPU 0 sees nothing */
		ev.sector = (uint64_t)i * 8;
		ev.bytes = 4096;
		ev.action = BLK_A_ISSUE;
		ev.flags = BLK_F_WRITE | BLK_F_ISSUE | (i == 3 ? BLK_F_CGROUP : 0);
		ev.cgroup = i == 3 ? 77 : 0;
		assert_int_equal(bt_set_writer_write(w, &ev, &e), 0);
	}
	assert_int_equal(bt_set_writer_close(w, &e), 0);
	snprintf(dir, sizeof(dir), "%s/wr/loop9.blktrace.0", tmpdir);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_size, 0);
	snprintf(dir, sizeof(dir), "%s/wr/loop9", tmpdir);
	assert_int_equal(bt_reader_open(&r, dir, &e), 0);
	while (bt_reader_next(r, &got, &e) == 1) {
		assert_true(got.time == (uint64_t)k * 1000);
		assert_true(got.sector == (uint64_t)k * 8);
		assert_int_equal(got.action, BLK_A_ISSUE);
		assert_true((got.flags & BLK_F_WRITE) != 0);
		assert_true(got.cgroup == (k == 3 ? 77u : 0u));
		k++;
	}
	assert_int_equal(k, 10);
	bt_reader_free(r);
}

/* Records stored in the room bt_set_writer_room() gives are the files write_raw() makes of
 * them, past the buffer's size; a file that cannot be made is an error. */
static void test_writer_room(void **s)
{
	struct bt_set_writer *w[2];
	struct iot_err e;
	char dir[2][128], path[2][288];
	static uint8_t got[2][3 << 20];
	uint8_t rec[BT_REC7_SIZE + 8], *p;
	struct blk_event ev = {0};
	size_t n[2];
	int ret = 0;

	(void)s;
	for (int k = 0; k < 2; k++) {
		snprintf(dir[k], sizeof(dir[k]), "%s/room%d", tmpdir, k);
		mkdir(dir[k], 0755);
		assert_int_equal(bt_set_writer_open(&w[k], dir[k], "loop9", &e), 0);
	}
	ev.dev = BLK_MKDEV(7, 9);
	ev.action = BLK_A_COMPLETE;
	ev.bytes = 4096;
	for (uint32_t i = 0; i < 50000; i++) {
		ev.time = i;
		ev.sector = i;
		ev.cpu = i % 3 == 0;
		ev.flags = BLK_F_READ | BLK_F_COMPLETE | (i % 2 ? BLK_F_CGROUP : 0);
		ev.cgroup = i;
		n[0] = bt_encode7(&ev, rec, sizeof(rec));
		assert_int_equal(bt_set_writer_write_raw(w[0], ev.cpu, rec, n[0], &e), 0);
		assert_non_null(p = bt_set_writer_room(w[1], ev.cpu, n[0], &ret, &e));
		memcpy(p, rec, n[0]);
	}
	for (int k = 0; k < 2; k++)
		assert_int_equal(bt_set_writer_close(w[k], &e), 0);
	for (unsigned cpu = 0; cpu < 2; cpu++) {
		for (int k = 0; k < 2; k++) {
			FILE *f;

			snprintf(path[k], sizeof(path[k]), "%s/loop9.blktrace.%u", dir[k], cpu);
			assert_non_null(f = fopen(path[k], "rb"));
			n[k] = fread(got[k], 1, sizeof(got[k]), f);
			fclose(f);
		}
		assert_true(n[0] > (1u << 20) || cpu == 1);
		assert_int_equal(n[0], n[1]);
		assert_memory_equal(got[0], got[1], n[0]);
	}
	assert_int_equal(bt_set_writer_open(&w[0], "/nonexistent-iotape-dir", "loop9", &e), 0);
	assert_null(bt_set_writer_room(w[0], 0, BT_REC7_SIZE, &ret, &e));
	assert_int_equal(ret, -ENOENT);
	assert_null(bt_set_writer_buf(w[0], 0, &ret, &e));
	assert_int_equal(ret, -ENOENT);
	bt_set_writer_close(w[0], NULL);
}

/* A CPU's buffer at hand (bt_set_writer_buf()) fills, bt_set_writer_room() writes it out; a
 * write error leaves the buffer with no room, and every later room says so. */
static void test_writer_buf_error(void **s)
{
	struct bt_set_writer *w;
	struct bt_wbuf *b;
	struct iot_err e;
	char dir[128], path[192];
	size_t n = 0;
	int ret = 0;

	(void)s;
	snprintf(dir, sizeof(dir), "%s/full", tmpdir);
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/loop9.blktrace.0", dir);
	assert_int_equal(symlink("/dev/full", path), 0);
	assert_int_equal(bt_set_writer_open(&w, dir, "loop9", &e), 0);
	assert_non_null(b = bt_set_writer_buf(w, 0, &ret, &e));
	while (bt_wbuf_room(b, BT_REC7_SIZE))
		n++;
	assert_true(n > 1000);
	assert_null(bt_set_writer_room(w, 0, BT_REC7_SIZE, &ret, &e));
	assert_int_equal(ret, -ENOSPC);
	assert_null(bt_wbuf_room(b, BT_REC7_SIZE));
	ret = 0;
	assert_null(bt_set_writer_room(w, 0, BT_REC7_SIZE, &ret, &e));
	assert_int_equal(ret, -ENOSPC);
	assert_int_equal(bt_set_writer_close(w, &e), -ENOSPC);
}

/* With prefetch the reader gives the same events, notifies, stats and errors. */
static void test_reader_prefetch(void **s)
{
	static uint8_t b[48 * 20000];
	size_t n = 0;
	struct bt_reader *r;
	struct blk_event ev;
	struct iot_err e;
	/* the kernel writes the words in its own byte order: the other one, here */
	uint32_t ts[2] = {bswap_32(1700000000), bswap_32(99)};
	uint64_t k = 0;
	int ret;

	(void)s;
	/* swapped v8: the TIMESTAMP words must still come out right */
	n += mkrec(b + n, 1, 1, 0, 0, 0, 0, ACT(BLK_N_TIMESTAMP, BLK_F_NOTIFY), 0, 1, 0, 0, ts, 8);
	for (uint32_t i = 1; i <= 9000; i++)
		n += mkrec(b + n, 1, 1, i + (i > 5000), i, i, 512, ACT(BLK_A_QUEUE, BLK_F_QUEUE), 1,
		           1, 0, 0, NULL, 0);
	n += mkrec(b + n, 1, 1, 0, 9001, 0, 0, ACT(BLK_N_PROCESS, BLK_F_NOTIFY), 5, 1, 0, 0,
	           "sh\0\0", 4);
	write_file("pf.bin", b, n);
	assert_int_equal(bt_reader_open(&r, tpath("pf.bin"), &e), 0);
	assert_int_equal(bt_reader_prefetch(r, &e), 0);
	while ((ret = bt_reader_next(r, &ev, &e)) == 1) {
		if (!blk_is_notify(&ev))
			assert_true(ev.sector == ++k);
	}
	assert_int_equal(ret, 0);
	assert_int_equal(k, 9000);
	assert_int_equal(bt_reader_stats(r)->events, 9002);
	assert_int_equal(bt_reader_stats(r)->skips, 1);
	assert_int_equal(bt_reader_stats(r)->wall_nsec, 99);
	assert_string_equal(bt_reader_comm(r, 5), "sh");
	bt_reader_free(r);

	/* an error after many events arrives after them, with its message */
	memcpy(b + 72 + 64 * 5999, "JUNK", 4); /* after the notify (72 bytes), 5999 events */
	write_file("pf2.bin", b, n);
	assert_int_equal(bt_reader_open(&r, tpath("pf2.bin"), &e), 0);
	assert_int_equal(bt_reader_prefetch(r, &e), 0);
	k = 0;
	while ((ret = bt_reader_next(r, &ev, &e)) == 1)
		k++;
	assert_int_equal(ret, -EINVAL);
	assert_int_equal(k, 6000);
	assert_non_null(strstr(e.msg, "bad magic"));
	bt_reader_free(r);

	/* freeing a reader whose thread is still ahead of the caller */
	assert_int_equal(bt_reader_open(&r, tpath("pf.bin"), &e), 0);
	assert_int_equal(bt_reader_prefetch(r, &e), 0);
	assert_int_equal(bt_reader_next(r, &ev, &e), 1);
	bt_reader_free(r);
}

/*
 * The reader's fast paths against a plain merge: two large per-CPU files (so that a mapped
 * file is handed back in steps), with ties in time between them, sequence gaps, records that
 * must take the general path (a PDU, a notify, a cgroup id), and a third, byte-swapped
 * version 8 file. Read by batches (plain, prefetched, gzip), and one by one before batches:
 * all give the order of a sort by (time, file, position in the file).
 */
#define FP_N 120000
#define FP_N2 1000

struct fp_want {
	uint64_t time;
	uint32_t file, pos, seq;
};

/*
 * bt_reader_next_batch_max(): slices of at most max events, in order, notifies' names known;
 * without prefetch a batch read anew holds max, so a caller taking fixed windows gets each in
 * one piece (blkparse's export reads its batches of 512 in place).
 */
static void test_reader_batch_max(void **s)
{
	enum { N = 2000 };
	static const unsigned maxes[] = {100, 1, 512, 300, 7, 4096, 250};
	uint8_t *b = malloc((size_t)N * 64);
	size_t len = 0;

	(void)s;
	assert_non_null(b);
	for (uint32_t i = 0; i < N; i++)
		if (i == 1234)
			len +=
			    mkrec(b + len, 0, 0, 0, 2ull * i, 0, 0,
			          ACT(BLK_N_PROCESS, BLK_F_NOTIFY), 77, 1, 0, 0, "late\0\0\0\0", 8);
		else
			len += mkrec(b + len, 0, 0, i + 1, 2ull * i, i, 4096,
			             ACT(BLK_A_QUEUE, BLK_F_QUEUE), 77, 1, 0, 0, NULL, 0);
	write_file("bm.blktrace.0", b, len);
	free(b);
	for (int prefetch = 0; prefetch < 2; prefetch++) {
		struct bt_reader *r;
		struct iot_err e;
		const struct blk_event *ev;
		unsigned n, k = 0, call = 0;
		int ret;

		assert_int_equal(bt_reader_open(&r, tpath("bm"), &e), 0);
		if (prefetch)
			assert_int_equal(bt_reader_prefetch(r, &e), 0);
		for (;; call++) {
			unsigned max = maxes[call % 7];

			ret = bt_reader_next_batch_max(r, max, &ev, &n, &e);
			if (ret != 1)
				break;
			assert_true(n >= 1 && n <= max);
			/* without a thread: exactly max until the trace runs out */
			if (!prefetch)
				assert_int_equal(n, max < 512 ? (N - k < max ? N - k : max)
				                              : (N - k < 512 ? N - k : 512));
			for (unsigned j = 0; j < n; j++, k++) {
				assert_true(ev[j].time == 2ull * k);
				if (k == 1234)
					assert_string_equal(bt_reader_comm(r, 77), "late");
			}
		}
		assert_int_equal(ret, 0);
		assert_int_equal(k, N);
		bt_reader_free(r);
	}
}

static int fp_cmp(const void *a, const void *b)
{
	const struct fp_want *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* ev is the record want describes: its time, file (the CPU), position (the sector), sequence. */
static void fp_expect(const struct blk_event *ev, const struct fp_want *want)
{
	assert_true(ev->time == want->time);
	assert_int_equal(ev->cpu, want->file);
	assert_true(ev->sector == want->pos);
	assert_int_equal(ev->seq, want->seq);
}

/* A tap that counts and sums what it was given, in the reader's thread. */
struct fp_tap {
	uint64_t events, sum;
};

static void fp_tap_fn(void *arg, const struct blk_event *ev, unsigned n)
{
	struct fp_tap *t = arg;

	for (unsigned i = 0; i < n; i++)
		t->sum += ev[i].time ^ ev[i].seq;
	t->events += n;
}

static void test_reader_fast_paths(void **s)
{
	size_t cap = (size_t)FP_N * 64, n0 = 0, n1 = 0, n2 = 0, nw = 0;
	uint8_t *b0 = malloc(cap), *b1 = malloc(cap), *b2 = malloc(FP_N2 * 64);
	struct fp_want *want = malloc((2 * FP_N + FP_N2) * sizeof(*want));
	uint64_t cg = 77;
	uint32_t seq0 = 0, skips = 0;
	const uint64_t act = ACT(BLK_A_QUEUE, BLK_F_QUEUE | BLK_F_READ);

	(void)s;
	assert_non_null(b0);
	assert_non_null(b1);
	assert_non_null(b2);
	assert_non_null(want);
	for (uint32_t i = 0; i < FP_N; i++) {
		uint64_t ta = 2ull * i, tb = 2ull * i + (i % 7 ? 1 : 0); /* every 7th: a tie */
		uint32_t sq;

		if (i % 9000 == 5) {
			/* a notify with a name: the general path, outside the sequence */
			n0 += mkrec(b0 + n0, 0, 0, 0, ta, 0, 0, ACT(BLK_N_PROCESS, BLK_F_NOTIFY), 9,
			            1, 0, 0, "dd\0\0", 4);
			sq = 0;
		} else {
			seq0 += (i % 1000 == 999) ? 2 : 1; /* one record lost in every 1000 */
			skips += (i % 1000 == 999);
			sq = seq0;
			if (i % 5000 == 17) /* a cgroup id first in the PDU: the general path */
				n0 += mkrec(b0 + n0, 0, 0, sq, ta, i, 4096, act | 0x100, 9, 1, 0, 0,
				            &cg, 8);
			else if (i % 5000 == 18) /* iotape's cgroup PDU, without the bit */
				n0 +=
				    mkrec(b0 + n0, 0, 0, sq, ta, i, 4096, act, 9, 1, 0, 0, &cg, 8);
			else
				n0 +=
				    mkrec(b0 + n0, 0, 0, sq, ta, i, 4096, act, 9, 1, 0, 0, NULL, 0);
		}
		want[nw++] = (struct fp_want){ta, 0, i, sq};
		n1 += mkrec(b1 + n1, 0, 0, i + 1, tb, i, 512, act, 9, 1, 1, 0, NULL, 0);
		want[nw++] = (struct fp_want){tb, 1, i, i + 1};
	}
	for (uint32_t i = 0; i < FP_N2; i++) {
		uint64_t t = 240ull * i + 3;

		n2 += mkrec(b2 + n2, 1, 1, i + 1, t, i, 512, act, 9, 1, 2, 0, NULL, 0);
		want[nw++] = (struct fp_want){t, 2, i, i + 1};
	}
	qsort(want, nw, sizeof(*want), fp_cmp);
	write_file("fp.blktrace.0", b0, n0);
	write_file("fp.blktrace.1", b1, n1);
	write_file("fp.blktrace.2", b2, n2);
	/* the same set gzip-compressed: read through a buffer that is refilled, not mapped */
	for (int f = 0; f < 3; f++) {
		char name[32];
		gzFile gz;

		snprintf(name, sizeof(name), "fz.blktrace.%d.gz", f);
		gz = gzopen(tpath(name), "wb1");
		assert_non_null(gz);
		assert_int_equal(gzwrite(gz,
		                         f == 0   ? b0
		                         : f == 1 ? b1
		                                  : b2,
		                         (unsigned)(f == 0   ? n0
		                                    : f == 1 ? n1
		                                             : n2)),
		                 (int)(f == 0   ? n0
		                       : f == 1 ? n1
		                                : n2));
		assert_int_equal(gzclose(gz), Z_OK);
	}

	for (int mode = 0; mode < 6; mode++) {
		struct bt_reader *r;
		struct iot_err e;
		const struct blk_event *ev;
		struct fp_tap tap = {0, 0};
		uint64_t sum = 0;
		size_t k = 0;
		unsigned n;
		int ret;

		/* modes: plain, prefetch, plain one by one first; gzip plain, gzip prefetch; a tap
		 */
		assert_int_equal(bt_reader_open(&r, tpath(mode < 3 || mode == 5 ? "fp" : "fz"), &e),
		                 0);
		if (mode == 1 || mode == 4)
			assert_int_equal(bt_reader_prefetch(r, &e), 0);
		if (mode == 5)
			assert_int_equal(bt_reader_prefetch_tap(r, fp_tap_fn, &tap, &e), 0);
		if (mode == 2) {
			/* events one by one, then by batches, from one reader */
			for (int j = 0; j < 1000; j++, k++) {
				assert_int_equal(bt_reader_next_ref(r, &ev, &e), 1);
				assert_true(ev->time == want[k].time);
				assert_int_equal(ev->seq, want[k].seq);
			}
		}
		while ((ret = bt_reader_next_batch(r, &ev, &n, &e)) == 1) {
			assert_true(n >= 1);
			for (unsigned j = 0; j < n; j++, k++) {
				assert_true(k < nw);
				/* a PDU is still there when the event is handed out */
				if (blk_is_notify(&ev[j])) {
					assert_int_equal(ev[j].pdu_len, 4);
					assert_memory_equal(ev[j].pdu, "dd\0\0", 4);
				}
				assert_true(ev[j].time == want[k].time);
				assert_int_equal(ev[j].cpu, want[k].file);
				assert_int_equal(ev[j].seq, want[k].seq);
				/* both forms of a cgroup id, and no id where there is none */
				if (want[k].file == 0 && !blk_is_notify(&ev[j]) &&
				    want[k].pos < FP_N) {
					int cgw =
					    want[k].pos % 5000 == 17 || want[k].pos % 5000 == 18;

					assert_int_equal(!!(ev[j].flags & BLK_F_CGROUP), cgw);
					assert_true(ev[j].cgroup == (cgw ? 77u : 0u));
					assert_int_equal(ev[j].pdu_len, 0);
				}
				sum += ev[j].time ^ ev[j].seq;
			}
		}
		assert_int_equal(ret, 0);
		assert_int_equal(k, nw);
		/* the tap saw every event, notifies included, before the caller did */
		if (mode == 5) {
			assert_int_equal(tap.events, nw);
			assert_true(tap.sum == sum);
		}
		assert_int_equal(bt_reader_stats(r)->events, nw);
		assert_int_equal(bt_reader_stats(r)->skips, skips);
		assert_string_equal(bt_reader_comm(r, 9), "dd");
		bt_reader_free(r);
	}
	for (int f = 0; f < 3; f++) {
		char name[32];

		snprintf(name, sizeof(name), "fp.blktrace.%d", f);
		assert_int_equal(unlink(tpath(name)), 0);
		snprintf(name, sizeof(name), "fz.blktrace.%d.gz", f);
		assert_int_equal(unlink(tpath(name)), 0);
	}
	free(b0);
	free(b1);
	free(b2);
	free(want);
}

/*
 * A notify with a PDU from a byte-swapped file met by the two-file fast merge: it is still
 * handed out through the general path (its PDU copied, TIMESTAMP words put in host order).
 */
static void test_reader_fast_merge_notify(void **s)
{
	uint8_t b0[48 * 64], b1[48 * 64 + 64];
	size_t n0 = 0, n1 = 0;
	uint32_t ts[2] = {bswap_32(1700000000), bswap_32(4321)};
	const uint64_t act = ACT(BLK_A_QUEUE, BLK_F_QUEUE);

	(void)s;
	for (uint32_t i = 0; i < 60; i++)
		n0 += mkrec(b0 + n0, 0, 0, i + 1, 2ull * i, i, 512, act, 1, 1, 0, 0, NULL, 0);
	n1 += mkrec(b1 + n1, 0, 1, 1, 1, 0, 512, act, 1, 1, 1, 0, NULL, 0);
	n1 += mkrec(b1 + n1, 0, 1, 0, 11, 0, 0, ACT(BLK_N_TIMESTAMP, BLK_F_NOTIFY), 0, 1, 1, 0, ts,
	            8);
	for (uint32_t i = 0; i < 3; i++)
		n1 += mkrec(b1 + n1, 0, 1, i + 2, 51 + 2ull * i, 0, 512, act, 1, 1, 1, 0, NULL, 0);
	write_file("fn.blktrace.0", b0, n0);
	write_file("fn.blktrace.1", b1, n1);
	for (int pf = 0; pf < 2; pf++) {
		struct bt_reader *r;
		struct iot_err e;
		struct blk_event ev;
		uint64_t last = 0, k = 0;

		assert_int_equal(bt_reader_open(&r, tpath("fn"), &e), 0);
		if (pf)
			assert_int_equal(bt_reader_prefetch(r, &e), 0);
		while (bt_reader_next(r, &ev, &e) == 1) {
			assert_true(ev.time >= last);
			last = ev.time;
			k++;
		}
		assert_int_equal(k, 65);
		assert_int_equal(bt_reader_stats(r)->have_wallclock, 1);
		assert_int_equal(bt_reader_stats(r)->wall_sec, 1700000000);
		assert_int_equal(bt_reader_stats(r)->wall_nsec, 4321);
		bt_reader_free(r);
	}
	assert_int_equal(unlink(tpath("fn.blktrace.0")), 0);
	assert_int_equal(unlink(tpath("fn.blktrace.1")), 0);
}

/*
 * Records with a PDU (unplug counts, remap sources, large driver data) on the fast path of
 * the merge of two and of five files: each PDU is copied with its event, whole, also when
 * the batch's PDU space runs out partway; order, sequence gaps and per-file counts as in a
 * plain merge.
 */
#define FQ_N 6000
#define FQ_FILES 5
#define FQ_BIG (BT_PDU_MAX - FQ_FILES) /* every 7th: a batch's PDU space runs out */

static uint16_t fq_pdu_len(uint32_t file, uint32_t i)
{
	if (i % 7 == 4)
		return FQ_BIG + (uint16_t)file;
	return i % 3 == 0 ? 8 : i % 5 == 0 ? 16 : 0;
}

static void fq_fill(uint8_t *p, uint16_t len, uint32_t file, uint32_t i)
{
	for (uint16_t j = 0; j < len; j++)
		p[j] = (uint8_t)(file * 31 + i * 7 + j);
}

static void fq_run(uint32_t nf)
{
	size_t cap = (size_t)FQ_N * (48 + FQ_BIG + FQ_FILES);
	size_t len[FQ_FILES] = {0};
	uint8_t *b[FQ_FILES], *pdu = malloc(FQ_BIG + FQ_FILES);
	struct fp_want *want = malloc(nf * FQ_N * sizeof(*want));
	uint64_t bytes[FQ_FILES];
	uint32_t seq[FQ_FILES] = {0}, skips = 0;
	size_t nw = 0;
	char name[32];

	assert_non_null(pdu);
	assert_non_null(want);
	for (uint32_t f = 0; f < nf; f++) {
		b[f] = malloc(cap);
		assert_non_null(b[f]);
		for (uint32_t i = 0; i < FQ_N; i++) {
			/* runs of a few records from each file, and ties; in time order in a file
			 */
			uint64_t t = 10ull * i + (i % (3 + f)) * (1 + f % 2);
			uint16_t pl = fq_pdu_len(f, i);
			uint32_t code = pl == 16 ? BLK_A_REMAP : pl ? BLK_A_UNPLUG_IO : BLK_A_QUEUE;

			seq[f] += (i % 700 == 699) ? 3 : 1;
			skips += (i % 700 == 699) * 2;
			fq_fill(pdu, pl, f, i);
			len[f] += mkrec(b[f] + len[f], 0, 0, seq[f], t, i, 4096,
			                ACT(code, BLK_F_QUEUE | BLK_F_WRITE), 7, 1, f, 0, pdu, pl);
			want[nw++] = (struct fp_want){t, f, i, seq[f]};
		}
		bytes[f] = len[f];
		snprintf(name, sizeof(name), "fq.blktrace.%u", f);
		write_file(name, b[f], len[f]);
		free(b[f]);
	}
	qsort(want, nw, sizeof(*want), fp_cmp);
	for (int mode = 0; mode < 3; mode++) {
		struct bt_reader *r;
		struct iot_err e;
		const struct blk_event *ev;
		size_t k = 0;
		unsigned n;
		int ret;

		/* batches, prefetched batches, one by one */
		assert_int_equal(bt_reader_open(&r, tpath("fq"), &e), 0);
		if (mode == 1)
			assert_int_equal(bt_reader_prefetch(r, &e), 0);
		for (;;) {
			if (mode == 2) {
				ret = bt_reader_next_ref(r, &ev, &e);
				n = 1;
			} else {
				ret = bt_reader_next_batch(r, &ev, &n, &e);
			}
			if (ret != 1)
				break;
			for (unsigned j = 0; j < n; j++, k++) {
				uint16_t pl;

				assert_true(k < nw);
				fp_expect(&ev[j], &want[k]);
				assert_int_equal(ev[j].bytes, 4096);
				assert_int_equal(ev[j].pid, 7);
				assert_true(ev[j].flags == (BLK_F_QUEUE | BLK_F_WRITE));
				pl = fq_pdu_len(want[k].file, want[k].pos);
				assert_int_equal(ev[j].pdu_len, pl);
				assert_int_equal(ev[j].action, pl == 16 ? BLK_A_REMAP
				                               : pl     ? BLK_A_UNPLUG_IO
				                                        : BLK_A_QUEUE);
				if (pl) {
					fq_fill(pdu, pl, want[k].file, want[k].pos);
					assert_memory_equal(ev[j].pdu, pdu, pl);
				} else {
					assert_null(ev[j].pdu);
				}
			}
		}
		assert_int_equal(ret, 0);
		assert_int_equal(k, nw);
		assert_int_equal(bt_reader_stats(r)->skips, skips);
		for (uint32_t f = 0; f < nf; f++) {
			assert_int_equal(bt_reader_stats(r)->files[f].records, FQ_N);
			assert_true(bt_reader_stats(r)->files[f].bytes == bytes[f]);
		}
		bt_reader_free(r);
	}
	for (uint32_t f = 0; f < nf; f++) {
		snprintf(name, sizeof(name), "fq.blktrace.%u", f);
		assert_int_equal(unlink(tpath(name)), 0);
	}
	free(pdu);
	free(want);
}

/* two files (merge_run's own merge) and five (merge_k) */
static void test_reader_fast_pdus(void **s)
{
	(void)s;
	fq_run(2);
	fq_run(FQ_FILES);
}

/*
 * Per-CPU files that each hold several devices, records of the devices interleaved (as with
 * a device-mapper target and the disks under it): each (device, CPU) keeps its own sequence
 * on the fast path, so gaps in one are counted once and the switches count none.
 */
#define FD_N 30000

static void test_reader_fast_devices(void **s)
{
	size_t cap = (size_t)FD_N * 48, len[2] = {0, 0};
	uint8_t *b[2] = {malloc(cap), malloc(cap)};
	struct fp_want *want = malloc(2 * FD_N * sizeof(*want));
	uint32_t seq[2][3] = {{0}}, skips = 0;
	size_t nw = 0;

	(void)s;
	assert_non_null(b[0]);
	assert_non_null(b[1]);
	assert_non_null(want);
	for (uint32_t f = 0; f < 2; f++) {
		for (uint32_t i = 0; i < FD_N; i++) {
			/* runs of 1 to 5 records per device; a third device appears late */
			uint32_t d = (i / (1 + (i % 5))) % (i < FD_N / 2 ? 2 : 3);
			uint64_t t = 3ull * i + f;

			seq[f][d] += (i % 1000 == 333) ? 4 : 1;
			skips += (i % 1000 == 333) * 3;
			len[f] += mkrec(b[f] + len[f], 0, 0, seq[f][d], t, i, 4096,
			                ACT(BLK_A_QUEUE, BLK_F_QUEUE), 1, BLK_MKDEV(8, 16 * d), f,
			                0, NULL, 0);
			want[nw++] = (struct fp_want){t, f, i, seq[f][d]};
		}
	}
	qsort(want, nw, sizeof(*want), fp_cmp);
	write_file("fd.blktrace.0", b[0], len[0]);
	write_file("fd.blktrace.1", b[1], len[1]);
	for (int pf = 0; pf < 2; pf++) {
		struct bt_reader *r;
		struct iot_err e;
		const struct blk_event *ev;
		size_t k = 0;
		unsigned n;
		int ret;

		assert_int_equal(bt_reader_open(&r, tpath("fd"), &e), 0);
		if (pf)
			assert_int_equal(bt_reader_prefetch(r, &e), 0);
		while ((ret = bt_reader_next_batch(r, &ev, &n, &e)) == 1) {
			for (unsigned j = 0; j < n; j++, k++) {
				assert_true(k < nw);
				fp_expect(&ev[j], &want[k]);
			}
		}
		assert_int_equal(ret, 0);
		assert_int_equal(k, nw);
		assert_int_equal(bt_reader_stats(r)->skips, skips);
		for (int f = 0; f < 2; f++)
			assert_int_equal(bt_reader_stats(r)->files[f].records, FD_N);
		bt_reader_free(r);
	}
	assert_int_equal(unlink(tpath("fd.blktrace.0")), 0);
	assert_int_equal(unlink(tpath("fd.blktrace.1")), 0);
	free(b[0]);
	free(b[1]);
	free(want);
}

/* Everything a reader hands out, filtered by the caller to the actions in keep (notifies
 * always), into out; the stats' skips and per-file records and bytes after them. */
#define KA_MAX 40000
struct ka_read {
	struct blk_event ev[KA_MAX];
	uint8_t pdu[KA_MAX][16];
	size_t n, handed;
	uint64_t skips, records[3], bytes[3];
};

static void ka_read(const char *set, uint32_t keep, bool hint, bool prefetch, struct ka_read *o)
{
	struct bt_reader *r;
	struct iot_err e;
	const struct blk_event *ev;
	unsigned n;
	int ret;

	memset(o, 0, sizeof(*o));
	assert_int_equal(bt_reader_open(&r, tpath(set), &e), 0);
	if (hint)
		bt_reader_keep_actions(r, keep);
	if (prefetch)
		assert_int_equal(bt_reader_prefetch(r, &e), 0);
	while ((ret = bt_reader_next_batch(r, &ev, &n, &e)) == 1) {
		o->handed += n;
		for (unsigned j = 0; j < n; j++) {
			if (!blk_is_notify(&ev[j]) && !(keep >> ev[j].action & 1))
				continue;
			assert_true(o->n < KA_MAX);
			assert_true(ev[j].pdu_len <= 16);
			if (ev[j].pdu_len)
				memcpy(o->pdu[o->n], ev[j].pdu, ev[j].pdu_len);
			o->ev[o->n] = ev[j];
			o->ev[o->n++].pdu = NULL;
		}
	}
	assert_int_equal(ret, 0);
	o->skips = bt_reader_stats(r)->skips;
	for (unsigned f = 0; f < bt_reader_stats(r)->nfiles && f < 3; f++) {
		o->records[f] = bt_reader_stats(r)->files[f].records;
		o->bytes[f] = bt_reader_stats(r)->files[f].bytes;
	}
	bt_reader_free(r);
}

/*
 * bt_reader_keep_actions(): the events of the kept actions and the notifies come as without
 * the hint, in the same order, with the same fields and PDUs; the records left out still count
 * (records, bytes, lost sequence numbers). One file (src_run), two (merge_run) and three
 * (merge_k), with PDUs, notifies, lost records and ties between files.
 */
static void test_reader_keep_actions(void **s)
{
	static struct ka_read all, hinted;
	static const uint16_t codes[] = {BLK_A_QUEUE,    BLK_A_GETRQ, BLK_A_ISSUE,
	                                 BLK_A_COMPLETE, BLK_A_REMAP, BLK_A_ISSUE};
	const uint32_t keep = 1u << BLK_A_ISSUE | 1u << BLK_A_COMPLETE;
	size_t cap = 6000 * 64;
	uint8_t *b = malloc(cap), pdu[16];

	(void)s;
	assert_non_null(b);
	for (unsigned nf = 1; nf <= 3; nf++) {
		for (unsigned f = 0; f < nf; f++) {
			size_t len = 0;
			uint32_t seq = 0;
			char name[32];

			for (uint32_t i = 0; i < 6000; i++) {
				uint16_t code = codes[(i + f) % 6], pl = 0;
				uint64_t t = 10ull * i + (f == 1 && i % 4 ? 5 : 0);

				if (i % 1500 == 700) {
					len += mkrec(b + len, 0, 0, 0, t, 0, 0,
					             ACT(BLK_N_PROCESS, BLK_F_NOTIFY), 9, 1, f, 0,
					             "kw\0\0", 4);
					continue;
				}
				if (code == BLK_A_REMAP || i % 11 == 3)
					pl = code == BLK_A_REMAP ? 16 : 8;
				for (unsigned j = 0; j < pl; j++)
					pdu[j] = (uint8_t)(i + j + f);
				seq += i % 900 == 899 ? 3 : 1;
				len += mkrec(b + len, 0, 0, seq, t, 1000ull * f + i, 4096,
				             ACT(code, BLK_F_READ), 7, 1, f, 0, pdu, pl);
			}
			snprintf(name, sizeof(name), "ka%u.blktrace.%u", nf, f);
			write_file(name, b, len);
		}
		for (int prefetch = 0; prefetch < 2; prefetch++) {
			char set[16];

			snprintf(set, sizeof(set), "ka%u", nf);
			ka_read(set, keep, false, prefetch, &all);
			ka_read(set, keep, true, prefetch, &hinted);
			assert_true(all.n > 1000 * nf);
			assert_int_equal(hinted.n, all.n);
			/* and the hint was taken where the fast paths take it (one file, two):
			 * most of the others were not decoded */
			if (nf <= 2)
				assert_true(hinted.handed < all.n + (all.handed - all.n) / 4);
			for (size_t k = 0; k < all.n; k++) {
				assert_memory_equal(&hinted.ev[k], &all.ev[k], sizeof(all.ev[k]));
				assert_memory_equal(hinted.pdu[k], all.pdu[k], all.ev[k].pdu_len);
			}
			assert_int_equal(hinted.skips, all.skips);
			assert_int_equal(all.skips, 12 * nf);
			for (unsigned f = 0; f < nf; f++) {
				assert_int_equal(hinted.records[f], all.records[f]);
				assert_int_equal(hinted.bytes[f], all.bytes[f]);
			}
		}
		for (unsigned f = 0; f < nf; f++) {
			char name[32];

			snprintf(name, sizeof(name), "ka%u.blktrace.%u", nf, f);
			assert_int_equal(unlink(tpath(name)), 0);
		}
	}
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reader_fast_paths),
	    cmocka_unit_test(test_reader_fast_merge_notify),
	    cmocka_unit_test(test_reader_fast_pdus),
	    cmocka_unit_test(test_reader_fast_devices),
	    cmocka_unit_test(test_reader_keep_actions),
	    cmocka_unit_test(test_decode_v7_native),
	    cmocka_unit_test(test_decode_v7_swapped),
	    cmocka_unit_test(test_decode_v8_native),
	    cmocka_unit_test(test_decode_v8_swapped),
	    cmocka_unit_test(test_decode_v8_wide_categories),
	    cmocka_unit_test(test_decode_cgroup_and_pdu),
	    cmocka_unit_test(test_decode_cgroup_pdu_without_bit),
	    cmocka_unit_test(test_encode_cgroup),
	    cmocka_unit_test(test_decode_remap),
	    cmocka_unit_test(test_decode_bad),
	    cmocka_unit_test(test_reader_merge),
	    cmocka_unit_test(test_reader_skips_and_notify),
	    cmocka_unit_test(test_reader_truncated_final),
	    cmocka_unit_test(test_reader_bad_inputs),
	    cmocka_unit_test(test_reader_gzip),
	    cmocka_unit_test(test_writer_roundtrip),
	    cmocka_unit_test(test_writer_room),
	    cmocka_unit_test(test_writer_buf_error),
	    cmocka_unit_test(test_reader_prefetch),
	    cmocka_unit_test(test_reader_batch_max),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown));
}
