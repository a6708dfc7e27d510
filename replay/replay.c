/* SPDX-License-Identifier: MIT */
/* The replay scheduler: trace events in, IO out, in trace order, on one clock, under the
 * dependency rule (docs/replay.md) and the depth cap. Memory is bounded by the depth and the
 * trace-pending window, whatever the trace's length. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/clock.h"
#include "replay/engine.h"
#include "replay/sched.h"

#define AFAP_BATCH 16u /* IOs per submission when nothing waits on time */
#define STOP_POLL_NS RP_STOP_POLL_NS
#define STOPPED 1 /* from the waits: the replay was asked to stop */
#define REAP_MAX 64u

#define cpu_relax rp_cpu_relax

static long find_target(struct rp *r, uint32_t dev)
{
	for (unsigned i = 0; i < r->o->nmaps; i++)
		if (r->o->maps[i].srcdev == dev)
			return r->map_tgt[i];
	return r->default_tgt;
}

/* ---- completions ------------------------------------------------------------------- */

/* What the hot path leaves to this: the histograms' counts and sums (hist_add_fast()), and
 * whether the split prediction is an estimate */
static void settle(struct rp *r)
{
	struct replay_stats *st = r->st;

	hist_settle(&st->lat, &r->lat_pending);
	hist_settle(&st->lag, &r->lag_pending);
	st->split_estimate =
	    st->split_ios != st->split_ios_max || st->split_requests != st->split_requests_max;
}

/* inline: its call cost 1 % of the null engine's replay at depth 16 (bench/replay-insns.sh) */
static inline __attribute__((always_inline)) int on_done(struct rp *r, struct rp_io *io,
                                                         unsigned slot)
{
	struct replay_stats *st = r->st;
	int ret = 0;

	r->inflight--;
	if (io->res < 0) {
		int err = (int)io->res;

		if ((err == -EOPNOTSUPP || err == -ENOTTY) &&
		    (io->op == RP_OP_DISCARD || io->op == RP_OP_WZERO)) {
			/* the target cannot: count it as skipped and stop trying */
			if (io->op == RP_OP_DISCARD) {
				io->tgt->no_discard = true;
				st->skipped_discard++;
			} else {
				io->tgt->no_wzero = true;
				st->skipped_wzero++;
			}
			st->ios--;
			st->ops[io->op]--;
			st->inline_ios -= io->done_inline;
		} else {
			if (!st->errors++) {
				st->first_error = err;
				st->first_error_seq = io->seq;
			}
		}
	} else if (io->op == RP_OP_READ || io->op == RP_OP_WRITE) {
		st->bytes += (uint64_t)io->res;
		st->op_bytes[io->op] += (uint64_t)io->res;
	} else {
		st->op_bytes[io->op] += io->len; /* what a discard or write-zeroes covered */
	}
	hist_add_fast(&st->lat, &r->lat_pending, io->t_done - io->t_issue);
	if (io->t_done > r->last_done)
		r->last_done = io->t_done;
	if (__builtin_expect(r->hooks, 0)) {
		if (r->o->observe)
			r->o->observe(r->o->observe_arg, io, true);
		if (io->tgt->rec)
			ret = rp_record_io(io->tgt, io, true, r->t0, r->e);
	}
	if (io->pend >= 0)
		r->pend[io->pend].slot = -1;
	if (io->trace_done)
		r->outstanding--;
	r->free_slots[r->nfree++] = slot;
	return ret;
}

static int reap(struct rp *r, uint64_t wait_until)
{
	struct rp_io *done[REAP_MAX];
	int n, ret;

	if (!r->inflight)
		return 0;
	r->batch = 0;
	n = r->ops->reap(r->eng, done, REAP_MAX, wait_until);
	if (n < 0)
		return iot_err_set(r->e, n, "%s: %s", r->ops->name, strerror(-n));
	for (int i = 0; i < n; i++)
		if ((ret = on_done(r, done[i], (unsigned)((struct rp_slot *)done[i] - r->slots))))
			return ret;
	return n;
}

