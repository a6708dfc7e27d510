/* SPDX-License-Identifier: MIT */
/* Counts and bytes per action and direction, per device, as blkparse totals them. */
#ifndef IOTAPE_ANALYZE_BLK_COUNTS_H
#define IOTAPE_ANALYZE_BLK_COUNTS_H

#include "analyze/blk_sink.h"

#define BLK_COUNTS_MAX_CPUS 4096u

/* Per action (enum blk_action; BLK_A_NONE collects unknown codes) and direction (0 read,
 * 1 write: the record's write category bit, as blkparse decides it). */
struct blk_action_counts {
	uint64_t n[BLK_A_MAX][2];
	uint64_t bytes[BLK_A_MAX][2];
};

struct blk_counts_dev {
	struct blk_action_counts fs; /* file-system requests */
	struct blk_action_counts
	    pc;          /* passthrough (BLK_F_PC) requests, which blkparse keeps apart */
	uint64_t events; /* non-notify records: blkparse's "Events (M,m): N entries" */
	uint64_t done[2], done_bytes[2];     /* completions carrying data, per direction */
	uint64_t discards, discard_bytes;    /* completed discards (also counted as writes) */
	unsigned cur_depth[2], max_depth[2]; /* blkparse's "Read depth" / "Write depth" */
	uint64_t skips, skip_ranges;         /* per-CPU sequence gaps ("Skips: R forward (N)") */
	uint64_t *last_seq;                  /* per CPU; UINT64_MAX: none seen yet */
	unsigned nseq;
};

struct blk_counts;

struct blk_counts *blk_counts_new(void);
void blk_counts_free(struct blk_counts *c);
void blk_counts_feed(struct blk_counts *c, unsigned dev, const struct blk_event *ev);
/* NULL when the device was never fed. */
const struct blk_counts_dev *blk_counts_dev(const struct blk_counts *c, unsigned dev);
/* The device's JSON keys: events, skips, reads, writes, discards, actions, pc_actions,
 * blkparse. */
int blk_counts_to_json(const struct blk_counts *c, unsigned dev, json_t *obj);

#endif
