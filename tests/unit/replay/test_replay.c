/* SPDX-License-Identifier: MIT */
/* The scheduler with the null engine: timing, the dependency rule, depth, safety, placement. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <pthread.h>
#include <time.h>

#include "common/clock.h"
#include "test_replay.h"

/* ---- an in-memory event source ---------------------------------------------------- */
struct arr {
	struct blk_event *ev;
	size_t n, i;
};

static int arr_next(void *arg, struct blk_event *ev, struct iot_err *e)
{
	struct arr *a = arg;

	(void)e;
	if (a->i == a->n)
		return 0;
	*ev = a->ev[a->i++];
	return 1;
}

#define D(t, s, b, f) add(BLK_A_ISSUE, t, s, b, f)
#define C(t, s, b, f) add(BLK_A_COMPLETE, t, s, b, f)
#define Q(t, s, b, f) add(BLK_A_QUEUE, t, s, b, f)
#define RD BLK_F_READ
#define WR BLK_F_WRITE

/* ---- what the replay did ------------------------------------------------------------ */
struct seen {
	uint64_t seq, t_issue, t_done, off;
	uint32_t len;
	unsigned op;
};
static struct seen seen[4096];
static size_t nseen;

static void observe(void *arg, const struct rp_io *io, bool done)
{
	(void)arg;
	if (!done) {
		seen[io->seq].seq = io->seq;
		seen[io->seq].t_issue = io->t_issue;
		seen[io->seq].off = io->off;
		seen[io->seq].len = io->len;
		seen[io->seq].op = io->op;
		nseen++;
	} else {
		seen[io->seq].t_done = io->t_done;
	}
}

static struct replay_opts opts(void)
{
	struct replay_opts o = null_opts(observe);

	nseen = 0;
	memset(seen, 0, sizeof(seen));
	return o;
}

static void run(const struct replay_opts *o, struct replay_stats *st)
{
	struct arr a = {evs, nev, 0};
	struct rp_source src = {.next = arr_next, .arg = &a};
	struct iot_err e = {{0}};
	int ret = replay_run(o, &src, st, &e);

	if (ret)
		fail_msg("replay_run: %d %s", ret, e.msg);
}

/* ---- timing ------------------------------------------------------------------------- */

static void test_original_timing(void **state)
{
	struct replay_opts o = opts();
	struct replay_stats st;

	(void)state;
	nev = 0;
	for (int i = 0; i < 5; i++) {
		D(1000 * MS + i * 2 * MS, 8 * i, 4096, RD);
		C(1000 * MS + i * 2 * MS + 100 * US, 8 * i, 4096, RD);
	}
	run(&o, &st);
	assert_int_equal(st.ios, 5);
	assert_int_equal(nseen, 5);
	for (int i = 1; i < 5; i++) {
		uint64_t off = seen[i].t_issue - seen[0].t_issue;

		/* never early (the first IO may itself be late, hence the slack); late only by
		 * what a loaded 2-CPU machine can do to a thread (lag spikes of several ms seen) */
		assert_true(off + 50 * US >= (uint64_t)i * 2 * MS);
		assert_true(off <= (uint64_t)i * 2 * MS + 50 * MS);
	}
	assert_int_equal(st.lag.count, 5);
	assert_int_equal(st.trace_span_ns, 8 * MS + 100 * US);
}

static void test_speed(void **state)
{
	struct replay_opts o = opts();
	struct replay_stats st;
	uint64_t off;

	(void)state;
	nev = 0;
	D(0, 0, 4096, RD);
	C(10 * US, 0, 4096, RD);
	D(20 * MS, 8, 4096, RD);
	C(20 * MS + 10 * US, 8, 4096, RD);
	o.speed = 4;
	run(&o, &st);
	off = seen[1].t_issue - seen[0].t_issue;
	assert_true(off + 50 * US >= 5 * MS);
	assert_true(off <= 5 * MS + 50 * MS);
}

static volatile sig_atomic_t stop_flag;

