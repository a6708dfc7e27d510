/* SPDX-License-Identifier: MIT */
/* Unit tests: the palette's data colours never coincide with its state shading (#27 item 2). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/palette.h"

static int chroma(uint32_t c)
{
	int r = c >> 16 & 255, g = c >> 8 & 255, b = c & 255;
	int hi = r > g ? (r > b ? r : b) : (g > b ? g : b);
	int lo = r < g ? (r < b ? r : b) : (g < b ? g : b);

	return hi - lo;
}

/* the hex string is the number */
static void same(uint32_t rgb, const char *hex)
{
	char want[8];

	snprintf(want, sizeof(want), "#%06x", (unsigned)rgb);
	assert_string_equal(hex, want);
}

static void test_data_and_state_apart(void **state)
{
	(void)state;
	for (int i = 0; i < PAL_NDATA; i++) {
		same(pal_rgb(i), pal_hex(i));
		assert_true(chroma(pal_rgb(i)) >= PAL_MIN_CHROMA);
		for (int j = 0; j < i; j++)
			assert_int_not_equal(pal_rgb(i), pal_rgb(j));
	}
	for (int i = PAL_NDATA; i < PAL_N; i++) {
		same(pal_rgb(i), pal_hex(i));
		assert_true(chroma(pal_rgb(i)) <= PAL_MAX_GREY);
	}
	assert_int_not_equal(pal_rgb(PAL_IDLE), pal_rgb(PAL_GAP));
}

static void test_runs(void **state)
{
	(void)state;
	for (size_t i = 0; i < PAL_NRUNS; i++) {
		same(pal_run_rgb(i), pal_run_hex(i));
		/* a run's lines are data: coloured, and never read's or write's colour */
		assert_true(chroma(pal_run_rgb(i)) >= PAL_MIN_CHROMA);
		assert_int_not_equal(pal_run_rgb(i), pal_rgb(PAL_READ));
		assert_int_not_equal(pal_run_rgb(i), pal_rgb(PAL_WRITE));
		for (size_t j = 0; j < i; j++)
			assert_int_not_equal(pal_run_rgb(i), pal_run_rgb(j));
	}
	assert_int_equal(pal_run_rgb(PAL_NRUNS), pal_run_rgb(0));
}

static void test_hatch(void **state)
{
	(void)state;
	for (size_t i = 0; i < 16; i++) {
		for (size_t j = 0; j < i; j++) {
			double ai, si, aj, sj;

			pal_hatch(i, &ai, &si);
			pal_hatch(j, &aj, &sj);
			assert_true(ai != aj || si != sj);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_data_and_state_apart),
	    cmocka_unit_test(test_runs),
	    cmocka_unit_test(test_hatch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
