/* SPDX-License-Identifier: MIT */
/* Unit tests: finishing a raw ring-buffer blk entry into the record the bin output makes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "capture/cap_int.h"
#include "formats/blktrace.h"

static void test_raw_to_record(void **state)
{
	uint8_t data[BT_REC7_SIZE + 8 + 4], out[256];
	struct blk_event ev;
	uint16_t type = 14, pdu_len = 8, learnt = 0;
	uint64_t sector = 2048, stale = 0xdeadbeefdeadbeefull;
	/* a split (X) of a write: its PDU, 8 bytes, is its own (an 8-byte PDU on a Q would be
	 * a cgroup id: formats/bt_decode.h) */
	uint32_t bytes = 4096, action = (1u << 1) << 16 | BLK_A_SPLIT, pid = 77, dev = 0x700000,
	         cpu = 1;

	(void)state;
	memset(data, 0xab, sizeof(data));
	/* trace_entry where magic and sequence would be; time left stale */
	memcpy(data, &type, 2);
	memcpy(data + 4, &pid, 4);
	memcpy(data + 8, &stale, 8);
	memcpy(data + 16, &sector, 8);
	memcpy(data + 24, &bytes, 4);
	memcpy(data + 28, &action, 4);
	memcpy(data + 32, &pid, 4);
	memcpy(data + 36, &dev, 4);
	memcpy(data + 40, &cpu, 4);
	memset(data + 44, 0, 2);
	memcpy(data + 46, &pdu_len, 2);
	/* the ring buffer pads entries: size may exceed the record */
	assert_int_equal(
	    cap_raw_to_record(data, sizeof(data), 123456789, out, sizeof(out), &learnt),
	    BT_REC7_SIZE + 8);
	assert_int_equal(learnt, 14);
	assert_int_equal(bt_decode(out, BT_REC7_SIZE + 8, &ev, NULL), BT_REC7_SIZE + 8);
	assert_int_equal(ev.time, 123456789);
	assert_int_equal(ev.seq, 0);
	assert_int_equal(ev.sector, 2048);
	assert_int_equal(ev.bytes, 4096);
	assert_int_equal(ev.action, BLK_A_SPLIT);
	assert_true(ev.flags & BLK_F_WRITE);
	assert_int_equal(ev.pid, 77);
	assert_int_equal(ev.dev, 0x700000);
	assert_int_equal(ev.cpu, 1);
	assert_int_equal(ev.pdu_len, 8);
}

static void test_raw_rejects(void **state)
{
	uint8_t data[BT_REC7_SIZE] = {0}, out[256];
	uint16_t pdu_len = 100, learnt = 0;
	uint32_t action = 7; /* D */

	(void)state;
	memcpy(data + 28, &action, 4);
	/* too short for a record */
	assert_int_equal(cap_raw_to_record(data, 20, 1, out, sizeof(out), &learnt), 0);
	/* PDU longer than the entry */
	memcpy(data + 46, &pdu_len, 2);
	assert_int_equal(cap_raw_to_record(data, sizeof(data), 1, out, sizeof(out), &learnt), 0);
	/* output too small */
	pdu_len = 0;
	memcpy(data + 46, &pdu_len, 2);
	assert_int_equal(cap_raw_to_record(data, sizeof(data), 1, out, 10, &learnt), 0);
	assert_int_equal(learnt, 0);
}

/* Entries of other writers in the same buffer (trace_marker text, say) are not records. */
static void test_raw_other_writers(void **state)
{
	uint8_t blk[BT_REC7_SIZE] = {0}, print[BT_REC7_SIZE + 40], out[256];
	uint16_t blk_type = 17, print_type = 5, learnt = 0, zero = 0;
	uint32_t action = (1u << 6) << 16 | 7; /* D, issue category */

	(void)state;
	memcpy(blk, &blk_type, 2);
	memcpy(blk + 28, &action, 4);
	/* a print entry: type, flags, pid, ip, then text; whatever its bytes say at 28 and 46 */
	memset(print, 'x', sizeof(print));
	memcpy(print, &print_type, 2);
	assert_int_equal(cap_raw_to_record(print, sizeof(print), 1, out, sizeof(out), &learnt), 0);
	assert_int_equal(learnt, 0);
	/* text that happens to look like a record's fields: the padding gives it away... */
	memcpy(print + 28, &action, 4);
	memcpy(print + 46, &zero, 2);
	assert_int_equal(cap_raw_to_record(print, sizeof(print), 1, out, sizeof(out), &learnt), 0);
	/* ...and once a blk record was seen, the entry type does */
	assert_int_equal(cap_raw_to_record(blk, sizeof(blk), 1, out, sizeof(out), &learnt),
	                 BT_REC7_SIZE);
	assert_int_equal(learnt, 17);
	assert_int_equal(cap_raw_to_record(print, BT_REC7_SIZE, 1, out, sizeof(out), &learnt), 0);
	/* an unknown action code, or stray bits, is not a record either */
	learnt = 0;
	action = 42;
	memcpy(blk + 28, &action, 4);
	assert_int_equal(cap_raw_to_record(blk, sizeof(blk), 1, out, sizeof(out), &learnt), 0);
	action = 0x400 | 7;
	memcpy(blk + 28, &action, 4);
	assert_int_equal(cap_raw_to_record(blk, sizeof(blk), 1, out, sizeof(out), &learnt), 0);
	/* notifies: codes 0-2 in the notify category */
	action = (uint32_t)BLK_F_NOTIFY << 16 | BLK_N_PROCESS;
	memcpy(blk + 28, &action, 4);
	assert_int_equal(cap_raw_to_record(blk, sizeof(blk), 1, out, sizeof(out), &learnt),
	                 BT_REC7_SIZE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_raw_to_record),
	    cmocka_unit_test(test_raw_rejects),
	    cmocka_unit_test(test_raw_other_writers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
