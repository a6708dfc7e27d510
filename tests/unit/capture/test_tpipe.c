/* SPDX-License-Identifier: MIT */
/* Unit tests: splitting trace_pipe (bin) and relay bytes into records, LOST lines, resync. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "capture/cap_int.h"
#include "formats/blktrace.h"

struct got {
	unsigned n;
	uint64_t lost;    /* counts announced in-stream */
	unsigned lost_at; /* records emitted before the first announcement */
	unsigned cpu[16];
	size_t len[16];
	uint64_t sector[16];
};

static int emit(void *arg, unsigned cpu, uint8_t *rec, size_t len, struct iot_err *e)
{
	struct got *g = arg;
	struct blk_event ev;

	(void)e;
	if (!rec) {
		if (!g->lost)
			g->lost_at = g->n;
		g->lost += len;
		return 0;
	}
	assert_true(g->n < 16);
	assert_int_equal(bt_decode(rec, len, &ev, NULL), (long)len);
	g->cpu[g->n] = cpu;
	g->len[g->n] = len;
	g->sector[g->n] = ev.sector;
	g->n++;
	return 0;
}

/* [16-byte context header] + v7 record + pdu, as the kernel's print_bin_fmt writes it */
static size_t put(uint8_t *b, int hdr, uint32_t cpu, uint64_t sector, uint16_t pdu_len)
{
	struct blk_event ev = {0};
	uint8_t pdu[64] = {0};
	size_t off = 0;

	if (hdr) {
		uint32_t pid = 42;
		uint64_t ts = 1000 + sector;

		memcpy(b, &pid, 4);
		memcpy(b + 4, &cpu, 4);
		memcpy(b + 8, &ts, 8);
		off = 16;
	}
	ev.time = 1000 + sector;
	ev.sector = sector;
	ev.bytes = 4096;
	ev.action = BLK_A_QUEUE;
	ev.flags = BLK_F_WRITE | BLK_F_QUEUE;
	ev.cpu = cpu;
	ev.dev = BLK_MKDEV(7, 0);
	ev.pdu = pdu_len ? pdu : NULL;
	ev.pdu_len = pdu_len;
	return off + bt_encode7(&ev, b + off, 256);
}

static void test_records_with_header(void **state)
{
	uint8_t buf[1024];
	struct tpipe t = {.hdr = 16};
	struct got g = {0};
	size_t n = 0;

	(void)state;
	n += put(buf + n, 1, 1, 8, 0);
	n += put(buf + n, 1, 1, 16, 8);
	n += put(buf + n, 1, 1, 24, 0);
	assert_int_equal(tpipe_parse(&t, buf, n, 0, 0, emit, &g, NULL), (long)n);
	assert_int_equal(g.n, 3);
	/* the CPU comes from the context header, not from the file */
	assert_int_equal(g.cpu[0], 1);
	assert_int_equal(g.len[0], BT_REC7_SIZE);
	assert_int_equal(g.len[1], BT_REC7_SIZE + 8);
	assert_int_equal(g.sector[2], 24);
	assert_int_equal(t.garbage, 0);
}

static void test_split_across_reads(void **state)
{
	uint8_t buf[1024];
	struct tpipe t = {.hdr = 16};
	struct got g = {0};
	size_t n = 0, r1, r2;

	(void)state;
	n += put(buf + n, 1, 0, 8, 0);
	n += put(buf + n, 1, 0, 16, 16);
	/* a record cut in the middle: only the first is consumed */
	r1 = (size_t)tpipe_parse(&t, buf, n - 10, 0, 0, emit, &g, NULL);
	assert_int_equal(r1, 16 + BT_REC7_SIZE);
	assert_int_equal(g.n, 1);
	/* cut inside the context header */
	r2 = (size_t)tpipe_parse(&t, buf + r1, 5, 0, 0, emit, &g, NULL);
	assert_int_equal(r2, 0);
	r2 = (size_t)tpipe_parse(&t, buf + r1, n - r1, 0, 0, emit, &g, NULL);
	assert_int_equal(r2, n - r1);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.sector[1], 16);
}

static void test_lost_lines(void **state)
{
	uint8_t buf[1024];
	struct tpipe t = {.hdr = 16};
	struct got g = {0};
	size_t n = 0;
	const char *l1 = "CPU:1 [LOST 1234 EVENTS]\n", *l2 = "CPU:0 [LOST EVENTS]\n";

	(void)state;
	n += put(buf + n, 1, 1, 8, 0);
	memcpy(buf + n, l1, strlen(l1));
	n += strlen(l1);
	n += put(buf + n, 1, 1, 16, 0);
	memcpy(buf + n, l2, strlen(l2));
	n += strlen(l2);
	assert_int_equal(tpipe_parse(&t, buf, n, 1, 0, emit, &g, NULL), (long)n);
	assert_int_equal(g.n, 2);
	assert_int_equal(t.lost, 1234);
	assert_int_equal(t.lost_marks, 1);
	/* announced to the sink between the two records, where it happened */
	assert_int_equal(g.lost, 1234);
	assert_int_equal(g.lost_at, 1);
	assert_int_equal(t.garbage, 0);
	/* a LOST line cut before its newline waits for more */
	assert_int_equal(tpipe_parse(&t, (uint8_t *)l1, 10, 1, 0, emit, &g, NULL), 0);
}

static void test_resync_and_final(void **state)
{
	uint8_t buf[1024];
	struct tpipe t = {.hdr = 0};
	struct got g = {0};
	size_t n = 0;

	(void)state;
	/* relay files: bare records; 5 junk bytes in between are skipped and counted */
	n += put(buf + n, 0, 0, 8, 0);
	memcpy(buf + n, "junk!", 5);
	n += 5;
	n += put(buf + n, 0, 0, 16, 0);
	assert_int_equal(tpipe_parse(&t, buf, n, 3, 0, emit, &g, NULL), (long)n);
	assert_int_equal(g.n, 2);
	assert_int_equal(t.garbage, 5);
	assert_int_equal(g.cpu[1], 3); /* relay: the file's CPU */
	/* at the end of the stream a partial record is consumed as garbage */
	n = put(buf, 0, 0, 24, 0);
	assert_int_equal(tpipe_parse(&t, buf, n - 1, 3, 1, emit, &g, NULL), (long)(n - 1));
	assert_int_equal(t.garbage, 5 + n - 1);
	assert_int_equal(g.n, 2);
}

static int fail_emit(void *arg, unsigned cpu, uint8_t *rec, size_t len, struct iot_err *e)
{
	(void)arg;
	(void)cpu;
	(void)rec;
	(void)len;
	return iot_err_set(e, -ENOSPC, "disk full");
}

static void test_emit_error(void **state)
{
	uint8_t buf[256];
	struct tpipe t = {.hdr = 16};
	struct iot_err e;
	size_t n = put(buf, 1, 0, 8, 0);

	(void)state;
	assert_int_equal(tpipe_parse(&t, buf, n, 0, 0, fail_emit, NULL, &e), -ENOSPC);
	assert_string_equal(e.msg, "disk full");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_records_with_header), cmocka_unit_test(test_split_across_reads),
	    cmocka_unit_test(test_lost_lines),          cmocka_unit_test(test_resync_and_final),
	    cmocka_unit_test(test_emit_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
