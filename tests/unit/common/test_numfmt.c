/* SPDX-License-Identifier: MIT */
/* Unit tests: numfmt.h's numbers against printf's, at the edges and at random. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/numfmt.h"

static uint64_t rng = 42;
static uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* a value of 1 to 20 digits, or one next to a power of ten */
static uint64_t value(unsigned i)
{
	uint64_t v = rnd(), p = 1;
	unsigned digits = 1 + (unsigned)(rnd() % 20);

	for (unsigned k = 1; k < digits; k++)
		p *= 10;
	switch (i % 4) {
	case 0:
		return v;
	case 1:
		return digits == 20 ? v : v % (p * 10);
	case 2:
		return p - 1;
	default:
		return p;
	}
}

static void check(uint64_t v)
{
	char want[64], got[96];
	char *e;

	snprintf(want, sizeof(want), "%" PRIu64, v);
	memset(got, 'x', sizeof(got));
	e = numfmt_u64(got, v);
	*e = 0;
	assert_string_equal(got, want);
	assert_int_equal(numfmt_len(v), strlen(want));
	for (unsigned w = 0; w <= 12; w += 3) {
		snprintf(want, sizeof(want), "%*" PRId64, w, (int64_t)v);
		e = numfmt_i64w(got, (int64_t)v, w, 0);
		*e = 0;
		assert_string_equal(got, want);
		snprintf(want, sizeof(want), "%-*" PRId64, w, (int64_t)v);
		e = numfmt_i64w(got, (int64_t)v, w, 1);
		*e = 0;
		assert_string_equal(got, want);
	}
	if (v <= UINT32_MAX)
		for (unsigned w = 0; w <= 8; w++) {
			snprintf(want, sizeof(want), "%*u", w, (unsigned)v);
			e = numfmt_uw8(got, (uint32_t)v, w);
			*e = 0;
			assert_string_equal(got, want);
		}
	if (v < 1000000000) {
		snprintf(want, sizeof(want), "%09u", (unsigned)v);
		e = numfmt_9(got, (uint32_t)v);
		*e = 0;
		assert_string_equal(got, want);
	}
}

static void test_edges(void **state)
{
	(void)state;
	for (uint64_t v = 0; v < 100000; v++)
		check(v);
	for (uint64_t p = 1; p && p <= UINT64_MAX / 10; p *= 10) {
		check(p - 1);
		check(p);
		check(p + 1);
		check(p * 10 - 1);
	}
	check(UINT32_MAX);
	check((uint64_t)UINT32_MAX + 1);
	check(UINT64_MAX);
	check(UINT64_MAX - 1);
	check((uint64_t)INT64_MAX);
}

static void test_random(void **state)
{
	(void)state;
	for (unsigned i = 0; i < 200000; i++)
		check(value(i));
}

static void test_negative_and_strw(void **state)
{
	char got[64], *e;

	(void)state;
	e = numfmt_i64w(got, -42, 5, 0);
	*e = 0;
	assert_string_equal(got, "  -42");
	e = numfmt_i64w(got, INT64_MIN, 0, 0);
	*e = 0;
	assert_string_equal(got, "-9223372036854775808");
	e = numfmt_i64w(got, -7, 4, 1);
	*e = 0;
	assert_string_equal(got, "-7  ");
	e = numfmt_strw(got, "WS", 2, 3);
	*e = 0;
	assert_string_equal(got, " WS");
	e = numfmt_strw(got, "FWFSM", 5, 3);
	*e = 0;
	assert_string_equal(got, "FWFSM");
}

/* seconds from nanoseconds without a double (issue #25 item 11: "%.9f" of a double near
 * 2^63 ns was off by about a microsecond) */
static void test_secs(void **state)
{
	static const struct {
		uint64_t ns;
		unsigned dec;
		const char *want;
	} cases[] = {
	    {0, 3, "0.000"},
	    {999, 9, "0.000000999"},
	    {1500000000, 0, "2"},
	    {1499999999, 0, "1"},
	    {1234567890, 6, "1.234568"},
	    {1234567490, 6, "1.234567"},
	    {9223372036854774000ull, 9, "9223372036.854774000"},
	    {9223372036854775808ull, 9, "9223372036.854775808"},
	    {UINT64_MAX, 9, "18446744073.709551615"},
	    {UINT64_MAX, 3, "18446744073.710"},
	    {UINT64_MAX, 0, "18446744074"},
	    {999999999, 3, "1.000"},
	};
	char buf[40];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		*numfmt_secs(buf, cases[i].ns, cases[i].dec) = 0;
		assert_string_equal(buf, cases[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_edges),
	    cmocka_unit_test(test_random),
	    cmocka_unit_test(test_negative_and_strw),
	    cmocka_unit_test(test_secs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
