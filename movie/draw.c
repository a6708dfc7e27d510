/* SPDX-License-Identifier: MIT */
/* Drawing one frame with cairo: clock, panels, offset plots with fading IO and idle gaps, graphs.
 */
#include "movie/movie_int.h"

#include "common/palette.h"
#include "common/units.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A dark background: the IO glows, idle stretches are a grey band. The data and the state
 * shading take the report's colours (common/palette.h), so that they read alike in both. */
#define C_BG 0x0f1115u
#define C_PLOT 0x181c24u
#define C_EDGE 0x2c323du
#define C_TEXT 0xd8dee9u
#define C_DIM 0x8a93a6u
#define C_READ pal_rgb(PAL_READ)
#define C_WRITE pal_rgb(PAL_WRITE)
#define C_IDLE pal_rgb(PAL_IDLE)
#define C_IOPS pal_rgb(PAL_IOPS)
#define C_SEEK pal_rgb(PAL_SEEKS)
#define IDLE_ALPHA 0.32
#define FADE 0.8 /* the oldest IO of the window keeps 1 - FADE of its colour */

static void rgb(cairo_t *cr, uint32_t c, double a)
{
	cairo_set_source_rgba(cr, (c >> 16 & 255) / 255.0, (c >> 8 & 255) / 255.0,
	                      (c & 255) / 255.0, a);
}

static void fill_box(cairo_t *cr, const struct movie_box *b, uint32_t c, double a)
{
	rgb(cr, c, a);
	cairo_rectangle(cr, b->x, b->y, b->w, b->h);
	cairo_fill(cr);
}

enum align { LEFT, CENTER, RIGHT };

/* Text with its baseline at y; returns its width. */
static double text(cairo_t *cr, double x, double y, double size, bool bold, uint32_t c,
                   enum align al, const char *fmt, ...) __attribute__((format(printf, 8, 9)));
static double text(cairo_t *cr, double x, double y, double size, bool bold, uint32_t c,
                   enum align al, const char *fmt, ...)
{
	cairo_text_extents_t ext;
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
	                       bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
	cairo_text_extents(cr, buf, &ext);
	if (al == CENTER)
		x -= ext.x_advance / 2;
	else if (al == RIGHT)
		x -= ext.x_advance;
	rgb(cr, c, 1);
	cairo_move_to(cr, round(x), round(y));
	cairo_show_text(cr, buf);
	return ext.x_advance;
}

/* The centre x of text centred at cx, moved so that the whole text lies in [lo, hi]. */
static double centre_in(cairo_t *cr, double size, bool bold, const char *s, double cx, double lo,
                        double hi)
{
	cairo_text_extents_t ext;

	cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
	                       bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
	cairo_text_extents(cr, s, &ext);
	if (cx + ext.x_advance / 2 > hi)
		cx = hi - ext.x_advance / 2;
	if (cx - ext.x_advance / 2 < lo)
		cx = lo + ext.x_advance / 2;
	return cx;
}

static const char *fmt_time(char *buf, size_t len, double ns)
{
	double s = ns / 1e9;

	if (s < 10)
		snprintf(buf, len, "%.3f s", s);
	else if (s < 100)
		snprintf(buf, len, "%.2f s", s);
	else if (s < 3600)
		snprintf(buf, len, "%.1f s", s);
	else
		snprintf(buf, len, "%.0f min", s / 60);
	return buf;
}

static const char *fmt_bytes(char *buf, size_t len, double b)
{
	return iot_fmt_size(b, buf, len); /* the one unit system, compact for an axis */
}

static const char *fmt_num(char *buf, size_t len, double v)
{
	if (v >= 1e6)
		snprintf(buf, len, "%.1fM", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, len, "%.0fk", v / 1e3);
	else if (v >= 100)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.1f", v);
	return buf;
}

/* 1, 2 or 5 times a power of ten, at least v. */
static double nice_ceil(double v)
{
	double p;

	if (!(v > 0))
		return 1;
	p = pow(10, floor(log10(v)));
	return v <= p ? p : v <= 2 * p ? 2 * p : v <= 5 * p ? 5 * p : 10 * p;
}

