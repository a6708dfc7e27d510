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
 *
 * The queues are lock-free rings (one compare-and-swap or one atomic add per IO) and a thread
 * sleeps on a futex behind an event count, so a push costs a system call only when someone
 * sleeps. With a mutex and condition variables instead, the lock's hand-offs and a futex wake
 * per IO took a fifth of the CPU of an afap replay onto zram (bench/README.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "replay/engine.h"

#define PSYNC_MAX_THREADS 64u
#define PSYNC_SPIN_NS 30000ull
#define PSYNC_MAX_FDS 8u
#define CACHELINE 64

/* A bounded ring of IOs and an event count to sleep on it. Two kinds: the submission queue
 * has one producer (the submitter) and many consumers (the threads, and the reaper when it
 * helps); the completion queue has many producers and one consumer (the reaper). Neither can
 * be full while at most depth IOs are outstanding: an IO occupies a cell from its push to its
 * pop and no longer (a general multi-producer multi-consumer ring would not promise that). */
struct ring {
	_Atomic(struct rp_io *) *cells;
	size_t mask;
	bool mpsc;                              /* the completion kind */
	bool asym;                              /* sleepers use membarrier(): see ring_notify */
	_Alignas(CACHELINE) atomic_size_t tail; /* next push */
	size_t head_seen;                       /* submission: the head when last looked at */
	_Alignas(CACHELINE) atomic_size_t head; /* next pop */
	_Alignas(CACHELINE) atomic_uint epoch;  /* the futex word: bumped to wake sleepers */
	atomic_uint sleepers;
};

/* A thread's own buffers for RAM-device IO (help mode): see exec() */
struct tbufs {
	uint8_t *rd, *wr;       /* wr: a copy of the pattern */
	int fds[PSYNC_MAX_FDS]; /* the thread's own opening of each target, or -1 */
};

struct rp_engine;
struct warg {
	struct rp_engine *p;
	struct tbufs *tb;
};

struct rp_engine {
	struct ring sq, cq;
	struct tbufs *tb; /* per worker, then the reaper's; NULL unless help */
	unsigned ntb;
	const void *pattern;
	int fds[PSYNC_MAX_FDS]; /* the targets (conf->fds) */
	unsigned nfds;
	_Alignas(CACHELINE) atomic_bool stop;
	bool help; /* the reaper does queued IOs itself while it waits */
	pthread_t *threads;
	struct warg *wargs;
	unsigned nthreads; /* started so far: all want of them at the first queue() */
	unsigned want;
	uint8_t *tbmem; /* the tb buffers, 2 * RP_SLOT_BYTES per thread and the reaper */
	size_t tbmem_len;
};

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static int ring_init(struct ring *q, unsigned min, bool mpsc)
{
	size_t n = 1;

	while (n < min)
		n <<= 1;
	q->cells = calloc(n, sizeof(*q->cells));
	if (!q->cells)
		return -ENOMEM;
	q->mask = n - 1;
	q->mpsc = mpsc;
	for (size_t i = 0; i < n; i++)
		atomic_init(&q->cells[i], NULL);
	atomic_init(&q->tail, 0);
	atomic_init(&q->head, 0);
	atomic_init(&q->epoch, 0);
	atomic_init(&q->sleepers, 0);
	return 0;
}

/* Submission queue, the submitter's side: false when full. */
static bool sq_push(struct ring *q, struct rp_io *io)
{
	size_t t = atomic_load_explicit(&q->tail, memory_order_relaxed);

	/* the head line is the consumers': look at it only when the ring may be full */
	if (t - q->head_seen > q->mask) {
		q->head_seen = atomic_load_explicit(&q->head, memory_order_acquire);
		if (t - q->head_seen > q->mask)
			return false;
	}
	atomic_store_explicit(&q->cells[t & q->mask], io, memory_order_relaxed);
	atomic_store_explicit(&q->tail, t + 1, memory_order_release);
	return true;
}

/* Submission queue, any consumer's side: the cell is read before the head moves past it, so
 * a cell is free again the moment its IO is taken (a consumer that read a cell the producer
 * then reused loses the compare-and-swap and tries again). */
static struct rp_io *sq_pop(struct ring *q)
{
	size_t h = atomic_load_explicit(&q->head, memory_order_acquire);

	for (;;) {
		struct rp_io *io;

		if (h == atomic_load_explicit(&q->tail, memory_order_acquire))
			return NULL;
		io = atomic_load_explicit(&q->cells[h & q->mask], memory_order_relaxed);
		if (atomic_compare_exchange_weak_explicit(&q->head, &h, h + 1, memory_order_acq_rel,
		                                          memory_order_acquire))
			return io;
	}
}

/* Completion queue, any producer's side: a cell is claimed, then filled; the consumer waits
 * for the filling in order. The claimed cell is empty: the IO it held a lap before was
 * reaped, or more than depth IOs would be outstanding. */
static void cq_push(struct ring *q, struct rp_io *io)
{
	size_t t = atomic_fetch_add_explicit(&q->tail, 1, memory_order_relaxed);
	_Atomic(struct rp_io *) *c = &q->cells[t & q->mask];

	while (atomic_load_explicit(c, memory_order_relaxed)) /* never, by the above */
		relax();
	atomic_store_explicit(c, io, memory_order_release);
}

/* Completion queue, the reaper's side */
static struct rp_io *cq_pop(struct ring *q)
{
	size_t h = atomic_load_explicit(&q->head, memory_order_relaxed);
	_Atomic(struct rp_io *) *c = &q->cells[h & q->mask];
	struct rp_io *io = atomic_load_explicit(c, memory_order_acquire);

	if (!io)
		return NULL;
	atomic_store_explicit(c, NULL, memory_order_relaxed);
	atomic_store_explicit(&q->head, h + 1, memory_order_release);
	return io;
}

/* something to pop (a hint: another consumer may take it first) */
static bool ring_ready(struct ring *q)
{
	size_t h = atomic_load_explicit(&q->head, memory_order_relaxed);

	if (q->mpsc)
		return atomic_load_explicit(&q->cells[h & q->mask], memory_order_acquire);
	return h != atomic_load_explicit(&q->tail, memory_order_acquire);
}

/* After a push: wake the sleepers, if any. Either the sleeper sees the pushed IO, or we see
 * the sleeper: a full fence between our push and our look, paired with one in ring_sleep
 * between its count and its look. The fence waits for the push to reach the other CPU's
 * cache, 80 % of a push's cost; since threads spin before they sleep, a sleeper is rare, so
 * where the kernel has it the sleeper pays for both with membarrier(), which puts a fence
 * into every running thread of the process, and we keep only the compiler from reordering. */
static void ring_notify(struct ring *q, bool all)
{
	if (q->asym)
		atomic_signal_fence(memory_order_seq_cst);
	else
		atomic_thread_fence(memory_order_seq_cst);
	if (!atomic_load_explicit(&q->sleepers, memory_order_relaxed))
		return;
	atomic_fetch_add_explicit(&q->epoch, 1, memory_order_seq_cst);
	syscall(SYS_futex, &q->epoch, FUTEX_WAKE_PRIVATE, all ? INT_MAX : 1, NULL, NULL, 0);
}

/* Sleep until a push (or a notify), or the absolute CLOCK_MONOTONIC time until (0: none). The
 * caller looks again either way. */
static void ring_sleep(struct ring *q, const atomic_bool *stop, uint64_t until)
{
	unsigned epoch;

	atomic_fetch_add_explicit(&q->sleepers, 1, memory_order_seq_cst);
	if (q->asym) /* cannot fail once registered */
		(void)syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
	epoch = atomic_load_explicit(&q->epoch, memory_order_seq_cst);
	atomic_thread_fence(memory_order_seq_cst);
	if (!ring_ready(q) && !atomic_load_explicit(stop, memory_order_relaxed)) {
		if (until) {
			struct timespec ts = rp_ts(until);

			syscall(SYS_futex, &q->epoch, FUTEX_WAIT_BITSET_PRIVATE, epoch, &ts, NULL,
			        FUTEX_BITSET_MATCH_ANY);
		} else {
			syscall(SYS_futex, &q->epoch, FUTEX_WAIT_PRIVATE, epoch, NULL, NULL, 0);
		}
	}
	atomic_fetch_sub_explicit(&q->sleepers, 1, memory_order_relaxed);
}

/* spin until q has something, stop is set, or PSYNC_SPIN_NS pass (or until); true if it has */
static bool spin_for(struct rp_engine *p, struct ring *q, uint64_t until)
{
	uint64_t end = iot_now_ns() + PSYNC_SPIN_NS;

	if (until && until < end)
		end = until;
	for (unsigned i = 0;; i++) {
		if (ring_ready(q) || atomic_load_explicit(&p->stop, memory_order_relaxed))
			return true;
		if (!(i & 63) && iot_now_ns() >= end)
			return false;
		relax();
	}
}

/* On a RAM device the IO is a copy by the CPU that issues it, and O_DIRECT pins the buffer's
 * pages: a slot buffer or the shared write pattern used by both CPUs in turn moves its pages'
 * reference counts between their caches at every IO. So a thread reads into its own buffer
 * (nobody looks at read data) and writes from its own copy of the pattern (the same bytes). */
static void exec(struct rp_engine *p, struct rp_io *io, struct tbufs *tb)
{
	void *buf = io->buf;
	int fd = io->fd;

	if (tb) {
		if (io->op == RP_OP_READ && io->buf_index >= 0 && io->len <= RP_SLOT_BYTES)
			io->buf = tb->rd;
		else if (io->op == RP_OP_WRITE && buf == p->pattern && io->len <= RP_SLOT_BYTES)
			io->buf = tb->wr;
		for (unsigned i = 0; i < p->nfds; i++)
			if (p->fds[i] == fd && tb->fds[i] >= 0)
				io->fd = tb->fds[i];
	}
	io->res = rp_io_sync(io);
	io->buf = buf;
	io->fd = fd;
	io->t_done = iot_now_ns();
}

/* A thread's own opening of a target: each system call on a descriptor takes a reference on
 * its open file, a count that every CPU doing IO through it would pass around. The target's
 * own descriptor holds the exclusive claim (O_EXCL), so the copy opens without it. */
static int reopen(int fd)
{
	char path[64];
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, (fl & (O_ACCMODE | O_DIRECT | O_DSYNC | O_SYNC)) | O_CLOEXEC);
}

