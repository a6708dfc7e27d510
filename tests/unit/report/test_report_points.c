/* SPDX-License-Identifier: MIT */
/* Tests for report_points.c and report_grid.c: the report's series from the analysis sinks. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/blk_analysis.h"
#include "analyze/blk_idle.h"
#include "analyze/blk_latency.h"
#include "analyze/blk_timeline.h"
#include "report/report_grid.h"
#include "report/report_html.h"
#include "report/report_nfs.h"

#define MS 1000000ull
#define NEAR(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol))

/* A pass as the report runs it (report_run.c): 1 us bins doubling, D2C per bin, the grid. */
static struct blk_analysis *pass(uint64_t interval_ns)
{
	struct blk_analysis *a;
	struct blk_opts o;

	blk_opts_init(&o);
	o.interval_ns = interval_ns ? interval_ns : RPT_BASE_WIDTH_NS;
	o.max_bins = RPT_MAX_BINS;
	o.lat_bins_devices = RPT_GRID_DEVICES;
	assert_int_equal(blk_analysis_new(&a, &o), 0);
	assert_non_null(blk_analysis_add_sink(a, &rpt_grid_ops));
	return a;
}

static void ev(struct blk_analysis *a, uint64_t t, unsigned action, uint64_t sector, uint32_t bytes,
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
	blk_analysis_feed(a, &e);
}

/* Queue, issue and complete of one request. */
static void io(struct blk_analysis *a, uint64_t d, uint64_t c, uint64_t sector, uint32_t bytes,
               bool write)
{
	ev(a, d, BLK_A_QUEUE, sector, bytes, write);
	ev(a, d, BLK_A_ISSUE, sector, bytes, write);
	ev(a, c, BLK_A_COMPLETE, sector, bytes, write);
}

/*
 * Three requests: 0.5..1.5 ms at sector 0 (read 4 KiB), 100.5..102.5 ms at sector 8
 * (sequential write 4 KiB), 103.5..104.5 ms at sector 1000 (a seek, read 8 KiB). Idle
 * threshold 10 ms: one gap, 1.5 ms .. 100.5 ms.
 */
static struct blk_analysis *three(void)
{
	struct blk_analysis *a = pass(0);

	io(a, 5 * MS / 10, 15 * MS / 10, 0, 4096, false);
	io(a, 1005 * MS / 10, 1025 * MS / 10, 8, 4096, true);
	io(a, 1035 * MS / 10, 1045 * MS / 10, 1000, 8192, false);
	blk_analysis_finish(a);
	return a;
}

static void test_clocks_agree(void **state)
{
	struct blk_analysis *a = three();
	const struct blk_timeline *tl = blk_analysis_sink(a, &blk_timeline_ops);
	const struct blk_latency *lt = blk_analysis_sink(a, &blk_latency_ops);
	const struct rpt_grid *g = blk_analysis_sink(a, &rpt_grid_ops);
	uint64_t lat = 0, cells = 0, idle = 0;

	(void)state;
	/* 104 ms in at most 2048 bins from 1 us doubling: 32 us is too fine, 64 us fits */
	assert_int_equal(blk_timeline_interval(tl), 64000);
	assert_int_equal(blk_latency_clock(lt)->width, 64000);
	assert_int_equal(g->clock.width, 64000);
	assert_int_equal(blk_latency_clock(lt)->origin, blk_timeline_clock(tl)->origin);
	assert_int_equal(g->clock.origin, blk_timeline_clock(tl)->origin);
	for (uint64_t k = 0; k < blk_timeline_nbins(tl); k++) {
		const struct hist_coarse *h = blk_latency_bin(lt, 0, k);

		lat += h ? h->count : 0;
		idle += blk_timeline_bin(tl, 0, k).idle_ns;
		if (k < rpt_grid_dev(g, 0)->ncell)
			for (unsigned r = 0; r < RPT_ROWS; r++)
				cells += rpt_grid_dev(g, 0)->cell[k][r][0] +
				         rpt_grid_dev(g, 0)->cell[k][r][1];
	}
	assert_int_equal(lat, 3);
	assert_int_equal(cells, 3);
	assert_int_equal(idle, 99 * MS);
	assert_int_equal(rpt_grid_dev(g, 0)->min_sector, 0);
	assert_int_equal(rpt_grid_dev(g, 0)->max_sector, 1000);
	blk_analysis_free(a);
}

