/* SPDX-License-Identifier: MIT */
/* Inside iotape movie: layout, per-run tracks (sinks and the trailing window), drawing, encoding.
 */
#ifndef IOTAPE_MOVIE_MOVIE_INT_H
#define IOTAPE_MOVIE_MOVIE_INT_H

#include <cairo.h>

#include "analyze/blk_idle.h"
#include "analyze/blk_timeline.h"
#include "movie/movie.h"

/* ---- layout (layout.c): where everything goes, in whole pixels ---- */

enum { MOVIE_G_MBPS, MOVIE_G_IOPS, MOVIE_G_SEEKS, MOVIE_NGRAPHS };

struct movie_box {
	int x, y, w, h;
};

struct movie_dev_box {
	struct movie_box name; /* the device's line: name, state */
	struct movie_box plot; /* sector offset against time, the trailing window */
	struct movie_box graph[MOVIE_NGRAPHS];
};

struct movie_panel_box {
	struct movie_box box, title;
	unsigned ndev;
	struct movie_dev_box dev[MOVIE_MAX_DEVS];
};

struct movie_layout {
	unsigned w, h;
	double font; /* text size in pixels */
	struct movie_box header;
	unsigned npanels;
	struct movie_panel_box panel[MOVIE_MAX_RUNS];
};

/* Panels in a grid (side by side up to four), devices stacked in each. -EINVAL when a plot
 * would be too small to read. */
int movie_layout_make(struct movie_layout *l, unsigned w, unsigned h, unsigned n,
                      const unsigned *ndev, struct iot_err *e);

/* ---- tracks (track.c): one run's state while the movie plays ---- */

/*
 * A device's trailing window in cells of dot x dot pixels of its plot: column c holds the IO
 * issued in [start + c * col_ns, start + (c + 1) * col_ns), kept in a ring of ncols + 1
 * columns; each cell says read (1), write (2) or both. Memory is the plot's size, whatever
 * the IO rate.
 */
struct movie_grid {
	unsigned dot; /* pixels a cell takes, each way */
	unsigned ncols, nrows, nslots;
	uint64_t col_ns;
	uint64_t *abs;     /* per slot: the column it holds, UINT64_MAX for none */
	uint16_t *lo, *hi; /* per slot: the rows in use, [lo, hi) */
	uint8_t *cell;     /* nslots x nrows */
};

/* Gaps the idle sink has counted, those still inside the window. */
struct movie_gaps {
	struct blk_gap *g;
	unsigned head, n, cap;
};

/* The per-frame figures of the timeline sink, summed into the graphs' pixel columns. */
struct movie_series {
	unsigned ncols;
	uint64_t *v[4]; /* read bytes, write bytes, IOs, seeks */
	uint32_t *bins; /* frames summed into each column so far */
};

struct movie_devtrack {
	const struct movie_probe_dev *pd;
	const char *name;
	struct movie_grid grid;
	cairo_surface_t *mask[2]; /* the grid's reads and writes as cairo draws them (A8) */
	struct movie_gaps gaps;
	struct movie_series series;
	struct blk_bin win; /* the timeline bins of the trailing window, summed */
	unsigned win_bins;
};

struct movie_track {
	const struct movie_probe *p;
	const char *label;
	struct blk_idle *idle;
	struct blk_timeline *tl;
	unsigned nshow; /* devices drawn: the first MOVIE_MAX_DEVS */
	struct movie_devtrack *dev;
	uint64_t start;   /* the first event (notifies aside): frame lag starts there */
	uint64_t lag;     /* frames before its first event (movie_run_info's lag_ns) */
	uint64_t last;    /* the latest event fed */
	uint64_t unshown; /* events after the last frame */
	uint64_t undrawn; /* events of devices the axes do not have */
	uint64_t outside; /* issued IOs outside their device's sector range */
	uint64_t frame;   /* frames whose bins are in the series */
	uint64_t win_frames;
	uint64_t step, frames;
	bool ended;
	unsigned cache_idx;
	/* the reader's batch */
	const struct blk_event *batch;
	unsigned nbatch, pos;
	bool eof;
};

/* Sinks, grids and series for run p; graph columns from the layout. */
int movie_track_init(struct movie_track *t, const struct movie_probe *p,
                     const struct movie_run_info *info, const struct movie_panel_box *pb,
                     uint64_t step, uint64_t frames, uint64_t window_ns,
                     uint64_t idle_threshold_ns);
void movie_track_release(struct movie_track *t);
/* Index of dev among the probe's devices, or -1. */
int movie_track_dev_index(struct movie_track *t, uint32_t dev);
/* One event (time order, none before t->start) into the sinks and the window. */
void movie_track_feed(struct movie_track *t, const struct blk_event *ev);
/* The trace is over: the sinks close what is open (the last idle gap). */
void movie_track_end(struct movie_track *t);
/* Frame k of the movie is complete (every event before its end fed): its bins (the run's
 * frame k - lag) go into the series. */
void movie_track_frame_done(struct movie_track *t, uint64_t k);
/* Row of sector on a grid for the device's axis (0 at the lowest sector). */
unsigned movie_grid_row(const struct movie_grid *g, const struct movie_probe_dev *pd,
                        uint64_t sector);

/* ---- the movie (movie.c) and drawing (draw.c) ---- */

struct movie {
	struct movie_opts o;
	unsigned n;
	const struct movie_probe *probes;
	/* the probes as drawn: with several panels each device's axis is the union of the
	 * panels' (device j of every run), so that positions compare side by side */
	struct movie_probe *axes;
	struct movie_track *track;
	struct movie_layout layout;
	uint64_t step, frames, window, span;
	double ymax[MOVIE_NGRAPHS]; /* graph scales: only grow, shared by every panel */
	cairo_surface_t *surface;
};

/* Draw frame k (every run's events before the frame's end fed). */
void movie_draw_frame(struct movie *m, cairo_t *cr, uint64_t k);

/* Frame k's end on run t's clock, saturating; its start before its first frame (nothing
 * of it shown yet). */
static inline uint64_t movie_frame_end(const struct movie *m, const struct movie_track *t,
                                       uint64_t k)
{
	uint64_t off = k < t->lag ? 0 : (k + 1 - t->lag) * m->step;

	return t->start > UINT64_MAX - off ? UINT64_MAX : t->start + off;
}

/* Trace seconds per movie second. */
static inline double movie_speed_of(const struct movie *m)
{
	return (double)m->step * m->o.fps / 1e9;
}

/* ---- encoding (encode.c): the ffmpeg program, fed raw frames through a pipe ---- */

struct movie_enc;
/* Start ffmpeg writing path (which the caller made) in format f. */
int movie_enc_open(struct movie_enc **out, const char *path, enum movie_format f, unsigned w,
                   unsigned h, unsigned fps, struct iot_err *e);
/* One frame of cairo's ARGB32 pixels (native-endian words, stride bytes a row). */
int movie_enc_frame(struct movie_enc *enc, const uint8_t *argb, int stride, struct iot_err *e);
/* End the input and wait for ffmpeg to finish the file; frees enc either way. */
int movie_enc_close(struct movie_enc *enc, struct iot_err *e);
/* Kill ffmpeg and free, without finishing (after an error). */
void movie_enc_abort(struct movie_enc *enc);

#endif
