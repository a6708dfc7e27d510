/* SPDX-License-Identifier: MIT */
/* iotape movie: the clock, the frame loop that follows every run's trace, drawing and encoding. */
#include "movie/movie_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/blktrace.h"

/*
 * Every run plays on one clock: frame k shows each run at (k + 1) x step after its own first
 * event, so configurations side by side are compared at the same time into their runs. The
 * hosts of a run set play on the set's clock instead: each from its lag (its first event after
 * the earliest host's), rounded to whole frames. The step comes from --speed, or from
 * --length and the longest run (with its lag).
 */

void movie_opts_init(struct movie_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->width = 1280;
	o->height = 720;
	o->fps = MOVIE_DEFAULT_FPS;
	o->length_ns = MOVIE_DEFAULT_LENGTH_NS;
	o->idle_threshold_ns = BLK_DEFAULT_IDLE_NS;
	o->format = MOVIE_MP4;
}

static int check_opts(const struct movie_opts *o, struct iot_err *e)
{
	if (o->width < 320 || o->height < 180 || o->width > 7680 || o->height > 4320 ||
	    o->width % 2 || o->height % 2)
		return iot_err_set(e, -EINVAL,
		                   "size %ux%u: give even numbers from 320x180 to 7680x4320",
		                   o->width, o->height);
	if (o->fps < 1 || o->fps > 240)
		return iot_err_set(e, -EINVAL, "%u frames a second: give 1 to 240", o->fps);
	if (!(o->speed > 0) && !o->length_ns)
		return iot_err_set(e, -EINVAL, "give a length or a speed");
	if (o->speed > 0 && !isfinite(o->speed))
		return iot_err_set(e, -EINVAL, "the speed must be a finite number");
	return 0;
}

/* step and frames from the options and the longest span. */
static int plan_clock(struct movie *m, struct iot_err *e)
{
	const struct movie_opts *o = &m->o;
	double frames;

	if (o->speed > 0) {
		double step = o->speed * 1e9 / o->fps;

		if (step > 1e18)
			return iot_err_set(e, -EINVAL, "speed %g is too fast", o->speed);
		m->step = step < 1 ? 1 : (uint64_t)llround(step);
		frames = (double)(m->span / m->step) + 1;
	} else {
		frames = round((double)o->length_ns / 1e9 * o->fps);
		if (frames < 1)
			frames = 1;
	}
	if (frames > MOVIE_MAX_FRAMES)
		return iot_err_set(e, -EINVAL,
		                   "the movie would have %.0f frames, more than %u: give a shorter "
		                   "--length, a higher --speed or fewer --fps",
		                   frames, MOVIE_MAX_FRAMES);
	m->frames = (uint64_t)frames;
	/* frames x step passes the span, so that the last frame shows the last event */
	if (!(o->speed > 0))
		m->step = m->span / m->frames + 1;
	m->window = o->window_ns ? o->window_ns : m->step * o->fps * MOVIE_DEFAULT_WINDOW_FRAMES_S;
	return 0;
}

/* The probes with shared axes (movie.axes): device j of every run from the lowest sector any
 * run's device j issued to the highest. 0 or -ENOMEM. */
static int share_axes(struct movie *m, const struct movie_probe *probes, unsigned n)
{
	unsigned most = 0;

	if (!(m->axes = calloc(n, sizeof(*m->axes))))
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		m->axes[i] = probes[i];
		m->axes[i].dev =
		    calloc(probes[i].ndev ? probes[i].ndev : 1, sizeof(*probes[i].dev));
		if (!m->axes[i].dev)
			return -ENOMEM;
		if (probes[i].ndev)
			memcpy(m->axes[i].dev, probes[i].dev,
			       probes[i].ndev * sizeof(*probes[i].dev));
		most = probes[i].ndev > most ? probes[i].ndev : most;
	}
	for (unsigned j = 0; j < most; j++) {
		uint64_t lo = UINT64_MAX, hi = 0;

		for (unsigned i = 0; i < n; i++) {
			if (j >= probes[i].ndev || !probes[i].dev[j].issues)
				continue;
			lo = probes[i].dev[j].lo < lo ? probes[i].dev[j].lo : lo;
			hi = probes[i].dev[j].hi > hi ? probes[i].dev[j].hi : hi;
		}
		for (unsigned i = 0; i < n && hi > lo; i++) {
			if (j >= probes[i].ndev)
				continue;
			m->axes[i].dev[j].lo = lo;
			m->axes[i].dev[j].hi = hi;
		}
	}
	return 0;
}

