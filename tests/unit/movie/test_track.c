/* SPDX-License-Identifier: MIT */
/* Unit tests: a run's track (the window's grid, gaps from the idle sink, per-frame series). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "movie/movie_int.h"

#define MS 1000000ull
#define DEV BLK_MKDEV(8, 16)

static struct blk_event ev(unsigned act, uint64_t t, uint64_t sector, int write)
{
	struct blk_event e;

	memset(&e, 0, sizeof(e));
	e.action = (uint16_t)act;
	e.time = t;
	e.sector = sector;
	e.bytes = 4096;
	e.flags = write ? BLK_F_WRITE : BLK_F_READ;
	e.dev = DEV;
	return e;
}

/* Q, D and C 1 ms later of one 4 KiB IO. */
static void io(struct movie_track *t, uint64_t at, uint64_t sector, int write)
{
	struct blk_event e[3] = {ev(BLK_A_QUEUE, at, sector, write),
	                         ev(BLK_A_ISSUE, at, sector, write),
	                         ev(BLK_A_COMPLETE, at + MS, sector, write)};

	for (int i = 0; i < 3; i++)
		movie_track_feed(t, &e[i]);
}

struct fixture {
	struct movie_probe_dev pd[2];
	struct movie_probe p;
	struct movie_layout l;
	struct movie_track t;
};

/* One run of two devices (only 8,16 gets IO), 1 s of trace a second, 100 ms frames. */
static void setup(struct fixture *f, uint64_t start)
{
	unsigned nd = 2;
	struct movie_run_info info = {"run", NULL, 0};
	struct iot_err e;

	memset(f, 0, sizeof(*f));
	f->pd[0] = (struct movie_probe_dev){BLK_MKDEV(8, 0), 0, 1, 0};
	f->pd[1] = (struct movie_probe_dev){DEV, 1000, 2000, 10};
	f->p = (struct movie_probe){0, 1000 * MS, false, 2, f->pd};
	assert_int_equal(movie_layout_make(&f->l, 640, 360, 1, &nd, &e), 0);
	assert_int_equal(
	    movie_track_init(&f->t, &f->p, &info, &f->l.panel[0], 100 * MS, 11, 500 * MS, 10 * MS),
	    0);
	f->t.start = f->t.last = start; /* what movie_render() finds */
}

static void test_rows(void **s)
{
	struct movie_grid g = {.nrows = 100};
	struct movie_probe_dev pd = {0, 1000, 2000, 1}, wide = {0, 0, UINT64_MAX, 1};

	(void)s;
	assert_int_equal(movie_grid_row(&g, &pd, 0), 0);
	assert_int_equal(movie_grid_row(&g, &pd, 1000), 0);
	assert_int_equal(movie_grid_row(&g, &pd, 1010), 1);
	assert_int_equal(movie_grid_row(&g, &pd, 1500), 50);
	assert_int_equal(movie_grid_row(&g, &pd, 1999), 99);
	assert_int_equal(movie_grid_row(&g, &pd, 5000), 99);
	assert_int_equal(movie_grid_row(&g, &wide, UINT64_MAX - 1), 99);
	assert_int_equal(movie_grid_row(&g, &wide, UINT64_MAX / 2), 50);
}

static void test_grid(void **s)
{
	struct fixture f;
	struct movie_devtrack *d;
	const struct movie_grid *g;
	uint64_t start = 5 * MS, c;
	unsigned slot, row;

	(void)s;
	setup(&f, start);
	assert_int_equal(f.t.nshow, 2);
	d = &f.t.dev[1];
	g = &d->grid;
	assert_true(g->ncols > 0 && g->nrows > 0);
	/* the window of 500 ms in whole columns */
	assert_true(g->col_ns * g->ncols <= 500 * MS && g->col_ns * (g->ncols + 1) > 500 * MS);
	io(&f.t, start + 250 * MS, 1900, 1);
	io(&f.t, start + 250 * MS, 1100, 0);
	c = 250 * MS / g->col_ns;
	slot = (unsigned)(c % g->nslots);
	assert_true(g->abs[slot] == c);
	row = movie_grid_row(g, d->pd, 1900);
	assert_int_equal(g->cell[(size_t)slot * g->nrows + row], 2);
	assert_int_equal(g->cell[(size_t)slot * g->nrows + movie_grid_row(g, d->pd, 1100)], 1);
	assert_true(g->lo[slot] <= movie_grid_row(g, d->pd, 1100) && g->hi[slot] > row);
	/* a column a whole ring later takes the slot and clears it */
	io(&f.t, start + 250 * MS + g->nslots * g->col_ns, 1500, 1);
	assert_true(g->abs[slot] == c + g->nslots);
	assert_int_equal(g->cell[(size_t)slot * g->nrows + row], 0);
	assert_int_equal(g->cell[(size_t)slot * g->nrows + movie_grid_row(g, d->pd, 1500)], 2);
	/* the other device has no IO in its grid */
	for (unsigned i = 0; i < f.t.dev[0].grid.nslots; i++)
		assert_true(f.t.dev[0].grid.abs[i] == UINT64_MAX);
	movie_track_release(&f.t);
}

