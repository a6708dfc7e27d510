/* SPDX-License-Identifier: MIT */
/* Unit tests: frames as drawn (before encoding): IO points where the axis puts them, idle gaps. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include <fontconfig/fontconfig.h>

#include "movie/movie_int.h"

#define MS 1000000ull
#define DEV BLK_MKDEV(8, 16)

static void io(struct movie_track *t, uint64_t at, uint64_t sector, int write)
{
	struct blk_event e;

	memset(&e, 0, sizeof(e));
	e.time = at;
	e.sector = sector;
	e.bytes = 4096;
	e.flags = write ? BLK_F_WRITE : BLK_F_READ;
	e.dev = DEV;
	e.action = BLK_A_ISSUE;
	movie_track_feed(t, &e);
	e.action = BLK_A_COMPLETE;
	e.time += MS / 10;
	movie_track_feed(t, &e);
}

struct count {
	unsigned write[4], read[4], idle, all;
};

/* Pixels of the plot of run r by kind, in quarters of the offset axis (top first). */
static struct count count(struct movie *m, unsigned r)
{
	const struct movie_box *b = &m->layout.panel[r].dev[0].plot;
	const uint8_t *data = cairo_image_surface_get_data(m->surface);
	int stride = cairo_image_surface_get_stride(m->surface);
	struct count c;

	memset(&c, 0, sizeof(c));
	cairo_surface_flush(m->surface);
	for (int y = b->y + 2; y < b->y + b->h - 16; y++) {
		for (int x = b->x + 2; x < b->x + b->w - 2; x++) {
			uint32_t px = ((const uint32_t *)(data + (size_t)y * (size_t)stride))[x];
			unsigned red = px >> 16 & 255, g = px >> 8 & 255, bl = px & 255;
			unsigned q = (unsigned)((y - b->y) * 4 / b->h);

			c.all++;
			if (red > 150 && g < 150 && bl < 150)
				c.write[q]++;
			else if (bl > 150 && red < 150)
				c.read[q]++;
			else if (red >= 45 && red <= 100 && g >= 45 && g <= 100 && bl >= 50 &&
			         bl <= 105 && bl - red <= 16)
				c.idle++; /* the palette's grey over the dark plot */
		}
	}
	return c;
}

/* A movie of one run LABEL of SPAN_NS: ISSUES IOs to sectors 0 .. 1000 of DEV, 640x360 at 10
 * frames a second of the trace's seconds, a window of WINDOW_NS; its track starts at T0 (what
 * movie_render() finds), *CR draws its frames. */
static struct movie *one_run(const char *label, uint64_t span_ns, uint64_t issues,
                             uint64_t window_ns, uint64_t t0, cairo_t **cr)
{
	struct movie_probe_dev pd = {DEV, 0, 1000, issues};
	struct movie_probe p = {0, span_ns, false, 1, &pd};
	struct movie_run_info info = {label, NULL, 0};
	struct movie_opts o;
	struct movie *m;
	struct iot_err e;

	movie_opts_init(&o);
	o.width = 640;
	o.height = 360;
	o.fps = 10;
	o.speed = 1;
	o.length_ns = 0;
	o.window_ns = window_ns;
	assert_int_equal(movie_new(&m, &o, &p, &info, 1, &e), 0);
	m->track[0].start = m->track[0].last = t0;
	*cr = cairo_create(m->surface);
	return m;
}

/* Frames *K .. FRAME done, FRAME drawn: the pixels of run 0 */
static struct count draw(struct movie *m, cairo_t *cr, uint64_t *k, uint64_t frame)
{
	for (; *k <= frame; (*k)++)
		movie_track_frame_done(&m->track[0], *k);
	movie_draw_frame(m, cr, frame);
	return count(m, 0);
}

/*
 * One run: writes in the top quarter of sectors 0 .. 1000 for 0.8 s, nothing until 3 s, reads
 * in the bottom quarter to 4 s; frames of 100 ms, a window of 500 ms.
 */
