/* SPDX-License-Identifier: MIT */
/* One run while the movie plays: the idle and timeline sinks, the trailing window, the graphs. */
#include "movie/movie_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * The figures are the sinks': idle gaps come from the idle sink as it counts them (and the gap
 * in progress from blk_idle_current()), MB/s, IOPS and seeks/s from the timeline sink's bins,
 * one bin per frame (its interval is the movie's step, its bins start at the run's first
 * event as the frames do). This file only keeps what the drawing needs of them: the gaps still
 * in the window, the bins summed into the graphs' pixel columns and over the window.
 */

#define GAPS_MAX 4096u

unsigned movie_grid_row(const struct movie_grid *g, const struct movie_probe_dev *pd,
                        uint64_t sector)
{
	double f;
	unsigned r;

	if (sector <= pd->lo)
		return 0;
	f = (double)(sector - pd->lo) / (double)(pd->hi - pd->lo);
	r = f >= 1 ? g->nrows - 1 : (unsigned)(f * g->nrows);
	return r < g->nrows ? r : g->nrows - 1;
}

/*
 * Cells of dot x dot pixels: 2 at 720p, so that a dense trace's IO stays apart; larger when
 * the window will hold few IOs (the probe's count over the span), so that they are seen.
 */
static unsigned dot_size(const struct movie_box *plot, const struct movie_probe *p,
                         const struct movie_probe_dev *pd, uint64_t window_ns)
{
	unsigned dot = plot->h >= 380 ? (unsigned)lround(plot->h / 190.0) : 2;
	double span = (double)p->span + 1;
	double per_window = (double)pd->issues * fmin(1, (double)window_ns / span);
	double cells = (double)plot->w * plot->h / ((double)dot * dot);

	if (per_window < cells / 200)
		dot *= 3;
	else if (per_window < cells / 40)
		dot *= 2;
	return dot > 12 ? 12 : dot;
}

static int grid_init(struct movie_grid *g, const struct movie_box *plot, unsigned dot,
                     uint64_t window_ns)
{
	g->dot = dot;
	g->ncols = (unsigned)plot->w / g->dot;
	g->nrows = (unsigned)plot->h / g->dot;
	g->nslots = g->ncols + 1;
	g->col_ns = window_ns / g->ncols ? window_ns / g->ncols : 1;
	g->abs = malloc(g->nslots * sizeof(*g->abs));
	g->lo = calloc(g->nslots, sizeof(*g->lo));
	g->hi = calloc(g->nslots, sizeof(*g->hi));
	g->cell = calloc((size_t)g->nslots * g->nrows, 1);
	if (!g->abs || !g->lo || !g->hi || !g->cell)
		return -ENOMEM;
	for (unsigned i = 0; i < g->nslots; i++)
		g->abs[i] = UINT64_MAX;
	return 0;
}

static void grid_release(struct movie_grid *g)
{
	free(g->abs);
	free(g->lo);
	free(g->hi);
	free(g->cell);
}

static void grid_add(struct movie_grid *g, const struct movie_probe_dev *pd, uint64_t start,
                     const struct blk_event *ev)
{
	uint64_t c = (ev->time > start ? ev->time - start : 0) / g->col_ns;
	unsigned slot = (unsigned)(c % g->nslots), r0, r1;
	uint64_t last = ev->sector + (ev->bytes >> 9) - 1;
	uint8_t *col = g->cell + (size_t)slot * g->nrows;
	uint8_t bit = blk_is_write(ev) ? 2 : 1;

	if (g->abs[slot] != c) {
		if (g->hi[slot] > g->lo[slot])
			memset(col + g->lo[slot], 0, g->hi[slot] - g->lo[slot]);
		g->abs[slot] = c;
		g->lo[slot] = (uint16_t)g->nrows;
		g->hi[slot] = 0;
	}
	if (last < ev->sector)
		last = UINT64_MAX;
	r0 = movie_grid_row(g, pd, ev->sector);
	r1 = movie_grid_row(g, pd, last);
	for (unsigned r = r0; r <= r1; r++)
		col[r] |= bit;
	if (r0 < g->lo[slot])
		g->lo[slot] = (uint16_t)r0;
	if (r1 + 1 > g->hi[slot])
		g->hi[slot] = (uint16_t)(r1 + 1);
}

static void on_gap(void *ctx, unsigned dev, const struct blk_gap *gap)
{
	struct movie_track *t = ctx;
	struct movie_gaps *gs;

	if (dev >= t->nshow)
		return;
	gs = &t->dev[dev].gaps;
	if (gs->n == gs->cap) { /* a threshold far below a pixel's time: the oldest go */
		gs->head = (gs->head + 1) % gs->cap;
		gs->n--;
	}
	gs->g[(gs->head + gs->n++) % gs->cap] = *gap;
}

static int series_init(struct movie_series *s, unsigned ncols)
{
	s->ncols = ncols;
	for (int i = 0; i < 4; i++)
		if (!(s->v[i] = calloc(ncols, sizeof(*s->v[i]))))
			return -ENOMEM;
	s->bins = calloc(ncols, sizeof(*s->bins));
	return s->bins ? 0 : -ENOMEM;
}

static void series_release(struct movie_series *s)
{
	for (int i = 0; i < 4; i++)
		free(s->v[i]);
	free(s->bins);
}

