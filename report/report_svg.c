/* SPDX-License-Identifier: MIT */
/* SVG charts for the report: time series with envelopes, idle shading, density images. */
#include "report/report_svg.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

#include "common/palette.h"
#include "common/xml.h"

enum { ML = 64, MR = 16, MT = 26, MB = 34 }; /* margins: left, right, top, bottom */

double svg_nice_step(double max, int n)
{
	double raw, mag, f;

	if (!(max > 0) || !isfinite(max))
		return 1;
	raw = max / n;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * mag;
}

/* A step of byte offsets: a nice step in the binary unit (KiB, MiB, ...) of the span, so the
 * ticks read as whole numbers of the unit their labels name (docs/units.md). */
static double nice_step_bytes(double max, int n)
{
	double u = 1;

	while (max / u >= 1024 && u < 1125899906842624.0)
		u *= 1024;
	return svg_nice_step(max / u, n) * u;
}

/* Compact numbers for tick labels: 1.5k, 2M, 0.25; byte offsets in binary units. */
static void fmt_tick(char *buf, size_t cap, double v, bool bytes)
{
	static const char *const si[] = {"", "k", "M", "G", "T", "P"};
	static const char *const iec[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	int i = 0;
	double a = fabs(v);

	if (bytes) {
		while (a >= 1024 && i < 5)
			a /= 1024, v /= 1024, i++;
		snprintf(buf, cap, "%g %s", round(v * 100) / 100, iec[i]);
		return;
	}
	while (a >= 10000 && i < 5)
		a /= 1000, v /= 1000, i++;
	snprintf(buf, cap, "%g%s", round(v * 1000) / 1000, si[i]);
}

static void fmt_time(char *buf, size_t cap, double s, double step)
{
	if (step >= 1 || s == 0)
		snprintf(buf, cap, "%g s", round(s * 1000) / 1000);
	else if (step >= 1e-3)
		snprintf(buf, cap, "%g ms", round(s * 1e6) / 1e3);
	else
		snprintf(buf, cap, "%g us", round(s * 1e9) / 1e3);
}

struct frame {
	double x0, y0, w, h; /* plot area in px */
	double xmax, ymin, ymax;
	double xmin;
};

static double px(const struct frame *fr, double x)
{
	return fr->x0 + (fr->xmax > fr->xmin ? (x - fr->xmin) / (fr->xmax - fr->xmin) : 0) * fr->w;
}

/* A point before or after the shown part of the axis (a chart with an xmin): not drawn. */
static bool off_axis(const struct frame *fr, double x)
{
	double tol = (fr->xmax - fr->xmin) * 1e-9;

	return fr->xmin > 0 && (x < fr->xmin - tol || x > fr->xmax + tol);
}

static double py(const struct frame *fr, double y)
{
	double r = fr->ymax > fr->ymin ? (y - fr->ymin) / (fr->ymax - fr->ymin) : 0;

	if (r < 0)
		r = 0;
	if (r > 1)
		r = 1;
	return fr->y0 + fr->h - r * fr->h;
}

/* The id of the pattern hatching as run i: unique in a page of many charts. */
static void hatch_id(char *buf, size_t len, const struct svg_chart *c, size_t i)
{
	snprintf(buf, len, "%s-hatch%zu", c->id ? c->id : "chart", i);
}

/* The fill of a band: its colour, or its run's hatching. */
static void band_fill(char *buf, size_t len, const struct svg_chart *c, const struct svg_band *b)
{
	char id[160];

	if (!b->hatch) {
		snprintf(buf, len, "%s", b->color ? b->color : "#888");
		return;
	}
	hatch_id(id, sizeof(id), c, b->hatch - 1);
	snprintf(buf, len, "url(#%s)", id);
}

/*
 * One pattern per run whose bands are hatched: lines in the band's (neutral) colour at the
 * run's angle and spacing, so that where runs' idle time overlaps the shading crosses and
 * stays grey rather than mixing into a colour of its own.
 */
static void hatch_defs(FILE *f, const struct svg_chart *c)
{
	bool any = false;

	for (size_t i = 0; i < c->nbands; i++) {
		const struct svg_band *b = &c->bands[i];
		bool seen = false;
		double angle, sp;
		char id[160];

		if (!b->hatch)
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = c->bands[j].hatch == b->hatch;
		if (seen)
			continue;
		if (!any)
			fputs("<defs>\n", f);
		any = true;
		pal_hatch(b->hatch - 1, &angle, &sp);
		hatch_id(id, sizeof(id), c, b->hatch - 1);
		fputs("<pattern id=\"", f);
		xml_puts(f, id);
		fprintf(f,
		        "\" class=\"hatch\" patternUnits=\"userSpaceOnUse\" width=\"%g\" "
		        "height=\"%g\" patternTransform=\"rotate(%g)\"><line x1=\"0\" y1=\"0\" "
		        "x2=\"0\" y2=\"%g\" stroke=\"%s\" stroke-width=\"2\"/></pattern>\n",
		        sp, sp, angle, sp, b->color ? b->color : "#888");
	}
	if (any)
		fputs("</defs>\n", f);
}

void svg_hatch_swatch(FILE *f, size_t run)
{
	double angle, sp;

	pal_hatch(run, &angle, &sp);
	fprintf(f,
	        "<svg class=\"hatchsw\" width=\"24\" height=\"12\" viewBox=\"0 0 24 12\">"
	        "<defs><pattern id=\"runs-hatch%zu\" patternUnits=\"userSpaceOnUse\" "
	        "width=\"%g\" height=\"%g\" patternTransform=\"rotate(%g)\"><line x1=\"0\" "
	        "y1=\"0\" x2=\"0\" y2=\"%g\" stroke=\"%s\" stroke-width=\"2\"/></pattern></defs>"
	        "<rect width=\"24\" height=\"12\" fill=\"url(#runs-hatch%zu)\" "
	        "fill-opacity=\"0.6\" stroke=\"#999\"/></svg>",
	        run, sp, sp, angle, sp, pal_hex(PAL_IDLE), run);
}

/* v moved into [lo, hi] */
static double inside(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static void draw_series(FILE *f, const struct frame *fr, const struct svg_series *s)
{
	/* envelope: one polygon per run of defined points, upper edge then lower edge back */
	if (s->lo && s->hi) {
		size_t i = 0;

		while (i < s->n) {
			size_t j;

			while (i < s->n &&
			       (isnan(s->lo[i]) || isnan(s->hi[i]) || off_axis(fr, s->x[i])))
				i++;
			for (j = i; j < s->n && !isnan(s->lo[j]) && !isnan(s->hi[j]) &&
			            !off_axis(fr, s->x[j]);
			     j++)
				;
			if (j - i >= 1) {
				fprintf(f, "<polygon fill=\"%s\" fill-opacity=\"0.18\" points=\"",
				        s->color);
				for (size_t k = i; k < j; k++)
					fprintf(f, "%.1f,%.1f ", px(fr, s->x[k]), py(fr, s->hi[k]));
				for (size_t k = j; k-- > i;)
					fprintf(f, "%.1f,%.1f ", px(fr, s->x[k]), py(fr, s->lo[k]));
				fputs("\"/>\n", f);
			}
			i = j;
		}
	}
	for (size_t i = 0; i < s->n;) {
		size_t j;

		while (i < s->n && (isnan(s->mean[i]) || off_axis(fr, s->x[i])))
			i++;
		for (j = i; j < s->n && !isnan(s->mean[j]) && !off_axis(fr, s->x[j]); j++)
			;
		if (j == i + 1) {
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"1.5\" fill=\"%s\"/>\n",
			        px(fr, s->x[i]), py(fr, s->mean[i]), s->color);
		} else if (j > i) {
			fprintf(f,
			        "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.3\"%s "
			        "points=\"",
			        s->color, s->dashed ? " stroke-dasharray=\"4 2\"" : "");
			for (size_t k = i; k < j; k++)
				fprintf(f, "%.1f,%.1f ", px(fr, s->x[k]), py(fr, s->mean[k]));
			fputs("\"/>\n", f);
		}
		i = j;
	}
}

/* The chart's idle bands: each clipped to the frame, at least its min_px wide. */
static void bands_write(FILE *f, const struct svg_chart *c, const struct frame *fr)
{
	for (size_t i = 0; i < c->nbands; i++) {
		const struct svg_band *b = &c->bands[i];
		double x0 = px(fr, b->x0), x1 = px(fr, b->x1);
		char fill[200];

		if (x1 < fr->x0 || x0 > fr->x0 + fr->w)
			continue; /* outside the shown part */
		if (x0 < fr->x0)
			x0 = fr->x0;
		if (x1 - x0 < b->min_px)
			x1 = x0 + b->min_px;
		if (x1 > fr->x0 + fr->w)
			x1 = fr->x0 + fr->w;
		band_fill(fill, sizeof(fill), c, b);
		fputs("<rect", f);
		fprintf(f,
		        " x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
		        "fill-opacity=\"%.2f\"%s%s/>\n",
		        x0, fr->y0, x1 - x0 > 0.1 ? x1 - x0 : 0.1, fr->h, fill,
		        b->hatch ? (b->opacity * 1.5 > 1 ? 1 : b->opacity * 1.5) : b->opacity,
		        b->attrs[0] ? " " : "", b->attrs);
	}
}

/* Without a y range given: 0 up to a round number above the highest mean of any series. */
static void auto_y_range(struct frame *fr, const struct svg_chart *c)
{
	double m = 0, step;

	for (size_t s = 0; s < c->nseries; s++) {
		const struct svg_series *se = &c->series[s];

		/* scaled to the lines: the envelope of very short intervals can be far spikier,
		 * and is clipped at the top rather than flattening the lines */
		for (size_t i = 0; i < se->n; i++)
			if (!isnan(se->mean[i]) && se->mean[i] > m)
				m = se->mean[i];
	}
	fr->ymin = 0;
	step = svg_nice_step(m > 0 ? m : 1, 4);
	fr->ymax = ceil((m > 0 ? m : 1) / step) * step;
}

/* The svg element, its title and a white background with the title on it. */
void svg_open(FILE *f, int w, int h, bool standalone)
{
	if (standalone)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f,
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
	        "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\"",
	        w, h, w, h);
}

