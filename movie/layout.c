/* SPDX-License-Identifier: MIT */
/* The movie's layout: a header, one panel per run, per device an offset plot and three graphs. */
#include "movie/movie_int.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* Panels side by side up to four, then in rows (6 runs: 3 x 2, 16 runs: 4 x 4). */
static void grid_shape(unsigned n, unsigned *cols, unsigned *rows)
{
	*rows = (n + 3) / 4;
	*cols = (n + *rows - 1) / *rows;
}

static struct movie_box box(int x, int y, int w, int h)
{
	return (struct movie_box){x, y, w, h};
}

/*
 * A device's block: its name line, then the offset plot (three fifths of the rest) and the
 * three graphs below it, one under the other, or side by side when the block is too short for
 * that (many devices in one run), with the offset axis's labels in a left margin.
 */
static int dev_block(struct movie_dev_box *d, struct movie_box b, double font)
{
	int pad = (int)lround(font / 2), name_h = (int)lround(font * 1.5);
	int left = (int)lround(font * 4.6), rest, plot_h, gh, gw;

	d->name = box(b.x, b.y, b.w, name_h);
	rest = b.h - name_h;
	plot_h = rest * 3 / 5;
	d->plot = box(b.x + left, b.y + name_h, b.w - left - pad, plot_h);
	gh = (rest - plot_h - 3 * pad) / MOVIE_NGRAPHS;
	if (gh >= (int)lround(font * 1.6)) {
		for (int g = 0; g < MOVIE_NGRAPHS; g++)
			d->graph[g] = box(d->plot.x, d->plot.y + plot_h + pad + g * (gh + pad),
			                  d->plot.w, gh);
	} else {
		gh = rest - plot_h - 2 * pad;
		gw = (d->plot.w - (MOVIE_NGRAPHS - 1) * pad) / MOVIE_NGRAPHS;
		for (int g = 0; g < MOVIE_NGRAPHS; g++)
			d->graph[g] =
			    box(d->plot.x + g * (gw + pad), d->plot.y + plot_h + pad, gw, gh);
	}
	return d->plot.w >= 48 && d->plot.h >= 24 && gh >= 8 && d->graph[0].w >= 32 ? 0 : -EINVAL;
}

int movie_layout_make(struct movie_layout *l, unsigned w, unsigned h, unsigned n,
                      const unsigned *ndev, struct iot_err *e)
{
	unsigned cols, rows;
	int pad, head_h, title_h, pw, ph;

	memset(l, 0, sizeof(*l));
	if (!n || n > MOVIE_MAX_RUNS)
		return iot_err_set(e, -EINVAL, "%u runs: a movie shows 1 to %u", n, MOVIE_MAX_RUNS);
	l->w = w;
	l->h = h;
	l->font = fmax(9, floor(h / 52.0));
	l->npanels = n;
	pad = (int)lround(l->font / 2);
	head_h = (int)lround(l->font * 2.2);
	title_h = (int)lround(l->font * 1.8);
	l->header = box(0, 0, (int)w, head_h);
	grid_shape(n, &cols, &rows);
	pw = (int)w / (int)cols;
	ph = ((int)h - head_h) / (int)rows;
	for (unsigned i = 0; i < n; i++) {
		struct movie_panel_box *p = &l->panel[i];
		int x = (int)(i % cols) * pw, y = head_h + (int)(i / cols) * ph, dh;

		p->box = box(x + pad, y, pw - 2 * pad, ph - pad);
		p->title = box(p->box.x, y, p->box.w, title_h);
		p->ndev = ndev[i] < MOVIE_MAX_DEVS ? ndev[i] : MOVIE_MAX_DEVS;
		if (!p->ndev)
			p->ndev = 1;
		dh = (p->box.h - title_h) / (int)p->ndev;
		for (unsigned d = 0; d < p->ndev; d++) {
			struct movie_box b = box(p->box.x, y + title_h + (int)d * dh, p->box.w, dh);

			if (dev_block(&p->dev[d], b, l->font))
				return iot_err_set(
				    e, -EINVAL,
				    "a %ux%u frame is too small for %u run%s of %u "
				    "device%s (a plot would be %dx%d pixels): give a "
				    "larger --size",
				    w, h, n, n > 1 ? "s" : "", p->ndev, p->ndev > 1 ? "s" : "",
				    p->dev[d].plot.w, p->dev[d].plot.h);
		}
	}
	return 0;
}
