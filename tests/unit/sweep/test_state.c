/* SPDX-License-Identifier: MIT */
/* Unit tests for sweep/state.c: result.json both ways, sweep.json create/open, the lock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sweep/sweep.h"
#include "../tmpdir.h"

static void make_def(struct sweep_def *d)
{
	struct iot_err e;

	sweep_def_init(d);
	assert_int_equal(sweep_param_parse("fs=ext4,xfs", &d->param[0], &e), 0);
	d->nparams = 1;
	d->capture = false;
	d->cmd = calloc(2, sizeof(char *));
	d->cmd[0] = strdup("true");
}

static void test_result(void **state)
{
	struct sweep_def d;
	struct sweep_result r = {0}, back;
	struct iot_err e;

	(void)state;
	make_def(&d);
	r.state = SWEEP_RUN_FAILED;
	r.teardown = SWEEP_TD_PENDING;
	r.attempt = 3;
	r.exit_status = 2;
	r.wall_ns = 1234567;
	r.run_ns = 2345678;
	snprintf(r.error, sizeof(r.error), "exit status 2");
	r.metrics = json_pack("{s:f, s:i}", "bw", 12.5, "n", 3);
	assert_int_equal(sweep_result_save(tmpdir, &d, 1, 2, &r, &e), 0);
	assert_int_equal(sweep_result_load(tmpdir, &back, &e), 0);
	assert_int_equal(back.state, SWEEP_RUN_FAILED);
	assert_int_equal(back.teardown, SWEEP_TD_PENDING);
	assert_int_equal(back.attempt, 3);
	assert_int_equal(back.exit_status, 2);
	assert_int_equal(back.wall_ns, 1234567);
	assert_int_equal(back.run_ns, 2345678);
	assert_string_equal(back.error, "exit status 2");
	assert_true(json_number_value(json_object_get(back.metrics, "bw")) == 12.5);
	assert_true(json_number_value(json_object_get(back.metrics, "n")) == 3);
	/* the cell is in it for whoever reads the directory */
	assert_string_equal(json_string_value(json_object_get(back.root, "cell")), "fs=xfs");
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(back.root, "params"), "fs")), "xfs");
	assert_int_equal(json_integer_value(json_object_get(back.root, "rep")), 2);
	sweep_result_release(&back);
	sweep_result_release(&r);
	sweep_def_release(&d);
}

static void test_result_bad(void **state)
{
	static const char *const bad[] = {"",
	                                  "{",
	                                  "[]",
	                                  "{}",
	                                  "{\"state\": \"pending\"}",
	                                  "{\"state\": \"finished\"}",
	                                  "{\"state\": 3}"};
	struct sweep_result r;
	struct iot_err e;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(sweep_result_parse(bad[i], strlen(bad[i]), &r, &e), -EINVAL);
	/* odd field types are ignored, not trusted */
	assert_int_equal(sweep_result_parse("{\"state\": \"done\", \"exit_status\": -5, "
	                                    "\"wall_ns\": \"x\", \"metrics\": {\"a\": \"1\", "
	                                    "\"b\": 2}}",
	                                    100, &r, &e),
	                 -EINVAL);
	{
		static const char ok[] = "{\"state\": \"done\", \"exit_status\": -5, \"wall_ns\": "
		                         "\"x\", \"metrics\": {\"a\": \"1\", \"b\": 2}}";

		assert_int_equal(sweep_result_parse(ok, strlen(ok), &r, &e), 0);
		assert_int_equal(r.exit_status, -1);
		assert_int_equal(r.wall_ns, 0);
		assert_null(json_object_get(r.metrics, "a"));
		assert_true(json_number_value(json_object_get(r.metrics, "b")) == 2);
		sweep_result_release(&r);
	}
	assert_int_equal(sweep_result_load("/nonexistent-iotape", &r, &e), -ENOENT);
}

static void test_create_open_lock(void **state)
{
	struct sweep_def d, back;
	struct iot_err e;
	char dir[128];
	int fd, fd2;

	(void)state;
	make_def(&d);
	snprintf(dir, sizeof(dir), "%s/sw/deeper", tmpdir);
	assert_false(sweep_is_dir(dir));
	assert_int_equal(sweep_create(dir, &d, &e), 0);
	assert_true(sweep_is_dir(dir));
	/* a second sweep in the same directory is refused */
	assert_int_equal(sweep_create(dir, &d, &e), -EEXIST);
	assert_non_null(strstr(e.msg, "--resume"));
	assert_int_equal(sweep_open(dir, &back, &e), 0);
	assert_int_equal(back.nparams, 1);
	assert_string_equal(back.cmd[0], "true");
	assert_false(back.capture);
	sweep_def_release(&back);
	assert_int_equal(sweep_open(tmpdir, &back, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "is not a sweep"));
	/* one sweep at a time */
	assert_int_equal(sweep_lock(dir, &fd, &e), 0);
	assert_int_equal(sweep_lock(dir, &fd2, &e), -EBUSY);
	close(fd);
	assert_int_equal(sweep_lock(dir, &fd2, &e), 0);
	close(fd2);
	sweep_def_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_result),
	    cmocka_unit_test(test_result_bad),
	    cmocka_unit_test(test_create_open_lock),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown));
}