/* Gaps come from the idle sink as it counts them; the series from its timeline's bins. */
static void test_gaps_and_series(void **s)
{
	struct fixture f;
	struct movie_devtrack *d;
	struct blk_event x;
	uint64_t start = 7 * MS;

	(void)s;
	setup(&f, start);
	d = &f.t.dev[1];
	io(&f.t, start, 1000, 1);           /* frame 0 */
	io(&f.t, start + 50 * MS, 1008, 1); /* frame 0, sequential: no seek */
	movie_track_frame_done(&f.t, 0);
	io(&f.t, start + 130 * MS, 1500, 0); /* frame 1: a gap of 79 ms before it, a seek */
	assert_int_equal(d->gaps.n, 2);
	assert_true(d->gaps.g[0].start == start + 1 * MS);
	assert_true(d->gaps.g[0].end == start + 50 * MS);
	assert_true(d->gaps.g[1].start == start + 51 * MS);
	assert_true(d->gaps.g[1].end == start + 130 * MS);
	movie_track_frame_done(&f.t, 1);
	for (uint64_t k = 2; k < 10; k++)
		movie_track_frame_done(&f.t, k); /* idle to the end of frame 9 */
	/* series: the graphs' columns are the frames here (11 frames, wider graphs) */
	assert_int_equal(d->series.ncols, 11);
	assert_true(d->series.v[1][0] == 8192 && d->series.v[0][0] == 0);
	assert_true(d->series.v[2][0] == 2 && d->series.v[3][0] == 0);
	assert_true(d->series.v[0][1] == 4096 && d->series.v[2][1] == 1);
	assert_true(d->series.v[3][1] == 1);
	assert_int_equal(d->series.bins[5], 1);
	/* the window (5 frames) holds frames 5 .. 9: nothing */
	assert_int_equal(d->win_bins, 5);
	assert_true(d->win.ios == 0 && d->win.read_bytes == 0 && d->win.write_bytes == 0);
	/* the trace's last event (of a device the run does not show) at 1000 ms, then its end
	 * closes the last gap: 131 ms to 1000 ms */
	x = ev(BLK_A_QUEUE, start + 1000 * MS, 0, 0);
	x.dev = BLK_MKDEV(9, 0);
	movie_track_feed(&f.t, &x);
	movie_track_end(&f.t);
	assert_int_equal(d->gaps.n, 3);
	assert_true(d->gaps.g[2].start == start + 131 * MS);
	assert_true(d->gaps.g[2].end == start + 1000 * MS);
	assert_int_equal(d->gaps.g[2].ended_by, BLK_GAP_END);
	movie_track_release(&f.t);
}

static void test_dev_index(void **s)
{
	struct fixture f;

	(void)s;
	setup(&f, 0);
	assert_int_equal(movie_track_dev_index(&f.t, BLK_MKDEV(8, 0)), 0);
	assert_int_equal(movie_track_dev_index(&f.t, DEV), 1);
	assert_int_equal(movie_track_dev_index(&f.t, DEV), 1);
	assert_int_equal(movie_track_dev_index(&f.t, BLK_MKDEV(8, 1)), -1);
	assert_int_equal(movie_track_dev_index(&f.t, BLK_MKDEV(9, 0)), -1);
	movie_track_release(&f.t);
}

/* Cells: 2 pixels for a dense trace whatever the plot's size, larger for a sparse one. */
static void test_dot_size(void **s)
{
	struct movie_probe_dev pd = {DEV, 0, 1000000, 10000000};
	struct movie_probe p = {0, 1000 * MS, false, 1, &pd};
	struct movie_run_info info = {"run", NULL, 0};
	unsigned nd = 1;
	struct movie_layout l;
	struct movie_track t;
	struct iot_err e;

	(void)s;
	assert_int_equal(movie_layout_make(&l, 320, 180, 1, &nd, &e), 0);
	assert_true(l.panel[0].dev[0].plot.h < 95);
	assert_int_equal(movie_track_init(&t, &p, &info, &l.panel[0], 10 * MS, 100, 200 * MS, MS),
	                 0);
	assert_int_equal(t.dev[0].grid.dot, 2);
	movie_track_release(&t);
	pd.issues = 10; /* a handful of IOs in the window: three times larger */
	assert_int_equal(movie_track_init(&t, &p, &info, &l.panel[0], 10 * MS, 100, 200 * MS, MS),
	                 0);
	assert_int_equal(t.dev[0].grid.dot, 6);
	movie_track_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rows),
	    cmocka_unit_test(test_grid),
	    cmocka_unit_test(test_gaps_and_series),
	    cmocka_unit_test(test_dev_index),
	    cmocka_unit_test(test_dot_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
