/* SPDX-License-Identifier: MIT */
/* Unit tests: idle gaps at the start, between requests and at the end, threshold boundaries. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyze/blk_idle.h"
#include "test_blk_events.h"

#define MS 1000000ull

static struct blk_idle *run(const struct blk_event *ev, size_t n, uint64_t thr, unsigned top,
                            uint64_t end)
{
	struct blk_opts o;
	struct blk_idle *s;

	blk_opts_init(&o);
	o.idle_threshold_ns = thr;
	o.top = top;
	s = blk_idle_new(&o);
	assert_non_null(s);
	for (size_t i = 0; i < n; i++)
		blk_idle_feed(s, ev[i].dev == BLK_MKDEV(8, 16) ? 1 : 0, &ev[i]);
	blk_idle_finish(s, ev[0].time, end);
	return s;
}

static void test_start_between_end(void **s)
{
	struct blk_event ev[] = {
	    EV_Q(0, 0, 8, R),       /* trace start; queued at the start */
	    EV_D(20 * MS, 0, 8, R), /* ends a 20 ms gap that began with the trace */
	    EV_C(21 * MS, 0, 8, R), /* idle from 21 ms */
	    EV_D(31 * MS, 8, 8, R), /* exactly the threshold: counts */
	    EV_C(32 * MS, 8, 8, R),  EV_D(42 * MS - 1, 16, 8, R), /* one ns short: does not count */
	    EV_C(50 * MS, 16, 8, R),                              /* idle to the end, 100 ms */
	    EV_Q(60 * MS, 24, 8, R),                              /* queued, never issued */
	};
	struct blk_idle *sk;
	const struct blk_idle_dev *d;
	static struct hist scratch;

	(void)s;
	ev[3].pid = 42;
	sk = run(ev, sizeof(ev) / sizeof(ev[0]), 10 * MS, 10, 150 * MS);
	d = blk_idle_dev(sk, 0);
	assert_int_equal(d->gaps, 3);
	assert_int_equal(d->total_ns, 20 * MS + 10 * MS + 100 * MS);
	assert_int_equal(hist_few_view(&d->h, &scratch)->count, 3);
	assert_int_equal(d->ntop, 3);
	/* longest first */
	assert_int_equal(d->top[0].start, 50 * MS);
	assert_int_equal(d->top[0].end, 150 * MS);
	assert_int_equal(d->top[0].ended_by, BLK_GAP_END);
	assert_true(d->top[0].queued);
	assert_int_equal(d->top[0].queued_ns, 90 * MS);
	assert_int_equal(d->top[1].start, 0);
	assert_int_equal(d->top[1].end, 20 * MS);
	assert_true(d->top[1].at_start);
	assert_true(d->top[1].queued);
	assert_int_equal(d->top[1].queued_ns, 20 * MS);
	assert_int_equal(d->top[2].start, 21 * MS);
	assert_int_equal(d->top[2].end, 31 * MS);
	assert_int_equal(d->top[2].pid, 42);
	assert_false(d->top[2].queued);
	assert_false(d->top[2].at_start);
	assert_int_equal(d->top[2].ended_by, BLK_GAP_ISSUE);
	blk_idle_free(sk);
}

/* A device whose first request event is a completion was busy before the trace: no gap at
 * the start. Two requests in flight: idle only once both complete. */
static void test_busy_at_start(void **s)
{
	const struct blk_event ev[] = {
	    EV_Q(0, 0, 8, R),        EV_C(30 * MS, 999, 8, R), EV_D(35 * MS, 0, 8, R),
	    EV_D(36 * MS, 8, 8, R),  EV_C(40 * MS, 0, 8, R),   EV_C(60 * MS, 8, 8, R),
	    EV_D(80 * MS, 16, 8, R), EV_C(81 * MS, 16, 8, R),
	};
	struct blk_idle *sk = run(ev, sizeof(ev) / sizeof(ev[0]), 10 * MS, 10, 81 * MS);
	const struct blk_idle_dev *d = blk_idle_dev(sk, 0);

	(void)s;
	assert_int_equal(d->gaps, 1);
	assert_int_equal(d->total_ns, 20 * MS);
	assert_int_equal(d->top[0].start, 60 * MS);
	blk_idle_free(sk);
}

