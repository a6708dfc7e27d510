/* SPDX-License-Identifier: MIT */
/* Unit tests for common/fs.c: mkdir -p, atomic replacement. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>
#include <dirent.h>

#include "common/fs.h"
#include "../tmpdir.h"

static int hidden_files(const char *dir);

static int is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static void test_parents(void **state)
{
	char p[256];
	struct iot_err e;

	(void)state;
	snprintf(p, sizeof(p), "%s/a/b//c/", tmpdir);
	assert_int_equal(iot_mkdir_p(p, &e), 0);
	snprintf(p, sizeof(p), "%s/a/b/c", tmpdir);
	assert_true(is_dir(p));
	/* again: it exists, which is fine */
	assert_int_equal(iot_mkdir_p(p, &e), 0);
}

static void test_file_in_the_way(void **state)
{
	char p[256], f[256];
	struct iot_err e;
	FILE *fp;

	(void)state;
	snprintf(f, sizeof(f), "%s/file", tmpdir);
	fp = fopen(f, "w");
	assert_non_null(fp);
	fclose(fp);
	snprintf(p, sizeof(p), "%s/file/sub", tmpdir);
	assert_int_equal(iot_mkdir_p(p, &e), -ENOTDIR);
	assert_non_null(strstr(e.msg, "is not a directory"));
	assert_int_equal(iot_mkdir_p(f, &e), -ENOTDIR);
}

/* the file is replaced whole, and no temporary file is left */
static void test_write_atomic(void **state)
{
	char p[256], buf[64];
	struct iot_err e;
	FILE *fp;
	size_t n;

	(void)state;
	assert_int_equal(iot_write_atomic(tmpdir, "state.json", "first\n", 6, &e), 0);
	assert_int_equal(iot_write_atomic(tmpdir, "state.json", "second\n", 7, &e), 0);
	snprintf(p, sizeof(p), "%s/state.json", tmpdir);
	fp = fopen(p, "r");
	assert_non_null(fp);
	n = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	assert_int_equal(n, 7);
	assert_memory_equal(buf, "second\n", 7);
	assert_int_equal(hidden_files(tmpdir), 0);
	snprintf(p, sizeof(p), "%s/missing", tmpdir);
	assert_int_equal(iot_write_atomic(p, "x", "y", 1, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "missing/x"));
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void expect(const char *path, const char *text)
{
	char buf[256] = {0};
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_true(fread(buf, 1, sizeof(buf) - 1, f) < sizeof(buf) - 1);
	fclose(f);
	assert_string_equal(buf, text);
}

/* the temporaries iot_outfile leaves: dot files in dir */
static int hidden_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] == '.' && strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

/* written beside and renamed: the file is replaced, never written into, so a hard link to it
 * (an input someone linked there) keeps its bytes; a failure keeps the old file */
static void test_outfile_replaces(void **state)
{
	char p[256], hard[256];
	struct iot_outfile o;
	struct iot_err e;
	struct stat a, b;

	(void)state;
	snprintf(p, sizeof(p), "%s/out.txt", tmpdir);
	snprintf(hard, sizeof(hard), "%s/hard.txt", tmpdir);
	put(p, "old\n");
	assert_int_equal(link(p, hard), 0);
	assert_int_equal(stat(p, &a), 0);
	assert_int_equal(iot_outfile_open(&o, p, 0, &e), 0);
	/* nothing at the place while it is written */
	expect(p, "old\n");
	assert_non_null(iot_outfile_stream(&o));
	fputs("new\n", iot_outfile_stream(&o));
	assert_int_equal(iot_outfile_commit(&o, &e), 0);
	expect(p, "new\n");
	expect(hard, "old\n");
	assert_int_equal(stat(p, &b), 0);
	assert_true(a.st_ino != b.st_ino);
	assert_int_equal(hidden_files(tmpdir), 0);

	assert_int_equal(iot_outfile_open(&o, p, 0, &e), 0);
	assert_int_equal(iot_write_all(o.fd, "partial", 7, NULL), 0);
	iot_outfile_abort(&o);
	iot_outfile_abort(&o); /* twice is harmless */
	expect(p, "new\n");
	assert_int_equal(hidden_files(tmpdir), 0);
	unlink(p);
	unlink(hard);
}

/* Suspended and resumed (a writer of many outputs): the descriptor closed, the temporary kept
 * and appended to, nothing at the place until the commit; an abort removes it. */
