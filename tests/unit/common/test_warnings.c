/* SPDX-License-Identifier: MIT */
/* Unit tests: a library's warnings, formatted and appended in order, a long one cut. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "common/warnings.h"

static void test_in_order(void **state)
{
	json_t *w = json_array();

	(void)state;
	assert_int_equal(iot_warn_json(w, "'%s': %u hosts left out", "set", 2u), 0);
	assert_int_equal(iot_warn_json(w, "plain"), 0);
	assert_int_equal(json_array_size(w), 2);
	assert_string_equal(json_string_value(json_array_get(w, 0)), "'set': 2 hosts left out");
	assert_string_equal(json_string_value(json_array_get(w, 1)), "plain");
	json_decref(w);
}

static void test_long_cut(void **state)
{
	char big[3000];
	json_t *w = json_array();

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(iot_warn_json(w, "%s", big), 0);
	assert_int_equal(strlen(json_string_value(json_array_get(w, 0))), 1023);
	json_decref(w);
}

static void test_not_an_array(void **state)
{
	json_t *o = json_object();

	(void)state;
	assert_int_equal(iot_warn_json(o, "x"), -EINVAL);
	assert_int_equal(json_object_size(o), 0);
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_in_order),
	    cmocka_unit_test(test_long_cut),
	    cmocka_unit_test(test_not_an_array),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