/* Only the N longest are kept; equal lengths keep time order. Two devices are independent. */
static void test_top_and_devices(void **s)
{
	struct blk_event ev[16];
	size_t n = 0;
	struct blk_idle *sk;
	const struct blk_idle_dev *d;
	static const uint64_t gap_ms[] = {15, 40, 15, 30, 11};
	uint64_t t = 0;

	(void)s;
	for (size_t i = 0; i < 5; i++) {
		ev[n++] = EV_D(t, 8 * i, 8, W);
		ev[n++] = EV_C(t + MS, 8 * i, 8, W);
		t += MS + gap_ms[i] * MS;
	}
	ev[n++] = EV_D(t, 100, 8, W);
	/* the other device: busy from 0 to the end */
	ev[n] = EV_D(1, 0, 8, W);
	ev[n++].dev = BLK_MKDEV(8, 16);
	ev[n] = EV_C(t, 0, 8, W);
	ev[n++].dev = BLK_MKDEV(8, 16);
	/* keep time order for the feed */
	{
		struct blk_event x = ev[n - 2];

		for (size_t i = n - 2; i > 1; i--)
			ev[i] = ev[i - 1];
		ev[1] = x;
	}
	sk = run(ev, n, 10 * MS, 3, t);
	d = blk_idle_dev(sk, 0);
	assert_int_equal(d->gaps, 5);
	assert_int_equal(d->total_ns, (15 + 40 + 15 + 30 + 11) * MS);
	assert_int_equal(d->ntop, 3);
	assert_int_equal(d->top[0].end - d->top[0].start, 40 * MS);
	assert_int_equal(d->top[1].end - d->top[1].start, 30 * MS);
	assert_int_equal(d->top[2].end - d->top[2].start, 15 * MS);
	assert_int_equal(d->top[2].start, 1 * MS); /* the first of the two 15 ms gaps */
	assert_int_equal(blk_idle_dev(sk, 1)->gaps, 0);
	blk_idle_free(sk);
}

static void test_json(void **s)
{
	const struct blk_event ev[] = {EV_D(0, 0, 8, R), EV_C(MS, 0, 8, R), EV_D(50 * MS, 8, 8, R)};
	struct blk_idle *sk = run(ev, 3, 10 * MS, 10, 50 * MS);
	struct blk_json_ctx ctx = {0, 100 * MS, NULL};
	json_t *o = json_object(), *idle, *g;

	(void)s;
	assert_int_equal(blk_idle_to_json(sk, 0, o, &ctx), 0);
	idle = json_object_get(o, "idle");
	assert_int_equal(json_integer_value(json_object_get(idle, "gaps")), 1);
	assert_true(json_real_value(json_object_get(idle, "pct")) == 49.0);
	g = json_array_get(json_object_get(idle, "longest"), 0);
	assert_int_equal(json_integer_value(json_object_get(g, "duration_ns")), 49 * MS);
	assert_string_equal(json_string_value(json_object_get(g, "ended_by")), "issue");
	assert_true(json_is_null(json_object_get(g, "comm")));
	json_decref(o);
	blk_idle_free(sk);
}

/* Gaps whose lengths add up past 2^63 (times near the clock's end): the histogram's sum is no
 * longer a jansson integer, and is written as a real, not cast out of range (fuzz_blk_sinks,
 * UBSan). */