int movie_new(struct movie **out, const struct movie_opts *o, const struct movie_probe *probes,
              const struct movie_run_info *info, unsigned n, struct iot_err *e)
{
	struct movie *m;
	unsigned ndev[MOVIE_MAX_RUNS];
	int ret;

	*out = NULL;
	if ((ret = check_opts(o, e)))
		return ret;
	if (!n || n > MOVIE_MAX_RUNS)
		return iot_err_set(e, -EINVAL, "%u runs: a movie shows 1 to %u", n, MOVIE_MAX_RUNS);
	m = calloc(1, sizeof(*m));
	if (!m)
		return iot_err_set(e, -ENOMEM, "out of memory");
	m->o = *o;
	m->n = n;
	if (share_axes(m, probes, n)) {
		ret = iot_err_set(e, -ENOMEM, "out of memory");
		goto fail;
	}
	probes = m->axes;
	m->probes = probes;
	for (unsigned i = 0; i < n; i++) {
		uint64_t end = probes[i].span + info[i].lag_ns;

		if (end < probes[i].span) {
			ret = iot_err_set(e, -EINVAL, "%s starts too late", info[i].label);
			goto fail;
		}
		if (end > m->span)
			m->span = end;
		ndev[i] = probes[i].ndev;
	}
	if (!m->span)
		m->span = 1;
	if ((ret = plan_clock(m, e)) ||
	    (ret = movie_layout_make(&m->layout, o->width, o->height, n, ndev, e)))
		goto fail;
	m->track = calloc(n, sizeof(*m->track));
	if (!m->track) {
		ret = iot_err_set(e, -ENOMEM, "out of memory");
		goto fail;
	}
	for (unsigned i = 0; i < n; i++) {
		ret = movie_track_init(&m->track[i], &probes[i], &info[i], &m->layout.panel[i],
		                       m->step, m->frames, m->window, o->idle_threshold_ns);
		if (ret) {
			ret = iot_err_set(e, ret, "out of memory");
			goto fail;
		}
		m->track[i].lag = (info[i].lag_ns + m->step / 2) / m->step;
	}
	/* the window as drawn: whole pixels of whole nanoseconds */
	if (m->track[0].nshow)
		m->window =
		    (uint64_t)m->track[0].dev[0].grid.ncols * m->track[0].dev[0].grid.col_ns;
	for (int g = 0; g < MOVIE_NGRAPHS; g++)
		m->ymax[g] = 1;
	m->surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)o->width, (int)o->height);
	if (cairo_surface_status(m->surface)) {
		ret =
		    iot_err_set(e, -ENOMEM, "out of memory for a %ux%u frame", o->width, o->height);
		goto fail;
	}
	*out = m;
	return 0;
fail:
	movie_free(m);
	return ret;
}

void movie_free(struct movie *m)
{
	if (!m)
		return;
	for (unsigned i = 0; m->track && i < m->n; i++)
		movie_track_release(&m->track[i]);
	free(m->track);
	for (unsigned i = 0; m->axes && i < m->n; i++)
		free(m->axes[i].dev);
	free(m->axes);
	if (m->surface)
		cairo_surface_destroy(m->surface);
	free(m);
}

uint64_t movie_frames(const struct movie *m)
{
	return m->frames;
}

uint64_t movie_step_ns(const struct movie *m)
{
	return m->step;
}

uint64_t movie_window_ns(const struct movie *m)
{
	return m->window;
}

double movie_speed(const struct movie *m)
{
	return movie_speed_of(m);
}

uint64_t movie_unshown(const struct movie *m, unsigned i)
{
	return i < m->n ? m->track[i].unshown : 0;
}

uint64_t movie_undrawn(const struct movie *m, unsigned i)
{
	return i < m->n ? m->track[i].undrawn : 0;
}