static void *stop_later(void *arg)
{
	struct timespec ts = {0, (long)(uintptr_t)arg};

	nanosleep(&ts, NULL);
	stop_flag = 1;
	return NULL;
}

/* A stop request during a long idle stretch ends the replay at once, not when the next IO
 * is due; the summary counts what was replayed. */
static void test_stop_while_idle(void **state)
{
	struct replay_opts o = opts();
	struct replay_stats st;
	pthread_t th;
	uint64_t t0, took;

	(void)state;
	nev = 0;
	D(0, 0, 4096, RD);
	C(10 * US, 0, 4096, RD);
	D(60000 * MS, 8, 4096, RD); /* a minute later */
	C(60000 * MS + 10 * US, 8, 4096, RD);
	stop_flag = 0;
	o.stop = &stop_flag;
	t0 = iot_now_ns();
	assert_int_equal(pthread_create(&th, NULL, stop_later, (void *)(uintptr_t)(50 * MS)), 0);
	run(&o, &st);
	took = iot_now_ns() - t0;
	pthread_join(th, NULL);
	/* within 100 ms of the request (plus what a loaded machine adds to a thread) */
	assert_true(took < 50 * MS + 100 * MS + 100 * MS);
	assert_true(st.stopped);
	assert_int_equal(st.ios, 1);
	assert_int_equal(st.trace_ios, 2);
	/* while waiting for the dependency rule too: IO 1 waits for IO 0 (completed in the trace
	 * before IO 1 was issued), which takes a minute on the null engine */
	nev = 0;
	D(0, 0, 4096, RD);
	C(10 * US, 0, 4096, RD);
	D(1 * MS, 8, 4096, RD);
	C(2 * MS, 8, 4096, RD);
	o.timing = RP_TIMING_AFAP;
	o.null_lat_ns = 100 * MS;
	stop_flag = 0;
	t0 = iot_now_ns();
	assert_int_equal(pthread_create(&th, NULL, stop_later, (void *)(uintptr_t)(20 * MS)), 0);
	run(&o, &st);
	pthread_join(th, NULL);
	took = iot_now_ns() - t0;
	assert_true(st.stopped);
	assert_int_equal(st.ios, 1);
	assert_true(took < 200 * MS); /* the drain waits for IO 0 (100 ms), not for more */
	/* a trace without completions (a fio iolog): the IO waiting for its time has no window
	 * entry to give back */
	nev = 0;
	D(0, 0, 4096, RD);
	D(60000 * MS, 8, 4096, RD);
	o.timing = RP_TIMING_ORIGINAL;
	o.null_lat_ns = 0;
	o.no_completions = true;
	stop_flag = 0;
	assert_int_equal(pthread_create(&th, NULL, stop_later, (void *)(uintptr_t)(20 * MS)), 0);
	run(&o, &st);
	pthread_join(th, NULL);
	assert_true(st.stopped);
	assert_int_equal(st.ios, 1);
}

/* Time that leaps ahead (a corrupt timestamp, or one near 2^64) is refused, not waited for */
static void test_time_leap(void **state)
{
	struct replay_opts o = opts();
	struct replay_stats st;
	struct arr a;
	struct rp_source src = {.next = arr_next, .arg = &a};
	struct iot_err e = {{0}};
	uint64_t t0 = iot_now_ns();

	(void)state;
	nev = 0;
	D(1000 * MS, 0, 4096, RD);
	C(1001 * MS, 0, 4096, RD);
	D(UINT64_MAX - 1000, 8, 4096, RD);
	C(UINT64_MAX - 10, 8, 4096, RD);
	a = (struct arr){evs, nev, 0};
	assert_int_equal(replay_run(&o, &src, &st, &e), -ERANGE);
	assert_non_null(strstr(e.msg, "leaps"));
	assert_non_null(strstr(e.msg, "IO #1"));
	assert_non_null(strstr(e.msg, "--max-gap"));
	assert_true(iot_now_ns() - t0 < 1000 * MS);
	/* with no limit, still refused: no clock waits that long */
	o.max_gap_ns = UINT64_MAX;
	a = (struct arr){evs, nev, 0};
	assert_int_equal(replay_run(&o, &src, &st, &e), -ERANGE);
	assert_non_null(strstr(e.msg, "past what the clock can wait for"));
	/* a gap longer than the limit set */
	nev = 0;
	D(0, 0, 4096, RD);
	C(1 * MS, 0, 4096, RD);
	D(300 * MS, 8, 4096, RD);
	C(301 * MS, 8, 4096, RD);
	o.max_gap_ns = 100 * MS;
	a = (struct arr){evs, nev, 0};
	assert_int_equal(replay_run(&o, &src, &st, &e), -ERANGE);
	/* afap: time does not matter */
	o.timing = RP_TIMING_AFAP;
	a = (struct arr){evs, nev, 0};
	assert_int_equal(replay_run(&o, &src, &st, &e), 0);
	assert_int_equal(st.ios, 2);
}