static void test_json_sum_past_int64(void **s)
{
	const uint64_t half = 1ull << 63;
	const struct blk_event ev[] = {EV_D(0, 0, 8, R), EV_C(1, 0, 8, R), EV_D(half, 8, 8, R),
	                               EV_C(half + 1, 8, 8, R), EV_D(UINT64_MAX - 1, 16, 8, R)};
	struct blk_idle *sk = run(ev, 5, 10 * MS, 10, UINT64_MAX - 1);
	struct blk_json_ctx ctx = {0, UINT64_MAX - 1, NULL};
	json_t *o = json_object(), *sum;

	(void)s;
	assert_int_equal(blk_idle_to_json(sk, 0, o, &ctx), 0);
	sum = json_object_get(json_object_get(json_object_get(o, "idle"), "histogram"), "sum");
	assert_true(json_is_real(sum));
	assert_true(json_real_value(sum) > 1.8e19 && json_real_value(sum) < 1.9e19);
	json_decref(o);
	blk_idle_free(sk);
}

/*
 * The end of a flush sequence (a completion with no data and no flush category, of a request
 * the flush machinery never issued: btrfs) ends nothing in flight: the read issued at 0 keeps
 * the device busy until 25 ms, so there is no gap before the write at 20 ms.
 */
static void test_flush_sequence(void **s)
{
	struct blk_event ev[] = {
	    EV_D(0, 1000, 8, R),    EV_D(1 * MS, 0, 0, R),  EV_C(2 * MS, 0, 0, R),
	    EV_C(3 * MS, 0, 0, W),  EV_D(20 * MS, 8, 8, W), EV_C(25 * MS, 1000, 8, R),
	    EV_C(26 * MS, 8, 8, W),
	};
	struct blk_idle *t;

	(void)s;
	ev[1].flags |= BLK_F_FLUSH; /* D FN */
	ev[2].flags |= BLK_F_FLUSH; /* C FN */
	ev[3].flags |= BLK_F_SYNC;  /* C WS, no data: the preflush write's end */
	t = run(ev, sizeof(ev) / sizeof(ev[0]), 10 * MS, 10, 27 * MS);
	assert_int_equal(blk_idle_dev(t, 0)->gaps, 0);
	blk_idle_free(t);
}

struct seen {
	struct blk_gap g[8];
	unsigned dev[8], n;
};

static void on_gap(void *ctx, unsigned dev, const struct blk_gap *g)
{
	struct seen *seen = ctx;

	assert_true(seen->n < 8);
	seen->dev[seen->n] = dev;
	seen->g[seen->n++] = *g;
}

/* Gaps are handed out as they end, each once, exactly those counted; the gap in progress is
 * seen once it reaches the threshold, and not before a D or C says whether the device is
 * idle at all. */