static void head_write(FILE *f, const struct svg_chart *c, int W, int H, bool standalone)
{
	svg_open(f, W, H, standalone);
	if (c->id) {
		fputs(" id=\"", f);
		xml_puts(f, c->id);
		fputc('"', f);
	}
	fputs(">\n<title>", f);
	xml_puts(f, c->title);
	fputs("</title>\n", f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", W, H);
	fputs("<text x=\"4\" y=\"16\" font-size=\"13\" font-weight=\"bold\">", f);
	xml_puts(f, c->title);
	fputs("</text>\n", f);
}

/* The density image stretched over its y range, then its dots, whole inside the frame: one on
 * the top or bottom row is not cut in half by it. */
static void image_write(FILE *f, const struct svg_chart *c, const struct frame *fr)
{
	if (c->image && c->image->png_b64) {
		double yt = py(fr, c->image->y1), yb = py(fr, c->image->y0);

		fprintf(f,
		        "<image x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		        "preserveAspectRatio=\"none\" style=\"image-rendering:pixelated\" "
		        "href=\"data:image/png;base64,%s\"/>\n",
		        fr->x0, yt, fr->w, yb - yt > 1 ? yb - yt : 1, c->image->png_b64);
	}
	for (size_t i = 0; i < c->ndots; i++) {
		const struct svg_dot *d = &c->dots[i];

		fprintf(f,
		        "<rect class=\"dot\" x=\"%.1f\" y=\"%.1f\" width=\"3\" height=\"3\" "
		        "fill=\"%s\" fill-opacity=\"%.2f\"/>\n",
		        inside(px(fr, d->x) - 1.5, fr->x0 + 1, fr->x0 + fr->w - 4),
		        inside(py(fr, d->y) - 1.5, fr->y0 + 1, fr->y0 + fr->h - 4), d->color,
		        d->opacity);
	}
}

/* Grid lines and y ticks at round steps (of bytes for a byte axis), the time ticks, the frame
 * and the y label. */
static void axes_write(FILE *f, const struct svg_chart *c, const struct frame *fr)
{
	double step = c->ybytes ? nice_step_bytes(fr->ymax - fr->ymin, 4)
	                        : svg_nice_step(fr->ymax - fr->ymin, 4);
	double xstep;
	char buf[64];

	fputs("<g stroke=\"#ddd\" stroke-width=\"1\">\n", f);
	for (double y = ceil(fr->ymin / step) * step; y <= fr->ymax + step * 1e-9; y += step)
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", ML, py(fr, y),
		        fr->x0 + fr->w, py(fr, y));
	fputs("</g>\n<g fill=\"#333\" text-anchor=\"end\">\n", f);
	for (double y = ceil(fr->ymin / step) * step; y <= fr->ymax + step * 1e-9; y += step) {
		fmt_tick(buf, sizeof(buf), fabs(y) < step * 1e-9 ? 0 : y, c->ybytes);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\">%s</text>\n", ML - 4, py(fr, y) + 4, buf);
	}
	fputs("</g>\n", f);
	xstep = svg_nice_step(fr->xmax - fr->xmin, 10);
	fputs("<g fill=\"#333\" text-anchor=\"middle\">\n", f);
	for (double x = ceil(fr->xmin / xstep - 1e-9) * xstep; x <= fr->xmax + xstep * 1e-9;
	     x += xstep) {
		fmt_time(buf, sizeof(buf), x, xstep);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", px(fr, x),
		        fr->y0 + fr->h + 14, buf);
	}
	fputs("</g>\n", f);
	fprintf(f,
	        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
	        "stroke=\"#999\"/>\n",
	        fr->x0, fr->y0, fr->w, fr->h);
	if (c->ylabel) {
		fprintf(f,
		        "<text x=\"12\" y=\"%.1f\" transform=\"rotate(-90 12 %.1f)\" "
		        "text-anchor=\"middle\" fill=\"#333\">",
		        fr->y0 + fr->h / 2, fr->y0 + fr->h / 2);
		xml_puts(f, c->ylabel);
		fputs("</text>\n", f);
	}
}