int movie_track_init(struct movie_track *t, const struct movie_probe *p,
                     const struct movie_run_info *info, const struct movie_panel_box *pb,
                     uint64_t step, uint64_t frames, uint64_t window_ns, uint64_t idle_threshold_ns)
{
	struct blk_opts o;

	memset(t, 0, sizeof(*t));
	t->p = p;
	t->label = info->label;
	t->step = step;
	t->frames = frames;
	t->win_frames = window_ns / step ? window_ns / step : 1;
	blk_opts_init(&o);
	o.idle_threshold_ns = idle_threshold_ns;
	o.interval_ns = step;
	/* one bin per frame, never widened: the frames are the bins (the shown devices alone
	 * have bins, all of them the frames') */
	o.max_bins = frames + 1 > 2 ? (unsigned)frames + 1 : 2;
	o.max_bins_total = (uint64_t)o.max_bins * MOVIE_MAX_DEVS;
	t->idle = blk_idle_new(&o);
	t->tl = blk_timeline_new(&o);
	t->nshow = p->ndev < MOVIE_MAX_DEVS ? p->ndev : MOVIE_MAX_DEVS;
	t->dev = calloc(t->nshow ? t->nshow : 1, sizeof(*t->dev));
	if (!t->idle || !t->tl || !t->dev)
		return -ENOMEM;
	blk_idle_on_gap(t->idle, on_gap, t);
	for (unsigned i = 0; i < t->nshow; i++) {
		struct movie_devtrack *d = &t->dev[i];
		unsigned gcols = (unsigned)pb->dev[i].graph[0].w;

		d->pd = &p->dev[i];
		d->name = info->devname ? info->devname[i] : NULL;
		d->gaps.cap = GAPS_MAX;
		d->gaps.g = malloc(GAPS_MAX * sizeof(*d->gaps.g));
		if (!d->gaps.g ||
		    grid_init(&d->grid, &pb->dev[i].plot,
		              dot_size(&pb->dev[i].plot, p, d->pd, window_ns), window_ns) ||
		    series_init(&d->series, frames < gcols ? (unsigned)frames : gcols))
			return -ENOMEM;
		for (int k = 0; k < 2; k++) {
			d->mask[k] = cairo_image_surface_create(CAIRO_FORMAT_A8, (int)d->grid.ncols,
			                                        (int)d->grid.nrows);
			if (cairo_surface_status(d->mask[k]))
				return -ENOMEM;
		}
	}
	return 0;
}

void movie_track_release(struct movie_track *t)
{
	for (unsigned i = 0; t->dev && i < t->nshow; i++) {
		grid_release(&t->dev[i].grid);
		for (int k = 0; k < 2; k++)
			if (t->dev[i].mask[k])
				cairo_surface_destroy(t->dev[i].mask[k]);
		series_release(&t->dev[i].series);
		free(t->dev[i].gaps.g);
	}
	free(t->dev);
	blk_idle_free(t->idle);
	blk_timeline_free(t->tl);
	memset(t, 0, sizeof(*t));
}

int movie_track_dev_index(struct movie_track *t, uint32_t dev)
{
	unsigned lo = 0, hi = t->p->ndev;

	if (t->cache_idx < t->p->ndev && t->p->dev[t->cache_idx].dev == dev)
		return (int)t->cache_idx;
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;

		if (t->p->dev[mid].dev < dev)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == t->p->ndev || t->p->dev[lo].dev != dev)
		return -1;
	t->cache_idx = lo;
	return (int)lo;
}

void movie_track_feed(struct movie_track *t, const struct blk_event *ev)
{
	int idx;

	if (blk_is_notify(ev))
		return;
	if (ev->time > t->last)
		t->last = ev->time;
	if ((idx = movie_track_dev_index(t, ev->dev)) < 0) {
		t->undrawn++;
		return;
	}
	blk_idle_feed(t->idle, (unsigned)idx, ev);
	if ((unsigned)idx >= t->nshow)
		return;
	blk_timeline_feed(t->tl, (unsigned)idx, ev);
	if (ev->action == BLK_A_ISSUE && ev->bytes >> 9) {
		const struct movie_probe_dev *pd = t->dev[idx].pd;

		t->outside += ev->sector < pd->lo || ev->sector >= pd->hi;
		grid_add(&t->dev[idx].grid, pd, t->start, ev);
	}
}

void movie_track_end(struct movie_track *t)
{
	if (t->ended)
		return;
	t->ended = true;
	blk_idle_finish(t->idle, t->start, t->last);
	blk_timeline_finish(t->tl, t->start, t->last);
}

static void bin_add(struct blk_bin *a, const struct blk_bin *b)
{
	a->read_bytes += b->read_bytes;
	a->write_bytes += b->write_bytes;
	a->ios += b->ios;
	a->seeks += b->seeks;
}

static void bin_sub(struct blk_bin *a, const struct blk_bin *b)
{
	a->read_bytes -= b->read_bytes;
	a->write_bytes -= b->write_bytes;
	a->ios -= b->ios;
	a->seeks -= b->seeks;
}

void movie_track_frame_done(struct movie_track *t, uint64_t k)
{
	uint64_t j; /* the run's own frame: its timeline's bin */

	if (k >= t->frames || k < t->lag)
		return;
	j = k - t->lag;
	for (unsigned i = 0; i < t->nshow; i++) {
		struct movie_devtrack *d = &t->dev[i];
		struct movie_series *s = &d->series;
		struct blk_bin b = blk_timeline_bin(t->tl, i, j);
		unsigned col = (unsigned)(k * s->ncols / t->frames);

		s->v[0][col] += b.read_bytes;
		s->v[1][col] += b.write_bytes;
		s->v[2][col] += b.ios;
		s->v[3][col] += b.seeks;
		s->bins[col]++;
		bin_add(&d->win, &b);
		if (j >= t->win_frames) {
			struct blk_bin old = blk_timeline_bin(t->tl, i, j - t->win_frames);

			bin_sub(&d->win, &old);
		} else {
			d->win_bins++;
		}
	}
	t->frame = k + 1;
}