/* A 1 MiB write split in two requests (a journal's writes over max_sectors_kb): btt matches
 * the first piece's completion to the bio and not the second's; the report's per-interval D2C
 * follows both requests, as compare's latency does (issue #23 item 4). */
static void test_split_d2c(void **state)
{
	struct blk_analysis *a = pass(0);
	const struct blk_latency *lt = blk_analysis_sink(a, &blk_latency_ops);
	uint64_t n = 0, bins;

	(void)state;
	ev(a, 1 * MS, BLK_A_QUEUE, 0, 1 << 20, true);
	ev(a, 1 * MS, BLK_A_SPLIT, 0, 1 << 19, true);
	ev(a, 1 * MS, BLK_A_ISSUE, 0, 1 << 19, true);
	ev(a, 1 * MS, BLK_A_ISSUE, 1024, 1 << 19, true);
	ev(a, 3 * MS, BLK_A_COMPLETE, 0, 1 << 19, true);
	ev(a, 5 * MS, BLK_A_COMPLETE, 1024, 1 << 19, true);
	blk_analysis_finish(a);
	bins = blk_timeline_nbins(blk_analysis_sink(a, &blk_timeline_ops));
	for (uint64_t k = 0; k < bins; k++) {
		const struct hist_coarse *h = blk_latency_bin(lt, 0, k);

		n += h ? h->count : 0;
	}
	assert_int_equal(n, 2);
	blk_analysis_free(a);
}

static void test_points(void **state)
{
	struct blk_analysis *a = three();
	struct report_points p;
	double bytes = 0, idle = 0;
	uint64_t idle_ns = 0;

	(void)state;
	/* points of 256 bins: 16.384 ms */
	assert_int_equal(report_points_make(a, 0, 64000ull * 256, 0, &p), 0);
	assert_int_equal(p.n, 7); /* 104 ms / 16.384 ms */
	for (size_t j = 0; j < p.n; j++) {
		double secs =
		    j + 1 < p.n ? 64000.0 * 256 / 1e9 : (104.0 * MS - 64000.0 * 256 * j) / 1e9;

		bytes += p.mbps[j] * IOT_MIB * secs; /* MiB/s */
		idle += p.idle_frac[j] * secs * 1e9;
		idle_ns += p.idle_ns[j];
		assert_true(p.mbps_lo[j] <= p.mbps[j] + 1e-9 && p.mbps[j] <= p.mbps_hi[j] + 1e-9);
	}
	NEAR(bytes, 16384, 1e-3);
	NEAR(idle, 99.0 * MS, 1);
	assert_int_equal(idle_ns, 99 * MS);
	/* first point: the 1 ms read; D2C p50 within a latency bucket of 1 ms */
	NEAR(p.p50[0], 1.0 * MS, 0.1 * MS);
	/* the idle middle has no completions: no latency, a break in the line */
	assert_true(isnan(p.p50[3]));
	assert_true(p.idle_frac[3] > 0.99);
	/* last point: 102.5 ms (2 ms write) and 104.5 ms (1 ms read, the trace's last event) */
	NEAR(p.p99[6], 2.0 * MS, 0.15 * MS);
	NEAR(p.iops[6] * (104.0 * MS - 64000.0 * 256 * 6) / 1e9, 2, 1e-9);
	/* the depth band: one request outstanding at most */
	assert_true(p.qd_hi[0] == 1);
	report_points_release(&p);
	blk_analysis_free(a);
}