static void test_outfile_suspend(void **state)
{
	char p[256];
	struct iot_outfile o;
	struct iot_err e;

	(void)state;
	snprintf(p, sizeof(p), "%s/log.iolog", tmpdir);
	put(p, "old\n");
	assert_int_equal(iot_outfile_open(&o, p, 0, &e), 0);
	fputs("one\n", iot_outfile_stream(&o));
	assert_int_equal(iot_outfile_suspend(&o, &e), 0);
	assert_int_equal(o.fd, -1);
	assert_int_equal(iot_outfile_suspend(&o, &e), 0); /* twice is harmless */
	expect(p, "old\n");
	assert_int_equal(hidden_files(tmpdir), 1);
	assert_int_equal(iot_outfile_resume(&o, &e), 0);
	assert_int_equal(iot_write_all(o.fd, "two\n", 4, NULL), 0);
	assert_int_equal(iot_outfile_suspend(&o, &e), 0);
	assert_int_equal(iot_outfile_commit(&o, &e), 0); /* committed while suspended */
	expect(p, "one\ntwo\n");
	assert_int_equal(hidden_files(tmpdir), 0);

	assert_int_equal(iot_outfile_open(&o, p, 0, &e), 0);
	assert_int_equal(iot_write_all(o.fd, "three\n", 6, NULL), 0);
	assert_int_equal(iot_outfile_suspend(&o, &e), 0);
	iot_outfile_abort(&o);
	expect(p, "one\ntwo\n");
	assert_int_equal(hidden_files(tmpdir), 0);
	unlink(p);
}

/* iot_write_file: the whole of a buffer (capture's summary.json) the same way */
static void test_write_file(void **state)
{
	char p[256], hard[256];
	struct iot_err e;

	(void)state;
	snprintf(p, sizeof(p), "%s/summary.json", tmpdir);
	snprintf(hard, sizeof(hard), "%s/hard.json", tmpdir);
	assert_int_equal(iot_write_file(p, "{}", 2, 0, &e), 0);
	expect(p, "{}");
	assert_int_equal(link(p, hard), 0);
	assert_int_equal(iot_write_file(p, "{\"a\": 1}", 8, IOT_OUT_SYNC, &e), 0);
	expect(p, "{\"a\": 1}");
	expect(hard, "{}");
	assert_int_equal(hidden_files(tmpdir), 0);
	snprintf(p, sizeof(p), "%s/no/such/dir/x", tmpdir);
	assert_int_equal(iot_write_file(p, "y", 1, 0, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "no/such/dir/x"));
	unlink(hard);
	snprintf(p, sizeof(p), "%s/summary.json", tmpdir);
	unlink(p);
}

/* a symbolic link at the place stays, and the file it names is replaced */
static void test_outfile_link(void **state)
{
	char p[256], target[256], dangling[256], made[256];
	struct iot_outfile o;
	struct iot_err e;
	struct stat st;

	(void)state;
	snprintf(p, sizeof(p), "%s/link.html", tmpdir);
	snprintf(target, sizeof(target), "%s/real.html", tmpdir);
	put(target, "old\n");
	assert_int_equal(symlink("real.html", p), 0);
	assert_int_equal(iot_outfile_open(&o, p, 0, &e), 0);
	assert_int_equal(iot_write_all(o.fd, "new\n", 4, NULL), 0);
	assert_int_equal(iot_outfile_commit(&o, &e), 0);
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	expect(target, "new\n");
	/* a dangling link: the file is made where it points */
	snprintf(dangling, sizeof(dangling), "%s/dangling", tmpdir);
	snprintf(made, sizeof(made), "%s/made.txt", tmpdir);
	assert_int_equal(symlink(made, dangling), 0);
	assert_int_equal(iot_outfile_open(&o, dangling, 0, &e), 0);
	assert_int_equal(iot_write_all(o.fd, "x", 1, NULL), 0);
	assert_int_equal(iot_outfile_commit(&o, &e), 0);
	expect(made, "x");
	assert_int_equal(lstat(dangling, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	unlink(p), unlink(target), unlink(dangling), unlink(made);
}

/* what is not a regular file (a device, a FIFO) is written directly, never renamed over; a
 * directory is refused; a missing directory says so by the output's own name */
static void test_outfile_special(void **state)
{
	char p[256];
	struct iot_outfile o;
	struct iot_err e;
	struct stat st;

	(void)state;
	assert_int_equal(iot_outfile_open(&o, "/dev/null", 0, &e), 0);
	assert_null(o.tmp);
	assert_int_equal(iot_write_all(o.fd, "x", 1, NULL), 0);
	assert_int_equal(iot_outfile_commit(&o, &e), 0);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(iot_outfile_open(&o, tmpdir, 0, &e), -EISDIR);
	snprintf(p, sizeof(p), "%s/nodir/x.html", tmpdir);
	assert_int_equal(iot_outfile_open(&o, p, 0, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "nodir/x.html"));
	assert_int_equal(iot_outfile_open(&o, "-", 0, &e), 0);
	assert_int_equal(o.fd, STDOUT_FILENO);
	assert_int_equal(iot_outfile_commit(&o, &e), 0);
	assert_int_equal(fcntl(STDOUT_FILENO, F_GETFD), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parents),         cmocka_unit_test(test_file_in_the_way),
	    cmocka_unit_test(test_write_atomic),    cmocka_unit_test(test_outfile_replaces),
	    cmocka_unit_test(test_outfile_link),    cmocka_unit_test(test_outfile_special),
	    cmocka_unit_test(test_outfile_suspend), cmocka_unit_test(test_write_file),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown));
}
