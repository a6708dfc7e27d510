/* SPDX-License-Identifier: MIT */
/* The scheduler's state, shared by replay.c and the trace-pending window (pending.c) only. */
#ifndef IOTAPE_REPLAY_SCHED_H
#define IOTAPE_REPLAY_SCHED_H

#include <sys/uio.h>

#include "replay/clock.h"
#include "replay/internal.h"

/* An IO's own cache lines: an engine's thread writes the first while the scheduler fills the
 * IO of the next slot, which must not be the same line. */
struct rp_slot {
	_Alignas(64) struct rp_io io;
};

/* A trace IO issued (D, or queued Q) whose C has not been seen yet. */
struct pend {
	uint64_t sector;
	uint32_t dev;
	uint32_t bytes;
	long slot;     /* the replay IO while it is in flight, else -1 */
	uint32_t next; /* issue mode: the next younger live IO of its bucket, or PEND_NIL */
	bool live;
};

/* Issue mode finds a C's IO by device and sector in a hash of the live window entries, one
 * chain per bucket in trace order, instead of scanning the window (which cost 1.5 % of an
 * afap replay's CPU at a depth of 40) */
#define PEND_BUCKETS 16384u
#define PEND_NIL UINT32_MAX

/* Events kept from a batch of the trace while looking ahead of the IO being replayed, to see
 * whether the trace completes it before the next IO (replay.c, dependent()); a longer look
 * finds the IOs independent */
#define RP_AHEAD 64u
/* The pattern for writes larger than a slot, doubled from twice a slot up to 4 GiB */
#define RP_BIGPAT_MAX 16u

struct rp {
	const struct replay_opts *o;
	const struct rp_source *src;
	struct replay_stats *st;
	struct iot_err *e;
	const struct rp_engine_ops *ops;
	struct rp_engine *eng;
	struct rp_target *tgts;
	unsigned ntgts;
	long *map_tgt; /* per o->maps entry: target index */
	long default_tgt;
	/* slots: one rp_io and one registered buffer each */
	struct rp_slot *slots;
	unsigned *free_slots, nfree, depth;
	uint8_t *mem; /* depth read buffers, then the write pattern */
	size_t mem_len;
	struct iovec *iov;
	/* IOs larger than a slot read into the slot's own buffer (grown to the largest it read,
	 * kept) and write from one pattern (grown to the largest write, filled once; the ones it
	 * outgrew kept for the IOs still using them): nothing allocated or filled per IO; both on
	 * huge pages where the kernel gives them (bufs.c) */
	struct rp_bufs bufs;
	struct rp_buf *big;
	struct rp_buf bigpat[RP_BIGPAT_MAX];
	unsigned nbigpat;
	/* the trace: the source's batch [cur, end) not replayed yet (one event in one when the
	 * source has no batches), after ahead_ev[ahead_pos, ahead_n): the rest of an earlier
	 * batch that looking ahead went past; src_end: what the source last said (1 more, 0 the
	 * end, -errno) */
	const struct blk_event *cur, *end;
	struct blk_event one;
	struct blk_event ahead_ev[RP_AHEAD];
	unsigned ahead_pos, ahead_n;
	int src_end;
	/* trace-pending window: a ring indexed by absolute counters */
	struct pend *pend;
	uint64_t pend_head, pend_tail, pend_live;
	uint32_t *bucket_head, *bucket_tail; /* issue mode: chains of live entries, or NULL */
	uint32_t lone; /* issue mode: the one live entry, kept out of the chains, or PEND_NIL */
	/* a depth-1 stretch: the IO done in this thread while the window was empty, whose C the
	 * look-ahead found before the next IO, is kept out of the window (replay_one()); the C,
	 * when it comes, only ends it */
	bool ghost;
	uint32_t ghost_dev;
	uint64_t ghost_sector;
	/* the dependency rule: IOs the trace had completed that the replay has not */
	uint64_t outstanding;
	unsigned inflight, batch;
	uint64_t t0, trace_t0, trace_last, last_done, seq;
	struct rp_clock clk; /* original timing: due times */
	bool started;
	uint64_t next_progress;
	int timerslack;
	uint64_t spin_ns;
	uint64_t lat_pending, lag_pending; /* sums not yet in st->lat, st->lag (settle()) */
	bool hooks; /* an observer, the recorder, --capture's comparison or progress is called */
};

/* The write pattern for writes that fit a slot, after the slots' read buffers */
static inline void *rp_pattern(struct rp *r)
{
	return r->mem + (size_t)r->depth * RP_SLOT_BYTES;
}

/* ---- setup and teardown (setup.c) ---- */

/* The slots and buffers, the window, the targets (and their recording), the engine: 0 or
 * -errno with the error set; rp_teardown() after either. */
int rp_setup(struct rp *r);
void rp_teardown(struct rp *r);

/* ---- the trace, read ahead (ahead.c) ---- */

/* The source's next events into [cur, end): a batch, or one event. 1, 0 at the end, -errno. */
int rp_fetch(struct rp *r);
/* Whether the trace completes the IO at window entry pend (-1: the trace IO at dev and sector,
 * were it the window's only live entry) before it issues another (ahead.c says how far it
 * looks). */
bool rp_dependent(struct rp *r, long pend, uint32_t dev, uint64_t sector);

/* ---- the trace-pending window (pending.c) ---- */

/* The trace IO ev (a D, or a Q in queue mode) enters the window; slot is the replay IO doing
 * it, or -1 when it is not replayed. Returns its window index. */
long rp_pend_add(struct rp *r, uint32_t dev, uint64_t sector, uint32_t bytes, long slot);
/* A C event of the trace: the IOs it completes may no longer hold the replay back. */
void rp_pend_on_complete(struct rp *r, const struct blk_event *ev);
/* Whether the C event ev, were it next, would complete the window's entry idx. */
bool rp_pend_completes(struct rp *r, long idx, const struct blk_event *ev);

/* Whether the C event ev would complete the trace IO at (dev, sector) were that the window's
 * only live entry: the match of rp_pend_on_complete() (issue mode: device and sector; queue
 * mode: the request's range) */
static inline bool rp_pend_lone_completes(const struct rp *r, uint32_t dev, uint64_t sector,
                                          const struct blk_event *ev)
{
	if (ev->dev != dev)
		return false;
	if (r->bucket_head || ev->bytes == 0)
		return ev->sector == sector;
	return sector >= ev->sector && sector < ev->sector + ev->bytes / 512;
}

#endif
