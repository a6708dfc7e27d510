/* SPDX-License-Identifier: MIT */
/* Small-sample statistics for compare: mean, sd, median, Student t CI, Welch's t-test. */
#ifndef IOTAPE_COMPARE_STATS_H
#define IOTAPE_COMPARE_STATS_H

#include <stddef.h>

/*
 * Everything here works on a handful of repeated runs (n = 1..30), so it favours clarity over
 * speed. Undefined results (sd of one value, a CI of one run, a test with a group of one) are
 * NaN, and renderers print them as "-".
 */
double stats_mean(const double *x, size_t n);
/* Sample standard deviation (n - 1 in the denominator); NaN for n < 2. */
double stats_sd(const double *x, size_t n);
/* Median; sorts a private copy. NaN for n == 0 (or -ENOMEM-free: falls back to NaN). */
double stats_median(const double *x, size_t n);

/* Regularized incomplete beta function I_x(a, b), a, b > 0, 0 <= x <= 1 (NaN otherwise). */
double stats_ibeta(double a, double b, double x);
/* Student t distribution with df > 0 degrees of freedom (df need not be an integer). */
double stats_t_cdf(double t, double df);
/* Two-sided p-value P(|T| >= |t|). */
double stats_t_p2(double t, double df);
/* Quantile: the t with stats_t_cdf(t, df) == p, 0 < p < 1. */
double stats_t_quantile(double p, double df);

struct stats_summary {
	size_t n;
	double mean;
	double sd; /* NaN when n < 2 */
	double median;
	double ci_lo; /* 95 % confidence interval of the mean (Student t); NaN when n < 2 */
	double ci_hi;
	double min;
	double max;
};

void stats_summarize(const double *x, size_t n, struct stats_summary *out);

struct stats_welch {
	double t;  /* (mean_b - mean_a) / se */
	double df; /* Welch-Satterthwaite degrees of freedom */
	double p;  /* two-sided */
};

/*
 * Welch's unequal-variance t-test of b against a. Returns 0, or -EDOM when the test is
 * undefined (a group with fewer than two values); out is then all NaN. When both groups have
 * zero variance the test degenerates: p = 1 for equal means, 0 otherwise, t = +-inf, df = NaN.
 */
int stats_welch_test(const struct stats_summary *a, const struct stats_summary *b,
                     struct stats_welch *out);

#endif