static void test_points_and_idle(void **s)
{
	const uint64_t t0 = 1000 * MS;
	cairo_t *cr;
	struct movie *m = one_run("one", 4000 * MS, 800, 500 * MS, t0, &cr);
	struct movie_track *t = &m->track[0];
	struct count c;
	uint64_t k = 0;

	(void)s;
	assert_int_equal(movie_frames(m), 41);
	assert_int_equal(movie_step_ns(m), 100 * MS);
	for (uint64_t at = 0; at < 800 * MS; at += 2 * MS)
		io(t, t0 + at, 760 + at / MS % 230, 1);
	c = draw(m, cr, &k, 7);
	assert_true(c.write[0] > 100);
	assert_int_equal(c.write[2] + c.write[3], 0);
	assert_int_equal(c.read[0] + c.read[1] + c.read[2] + c.read[3], 0);
	assert_true(c.idle < c.all / 10);
	/* frame 24 ends at 2.5 s: the window 2.0 .. 2.5 s lies inside the gap from 0.8 s */
	c = draw(m, cr, &k, 24);
	assert_int_equal(c.write[0] + c.write[1] + c.write[2] + c.write[3], 0);
	assert_true(c.idle > c.all * 8 / 10);
	/* reads in the bottom quarter */
	for (uint64_t at = 3000 * MS; at < 3000 * MS + 500 * MS; at += 2 * MS)
		io(t, t0 + at, at / MS % 240, 0);
	c = draw(m, cr, &k, 34);
	assert_true(c.read[3] > 100);
	assert_int_equal(c.read[0] + c.read[1], 0);
	assert_int_equal(c.write[0] + c.write[1] + c.write[2] + c.write[3], 0);
	/* the scales grew from the timeline's figures, rounded up: 50 IOs of 4 KiB in a 100 ms
	 * frame are 1.95 MiB/s and 500 IOPS, the first frame's sequential writes 1 seek
	 * (from the first) in 0.1 s */
	assert_true(m->ymax[MOVIE_G_MBPS] == 2);
	assert_true(m->ymax[MOVIE_G_IOPS] == 500);
	assert_true(m->ymax[MOVIE_G_SEEKS] == 500);
	assert_int_equal(cairo_status(cr), CAIRO_STATUS_SUCCESS);
	cairo_destroy(cr);
	movie_free(m);
}

/* A gap that ended inside the window is shaded, at the end of the u64 clock too. */
static void test_gap_near_2_64(void **s)
{
	const uint64_t t0 = UINT64_MAX - 2000 * MS;
	cairo_t *cr;
	struct movie *m = one_run("late", 2000 * MS - 1, 500, 1000 * MS, t0, &cr);
	struct movie_track *t = &m->track[0];
	struct count c;
	uint64_t k = 0;

	(void)s;
	/* IO to 0.2 s, a gap to 1.5 s, IO to 1.8 s: frame 17 (to 1.8 s) shows the gap's end */
	for (uint64_t at = 0; at < 200 * MS; at += 2 * MS)
		io(t, t0 + at, 500, 1);
	for (uint64_t at = 1500 * MS; at < 1800 * MS; at += 2 * MS)
		io(t, t0 + at, 500, 1);
	assert_int_equal(t->dev[0].gaps.n, 1);
	c = draw(m, cr, &k, 17);
	assert_true(c.idle > c.all / 3);
	cairo_destroy(cr);
	movie_free(m);
}

/* The clock: --length fills the longest run, frames x step pass it; --speed sets the step. */
static void test_clock(void **s)
{
	struct movie_probe_dev pd = {DEV, 0, 1000, 1};
	struct movie_probe p[2] = {{0, 10000 * MS, false, 1, &pd}, {0, 4000 * MS, false, 1, &pd}};
	struct movie_run_info info[2] = {{"a", NULL, 0}, {"b", NULL, 0}};
	struct movie_opts o;
	struct movie *m;
	struct iot_err e;

	(void)s;
	movie_opts_init(&o);
	assert_int_equal(movie_new(&m, &o, p, info, 2, &e), 0);
	assert_int_equal(movie_frames(m), 600);
	assert_true(movie_frames(m) * movie_step_ns(m) > 10000 * MS);
	assert_true((movie_frames(m) - 1) * movie_step_ns(m) <= 10000 * MS);
	/* two seconds of the movie */
	assert_true(movie_window_ns(m) <= 60 * movie_step_ns(m));
	assert_true(movie_window_ns(m) > 59 * movie_step_ns(m));
	movie_free(m);
	o.speed = 2;
	o.length_ns = 0;
	o.fps = 25;
	assert_int_equal(movie_new(&m, &o, p, info, 2, &e), 0);
	assert_int_equal(movie_step_ns(m), 80 * MS);
	assert_int_equal(movie_frames(m), 126); /* 10 s / 80 ms + 1 */
	movie_free(m);
	/* a run set's host 7.96 s after the other: the movie runs to its end (11.96 s), its
	 * frames start at frame 100 (7.96 s / 80 ms, rounded), ending a step in */
	info[1].lag_ns = 7960 * MS;
	assert_int_equal(movie_new(&m, &o, p, info, 2, &e), 0);
	assert_int_equal(movie_frames(m), 150); /* 11.96 s / 80 ms + 1 */
	assert_int_equal(m->track[1].lag, 100);
	assert_int_equal(movie_frame_end(m, &m->track[1], 99), m->track[1].start);
	assert_int_equal(movie_frame_end(m, &m->track[1], 100), m->track[1].start + 80 * MS);
	assert_int_equal(movie_frame_end(m, &m->track[0], 100), m->track[0].start + 101 * 80 * MS);
	movie_free(m);
	info[1].lag_ns = 0;
	o.speed = 1e-6;
	assert_int_equal(movie_new(&m, &o, p, info, 2, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "frames"));
	o.speed = 1;
	o.width = 321;
	assert_int_equal(movie_new(&m, &o, p, info, 2, &e), -EINVAL);
}

