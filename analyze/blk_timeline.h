/* SPDX-License-Identifier: MIT */
/* Timeline sink: throughput, IOPS, seeks, queue depth and idle time per interval, per device. */
#ifndef IOTAPE_ANALYZE_BLK_TIMELINE_H
#define IOTAPE_ANALYZE_BLK_TIMELINE_H

#include "analyze/blk_sink.h"
#include "common/bins.h"

struct blk_bin {
	uint64_t read_bytes, write_bytes; /* completed, with data (not discards, write-zeroes) */
	uint64_t ios;                     /* completions with data */
	uint64_t write_ios;               /* the writes among them */
	uint64_t seeks;                   /* issues at a non-zero distance from the previous one */
	uint64_t idle_ns;                 /* time inside idle gaps of at least the threshold */
	uint64_t depth_area;              /* integral of the depth, depth x ns */
	uint64_t depth_max;               /* most requests outstanding at once in the bin */
};

struct blk_timeline;

struct blk_timeline *blk_timeline_new(const struct blk_opts *o);
void blk_timeline_free(struct blk_timeline *t);
void blk_timeline_feed(struct blk_timeline *t, unsigned dev, const struct blk_event *ev);
void blk_timeline_finish(struct blk_timeline *t, uint64_t start_ns, uint64_t end_ns);
/* Effective bin width (doubles each time the bin count would pass opts.max_bins). */
uint64_t blk_timeline_interval(const struct blk_timeline *t);
unsigned blk_timeline_widened(const struct blk_timeline *t);
/* The bins' clock: bin k starts at start + k * interval (every device alike). */
const struct bins *blk_timeline_clock(const struct blk_timeline *t);
/* Bins of the whole trace (same for every device once finished). */
uint64_t blk_timeline_nbins(const struct blk_timeline *t);
/* Bin idx of dev; a zero bin when the device has none there. */
struct blk_bin blk_timeline_bin(const struct blk_timeline *t, unsigned dev, uint64_t idx);
/* One bin as a JSON object (docs/json.md, timeline[]). */
json_t *blk_timeline_bin_json(const struct blk_timeline *t, unsigned dev, uint64_t k);
/* The whole "timeline" array of dev (memory grows with the bins: see blk_analysis_to_json). */
int blk_timeline_to_json(const struct blk_timeline *t, unsigned dev, json_t *obj);

/* ------------------------------------------------------------------------------------- */
/* Internal: the hot path, inline so that the pass compiles it into its loop             */
/* (blk_analysis.c), act being ev->action as a constant there; everyone else calls       */
/* blk_timeline_feed().                                                                  */

struct tl_dev {
	struct blk_bin *bins;
	uint64_t nbins; /* allocated */
	unsigned inflight;
	int known;
	uint64_t last_change, idle_since;
	uint64_t last_end; /* seeks */
};

struct blk_timeline {
	struct blk_opts o;
	struct tl_dev **dev;
	unsigned ndev;
	struct bins clock; /* relative to the first event, max_bins bins */
	uint64_t nseries;  /* devices with bins: they share max_bins_total */
	uint64_t end;
	int have_start;
	uint64_t cur_lo, cur_hi, cur_idx; /* cache: the bin of the last lookup */
	int finished;
};

__attribute__((cold)) void blk_timeline_feed_slow(struct blk_timeline *t, unsigned dev,
                                                  const struct blk_event *ev);

/* After the spreads, both paths: the event's own counts in its bin, the device's state. */
static inline __attribute__((always_inline)) void blk_timeline_account(struct tl_dev *d,
                                                                       struct blk_bin *bin,
                                                                       const struct blk_event *ev,
                                                                       const unsigned act)
{
	d->known = 1;
	if (act == BLK_A_ISSUE) {
		if (++d->inflight > bin->depth_max)
			bin->depth_max = d->inflight;
		if (ev->bytes >> 9) {
			if (d->last_end != UINT64_MAX && ev->sector != d->last_end)
				bin->seeks++;
			d->last_end = ev->sector + (ev->bytes >> 9);
		}
		return;
	}
	if (act == BLK_A_COMPLETE && blk_ends_flush_seq(ev))
		return; /* nothing issued ends here */
	if (d->inflight)
		d->inflight--;
	if (!d->inflight)
		d->idle_since = ev->time;
	/* data only: a discard's or write-zeroes' range is no transfer (as the counts sink's
	 * throughput) */
	if (act == BLK_A_COMPLETE && ev->bytes &&
	    !(ev->flags & (BLK_F_DISCARD | BLK_F_WRITE_ZEROES))) {
		bin->ios++;
		if (blk_is_write(ev)) {
			bin->write_ios++;
			bin->write_bytes += ev->bytes;
		} else {
			bin->read_bytes += ev->bytes;
		}
	}
}

/*
 * Nearly every issue or completion falls in the bin of the one before it, with the time
 * since the device's last change inside that bin too: then each spread is one addition to
 * that bin. (An idle stretch starts at a change, so it lies inside too.) Anything else takes
 * blk_timeline_feed_slow(), which does the same in general.
 */
static inline __attribute__((always_inline)) void
blk_timeline_feed_inline(struct blk_timeline *t, unsigned dev, const struct blk_event *ev,
                         const unsigned act)
{
	uint64_t ts = ev->time;
	struct tl_dev *d;
	struct blk_bin *bin;

	if ((act != BLK_A_ISSUE && act != BLK_A_COMPLETE && act != BLK_A_REQUEUE) ||
	    blk_is_notify(ev) || !t->have_start || dev >= t->ndev || !(d = t->dev[dev]) ||
	    ts < t->cur_lo || ts >= t->cur_hi || t->cur_idx >= d->nbins ||
	    (ts > d->last_change && d->last_change < t->cur_lo)) {
		blk_timeline_feed_slow(t, dev, ev);
		return;
	}
	if (ts > t->end)
		t->end = ts;
	bin = &d->bins[t->cur_idx];
	if (ts > d->last_change) {
		bin->depth_area += (uint64_t)d->inflight * (ts - d->last_change);
		if (d->inflight > bin->depth_max)
			bin->depth_max = d->inflight;
		d->last_change = ts;
	}
	if (act == BLK_A_ISSUE && !d->inflight && ts > d->idle_since &&
	    ts - d->idle_since >= t->o.idle_threshold_ns)
		bin->idle_ns += ts - d->idle_since;
	blk_timeline_account(d, bin, ev, act);
}

#endif