static void test_afap_ignores_gaps(void **state)
{
	struct replay_opts o = opts();
	struct replay_stats st;

	(void)state;
	nev = 0;
	for (int i = 0; i < 100; i++) {
		D(i * 10 * MS, 8 * i, 4096, RD);
		C(i * 10 * MS + 10 * US, 8 * i, 4096, RD);
	}
	o.timing = RP_TIMING_AFAP;
	run(&o, &st);
	assert_int_equal(st.ios, 100);
	assert_true(st.replay_span_ns < 200 * MS); /* the trace spans 990 ms */
	assert_int_equal(st.lag.count, 0);
	for (int i = 0; i < 100; i++)
		assert_int_equal(seen[i].off, 8 * 512 * i); /* trace order */
}

/* ---- the dependency rule -------------------------------------------------------------- */

static void test_dependency(void **state)
{
	struct replay_opts o = opts();
	struct replay_stats st;

	(void)state;
	nev = 0;
	D(0, 0, 4096, RD);      /* A */
	D(500, 100, 4096, RD);  /* X: A still in flight in the trace, must not wait */
	C(1000, 0, 4096, RD);   /* A completes */
	D(2000, 200, 4096, RD); /* B: the trace had completed A, so B waits for A */
	C(10000, 100, 4096, RD);
	C(20000, 200, 4096, RD);
	o.timing = RP_TIMING_AFAP;
	o.null_lat_ns = 40 * MS; /* long against what a loaded machine does to a thread */
	run(&o, &st);
	assert_int_equal(st.ios, 3);
	assert_true(seen[1].t_issue - seen[0].t_issue < 20 * MS);
	assert_true(seen[2].t_issue >= seen[0].t_done);
	/* X's completion came after B's issue in the trace: B did not wait for X's */
	assert_true(seen[2].t_issue < seen[1].t_done || seen[2].t_issue - seen[1].t_done < 20 * MS);
	assert_int_equal(st.dep_waits, 1);
	assert_int_equal(st.max_inflight, 2);
	assert_int_equal(st.trace_max_depth, 2);
}

static void test_depth_follows_trace(void **state)
{
	struct replay_opts o = opts();
	struct replay_stats st;

	(void)state;
	nev = 0;
	/* a chain: each IO issued after the previous completed: depth 1 */
	for (int i = 0; i < 20; i++) {
		D(i * 100 * US, 8 * i, 4096, RD);
		C(i * 100 * US + 50 * US, 8 * i, 4096, RD);
	}
	o.timing = RP_TIMING_AFAP;
	o.null_lat_ns = 200 * US;
	run(&o, &st);
	assert_int_equal(st.max_inflight, 1);
	assert_int_equal(st.trace_max_depth, 1);
	for (int i = 1; i < 20; i++)
		assert_true(seen[i].t_issue >= seen[i - 1].t_done);
}

