/* SPDX-License-Identifier: MIT */
/* Tests for analyze/stats.c against hand-computed values and published t tables. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "compare/stats.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static void test_mean_sd_median(void **state)
{
	/* 2 4 4 4 5 5 7 9: mean 5, squared deviations sum 32, sd = sqrt(32/7) */
	const double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
	const double odd[] = {9, 1, 5};

	(void)state;
	NEAR(stats_mean(x, 8), 5.0, 1e-12);
	NEAR(stats_sd(x, 8), sqrt(32.0 / 7.0), 1e-12);
	NEAR(stats_median(x, 8), 4.5, 1e-12);
	NEAR(stats_median(odd, 3), 5.0, 1e-12);
	assert_true(isnan(stats_sd(x, 1)));
	assert_true(isnan(stats_mean(x, 0)));
	assert_true(isnan(stats_median(x, 0)));
}

static void test_sd_no_cancellation(void **state)
{
	/* large offset, tiny spread: the naive sum-of-squares formula loses every digit here */
	const double x[] = {1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16};

	(void)state;
	NEAR(stats_sd(x, 4), sqrt(90.0 / 3.0), 1e-6);
}

/* Values near the top of the double range: the mean, median and sd of what fits, not inf
 * (issue #25 item 14: two 1e308 values gave a mean of inf). */
static void test_huge_values(void **state)
{
	const double same[] = {1e308, 1e308}, both[] = {1e308, -1e308},
	             big[] = {DBL_MAX, DBL_MAX, DBL_MAX};
	struct stats_summary s;

	(void)state;
	assert_true(stats_mean(same, 2) == 1e308);
	assert_true(stats_median(same, 2) == 1e308);
	assert_true(stats_sd(same, 2) == 0);
	assert_true(stats_mean(both, 2) == 0);
	assert_true(isfinite(stats_sd(both, 2)) &&
	            fabs(stats_sd(both, 2) / 1.4142135623730951e308 - 1) < 1e-12);
	assert_true(stats_median(both, 2) == 0);
	assert_true(stats_mean(big, 3) == DBL_MAX);
	stats_summarize(same, 2, &s);
	assert_true(s.mean == 1e308 && s.median == 1e308 && s.sd == 0);
	assert_true(s.ci_lo == 1e308 && s.ci_hi == 1e308);
}

static void test_ibeta(void **state)
{
	(void)state;
	/* closed forms: I_x(1,1) = x, I_x(a,1) = x^a, I_0.5(a,a) = 0.5 */
	NEAR(stats_ibeta(1, 1, 0.3), 0.3, 1e-13);
	NEAR(stats_ibeta(3, 1, 0.5), 0.125, 1e-13);
	NEAR(stats_ibeta(7.5, 7.5, 0.5), 0.5, 1e-13);
	/* I_0.4(2,3) = 0.5248 (binomial sum: P(X >= 2), X ~ Bin(4, 0.4)) */
	NEAR(stats_ibeta(2, 3, 0.4), 0.5248, 1e-12);
	/* arcsine law: I_x(1/2,1/2) = 2/pi asin(sqrt x) */
	NEAR(stats_ibeta(0.5, 0.5, 0.2), 2 / M_PI * asin(sqrt(0.2)), 1e-12);
	/* I_0.3(10,20) = 0.364004081071944 (mpmath betainc) */
	NEAR(stats_ibeta(10, 20, 0.3), 0.364004081071944, 1e-12);
	assert_true(stats_ibeta(2, 3, 0) == 0 && stats_ibeta(2, 3, 1) == 1);
	assert_true(isnan(stats_ibeta(-1, 3, 0.5)));
	assert_true(isnan(stats_ibeta(1, 3, 1.5)));
}

static void test_t_cdf(void **state)
{
	(void)state;
	NEAR(stats_t_cdf(0, 5), 0.5, 1e-14);
	/* df = 1 is the Cauchy distribution: F(t) = 1/2 + atan(t)/pi */
	NEAR(stats_t_cdf(1, 1), 0.75, 1e-13);
	NEAR(stats_t_cdf(-3, 1), 0.5 + atan(-3) / M_PI, 1e-13);
	/* df = 2: F(t) = 1/2 + t / (2 sqrt(2 + t^2)) */
	NEAR(stats_t_cdf(1.7, 2), 0.5 + 1.7 / (2 * sqrt(2 + 1.7 * 1.7)), 1e-13);
	NEAR(stats_t_cdf(2, 10), 0.96330598261463, 1e-12);
	NEAR(stats_t_p2(2, 10), 0.0733880347707404, 1e-12);
	/* table values: two-sided 5 % critical values give p = 0.05 */
	NEAR(stats_t_p2(2.228138851986, 10), 0.05, 1e-9);
	NEAR(stats_t_p2(2.570581835636, 5), 0.05, 1e-9);
	/* 1 % two-sided, df = 20: 2.845 */
	NEAR(stats_t_p2(2.84533970978611, 20), 0.01, 1e-9);
	/* non-integer df (what Welch produces): mpmath */
	NEAR(stats_t_p2(1.5, 4.5), 0.200219085656153, 1e-12);
	assert_true(stats_t_p2(INFINITY, 3) == 0);
	assert_true(isnan(stats_t_cdf(1, 0)));
}