/* The legend, right-aligned in the top margin: the series, then the extra names. */
static void legend_write(FILE *f, const struct svg_chart *c, int W)
{
	double lx = W - MR;

	for (size_t i = c->nseries + c->nlegend; i-- > 0;) {
		const char *name =
		    i < c->nseries ? c->series[i].name : c->legend_names[i - c->nseries];
		const char *col =
		    i < c->nseries ? c->series[i].color : c->legend_colors[i - c->nseries];
		bool dashed = i < c->nseries && c->series[i].dashed;
		double tw = 6.5 * (double)strlen(name ? name : "") + 20;

		if (!name)
			continue;
		lx -= tw;
		/* a swatch as its line is drawn: a dashed series' is a dashed stroke, so that p50
		 * and p99 of one run (one colour) are told apart */
		if (dashed)
			fprintf(
			    f,
			    "<line class=\"swatch\" x1=\"%.1f\" y1=\"13\" x2=\"%.1f\" y2=\"13\" "
			    "stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"4 2\"/>",
			    lx, lx + 10, col);
		else
			fprintf(
			    f,
			    "<rect class=\"swatch\" x=\"%.1f\" y=\"8\" width=\"10\" height=\"10\" "
			    "fill=\"%s\"/>",
			    lx, col);
		fprintf(f, "<text x=\"%.1f\" y=\"17\">", lx + 13);
		xml_puts(f, name);
		fputs("</text>\n", f);
	}
}

