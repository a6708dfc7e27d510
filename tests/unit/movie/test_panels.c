/* SPDX-License-Identifier: MIT */
/* Unit tests: a panel's device names and a run set's lags (movie/panels.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "formats/blkevent.h"
#include "formats/manifest.h"
#include "movie/movie.h"

/* named with its role and filesystem, with its filesystem only, by number (not in the
 * manifest, or no manifest at all) */
static void test_dev_names(void **state)
{
	struct movie_probe_dev devs[3] = {
	    {.dev = BLK_MKDEV(7, 4)}, {.dev = BLK_MKDEV(7, 0)}, {.dev = BLK_MKDEV(259, 1)}};
	struct movie_probe p = {.ndev = 3, .dev = devs};
	struct manifest_dev md[2] = {
	    {.name = "loop4", .major = 7, .minor = 4, .role = "osd.0 data", .fstype = "xfs"},
	    {.name = "loop0", .major = 7, .minor = 0, .fstype = "ext4"},
	};
	struct manifest mf = {.ndevs = 2, .devs = md};
	char **n;

	(void)state;
	assert_int_equal(movie_dev_names(&p, &mf, &n), 0);
	assert_string_equal(n[0], "loop4 osd.0 data (xfs)");
	assert_string_equal(n[1], "loop0 (ext4)");
	assert_string_equal(n[2], "259,1");
	movie_dev_names_free(n, p.ndev);
	assert_int_equal(movie_dev_names(&p, NULL, &n), 0);
	assert_string_equal(n[0], "7,4");
	movie_dev_names_free(n, p.ndev);
	p.ndev = 0; /* no device: still an array to free */
	assert_int_equal(movie_dev_names(&p, &mf, &n), 0);
	assert_non_null(n);
	movie_dev_names_free(n, 0);
}

/* A manifest whose trace clock is its realtime less base (one clock pair at each end). */
static struct manifest clocked(int64_t base)
{
	struct manifest m = {.have_clock = 1,
	                     .start_trace_ns = 1000,
	                     .start_real_ns = base + 1000,
	                     .end_trace_ns = 9000000,
	                     .end_real_ns = base + 9000000};
	return m;
}

/* each host's first event on the set's clock (its offset taken off), lags after the earliest;
 * a host without clock pairs starts with the movie */
static void test_set_lags(void **state)
{
	struct manifest a = clocked(500000000), b = clocked(700000000), none = {0};
	const struct manifest *mf[4] = {&a, &b, &none, NULL};
	const uint64_t first[4] = {2000, 2000, 5, 5};
	/* b's realtime runs 150 ms ahead of the capturing host's */
	const int64_t off[4] = {0, 150000000, 0, 0};
	struct movie_run_info info[4];
	bool placed[4];

	(void)state;
	memset(info, 0xff, sizeof(info));
	movie_set_lags(mf, first, off, 4, info, placed);
	assert_true(placed[0] && placed[1]);
	assert_false(placed[2] || placed[3]);
	assert_int_equal(info[0].lag_ns, 0);
	assert_int_equal(info[1].lag_ns, 50000000);
	assert_int_equal(info[2].lag_ns, 0);
	assert_int_equal(info[3].lag_ns, 0);

	/* the earliest is whichever host started first on the set's clock */
	{
		const int64_t late[2] = {0, 250000000};

		movie_set_lags(mf, first, late, 2, info, placed);
		assert_int_equal(info[0].lag_ns, 50000000);
		assert_int_equal(info[1].lag_ns, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dev_names),
	    cmocka_unit_test(test_set_lags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
