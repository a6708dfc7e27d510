/* SPDX-License-Identifier: MIT */
/* Dependent IOs done in the scheduler's own thread, found by reading ahead across batches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_replay.h"

/* 4 KiB reads of device 8,16 */
#define D(t, s) add(BLK_A_ISSUE, t, s, 4096, BLK_F_READ)
#define C(t, s) add(BLK_A_COMPLETE, t, s, 4096, BLK_F_READ)
#define Q(t, s) add(BLK_A_QUEUE, t, s, 4096, BLK_F_READ)

/* The trace through a source of batches of at most bn events (0: one event at a time through
 * next()). A batch is copied into a buffer the next call overwrites, and the one before is
 * poisoned: a replay that kept a pointer into it would read garbage. */
struct src {
	size_t i;
	unsigned bn;
	struct blk_event buf[2][512];
	unsigned cur;
};
static struct src S;

static int one(void *arg, struct blk_event *ev, struct iot_err *e)
{
	struct src *s = arg;

	(void)e;
	if (s->i == nev)
		return 0;
	*ev = evs[s->i++];
	return 1;
}

static int batch(void *arg, const struct blk_event **ev, unsigned *n, struct iot_err *e)
{
	struct src *s = arg;
	unsigned k = 0;

	(void)e;
	memset(s->buf[s->cur], 0xa5, sizeof(s->buf[s->cur]));
	s->cur ^= 1;
	while (k < s->bn && s->i < nev)
		s->buf[s->cur][k++] = evs[s->i++];
	if (!k)
		return 0;
	*ev = s->buf[s->cur];
	*n = k;
	return 1;
}

/* what the replay did, in issue order */
static uint64_t off_seen[512], t_issue[512], t_done[512];
static size_t nseen;

static void observe(void *arg, const struct rp_io *io, bool done)
{
	(void)arg;
	if (!done) {
		off_seen[io->seq] = io->off;
		t_issue[io->seq] = io->t_issue;
		nseen++;
	} else {
		t_done[io->seq] = io->t_done;
	}
}

static struct replay_opts opts(void)
{
	struct replay_opts o = null_opts(observe);

	o.timing = RP_TIMING_AFAP;
	return o;
}

static void run(const struct replay_opts *o, unsigned bn, struct replay_stats *st)
{
	struct rp_source src = {.next = one, .arg = &S};
	struct iot_err e = {{0}};
	int ret;

	memset(&S, 0, sizeof(S));
	S.bn = bn;
	if (bn)
		src.batch = batch;
	nseen = 0;
	ret = replay_run(o, &src, st, &e);
	if (ret)
		fail_msg("replay_run: %d %s", ret, e.msg);
}

static const unsigned sizes[] = {0, 1, 2, 3, 5, 256};

/* each IO issued after the one before completed: every one done inline, in order, and each
 * after the one before it completed */
static void test_chain_inline(void **state)
{
	struct replay_opts o = opts();
	struct replay_stats st;

	(void)state;
	nev = 0;
	for (int i = 0; i < 40; i++) {
		D(i * 100 * US, 8 * i);
		C(i * 100 * US + 50 * US, 8 * i);
	}
	o.null_lat_ns = 100 * US;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		run(&o, sizes[k], &st);
		assert_int_equal(st.ios, 40);
		assert_int_equal(st.inline_ios, 40);
		assert_int_equal(st.max_inflight, 1);
		assert_int_equal(st.dep_waits, 0); /* nothing was in flight to wait for */
		for (int i = 0; i < 40; i++)
			assert_int_equal(off_seen[i], 8 * 512 * i);
		for (int i = 1; i < 40; i++)
			assert_true(t_issue[i] >= t_done[i - 1]);
		assert_true(t_done[0] >= t_issue[0] + 100 * US); /* the null engine's latency */
	}
}

/* IOs that overlapped in the trace go to the engine as before: none inline */
static void test_overlap_queued(void **state)
{
	struct replay_opts o = opts();
	struct replay_stats st;

	(void)state;
	nev = 0;
	for (int i = 0; i < 10; i++)
		D(i * US, 8 * i);
	for (int i = 0; i < 10; i++)
		C(1000 * MS + i * US, 8 * i);
	o.null_lat_ns = 1 * MS;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		run(&o, sizes[k], &st);
		assert_int_equal(st.ios, 10);
		assert_int_equal(st.inline_ios, 0);
		assert_int_equal(st.max_inflight, 10);
	}
	/* --depth 1: nothing can overlap, every IO is done inline */
	o.depth = 1;
	run(&o, 2, &st);
	assert_int_equal(st.inline_ios, 10);
	assert_int_equal(st.max_inflight, 1);
}

/* A completion further ahead than a batch's rest can be kept (64 events) is not looked for:
 * the IO goes to the engine; within one batch it is found however far */