int svg_chart_write(FILE *f, const struct svg_chart *c, bool standalone)
{
	int W = c->width ? c->width : 1100, H = c->height ? c->height : 220;
	struct frame fr = {ML, MT, W - ML - MR, H - MT - MB, c->xmax, c->ymin, c->ymax, 0};

	if (!(fr.xmax > 0))
		fr.xmax = 1;
	fr.xmin = c->xmin > 0 && c->xmin < fr.xmax ? c->xmin : 0;
	if (!(fr.ymax > fr.ymin))
		auto_y_range(&fr, c);
	head_write(f, c, W, H, standalone);
	hatch_defs(f, c);
	/* idle shading first, under everything */
	bands_write(f, c, &fr);
	image_write(f, c, &fr);
	axes_write(f, c, &fr);
	/* data (y is clamped to the plot area) */
	fputs("<g>\n", f);
	for (size_t s = 0; s < c->nseries; s++)
		draw_series(f, &fr, &c->series[s]);
	fputs("</g>\n", f);
	legend_write(f, c, W);
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}

/* ---- PNG: cairo draws the image into a surface and encodes it ---- */

struct png_buf {
	uint8_t *p;
	size_t n, cap;
};

static cairo_status_t png_append(void *closure, const unsigned char *data, unsigned int len)
{
	struct png_buf *b = closure;

	if (len > b->cap - b->n) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *p;

		while (len > cap - b->n) {
			if (cap > SIZE_MAX / 2)
				return CAIRO_STATUS_NO_MEMORY;
			cap *= 2;
		}
		p = realloc(b->p, cap);
		if (!p)
			return CAIRO_STATUS_NO_MEMORY;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, data, len);
	b->n += len;
	return CAIRO_STATUS_SUCCESS;
}