static void test_depth_cap(void **state)
{
	struct replay_opts o = opts();
	struct replay_stats st;

	(void)state;
	nev = 0;
	for (int i = 0; i < 10; i++)
		D(i * US, 8 * i, 4096, RD);
	for (int i = 0; i < 10; i++)
		C(1000 * MS + i * US, 8 * i, 4096, RD);
	o.timing = RP_TIMING_AFAP;
	o.null_lat_ns = 1 * MS;
	run(&o, &st);
	assert_int_equal(st.max_inflight, 10);
	assert_int_equal(st.trace_max_depth, 10);
	assert_int_equal(st.dep_waits, 0);

	o = opts();
	o.timing = RP_TIMING_AFAP;
	o.null_lat_ns = 1 * MS;
	o.depth = 3;
	run(&o, &st);
	assert_int_equal(st.max_inflight, 3);
	assert_true(st.depth_waits >= 3);
	assert_int_equal(st.ios, 10);
}

static void test_queue_mode(void **state)
{
	struct replay_opts o = opts();
	struct replay_stats st;

	(void)state;
	nev = 0;
	/* two queued 4 KiB IOs merged into one 8 KiB request; then one queued after its C */
	Q(0, 0, 4096, WR);
	Q(100, 8, 4096, WR);
	D(200, 0, 8192, WR);
	C(1000, 0, 8192, WR);
	Q(2000, 64, 4096, WR);
	D(2100, 64, 4096, WR);
	C(3000, 64, 4096, WR);
	o.timing = RP_TIMING_AFAP;
	o.null_lat_ns = 40 * MS;
	o.from = RP_FROM_QUEUE;
	o.allow_writes = true;
	run(&o, &st);
	assert_int_equal(st.ios, 3);
	assert_int_equal(seen[0].len, 4096);
	assert_int_equal(seen[1].off, 8 * 512);
	assert_true(seen[1].t_issue - seen[0].t_issue < 20 * MS);
	/* the third waits for both merged ones */
	assert_true(seen[2].t_issue >= seen[0].t_done);
	assert_true(seen[2].t_issue >= seen[1].t_done);
	assert_int_equal(st.ops[RP_OP_WRITE], 3);
}

/* A C completes the oldest pending IO of its device and sector: here a skipped write (which
 * holds nothing back), so the read after it does not wait; the second C completes the read
 * the trace issued second, and only what comes after waits for it. A C of another device
 * completes nothing. */
static void test_match_oldest(void **state)
{
	struct replay_opts o = opts();
	struct replay_stats st;

	(void)state;
	nev = 0;
	D(0, 0, 4096, WR);   /* skipped: no --allow-writes */
	D(100, 0, 4096, RD); /* A, same sector */
	C(200, 0, 4096, RD); /* completes the write, the oldest */
	evs[nev - 1].dev = BLK_MKDEV(8, 16);
	C(250, 0, 4096, RD); /* another device: completes nothing */
	evs[nev - 1].dev = BLK_MKDEV(8, 32);
	D(300, 8, 4096, RD);  /* B: nothing to wait for */
	C(400, 0, 4096, RD);  /* completes A */
	D(500, 16, 4096, RD); /* waits for A */
	C(600, 8, 4096, RD);
	C(700, 16, 4096, RD);
	o.timing = RP_TIMING_AFAP;
	o.null_lat_ns = 40 * MS;
	run(&o, &st);
	assert_int_equal(st.ios, 3);
	assert_int_equal(st.skipped_writes, 1);
	assert_true(seen[1].t_issue < seen[0].t_done);
	assert_true(seen[2].t_issue >= seen[0].t_done);
	assert_int_equal(st.dep_waits, 1);
	assert_int_equal(st.trace_max_depth, 2);
}

/* ---- the pending window ------------------------------------------------------------------ */
struct gen {
	uint64_t i, n, ncomp;
};

/* n reads at 4 KiB steps over the first 64 MiB (so sectors repeat every 16384), none
 * completed; then ncomp Cs for sectors 0, 8, 16 ...; then one read */
