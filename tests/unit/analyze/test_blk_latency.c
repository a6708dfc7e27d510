/* SPDX-License-Identifier: MIT */
/* Unit tests: the latency sink matches bios through merges, requeues and partial traces as btt. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "analyze/blk_latency.h"
#include "test_blk_events.h"

static struct blk_latency *run(const struct blk_event *ev, size_t n, unsigned cap)
{
	struct blk_opts o;
	struct blk_latency *l;

	blk_opts_init(&o);
	if (cap)
		o.max_inflight = cap;
	l = blk_latency_new(&o);
	assert_non_null(l);
	for (size_t i = 0; i < n; i++)
		blk_latency_feed(l, ev[i].dev == BLK_MKDEV(8, 16) ? 1 : 0, &ev[i]);
	blk_latency_finish(l);
	return l;
}

static struct hist scratch; /* hist_few_view()'s, for the checks */

static void expect(const struct hist_few *f, uint64_t count, uint64_t sum, uint64_t min,
                   uint64_t max)
{
	const struct hist *h = hist_few_view(f, &scratch);

	assert_int_equal(h->count, count);
	assert_int_equal((uint64_t)h->sum, sum);
	if (count) {
		assert_int_equal(h->min, min);
		assert_int_equal(h->max, max);
	}
}

/* The sequence btt was checked on by hand (see docs/analyze.md): a back merge, a front merge,
 * an insert, then a lone read whose steps share one timestamp (btt counts 0 as 1 ns). */
static void test_merges_as_btt(void **s)
{
	const struct blk_event ev[] = {
	    EV_Q(1000, 100, 8, W),  EV_G(1100, 100, 8, W),  EV_Q(1200, 108, 8, W),
	    EV_M(1300, 108, 8, W),  EV_Q(1400, 92, 8, W),   EV_F(1450, 92, 8, W),
	    EV_I(1500, 92, 24, W),  EV_D(2000, 92, 24, W),  EV_C(5000, 92, 24, W),
	    EV_Q(6000, 1000, 1, R), EV_G(6000, 1000, 1, R), EV_I(6000, 1000, 1, R),
	    EV_D(6000, 1000, 1, R), EV_C(9000, 1000, 1, R),
	};
	struct blk_latency *l = run(ev, sizeof(ev) / sizeof(ev[0]), 0);
	const struct blk_latency_dev *d = blk_latency_dev(l, 0);

	(void)s;
	assert_non_null(d);
	expect(&d->h[BLK_LAT_Q2Q], 3, 200 + 200 + 4600, 200, 4600);
	expect(&d->h[BLK_LAT_Q2G], 2, 100 + 1, 1, 100);
	expect(&d->h[BLK_LAT_G2I], 1, 1, 1, 1);
	expect(&d->h[BLK_LAT_Q2M], 2, 100 + 50, 50, 100);
	expect(&d->h[BLK_LAT_I2D], 2, 500 + 1, 1, 500);
	expect(&d->h[BLK_LAT_M2D], 1, 700, 700, 700);
	expect(&d->h[BLK_LAT_D2C], 4, 4 * 3000, 3000, 3000);
	expect(&d->h[BLK_LAT_Q2C], 4, 4000 + 3800 + 3600 + 3000, 3000, 4000);
	expect(&d->h[BLK_LAT_Q2D], 4, 1000 + 800 + 600 + 1, 1, 1000);
	expect(&d->h[BLK_LAT_D2C_REQ], 2, 6000, 3000, 3000);
	assert_int_equal(d->outstanding, 0);
	assert_int_equal(d->unmatched_c, 0);
	blk_latency_free(l);
}

/* A requeued request issued again: D2C runs from the second issue, I2D counts twice (btt). */
static void test_requeue(void **s)
{
	const struct blk_event ev[] = {
	    EV_Q(0, 100, 8, R),  EV_G(10, 100, 8, R),  EV_I(20, 100, 8, R),   EV_D(30, 100, 8, R),
	    EV_R(40, 100, 8, R), EV_D(100, 100, 8, R), EV_C(1100, 100, 8, R),
	};
	struct blk_latency *l = run(ev, sizeof(ev) / sizeof(ev[0]), 0);
	const struct blk_latency_dev *d = blk_latency_dev(l, 0);

	(void)s;
	expect(&d->h[BLK_LAT_I2D], 2, 10 + 80, 10, 80);
	expect(&d->h[BLK_LAT_D2C], 1, 1000, 1000, 1000);
	expect(&d->h[BLK_LAT_Q2D], 1, 100, 100, 100);
	expect(&d->h[BLK_LAT_Q2C], 1, 1100, 1100, 1100);
	expect(&d->h[BLK_LAT_D2C_REQ], 1, 1000, 1000, 1000);
	blk_latency_free(l);
}