/* The caption of a gap that began just before now stays whole inside the plot (#27 item 9):
 * centred on a band 20 ms wide at the right edge, it was cut there. */
static void test_live_caption(void **s)
{
	const uint64_t t0 = 1000 * MS;
	cairo_t *cr;
	struct movie *m = one_run("one", 4000 * MS, 800, 500 * MS, t0, &cr);
	const struct movie_box *b;
	const uint8_t *data;
	int stride;
	unsigned bright = 0;
	uint64_t k = 0;

	(void)s;
	for (uint64_t at = 0; at < 880 * MS; at += 2 * MS)
		io(&m->track[0], t0 + at, 760 + at / MS % 230, 1);
	draw(m, cr, &k, 8); /* ends at 0.9 s: a gap of 20 ms in progress */
	b = &m->layout.panel[0].dev[0].plot;
	data = cairo_image_surface_get_data(m->surface);
	stride = cairo_image_surface_get_stride(m->surface);
	cairo_surface_flush(m->surface);
	/* the caption's rows, the plot's last three columns: no text there */
	for (int y = b->y + b->h / 2 - 2 * (int)m->layout.font; y < b->y + b->h / 2 + 4; y++) {
		for (int x = b->x + b->w - 3; x < b->x + b->w; x++) {
			uint32_t px = ((const uint32_t *)(data + (size_t)y * (size_t)stride))[x];

			bright +=
			    (px >> 16 & 255) > 150 && (px >> 8 & 255) > 150 && (px & 255) > 150;
		}
	}
	assert_int_equal(bright, 0);
	cairo_destroy(cr);
	movie_free(m);
}

/* Side-by-side panels share one offset axis (#27 item 9): each run's device is drawn against
 * the union of the runs' sector ranges, so positions compare across panels. */
static void test_shared_axis(void **s)
{
	struct movie_probe_dev a = {DEV, 3, 1000, 10}, b = {DEV, 200, 500000, 10};
	struct movie_probe p[2] = {{0, 1000 * MS, false, 1, &a}, {0, 1000 * MS, false, 1, &b}};
	struct movie_run_info info[2] = {{"a", NULL, 0}, {"b", NULL, 0}};
	struct movie_opts o;
	struct movie *m;
	struct iot_err e;

	(void)s;
	movie_opts_init(&o);
	o.length_ns = 1000 * MS;
	assert_int_equal(movie_new(&m, &o, p, info, 2, &e), 0);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(m->track[i].dev[0].pd->lo, 3);
		assert_int_equal(m->track[i].dev[0].pd->hi, 500000);
	}
	/* the probes the caller gave are its own, unchanged */
	assert_int_equal(a.hi, 1000);
	assert_int_equal(b.lo, 200);
	movie_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_shared_axis),     cmocka_unit_test(test_live_caption),
	    cmocka_unit_test(test_points_and_idle), cmocka_unit_test(test_clock),
	    cmocka_unit_test(test_gap_near_2_64),
	};

	int ret = cmocka_run_group_tests(tests, NULL, NULL);

	cairo_debug_reset_static_data();
	FcFini();
	return ret;
}