static int gen_next(void *arg, struct blk_event *ev, struct iot_err *e)
{
	struct gen *g = arg;
	uint64_t i = g->i++;

	(void)e;
	memset(ev, 0, sizeof(*ev));
	ev->dev = BLK_MKDEV(8, 16);
	ev->bytes = 4096;
	ev->flags = RD;
	ev->time = i * 1000;
	if (i < g->n) {
		ev->action = BLK_A_ISSUE;
		ev->sector = (i % 16384) * 8;
	} else if (i < g->n + g->ncomp) {
		ev->action = BLK_A_COMPLETE;
		ev->sector = ((i - g->n) % 16384) * 8;
	} else if (i == g->n + g->ncomp) {
		ev->action = BLK_A_ISSUE;
		ev->sector = 8;
	} else {
		return 0;
	}
	return 1;
}

/* More pending than the window holds: the oldest leave it (counted) and hold nothing back;
 * Cs still find the oldest pending IO of their sector among several */
static void test_window_eviction(void **state)
{
	struct replay_opts o = opts();
	struct replay_stats st;
	struct gen g = {0, RP_PEND_MAX + 100, 16384 + 5};
	struct rp_source src = {.next = gen_next, .arg = &g};
	struct iot_err e = {{0}};

	(void)state;
	o.observe = NULL;
	o.timing = RP_TIMING_AFAP;
	assert_int_equal(replay_run(&o, &src, &st, &e), 0);
	assert_int_equal(st.ios, RP_PEND_MAX + 101);
	assert_int_equal(st.pend_evicted, 100);
	assert_int_equal(st.trace_max_depth, RP_PEND_MAX);
	assert_int_equal(st.dep_waits, 0);
}

/* ---- safety -------------------------------------------------------------------------- */

static void mixed(void)
{
	nev = 0;
	D(0, 0, 4096, RD);
	D(10, 8, 4096, WR);
	D(20, 16, 4096, WR | BLK_F_DISCARD);
	D(30, 0, 0, WR | BLK_F_FLUSH);
	D(40, 24, 4096, WR | BLK_F_WRITE_ZEROES);
	D(50, 32, 8192, WR | BLK_F_FUA);
}

static void test_writes_skipped(void **state)
{
	struct replay_opts o = opts();
	struct replay_stats st;

	(void)state;
	mixed();
	o.timing = RP_TIMING_AFAP;
	run(&o, &st);
	assert_int_equal(st.trace_ios, 6);
	assert_int_equal(st.ios, 2); /* the read and the flush */
	assert_int_equal(st.ops[RP_OP_READ], 1);
	assert_int_equal(st.ops[RP_OP_FLUSH], 1);
	assert_int_equal(st.ops[RP_OP_WRITE], 0);
	assert_int_equal(st.skipped_writes, 4);
	for (size_t i = 0; i < nseen; i++)
		assert_true(seen[i].op == RP_OP_READ || seen[i].op == RP_OP_FLUSH);
}

static void test_writes_as_reads(void **state)
{
	struct replay_opts o = opts();
	struct replay_stats st;

	(void)state;
	mixed();
	o.timing = RP_TIMING_AFAP;
	o.writes_as_reads = true;
	run(&o, &st);
	assert_int_equal(st.ios, 4);
	assert_int_equal(st.ops[RP_OP_READ], 3);
	assert_int_equal(st.writes_as_reads, 2);
	assert_int_equal(st.skipped_writes, 2); /* discard and write-zeroes cannot be reads */
	assert_int_equal(st.ops[RP_OP_WRITE], 0);
}

static void test_writes_allowed(void **state)
{
	struct replay_opts o = opts();
	struct replay_stats st;

	(void)state;
	mixed();
	o.timing = RP_TIMING_AFAP;
	o.allow_writes = true;
	o.skip_write_zeroes = true;
	run(&o, &st);
	assert_int_equal(st.ios, 5);
	assert_int_equal(st.ops[RP_OP_WRITE], 2);
	assert_int_equal(st.ops[RP_OP_DISCARD], 1);
	assert_int_equal(st.ops[RP_OP_FLUSH], 1);
	assert_int_equal(st.skipped_wzero, 1);
	assert_int_equal(st.skipped_writes, 0);
}

