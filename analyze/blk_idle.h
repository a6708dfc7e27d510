/* SPDX-License-Identifier: MIT */
/* Idle-gap sink: stretches with nothing in flight at a device, at least a threshold long. */
#ifndef IOTAPE_ANALYZE_BLK_IDLE_H
#define IOTAPE_ANALYZE_BLK_IDLE_H

#include "analyze/blk_sink.h"

enum blk_gap_end {
	BLK_GAP_ISSUE, /* an issue (D) ended it */
	BLK_GAP_END,   /* the trace ended while the device was idle */
};

/* The IO at an edge of a gap: the request whose completion (or requeue) left the device idle,
 * or the one whose issue ended the gap. */
struct blk_gap_io {
	uint64_t sector;
	uint32_t bytes;
	uint32_t flags;  /* BLK_F_* of the record: direction, flush, FUA, sync, ... */
	uint32_t pid;    /* the process that issued it (its D record), when has_pid */
	uint8_t action;  /* BLK_A_COMPLETE or BLK_A_REQUEUE (before), BLK_A_ISSUE (after); 0 none */
	uint8_t has_pid; /* the issue was found (before: among the device's last issues) */
};

struct blk_gap {
	uint64_t start, end; /* ns, trace clock */
	uint64_t queued_ns;  /* end minus the first Q/I of the device during the gap, or 0 */
	uint32_t pid;        /* pid of the issue that ended it */
	uint8_t queued;      /* a request was queued during the gap (not yet issued) */
	uint8_t ended_by;    /* enum blk_gap_end */
	uint8_t at_start;    /* the gap began with the trace */
	struct blk_gap_io
	    before;              /* the IO that began it (action 0: the gap began with the trace) */
	struct blk_gap_io after; /* the IO that ended it (action 0: the trace ended first) */
};

/* Issues remembered per device, to name the process of the IO that left it idle. */
#define BLK_IDLE_ISSUERS 16u

struct blk_idle_dev {
	unsigned inflight;
	int known;           /* a D or C was seen: before that the depth is unknown */
	uint64_t idle_since; /* valid while inflight == 0 */
	uint64_t first_q;    /* first Q/I during the current idle stretch, UINT64_MAX if none */
	/*
	 * Activity so far, read through blk_idle_activity() (what this device did during another
	 * device's gap): time with a request in flight, and completions with data.
	 */
	uint64_t busy_since; /* valid while inflight > 0 */
	uint64_t busy_ns;    /* busy time before busy_since */
	uint64_t ios, bytes;
	struct blk_gap_io last; /* the completion (or requeue) that left the device idle */
	unsigned nissued;       /* issues seen; the last BLK_IDLE_ISSUERS in issued[] */
	struct {
		uint64_t sector;
		uint32_t pid;
	} issued[BLK_IDLE_ISSUERS];
	uint64_t gaps, total_ns;
	struct hist_few h;
	struct blk_gap *top; /* longest first, at most opts.top */
	unsigned ntop;
	unsigned idx; /* the device's index */
};

struct blk_idle;

struct blk_idle *blk_idle_new(const struct blk_opts *o);
void blk_idle_free(struct blk_idle *s);
void blk_idle_feed(struct blk_idle *s, unsigned dev, const struct blk_event *ev);
/* Ends the open gaps at end_ns (trailing idle time counts). */
void blk_idle_finish(struct blk_idle *s, uint64_t start_ns, uint64_t end_ns);
const struct blk_idle_dev *blk_idle_dev(const struct blk_idle *s, unsigned dev);
int blk_idle_to_json(const struct blk_idle *s, unsigned dev, json_t *obj,
                     const struct blk_json_ctx *ctx);
/*
 * Gaps as they happen, for a drawing that follows the trace (iotape movie): fn is called with
 * every gap the sink counts, when it ends (an issue, or blk_idle_finish()).
 */
typedef void (*blk_gap_fn)(void *ctx, unsigned dev, const struct blk_gap *g);
void blk_idle_on_gap(struct blk_idle *s, blk_gap_fn fn, void *ctx);
/*
 * The gap dev is in at time now, while it lasts: 1 with g's start and end (now) filled when
 * nothing is in flight and the stretch is already at least the threshold long, so the sink
 * will count it however it ends. 0 when busy, shorter, or not known yet (no issue or
 * completion seen: a first completion would show the device was busy all along).
 */
int blk_idle_current(const struct blk_idle *s, unsigned dev, uint64_t now, struct blk_gap *g);