static void *worker(void *arg)
{
	struct rp_engine *p = ((struct warg *)arg)->p;
	struct tbufs *tb = ((struct warg *)arg)->tb;

	for (;;) {
		struct rp_io *io = sq_pop(&p->sq);

		if (io) {
			exec(p, io, tb);
			cq_push(&p->cq, io);
			ring_notify(&p->cq, false);
			continue;
		}
		if (atomic_load_explicit(&p->stop, memory_order_acquire))
			break;
		if (!spin_for(p, &p->sq, 0))
			ring_sleep(&p->sq, &p->stop, 0);
	}
	return NULL;
}

static void psync_cleanup(struct rp_engine *p)
{
	if (!p)
		return;
	atomic_store(&p->stop, true);
	atomic_fetch_add(&p->sq.epoch, 1);
	syscall(SYS_futex, &p->sq.epoch, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	for (unsigned i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	free(p->threads);
	free(p->wargs);
	for (unsigned i = 0; i < p->ntb; i++)
		for (unsigned j = 0; j < PSYNC_MAX_FDS; j++)
			if (p->tb[i].fds[j] >= 0)
				close(p->tb[i].fds[j]);
	free(p->tb);
	if (p->tbmem)
		munmap(p->tbmem, p->tbmem_len);
	free(p->sq.cells);
	free(p->cq.cells);
	free(p);
}

static int psync_init(struct rp_engine **out, const struct rp_engine_conf *c, struct iot_err *e)
{
	struct rp_engine *p = aligned_alloc(CACHELINE, sizeof(*p));
	unsigned want;

	if (!p)
		return iot_err_set(e, -ENOMEM, "out of memory");
	memset(p, 0, sizeof(*p));
	atomic_init(&p->stop, false);
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
	p->threads = calloc(want ? want : 1, sizeof(*p->threads));
	p->wargs = calloc(want ? want : 1, sizeof(*p->wargs));
	if (ring_init(&p->sq, c->depth, false) || ring_init(&p->cq, c->depth, true) ||
	    !p->threads || !p->wargs) {
		psync_cleanup(p);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	if (p->help) {
		p->tb = calloc(want + 1, sizeof(*p->tb));
		p->tbmem_len = (size_t)(want + 1) * 2 * RP_SLOT_BYTES;
		p->tbmem = mmap(NULL, p->tbmem_len, PROT_READ | PROT_WRITE,
		                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p->tbmem == MAP_FAILED)
			p->tbmem = NULL;
		if (!p->tb || !p->tbmem) {
			psync_cleanup(p);
			return iot_err_set(e, -ENOMEM, "out of memory");
		}
		p->ntb = want + 1;
		p->pattern = c->pattern;
		p->nfds = c->nfds < PSYNC_MAX_FDS ? c->nfds : PSYNC_MAX_FDS;
		for (unsigned j = 0; j < p->nfds; j++)
			p->fds[j] = c->fds[j];
		for (unsigned i = 0; i <= want; i++) {
			/* workers open the targets again; the reaper uses the targets' own */
			for (unsigned j = 0; j < PSYNC_MAX_FDS; j++)
				p->tb[i].fds[j] = i < want && j < p->nfds ? reopen(p->fds[j]) : -1;
			p->tb[i].rd = p->tbmem + (size_t)i * 2 * RP_SLOT_BYTES;
			p->tb[i].wr = p->tb[i].rd + RP_SLOT_BYTES;
			if (c->pattern)
				memcpy(p->tb[i].wr, c->pattern, RP_SLOT_BYTES);
		}
	}
	/* only with threads: a lone reaper has nobody to fence against, and never sleeps on the
	 * submission queue */
	if (want && !syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0))
		p->sq.asym = p->cq.asym = true;
	p->want = want;
	*out = p;
	return 0;
}

/* The threads start with the first IO queued, not before: a trace of dependent IOs does them
 * all in the caller's thread (run()), and an idle thread would still cost each of its system
 * calls: a process with one thread uses its descriptors without taking a reference, one with
 * two takes and drops one per call (fdget/fput), on a RAM device's 4 KiB IO as much as the
 * rest of the replay's own code. 0 or -errno. */
static int start_threads(struct rp_engine *p)
{
	for (; p->nthreads < p->want; p->nthreads++) {
		struct warg *a = &p->wargs[p->nthreads];
		int ret;

		a->p = p;
		a->tb = p->tb ? &p->tb[p->nthreads] : NULL;
		ret = pthread_create(&p->threads[p->nthreads], NULL, worker, a);
		if (ret)
			return -ret;
	}
	return 0;
}

static int psync_queue(struct rp_engine *p, struct rp_io *io)
{
	int ret;

	if (__builtin_expect(p->nthreads < p->want, 0) && (ret = start_threads(p)))
		return ret;
	if (!sq_push(&p->sq, io))
		return -EBUSY;
	ring_notify(&p->sq, false);
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

	for (;;) {
		struct rp_io *io;

		while (n < max && (io = cq_pop(&p->cq)))
			done[n++] = io;
		if (n)
			break;
		/* a RAM device's IO takes microseconds, and a caller with a deadline asks to wait
		 * only until its final spin, which leaves it that much margin; even a caller that
		 * does not wait gets one done, so an IO is never left for a later wait */
		if (p->help && (io = sq_pop(&p->sq))) {
			exec(p, io, p->tb ? &p->tb[p->want] : NULL);
			done[n++] = io;
			continue;
		}
		if (!wait_until || (wait_until != RP_WAIT_FOREVER && iot_now_ns() >= wait_until))
			break;
		/* spin only when waiting is all there is to do: a caller with a deadline spins
		 * itself before it, and two spinners starve a real-time CPU budget */
		if (wait_until == RP_WAIT_FOREVER) {
			if (!spin_for(p, &p->cq, 0))
				ring_sleep(&p->cq, &p->stop, 0);
		} else {
			ring_sleep(&p->cq, &p->stop, wait_until);
		}
	}
	return (int)n;
}

/* In the submitter's thread, with the reaper's own buffers on a RAM device, as when it helps */
static void psync_run(struct rp_engine *p, struct rp_io *io)
{
	exec(p, io, p->tb ? &p->tb[p->want] : NULL);
}

const struct rp_engine_ops rp_engine_psync = {
    .name = "psync",
    .init = psync_init,
    .queue = psync_queue,
    .commit = psync_commit,
    .reap = psync_reap,
    .run = psync_run,
    .cleanup = psync_cleanup,
};