/* ---- placement ----------------------------------------------------------------------- */

static void test_offset_wrap_range(void **state)
{
	struct replay_opts o = opts();
	struct replay_stats st;
	uint64_t big = (100ull << 20) / 512; /* past the 64 MiB target */

	(void)state;
	nev = 0;
	D(0, 8, 4096, RD);
	D(10, big, 4096, RD);
	o.timing = RP_TIMING_AFAP;
	o.offset = 1 << 20;
	run(&o, &st);
	assert_int_equal(st.ios, 1);
	assert_int_equal(seen[0].off, (1 << 20) + 4096);
	assert_int_equal(st.skipped_range, 1);

	o = opts();
	o.timing = RP_TIMING_AFAP;
	o.wrap = true;
	run(&o, &st);
	assert_int_equal(st.ios, 2);
	assert_int_equal(st.wrapped, 1);
	assert_int_equal(seen[1].off, (100ull << 20) % (64ull << 20));
}

static void test_unmapped(void **state)
{
	struct replay_opts o = opts();
	struct replay_stats st;
	struct rp_map m = {BLK_MKDEV(8, 32), target};

	(void)state;
	nev = 0;
	D(0, 8, 4096, RD); /* 8,16: no target */
	D(10, 8, 4096, RD);
	evs[1].dev = BLK_MKDEV(8, 32);
	o.timing = RP_TIMING_AFAP;
	o.target = NULL;
	o.maps = &m;
	o.nmaps = 1;
	run(&o, &st);
	assert_int_equal(st.ios, 1);
	assert_int_equal(st.skipped_unmapped, 1);
}

static void test_place(void **state)
{
	uint64_t out;

	(void)state;
	assert_int_equal(rp_place(0, 4096, 0, 1 << 20, false, &out), 0);
	assert_int_equal(out, 0);
	assert_int_equal(rp_place((1 << 20) - 4096, 4096, 0, 1 << 20, false, &out), 0);
	assert_int_equal(rp_place((1 << 20) - 4096, 4096, 4096, 1 << 20, false, &out), -ERANGE);
	assert_int_equal(rp_place((1 << 20) - 4096, 4096, 4096, 1 << 20, true, &out), 1);
	assert_true(out >= 4096 && out + 4096 <= (1 << 20));
	assert_int_equal(out % 4096, 0);
	assert_int_equal(rp_place(3 << 20, 8192, 0, 1 << 20, true, &out), 1);
	assert_int_equal(out, 0);
	assert_int_equal(rp_place(0, 8192, 0, 4096, true, &out), -ERANGE);
	assert_int_equal(rp_place(UINT64_MAX - 10, 4096, 4096, 1 << 20, false, &out), -ERANGE);
	assert_int_equal(rp_place(0, 4096, 2 << 20, 1 << 20, true, &out), -ERANGE);
	/* a 0-byte IO wrapped onto less than 4 KiB past the offset (fuzz_replay_clock: the
	 * modulo was by zero) */
	assert_int_equal(rp_place(5000, 0, 4096, 4096 + 100, true, &out), 1);
	assert_int_equal(out, 4096);
	assert_int_equal(rp_place(5000, 0, 4096, 4096, true, &out), 1);
	assert_int_equal(out, 4096);
}

static void test_parse_dev_and_pattern(void **state)
{
	uint32_t dev;
	uint8_t a[100], b[100];
	struct iot_err e;

	(void)state;
	assert_int_equal(rp_parse_dev("8,16", &dev, &e), 0);
	assert_int_equal(dev, BLK_MKDEV(8, 16));
	assert_int_equal(rp_parse_dev("259:3", &dev, &e), 0);
	assert_int_equal(dev, BLK_MKDEV(259, 3));
	assert_true(rp_parse_dev("no-such-disk-xyz", &dev, &e) < 0);
	assert_true(rp_parse_dev("../etc", &dev, &e) < 0);
	rp_pattern_fill(a, sizeof(a), 7);
	rp_pattern_fill(b, sizeof(b), 7);
	assert_memory_equal(a, b, sizeof(a));
	rp_pattern_fill(b, sizeof(b), 8);
	assert_memory_not_equal(a, b, sizeof(a));
}

