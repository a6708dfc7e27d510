/* SPDX-License-Identifier: MIT */
/* iotape movie: seekwatcher-style movies of block IO, drawn with cairo, encoded by ffmpeg. */
#ifndef IOTAPE_MOVIE_MOVIE_H
#define IOTAPE_MOVIE_MOVIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct bt_reader;

#define MOVIE_MAX_RUNS 16u
#define MOVIE_MAX_DEVS 8u        /* drawn per run; the others are left out */
#define MOVIE_MAX_FRAMES 100000u /* 55 minutes at 30 frames a second */
#define MOVIE_DEFAULT_FPS 30u
#define MOVIE_DEFAULT_LENGTH_NS 20000000000ull
#define MOVIE_DEFAULT_WINDOW_FRAMES_S 2u /* default window: what 2 s of the movie show */

/*
 * What the axes need before the first frame (axes that jump while a movie plays cannot be
 * read): the run's time span and each device's sector range. A run directory's manifest says
 * it (the capture records its trace's first and last event and the sectors issued), so its
 * trace is read once, while the frames are drawn; a bare trace gets a first pass of its own.
 * Devices are sorted by major, minor (as in `iotape analyze`).
 */
struct movie_probe_dev {
	uint32_t dev;
	uint64_t lo, hi; /* sectors issued: [lo, hi), hi > lo */
	uint64_t issues; /* issues with data */
};

struct movie_probe {
	uint64_t first; /* the first event, notifies aside (trace clock) */
	uint64_t span;  /* latest event - first event, notifies aside */
	bool from_manifest;
	unsigned ndev;
	struct movie_probe_dev *dev;
};

struct manifest;

/* The first pass: read every event of rd. -ENODATA (e says so) for a trace without block
 * events. */
int movie_probe_read(struct movie_probe *p, struct bt_reader *rd, struct iot_err *e);
/*
 * From a run's manifest, without reading the trace: the capture recorded each device's first
 * and last event and the sectors issued (the same axes as the first pass gives). -ENODATA
 * (e says why) for a run captured before iotape recorded them. With the trace's files (st,
 * may be NULL), a manifest that does not describe them is -ESTALE (e says how: a device
 * with events but no trace file, a trace file of a device it does not name, a sector range
 * of one sector for several IOs, where every IO would be drawn at the edge): the caller
 * makes the first pass instead.
 */
struct bt_stats;
int movie_probe_from_manifest(struct movie_probe *p, const struct manifest *mf,
                              const struct bt_stats *st, struct iot_err *e);
void movie_probe_release(struct movie_probe *p);

enum movie_format {
	MOVIE_MP4,  /* H.264 (libx264), yuv420p */
	MOVIE_WEBM, /* VP9 (libvpx-vp9), yuv420p */
};

struct movie_opts {
	unsigned width, height; /* even, at least 320 x 180 */
	unsigned fps;
	uint64_t length_ns;         /* the movie's length; 0 with speed */
	double speed;               /* trace seconds per movie second; 0 with length_ns */
	uint64_t window_ns;         /* the trailing window, trace time; 0: 2 s of the movie */
	uint64_t idle_threshold_ns; /* the idle sink's threshold */
	enum movie_format format;
};

void movie_opts_init(struct movie_opts *o);

/*
 * Whether the ffmpeg program (which encodes the frames) is on PATH with the encoder f needs:
 * 0; -ENOENT without the program, -ENOSYS without the encoder, -EIO when it fails (e: why).
 */
int movie_enc_check(enum movie_format f, struct iot_err *e);

/* What the movie shows of one run besides its events. */
struct movie_run_info {
	const char *label;
	const char *const *devname; /* one per probe device (NULL: "MAJ,MIN") */
	/* where its first event falls on the movie's clock: a run set's host, after the earliest
	 * host's first event (its panel starts that much later, to the frame); 0 for runs
	 * compared side by side, each from its own first event */
	uint64_t lag_ns;
};

/* Each of p's devices' names in a panel (movie/panels.c): "loop0 (ext4)", "loop4 osd.0 data
 * (xfs)" (the name, the role capture found, the filesystem) from the run's manifest mf, else
 * (mf NULL, or a device it does not name) "MAJ,MIN". *out: p->ndev strings (at least one slot),
 * freed with movie_dev_names_free(). 0 or -ENOMEM (nothing left to free). */
int movie_dev_names(const struct movie_probe *p, const struct manifest *mf, char ***out);
void movie_dev_names_free(char **names, unsigned n);
/*
 * A run set's panels on the set's clock: panel i's first event first[i] put on its host's
 * realtime clock by the clock pairs of its manifest mf[i] less offset_ns[i] (its CLOCK_REALTIME
 * minus the capturing host's, as runset.json measured: ie_clock_to_real(), as analyze and
 * report place a host), info[i].lag_ns its lag after the earliest panel's. A panel whose
 * manifest is NULL or has no clock pairs cannot be placed: placed[i] false, its lag 0 (it
 * starts with the movie).
 */
void movie_set_lags(const struct manifest *const *mf, const uint64_t *first,
                    const int64_t *offset_ns, size_t n, struct movie_run_info *info, bool *placed);

struct movie;

/*
 * Plan the movie of n runs (n <= MOVIE_MAX_RUNS) from their probes: the clock (trace ns per
 * frame, same for every run, each run from its own first event after its lag_ns), the frame
 * count, the layout.
 * The probes and infos must outlive the movie. 0, -EINVAL (e: why: too many frames, a frame
 * too small for the panels, ...) or -ENOMEM.
 */
int movie_new(struct movie **out, const struct movie_opts *o, const struct movie_probe *probes,
              const struct movie_run_info *info, unsigned n, struct iot_err *e);
void movie_free(struct movie *m);

uint64_t movie_frames(const struct movie *m);
uint64_t movie_step_ns(const struct movie *m);   /* trace time per frame */
uint64_t movie_window_ns(const struct movie *m); /* the trailing window as drawn */
double movie_speed(const struct movie *m);       /* trace seconds per movie second */

/* Called after each frame; a non-zero return stops the movie (movie_render() gives -EINTR). */
typedef int (*movie_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/*
 * rd[i] reads run i from its start (again, after movie_probe_read()). Frames are drawn as the
 * events arrive and encoded into path (the container named by o->format, whatever path's
 * name). Memory: the trailing window's pixels and the per-frame figures, not the trace.
 */
int movie_render(struct movie *m, struct bt_reader *const *rd, const char *path,
                 movie_progress_fn progress, void *ctx, struct iot_err *e);
/* Events of run i after the movie's last frame (a manifest whose span is short of its trace):
 * read, not drawn. */
uint64_t movie_unshown(const struct movie *m, unsigned i);
/* Events of run i on devices its axes do not have (a manifest that named others): read, not
 * drawn; and issued IOs outside their device's sector range, drawn at its edge. */
uint64_t movie_undrawn(const struct movie *m, unsigned i);
uint64_t movie_outside(const struct movie *m, unsigned i);

#endif