/* Completions of requests issued before the trace began match nothing; a C without a D still
 * ends its bios (Q2C only); a Q never completed stays outstanding. */
static void test_partial_trace(void **s)
{
	const struct blk_event ev[] = {
	    EV_C(5, 5000, 8, R),                      /* issued before the trace */
	    EV_Q(10, 200, 8, W), EV_C(50, 200, 8, W), /* D lost */
	    EV_Q(60, 300, 8, W), EV_D(70, 300, 8, W), /* never completes */
	    EV_Q(80, 400, 8, W), EV_D(90, 400, 8, W), EV_C(190, 400, 8, W),
	};
	struct blk_latency *l = run(ev, sizeof(ev) / sizeof(ev[0]), 0);
	const struct blk_latency_dev *d = blk_latency_dev(l, 0);

	(void)s;
	assert_int_equal(d->unmatched_c, 1);
	expect(&d->h[BLK_LAT_Q2C], 2, 40 + 110, 40, 110);
	expect(&d->h[BLK_LAT_D2C], 1, 100, 100, 100);
	expect(&d->h[BLK_LAT_D2C_REQ], 1, 100, 100, 100);
	assert_int_equal(d->outstanding, 1);
	assert_int_equal(d->outstanding_rq, 1);
	blk_latency_free(l);
}

/* A second Q at an outstanding bio's start sector takes its place (btt 1.2 links the new one
 * in front: G, I and C find it, the old one never completes). */
static void test_duplicate_sector(void **s)
{
	const struct blk_event ev[] = {
	    EV_Q(1000, 100, 16, W), EV_G(1100, 100, 16, W), EV_Q(1200, 100, 16, W),
	    EV_G(1250, 100, 16, W), EV_D(2000, 100, 16, W), EV_C(5000, 100, 16, W),
	    EV_Q(6000, 100, 16, W), EV_D(6100, 100, 16, W), EV_C(9000, 100, 16, W),
	};
	struct blk_latency *l = run(ev, sizeof(ev) / sizeof(ev[0]), 0);
	const struct blk_latency_dev *d = blk_latency_dev(l, 0);

	(void)s;
	assert_int_equal(d->duplicates, 1);
	expect(&d->h[BLK_LAT_Q2Q], 2, 200 + 4800, 200, 4800);
	expect(&d->h[BLK_LAT_Q2G], 2, 100 + 50, 50, 100);
	expect(&d->h[BLK_LAT_D2C], 2, 3000 + 2900, 2900, 3000);
	expect(&d->h[BLK_LAT_Q2C], 2, 3800 + 3000, 3000, 3800);
	assert_int_equal(d->outstanding, 0);
	blk_latency_free(l);
}

/* Only bios inside the issued range belong to it: a bio larger than the request is left. */
static void test_containment(void **s)
{
	const struct blk_event ev[] = {
	    EV_Q(0, 64, 8, W),   EV_Q(1, 72, 8, W),   EV_Q(2, 80, 64, W), /* 80..144 */
	    EV_D(10, 64, 16, W), EV_C(20, 64, 16, W),                     /* ends 64 and 72 */
	    EV_D(30, 80, 32, W), EV_C(40, 80, 32, W),                     /* 80+64 not inside */
	};
	struct blk_latency *l = run(ev, sizeof(ev) / sizeof(ev[0]), 0);
	const struct blk_latency_dev *d = blk_latency_dev(l, 0);

	(void)s;
	expect(&d->h[BLK_LAT_Q2C], 2, 20 + 19, 19, 20);
	assert_int_equal(d->unmatched_c, 1);
	assert_int_equal(d->outstanding, 1);
	blk_latency_free(l);
}

/* Two devices interleaved, same sectors: bios never match across devices. */
static void test_two_devices(void **s)
{
	struct blk_event ev[] = {
	    EV_Q(0, 100, 8, R),  EV_Q(5, 100, 8, R),   EV_D(10, 100, 8, R),
	    EV_D(20, 100, 8, R), EV_C(110, 100, 8, R), EV_C(1020, 100, 8, R),
	};
	struct blk_latency *l;

	(void)s;
	ev[1].dev = ev[3].dev = ev[5].dev = BLK_MKDEV(8, 16);
	l = run(ev, sizeof(ev) / sizeof(ev[0]), 0);
	expect(&blk_latency_dev(l, 0)->h[BLK_LAT_D2C], 1, 100, 100, 100);
	expect(&blk_latency_dev(l, 1)->h[BLK_LAT_D2C], 1, 1000, 1000, 1000);
	expect(&blk_latency_dev(l, 1)->h[BLK_LAT_Q2C], 1, 1015, 1015, 1015);
	assert_int_equal(blk_latency_dev(l, 0)->duplicates, 0);
	blk_latency_free(l);
}

