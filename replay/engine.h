/* SPDX-License-Identifier: MIT */
/* Replay engines behind one ops struct (fio style): io_uring, psync (thread pool), null. */
#ifndef IOTAPE_REPLAY_ENGINE_H
#define IOTAPE_REPLAY_ENGINE_H

#include <stdint.h>
#include <sys/uio.h>
#include <time.h>

#include "common/clock.h"
#include "replay/replay.h"

struct rp_engine; /* each engine's private state */

struct rp_engine_conf {
	unsigned depth; /* most IOs queued at once */
	/* buffers to register (io_uring); io->buf_index refers here. Nobody looks at what a read
	 * put into one of them, so an engine may read into a buffer of its own instead. */
	const struct iovec *bufs;
	unsigned nbufs;
	/* the write pattern (RP_SLOT_BYTES), io->buf of writes that fit a slot, or NULL: an engine
	 * may write the same bytes from a copy of its own */
	const void *pattern;
	const int *fds; /* descriptors to register (io_uring); others stay usable */
	unsigned nfds;
	bool inline_ok; /* every target completes IO in the caller's context (zram) */
	bool timed;     /* IOs have deadlines (original timing) */
	uint64_t null_lat_ns;
};

#define RP_WAIT_FOREVER UINT64_MAX

struct rp_engine_ops {
	const char *name;
	/* -ENOSYS (or another -errno) when the engine cannot run here: auto selection moves on */
	int (*init)(struct rp_engine **out, const struct rp_engine_conf *c, struct iot_err *e);
	/* Take one IO; it may sit until commit(). Never fails for lack of room when fewer than
	 * depth IOs are outstanding. 0 or -errno (the IO is then not outstanding). */
	int (*queue)(struct rp_engine *eng, struct rp_io *io);
	/* Start everything queued. 0 or -errno. */
	int (*commit)(struct rp_engine *eng);
	/* Completed IOs (res, t_done filled) into done[0..max). wait_until: 0 returns at once,
	 * RP_WAIT_FOREVER waits for one, else an absolute CLOCK_MONOTONIC time in ns. Returns the
	 * number reaped (0 at the deadline) or -errno. */
	int (*reap)(struct rp_engine *eng, struct rp_io **done, unsigned max, uint64_t wait_until);
	/* Do one IO now, in the caller's thread (res, t_done filled), while nothing else is
	 * outstanding: a dependent IO, which the next waits for anyway, without a hand-off to
	 * another thread and back. */
	void (*run)(struct rp_engine *eng, struct rp_io *io);
	void (*cleanup)(struct rp_engine *eng);
};

extern const struct rp_engine_ops rp_engine_uring;
extern const struct rp_engine_ops rp_engine_psync;
extern const struct rp_engine_ops rp_engine_null;

const struct rp_engine_ops *rp_engine_find(const char *name);

static inline struct timespec rp_ts(uint64_t ns)
{
	struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000ull),
	                      .tv_nsec = (long)(ns % 1000000000ull)};
	return ts;
}

/* Synchronous execution of one IO (psync threads, and ops io_uring cannot queue):
 * returns bytes or -errno. */
int64_t rp_io_sync(struct rp_io *io);

#endif
