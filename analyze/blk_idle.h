/* SPDX-License-Identifier: MIT */
/* Idle-gap sink: stretches with nothing in flight at a device, at least a threshold long. */
#ifndef IOTAPE_ANALYZE_BLK_IDLE_H
#define IOTAPE_ANALYZE_BLK_IDLE_H

#include "analyze/blk_sink.h"

enum blk_gap_end {
	BLK_GAP_ISSUE, /* an issue (D) ended it */
	BLK_GAP_END,   /* the trace ended while the device was idle */
};

struct blk_gap {
	uint64_t start, end; /* ns, trace clock */
	uint64_t queued_ns;  /* end minus the first Q/I of the device during the gap, or 0 */
	uint32_t pid;        /* pid of the issue that ended it */
	uint8_t queued;      /* a request was queued during the gap (not yet issued) */
	uint8_t ended_by;    /* enum blk_gap_end */
	uint8_t at_start;    /* the gap began with the trace */
};

struct blk_idle_dev {
	unsigned inflight;
	int known;           /* a D or C was seen: before that the depth is unknown */
	uint64_t idle_since; /* valid while inflight == 0 */
	uint64_t first_q;    /* first Q/I during the current idle stretch, UINT64_MAX if none */
	uint64_t gaps, total_ns;
	struct hist h;
	struct blk_gap *top; /* longest first, at most opts.top */
	unsigned ntop;
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

#endif
