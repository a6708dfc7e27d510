/* SPDX-License-Identifier: MIT */
/* Unit tests for formats/outcheck.c: no output is ever an input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "formats/outcheck.h"
#include "../tmpdir.h"

static const char *at(char *buf, const char *rel)
{
	snprintf(buf, 256, "%s/%s", tmpdir, rel);
	return buf;
}

static void touch(const char *rel)
{
	char p[256];
	FILE *f = fopen(at(p, rel), "w");

	assert_non_null(f);
	fputs("x", f);
	fclose(f);
}

static void dir(const char *rel)
{
	char p[256];

	assert_int_equal(mkdir(at(p, rel), 0755), 0);
}

/* one input, one output: 0 or the error's code, with the message kept in msg */
static char msg[512];

static int check1(const char *in, const char *out, enum out_kind kind)
{
	char a[256], b[256];
	const char *ins[] = {in ? at(a, in) : NULL};
	struct out_spec o = {at(b, out), kind, "-o"};
	struct iot_err e = {{0}};
	int ret = out_check(ins, 1, NULL, 0, &o, 1, &e);

	snprintf(msg, sizeof(msg), "%s", ret ? e.msg : "");
	return ret;
}

static void test_file(void **state)
{
	char p[256], q[256];

	(void)state;
	touch("trace.bin");
	assert_int_equal(check1("trace.bin", "trace.bin", OUT_FILE), -EINVAL);
	assert_non_null(strstr(msg, "is the input"));
	assert_int_equal(check1("trace.bin", "other.csv", OUT_FILE), 0);
	assert_int_equal(check1("trace.bin", "./trace.bin", OUT_FILE), -EINVAL);
	/* a hard link and a symbolic link to it are it */
	assert_int_equal(link(at(p, "trace.bin"), at(q, "hard.bin")), 0);
	assert_int_equal(check1("trace.bin", "hard.bin", OUT_FILE), -EINVAL);
	assert_int_equal(symlink("trace.bin", at(q, "soft.bin")), 0);
	assert_int_equal(check1("trace.bin", "soft.bin", OUT_FILE), -EINVAL);
	assert_int_equal(check1("soft.bin", "trace.bin", OUT_FILE), -EINVAL);
	/* a dangling link is placed where it points: not the input */
	assert_int_equal(symlink("nothing-yet", at(q, "dangling")), 0);
	assert_int_equal(check1("trace.bin", "dangling", OUT_FILE), 0);
}

/* a run directory: an output inside it, one that is it, one that holds it */
static void test_run_dir(void **state)
{
	(void)state;
	dir("run");
	touch("run/sda.blktrace.0");
	touch("run/manifest.json");
	assert_int_equal(check1("run", "run", OUT_DIR), -EINVAL);
	assert_non_null(strstr(msg, "is the input"));
	assert_int_equal(check1("run", "run/report.html", OUT_FILE), -EINVAL);
	assert_non_null(strstr(msg, "lies inside the input"));
	assert_int_equal(check1("run", "run/new/deeper", OUT_DIR), -EINVAL);
	assert_int_equal(check1("run", ".", OUT_DIR), -EINVAL);
	assert_non_null(strstr(msg, "holds the input"));
	assert_int_equal(check1("run", "elsewhere", OUT_DIR), 0);
	assert_int_equal(check1("run", "run.html", OUT_FILE), 0);
	/* an input file inside the run, the run as output */
	assert_int_equal(check1("run/sda.blktrace.0", "run", OUT_DIR), -EINVAL);
	assert_non_null(strstr(msg, "holds the input"));
}

/* a per-CPU set NAME: its files, not NAME.anything */
static void test_set(void **state)
{
	(void)state;
	dir("sets");
	touch("sets/file.blktrace.0");
	touch("sets/file.blktrace.1");
	assert_int_equal(check1("sets/file", "sets/file.blktrace.1", OUT_FILE), -EINVAL);
	assert_int_equal(check1("sets/file", "sets/file.txt", OUT_FILE), 0);
	assert_int_equal(check1("sets/file", "sets", OUT_DIR), -EINVAL);
	/* replay --record R where R holds the set being replayed */
	assert_non_null(strstr(msg, "holds the input"));
}

