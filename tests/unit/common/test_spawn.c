/* SPDX-License-Identifier: MIT */
/* Unit tests for common/spawn.c: statuses like a shell's, redirections, environment, groups. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/spawn.h"

static int run_opts(struct iot_spawn_opts *o, struct iot_proc *p)
{
	struct iot_err e;
	int st;

	assert_int_equal(iot_spawn(o, p, &e), 0);
	assert_true(p->pid > 0);
	while (!iot_proc_wait(p, -1, &st))
		;
	assert_int_equal(p->pid, -1);
	return st;
}

static int run(char *const *argv, int *exec_errno)
{
	struct iot_spawn_opts o = {.argv = argv, .fd_in = -1, .fd_out = -1, .fd_err = -1};
	struct iot_proc p;
	int st = run_opts(&o, &p);

	*exec_errno = p.exec_errno;
	return st;
}

static void test_statuses(void **state)
{
	char *ok[] = {"true", NULL}, *no[] = {"false", NULL},
	     *sig[] = {"sh", "-c", "kill -TERM $$", NULL}, *code[] = {"sh", "-c", "exit 42", NULL},
	     *missing[] = {"iotape-no-such-command-xyz", NULL},
	     *notexec[] = {"/etc/hostname", NULL};
	int ee;

	(void)state;
	assert_int_equal(run(ok, &ee), 0);
	assert_int_equal(ee, 0);
	assert_int_equal(run(no, &ee), 1);
	assert_int_equal(run(code, &ee), 42);
	/* killed by a signal: 128 + N, as a shell reports it */
	assert_int_equal(run(sig, &ee), 128 + 15);
	/* not found: 127 and the errno from exec; not executable: 126 */
	assert_int_equal(run(missing, &ee), 127);
	assert_int_equal(ee, ENOENT);
	if (access("/etc/hostname", F_OK) == 0 && access("/etc/hostname", X_OK) != 0) {
		assert_int_equal(run(notexec, &ee), 126);
		assert_int_equal(ee, EACCES);
	}
}

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* stdin, stdout and stderr on the caller's files; the environment given replaces ours */
static void test_redirect_env(void **state)
{
	char tmpl[] = "/tmp/iotape-spawn.XXXXXX";
	char out[64], err[64], in[64];
	char *argv[] = {"sh", "-c", "read x; echo \"out $x $FOO\"; echo err >&2", NULL};
	char *envp[] = {"FOO=bar", "PATH=/usr/bin:/bin", NULL};
	struct iot_spawn_opts o = {.argv = argv, .envp = envp};
	struct iot_proc p;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	snprintf(out, sizeof(out), "%s/out", tmpl);
	snprintf(err, sizeof(err), "%s/err", tmpl);
	snprintf(in, sizeof(in), "%s/in", tmpl);
	f = fopen(in, "w");
	fputs("line\n", f);
	fclose(f);
	o.fd_in = open(in, O_RDONLY);
	o.fd_out = open(out, O_WRONLY | O_CREAT, 0644);
	o.fd_err = open(err, O_WRONLY | O_CREAT, 0644);
	assert_int_equal(run_opts(&o, &p), 0);
	close(o.fd_in);
	close(o.fd_out);
	close(o.fd_err);
	assert_string_equal(slurp(out), "out line bar\n");
	assert_string_equal(slurp(err), "err\n");
	assert_true(iot_proc_wall_ns(&p) > 0);
	unlink(in);
	unlink(out);
	unlink(err);
	rmdir(tmpl);
}

/* a timeout returns 0 while the child runs; a group leader's whole group gets the signal, and
 * the wall time covers the run */
static void test_wait_kill_group(void **state)
{
	char *argv[] = {"sh", "-c", "sleep 30 & sleep 30; exit 0", NULL};
	char *quick[] = {"sleep", "0.2", NULL};
	struct iot_spawn_opts o = {
	    .argv = argv, .fd_in = -1, .fd_out = -1, .fd_err = -1, .new_pgrp = 1};
	struct iot_proc p;
	struct iot_err e;
	int st;

	(void)state;
	assert_int_equal(iot_spawn(&o, &p, &e), 0);
	assert_int_equal(iot_proc_wait(&p, 50, &st), 0);
	assert_int_equal(getpgid(p.pid), p.pid);
	assert_int_equal(iot_proc_kill(&p, SIGTERM), 0);
	while (!iot_proc_wait(&p, -1, &st))
		;
	assert_int_equal(st, 128 + SIGTERM);
	/* the background sleep was in the group too: no process of the group is left */
	usleep(100000);
	assert_int_equal(iot_proc_kill(&p, 0), -ESRCH);

	o.argv = quick;
	o.new_pgrp = 0;
	assert_int_equal(run_opts(&o, &p), 0);
	assert_true(iot_proc_wall_ns(&p) >= 190000000ull);
	assert_true(iot_proc_wall_ns(&p) < 5000000000ull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_statuses),
	    cmocka_unit_test(test_redirect_env),
	    cmocka_unit_test(test_wait_kill_group),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
