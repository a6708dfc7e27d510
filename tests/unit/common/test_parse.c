/* SPDX-License-Identifier: MIT */
/* Unit tests: durations on the command line have their unit, sizes are bytes or have a binary
 * unit (common/parse.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/parse.h"

static uint64_t ok(const char *s)
{
	struct iot_err e = {""};
	uint64_t ns = 12345;

	assert_int_equal(iot_parse_duration(s, &ns, &e), 0);
	return ns;
}

static int bad(const char *s, const char *msg)
{
	struct iot_err e = {""};
	uint64_t ns = 12345;
	int ret = iot_parse_duration(s, &ns, &e);

	assert_true(ret < 0);
	assert_int_equal(ns, 12345); /* untouched */
	if (msg && !strstr(e.msg, msg))
		fail_msg("'%s': '%s' does not say '%s'", s ? s : "(null)", e.msg, msg);
	return ret;
}

static void test_units(void **s)
{
	(void)s;
	assert_int_equal(ok("7ns"), 7);
	assert_int_equal(ok("250us"), 250000);
	assert_int_equal(ok("10ms"), 10000000);
	assert_int_equal(ok("1.5s"), 1500000000);
	assert_int_equal(ok(".5s"), 500000000);
	assert_int_equal(ok("2m"), 120000000000ull);
	assert_int_equal(ok("1h"), 3600000000000ull);
	assert_int_equal(ok("1e3ms"), 1000000000);
	assert_int_equal(ok("0.4ns"), 0); /* to the nearest ns */
	assert_int_equal(ok("0.5ns"), 1);
}

/* A number alone means nothing here: ns to one option, s to another, once. 0 is 0. */
static void test_bare_number(void **s)
{
	(void)s;
	assert_int_equal(ok("0"), 0);
	assert_int_equal(ok("0.0"), 0);
	assert_int_equal(ok("0s"), 0);
	assert_int_equal(bad("100", "'100' has no unit: say 100ms or 100s"), -EINVAL);
	assert_int_equal(bad("2", "no unit"), -EINVAL);
	assert_int_equal(bad("1000000", "(ns, us, ms, s, m or h)"), -EINVAL);
}

static void test_refused(void **s)
{
	(void)s;
	assert_int_equal(bad(NULL, "missing duration"), -EINVAL);
	assert_int_equal(bad("", "missing duration"), -EINVAL);
	assert_int_equal(bad("fast", "is not a duration"), -EINVAL);
	assert_int_equal(bad("-1s", "is not a duration"), -EINVAL);
	assert_int_equal(bad("+1s", "is not a duration"), -EINVAL);
	assert_int_equal(bad(" 1s", "is not a duration"), -EINVAL);
	assert_int_equal(bad("infs", "is not a duration"), -EINVAL);
	assert_int_equal(bad("nan", "is not a duration"), -EINVAL);
	assert_int_equal(bad("0x10s", "is not a duration"), -EINVAL);
	assert_int_equal(bad("10 ms", "unknown unit"), -EINVAL);
	assert_int_equal(bad("10sec", "unknown unit"), -EINVAL);
	assert_int_equal(bad("10d", "unknown unit"), -EINVAL);
	assert_int_equal(bad("5124096h", "too long"), -ERANGE); /* past 2^64 ns */
	assert_int_equal(bad("1e400s", "too long"), -ERANGE);
	assert_true(ok("5124095h") > 18446740000000000000ull);
}

static uint64_t size_ok(const char *s)
{
	struct iot_err e = {0};
	uint64_t n = 12345;

	assert_int_equal(iot_parse_size(s, &n, &e), 0);
	return n;
}

static int size_bad(const char *s, const char *want)
{
	struct iot_err e = {0};
	uint64_t n = 12345;
	int ret = iot_parse_size(s, &n, &e);

	assert_true(ret < 0);
	assert_non_null(strstr(e.msg, want));
	assert_int_equal(n, 12345);
	return ret;
}

static void test_size(void **s)
{
	(void)s;
	/* a bare number is bytes, for every option */
	assert_int_equal(size_ok("0"), 0);
	assert_int_equal(size_ok("128"), 128);
	assert_int_equal(size_ok("1048576"), 1048576);
	assert_int_equal(size_ok("64b"), 64);
	assert_int_equal(size_ok("64B"), 64);
	/* binary units, either case, with or without b/B/ib/iB: one value */
	assert_int_equal(size_ok("4k"), 4096);
	assert_int_equal(size_ok("4K"), 4096);
	assert_int_equal(size_ok("4kB"), 4096);
	assert_int_equal(size_ok("4KiB"), 4096);
	assert_int_equal(size_ok("4kib"), 4096);
	assert_int_equal(size_ok("1.5m"), 1572864);
	assert_int_equal(size_ok("2g"), 2ull << 30);
	assert_int_equal(size_ok("3t"), 3ull << 40);
	assert_int_equal(size_ok("1p"), 1ull << 50);
	assert_int_equal(size_ok("0.5k"), 512);
	assert_int_equal(size_ok("8191p"), 8191ull << 50);
}

static void test_size_refused(void **s)
{
	(void)s;
	assert_int_equal(size_bad(NULL, "missing size"), -EINVAL);
	assert_int_equal(size_bad("", "missing size"), -EINVAL);
	assert_int_equal(size_bad("big", "is not a size"), -EINVAL);
	assert_int_equal(size_bad("-1", "is not a size"), -EINVAL);
	assert_int_equal(size_bad("+1k", "is not a size"), -EINVAL);
	assert_int_equal(size_bad(" 1k", "is not a size"), -EINVAL);
	assert_int_equal(size_bad("0x100", "is not a size"), -EINVAL);
	assert_int_equal(size_bad("1e3", "is not a size"), -EINVAL);
	assert_int_equal(size_bad(".", "is not a size"), -EINVAL);
	assert_int_equal(size_bad("k", "is not a size"), -EINVAL);
	assert_int_equal(size_bad("4 k", "is not a size"), -EINVAL);
	assert_int_equal(size_bad("4kk", "is not a size"), -EINVAL);
	assert_int_equal(size_bad("4x", "is not a size"), -EINVAL);
	assert_int_equal(size_bad("1.5", "whole number of bytes"), -EINVAL);
	assert_int_equal(size_bad("0.3k", "whole number of bytes"), -EINVAL);
	assert_int_equal(size_bad("16384p", "too large"), -ERANGE); /* 2^64 */
	assert_int_equal(size_bad("18446744073709551616", "too large"), -ERANGE);
}

static void test_size_unit(void **s)
{
	int power = -1;

	(void)s;
	assert_int_equal(iot_size_unit("", &power), 0);
	assert_int_equal(iot_size_unit("x", &power), 0);
	assert_int_equal(iot_size_unit("b", &power), 1);
	assert_int_equal(power, 0);
	assert_int_equal(iot_size_unit("MiB", &power), 3);
	assert_int_equal(power, 2);
	assert_int_equal(iot_size_unit("gb", &power), 2);
	assert_int_equal(power, 3);
	assert_int_equal(iot_size_unit("kbx", &power), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_units),        cmocka_unit_test(test_bare_number),
	    cmocka_unit_test(test_refused),      cmocka_unit_test(test_size),
	    cmocka_unit_test(test_size_refused), cmocka_unit_test(test_size_unit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
