/* SPDX-License-Identifier: MIT */
/* Tests for analyze/report_scan.c and report_points.c: bins, doubling, grid, gaps, depth. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "report/report_html.h"
#include "report/report_scan.h"

#define MS 1000000ull
#define NEAR(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol))

static void ev(struct rpt_run *r, uint64_t t, unsigned action, uint64_t sector, uint32_t bytes,
               bool write)
{
	struct blk_event e;

	memset(&e, 0, sizeof(e));
	e.time = t;
	e.action = (uint16_t)action;
	e.sector = sector;
	e.bytes = bytes;
	e.dev = BLK_MKDEV(8, 0);
	e.flags = write ? BLK_F_WRITE : BLK_F_READ;
	assert_int_equal(rpt_run_feed(r, &e), 0);
}

/*
 * Three requests: 0..1 ms at sector 0 (read 4 KiB), 100..102 ms at sector 8 (sequential
 * write 4 KiB), 103..104 ms at sector 1000 (a seek, read 8 KiB). Idle threshold 10 ms: one
 * gap, 1 ms .. 100 ms.
 */
static void three(struct rpt_run *r)
{
	assert_int_equal(rpt_run_init(r, 0, 10 * MS), 0);
	ev(r, 5 * MS / 10, BLK_A_QUEUE, 0, 4096, false); /* Q: no effect on these series */
	ev(r, 0 + 5 * MS / 10, BLK_A_ISSUE, 0, 4096, false);
	ev(r, 1 * MS + 5 * MS / 10, BLK_A_COMPLETE, 0, 4096, false);
	ev(r, 100 * MS + 5 * MS / 10, BLK_A_ISSUE, 8, 4096, true);
	ev(r, 102 * MS + 5 * MS / 10, BLK_A_COMPLETE, 8, 4096, true);
	ev(r, 103 * MS + 5 * MS / 10, BLK_A_ISSUE, 1000, 8192, false);
	ev(r, 104 * MS + 5 * MS / 10, BLK_A_COMPLETE, 1000, 8192, false);
	rpt_run_finish(r);
}

static void test_totals(void **state)
{
	struct rpt_run r;
	const struct rpt_dev *d;
	uint64_t rd = 0, wr = 0, idle = 0, grid = 0, lat = 0;
	double area = 0;

	(void)state;
	three(&r);
	assert_int_equal(r.ndev, 1);
	d = r.dev[0];
	assert_int_equal(rpt_run_span(&r), 104 * MS);
	assert_int_equal(d->issues, 3);
	assert_int_equal(d->seeks, 1);
	assert_int_equal(d->rd_ios, 2);
	assert_int_equal(d->wr_ios, 1);
	assert_int_equal(d->rd_bytes, 12288);
	assert_int_equal(d->wr_bytes, 4096);
	assert_int_equal(d->gaps, 1);
	assert_int_equal(d->idle_total, 99 * MS);
	assert_int_equal(d->ntop, 1);
	assert_int_equal(d->top[0].start, 1 * MS);
	assert_int_equal(d->top[0].len, 99 * MS);
	assert_int_equal(d->d2c.count, 3);
	assert_int_equal(d->d2c.min, 1 * MS);
	assert_int_equal(d->d2c.max, 2 * MS);
	assert_int_equal(d->min_sector, 0);
	assert_int_equal(d->max_sector, 1000);
	/* 104 ms in at most 2048 bins from 1 us doubling: 32 us is too fine, 64 us fits */
	assert_int_equal(r.width, 64000);
	assert_true(r.nbins <= RPT_MAX_BINS);
	/* every sum survives the doublings */
	for (unsigned b = 0; b < RPT_MAX_BINS; b++) {
		rd += d->bin[b].rd_bytes;
		wr += d->bin[b].wr_bytes;
		idle += d->bin[b].idle_ns;
		area += d->bin[b].qd_area;
		lat += d->bin[b].lat_n;
		for (unsigned i = 0; i < RPT_ROWS; i++)
			grid += d->grid[b][i][0] + d->grid[b][i][1];
	}
	assert_int_equal(rd, 12288);
	assert_int_equal(wr, 4096);
	assert_int_equal(idle, 99 * MS);
	NEAR(area, 4.0 * MS, 1); /* one request outstanding for 1 + 2 + 1 ms */
	assert_int_equal(lat, 3);
	assert_int_equal(grid, 3);
	rpt_run_release(&r);
}

