/* SPDX-License-Identifier: MIT */
/* Unit tests for sweep/runs.c: a sweep's done runs walked in matrix order, the rest counted. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sweep/runs.h"
#include "../sweep_fixture.h"
#include "../tmpdir.h"

static void test_walk(void **state)
{
	struct sweep_runs s;
	struct iot_err e = {""};
	struct compare c;
	struct compare_opts o = {0};
	char dir[128], names[3][SWEEP_LAYOUT_MAX];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/walk", tmpdir);
	make_sweep(dir);
	assert_int_equal(sweep_runs_load(&s, dir, no_load, NULL, &e), 0);
	assert_int_equal(s.total, 4);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.done, 2);
	assert_int_equal(s.failed, 1);
	assert_int_equal(s.missing, 1);
	assert_int_equal(json_array_size(s.failed_list), 1);
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(s.failed_list, 0), "error")),
	    "exit status 1");
	/* matrix order, each with its cell's parameters, its metrics and its wall time */
	assert_string_equal(json_string_value(json_object_get(s.run[0].params, "bs")), "4k");
	assert_string_equal(json_string_value(json_object_get(s.run[1].params, "fs")), "xfs");
	assert_true(json_number_value(json_object_get(s.run[1].metrics, "bw")) == 30.0);
	assert_true(json_number_value(json_object_get(s.run[1].metrics, "wall_s")) == 6.0);
	assert_null(s.run[0].summary);
	compare_init(&c);
	assert_int_equal(sweep_runs_add(&s, &c, &e), 0);
	compare_release(&c);
	/* two parameters: rows and columns */
	sweep_default_layout(&s, &o, names);
	assert_string_equal(o.rows, "fs");
	assert_string_equal(o.cols, "bs");
	assert_null(o.tables);
	sweep_runs_release(&s);
}

/* A cell captured on two hosts (its run set): a run each, "host" among their parameters. */
static int two_hosts(void *ctx, const char *rundir, struct sweep_cell_runs *out)
{
	static const char *const host[] = {"h2", "h1"}; /* as the set lists them */
	char path[512];

	(void)ctx;
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/" SWEEP_SET_DIR "/%s", rundir, host[i]);
		/* no analysis: the table is of the sweep's own numbers */
		assert_int_equal(sweep_cell_add(out, host[i], path, NULL, NULL), 0);
	}
	return 0;
}

static void test_walk_hosts(void **state)
{
	struct sweep_runs s;
	struct iot_err e = {""};
	struct compare c;
	struct compare_opts o = {0};
	char dir[128], names[3][SWEEP_LAYOUT_MAX];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/hosts", tmpdir);
	make_sweep_hosts(dir, true);
	assert_int_equal(sweep_runs_load(&s, dir, two_hosts, NULL, &e), 0);
	assert_int_equal(s.total, 4);
	assert_int_equal(s.n, 4); /* two cells done, two hosts each */
	assert_int_equal(s.done, 2);
	assert_int_equal(s.nhosts, 2);
	assert_string_equal(s.hosts[0], "h2");
	assert_string_equal(s.hosts[1], "h1");
	assert_string_equal(s.run[1].host, "h1");
	assert_non_null(strstr(s.run[1].path, "/" SWEEP_SET_DIR "/h1"));
	assert_string_equal(json_string_value(json_object_get(s.run[1].params, "host")), "h1");
	assert_string_equal(json_string_value(json_object_get(s.run[3].params, "fs")), "xfs");
	assert_string_equal(json_string_value(json_object_get(s.run[3].params, "host")), "h1");
	/* the cell's own figures are each host's */
	assert_true(json_number_value(json_object_get(s.run[3].metrics, "wall_s")) == 6.0);
	compare_init(&c);
	assert_int_equal(sweep_runs_add(&s, &c, &e), 0);
	compare_release(&c);
	/* the hosts first, then the parameters: a table per host */
	sweep_default_layout(&s, &o, names);
	assert_string_equal(o.tables, "host");
	assert_string_equal(o.rows, "fs");
	assert_string_equal(o.cols, "bs");
	sweep_runs_release(&s);
}

static void test_nothing_done(void **state)
{
	struct sweep_runs s;
	struct iot_err e = {""};
	struct sweep_def d;
	char dir[128];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/none", tmpdir);
	sweep_def_init(&d);
	assert_int_equal(sweep_param_parse("fs=ext4,xfs", &d.param[0], &e), 0);
	d.nparams = 1;
	d.capture = false;
	d.cmd = calloc(2, sizeof(char *));
	d.cmd[0] = strdup("true");
	assert_int_equal(sweep_create(dir, &d, &e), 0);
	sweep_def_release(&d);
	assert_int_equal(sweep_runs_load(&s, dir, no_load, NULL, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "no run of the sweep is done"));
	assert_int_equal(s.missing, 2);
	sweep_runs_release(&s);
	snprintf(dir, sizeof(dir), "%s/not-a-sweep", tmpdir);
	assert_int_equal(sweep_runs_load(&s, dir, no_load, NULL, &e), -ENOENT);
	sweep_runs_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_walk),
	    cmocka_unit_test(test_walk_hosts),
	    cmocka_unit_test(test_nothing_done),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown));
}
