/* SPDX-License-Identifier: MIT */
/* Small-sample statistics for compare: mean, sd, median, Student t CI, Welch's t-test. */
#include "compare/stats.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The largest magnitude of x, to sum x / it when the plain sum overflows (two of 1e308 give
 * their mean, not inf); the plain sum otherwise, which rounds as the values' sum does. 1 when
 * all are 0 (or not finite). */
static double scale_of(const double *x, size_t n)
{
	double m = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]) && fabs(x[i]) > m)
			m = fabs(x[i]);
	return m > 0 ? m : 1;
}

static bool all_finite(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return false;
	return true;
}

static double mean_in(const double *x, size_t n, double k)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += x[i] / k;
	return s / (double)n;
}

double stats_mean(const double *x, size_t n)
{
	double m, k;

	if (!n)
		return NAN;
	m = mean_in(x, n, 1);
	if (isfinite(m) || !all_finite(x, n))
		return m;
	k = scale_of(x, n);
	return mean_in(x, n, k) * k;
}

/* Squared deviations from the mean, in units of k (two-pass: no catastrophic cancellation). */
static double sd_in(const double *x, size_t n, double k)
{
	double m = stats_mean(x, n) / k, ss = 0;

	for (size_t i = 0; i < n; i++)
		ss += (x[i] / k - m) * (x[i] / k - m);
	return sqrt(ss / (double)(n - 1)) * k;
}

double stats_sd(const double *x, size_t n)
{
	double sd;

	if (n < 2)
		return NAN;
	sd = sd_in(x, n, 1);
	if (isfinite(sd) || !all_finite(x, n))
		return sd;
	return sd_in(x, n, scale_of(x, n));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double stats_median(const double *x, size_t n)
{
	double *c, m;

	if (!n)
		return NAN;
	c = malloc(n * sizeof(*c));
	if (!c)
		return NAN;
	memcpy(c, x, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	if (!isfinite(m) && isfinite(c[n / 2 - 1]) && isfinite(c[n / 2]))
		m = c[n / 2 - 1] / 2 + c[n / 2] / 2; /* their sum overflowed */
	free(c);
	return m;
}

/*
 * Continued fraction for I_x(a, b), evaluated with the modified Lentz method (Numerical
 * Recipes 6.4; DLMF 8.17.22). Converges quickly for x < (a + 1) / (a + b + 2).
 */
#define LENTZ_TINY 1e-300

/* One step of the modified Lentz method with the fraction's next coefficient aa: c and d move
 * on (kept off zero), and the factor that multiplies the value comes back. */
static double lentz_step(double aa, double *c, double *d)
{
	*d = 1 + aa * *d;
	if (fabs(*d) < LENTZ_TINY)
		*d = LENTZ_TINY;
	*c = 1 + aa / *c;
	if (fabs(*c) < LENTZ_TINY)
		*c = LENTZ_TINY;
	*d = 1 / *d;
	return *d * *c;
}

static double betacf(double a, double b, double x)
{
	const double eps = 1e-15;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap, h;

	if (fabs(d) < LENTZ_TINY)
		d = LENTZ_TINY;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 1000; m++) {
		int m2 = 2 * m;
		double del;

		h *= lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), &c, &d);
		del = lentz_step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), &c, &d);
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

double stats_ibeta(double a, double b, double x)
{
	double lbt;

	if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1))
		return NAN;
	if (x == 0 || x == 1)
		return x;
	lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) * betacf(a, b, x) / a;
	/* the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) keeps the fraction in its fast region */
	return 1 - exp(lbt) * betacf(b, a, 1 - x) / b;
}

double stats_t_p2(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return 0;
	/* P(|T| >= |t|) = I_{df/(df+t^2)}(df/2, 1/2) (Abramowitz & Stegun 26.7.1) */
	return stats_ibeta(df / 2, 0.5, df / (df + t * t));
}

double stats_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || !(df > 0))
		return NAN;
	tail = stats_t_p2(t, df) / 2;
	return t > 0 ? 1 - tail : tail;
}

double stats_t_quantile(double p, double df)
{
	double lo = -1, hi = 1;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	/* near the centre df/(df+t^2) rounds to 1 and the CDF is flat to ~1e-8: answer exactly */
	if (p == 0.5)
		return 0;
	while (stats_t_cdf(lo, df) > p && lo > -1e300)
		lo *= 2;
	while (stats_t_cdf(hi, df) < p && hi < 1e300)
		hi *= 2;
	/* the CDF is monotone: bisection to machine precision is plenty fast for a few calls */
	for (int i = 0; i < 200 && hi - lo > 1e-13 * (1 + fabs(lo)); i++) {
		double mid = (lo + hi) / 2;

		if (stats_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

void stats_summarize(const double *x, size_t n, struct stats_summary *out)
{
	out->n = n;
	out->mean = stats_mean(x, n);
	out->sd = stats_sd(x, n);
	out->median = stats_median(x, n);
	out->min = out->max = NAN;
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || x[i] < out->min)
			out->min = x[i];
		if (i == 0 || x[i] > out->max)
			out->max = x[i];
	}
	out->ci_lo = out->ci_hi = NAN;
	if (n >= 2) {
		double half = stats_t_quantile(0.975, (double)(n - 1)) * out->sd / sqrt((double)n);

		out->ci_lo = out->mean - half;
		out->ci_hi = out->mean + half;
	}
}

int stats_welch_test(const struct stats_summary *a, const struct stats_summary *b,
                     struct stats_welch *out)
{
	double va, vb, se2;

	out->t = out->df = out->p = NAN;
	if (a->n < 2 || b->n < 2)
		return -EDOM;
	va = a->sd * a->sd / (double)a->n;
	vb = b->sd * b->sd / (double)b->n;
	se2 = va + vb;
	if (se2 == 0) {
		/* no spread at all: identical means are indistinguishable, different ones certain
		 */
		if (a->mean == b->mean) {
			out->t = 0;
			out->p = 1;
		} else {
			out->t = b->mean > a->mean ? INFINITY : -INFINITY;
			out->p = 0;
		}
		return 0;
	}
	out->t = (b->mean - a->mean) / sqrt(se2);
	out->df = se2 * se2 / (va * va / (double)(a->n - 1) + vb * vb / (double)(b->n - 1));
	out->p = stats_t_p2(out->t, out->df);
	return 0;
}
