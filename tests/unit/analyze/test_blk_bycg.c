/* SPDX-License-Identifier: MIT */
/* Unit tests: analyze --by cgroup: each cgroup's IO through a pass of its own, paths named. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyze/blk_bycg.h"
#include "test_blk_events.h"

static struct blk_event cg(struct blk_event e, uint64_t id)
{
	e.flags |= BLK_F_CGROUP;
	e.cgroup = id;
	return e;
}

static const json_t *group(const json_t *root, json_int_t id)
{
	size_t i;
	const json_t *g;

	json_array_foreach(json_object_get(root, "cgroups"), i, g)
	{
		if (json_integer_value(json_object_get(g, "id")) == id)
			return g;
	}
	return NULL;
}

static json_int_t dev_u(const json_t *g, const char *a, const char *b)
{
	const json_t *d = json_array_get(json_object_get(g, "devices"), 0);

	return json_integer_value(json_object_get(json_object_get(d, a), b));
}

static void test_split(void **s)
{
	/* cgroup 5 reads 2 blocks, cgroup 7 writes 1, the plug belongs to none */
	struct blk_event ev[] = {
	    cg(EV_Q(0, 0, 8, R), 5),          cg(EV_D(10, 0, 8, R), 5),
	    cg(EV_Q(20, 100, 8, W), 7),       cg(EV_D(30, 100, 8, W), 7),
	    ev_make(BLK_A_PLUG, 35, 0, 0, R), cg(EV_C(40, 0, 8, R), 5),
	    cg(EV_C(50, 100, 8, W), 7),       cg(EV_Q(60, 16, 8, R), 5),
	    cg(EV_D(70, 16, 8, R), 5),        cg(EV_C(90, 16, 8, R), 5),
	};
	json_t *paths = json_loads("[{\"id\": 5, \"path\": \"/system.slice/a.service\"}]", 0, NULL);
	json_t *root = json_object();
	struct blk_opts o;
	struct blk_bycg *b;
	const json_t *g5, *g7, *g0;

	(void)s;
	blk_opts_init(&o);
	assert_int_equal(blk_bycg_new(&b, &o), 0);
	blk_bycg_feed(b, ev, sizeof(ev) / sizeof(ev[0]));
	assert_int_equal(blk_bycg_to_json(b, paths, root), 0);
	assert_int_equal(json_array_size(json_object_get(root, "cgroups")), 3);
	g5 = group(root, 5);
	g7 = group(root, 7);
	g0 = group(root, 0);
	assert_non_null(g5);
	assert_non_null(g7);
	assert_non_null(g0);
	/* in order of first IO; the manifest's path, else null */
	assert_true(json_array_get(json_object_get(root, "cgroups"), 0) == g5);
	assert_string_equal(json_string_value(json_object_get(g5, "path")),
	                    "/system.slice/a.service");
	assert_true(json_is_null(json_object_get(g7, "path")));
	assert_true(json_is_null(json_object_get(g0, "path")));
	assert_int_equal(json_integer_value(json_object_get(g5, "events")), 6);
	assert_int_equal(json_integer_value(json_object_get(g0, "events")), 1);
	assert_int_equal(dev_u(g5, "reads", "ios"), 2);
	assert_int_equal(dev_u(g5, "writes", "ios"), 0);
	assert_int_equal(dev_u(g7, "writes", "ios"), 1);
	assert_int_equal(dev_u(g0, "reads", "ios"), 0);
	/* each group's latency is its own IO's: cgroup 5's D2C are 30 and 20 ns */
	assert_int_equal(
	    json_integer_value(json_object_get(
	        json_object_get(json_object_get(json_array_get(json_object_get(g5, "devices"), 0),
	                                        "latency_ns"),
	                        "d2c"),
	        "max")),
	    30);
	json_decref(root);
	json_decref(paths);
	blk_bycg_free(b);
}

/* Past BLK_BYCG_MAX cgroups the rest are one group, "other" */
static void test_other(void **s)
{
	struct blk_opts o;
	struct blk_bycg *b;
	json_t *root = json_object(), *last;

	(void)s;
	blk_opts_init(&o);
	assert_int_equal(blk_bycg_new(&b, &o), 0);
	for (uint64_t i = 0; i < BLK_BYCG_MAX + 5; i++) {
		struct blk_event e = cg(EV_D(i, i * 8, 8, R), 100 + i);

		blk_bycg_feed(b, &e, 1);
	}
	assert_int_equal(blk_bycg_to_json(b, NULL, root), 0);
	assert_int_equal(json_array_size(json_object_get(root, "cgroups")), BLK_BYCG_MAX);
	last = json_array_get(json_object_get(root, "cgroups"), BLK_BYCG_MAX - 1);
	assert_string_equal(json_string_value(json_object_get(last, "id")), "other");
	assert_int_equal(json_integer_value(json_object_get(last, "events")), 6); /* 63..68 */
	json_decref(root);
	blk_bycg_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_split),
	    cmocka_unit_test(test_other),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
