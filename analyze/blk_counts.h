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
	uint64_t wzero, wzero_bytes;         /* completed write-zeroes (also counted as writes) */
	uint64_t flushes;                    /* completed flush requests (no data) */
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
/* Completed writes that carry data (blkparse's writes less the discards and write-zeroes, whose
 * ranges are no transfer), and their bytes: the JSON's "data_writes". */
uint64_t blk_counts_data_writes(const struct blk_counts_dev *d);
uint64_t blk_counts_data_write_bytes(const struct blk_counts_dev *d);
/* The device's JSON keys: events, skips, reads, writes, data_writes, discards, write_zeroes,
 * flushes, actions, pc_actions, blkparse. */
int blk_counts_to_json(const struct blk_counts *c, unsigned dev, json_t *obj);

/* ------------------------------------------------------------------------------------- */
/* Internal: the hot path, inline so that the pass compiles it into its loop             */
/* (blk_analysis.c), act being ev->action as a constant there; everyone else calls       */
/* blk_counts_feed().                                                                    */

struct blk_counts {
	struct blk_counts_dev **dev;
	unsigned ndev;
};

/* Off the hot path: a device's state on its first event, room for a new CPU. */
__attribute__((cold)) struct blk_counts_dev *blk_counts_new_dev(struct blk_counts *c, unsigned dev);
__attribute__((cold)) int blk_counts_grow_seq(struct blk_counts_dev *d, unsigned cpu);

/*
 * blkparse counts a gap in a CPU's sequence numbers as a skip (check_sequence): the number of
 * missing records and the number of gaps ("N forward"). Records arrive per CPU in order, so a
 * later record never fills an earlier gap here.
 */
static inline void blk_counts_track_seq(struct blk_counts_dev *d, const struct blk_event *ev)
{
	/* keyed by the per-CPU file, as blkparse keys them: a record whose CPU field is not its
	 * file's (src set, rare) is in that file's series, no gap */
	const uint32_t cpu = __builtin_expect(ev->src != 0, 0) ? (uint32_t)ev->src - 1 : ev->cpu;
	uint64_t last;

	if (cpu >= d->nseq && (cpu >= BLK_COUNTS_MAX_CPUS || blk_counts_grow_seq(d, cpu)))
		return;
	last = d->last_seq[cpu];
	if (__builtin_expect(ev->seq == last + 1, 1)) { /* the usual case: the next one */
		d->last_seq[cpu] = ev->seq;
		return;
	}
	if (last != UINT64_MAX) {
		if (ev->seq <= last)
			return;
		if (ev->seq > last + 1) {
			d->skips += ev->seq - last - 1;
			d->skip_ranges++;
		}
	}
	d->last_seq[cpu] = ev->seq;
}

static inline __attribute__((always_inline)) void blk_counts_feed_inline(struct blk_counts *c,
                                                                         unsigned dev,
                                                                         const struct blk_event *ev,
                                                                         const unsigned action)
{
	struct blk_counts_dev *d;
	struct blk_action_counts *ac;
	const unsigned act = action < BLK_A_MAX ? action : BLK_A_NONE;
	unsigned w = blk_is_write(ev);

	if (blk_is_notify(ev))
		return;
	d = (dev < c->ndev && c->dev[dev]) ? c->dev[dev] : blk_counts_new_dev(c, dev);
	if (!d)
		return;
	d->events++;
	blk_counts_track_seq(d, ev);
	ac = (ev->flags & BLK_F_PC) ? &d->pc : &d->fs;
	ac->n[act][w]++;
	ac->bytes[act][w] += ev->bytes;
	switch (act) {
	case BLK_A_ISSUE:
		if (ac == &d->fs && ++d->cur_depth[w] > d->max_depth[w])
			d->max_depth[w] = d->cur_depth[w];
		break;
	case BLK_A_COMPLETE:
		if (ac == &d->fs && d->cur_depth[w])
			d->cur_depth[w]--;
		if (ev->bytes) {
			d->done[w]++;
			d->done_bytes[w] += ev->bytes;
			/* writes for blkparse, but a range covered, not data */
			if (w && (ev->flags & (BLK_F_DISCARD | BLK_F_WRITE_ZEROES))) {
				if (ev->flags & BLK_F_DISCARD) {
					d->discards++;
					d->discard_bytes += ev->bytes;
				} else {
					d->wzero++;
					d->wzero_bytes += ev->bytes;
				}
			}
		} else if ((ev->flags & BLK_F_FLUSH) && ac == &d->fs) {
			d->flushes++; /* an empty flush request (a data write's preflush is a write)
			               */
		}
		break;
	case BLK_A_REQUEUE:
		if (ac == &d->fs && d->cur_depth[w])
			d->cur_depth[w]--;
		break;
	default:
		break;
	}
}

/* {"mbps", "iops"}: the completions with data, bytes and ios, over span_ns (null rates for an
 * empty span) */
json_t *blk_throughput_json(double bytes, double ios, uint64_t span_ns);

#endif