/* x of trace time ts in a plot whose right edge is now. */
static double plot_x(const struct movie_box *b, const struct movie_grid *g, uint64_t now,
                     uint64_t ts)
{
	double back = ts < now ? (double)(now - ts) / (double)g->col_ns * g->dot : 0;

	return b->x + b->w - back;
}

static void idle_band(cairo_t *cr, const struct movie_box *b, const struct movie_grid *g,
                      uint64_t now, uint64_t from, uint64_t to)
{
	double x0 = plot_x(b, g, now, from), x1 = plot_x(b, g, now, to);

	if (x0 < b->x)
		x0 = b->x;
	if (x1 <= x0)
		return;
	rgb(cr, C_IDLE, IDLE_ALPHA);
	cairo_rectangle(cr, x0, b->y, x1 - x0, b->h);
	cairo_fill(cr);
}

/*
 * The window's IO: the grid's cells become the bytes of two alpha masks (reads, writes), each
 * byte the cell's opacity by age (the newest opaque, the oldest 1 - FADE), and cairo paints
 * the colours through them, a cell a dot x dot square (nearest-neighbour scaling). Rectangles
 * per cell took cairo 0.3 us each, most of a frame with 80 000 IOs in the window.
 */
static void draw_points(cairo_t *cr, const struct movie_box *b, const struct movie_devtrack *d,
                        uint64_t start, uint64_t now)
{
	const struct movie_grid *g = &d->grid;
	uint64_t rel = now - 1 - start, cnow = rel / g->col_ns;
	double frac = (double)(rel % g->col_ns + 1) / (double)g->col_ns;
	double x0 = b->x + b->w + (1 - frac) * g->dot - (double)g->ncols * g->dot;
	double y0 = b->y + b->h - (double)g->nrows * g->dot;
	uint8_t *px[2];
	int stride = cairo_image_surface_get_stride(d->mask[0]);

	for (int k = 0; k < 2; k++) {
		cairo_surface_flush(d->mask[k]);
		px[k] = cairo_image_surface_get_data(d->mask[k]);
		memset(px[k], 0, (size_t)stride * g->nrows);
	}
	for (unsigned back = 0; back < g->ncols && back <= cnow; back++) {
		uint64_t a = cnow - back;
		unsigned slot = (unsigned)(a % g->nslots), x = g->ncols - 1 - back;
		const uint8_t *col = g->cell + (size_t)slot * g->nrows;
		uint8_t alpha = (uint8_t)lround(255 * (1 - FADE * back / g->ncols));

		if (g->abs[slot] != a)
			continue;
		for (unsigned r = g->lo[slot]; r < g->hi[slot]; r++) {
			size_t at = (size_t)(g->nrows - 1 - r) * (size_t)stride + x;

			if (col[r] & 1)
				px[0][at] = alpha;
			if (col[r] & 2)
				px[1][at] = alpha;
		}
	}
	cairo_save(cr);
	cairo_translate(cr, round(x0), round(y0));
	cairo_scale(cr, g->dot, g->dot);
	for (int k = 0; k < 2; k++) {
		cairo_pattern_t *p;

		cairo_surface_mark_dirty(d->mask[k]);
		p = cairo_pattern_create_for_surface(d->mask[k]);
		cairo_pattern_set_filter(p, CAIRO_FILTER_NEAREST);
		rgb(cr, k ? C_WRITE : C_READ, 1);
		cairo_mask(cr, p);
		cairo_pattern_destroy(p);
	}
	cairo_restore(cr);
}