/* The write pattern's bytes are splitmix64's words from the seed, the last one cut: the
 * reference below is the generator as published, a word at a time in the machine's order. */
static void test_pattern_bytes(void **state)
{
	static const size_t lens[] = {0, 1, 7, 8, 9, 15, 16, 17, 4099};
	static uint8_t got[4100], want[4100];

	(void)state;
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		for (uint64_t seed = 7; seed < 0x10000; seed += 0x10ae - 7) {
			uint64_t s = seed;

			for (size_t i = 0; i < lens[k]; i += 8) {
				uint64_t z = (s += 0x9e3779b97f4a7c15ull);

				z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
				z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
				z ^= z >> 31;
				memcpy(want + i, &z, lens[k] - i < 8 ? lens[k] - i : 8);
			}
			memset(got, 0xee, sizeof(got));
			rp_pattern_fill(got, lens[k], seed);
			assert_memory_equal(got, want, lens[k]);
			assert_int_equal(got[lens[k]], 0xee); /* nothing past the end */
		}
	}
}

static void test_json(void **state)
{
	struct replay_opts o = opts();
	struct replay_stats st;
	char *s;

	(void)state;
	mixed();
	o.timing = RP_TIMING_AFAP;
	run(&o, &st);
	s = replay_stats_json(&o, &st);
	assert_non_null(s);
	assert_non_null(strstr(s, "\"skipped\""));
	assert_non_null(strstr(s, "\"writes\": 4"));
	assert_non_null(strstr(s, "\"engine\": \"null\""));
	free(s);
}

/* A kernel without io_uring (or a seccomp policy that forbids it): the automatic choice falls
 * back to the thread engine. The filter is for this process only, so it runs in a child. */
static void test_fallback_without_io_uring(void **state)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {sizeof(f) / sizeof(f[0]), f};
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct replay_opts o = opts();
		struct arr a;
		struct rp_source src = {.next = arr_next, .arg = &a};
		struct replay_stats st;
		struct iot_err e = {{0}};

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
			_exit(3);
		nev = 0;
		D(0, 0, 4096, RD);
		a = (struct arr){evs, nev, 0};
		o.engine = NULL;
		o.timing = RP_TIMING_AFAP;
		if (replay_run(&o, &src, &st, &e))
			_exit(4);
		_exit(st.ios == 1 && !strcmp(st.engine, "psync") ? 0 : 5);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_original_timing),
	    cmocka_unit_test(test_speed),
	    cmocka_unit_test(test_stop_while_idle),
	    cmocka_unit_test(test_time_leap),
	    cmocka_unit_test(test_afap_ignores_gaps),
	    cmocka_unit_test(test_dependency),
	    cmocka_unit_test(test_depth_follows_trace),
	    cmocka_unit_test(test_depth_cap),
	    cmocka_unit_test(test_queue_mode),
	    cmocka_unit_test(test_match_oldest),
	    cmocka_unit_test(test_window_eviction),
	    cmocka_unit_test(test_writes_skipped),
	    cmocka_unit_test(test_writes_as_reads),
	    cmocka_unit_test(test_writes_allowed),
	    cmocka_unit_test(test_offset_wrap_range),
	    cmocka_unit_test(test_unmapped),
	    cmocka_unit_test(test_place),
	    cmocka_unit_test(test_parse_dev_and_pattern),
	    cmocka_unit_test(test_pattern_bytes),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_fallback_without_io_uring),
	};

	return cmocka_run_group_tests(tests, target_setup, target_teardown);
}