/* Memory is bounded: with room for 4 bios, 1000 bios that never complete keep 4 tracked and
 * drop the rest, counted; the latest ones still match. */
static void test_bounded(void **s)
{
	struct blk_event *ev = calloc(1003, sizeof(*ev));
	struct blk_latency *l;
	const struct blk_latency_dev *d;

	(void)s;
	for (unsigned i = 0; i < 1000; i++)
		ev[i] = EV_Q(i, (uint64_t)i * 8, 8, W);
	ev[1000] = EV_D(2000, 999 * 8, 8, W);
	ev[1001] = EV_C(2500, 999 * 8, 8, W);
	ev[1002] = EV_C(2600, 0, 8, W); /* evicted long ago */
	l = run(ev, 1003, 4);
	d = blk_latency_dev(l, 0);
	assert_int_equal(d->evicted, 996);
	assert_true(blk_latency_tracked(l) <= 4);
	assert_int_equal(d->outstanding, 3);
	expect(&d->h[BLK_LAT_D2C], 1, 500, 500, 500);
	assert_int_equal(d->unmatched_c, 1);
	blk_latency_free(l);
	free(ev);
}

/* A request spanning more blocks than there are tracked bios is found by the age walk. */
static void test_huge_range(void **s)
{
	const struct blk_event ev[] = {
	    EV_Q(0, 1000000, 8, W),
	    EV_Q(1, 2000000, 8, W),
	    EV_D(10, 0, 4000000, W),
	    EV_C(30, 0, 4000000, W),
	};
	struct blk_latency *l = run(ev, sizeof(ev) / sizeof(ev[0]), 0);

	(void)s;
	expect(&blk_latency_dev(l, 0)->h[BLK_LAT_Q2C], 2, 30 + 29, 29, 30);
	expect(&blk_latency_dev(l, 0)->h[BLK_LAT_D2C], 2, 40, 20, 20);
	blk_latency_free(l);
}

/* G, I and M find the bio holding their sector, even one that starts blocks earlier. */
static void test_holding_sector(void **s)
{
	const struct blk_event ev[] = {
	    EV_Q(0, 1000, 512, R), EV_G(10, 1200, 8, R), EV_I(30, 1200, 8, R),
	    EV_M(40, 1511, 1, R),  EV_G(50, 1512, 8, R), /* just past the end: no bio */
	    EV_G(60, 999, 8, R),                         /* just before: no bio */
	};
	struct blk_latency *l = run(ev, sizeof(ev) / sizeof(ev[0]), 0);
	const struct blk_latency_dev *d = blk_latency_dev(l, 0);

	(void)s;
	expect(&d->h[BLK_LAT_Q2G], 1, 10, 10, 10);
	expect(&d->h[BLK_LAT_G2I], 1, 20, 20, 20);
	expect(&d->h[BLK_LAT_Q2M], 1, 40, 40, 40);
	blk_latency_free(l);
}

/* Overlapping bios in flight: btt's tree decides. A [100,132) is the root, B [110,118) its
 * right child. G at 110 stops at A; a range visit of [110,118) or of [100,132) never descends
 * to B (A rules it out), so B never completes. Checked against btt 1.2. */
static void test_overlap_as_btt(void **s)
{
	const struct blk_event ev[] = {
	    EV_Q(1000, 100, 32, R), EV_Q(1100, 110, 8, R), EV_G(1200, 110, 8, R),
	    EV_D(2000, 110, 8, R),  EV_C(3000, 110, 8, R), EV_D(4000, 100, 32, R),
	    EV_C(6000, 100, 32, R),
	};
	struct blk_latency *l = run(ev, sizeof(ev) / sizeof(ev[0]), 0);
	const struct blk_latency_dev *d = blk_latency_dev(l, 0);

	(void)s;
	expect(&d->h[BLK_LAT_Q2Q], 1, 100, 100, 100);
	expect(&d->h[BLK_LAT_Q2G], 1, 200, 200, 200);
	expect(&d->h[BLK_LAT_D2C], 1, 2000, 2000, 2000);
	expect(&d->h[BLK_LAT_Q2C], 1, 5000, 5000, 5000);
	assert_int_equal(d->unmatched_c, 1);
	assert_int_equal(d->outstanding, 1);
	blk_latency_free(l);
}

/* Many bios in flight, completed in an order that makes the tree rebalance on every erase:
 * every one is found (a broken tree loses some). */
