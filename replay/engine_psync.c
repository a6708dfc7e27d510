/* SPDX-License-Identifier: MIT */
/* The fallback engine: a pool of threads doing pread/pwrite/fdatasync, one IO each at a time,
 * so it runs wherever POSIX threads do (no io_uring, no libaio). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "replay/engine.h"

#define PSYNC_MAX_THREADS 64u

struct rp_engine {
	pthread_mutex_t lock;
	pthread_cond_t work;  /* sq not empty, or stopping */
	pthread_cond_t done;  /* cq not empty (CLOCK_MONOTONIC) */
	struct rp_io **sq, **cq;
	unsigned cap, sq_head, sq_n, cq_head, cq_n;
	bool stop;
	pthread_t *threads;
	unsigned nthreads;
};

static void *worker(void *arg)
{
	struct rp_engine *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct rp_io *io;

		while (!p->sq_n && !p->stop)
			pthread_cond_wait(&p->work, &p->lock);
		if (!p->sq_n)
			break;
		io = p->sq[p->sq_head];
		p->sq_head = (p->sq_head + 1) % p->cap;
		p->sq_n--;
		pthread_mutex_unlock(&p->lock);
		io->res = rp_io_sync(io);
		io->t_done = rp_now();
		pthread_mutex_lock(&p->lock);
		p->cq[(p->cq_head + p->cq_n++) % p->cap] = io;
		pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void psync_cleanup(struct rp_engine *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->lock);
	free(p->threads);
	free(p->sq);
	free(p->cq);
	free(p);
}

static int psync_init(struct rp_engine **out, const struct rp_engine_conf *c, struct iot_err *e)
{
	struct rp_engine *p = calloc(1, sizeof(*p));
	pthread_condattr_t ca;
	unsigned want;

	if (!p)
		return iot_err_set(e, -ENOMEM, "out of memory");
	p->cap = c->depth;
	p->sq = calloc(p->cap, sizeof(*p->sq));
	p->cq = calloc(p->cap, sizeof(*p->cq));
	want = c->depth < PSYNC_MAX_THREADS ? c->depth : PSYNC_MAX_THREADS;
	p->threads = calloc(want, sizeof(*p->threads));
	if (!p->sq || !p->cq || !p->threads) {
		free(p->sq);
		free(p->cq);
		free(p->threads);
		free(p);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->done, &ca);
	pthread_condattr_destroy(&ca);
	for (; p->nthreads < want; p->nthreads++) {
		int ret = pthread_create(&p->threads[p->nthreads], NULL, worker, p);

		if (ret) {
			psync_cleanup(p);
			return iot_err_set(e, -ret, "psync: cannot start a thread: %s", strerror(ret));
		}
	}
	*out = p;
	return 0;
}

static int psync_queue(struct rp_engine *p, struct rp_io *io)
{
	pthread_mutex_lock(&p->lock);
	if (p->sq_n == p->cap) {
		pthread_mutex_unlock(&p->lock);
		return -EBUSY;
	}
	p->sq[(p->sq_head + p->sq_n++) % p->cap] = io;
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

static int psync_commit(struct rp_engine *p)
{
	(void)p;
	return 0;
}

static int psync_reap(struct rp_engine *p, struct rp_io **done, unsigned max, uint64_t wait_until)
{
	unsigned n = 0;

	pthread_mutex_lock(&p->lock);
	while (!p->cq_n && wait_until) {
		if (wait_until == RP_WAIT_FOREVER) {
			pthread_cond_wait(&p->done, &p->lock);
		} else {
			struct timespec ts = rp_ts(wait_until);

			if (pthread_cond_timedwait(&p->done, &p->lock, &ts) == ETIMEDOUT)
				break;
		}
	}
	while (n < max && p->cq_n) {
		done[n++] = p->cq[p->cq_head];
		p->cq_head = (p->cq_head + 1) % p->cap;
		p->cq_n--;
	}
	pthread_mutex_unlock(&p->lock);
	return (int)n;
}

const struct rp_engine_ops rp_engine_psync = {
	.name = "psync",
	.init = psync_init,
	.queue = psync_queue,
	.commit = psync_commit,
	.reap = psync_reap,
	.cleanup = psync_cleanup,
};
