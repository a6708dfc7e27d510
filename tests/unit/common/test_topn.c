/* SPDX-License-Identifier: MIT */
/* Unit tests: the top-N heap keeps the best N of any sequence, and hands back what it drops. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdlib.h>

#include "common/topn.h"

struct item {
	uint64_t key;
	unsigned seq; /* ties: the later leaves first */
};

static bool drops_first(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;

	return a->key < b->key || (a->key == b->key && a->seq > b->seq);
}

static int best_first(const void *a, const void *b)
{
	return drops_first(b, a) ? -1 : drops_first(a, b) ? 1 : 0;
}

/* n items from a small-range generator (many ties) through a heap of cap, against a sort */
static void check(unsigned n, unsigned cap, unsigned seed)
{
	struct item *all = calloc(n + 1, sizeof(*all)), *h = calloc(cap + 1, sizeof(*h));
	struct iot_topn t;
	unsigned dropped = 0, replaced = 0;

	assert_non_null(all);
	assert_non_null(h);
	srand(seed);
	iot_topn_init(&t, h, cap, sizeof(*h));
	for (unsigned i = 0; i < n; i++) {
		struct item x = {(uint64_t)(rand() % 50), i}, out = {0, 0};

		all[i] = x;
		if (!iot_topn_wants(&t, &x, drops_first)) {
			dropped++;
			continue;
		}
		if (iot_topn_put(&t, &x, &out, drops_first)) {
			/* what left is never better than what stays */
			assert_true(drops_first(&out, &x));
			replaced++;
		}
		/* the root drops first of all kept */
		for (unsigned k = 1; k < t.n; k++)
			assert_true(drops_first(&h[0], &h[k]));
	}
	assert_int_equal(t.n, n < cap ? n : cap);
	assert_int_equal(dropped + replaced, n - t.n);
	qsort(all, n, sizeof(*all), best_first);
	qsort(h, t.n, sizeof(*h), best_first);
	for (unsigned k = 0; k < t.n; k++) {
		assert_int_equal(h[k].key, all[k].key);
		assert_int_equal(h[k].seq, all[k].seq);
	}
	free(all);
	free(h);
}

static void test_keeps_best(void **state)
{
	(void)state;
	check(0, 5, 1);
	check(3, 5, 2);
	check(5, 5, 3);
	check(1000, 1, 4);
	check(1000, 10, 5);
	check(1000, 999, 6);
	for (unsigned s = 0; s < 50; s++)
		check(200 + s, 1 + s % 17, 100 + s);
}

static void test_zero_cap(void **state)
{
	struct iot_topn t;
	struct item x = {1, 0};

	(void)state;
	iot_topn_init(&t, NULL, 0, sizeof(x));
	assert_false(iot_topn_wants(&t, &x, drops_first));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_keeps_best),
	    cmocka_unit_test(test_zero_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
