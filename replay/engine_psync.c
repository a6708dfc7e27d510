/* SPDX-License-Identifier: MIT */
/* The fallback engine: a pool of threads doing pread/pwrite/fdatasync, one IO each at a time,
 * so it runs wherever POSIX threads do (no io_uring, no libaio). */
/*
 * Handing an IO to a sleeping thread costs a wakeup, tens of microseconds on a virtual
 * machine, which caps a RAM device at a few ten thousand IOPS per thread. So threads spin a
 * little (PSYNC_SPIN_NS) on the queue before they sleep, the submitter spins on completions
 * before it sleeps, and for devices that complete in the caller's context (bio-based: zram,
 * brd; conf->inline_ok) the submitter, when it would wait anyway, takes queued IOs and does
 * them itself, with one thread per other CPU: every CPU does IO and nobody waits for a wakeup
 * (and a real-time submitter that spins on its CPU does not wait for a worker stuck behind it).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/engine.h"

#define PSYNC_MAX_THREADS 64u
#define PSYNC_SPIN_NS 30000ull

struct rp_engine {
	pthread_mutex_t lock;
	pthread_cond_t work; /* sq not empty, or stopping */
	pthread_cond_t done; /* cq not empty (CLOCK_MONOTONIC) */
	struct rp_io **sq, **cq;
	unsigned cap, sq_head, cq_head;
	atomic_uint sq_n, cq_n; /* written under lock, read without it while spinning */
	atomic_bool stop;
	bool help; /* the reaper does queued IOs itself while it waits */
	pthread_t *threads;
	unsigned nthreads;
};

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* spin until *n is non-zero, stop is set, or PSYNC_SPIN_NS pass; true if *n became non-zero */
static bool spin_for(struct rp_engine *p, atomic_uint *n, uint64_t until)
{
	uint64_t end = rp_now() + PSYNC_SPIN_NS;

	if (until && until < end)
		end = until;
	for (unsigned i = 0;; i++) {
		if (atomic_load_explicit(n, memory_order_acquire) ||
		    atomic_load_explicit(&p->stop, memory_order_relaxed))
			return true;
		if (!(i & 63) && rp_now() >= end)
			return false;
		relax();
	}
}

/* under lock */
static struct rp_io *sq_pop(struct rp_engine *p)
{
	struct rp_io *io = p->sq[p->sq_head];

	p->sq_head = (p->sq_head + 1) % p->cap;
	atomic_fetch_sub_explicit(&p->sq_n, 1, memory_order_relaxed);
	return io;
}

static void cq_push(struct rp_engine *p, struct rp_io *io)
{
	unsigned n = atomic_load_explicit(&p->cq_n, memory_order_relaxed);

	p->cq[(p->cq_head + n) % p->cap] = io;
	atomic_store_explicit(&p->cq_n, n + 1, memory_order_release);
}

static void exec(struct rp_io *io)
{
	io->res = rp_io_sync(io);
	io->t_done = rp_now();
}

static void *worker(void *arg)
{
	struct rp_engine *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct rp_io *io;

		while (!atomic_load(&p->sq_n) && !atomic_load(&p->stop)) {
			pthread_mutex_unlock(&p->lock);
			bool got = spin_for(p, &p->sq_n, 0);
			pthread_mutex_lock(&p->lock);
			if (!got && !atomic_load(&p->sq_n) && !atomic_load(&p->stop))
				pthread_cond_wait(&p->work, &p->lock);
		}
		if (!atomic_load(&p->sq_n))
			break;
		io = sq_pop(p);
		pthread_mutex_unlock(&p->lock);
		exec(io);
		pthread_mutex_lock(&p->lock);
		cq_push(p, io);
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
	atomic_store(&p->stop, true);
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
	if (c->inline_ok) {
		/* the device is CPU-bound: one thread per other CPU, and the reaper helps */
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		unsigned n = ncpu > 1 ? (unsigned)ncpu - 1 : 1;

		p->help = true;
		if (n < want)
			want = n;
		/* on the trace's clock one CPU does it all, as the kernel's submitter would: no
		 * thread to wake, and no second spinner for a real-time CPU budget */
		if (c->timed)
			want = 0;
	}
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
			return iot_err_set(e, -ret, "psync: cannot start a thread: %s",
			                   strerror(ret));
		}
	}
	*out = p;
	return 0;
}

static int psync_queue(struct rp_engine *p, struct rp_io *io)
{
	unsigned n;

	pthread_mutex_lock(&p->lock);
	n = atomic_load_explicit(&p->sq_n, memory_order_relaxed);
	if (n == p->cap) {
		pthread_mutex_unlock(&p->lock);
		return -EBUSY;
	}
	p->sq[(p->sq_head + n) % p->cap] = io;
	atomic_store_explicit(&p->sq_n, n + 1, memory_order_release);
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
	for (;;) {
		while (n < max && atomic_load_explicit(&p->cq_n, memory_order_relaxed)) {
			done[n++] = p->cq[p->cq_head];
			p->cq_head = (p->cq_head + 1) % p->cap;
			atomic_fetch_sub_explicit(&p->cq_n, 1, memory_order_relaxed);
		}
		if (n)
			break;
		/* a RAM device's IO takes microseconds, and a caller with a deadline asks to wait
		 * only until its final spin, which leaves it that much margin; even a caller that
		 * does not wait gets one done, so an IO is never left for a later wait */
		if (p->help && atomic_load(&p->sq_n)) {
			struct rp_io *io = sq_pop(p);

			pthread_mutex_unlock(&p->lock);
			exec(io);
			done[n++] = io;
			pthread_mutex_lock(&p->lock);
			continue;
		}
		if (!wait_until || (wait_until != RP_WAIT_FOREVER && rp_now() >= wait_until))
			break;
		/* spin only when waiting is all there is to do: a caller with a deadline spins
		 * itself before it, and two spinners starve a real-time CPU budget */
		if (wait_until == RP_WAIT_FOREVER) {
			pthread_mutex_unlock(&p->lock);
			bool got = spin_for(p, &p->cq_n, 0);
			pthread_mutex_lock(&p->lock);
			if (got || atomic_load(&p->cq_n))
				continue;
		}
		if (wait_until == RP_WAIT_FOREVER) {
			pthread_cond_wait(&p->done, &p->lock);
		} else {
			struct timespec ts = rp_ts(wait_until);

			if (pthread_cond_timedwait(&p->done, &p->lock, &ts) == ETIMEDOUT)
				wait_until = 1; /* one last look, then return */
		}
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
