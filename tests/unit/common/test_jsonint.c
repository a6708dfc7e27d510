/* SPDX-License-Identifier: MIT */
/* Unit tests for common/jsonint.c: unsigned 64-bit integers through JSON and back. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/jsonint.h"

/* v through json_u64(), the text jansson writes, and back */
static char *round_trip(uint64_t v, uint64_t *back)
{
	json_t *a = json_array(), *b;
	char *text;

	json_array_append_new(a, json_u64(v));
	text = json_dumps(a, JSON_COMPACT);
	b = json_loads(text, 0, NULL);
	assert_non_null(b);
	assert_int_equal(json_u64_get(json_array_get(b, 0), back), 0);
	json_decref(a);
	json_decref(b);
	return text;
}

static void test_round_trip(void **state)
{
	static const uint64_t vals[] = {
	    0, 1, 1000000000, INT64_MAX, (uint64_t)INT64_MAX + 1, UINT64_MAX - 1, UINT64_MAX};
	uint64_t back;
	char *t;

	(void)state;
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		t = round_trip(vals[i], &back);
		assert_true(back == vals[i]);
		/* never a negative number (issue #25 item 11: end_ns -9223372036754775616) */
		assert_null(strchr(t, '-'));
		free(t);
	}
	t = round_trip(INT64_MAX, &back);
	assert_string_equal(t, "[9223372036854775807]");
	free(t);
	t = round_trip((uint64_t)INT64_MAX + 1, &back);
	assert_string_equal(t, "[\"9223372036854775808\"]");
	free(t);
}

static void test_refused(void **state)
{
	static const char *const bad[] = {
	    "-1",      "1.5",    "\"\"", "\"-1\"", "\"18446744073709551616\"",
	    "\"12a\"", "\" 1\"", "null", "[]",     "\"0x10\""};
	uint64_t v = 7;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *j = json_loads(bad[i], JSON_DECODE_ANY, NULL);

		assert_non_null(j);
		assert_int_equal(json_u64_get(j, &v), -EINVAL);
		assert_true(v == 0);
		json_decref(j);
	}
	{
		json_t *o = json_pack("{s:s}", "t", "18446744073709551615");

		assert_int_equal(json_u64_member(o, "t", &v), 0);
		assert_true(v == UINT64_MAX);
		assert_int_equal(json_u64_member(o, "u", &v), -ENOENT);
		json_decref(o);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