static void test_as_they_happen(void **s)
{
	const struct blk_event ev[] = {
	    EV_Q(0, 0, 8, R),        EV_D(20 * MS, 0, 8, R),
	    EV_C(21 * MS, 0, 8, R),  EV_D(25 * MS, 8, 8, R), /* 4 ms: below the threshold */
	    EV_C(26 * MS, 8, 8, R),  EV_Q(40 * MS, 16, 8, R),
	    EV_D(50 * MS, 16, 8, R), EV_C(51 * MS, 16, 8, R),
	};
	struct blk_opts o;
	struct blk_idle *sk;
	struct seen seen = {0};
	struct blk_gap g;

	(void)s;
	blk_opts_init(&o);
	o.idle_threshold_ns = 10 * MS;
	sk = blk_idle_new(&o);
	assert_non_null(sk);
	blk_idle_on_gap(sk, on_gap, &seen);
	blk_idle_feed(sk, 1, &ev[0]);
	/* only a Q so far: whether the device was busy is not known */
	assert_int_equal(blk_idle_current(sk, 1, 15 * MS, &g), 0);
	blk_idle_feed(sk, 1, &ev[1]);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.dev[0], 1);
	assert_int_equal(seen.g[0].start, 0);
	assert_int_equal(seen.g[0].end, 20 * MS);
	assert_true(seen.g[0].at_start);
	/* busy */
	assert_int_equal(blk_idle_current(sk, 1, 20 * MS + 500, &g), 0);
	blk_idle_feed(sk, 1, &ev[2]);
	assert_int_equal(blk_idle_current(sk, 1, 30 * MS, &g), 0); /* 9 ms: not yet */
	blk_idle_feed(sk, 1, &ev[3]);
	blk_idle_feed(sk, 1, &ev[4]);
	assert_int_equal(seen.n, 1); /* the 4 ms stretch is no gap */
	assert_int_equal(blk_idle_current(sk, 1, 36 * MS - 1, &g), 0);
	assert_int_equal(blk_idle_current(sk, 1, 36 * MS, &g), 1);
	assert_int_equal(g.start, 26 * MS);
	assert_int_equal(g.end, 36 * MS);
	assert_false(g.queued);
	blk_idle_feed(sk, 1, &ev[5]);
	assert_int_equal(blk_idle_current(sk, 1, 45 * MS, &g), 1);
	assert_true(g.queued);
	assert_int_equal(g.queued_ns, 5 * MS);
	assert_int_equal(blk_idle_current(sk, 0, 45 * MS, &g), 0); /* no such device */
	blk_idle_feed(sk, 1, &ev[6]);
	assert_int_equal(seen.n, 2);
	assert_int_equal(seen.g[1].start, 26 * MS);
	assert_int_equal(seen.g[1].end, 50 * MS);
	blk_idle_feed(sk, 1, &ev[7]);
	blk_idle_finish(sk, 0, 70 * MS);
	assert_int_equal(seen.n, 3);
	assert_int_equal(seen.g[2].start, 51 * MS);
	assert_int_equal(seen.g[2].end, 70 * MS);
	assert_int_equal(seen.g[2].ended_by, BLK_GAP_END);
	assert_int_equal(blk_idle_dev(sk, 1)->gaps, 3);
	assert_int_equal(blk_idle_current(sk, 1, 80 * MS, &g), 0); /* finished */
	blk_idle_free(sk);
}

struct idles {
	unsigned dev[8];
	uint64_t t[8];
	unsigned n;
};

static void on_idle(void *ctx, unsigned dev, uint64_t t)
{
	struct idles *x = ctx;

	assert_true(x->n < 8);
	x->dev[x->n] = dev;
	x->t[x->n++] = t;
}

/* The IOs at a gap's edges, with the issuer of the one before it found among the last
 * issues; the activity integrals (time busy, completions) at any time; the idle hook. */