static void draw_plot(struct movie *m, cairo_t *cr, const struct movie_track *t, unsigned i,
                      const struct movie_dev_box *db, uint64_t now, bool *idle_now)
{
	const struct movie_devtrack *d = &t->dev[i];
	const struct movie_box *b = &db->plot;
	const struct movie_gaps *gs = &d->gaps;
	uint64_t win = (uint64_t)d->grid.ncols * d->grid.col_ns;
	double fs = m->layout.font * 0.85;
	struct blk_gap cur;
	char buf[2][48];

	fill_box(cr, b, C_PLOT, 1);
	cairo_save(cr);
	cairo_rectangle(cr, b->x, b->y, b->w, b->h);
	cairo_clip(cr);
	for (unsigned k = 0; k < gs->n; k++) {
		const struct blk_gap *g = &gs->g[(gs->head + k) % gs->cap];

		if (g->end >= now || now - g->end < win)
			idle_band(cr, b, &d->grid, now, g->start, g->end);
	}
	*idle_now = !t->ended && blk_idle_current(t->idle, i, now, &cur);
	if (*idle_now)
		idle_band(cr, b, &d->grid, now, cur.start, now);
	if (t->ended && t->last < now) {
		double x = plot_x(b, &d->grid, now, t->last);

		rgb(cr, C_BG, 0.55);
		cairo_rectangle(cr, x, b->y, b->x + b->w - x, b->h);
		cairo_fill(cr);
	}
	if (now > t->start) /* a run set's host before its first frame: nothing yet */
		draw_points(cr, b, d, t->start, now);
	if (*idle_now) {
		double x0 = fmax(plot_x(b, &d->grid, now, cur.start), b->x);
		double cx = (x0 + b->x + b->w) / 2, cy = b->y + b->h / 2.0;
		double lo = b->x + 4, hi = b->x + b->w - 4;
		char cap[2][96];

		/* centred on the gap, but whole: a gap just begun is a sliver at the edge */
		snprintf(cap[0], sizeof(cap[0]), "idle %s",
		         fmt_time(buf[0], sizeof(buf[0]), (double)(cur.end - cur.start)));
		text(cr, centre_in(cr, m->layout.font * 1.3, true, cap[0], cx, lo, hi), cy,
		     m->layout.font * 1.3, true, C_TEXT, CENTER, "%s", cap[0]);
		if (cur.queued) {
			snprintf(cap[1], sizeof(cap[1]), "IO queued for %s",
			         fmt_time(buf[1], sizeof(buf[1]), (double)cur.queued_ns));
			text(cr, centre_in(cr, fs, false, cap[1], cx, lo, hi),
			     cy + m->layout.font * 1.4, fs, false, C_TEXT, CENTER, "%s", cap[1]);
		}
	}
	text(cr, b->x + 4, b->y + b->h - 4, fs, false, C_DIM, LEFT, "-%s",
	     fmt_time(buf[0], sizeof(buf[0]), (double)win));
	text(cr, b->x + b->w - 4, b->y + b->h - 4, fs, false, C_DIM, RIGHT, "now");
	cairo_restore(cr);
	rgb(cr, C_EDGE, 1);
	cairo_set_line_width(cr, 1);
	cairo_rectangle(cr, b->x - 0.5, b->y - 0.5, b->w + 1, b->h + 1);
	cairo_stroke(cr);
	/* the offset axis: the device's range of issued sectors, as bytes */
	text(cr, b->x - 4, b->y + fs, fs, false, C_DIM, RIGHT, "%s",
	     fmt_bytes(buf[0], sizeof(buf[0]), (double)d->pd->hi * 512));
	text(cr, b->x - 4, b->y + b->h, fs, false, C_DIM, RIGHT, "%s",
	     fmt_bytes(buf[0], sizeof(buf[0]), (double)d->pd->lo * 512));
	text(cr, b->x - 4, b->y + b->h / 2.0 + fs / 2, fs, false, C_DIM, RIGHT, "offset");
}

/* Rate of series value v over column j (per second; MiB/s for bytes). */
static double col_rate(const struct movie_series *s, int v, unsigned j, uint64_t step)
{
	double secs = (double)s->bins[j] * (double)step / 1e9;

	return secs > 0 ? (double)s->v[v][j] / secs : 0;
}

static double graph_value(const struct movie_series *s, int g, unsigned j, uint64_t step)
{
	switch (g) {
	case MOVIE_G_MBPS:
		return (col_rate(s, 0, j, step) + col_rate(s, 1, j, step)) / IOT_MIB;
	case MOVIE_G_IOPS:
		return col_rate(s, 2, j, step);
	default:
		return col_rate(s, 3, j, step);
	}
}