static void test_t_quantile(void **state)
{
	/* t(0.975, df) from any Student t table */
	static const struct {
		double df, t;
	} table[] = {{1, 12.7062047361747},
	             {2, 4.30265272974946},
	             {4, 2.77644510519779},
	             {10, 2.22813885198627},
	             {30, 2.04227245630124}};

	(void)state;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		NEAR(stats_t_quantile(0.975, table[i].df), table[i].t, 1e-9);
	NEAR(stats_t_quantile(0.5, 7), 0, 1e-12);
	NEAR(stats_t_quantile(0.025, 4), -2.77644510519779, 1e-9);
	assert_true(isnan(stats_t_quantile(1, 4)));
}

static void test_summary_ci(void **state)
{
	/* 10 12 14: mean 12, sd 2, half width = 4.30265 * 2 / sqrt(3) = 4.96827 */
	const double x[] = {10, 12, 14};
	struct stats_summary s;

	(void)state;
	stats_summarize(x, 3, &s);
	assert_int_equal(s.n, 3);
	NEAR(s.mean, 12, 1e-12);
	NEAR(s.sd, 2, 1e-12);
	NEAR(s.median, 12, 1e-12);
	NEAR(s.ci_lo, 12 - 4.30265272974946 * 2 / sqrt(3), 1e-9);
	NEAR(s.ci_hi, 12 + 4.30265272974946 * 2 / sqrt(3), 1e-9);
	NEAR(s.min, 10, 0);
	NEAR(s.max, 14, 0);
	stats_summarize(x, 1, &s);
	assert_true(isnan(s.ci_lo) && isnan(s.sd));
	NEAR(s.mean, 10, 0);
}

static void test_welch(void **state)
{
	/*
	 * a = 1 2 3 4 (mean 2.5, var 5/3), b = 2 4 6 8 (mean 5, var 20/3), n = 4 each:
	 * se^2 = 5/12 + 20/12 = 25/12, t = 2.5 / sqrt(25/12) = sqrt(3) = 1.7320508,
	 * df = (25/12)^2 / ((5/12)^2/3 + (20/12)^2/3) = 625/144 / (425/432) = 4.4117647,
	 * p = 0.151580504845304 (mpmath)
	 */
	const double a[] = {1, 2, 3, 4}, b[] = {2, 4, 6, 8};
	struct stats_summary sa, sb;
	struct stats_welch w;

	(void)state;
	stats_summarize(a, 4, &sa);
	stats_summarize(b, 4, &sb);
	assert_int_equal(stats_welch_test(&sa, &sb, &w), 0);
	NEAR(w.t, sqrt(3), 1e-12);
	NEAR(w.df, 625.0 / 144 / (425.0 / 432), 1e-10);
	NEAR(w.p, 0.151580504845304, 1e-10);
	/* symmetric */
	assert_int_equal(stats_welch_test(&sb, &sa, &w), 0);
	NEAR(w.t, -sqrt(3), 1e-12);
	NEAR(w.p, 0.151580504845304, 1e-10);
}

static void test_welch_degenerate(void **state)
{
	const double a[] = {5, 5, 5}, b[] = {5, 5}, c[] = {6, 6};
	struct stats_summary sa, sb, sc;
	struct stats_welch w;

	(void)state;
	stats_summarize(a, 3, &sa);
	stats_summarize(b, 2, &sb);
	stats_summarize(c, 2, &sc);
	assert_int_equal(stats_welch_test(&sa, &sb, &w), 0);
	NEAR(w.p, 1, 0);
	assert_int_equal(stats_welch_test(&sa, &sc, &w), 0);
	NEAR(w.p, 0, 0);
	assert_true(isinf(w.t) && w.t > 0);
	stats_summarize(a, 1, &sa);
	assert_int_equal(stats_welch_test(&sa, &sc, &w), -EDOM);
	assert_true(isnan(w.p));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mean_sd_median), cmocka_unit_test(test_sd_no_cancellation),
	    cmocka_unit_test(test_ibeta),          cmocka_unit_test(test_t_cdf),
	    cmocka_unit_test(test_t_quantile),     cmocka_unit_test(test_summary_ci),
	    cmocka_unit_test(test_welch),          cmocka_unit_test(test_welch_degenerate),
	    cmocka_unit_test(test_huge_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