static void test_tree_churn(void **s)
{
	enum { N = 3000 };
	struct blk_event *ev = calloc(3 * N, sizeof(*ev));
	struct blk_latency *l;
	const struct blk_latency_dev *d;
	size_t n = 0;
	uint64_t t = 0;

	(void)s;
	for (unsigned i = 0; i < N; i++) /* a scrambled order of N distinct 8-sector bios */
		ev[n++] = EV_Q(t++, ((uint64_t)i * 7919u % N) * 8, 8, W);
	for (unsigned i = 0; i < N; i++)
		ev[n++] = EV_D(t++, ((uint64_t)i * 104729u % N) * 8, 8, W);
	for (unsigned i = 0; i < N; i++)
		ev[n++] = EV_C(t++, ((uint64_t)i * 15485863u % N) * 8, 8, W);
	l = run(ev, n, 0);
	d = blk_latency_dev(l, 0);
	assert_int_equal(hist_few_view(&d->h[BLK_LAT_Q2C], &scratch)->count, N);
	assert_int_equal(hist_few_view(&d->h[BLK_LAT_D2C], &scratch)->count, N);
	assert_int_equal(d->unmatched_c, 0);
	assert_int_equal(d->outstanding, 0);
	assert_int_equal(blk_latency_tracked(l), 0);
	blk_latency_free(l);
	free(ev);
}

/* Records without data and passthrough records are not matched. */
static void test_ignored(void **s)
{
	struct blk_event ev[] = {
	    EV_Q(0, 100, 0, W),  EV_D(10, 100, 0, W), EV_C(20, 100, 0, W),
	    EV_Q(30, 200, 8, R), EV_D(40, 200, 8, R), EV_C(50, 200, 8, R),
	};
	struct blk_latency *l;

	(void)s;
	ev[3].flags = ev[4].flags = ev[5].flags = BLK_F_PC;
	l = run(ev, sizeof(ev) / sizeof(ev[0]), 0);
	assert_null(blk_latency_dev(l, 0));
	blk_latency_free(l);
}

/* The sink's own bucketing and u64 sums give what hist_add() gives: the exact values below
 * 2^HIST_SUB_BITS, the edges of every power of two, and sums past 2^64 (all bios in flight at
 * once, each on its own sectors, completed v ns after its Q). */
static void check_as_hist(const uint64_t *v, size_t n)
{
	struct blk_event *ev = calloc(2 * n, sizeof(*ev));
	struct hist *ref = malloc(sizeof(*ref));
	const struct hist *h;
	struct blk_latency *l;

	assert_non_null(ev);
	assert_non_null(ref);
	hist_init(ref);
	for (size_t i = 0; i < n; i++) {
		ev[i] = EV_Q(1, i * 8, 8, W);
		ev[n + i] = EV_C(1 + v[i], i * 8, 8, W);
		hist_add(ref, v[i]);
	}
	l = run(ev, 2 * n, 0);
	h = hist_few_view(&blk_latency_dev(l, 0)->h[BLK_LAT_Q2C], &scratch);
	assert_int_equal(h->count, ref->count);
	assert_int_equal(h->min, ref->min);
	assert_int_equal(h->max, ref->max);
	assert_true(h->sum == ref->sum);
	assert_memory_equal(h->b, ref->b, sizeof(ref->b));
	blk_latency_free(l);
	free(ref);
	free(ev);
}

static void test_buckets_as_hist(void **s)
{
	uint64_t v[200 + 3 * 50], big[6];
	size_t n = 0;

	(void)s;
	for (uint64_t x = 1; x <= 200; x++)
		v[n++] = x;
	for (unsigned e = 6; e < 56; e++) { /* below 2^56: the sum stays under 2^64 */
		v[n++] = (1ull << e) - 1;
		v[n++] = 1ull << e;
		v[n++] = (1ull << e) + (1ull << (e - 1)) + 1;
	}
	check_as_hist(v, n);
	for (unsigned i = 0; i < 6; i++) /* past 2^64, multiples of 2^8: still exact */
		big[i] = (1ull << 62) + ((uint64_t)i << 40) + 256;
	check_as_hist(big, 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_merges_as_btt),   cmocka_unit_test(test_requeue),
	    cmocka_unit_test(test_partial_trace),   cmocka_unit_test(test_duplicate_sector),
	    cmocka_unit_test(test_containment),     cmocka_unit_test(test_two_devices),
	    cmocka_unit_test(test_bounded),         cmocka_unit_test(test_huge_range),
	    cmocka_unit_test(test_ignored),         cmocka_unit_test(test_holding_sector),
	    cmocka_unit_test(test_overlap_as_btt),  cmocka_unit_test(test_tree_churn),
	    cmocka_unit_test(test_buckets_as_hist),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