/* Bars of one series from base[] (stacking), up to column upto; base gets the tops. */
static void bars(cairo_t *cr, const struct movie_box *b, const struct movie_series *s, int v,
                 double scale, unsigned upto, uint64_t step, double *base, uint32_t c)
{
	bool any = false;

	for (unsigned j = 0; j < upto; j++) {
		int x0 = b->x + (int)((uint64_t)j * (unsigned)b->w / s->ncols);
		int x1 = b->x + (int)((uint64_t)(j + 1) * (unsigned)b->w / s->ncols);
		double h = col_rate(s, v, j, step) * scale * b->h;

		if (h <= 0)
			continue;
		if (base[j] + h > b->h)
			h = b->h - base[j];
		cairo_rectangle(cr, x0, b->y + b->h - base[j] - h, x1 > x0 ? x1 - x0 : 1, h);
		base[j] += h;
		any = true;
	}
	if (any) {
		rgb(cr, c, 0.9);
		cairo_fill(cr);
	}
}

static void draw_graphs(struct movie *m, cairo_t *cr, const struct movie_track *t, unsigned i,
                        const struct movie_dev_box *db, uint64_t k)
{
	static const char *const names[] = {"MiB/s", "IOPS", "seeks/s"};
	const struct movie_devtrack *d = &t->dev[i];
	const struct movie_series *s = &d->series;
	unsigned upto = (unsigned)(k * s->ncols / m->frames) + 1; /* frame k is in the series */
	double wsecs = (double)d->win_bins * (double)t->step / 1e9, fs = m->layout.font * 0.85;
	double base[8192];
	char buf[2][32];

	for (int g = 0; g < MOVIE_NGRAPHS; g++) {
		const struct movie_box *b = &db->graph[g];
		double now_v, scale = 1 / m->ymax[g];

		fill_box(cr, b, C_PLOT, 1);
		memset(base, 0, sizeof(base[0]) * s->ncols);
		cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
		if (g == MOVIE_G_MBPS) {
			bars(cr, b, s, 0, scale / IOT_MIB, upto, t->step, base, C_READ);
			bars(cr, b, s, 1, scale / IOT_MIB, upto, t->step, base, C_WRITE);
			now_v = wsecs > 0 ? (double)(d->win.read_bytes + d->win.write_bytes) /
			                        IOT_MIB / wsecs
			                  : 0;
		} else {
			bars(cr, b, s, g == MOVIE_G_IOPS ? 2 : 3, scale, upto, t->step, base,
			     g == MOVIE_G_IOPS ? C_IOPS : C_SEEK);
			now_v =
			    wsecs > 0
			        ? (double)(g == MOVIE_G_IOPS ? d->win.ios : d->win.seeks) / wsecs
			        : 0;
		}
		cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
		if (!t->ended || upto < s->ncols) {
			int x = b->x + (int)((uint64_t)upto * (unsigned)b->w / s->ncols);

			rgb(cr, C_DIM, 0.8);
			cairo_rectangle(cr, x, b->y, 1, b->h);
			cairo_fill(cr);
		}
		/* inside the strip: name and the window's value at the left, the scale at the right
		 */
		text(cr, b->x + 3, b->y + fs + 1, fs, false, C_TEXT, LEFT, "%s %s", names[g],
		     fmt_num(buf[0], sizeof(buf[0]), now_v));
		text(cr, b->x + b->w - 3, b->y + fs + 1, fs * 0.9, false, C_DIM, RIGHT, "%s",
		     fmt_num(buf[1], sizeof(buf[1]), m->ymax[g]));
	}
}

/* Right-aligned at x: the colours of reads, writes and idle gaps. */
static void legend(cairo_t *cr, double x, double y, double size)
{
	const struct {
		const char *name;
		uint32_t c;
		double a;
	} item[] = {{"idle", C_IDLE, 0.7}, {"write", C_WRITE, 1}, {"read", C_READ, 1}};

	for (unsigned i = 0; i < sizeof(item) / sizeof(item[0]); i++) {
		x -= text(cr, x, y, size, false, C_TEXT, RIGHT, "%s", item[i].name) + size * 0.4;
		rgb(cr, item[i].c, item[i].a);
		cairo_rectangle(cr, x - size * 0.8, y - size * 0.8, size * 0.8, size * 0.8);
		cairo_fill(cr);
		x -= size * 1.6;
	}
}