uint64_t movie_outside(const struct movie *m, unsigned i)
{
	return i < m->n ? m->track[i].outside : 0;
}

/* The next batch of run t's events: 1, or 0 at the end of its trace (which ends the track). */
static int next_batch(struct movie_track *t, struct bt_reader *rd, struct iot_err *e)
{
	int ret = bt_reader_next_batch(rd, &t->batch, &t->nbatch, e);

	t->pos = 0;
	if (ret < 0)
		return ret;
	if (!ret) {
		t->nbatch = 0;
		t->eof = true;
		movie_track_end(t);
	}
	return ret;
}

/* Where run t starts: its first event, notifies aside (before them, only notifies). */
static int find_start(struct movie_track *t, struct bt_reader *rd, struct iot_err *e)
{
	int ret;

	for (;;) {
		while (t->pos < t->nbatch && blk_is_notify(&t->batch[t->pos]))
			t->pos++;
		if (t->pos < t->nbatch) {
			t->start = t->last = t->batch[t->pos].time;
			return 0;
		}
		if ((ret = next_batch(t, rd, e)) <= 0)
			return ret < 0 ? ret
			               : iot_err_set(e, -ENODATA,
			                             "%s: no block events in the trace", t->label);
	}
}

/* After the last frame: count what the trace still holds (a span too short for it). */
static int count_rest(struct movie_track *t, struct bt_reader *rd, struct iot_err *e)
{
	int ret;

	for (;;) {
		for (; t->pos < t->nbatch; t->pos++)
			if (!blk_is_notify(&t->batch[t->pos]))
				t->unshown++;
		if (t->eof)
			return 0;
		if ((ret = next_batch(t, rd, e)) < 0)
			return ret;
	}
}

/* Feed run t every event before now; the end of its trace ends it. */
static int feed_until(struct movie_track *t, struct bt_reader *rd, uint64_t now, struct iot_err *e)
{
	int ret;

	for (;;) {
		while (t->pos < t->nbatch) {
			const struct blk_event *ev = &t->batch[t->pos];

			if (ev->time >= now && !blk_is_notify(ev))
				return 0;
			movie_track_feed(t, ev);
			t->pos++;
		}
		if (t->eof)
			return 0;
		if ((ret = next_batch(t, rd, e)) <= 0)
			return ret;
	}
}

int movie_render(struct movie *m, struct bt_reader *const *rd, const char *path,
                 movie_progress_fn progress, void *ctx, struct iot_err *e)
{
	struct movie_enc *enc;
	cairo_t *cr;
	int ret;

	for (unsigned i = 0; i < m->n; i++)
		if ((ret = bt_reader_prefetch(rd[i], e)) ||
		    (ret = find_start(&m->track[i], rd[i], e)))
			return ret;
	ret = movie_enc_open(&enc, path, m->o.format, m->o.width, m->o.height, m->o.fps, e);
	if (ret)
		return ret;
	cr = cairo_create(m->surface);
	for (uint64_t k = 0; k < m->frames && !ret; k++) {
		for (unsigned i = 0; i < m->n && !ret; i++) {
			struct movie_track *t = &m->track[i];

			ret = feed_until(t, rd[i], movie_frame_end(m, t, k), e);
			if (!ret)
				movie_track_frame_done(t, k);
		}
		if (ret)
			break;
		movie_draw_frame(m, cr, k);
		cairo_surface_flush(m->surface);
		ret = movie_enc_frame(enc, cairo_image_surface_get_data(m->surface),
		                      cairo_image_surface_get_stride(m->surface), e);
		if (!ret && progress && progress(ctx, k + 1, m->frames))
			ret = iot_err_set(e, -EINTR, "interrupted");
	}
	for (unsigned i = 0; i < m->n && !ret; i++)
		ret = count_rest(&m->track[i], rd[i], e);
	if (!ret && cairo_status(cr))
		ret = iot_err_set(e, -ENOMEM, "drawing: %s",
		                  cairo_status_to_string(cairo_status(cr)));
	cairo_destroy(cr);
	if (ret) {
		movie_enc_abort(enc);
		return ret;
	}
	return movie_enc_close(enc, e);
}