static void test_points(void **state)
{
	struct rpt_run r;
	struct report_points p;
	double bytes = 0, idle = 0;

	(void)state;
	three(&r);
	/* points of 256 bins: 16.384 ms */
	assert_int_equal(report_points_make(&r, r.dev[0], 64000ull * 256, &p), 0);
	assert_int_equal(p.n, 7); /* 104 ms / 16.384 ms */
	for (size_t j = 0; j < p.n; j++) {
		double secs =
		    j + 1 < p.n ? 64000.0 * 256 / 1e9 : (104.0 * MS - 64000.0 * 256 * j) / 1e9;

		bytes += p.mbps[j] * 1e6 * secs;
		idle += p.idle_frac[j] * secs * 1e9;
		assert_true(p.mbps_lo[j] <= p.mbps[j] + 1e-9 && p.mbps[j] <= p.mbps_hi[j] + 1e-9);
	}
	NEAR(bytes, 16384, 1e-3);
	NEAR(idle, 99.0 * MS, 1);
	/* first point: the 1 ms read; D2C p50 within a latency bucket of 1 ms */
	NEAR(p.p50[0], 1.0 * MS, 0.1 * MS);
	/* the idle middle has no completions: no latency, a break in the line */
	assert_true(isnan(p.p50[3]));
	assert_true(p.idle_frac[3] > 0.99);
	/* last point: 102 ms (2 ms write) and 104 ms (1 ms read) */
	NEAR(p.p99[6], 2.0 * MS, 0.15 * MS);
	report_points_release(&p);
	rpt_run_release(&r);
}

static void test_grid_growth(void **state)
{
	struct rpt_run r;
	const struct rpt_dev *d;
	uint64_t cnt = 0;

	(void)state;
	rpt_run_init(&r, 1 * MS, 10 * MS);
	/* sectors far apart, both ways: the range widens by aligned doubling, counts kept */
	ev(&r, 1 * MS, BLK_A_ISSUE, 5000, 512, false);
	ev(&r, 2 * MS, BLK_A_ISSUE, 100, 512, true);
	ev(&r, 3 * MS, BLK_A_ISSUE, 1ull << 40, 512, false);
	ev(&r, 4 * MS, BLK_A_ISSUE, 5001, 512, false);
	d = r.dev[0];
	for (unsigned b = 0; b < RPT_MAX_BINS; b++)
		for (unsigned i = 0; i < RPT_ROWS; i++)
			cnt += d->grid[b][i][0] + d->grid[b][i][1];
	assert_int_equal(cnt, 4);
	assert_true(d->row_lo <= 100);
	assert_true(d->row_lo + RPT_ROWS * d->row_span > (1ull << 40));
	assert_int_equal(d->min_sector, 100);
	assert_int_equal(d->max_sector, 1ull << 40);
	/* the write landed in row 0 of bin 1 (1 ms bins from --interval, t0 = 1 ms) */
	assert_int_equal(r.width, 1 * MS);
	assert_int_equal(d->grid[1][0][1], 1);
	/* four issues, no completions: depth 4, no idle gap closed */
	assert_int_equal(d->qd, 4);
	assert_int_equal(d->gaps, 0);
	rpt_run_release(&r);
}

/* A long trace with one rare gap: after many doublings the gap is still kept exactly among
 * the longest, its idle time is in the bins, and the plotted points still shade it. */
