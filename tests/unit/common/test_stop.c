/* SPDX-License-Identifier: MIT */
/* Unit tests: one way to stop on a signal (common/stop.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/stop.h"

static void test_first_signal_recorded(void **s)
{
	struct sigaction hup;

	(void)s;
	signal(SIGHUP, SIG_DFL);
	iot_stop_sig = 0;
	assert_int_equal(iot_stop_catch(0), 0);
	raise(SIGINT);
	assert_int_equal(iot_stop_sig, SIGINT);
	/* without IOT_STOP_TWICE a second one is recorded too, and the process lives on */
	raise(SIGTERM);
	assert_int_equal(iot_stop_sig, SIGTERM);
	/* SIGHUP only when asked for */
	assert_int_equal(sigaction(SIGHUP, NULL, &hup), 0);
	assert_ptr_equal(hup.sa_handler, SIG_DFL);
	/* no SA_RESTART: the signal wakes a blocking call */
	assert_int_equal(sigaction(SIGINT, NULL, &hup), 0);
	assert_false(hup.sa_flags & SA_RESTART);
}

static void test_hup_as_term(void **s)
{
	(void)s;
	iot_stop_sig = 0;
	assert_int_equal(iot_stop_catch(IOT_STOP_HUP), 0);
	raise(SIGHUP);
	assert_int_equal(iot_stop_sig, SIGTERM);
	signal(SIGHUP, SIG_DFL);
}

/* With IOT_STOP_TWICE the first signal is recorded, the second ends the process by it. */
static void test_twice(void **s)
{
	int status;
	pid_t pid;

	(void)s;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		iot_stop_sig = 0;
		if (iot_stop_catch(IOT_STOP_TWICE))
			_exit(10);
		raise(SIGINT);
		if (iot_stop_sig != SIGINT)
			_exit(11);
		raise(SIGINT);
		_exit(12); /* not reached */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGINT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_first_signal_recorded),
	    cmocka_unit_test(test_hup_as_term),
	    cmocka_unit_test(test_twice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
