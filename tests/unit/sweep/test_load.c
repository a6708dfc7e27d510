/* SPDX-License-Identifier: MIT */
/* Unit tests for sweep/load.c: a captured sweep's done runs with their figures, a cell's run set
 * read as one or host by host, and what the user is told. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analyze/blk_sink.h"
#include "common/fs.h"
#include "sweep/load.h"
#include "../sweep_fixture.h"
#include "../tmpdir.h"

#define SAMPLE(x) IOTAPE_SRCDIR "/samples/" x

/* Cell's run directory of the sweep at dir into path. */
static void run_dir(const char *dir, size_t cell, char *path, size_t cap)
{
	struct sweep_def d;
	struct iot_err e;
	char rel[256];

	assert_int_equal(sweep_open(dir, &d, &e), 0);
	assert_int_equal(sweep_run_path(&d, cell, 1, rel, sizeof(rel)), 0);
	snprintf(path, cap, "%s/%s", dir, rel);
	sweep_def_release(&d);
}

/* The sample run's files linked into a run directory: a captured run. */
static void link_run(const char *sample, const char *to)
{
	static const char *const files[] = {"loop0.blktrace.0", "loop0.blktrace.1",
	                                    "manifest.json"};
	char from[1024], path[1024];

	for (int i = 0; i < 3; i++) {
		snprintf(from, sizeof(from), "%s/%s", sample, files[i]);
		snprintf(path, sizeof(path), "%s/%s", to, files[i]);
		assert_int_equal(symlink(from, path), 0);
	}
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Each done run's summary and manifest, then how many runs the tables lack; a run with nothing
 * to read ends the walk with its error (and no count). */
static void test_runs(void **state)
{
	json_t *msgs = json_array();
	struct iot_err stop = {""}, e = {""};
	struct sweep_runs s;
	char dir[128], run0[512], run2[512];
	bool usage;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/runs", tmpdir);
	make_sweep_hosts(dir, true);
	run_dir(dir, 0, run0, sizeof(run0));
	run_dir(dir, 2, run2, sizeof(run2));
	assert_int_equal(sweep_load(&s, dir, BLK_DEFAULT_IDLE_NS, msgs, &stop, &usage, &e),
	                 -EINVAL);
	assert_false(usage);
	assert_non_null(strstr(e.msg, "no block trace (NAME.blktrace.N) or packet capture"));
	assert_int_equal(json_array_size(msgs), 0);
	sweep_runs_release(&s);

	link_run(SAMPLE("ext4"), run0);
	link_run(SAMPLE("xfs"), run2);
	assert_int_equal(sweep_load(&s, dir, BLK_DEFAULT_IDLE_NS, msgs, &stop, &usage, &e), 0);
	assert_int_equal(s.n, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_null(s.run[i].host);
		assert_true(json_array_size(json_object_get(s.run[i].summary, "devices")) > 0);
		assert_true(json_is_object(s.run[i].manifest));
	}
	assert_int_equal(json_array_size(msgs), 1);
	assert_non_null(strstr(json_string_value(json_array_get(msgs, 0)),
	                       "runs': 2 of 4 runs are in the tables; 1 failed, 1 not run (yet)"));
	assert_string_equal(stop.msg, "");
	sweep_runs_release(&s);
	json_decref(msgs);
}

/* A cell captured on two hosts with clock pairs: read as one set, a run per host with its host;
 * a set no host brought back whole is the user's error, its failed hosts said. */
static void test_sets(void **state)
{
	json_t *msgs = json_array();
	struct iot_err stop = {""}, e = {""};
	struct sweep_runs s;
	char dir[128], run[512], set[600], p[700];

	bool usage;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/sets", tmpdir);
	make_sweep_hosts(dir, true);
	for (size_t cell = 0; cell <= 2; cell += 2) {
		run_dir(dir, cell, run, sizeof(run));
		snprintf(set, sizeof(set), "%s/" SWEEP_SET_DIR, run);
		assert_int_equal(iot_mkdir_p(set, &e), 0);
		snprintf(p, sizeof(p), "%s/h1", set);
		assert_int_equal(symlink(SAMPLE("ext4"), p), 0);
		snprintf(p, sizeof(p), "%s/h2", set);
		assert_int_equal(symlink(SAMPLE("xfs"), p), 0);
		snprintf(p, sizeof(p), "%s/runset.json", set);
		write_file(p, "{\"kind\": \"iotape-runset\", \"hosts\": ["
		              "{\"name\": \"h2\", \"run\": \"h2\", \"status\": \"ok\","
		              " \"clock\": {\"offset_ns\": -1500, \"error_ns\": 10}},"
		              "{\"name\": \"h1\", \"run\": \"h1\", \"status\": \"ok\"},"
		              "{\"name\": \"h3\", \"run\": null, \"status\": \"failed\","
		              " \"reason\": \"no ssh\"}]}");
	}
	assert_int_equal(sweep_load(&s, dir, BLK_DEFAULT_IDLE_NS, msgs, &stop, &usage, &e), 0);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.run[0].host, "h2");
	assert_string_equal(s.run[1].host, "h1");
	/* read as one: each host's devices with its host */
	assert_string_equal(
	    json_string_value(json_object_get(
	        json_array_get(json_object_get(s.run[1].summary, "devices"), 0), "host")),
	    "h1");
	assert_int_equal(json_array_size(msgs), 3);
	assert_string_equal(json_string_value(json_array_get(msgs, 0)), "host h3 left out: no ssh");
	assert_string_equal(json_string_value(json_array_get(msgs, 1)), "host h3 left out: no ssh");
	sweep_runs_release(&s);

	/* the second cell's set: no host whole */
	json_array_clear(msgs);
	write_file(p, "{\"kind\": \"iotape-runset\", \"hosts\": ["
	              "{\"name\": \"h1\", \"run\": \"h1\", \"status\": \"failed\","
	              " \"reason\": \"killed\"}]}");
	assert_int_equal(sweep_load(&s, dir, BLK_DEFAULT_IDLE_NS, msgs, &stop, &usage, &e),
	                 -ENODATA);
	assert_true(usage);
	assert_non_null(strstr(e.msg, "no host brought a whole run back"));
	assert_int_equal(json_array_size(msgs), 2);
	assert_string_equal(json_string_value(json_array_get(msgs, 0)), "host h3 left out: no ssh");
	assert_string_equal(json_string_value(json_array_get(msgs, 1)), "host h1 left out: killed");
	sweep_runs_release(&s);
	json_decref(msgs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_runs),
	    cmocka_unit_test(test_sets),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown));
}