static void test_rare_gap(void **state)
{
	struct rpt_run r;
	struct report_points p;
	const struct rpt_dev *d;
	uint64_t t = 0, idle = 0, gap_at = 0;
	double shaded = 0;

	(void)state;
	rpt_run_init(&r, 0, 10 * MS);
	/* 300 s of 1 ms requests back to back (no gaps), with one 50 ms pause at 200 s */
	for (unsigned i = 0; t < 300000 * MS; i++) {
		if (!gap_at && t >= 200000 * MS) {
			gap_at = t;
			t += 50 * MS;
		}
		ev(&r, t, BLK_A_ISSUE, i * 8ull, 4096, i % 2);
		ev(&r, t + 1 * MS, BLK_A_COMPLETE, i * 8ull, 4096, i % 2);
		t += 1 * MS;
	}
	rpt_run_finish(&r);
	d = r.dev[0];
	assert_int_equal(d->gaps, 1);
	assert_int_equal(d->top[0].start, gap_at);
	assert_int_equal(d->top[0].len, 50 * MS);
	/* 300 s in 2048 bins: 1 us doubled 18 times = 262 ms bins, the gap inside one or two */
	assert_int_equal(r.width, 1000ull << 18);
	for (unsigned b = 0; b < RPT_MAX_BINS; b++)
		idle += d->bin[b].idle_ns;
	assert_int_equal(idle, 50 * MS);
	assert_int_equal(report_points_make(&r, d, r.width * 4, &p), 0);
	for (size_t j = 0; j < p.n; j++)
		shaded += p.idle_frac[j] * (double)(r.width * 4);
	NEAR(shaded, 50.0 * MS, 1);
	report_points_release(&p);
	rpt_run_release(&r);
}

static void test_lat_buckets(void **state)
{
	uint32_t lat[RPT_LAT_BUCKETS] = {0};

	(void)state;
	for (uint64_t v = 1; v < (1ull << 40); v = v * 3 + 1) {
		uint64_t rep = rpt_lat_value(rpt_lat_bucket(v));

		/* RPT_LAT_SUB buckets per power of two: the midpoint is within half a bucket */
		NEAR(rep, v, 0.5 / RPT_LAT_SUB * (double)v + 1);
		assert_true(rpt_lat_bucket(rep) == rpt_lat_bucket(v));
	}
	lat[rpt_lat_bucket(1000)] = 99;
	lat[rpt_lat_bucket(1000000)] = 1;
	NEAR(rpt_lat_quantile(lat, 100, 0.5), 1000, 65);
	NEAR(rpt_lat_quantile(lat, 100, 0.99), 1000, 65);
	NEAR(rpt_lat_quantile(lat, 100, 1.0), 1000000, 65000);
	/* every bucket's value maps back to it, and buckets grow monotonically */
	for (unsigned b = 1; b < RPT_LAT_BUCKETS; b++) {
		assert_int_equal(rpt_lat_bucket(rpt_lat_value(b)), b);
		assert_true(rpt_lat_value(b) > rpt_lat_value(b - 1));
	}
	assert_int_equal(rpt_lat_quantile(lat, 0, 0.5), 0);
}

static void test_json(void **state)
{
	struct rpt_run r;
	json_t *j, *d;

	(void)state;
	three(&r);
	j = rpt_run_to_json(&r);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, "span_ns")), 104 * MS);
	d = json_array_get(json_object_get(j, "devices"), 0);
	assert_string_equal(json_string_value(json_object_get(d, "dev")), "8,0");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(d, "reads"), "ios")),
	                 2);
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(d, "idle"), "total_ns")), 99 * MS);
	NEAR(json_real_value(json_object_get(json_object_get(d, "seeks"), "sequential_pct")),
	     200.0 / 3, 1e-9);
	json_decref(j);
	rpt_run_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_totals),      cmocka_unit_test(test_points),
	    cmocka_unit_test(test_grid_growth), cmocka_unit_test(test_rare_gap),
	    cmocka_unit_test(test_lat_buckets), cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
