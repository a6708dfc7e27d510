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
	uint16_t type = 14, pdu_len = 8;
	uint64_t sector = 2048, stale = 0xdeadbeefdeadbeefull;
	uint32_t bytes = 4096, action = (1u << 1 | 1u << 4) << 16 | 1, pid = 77, dev = 0x700000,
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
	assert_int_equal(cap_raw_to_record(data, sizeof(data), 123456789, out, sizeof(out)),
			 BT_REC7_SIZE + 8);
	assert_int_equal(bt_decode(out, BT_REC7_SIZE + 8, &ev, NULL), BT_REC7_SIZE + 8);
	assert_int_equal(ev.time, 123456789);
	assert_int_equal(ev.seq, 0);
	assert_int_equal(ev.sector, 2048);
	assert_int_equal(ev.bytes, 4096);
	assert_int_equal(ev.action, BLK_A_QUEUE);
	assert_true(ev.flags & BLK_F_WRITE);
	assert_int_equal(ev.pid, 77);
	assert_int_equal(ev.dev, 0x700000);
	assert_int_equal(ev.cpu, 1);
	assert_int_equal(ev.pdu_len, 8);
}

static void test_raw_rejects(void **state)
{
	uint8_t data[BT_REC7_SIZE] = {0}, out[256];
	uint16_t pdu_len = 100;

	(void)state;
	/* too short for a record */
	assert_int_equal(cap_raw_to_record(data, 20, 1, out, sizeof(out)), 0);
	/* PDU longer than the entry */
	memcpy(data + 46, &pdu_len, 2);
	assert_int_equal(cap_raw_to_record(data, sizeof(data), 1, out, sizeof(out)), 0);
	/* output too small */
	pdu_len = 0;
	memcpy(data + 46, &pdu_len, 2);
	assert_int_equal(cap_raw_to_record(data, sizeof(data), 1, out, 10), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raw_to_record),
		cmocka_unit_test(test_raw_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