static void test_edges_and_activity(void **s)
{
	struct blk_event ev[] = {
	    EV_Q(0, 0, 8, W),       EV_D(10 * MS, 0, 8, W),
	    EV_C(12 * MS, 0, 8, W), /* pid 7 issued it */
	    EV_D(40 * MS, 8, 8, W), /* a 28 ms gap, ended by pid 9 */
	    EV_C(41 * MS, 8, 8, W),
	};
	struct blk_opts o;
	struct blk_idle *sk;
	struct blk_idle_act a;
	const struct blk_idle_dev *d;
	struct idles seen = {0};

	(void)s;
	ev[1].pid = 7;
	ev[2].pid = 0; /* a completion's pid is whoever ran: not the issuer */
	ev[3].pid = 9;
	ev[3].flags |= BLK_F_SYNC | BLK_F_FUA;
	ev[4].flags |= BLK_F_SYNC | BLK_F_FUA;
	blk_opts_init(&o);
	o.idle_threshold_ns = 10 * MS;
	sk = blk_idle_new(&o);
	assert_non_null(sk);
	blk_idle_on_idle(sk, on_idle, &seen, 0);
	for (unsigned i = 0; i < 4; i++)
		blk_idle_feed(sk, 0, &ev[i]);
	assert_int_equal(seen.n, 0); /* one device: nobody to compare with */
	assert_int_equal(blk_idle_activity(sk, 0, 40 * MS + 500000, &a), 0);
	assert_int_equal(a.busy_ns, 2 * MS + 500000);
	assert_int_equal(a.ios, 1);
	assert_int_equal(a.bytes, 4096);
	assert_int_equal(a.inflight, 1);
	assert_int_equal(blk_idle_activity(sk, 1, 40 * MS, &a), -ENOENT);
	blk_idle_feed(sk, 0, &ev[4]);
	blk_idle_finish(sk, 0, 41 * MS);
	d = blk_idle_dev(sk, 0);
	assert_int_equal(d->gaps, 2); /* 0-10 (at the start) and 12-40 */
	assert_int_equal(d->top[0].start, 12 * MS);
	assert_int_equal(d->top[0].before.action, BLK_A_COMPLETE);
	assert_true(d->top[0].before.has_pid);
	assert_int_equal(d->top[0].before.pid, 7);
	assert_int_equal(d->top[0].before.bytes, 4096);
	assert_int_equal(d->top[0].before.flags & BLK_F_WRITE, BLK_F_WRITE);
	assert_int_equal(d->top[0].after.action, BLK_A_ISSUE);
	assert_int_equal(d->top[0].after.pid, 9);
	assert_int_equal(d->top[0].after.sector, 8);
	assert_int_equal(d->top[0].after.flags & (BLK_F_SYNC | BLK_F_FUA), BLK_F_SYNC | BLK_F_FUA);
	assert_int_equal(d->top[1].start, 0);
	assert_int_equal(d->top[1].before.action, 0); /* began with the trace */
	assert_int_equal(blk_idle_activity(sk, 0, 99 * MS, &a), 0);
	assert_int_equal(a.busy_ns, 3 * MS);
	assert_int_equal(a.ios, 2);
	assert_int_equal(a.inflight, 0);
	blk_idle_free(sk);

	/* two devices: every start of an idle stretch is told; a completion with nothing in
	 * flight counts as busy since the last one */
	sk = blk_idle_new(&o);
	blk_idle_on_idle(sk, on_idle, &seen, 0);
	seen.n = 0;
	blk_idle_feed(sk, 0, &ev[1]);
	blk_idle_feed(sk, 1, &ev[2]); /* device 1: busy since the trace began */
	blk_idle_feed(sk, 0, &ev[2]);
	assert_int_equal(seen.n, 2);
	assert_int_equal(seen.dev[0], 1);
	assert_int_equal(seen.t[0], 12 * MS);
	assert_int_equal(seen.dev[1], 0);
	assert_int_equal(blk_idle_activity(sk, 1, 20 * MS, &a), 0);
	assert_int_equal(a.busy_ns, 2 * MS); /* from its first event (the trace's start: 10 ms) */
	blk_idle_free(sk);
}

/* The issue of the request that left the device idle is older than the last issues kept:
 * its process is not known (never a guess). */
static void test_issuer_forgotten(void **s)
{
	struct blk_event ev[2 * BLK_IDLE_ISSUERS + 4];
	unsigned n = 0;
	const struct blk_idle_dev *d;
	struct blk_idle *sk;

	(void)s;
	ev[n++] = EV_D(0, 1000, 8, R); /* completes last */
	for (unsigned i = 0; i < BLK_IDLE_ISSUERS; i++) {
		ev[n++] = EV_D(MS + i * 10, i * 8, 8, R);
		ev[n++] = EV_C(MS + i * 10 + 5, i * 8, 8, R);
	}
	ev[n++] = EV_C(2 * MS, 1000, 8, R);
	ev[n++] = EV_D(30 * MS, 0, 8, R);
	sk = run(ev, n, 10 * MS, 10, 30 * MS);
	d = blk_idle_dev(sk, 0);
	assert_int_equal(d->gaps, 1);
	assert_int_equal(d->top[0].before.action, BLK_A_COMPLETE);
	assert_int_equal(d->top[0].before.sector, 1000);
	assert_false(d->top[0].before.has_pid);
	blk_idle_free(sk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_flush_sequence),
	    cmocka_unit_test(test_start_between_end),
	    cmocka_unit_test(test_busy_at_start),
	    cmocka_unit_test(test_top_and_devices),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_json_sum_past_int64),
	    cmocka_unit_test(test_as_they_happen),
	    cmocka_unit_test(test_edges_and_activity),
	    cmocka_unit_test(test_issuer_forgotten),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