static void test_lookahead_bound(void **state)
{
	struct replay_opts o = opts();
	struct replay_stats st;

	(void)state;
	nev = 0;
	D(0, 0);
	for (int i = 0; i < 70; i++) /* completions of IOs the trace never issued */
		C(1 * US + i, 100000 + 8 * i);
	C(100 * US, 0);
	D(200 * US, 8);
	C(300 * US, 8);
	D(400 * US, 16); /* the last: its C is at the end, found */
	C(500 * US, 16);
	run(&o, 0, &st);
	assert_int_equal(st.ios, 3);
	assert_int_equal(st.inline_ios, 2);
	for (int i = 0; i < 3; i++)
		assert_int_equal(off_seen[i], 8 * 512 * i);
	run(&o, 3, &st);
	assert_int_equal(st.inline_ios, 2);
	run(&o, 256, &st);
	assert_int_equal(st.ios, 3);
	assert_int_equal(st.inline_ios, 3);
}

/* queue mode: the next Q is what a completion must come before */
static void test_queue_mode_chain(void **state)
{
	struct replay_opts o = opts();
	struct replay_stats st;

	(void)state;
	nev = 0;
	for (int i = 0; i < 8; i++) {
		Q(i * 100 * US, 8 * i);
		D(i * 100 * US + 1 * US, 8 * i);
		C(i * 100 * US + 50 * US, 8 * i);
	}
	/* two queued together, then completed: both to the engine */
	Q(1000 * US, 800);
	Q(1001 * US, 808);
	D(1002 * US, 800);
	C(1050 * US, 800);
	o.from = RP_FROM_QUEUE;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		run(&o, sizes[k], &st);
		assert_int_equal(st.ios, 10);
		assert_int_equal(st.inline_ios, 8); /* the last two overlapped */
	}
}

/*
 * A depth-1 stretch between overlapping IOs: the IOs of the stretch are done inline, the
 * trace's depth, span and dependency waits are what the window gives (a C of nothing
 * completes nothing and does not extend the span; a C the replay has not caught up with
 * makes the next IO wait), in every batching, in issue and in queue mode.
 */
static void test_stretch_stats(void **state)
{
	static const uint64_t want_off[] = {0, 8, 16, 24, 32, 40, 48};
	struct replay_opts o = opts();
	struct replay_stats st;

	(void)state;
	for (int from = 0; from < 2; from++) {
		nev = 0;
		if (from)
			Q(0, 0);
		D(0, 0);
		C(50 * US, 0); /* a chain of two */
		if (from)
			Q(100 * US, 8);
		D(100 * US, 8);
		C(150 * US, 8);
		if (from) {
			Q(200 * US, 16);
			Q(201 * US, 24);
		}
		D(200 * US, 16); /* two overlap: queued */
		D(201 * US, 24);
		C(250 * US, 16);
		C(260 * US, 24);
		if (from)
			Q(300 * US, 32);
		D(300 * US, 32); /* its C after a C of nothing */
		C(320 * US, 999992);
		C(350 * US, 32);
		if (from)
			Q(400 * US, 40);
		D(400 * US, 40); /* its C after the next D: queued */
		if (from)
			Q(450 * US, 48);
		D(450 * US, 48);
		C(460 * US, 40);
		C(470 * US, 48);
		o.from = from ? RP_FROM_QUEUE : RP_FROM_ISSUE;
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			run(&o, sizes[k], &st);
			assert_int_equal(st.ios, 7);
			assert_int_equal(st.inline_ios, 3);
			assert_int_equal(st.max_inflight, 2);
			assert_int_equal(st.trace_max_depth, 2);
			assert_int_equal(st.dep_waits, 1); /* 32 after 16 and 24 */
			assert_int_equal(st.trace_span_ns, 470 * US);
			assert_int_equal(st.pend_evicted, 0);
			assert_int_equal(nseen, 7);
			for (int i = 0; i < 7; i++)
				assert_int_equal(off_seen[i], want_off[i] * 512);
		}
	}
}

/* a chain alone: the trace's depth is 1 and its span ends at the last C */
static void test_chain_stats(void **state)
{
	struct replay_opts o = opts();
	struct replay_stats st;

	(void)state;
	nev = 0;
	for (int i = 0; i < 5; i++) {
		D(i * 100 * US, 8 * i);
		C(i * 100 * US + 50 * US, 8 * i);
	}
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		run(&o, sizes[k], &st);
		assert_int_equal(st.inline_ios, 5);
		assert_int_equal(st.trace_max_depth, 1);
		assert_int_equal(st.trace_span_ns, 450 * US);
		assert_int_equal(st.dep_waits, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_chain_inline),    cmocka_unit_test(test_overlap_queued),
	    cmocka_unit_test(test_lookahead_bound), cmocka_unit_test(test_queue_mode_chain),
	    cmocka_unit_test(test_stretch_stats),   cmocka_unit_test(test_chain_stats),
	};

	return cmocka_run_group_tests(tests, target_setup, target_teardown);
}
