/* SPDX-License-Identifier: MIT */
/* SVG charts for the report: time series with envelopes, idle shading, density images. */
#ifndef IOTAPE_REPORT_REPORT_SVG_H
#define IOTAPE_REPORT_REPORT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A chart is drawn from plain arrays the caller owns; nothing here knows about traces.
 * x values are seconds from the run start. NaN in mean[] breaks the line (no data there).
 */
struct svg_series {
	const char *name;
	const char *color; /* "#1f77b4" */
	size_t n;
	const double *x;
	const double *mean;
	const double *lo, *hi; /* envelope (min/max of the finer bins), or NULL */
	bool dashed;
};

struct svg_band {
	double x0, x1;  /* seconds */
	double opacity; /* 0..1 */
	const char *color;
	double min_px;   /* draw at least this wide (a rare long gap stays visible) */
	char attrs[120]; /* more attributes of the rect, as written (class, data-*), or "" */
	size_t hatch;    /* 0: filled with color; i + 1: hatched in color as run i (pal_hatch) */
};

struct svg_image {
	const char *png_b64; /* base64 PNG stretched over the plot area */
	double y0, y1;       /* the y range the image covers (bottom, top) */
};

/* A marker for sparse scatter data (a few thousand IOs draw better as dots than pixels). */
struct svg_dot {
	double x, y;
	const char *color;
	double opacity;
};

struct svg_chart {
	const char *id; /* element id and --svg file name stem */
	const char *title;
	const char *ylabel; /* unit shown on the axis, e.g. "MiB/s" */
	double xmin, xmax;  /* seconds (xmin 0 unless a chart shows a part of the run) */
	double ymin, ymax;  /* ymax <= ymin: automatic (0 .. data max) */
	bool ybytes;        /* y ticks as byte offsets (KiB, MiB, GiB) */
	int width, height;
	const struct svg_series *series;
	size_t nseries;
	const struct svg_band *bands;
	size_t nbands;
	const struct svg_image *image;
	const struct svg_dot *dots;
	size_t ndots;
	const char *const *legend_names; /* extra legend entries (e.g. read/write colours) */
	const char *const *legend_colors;
	size_t nlegend;
};

/* Write the chart as an <svg> element (standalone adds the XML declaration). 0 or -EIO. */
int svg_chart_write(FILE *f, const struct svg_chart *c, bool standalone);

/* The start of a w x h chart's <svg> tag, left open for more attributes (standalone puts the XML
 * declaration before it): every chart of the report has the same head. */
void svg_open(FILE *f, int w, int h, bool standalone);

/* A small inline SVG of run i's idle hatching (as on the graphs), for a legend or table. */
void svg_hatch_swatch(FILE *f, size_t run);

/* "Nice" axis ticks: step for about n ticks over [0, max]. */
double svg_nice_step(double max, int n);

/* RGBA image (w x h, 4 bytes per pixel, top row first) as a base64 PNG (malloc'd), or NULL. */
char *svg_png_base64(const uint8_t *rgba, unsigned w, unsigned h);

#endif