/* The graphs' scales: the highest column so far of any run, rounded up; they only grow. */
static void update_scales(struct movie *m, uint64_t k)
{
	for (unsigned r = 0; r < m->n; r++) {
		const struct movie_track *t = &m->track[r];

		for (unsigned i = 0; i < t->nshow; i++) {
			const struct movie_series *s = &t->dev[i].series;
			unsigned j = (unsigned)(k * s->ncols / m->frames);

			for (int g = 0; g < MOVIE_NGRAPHS; g++) {
				double v = graph_value(s, g, j, t->step);

				if (v > m->ymax[g])
					m->ymax[g] = nice_ceil(v);
			}
		}
	}
}

void movie_draw_frame(struct movie *m, cairo_t *cr, uint64_t k)
{
	const struct movie_layout *l = &m->layout;
	double f = l->font;
	char buf[2][48];

	update_scales(m, k);
	rgb(cr, C_BG, 1);
	cairo_paint(cr);
	text(cr, l->header.x + f, l->header.h * 0.68, f * 1.1, true, C_TEXT, LEFT, "iotape movie");
	text(cr, l->w / 2.0, l->header.h * 0.68, f * 1.25, true, C_TEXT, CENTER, "%s  of  %s",
	     fmt_time(buf[0], sizeof(buf[0]), (double)(k + 1) * (double)m->step),
	     fmt_time(buf[1], sizeof(buf[1]), (double)m->span));
	legend(cr, l->w - f, l->header.h * 0.68, f * 0.9);
	text(cr, l->w * 0.75, l->header.h * 0.68, f * 0.9, false, C_DIM, CENTER,
	     "x%.3g   window %s", movie_speed_of(m),
	     fmt_time(buf[0], sizeof(buf[0]), (double)m->window));
	for (unsigned r = 0; r < m->n; r++) {
		const struct movie_track *t = &m->track[r];
		const struct movie_panel_box *pb = &l->panel[r];
		uint64_t now = movie_frame_end(m, t, k);

		text(cr, pb->title.x, pb->title.y + pb->title.h * 0.72, f * 1.15, true, C_TEXT,
		     LEFT, "%s", t->label ? t->label : "");
		/* on the movie's clock: a run set's host from its lag */
		if (k < t->lag)
			text(cr, pb->title.x + pb->title.w, pb->title.y + pb->title.h * 0.72,
			     f * 0.9, false, C_DIM, RIGHT, "starts at %s",
			     fmt_time(buf[0], sizeof(buf[0]), (double)(t->lag * m->step)));
		else if (t->ended && t->last < now)
			text(cr, pb->title.x + pb->title.w, pb->title.y + pb->title.h * 0.72,
			     f * 0.9, false, C_DIM, RIGHT, "ended at %s",
			     fmt_time(buf[0], sizeof(buf[0]),
			              (double)(t->last - t->start + t->lag * m->step)));
		for (unsigned i = 0; i < t->nshow; i++) {
			const struct movie_dev_box *db = &pb->dev[i];
			const struct movie_devtrack *d = &t->dev[i];
			bool idle;

			draw_plot(m, cr, t, i, db, now, &idle);
			draw_graphs(m, cr, t, i, db, k);
			if (d->name)
				text(cr, db->plot.x, db->name.y + db->name.h * 0.75, f, false,
				     C_TEXT, LEFT, "%s", d->name);
			else
				text(cr, db->plot.x, db->name.y + db->name.h * 0.75, f, false,
				     C_TEXT, LEFT, "%u,%u", d->pd->dev >> 20, d->pd->dev & 0xfffff);
			if (idle)
				text(cr, db->plot.x + db->plot.w, db->name.y + db->name.h * 0.75, f,
				     true, C_IDLE, RIGHT, "IDLE");
		}
	}
}
