/* SPDX-License-Identifier: MIT */
/* Unit tests for common/fs.c: mkdir -p, atomic replacement. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/fs.h"

static char base[64];

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
	snprintf(p, sizeof(p), "%s/a/b//c/", base);
	assert_int_equal(iot_mkdir_p(p, &e), 0);
	snprintf(p, sizeof(p), "%s/a/b/c", base);
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
	snprintf(f, sizeof(f), "%s/file", base);
	fp = fopen(f, "w");
	assert_non_null(fp);
	fclose(fp);
	snprintf(p, sizeof(p), "%s/file/sub", base);
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
	assert_int_equal(iot_write_atomic(base, "state.json", "first\n", 6, &e), 0);
	assert_int_equal(iot_write_atomic(base, "state.json", "second\n", 7, &e), 0);
	snprintf(p, sizeof(p), "%s/state.json", base);
	fp = fopen(p, "r");
	assert_non_null(fp);
	n = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	assert_int_equal(n, 7);
	assert_memory_equal(buf, "second\n", 7);
	snprintf(p, sizeof(p), "%s/.state.json.tmp", base);
	assert_int_equal(access(p, F_OK), -1);
	snprintf(p, sizeof(p), "%s/missing", base);
	assert_int_equal(iot_write_atomic(p, "x", "y", 1, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "missing/.x.tmp"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parents),
	    cmocka_unit_test(test_file_in_the_way),
	    cmocka_unit_test(test_write_atomic),
	};
	char cmd[128];
	int ret;

	snprintf(base, sizeof(base), "/tmp/iotape-test-fs.XXXXXX");
	if (!mkdtemp(base))
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd))
		ret = 1;
	return ret;
}
