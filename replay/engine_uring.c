/* SPDX-License-Identifier: MIT */
/* The io_uring engine (liburing): registered buffers, batched submission, datasync and
 * fallocate carried by the ring; BLKDISCARD (no ring op before 6.12) done inline. */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <linux/falloc.h>
#include <stdlib.h>
#include <string.h>

#include "replay/engine.h"

struct rp_engine {
	struct io_uring ring;
	bool fixed; /* buffers registered */
	bool defer; /* IORING_SETUP_DEFER_TASKRUN: completions need io_uring_enter */
	int fds[8]; /* registered files, by index */
	unsigned nfds;
	unsigned queued;            /* SQEs prepared, not yet submitted */
	struct rp_io **inline_done; /* IOs completed synchronously in queue() */
	unsigned ninline, depth;
};

static int uring_init(struct rp_engine **out, const struct rp_engine_conf *c, struct iot_err *e)
{
	struct rp_engine *u = calloc(1, sizeof(*u));
	int ret;

	if (!u || !(u->inline_done = calloc(c->depth, sizeof(*u->inline_done)))) {
		free(u);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	u->depth = c->depth;
	/* one thread submits and reaps: let the kernel run completion work only when we ask,
	 * which saves interrupting the spin loop; older kernels take fewer flags */
	ret = io_uring_queue_init(c->depth, &u->ring,
	                          IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN);
	if (ret >= 0)
		u->defer = true;
	else if (ret == -EINVAL)
		ret = io_uring_queue_init(c->depth, &u->ring, IORING_SETUP_COOP_TASKRUN);
	if (ret == -EINVAL)
		ret = io_uring_queue_init(c->depth, &u->ring, 0);
	if (ret < 0) {
		free(u->inline_done);
		free(u);
		return iot_err_set(e, ret, "io_uring: %s", strerror(-ret));
	}
	/* registered buffers save the per-IO page pinning; without (RLIMIT_MEMLOCK) still works */
	if (c->nbufs && io_uring_register_buffers(&u->ring, c->bufs, c->nbufs) == 0)
		u->fixed = true;
	/* registered files save the per-IO file reference: worth 1.5x on a RAM device */
	if (c->nfds && c->nfds <= sizeof(u->fds) / sizeof(u->fds[0]) &&
	    io_uring_register_files(&u->ring, c->fds, c->nfds) == 0) {
		memcpy(u->fds, c->fds, c->nfds * sizeof(*c->fds));
		u->nfds = c->nfds;
	}
	*out = u;
	return 0;
}

static int uring_queue(struct rp_engine *u, struct rp_io *io)
{
	struct io_uring_sqe *sqe;

	if (io->op == RP_OP_DISCARD && io->is_blk) {
		io->res = rp_io_sync(io);
		io->t_done = iot_now_ns();
		u->inline_done[u->ninline++] = io;
		return 0;
	}
	sqe = io_uring_get_sqe(&u->ring);
	if (!sqe) {
		int ret = io_uring_submit(&u->ring);

		if (ret < 0)
			return ret;
		u->queued = 0;
		sqe = io_uring_get_sqe(&u->ring);
		if (!sqe)
			return -EBUSY;
	}
	switch (io->op) {
	case RP_OP_READ:
		if (u->fixed && io->buf_index >= 0)
			io_uring_prep_read_fixed(sqe, io->fd, io->buf, io->len, io->off,
			                         io->buf_index);
		else
			io_uring_prep_read(sqe, io->fd, io->buf, io->len, io->off);
		break;
	case RP_OP_WRITE:
		if (u->fixed && io->buf_index >= 0)
			io_uring_prep_write_fixed(sqe, io->fd, io->buf, io->len, io->off,
			                          io->buf_index);
		else
			io_uring_prep_write(sqe, io->fd, io->buf, io->len, io->off);
		sqe->rw_flags = io->rw_flags;
		break;
	case RP_OP_FLUSH:
		io_uring_prep_fsync(sqe, io->fd, IORING_FSYNC_DATASYNC);
		break;
	case RP_OP_DISCARD:
		io_uring_prep_fallocate(sqe, io->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		                        (off_t)io->off, (off_t)io->len);
		break;
	case RP_OP_WZERO:
		io_uring_prep_fallocate(sqe, io->fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
		                        (off_t)io->off, (off_t)io->len);
		break;
	default:
		return -EINVAL;
	}
	for (unsigned i = 0; i < u->nfds; i++) {
		if (u->fds[i] == io->fd) {
			sqe->fd = (int)i;
			sqe->flags |= IOSQE_FIXED_FILE;
			break;
		}
	}
	/* a device the kernel cannot ask "would you block?" (bio-based: zram, brd) fails the
	 * non-blocking attempt and is handed to a worker anyway: go there directly */
	if (io->punt)
		sqe->flags |= IOSQE_ASYNC;
	io_uring_sqe_set_data(sqe, io);
	u->queued++;
	return 0;
}

static int uring_commit(struct rp_engine *u)
{
	int ret;

	if (!u->queued)
		return 0;
	ret = io_uring_submit(&u->ring);
	if (ret < 0)
		return ret;
	u->queued = 0;
	return 0;
}

static unsigned take(struct rp_engine *u, struct rp_io **done, unsigned max, uint64_t now)
{
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	io_uring_for_each_cqe(&u->ring, head, cqe)
	{
		struct rp_io *io;

		if (n == max)
			break;
		io = io_uring_cqe_get_data(cqe);
		io->res = cqe->res;
		/* fallocate and fsync report 0 on success: count the range as done */
		if (cqe->res == 0 && (io->op == RP_OP_DISCARD || io->op == RP_OP_WZERO))
			io->res = io->len;
		io->t_done = now;
		done[n++] = io;
	}
	io_uring_cq_advance(&u->ring, n);
	return n;
}

static int uring_reap(struct rp_engine *u, struct rp_io **done, unsigned max, uint64_t wait_until)
{
	unsigned n = 0;
	int ret;

	while (u->ninline && n < max)
		done[n++] = u->inline_done[--u->ninline];
	if (n == max)
		return (int)n;
	if (u->queued && (ret = uring_commit(u)) < 0)
		return ret;
	if (u->defer && !io_uring_cq_ready(&u->ring))
		io_uring_get_events(&u->ring); /* run the deferred completion work */
	n += take(u, done + n, max - n, iot_now_ns());
	if (n || !wait_until)
		return (int)n;
	for (;;) {
		struct io_uring_cqe *cqe;

		if (wait_until == RP_WAIT_FOREVER) {
			ret = io_uring_wait_cqe(&u->ring, &cqe);
		} else {
			uint64_t now = iot_now_ns();
			struct __kernel_timespec ts;

			if (now >= wait_until)
				return 0;
			ts.tv_sec = (long long)((wait_until - now) / 1000000000ull);
			ts.tv_nsec = (long long)((wait_until - now) % 1000000000ull);
			ret = io_uring_wait_cqe_timeout(&u->ring, &cqe, &ts);
			if (ret == -ETIME)
				return 0;
		}
		if (ret == -EINTR)
			continue;
		if (ret < 0)
			return ret;
		return (int)take(u, done, max, iot_now_ns());
	}
}

static void uring_cleanup(struct rp_engine *u)
{
	if (!u)
		return;
	/* drop the file references now: the ring's own teardown is asynchronous, and a target
	 * opened O_EXCL would stay claimed for a moment after we exit */
	if (u->nfds)
		io_uring_unregister_files(&u->ring);
	if (u->fixed)
		io_uring_unregister_buffers(&u->ring);
	io_uring_queue_exit(&u->ring);
	free(u->inline_done);
	free(u);
}

/* A system call of the submitter's: one IO waited for through the ring costs a submission, a
 * completion and, on a bio-based device, a worker's wakeup besides */
static void uring_run(struct rp_engine *u, struct rp_io *io)
{
	(void)u;
	io->res = rp_io_sync(io);
	io->t_done = iot_now_ns();
}

const struct rp_engine_ops rp_engine_uring = {
    .name = "io_uring",
    .init = uring_init,
    .queue = uring_queue,
    .commit = uring_commit,
    .reap = uring_reap,
    .run = uring_run,
    .cleanup = uring_cleanup,
};
