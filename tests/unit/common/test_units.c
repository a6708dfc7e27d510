/* SPDX-License-Identifier: MIT */
/* Unit tests: the one unit system's formatters (binary sizes and rates, readable durations). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>

#include "common/units.h"

static void test_bytes(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(iot_fmt_bytes(0, b, sizeof(b)), "0 B");
	assert_string_equal(iot_fmt_bytes(1023, b, sizeof(b)), "1023 B");
	assert_string_equal(iot_fmt_bytes(4096, b, sizeof(b)), "4.0 KiB");
	assert_string_equal(iot_fmt_bytes(172200000, b, sizeof(b)), "164.2 MiB");
	assert_string_equal(iot_fmt_bytes(3ull << 30, b, sizeof(b)), "3.0 GiB");
}

static void test_size(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(iot_fmt_size(512, b, sizeof(b)), "512 B");
	assert_string_equal(iot_fmt_size(1536, b, sizeof(b)), "1.5 KiB");
	assert_string_equal(iot_fmt_size(256.0 * 1048576, b, sizeof(b)), "256 MiB");
}

static void test_rate(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(iot_fmt_rate(512, b, sizeof(b)), "512 B/s");
	assert_string_equal(iot_fmt_rate(125e6, b, sizeof(b)), "119.2 MiB/s");
	assert_string_equal(iot_fmt_rate(2.5 * 1073741824.0, b, sizeof(b)), "2.5 GiB/s");
	assert_string_equal(iot_fmt_rate(NAN, b, sizeof(b)), "-");
}

static void test_dur(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(iot_fmt_dur(830, b, sizeof(b)), "830 ns");
	assert_string_equal(iot_fmt_dur(434110.5e3, b, sizeof(b)), "434.11 ms");
	assert_string_equal(iot_fmt_dur(2.5e9, b, sizeof(b)), "2.500 s");
	assert_string_equal(iot_fmt_dur(NAN, b, sizeof(b)), "-");
}

/* seconds exact past 2^53 ns (a double's printf was off there), rounded half up, and a buffer
 * shorter than the digits cut, never overrun */
static void test_secs(void **state)
{
	char b[32], small[4];

	(void)state;
	assert_string_equal(iot_fmt_secs(12345678901ull, 3, b, sizeof(b)), "12.346");
	assert_string_equal(iot_fmt_secs(0, 3, b, sizeof(b)), "0.000");
	assert_string_equal(iot_fmt_secs(1500000000ull, 0, b, sizeof(b)), "2");
	assert_string_equal(iot_fmt_secs(9007199254740993ull, 9, b, sizeof(b)),
	                    "9007199.254740993");
	assert_string_equal(iot_fmt_secs(12345678901ull, 3, small, sizeof(small)), "12.");
	assert_string_equal(iot_fmt_secs_signed(120000, 9, b, sizeof(b)), "+0.000120000");
	assert_string_equal(iot_fmt_secs_signed(-1500000000ll, 3, b, sizeof(b)), "-1.500");
	assert_string_equal(iot_fmt_secs_signed(0, 1, b, sizeof(b)), "+0.0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bytes), cmocka_unit_test(test_size), cmocka_unit_test(test_rate),
	    cmocka_unit_test(test_dur),   cmocka_unit_test(test_secs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
