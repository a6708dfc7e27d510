/* SPDX-License-Identifier: MIT */
/* Unit tests: clock pairs, interface addresses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "capture/cap_int.h"

static void test_clock_pair(void **state)
{
	struct cap_clock_pair a, b;
	struct timespec ts;
	json_t *j;

	(void)state;
	cap_clock_pair_read(&a);
	cap_clock_pair_read(&b);
	clock_gettime(CLOCK_REALTIME, &ts);
	/* bracketed within a millisecond even on a loaded CI machine */
	assert_true(a.uncertainty_ns >= 0 && a.uncertainty_ns < 1000000);
	assert_true(b.mono_ns >= a.mono_ns);
	/* the offset between the clocks does not move between two reads */
	assert_true(llabs((b.real_ns - b.mono_ns) - (a.real_ns - a.mono_ns)) < 2000000);
	assert_true(llabs(a.real_ns - ((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec)) < 1000000000);
	j = cap_clock_pair_json(&a);
	assert_int_equal(json_integer_value(json_object_get(j, "trace_ns")), a.mono_ns);
	assert_int_equal(strlen(json_string_value(json_object_get(j, "wall"))),
	                 strlen("2026-11-30T01:02:03.123456789Z"));
	json_decref(j);
}

/* lo has 127.0.0.1 on any Linux machine (::1 too, unless IPv6 is off) */
static void test_addresses(void **state)
{
	json_t *lo = cap_iface_addresses_json("lo"), *any = cap_iface_addresses_json("any");
	json_t *none = cap_iface_addresses_json("no-such-interface0");
	int seen = 0;
	size_t i;
	json_t *v;

	(void)state;
	json_array_foreach(lo, i, v) seen |= !strcmp(json_string_value(v), "127.0.0.1");
	assert_true(seen);
	assert_true(json_array_size(any) >= json_array_size(lo));
	assert_int_equal(json_array_size(none), 0);
	json_decref(lo);
	json_decref(any);
	json_decref(none);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_clock_pair),
	    cmocka_unit_test(test_addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
