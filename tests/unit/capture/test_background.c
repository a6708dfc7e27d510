/* SPDX-License-Identifier: MIT */
/* Unit tests: a capture in the background (capture/background.c): started once it traces, or
 * its error when it cannot start; stopped on request. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "capture/capture.h"
#include "../tmpdir.h"

/* nothing to capture: the thread ends at once and start says why (not root: root is needed) */
static void test_cannot_start(void **state)
{
	struct cap_bg bg;
	struct iot_err e = {""};

	(void)state;
	memset(&bg, 0, sizeof(bg));
	bg.o.rundir = tpath("none");
	assert_int_equal(cap_bg_start(&bg, &e), geteuid() ? -EPERM : -EINVAL);
	assert_true(e.msg[0] != '\0');
	assert_true(atomic_load(&bg.done));
}

/* packets on the loopback interface (root): start returns once the capture runs, stop ends it
 * and the run directory has its manifest */
static void test_start_stop(void **state)
{
	struct cap_bg bg;
	struct iot_err e = {""};
	char path[128];

	(void)state;
	if (geteuid()) {
		skip();
		return;
	}
	memset(&bg, 0, sizeof(bg));
	bg.o.rundir = tpath("lo");
	bg.o.iface = "lo";
	assert_int_equal(cap_bg_start(&bg, &e), 0);
	assert_true(atomic_load(&bg.ready));
	assert_int_equal(cap_bg_stop(&bg), 0);
	assert_int_equal(bg.res.late_err, 0);
	snprintf(path, sizeof(path), "%s/manifest.json", bg.o.rundir);
	assert_int_equal(access(path, R_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cannot_start),
	    cmocka_unit_test(test_start_stop),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown));
}