static char *base64(const uint8_t *p, size_t n)
{
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		*o++ = tab[v >> 18 & 63];
		*o++ = tab[v >> 12 & 63];
		*o++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? tab[v & 63] : '=';
	}
	*o = 0;
	return out;
}

/* cairo's ARGB32 holds colours premultiplied by alpha, one native-endian word per pixel. */
static uint32_t premultiply(const uint8_t *px)
{
	uint32_t a = px[3];

	return a << 24 | (px[0] * a + 127) / 255 << 16 | (px[1] * a + 127) / 255 << 8 |
	       (px[2] * a + 127) / 255;
}

char *svg_png_base64(const uint8_t *rgba, unsigned w, unsigned h)
{
	struct png_buf b = {0};
	cairo_surface_t *s;
	char *b64 = NULL;
	uint8_t *data;
	int stride;

	if (!w || !h || w > 1u << 14 || h > 1u << 14)
		return NULL;
	s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)w, (int)h);
	if (cairo_surface_status(s))
		goto out;
	cairo_surface_flush(s);
	data = cairo_image_surface_get_data(s);
	stride = cairo_image_surface_get_stride(s);
	for (unsigned y = 0; y < h; y++) {
		uint32_t *row = (uint32_t *)(data + (size_t)y * (size_t)stride);

		for (unsigned x = 0; x < w; x++)
			row[x] = premultiply(rgba + ((size_t)y * w + x) * 4);
	}
	cairo_surface_mark_dirty(s);
	if (cairo_surface_write_to_png_stream(s, png_append, &b) == CAIRO_STATUS_SUCCESS)
		b64 = base64(b.p, b.n);
out:
	cairo_surface_destroy(s);
	free(b.p);
	return b64;
}