static int commit(struct rp *r)
{
	int ret;

	if (!r->batch)
		return 0;
	r->batch = 0;
	ret = r->ops->commit(r->eng);
	return ret ? iot_err_set(r->e, ret, "%s: submit: %s", r->ops->name, strerror(-ret)) : 0;
}

static bool stop_asked(const struct rp *r)
{
	return r->o->stop && *r->o->stop;
}

/* Sleep to an absolute deadline, reaping meanwhile; the last SPIN_NS are spun. The sleep goes
 * in slices of STOP_POLL_NS: STOPPED when a stop was asked for meanwhile. */
static int wait_deadline(struct rp *r, uint64_t deadline)
{
	int ret;

	if ((ret = commit(r)))
		return ret;
	for (;;) {
		uint64_t now = iot_now_ns(), until;

		if (now >= deadline)
			return 0;
		if (stop_asked(r))
			return STOPPED;
		if (deadline - now <= r->spin_ns) {
			/* completions are still timestamped while spinning */
			while (iot_now_ns() < deadline) {
				if (r->inflight && (ret = reap(r, 0)) < 0)
					return ret;
				cpu_relax();
			}
			return 0;
		}
		until = deadline - r->spin_ns;
		if (until - now > STOP_POLL_NS)
			until = now + STOP_POLL_NS;
		if (r->inflight) {
			if ((ret = reap(r, until)) < 0)
				return ret;
		} else {
			struct timespec ts = rp_ts(until);

			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
	}
}

/* Wait until the dependency rule and the depth cap let the next IO go; STOPPED when a stop
 * was asked for meanwhile. */
static int wait_ready_slow(struct rp *r)
{
	bool dep = false, depth = false;
	int ret;

	while (r->outstanding || r->inflight >= r->depth || !r->nfree) {
		if (r->outstanding)
			dep = true;
		else
			depth = true;
		if (stop_asked(r))
			return STOPPED;
		if ((ret = commit(r)) || (ret = reap(r, iot_now_ns() + STOP_POLL_NS)) < 0)
			return ret;
	}
	r->st->dep_waits += dep;
	r->st->depth_waits += depth;
	return 0;
}

static inline int wait_ready(struct rp *r)
{
	if (__builtin_expect(r->outstanding || r->inflight >= r->depth || !r->nfree, 0))
		return wait_ready_slow(r);
	return 0;
}

/* ---- one trace IO ------------------------------------------------------------------ */

/* What a trace IO is, by its flags alone; -1 for what is never replayed (passthrough, and
 * empty requests other than flushes). */
static inline int op_of(const struct blk_event *ev)
{
	/* the usual IO, a read or write of some bytes, by one test */
	if (__builtin_expect(
	        !(ev->flags & (BLK_F_PC | BLK_F_DISCARD | BLK_F_WRITE_ZEROES)) && ev->bytes, 1))
		return (ev->flags & BLK_F_WRITE) ? RP_OP_WRITE : RP_OP_READ;
	if (ev->flags & BLK_F_PC)
		return -1;
	if (ev->flags & BLK_F_DISCARD)
		return RP_OP_DISCARD;
	if (ev->flags & BLK_F_WRITE_ZEROES)
		return RP_OP_WZERO;
	if (!ev->bytes)
		return (ev->flags & BLK_F_FLUSH) ? RP_OP_FLUSH : -1;
	return (ev->flags & BLK_F_WRITE) ? RP_OP_WRITE : RP_OP_READ;
}

/* What the event asks for, after the safety and target rules; -1 to skip (counted). */
static int classify(struct rp *r, const struct blk_event *ev, int op, struct rp_target *t, int *rwf)
{
	const struct replay_opts *o = r->o;
	struct replay_stats *st = r->st;

	*rwf = 0;
	if (op == RP_OP_READ)
		return op;
	if (op < 0)
		return st->skipped_other++, -1;
	if (op == RP_OP_WRITE && (ev->flags & (BLK_F_FUA | BLK_F_FLUSH)))
		*rwf = RWF_DSYNC;
	if ((op == RP_OP_DISCARD || op == RP_OP_WZERO || op == RP_OP_WRITE) && !o->allow_writes) {
		if (op == RP_OP_WRITE && o->writes_as_reads) {
			st->writes_as_reads++;
			*rwf = 0;
			return RP_OP_READ;
		}
		return st->skipped_writes++, -1;
	}
	if (op == RP_OP_DISCARD && (o->skip_discard || t->no_discard))
		return st->skipped_discard++, -1;
	if (op == RP_OP_WZERO && (o->skip_write_zeroes || t->no_wzero))
		return st->skipped_wzero++, -1;
	return op;
}

/* When IO ev is due on the replay's clock (original timing; replay/clock.h). */
static int due_time(struct rp *r, const struct blk_event *ev, uint64_t *deadline)
{
	return rp_clock_due(&r->clk, ev->time, r->seq, deadline, r->e);
}

/* Give back an IO prepared but not issued (no window entry when the trace has no
 * completions: io->pend is -1 then). */
static void unissue(struct rp *r, struct rp_io *io, unsigned slot)
{
	if (io->pend >= 0)
		r->pend[io->pend].slot = -1;
	r->free_slots[r->nfree++] = slot;
}

static void count_split(struct replay_stats *st, uint32_t lo, uint32_t hi)
{
	if (lo > 1) {
		st->split_ios++;
		st->split_requests += lo;
	}
	if (hi > 1) {
		st->split_ios_max++;
		st->split_requests_max += hi;
	}
}

/* The requests the kernel makes of IO io, when more than one (the split counts) */
static inline __attribute__((always_inline)) void io_split(struct replay_stats *st,
                                                           const struct rp_io *io)
{
	const struct rp_target *t = io->tgt;
	unsigned op = io->op;

	if (op == RP_OP_READ || op == RP_OP_WRITE) {
		/* the requests the kernel makes of it; not of what goes through the page cache */
		if ((io->len > t->whole || (t->chunk && io->off % t->chunk + io->len > t->chunk)) &&
		    io->fd == t->fd && t->direct) {
			uint32_t lo, hi;

			rp_split_predict(t, io->off, io->len, io->buf_unit, &lo, &hi);
			count_split(st, lo, hi);
		}
	} else if (t->max_bytes[op] && io->len > t->max_bytes[op]) {
		uint32_t n = (io->len + t->max_bytes[op] - 1) / t->max_bytes[op];

		count_split(st, n, n);
	}
}

/* The bookkeeping of an IO handed to the engine, or done: counts, the comparison with a
 * capture, the split the kernel will make, the lag, the observer, the recorder, progress. */
static inline __attribute__((always_inline)) int issued(struct rp *r, struct rp_io *io)
{
	const struct replay_opts *o = r->o;
	struct replay_stats *st = r->st;
	struct rp_target *t = io->tgt;
	unsigned op = io->op;
	int ret;

	if (r->inflight > st->max_inflight)
		st->max_inflight = r->inflight;
	st->ios++;
	st->ops[op]++;
	io_split(st, io);
	if (io->intended)
		hist_add_fast(&st->lag, &r->lag_pending, io->t_issue - io->intended);
	if (__builtin_expect(!r->hooks, 1))
		return 0;
	if (o->fid && t->is_blk)
		rp_fid_expect(o->fid, t->dev, t->disk_dev, io->off / 512 + t->part_start, io->len,
		              op, io->t_issue);
	if (o->observe)
		o->observe(o->observe_arg, io, false);
	if (t->rec && (ret = rp_record_io(t, io, false, r->t0, r->e)))
		return ret;
	if (o->progress && !(io->seq & 255)) {
		uint64_t now = iot_now_ns();

		if (now >= r->next_progress) {
			r->next_progress = now + 1000000000ull;
			settle(r);
			o->progress(o->progress_arg, st, now - r->t0);
		}
	}
	return 0;
}

/* The buffer of an IO larger than a slot (sched.h: kept, never allocated per IO). 0 or
 * -ENOMEM with the error set. */
static int big_buffer(struct rp *r, struct rp_io *io, unsigned slot)
{
	size_t len = io->len;
	struct rp_buf *b;

	if (io->op == RP_OP_READ) {
		b = &r->big[slot];
		if (b->cap < len && (rp_bufs_put(&r->bufs, b) || rp_bufs_get(&r->bufs, len, b)))
			return iot_err_set(r->e, -ENOMEM, "out of memory");
	} else {
		b = r->nbigpat ? &r->bigpat[r->nbigpat - 1] : NULL;
		if (!b || b->cap < len) {
			if (r->nbigpat == RP_BIGPAT_MAX ||
			    rp_bufs_get(&r->bufs, len, &r->bigpat[r->nbigpat]))
				return iot_err_set(r->e, -ENOMEM, "out of memory");
			b = &r->bigpat[r->nbigpat++];
			/* the same bytes as the slot's pattern, further on */
			rp_pattern_fill(b->p, b->cap, 0x10ae);
		}
	}
	io->buf = b->p;
	io->buf_unit = b->unit;
	return 0;
}

/* ---- the trace, read ahead --------------------------------------------------------- */

/* The next event (valid until the next call here or to rp_dependent()): those read ahead first.
 * 1, 0 at the end, -errno. */
static int next_event(struct rp *r, const struct blk_event **ev)
{
	int ret;

	if (__builtin_expect(r->ahead_n != 0, 0)) {
		if (r->ahead_pos < r->ahead_n) {
			*ev = &r->ahead_ev[r->ahead_pos++];
			return 1;
		}
		r->ahead_pos = r->ahead_n = 0;
	}
	if (r->cur == r->end && (ret = rp_fetch(r)) <= 0)
		return ret;
	*ev = r->cur++;
	return 1;
}

/* The replay's clocks start at its first trace IO */
static __attribute__((noinline)) void start(struct rp *r, const struct blk_event *ev)
{
	const struct replay_opts *o = r->o;
	struct timespec ts;

	r->started = true;
	r->trace_t0 = ev->time;
	r->t0 = iot_now_ns();
	r->clk = (struct rp_clock){.speed = o->speed,
	                           .max_gap = o->max_gap_ns,
	                           .t0 = r->t0,
	                           .trace_t0 = ev->time,
	                           .what = "IO"};
	clock_gettime(CLOCK_REALTIME, &ts);
	r->st->start_real_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	r->next_progress = r->t0 + 1000000000ull;
}

/* The trace's counts of IO ev, its target, what it asks for there and where (*tp, *rwf,
 * *off): the op, or -1 when it is not replayed (counted, and entered in the window). */
static inline __attribute__((always_inline)) int
what_to_do(struct rp *r, const struct blk_event *ev, struct rp_target **tp, int *rwf, uint64_t *off)
{
	const struct replay_opts *o = r->o;
	struct replay_stats *st = r->st;
	struct rp_target *t;
	long ti;
	int op, ret;

	if (ev->time > r->trace_last)
		r->trace_last = ev->time;
	st->trace_ios++;
	op = op_of(ev);
	if (op >= 0) {
		st->trace_ops[op]++;
		st->trace_op_bytes[op] += ev->bytes;
		if (op == RP_OP_READ || op == RP_OP_WRITE)
			st->trace_bytes += ev->bytes;
	}
	ti = o->nmaps ? find_target(r, ev->dev) : r->default_tgt;
	if (ti < 0) {
		st->skipped_unmapped++;
		rp_pend_add(r, ev->dev, ev->sector, ev->bytes, -1);
		return -1;
	}
	*tp = t = &r->tgts[ti];
	op = classify(r, ev, op, t, rwf);
	*off = 0;
	if (op >= 0 && op != RP_OP_FLUSH) {
		uint64_t pos = ev->sector * 512, at = pos + o->offset;

		/* rp_place()'s first case inline: the IO lies inside the target */
		if (at >= pos && ev->bytes <= t->size && at <= t->size - ev->bytes) {
			*off = at;
		} else {
			ret = rp_place(pos, ev->bytes, o->offset, t->size, o->wrap, off);
			if (ret < 0) {
				st->skipped_range++;
				op = -1;
			} else if (ret > 0) {
				st->wrapped++;
			}
		}
	}
	if (op < 0)
		rp_pend_add(r, ev->dev, ev->sector, ev->bytes, -1);
	return op;
}

/* fill_io() sets each field of an IO: a field added must be set there too */
_Static_assert(sizeof(void *) != 8 || sizeof(struct rp_io) == 144,
               "struct rp_io changed: fill_io() sets every field");

/* A free slot's IO for the trace IO ev: what to do, with which buffer. 0 (the IO in *iop, its
 * slot in *slotp) or -errno with the error set. */
static inline __attribute__((always_inline)) int fill_io(struct rp *r, const struct blk_event *ev,
                                                         struct rp_target *t, int op, int rwf,
                                                         uint64_t off, struct rp_io **iop,
                                                         unsigned *slotp)
{
	unsigned slot = r->free_slots[--r->nfree];
	struct rp_io *io = &r->slots[slot].io;
	int ret;

	/* every field once (a compound literal zeroed the whole IO first, then set most of it:
	 * 19 instructions an IO more) */
	io->op = (unsigned)op;
	io->fd = t->fd;
	io->is_blk = t->is_blk;
	io->punt = t->bio_based && t->direct;
	io->rw_flags = rwf;
	io->off = off;
	io->len = op == RP_OP_FLUSH ? 0 : ev->bytes;
	io->buf = NULL;
	io->buf_index = -1;
	io->res = 0;
	io->t_done = 0;
	io->t_issue = 0;
	io->seq = r->seq++;
	io->trace_time = ev->time - r->trace_t0;
	io->intended = 0;
	io->trace_flags = ev->flags;
	io->trace_dev = ev->dev;
	io->trace_sector = ev->sector;
	io->tgt = t;
	io->pend = -1;
	io->trace_done = false;
	io->done_inline = false;
	io->buf_unit = 0;
	*iop = io;
	*slotp = slot;
	if (t->direct && (op == RP_OP_READ || op == RP_OP_WRITE) &&
	    ((off | io->len) & (t->lbs - 1))) {
		int fd = rp_target_buffered_fd(t, r->o);

		if (fd < 0) {
			r->free_slots[r->nfree++] = slot;
			return iot_err_set(r->e, -errno, "'%s': %s", t->path, strerror(errno));
		}
		io->fd = fd;
		r->st->unaligned_buffered++;
	}
	if (op == RP_OP_READ || op == RP_OP_WRITE) {
		if (io->len <= RP_SLOT_BYTES) {
			io->buf_index = op == RP_OP_READ ? (int)slot : (int)r->depth;
			io->buf = op == RP_OP_READ ? r->mem + (size_t)slot * RP_SLOT_BYTES
			                           : rp_pattern(r);
		} else if ((ret = big_buffer(r, io, slot))) {
			r->free_slots[r->nfree++] = slot;
			return ret;
		}
	}
	return 0;
}

/*
 * The trace IO ev, done by io, enters the trace-pending window (io->pend). Whether it is done
 * in this thread: an IO the next one waits for anyway, when nothing else is in flight (ev may
 * point into the source's batch, which looking ahead ends: not used after this).
 */
static inline __attribute__((always_inline)) bool
enter_window(struct rp *r, const struct blk_event *ev, struct rp_io *io, unsigned slot)
{
	if (!r->ops->run || r->inflight) {
		io->pend = rp_pend_add(r, ev->dev, ev->sector, ev->bytes, (long)slot);
		return false;
	}
	if (!r->pend_live && !r->o->no_completions) {
		/* a depth-1 stretch: when its C comes before the next IO, this IO stays out of the
		 * window (nothing else in it to match a C against, nothing in flight to wait for),
		 * as if it entered and left it at that C (sched.h) */
		uint32_t dev = ev->dev, bytes = ev->bytes;
		uint64_t sector = ev->sector;
		const struct blk_event *c = r->cur;

		if (__builtin_expect(!r->ahead_n && c < r->end, 1) && c->action == BLK_A_COMPLETE &&
		    !blk_is_notify(c) && rp_pend_lone_completes(r, dev, sector, c) &&
		    r->o->timing == RP_TIMING_AFAP && !(r->o->stop && *r->o->stop)) {
			/* its C is the next event: taken now, as the window would take it (the main
			 * loop takes it next, after a look at the stop flag, which this one stands
			 * for; afap only: nothing waits between here and the IO's issue) */
			r->cur = c + 1;
			if (c->time > r->trace_last)
				r->trace_last = c->time;
		} else if (rp_dependent(r, -1, dev, sector)) {
			r->ghost = true;
			r->ghost_dev = dev;
			r->ghost_sector = sector;
		} else {
			io->pend = rp_pend_add(r, dev, sector, bytes, (long)slot);
			return r->depth == 1;
		}
		io->pend = -1;
		if (__builtin_expect(!r->st->trace_max_depth, 0))
			r->st->trace_max_depth = 1;
		return true;
	}
	io->pend = rp_pend_add(r, ev->dev, ev->sector, ev->bytes, (long)slot);
	return r->depth == 1 || (io->pend >= 0 && rp_dependent(r, io->pend, 0, 0));
}

/*
 * issued() and on_done() of an IO done in this thread that succeeded, with no deadline and
 * nothing to call (r->hooks): the same figures without the tests that only queued IOs,
 * errors, timed replays and hooks need. It was alone in flight (max_inflight at least 1), and
 * no C was taken while it ran (not trace_done).
 */
static inline __attribute__((always_inline)) void done_here(struct rp *r, struct rp_io *io,
                                                            unsigned slot)
{
	struct replay_stats *st = r->st;
	unsigned op = io->op;

	if (!st->max_inflight)
		st->max_inflight = 1;
	st->ios++;
	st->ops[op]++;
	io_split(st, io);
	if (op == RP_OP_READ || op == RP_OP_WRITE) {
		st->bytes += (uint64_t)io->res;
		st->op_bytes[op] += (uint64_t)io->res;
	} else {
		st->op_bytes[op] += io->len;
	}
	hist_add_fast(&st->lat, &r->lat_pending, io->t_done - io->t_issue);
	if (io->t_done > r->last_done)
		r->last_done = io->t_done;
	if (io->pend >= 0)
		r->pend[io->pend].slot = -1;
	r->free_slots[r->nfree++] = slot;
}

static int replay_one(struct rp *r, const struct blk_event *ev)
{
	const struct replay_opts *o = r->o;
	struct rp_target *t;
	struct rp_io *io;
	uint64_t off, deadline = 0;
	int op, rwf, ret;
	unsigned slot;
	bool inline_ok;

	if (__builtin_expect(!r->started, 0))
		start(r, ev);
	if ((op = what_to_do(r, ev, &t, &rwf, &off)) < 0)
		return 0;
	if (o->timing == RP_TIMING_ORIGINAL && (ret = due_time(r, ev, &deadline)))
		return ret;
	if ((ret = wait_ready(r)))
		return ret == STOPPED ? 0 : ret;
	if ((ret = fill_io(r, ev, t, op, rwf, off, &io, &slot)))
		return ret;
	inline_ok = enter_window(r, ev, io, slot);
	if (deadline && (ret = wait_deadline(r, deadline))) {
		/* stopped (or failed) before this IO was due: it is not issued */
		unissue(r, io, slot);
		return ret == STOPPED ? 0 : ret;
	}
	io->intended = deadline;
	io->t_issue = iot_now_ns();
	if (inline_ok && !r->inflight) {
		r->ops->run(r->eng, io);
		io->done_inline = true;
		r->st->inline_ios++;
		if (__builtin_expect(!r->hooks && !deadline && io->res >= 0, 1)) {
			done_here(r, io, slot);
			return 0;
		}
		r->inflight++;
		ret = issued(r, io);
		{
			int r2 = on_done(r, io, slot);

			return ret ? ret : r2;
		}
	}
	ret = r->ops->queue(r->eng, io);
	if (ret) {
		unissue(r, io, slot);
		return iot_err_set(r->e, ret, "%s: queue: %s", r->ops->name, strerror(-ret));
	}
	r->batch++;
	r->inflight++;
	if ((o->timing == RP_TIMING_ORIGINAL || r->batch >= AFAP_BATCH) && (ret = commit(r)))
		return ret;
	if ((ret = issued(r, io)))
		return ret;
	/* pick up what finished while we were busy, without waiting */
	if (r->inflight && (o->timing == RP_TIMING_ORIGINAL || r->inflight >= r->depth))
		if ((ret = reap(r, 0)) < 0)
			return ret;
	return 0;
}

/* A C event of the trace. An empty window has nothing it could complete (it is empty before
 * the start); the IO of a depth-1 stretch only waits for its C (sched.h). */
static inline void on_trace_complete(struct rp *r, const struct blk_event *ev)
{
	if (__builtin_expect(r->ghost, 1)) {
		if (rp_pend_lone_completes(r, r->ghost_dev, r->ghost_sector, ev)) {
			r->ghost = false;
			if (ev->time > r->trace_last)
				r->trace_last = ev->time;
		}
	} else if (r->pend_live) {
		rp_pend_on_complete(r, ev);
	}
}

int replay_run(const struct replay_opts *o, const struct rp_source *src, struct replay_stats *st,
               struct iot_err *e)
{
	unsigned want = o->from == RP_FROM_QUEUE ? BLK_A_QUEUE : BLK_A_ISSUE;
	struct rp r = {.o = o, .src = src, .st = st, .e = e, .lone = PEND_NIL, .src_end = 1};
	volatile sig_atomic_t no_stop = 0, *stop = o->stop ? o->stop : &no_stop;
	const struct blk_event *ev;
	int ret;

	memset(st, 0, sizeof(*st));
	hist_init(&st->lag);
	hist_init(&st->lat);
	if ((ret = rp_setup(&r)))
		goto out;
	if (src->keep)
		src->keep(src->arg, 1u << want | 1u << BLK_A_COMPLETE);
	while (!*stop) {
		const struct blk_event *p = r.cur, *end = r.end;

		if (__builtin_expect(r.ahead_n != 0 || p == end, 0)) {
			if ((ret = next_event(&r, &ev)) <= 0)
				break;
			ret = 0;
			if (blk_is_notify(ev) || ev->action != want) {
				if (ev->action == BLK_A_COMPLETE && !blk_is_notify(ev))
					on_trace_complete(&r, ev);
				continue;
			}
		} else {
			/* the batch up to the next IO to replay, from this loop's registers (each
			 * event after a look at the stop flag, as above) */
			for (;;) {
				ev = p++;
				if (ev->action == want && !blk_is_notify(ev))
					break;
				if (ev->action == BLK_A_COMPLETE && !blk_is_notify(ev))
					on_trace_complete(&r, ev);
				if (p == end || *stop) {
					ev = NULL;
					break;
				}
			}
			r.cur = p;
			if (!ev)
				continue;
		}
		if ((ret = replay_one(&r, ev)))
			break;
	}
	if (o->stop && *o->stop)
		st->stopped = true;
	/* drain: whatever happened, every IO in flight completes before we report or close */
	{
		int r2 = commit(&r);

		while (!r2 && r.inflight)
			r2 = reap(&r, RP_WAIT_FOREVER) < 0 ? -1 : 0;
		if (r2 && !ret)
			ret = -EIO;
	}
	settle(&r);
	if (r.started) {
		st->trace_span_ns = r.trace_last - r.trace_t0;
		st->replay_span_ns = (r.last_done > r.t0 ? r.last_done : iot_now_ns()) - r.t0;
	}
	if (o->record_dir && r.ntgts) {
		int r2 = rp_record_close(o->record_dir, r.tgts, r.ntgts, o, ret ? NULL : st, e);

		if (r2 && !ret)
			ret = r2;
	}
out:
	rp_teardown(&r);
	return ret;
}
