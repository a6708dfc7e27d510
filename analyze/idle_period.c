/* SPDX-License-Identifier: MIT */
/* Why was the disk idle: gaps that recur at a steady period (a journal commit, writeback). */
#include "analyze/idle_explain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * The method (docs/diagnose-idle.md): the events are the ends of a device's gaps ended by an
 * issue, i.e. the starts of the IO bursts between gaps. Gaps come in sizes: at level k only
 * the gaps at least threshold x 2^k long count (a steady 5 s commit stands out among shorter,
 * irregular gaps at some level). At each level, from the lowest, with at least PERIOD_MIN_GAPS
 * gaps: the intervals between consecutive ends, their median P, and those within P/10 of it
 * ("matching"). A level is periodic when at least PERIOD_MIN_MATCH intervals match and they
 * are at least 60 % of all its intervals. Of the periodic levels, the one with the most
 * matching intervals (then the smallest jitter) gives the period (the mean of the matching
 * intervals), the jitter (their standard deviation) and the count: a level below it holds
 * shorter gaps that break the series up, one above it loses some of the series. Random gaps
 * (exponential intervals) put about 7 % of their intervals within 10 % of the median.
 */
#define PERIOD_MIN_GAPS 6u
#define PERIOD_MIN_MATCH 5u
#define PERIOD_TOL_DIV 10u

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The ends of the gaps at least lvl long, ended by an issue; how many. */
static size_t ends(const struct ie_dev *d, uint64_t lvl, uint64_t *e)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nall; i++)
		if (d->all[i].by_issue && d->all[i].ce - d->all[i].cs >= lvl)
			e[n++] = d->all[i].ce;
	return n;
}

void ie_period_find(struct ie_dev *d, uint64_t threshold_ns)
{
	uint64_t *e = malloc((d->nall ? d->nall : 1) * sizeof(*e));
	uint64_t *iv = malloc((d->nall ? d->nall : 1) * sizeof(*iv));
	uint64_t longest = 0;

	memset(&d->per, 0, sizeof(d->per));
	if (!e || !iv)
		goto out;
	for (size_t i = 0; i < d->nall; i++)
		if (d->all[i].ce - d->all[i].cs > longest)
			longest = d->all[i].ce - d->all[i].cs;
	for (uint64_t lvl = threshold_ns ? threshold_ns : 1; lvl <= longest; lvl *= 2) {
		size_t n = ends(d, lvl, e), m = 0;
		uint64_t med, tol, first = 0;
		double sum = 0, sq = 0;

		if (n < PERIOD_MIN_GAPS)
			break;
		for (size_t i = 0; i + 1 < n; i++)
			iv[i] = e[i + 1] - e[i];
		qsort(iv, n - 1, sizeof(*iv), cmp_u64);
		med = iv[(n - 2) / 2];
		tol = med / PERIOD_TOL_DIV;
		for (size_t i = 0; i + 1 < n; i++) {
			uint64_t v = e[i + 1] - e[i];

			if (v + tol < med || v > med + tol)
				continue;
			if (!m++)
				first = e[i];
			sum += (double)v;
			sq += (double)v * (double)v;
		}
		if (m >= PERIOD_MIN_MATCH && 10 * m >= 6 * (n - 1)) {
			double mean = sum / (double)m, var = sq / (double)m - mean * mean;
			uint64_t jit = var > 0 ? (uint64_t)(sqrt(var) + 0.5) : 0;

			if (!d->per.found || m > d->per.count ||
			    (m == d->per.count && jit < d->per.jitter_ns)) {
				d->per.found = true;
				d->per.period_ns = (uint64_t)(mean + 0.5);
				d->per.jitter_ns = jit;
				d->per.min_gap_ns = lvl;
				d->per.gaps = (unsigned)n;
				d->per.count = (unsigned)m;
				d->per.first_ns = first;
			}
		}
		if (lvl > UINT64_MAX / 2)
			break;
	}
out:
	free(e);
	free(iv);
}

/* Does the gap starting at common time cs belong to the device's periodic series: at least
 * the series' length, and its end one period (within the tolerance) from the end of the
 * previous or the next gap of the series? */
bool ie_period_member(const struct ie_dev *d, uint64_t cs)
{
	const struct ie_period *p = &d->per;
	uint64_t tol = p->period_ns / PERIOD_TOL_DIV;
	size_t lo = 0, hi = d->nall, k;

	if (!p->found)
		return false;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (d->all[mid].cs < cs)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == d->nall || d->all[lo].cs != cs || !d->all[lo].by_issue ||
	    d->all[lo].ce - d->all[lo].cs < p->min_gap_ns)
		return false;
	for (int dir = -1; dir <= 1; dir += 2) {
		for (k = lo; dir < 0 ? k-- > 0 : ++k < d->nall;) {
			uint64_t a, b, v;

			if (!d->all[k].by_issue || d->all[k].ce - d->all[k].cs < p->min_gap_ns)
				continue;
			a = d->all[k].ce;
			b = d->all[lo].ce;
			v = a > b ? a - b : b - a;
			if (v + tol >= p->period_ns && v <= p->period_ns + tol)
				return true;
			break;
		}
	}
	return false;
}
