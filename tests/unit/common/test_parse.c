/* SPDX-License-Identifier: MIT */
/* Unit tests: durations on the command line have their unit (common/parse.h). */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_units),
	    cmocka_unit_test(test_bare_number),
	    cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