/* What a device had done by time t (t at or after its last event): blk_idle_activity(). */
struct blk_idle_act {
	uint64_t busy_ns;  /* time with a request in flight since the trace began */
	uint64_t ios;      /* completions with data */
	uint64_t bytes;    /* their bytes */
	unsigned inflight; /* requests in flight at t */
};
/* 0 with a filled, or -ENOENT for a device not seen yet (it did nothing so far). */
int blk_idle_activity(const struct blk_idle *s, unsigned dev, uint64_t t, struct blk_idle_act *a);
/*
 * Told when a device becomes idle (its last request in flight completes or is requeued, or a
 * completion shows it was busy until then), at time t: the start of a stretch that may become
 * a gap, when someone must note what the other devices had done by then (analyze/idle_explain).
 * Called only while the sink has more than one device, or always with always set.
 */
typedef void (*blk_idle_fn)(void *ctx, unsigned dev, uint64_t t);
void blk_idle_on_idle(struct blk_idle *s, blk_idle_fn fn, void *ctx, int always);

/* ------------------------------------------------------------------------------------- */
/* Internal: the hot path, inline so that the pass compiles it into its loop             */
/* (blk_analysis.c), act being ev->action as a constant there; everyone else calls       */
/* blk_idle_feed().                                                                      */

struct blk_idle {
	struct blk_opts o;
	struct blk_idle_dev **dev;
	unsigned ndev;  /* room in dev[] */
	unsigned nseen; /* devices seen */
	uint64_t start;
	int have_start;
	int finished;
	blk_gap_fn on_gap;
	void *on_gap_ctx;
	blk_idle_fn on_idle;
	void *on_idle_ctx;
	unsigned on_idle_min; /* on_idle is called while nseen > on_idle_min */
};

__attribute__((cold)) struct blk_idle_dev *blk_idle_new_dev(struct blk_idle *s, unsigned dev);
void blk_idle_end_gap(struct blk_idle *s, struct blk_idle_dev *d, const struct blk_event *ev);
/* A completion with nothing in flight: the device was busy until now (uncommon). */
void blk_idle_busy_until(struct blk_idle *s, struct blk_idle_dev *d, const struct blk_event *ev);

static inline __attribute__((always_inline)) void blk_idle_feed_inline(struct blk_idle *s,
                                                                       unsigned dev,
                                                                       const struct blk_event *ev,
                                                                       const unsigned act)
{
	struct blk_idle_dev *d;

	if (blk_is_notify(ev))
		return;
	if (!s->have_start) {
		s->start = ev->time;
		s->have_start = 1;
	}
	switch (act) {
	case BLK_A_QUEUE:
	case BLK_A_INSERT:
	case BLK_A_ISSUE:
	case BLK_A_COMPLETE:
	case BLK_A_REQUEUE:
		break;
	default:
		return;
	}
	d = dev < s->ndev && s->dev[dev] ? s->dev[dev] : blk_idle_new_dev(s, dev);
	if (!d)
		return;
	switch (act) {
	case BLK_A_QUEUE:
	case BLK_A_INSERT:
		if (!d->inflight && d->first_q == UINT64_MAX)
			d->first_q = ev->time;
		break;
	case BLK_A_ISSUE:
		/* most issues follow a short stretch, or none: the gap is built only when it counts
		 */
		if (!d->inflight) {
			if (ev->time > d->idle_since &&
			    ev->time - d->idle_since >= s->o.idle_threshold_ns)
				blk_idle_end_gap(s, d, ev);
			d->busy_since = ev->time;
		}
		{
			unsigned k = d->nissued++ % BLK_IDLE_ISSUERS;

			d->issued[k].sector = ev->sector;
			d->issued[k].pid = ev->pid;
		}
		d->known = 1;
		d->inflight++;
		break;
	case BLK_A_COMPLETE:
	case BLK_A_REQUEUE:
		if (act == BLK_A_COMPLETE && blk_ends_flush_seq(ev))
			break; /* nothing issued ends here */
		if (act == BLK_A_COMPLETE) {
			d->ios += ev->bytes != 0;
			d->bytes += ev->bytes;
		}
		/* a completion with nothing in flight proves the device was busy until now */
		if (__builtin_expect(!d->inflight, 0)) {
			blk_idle_busy_until(s, d, ev);
			break;
		}
		d->known = 1;
		if (--d->inflight)
			break;
		d->busy_ns += ev->time > d->busy_since ? ev->time - d->busy_since : 0;
		d->idle_since = ev->time;
		d->first_q = UINT64_MAX;
		d->last.sector = ev->sector;
		d->last.bytes = ev->bytes;
		d->last.flags = ev->flags;
		d->last.action = (uint8_t)act;
		if (__builtin_expect(s->on_idle != NULL, 0) && s->nseen > s->on_idle_min)
			s->on_idle(s->on_idle_ctx, d->idx, ev->time);
		break;
	}
}

#endif
