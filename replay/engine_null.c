/* SPDX-License-Identifier: MIT */
/* The null engine: no IO; each IO completes a fixed time after its issue. For testing the
 * timing and dependency logic without a device. */
#include <errno.h>
#include <stdlib.h>

#include "replay/engine.h"

struct rp_engine {
	struct rp_io **fifo; /* constant latency: completion order is issue order */
	unsigned cap, head, n;
	uint64_t lat;
};

static int null_init(struct rp_engine **out, const struct rp_engine_conf *c, struct iot_err *e)
{
	struct rp_engine *n = calloc(1, sizeof(*n));

	if (!n || !(n->fifo = calloc(c->depth, sizeof(*n->fifo)))) {
		free(n);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	n->cap = c->depth;
	n->lat = c->null_lat_ns;
	*out = n;
	return 0;
}

static int null_queue(struct rp_engine *n, struct rp_io *io)
{
	if (n->n == n->cap)
		return -EBUSY;
	if (!io->t_issue)
		io->t_issue = iot_now_ns();
	io->res = io->op == RP_OP_FLUSH ? 0 : io->len;
	n->fifo[(n->head + n->n++) % n->cap] = io;
	return 0;
}

static int null_commit(struct rp_engine *n)
{
	(void)n;
	return 0;
}

static int null_reap(struct rp_engine *n, struct rp_io **done, unsigned max, uint64_t wait_until)
{
	unsigned got = 0;
	uint64_t now = iot_now_ns();

	if (!n->n)
		return 0;
	if (wait_until) {
		uint64_t due = n->fifo[n->head]->t_issue + n->lat;

		if (due > wait_until)
			due = wait_until;
		if (due > now) {
			struct timespec ts = rp_ts(due);

			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
				;
			now = iot_now_ns();
		}
	}
	while (got < max && n->n && n->fifo[n->head]->t_issue + n->lat <= now) {
		struct rp_io *io = n->fifo[n->head];

		io->t_done = now;
		done[got++] = io;
		n->head = (n->head + 1) % n->cap;
		n->n--;
	}
	return (int)got;
}

/* The same latency, waited for here */
static void null_run(struct rp_engine *n, struct rp_io *io)
{
	uint64_t due = io->t_issue + n->lat;

	io->res = io->op == RP_OP_FLUSH ? 0 : io->len;
	if (n->lat && due > iot_now_ns()) {
		struct timespec ts = rp_ts(due);

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	io->t_done = n->lat ? iot_now_ns() : io->t_issue;
}

static void null_cleanup(struct rp_engine *n)
{
	if (!n)
		return;
	free(n->fifo);
	free(n);
}

const struct rp_engine_ops rp_engine_null = {
    .name = "null",
    .init = null_init,
    .queue = null_queue,
    .commit = null_commit,
    .reap = null_reap,
    .run = null_run,
    .cleanup = null_cleanup,
};
