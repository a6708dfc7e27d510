/* SPDX-License-Identifier: MIT */
/* Unit tests: running COMMAND (exit statuses like a shell's) and the option name tables. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>
#include <unistd.h>

#include "capture/cap_int.h"

static int run(char *const *argv, int *exec_errno)
{
	struct cap_cmd c;
	struct iot_err e;
	int st;

	assert_int_equal(cap_cmd_spawn(&c, argv, -1, -1, &e), 0);
	assert_true(c.proc.pid > 0);
	while (!cap_cmd_poll(&c, &st))
		usleep(1000);
	*exec_errno = c.exec_errno;
	return st;
}

/* the wrapper over common/spawn.c (whose tests cover the statuses): exit codes come through */
static void test_statuses(void **state)
{
	char *ok[] = {"true", NULL}, *code[] = {"sh", "-c", "exit 42", NULL},
	     *missing[] = {"iotape-no-such-command-xyz", NULL};
	int ee;

	(void)state;
	assert_int_equal(run(ok, &ee), 0);
	assert_int_equal(run(code, &ee), 42);
	assert_int_equal(run(missing, &ee), 127);
	assert_int_equal(ee, ENOENT);
}

static void test_names(void **state)
{
	enum cap_backend b;
	enum cap_read_mode r;

	(void)state;
	assert_int_equal(cap_backend_parse("auto", &b), 0);
	assert_int_equal(b, CAP_BACKEND_AUTO);
	assert_int_equal(cap_backend_parse("tracefs", &b), 0);
	assert_int_equal(b, CAP_BACKEND_TRACEFS);
	assert_int_equal(cap_backend_parse("relay", &b), 0);
	assert_int_equal(b, CAP_BACKEND_RELAY);
	assert_int_equal(cap_backend_parse("blktrace", &b), -EINVAL);
	assert_int_equal(cap_reader_parse("raw", &r), 0);
	assert_int_equal(r, CAP_READER_RAW);
	assert_int_equal(cap_reader_parse("pipe", &r), 0);
	assert_int_equal(cap_reader_parse("", &r), -EINVAL);
	assert_string_equal(cap_backend_name(CAP_BACKEND_TRACEFS), "tracefs");
	assert_string_equal(cap_reader_name(CAP_READER_RAW), "raw");
	assert_string_equal(cap_backend_name(99), "?");
}

static void test_mask(void **state)
{
	uint16_t m;
	char buf[200];
	struct iot_err e;

	(void)state;
	assert_int_equal(cap_mask_parse("issue,complete", &m, &e), 0);
	assert_int_equal(m, 1u << 6 | 1u << 7);
	assert_string_equal(cap_mask_str(m, buf, sizeof(buf)), "issue,complete");
	assert_int_equal(cap_mask_parse("barrier,fua", &m, &e), 0);
	assert_int_equal(m, 1u << 2 | 1u << 15);
	assert_int_equal(cap_mask_parse("0x00c0", &m, &e), 0);
	assert_int_equal(m, 0xc0);
	assert_int_equal(cap_mask_parse("issue,bogus", &m, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "'bogus'"));
	assert_int_equal(cap_mask_parse("", &m, &e), -EINVAL);
	assert_int_equal(cap_mask_parse("issue,,complete", &m, &e), -EINVAL);
	assert_int_equal(cap_mask_parse("0x10000", &m, &e), -EINVAL);
	/* every name round-trips; a short buffer truncates without overflowing */
	assert_string_equal(cap_mask_str(0xffff, buf, sizeof(buf)),
	                    "read,write,flush,sync,queue,requeue,issue,complete,fs,pc,notify,ahead,"
	                    "meta,discard,drv_data,fua");
	assert_int_equal(strlen(cap_mask_str(0xffff, buf, 10)), 9);
}

static void test_run_refuses(void **state)
{
	char *devs[] = {"/dev/iotape-no-such-device"};
	struct cap_opts o = {.rundir = "/tmp/iotape-ut-never-created", .devs = devs, .ndevs = 1};
	struct cap_result res;
	struct iot_err e;

	(void)state;
	/* nothing is created and nothing enabled when the device is missing (or we are not
	 * root) */
	assert_int_equal(cap_run(&o, &res, &e), geteuid() ? -EPERM : -ENOENT);
	assert_non_null(strstr(e.msg, geteuid() ? "root" : "iotape-no-such-device"));
	assert_int_not_equal(access(o.rundir, F_OK), 0);
	o.ndevs = 0;
	assert_int_equal(cap_run(&o, &res, &e), geteuid() ? -EPERM : -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_statuses),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_mask),
	    cmocka_unit_test(test_run_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