static void test_grid_rows(void **state)
{
	struct blk_analysis *a = pass(1 * MS);
	const struct rpt_grid *g = blk_analysis_sink(a, &rpt_grid_ops);
	const struct rpt_grid_dev *d;
	uint64_t cnt = 0;

	(void)state;
	/* sectors far apart, both ways: the rows widen by aligned doubling, counts kept */
	ev(a, 1 * MS, BLK_A_ISSUE, 5000, 512, false);
	ev(a, 2 * MS, BLK_A_ISSUE, 100, 512, true);
	ev(a, 3 * MS, BLK_A_ISSUE, 1ull << 40, 512, false);
	ev(a, 4 * MS, BLK_A_ISSUE, 5001, 512, false);
	ev(a, 5 * MS, BLK_A_ISSUE, 5002, 0, false); /* an empty flush: not in the grid */
	blk_analysis_finish(a);
	d = rpt_grid_dev(g, 0);
	for (uint64_t b = 0; b < d->ncell; b++)
		for (unsigned i = 0; i < RPT_ROWS; i++)
			cnt += d->cell[b][i][0] + d->cell[b][i][1];
	assert_int_equal(cnt, 4);
	assert_true(d->row_lo <= 100);
	assert_true(d->row_lo + ((uint64_t)RPT_ROWS << d->shift) > (1ull << 40));
	assert_int_equal(d->min_sector, 100);
	assert_int_equal(d->max_sector, 1ull << 40);
	/* the write landed in row 0 of bin 1 (1 ms bins from --interval, t0 = 1 ms) */
	assert_int_equal(g->clock.width, 1 * MS);
	assert_int_equal(d->cell[1][0][1], 1);
	blk_analysis_free(a);

	/* sectors 0 and near 2^64: one block of rows covers the whole range, every row in it */
	a = pass(0);
	g = blk_analysis_sink(a, &rpt_grid_ops);
	ev(a, 1 * MS, BLK_A_ISSUE, 0, 4096, false);
	ev(a, 2 * MS, BLK_A_ISSUE, 0xfffffffffffff000ull, 4096, true);
	ev(a, 3 * MS, BLK_A_ISSUE, UINT64_MAX - 7, 4096, true);
	blk_analysis_finish(a);
	d = rpt_grid_dev(g, 0);
	assert_int_equal(d->row_lo, 0);
	assert_int_equal(d->shift, 64 - RPT_ROWS_SHIFT);
	assert_int_equal(rpt_grid_row(d, UINT64_MAX), RPT_ROWS - 1);
	cnt = 0;
	for (uint64_t b = 0; b < d->ncell; b++)
		cnt += d->cell[b][0][0] + d->cell[b][RPT_ROWS - 1][1];
	assert_int_equal(cnt, 3);
	blk_analysis_free(a);
}

/* A long trace with one rare gap: after many doublings the gap is still listed exactly by the
 * idle sink, its idle time is in the bins, and the plotted points still shade it. */
static void test_rare_gap(void **state)
{
	struct blk_analysis *a = pass(0);
	const struct blk_timeline *tl = blk_analysis_sink(a, &blk_timeline_ops);
	const struct blk_idle_dev *g;
	struct report_points p;
	uint64_t t = 0, idle = 0, gap_at = 0, w;
	double shaded = 0;

	(void)state;
	/* 300 s of 1 ms requests back to back (no gaps), with one 50 ms pause at 200 s */
	for (unsigned i = 0; t < 300000 * MS; i++) {
		if (!gap_at && t >= 200000 * MS) {
			gap_at = t;
			t += 50 * MS;
		}
		io(a, t, t + 1 * MS, i * 8ull, 4096, i % 2);
		t += 1 * MS;
	}
	blk_analysis_finish(a);
	g = blk_idle_dev(blk_analysis_sink(a, &blk_idle_ops), 0);
	assert_int_equal(g->gaps, 1);
	assert_int_equal(g->top[0].start, gap_at);
	assert_int_equal(g->top[0].end - g->top[0].start, 50 * MS);
	/* 300 s in 2048 bins: 1 us doubled 18 times = 262 ms bins, the gap inside one or two */
	w = blk_timeline_interval(tl);
	assert_int_equal(w, 1000ull << 18);
	for (uint64_t k = 0; k < blk_timeline_nbins(tl); k++)
		idle += blk_timeline_bin(tl, 0, k).idle_ns;
	assert_int_equal(idle, 50 * MS);
	assert_int_equal(report_points_make(a, 0, w * 4, 0, &p), 0);
	for (size_t j = 0; j < p.n; j++)
		shaded += p.idle_frac[j] * (double)(w * 4);
	NEAR(shaded, 50.0 * MS, 1);
	report_points_release(&p);
	blk_analysis_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_clocks_agree), cmocka_unit_test(test_points),
	    cmocka_unit_test(test_split_d2c),    cmocka_unit_test(test_grid_rows),
	    cmocka_unit_test(test_rare_gap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