/* a directory output already holding a link to an input (hard or symbolic) */
static void test_dir_entries(void **state)
{
	char p[256], q[256];

	(void)state;
	dir("in");
	touch("in/dev.blktrace.0");
	dir("out");
	assert_int_equal(check1("in/dev.blktrace.0", "out", OUT_DIR), 0);
	assert_int_equal(link(at(p, "in/dev.blktrace.0"), at(q, "out/dev.blktrace.0")), 0);
	assert_int_equal(check1("in/dev.blktrace.0", "out", OUT_DIR), -EINVAL);
	assert_non_null(strstr(msg, "holds the input"));
	unlink(q);
	assert_int_equal(symlink(at(p, "in"), at(q, "out/link")), 0);
	assert_int_equal(check1("in/dev.blktrace.0", "out", OUT_DIR), -EINVAL);
	/* the whole run directory as input: the link in the output names it */
	assert_int_equal(check1("in", "out", OUT_DIR), -EINVAL);
}

/* targets: an output inside a replay's target directory, or that is its target file */
static void test_targets(void **state)
{
	char a[256], b[256], c[256];
	struct iot_err e;

	(void)state;
	dir("target");
	touch("image");
	{
		const char *tg[] = {at(a, "target")};
		struct out_spec o = {at(b, "target/rec"), OUT_DIR, "--record"};

		assert_int_equal(out_check(NULL, 0, tg, 1, &o, 1, &e), -EINVAL);
		assert_non_null(strstr(e.msg, "lies inside the replay target"));
	}
	{
		const char *tg[] = {at(a, "image")};
		struct out_spec o = {at(b, "image"), OUT_FILE, "-o"};

		assert_int_equal(out_check(NULL, 0, tg, 1, &o, 1, &e), -EINVAL);
	}
	/* two outputs: the same, or one directory inside the other */
	{
		struct out_spec o[] = {{at(b, "rec"), OUT_DIR, "--record"},
		                       {at(c, "rec"), OUT_DIR, "--capture"}};

		assert_int_equal(out_check(NULL, 0, NULL, 0, o, 2, &e), -EINVAL);
		assert_non_null(strstr(e.msg, "are the same"));
		at(c, "rec/cap");
		assert_int_equal(out_check(NULL, 0, NULL, 0, o, 2, &e), -EINVAL);
		assert_non_null(strstr(e.msg, "lies inside"));
		at(c, "rec2");
		assert_int_equal(out_check(NULL, 0, NULL, 0, o, 2, &e), 0);
	}
}

/* standard input and output: compared when they are regular files */
static void test_stdio(void **state)
{
	char a[256];
	const char *ins[] = {"-"};
	struct out_spec o = {NULL, OUT_FILE, "-o"};
	struct iot_err e;
	int saved = dup(STDIN_FILENO), fd;

	(void)state;
	touch("stdin.bin");
	fd = open(at(a, "stdin.bin"), O_RDONLY);
	assert_true(fd >= 0);
	dup2(fd, STDIN_FILENO);
	close(fd);
	o.path = a;
	assert_int_equal(out_check(ins, 1, NULL, 0, &o, 1, &e), -EINVAL);
	o.path = "-";
	assert_int_equal(out_check(ins, 1, NULL, 0, &o, 1, &e), 0);
	dup2(saved, STDIN_FILENO);
	close(saved);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_file),    cmocka_unit_test(test_run_dir),
	    cmocka_unit_test(test_set),     cmocka_unit_test(test_dir_entries),
	    cmocka_unit_test(test_targets), cmocka_unit_test(test_stdio),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown));
}
