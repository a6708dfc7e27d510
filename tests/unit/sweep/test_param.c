/* SPDX-License-Identifier: MIT */
/* Unit tests for sweep/param.c: value lists, ranges, files, names, directory names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sweep/sweep.h"

static void expect_values(const char *spec, const char *const *want, size_t n)
{
	struct sweep_param p;
	struct iot_err e = {""};

	if (sweep_param_parse(spec, &p, &e))
		fail_msg("'%s': %s", spec, e.msg);
	assert_int_equal(p.n, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(p.v[i].text, want[i]);
	sweep_param_release(&p);
}

static void test_lists(void **state)
{
	static const char *const fs[] = {"ext4", "xfs", "btrfs"};
	static const char *const empty[] = {"", "-o sync"};
	static const char *const ver[] = {"v1..v2", "0.46"};

	(void)state;
	expect_values("fs=ext4,xfs,btrfs", fs, 3);
	/* an empty value is a value ("no extra option") */
	expect_values("opts=,-o sync", empty, 2);
	/* "v1..v2" is not a range of numbers: a value as written */
	expect_values("ver=v1..v2,0.46", ver, 2);
}

static void test_ranges(void **state)
{
	static const char *const sizes[] = {"1k",   "2k",   "4k",   "8k", "16k", "32k", "64k",
	                                    "128k", "256k", "512k", "1m", "2m",  "4m"};
	static const char *const upper[] = {"512", "1K", "2K", "4K"};
	static const char *const iec[] = {"1KiB", "4KiB", "16KiB", "64KiB", "256KiB", "1MiB"};
	static const char *const add[] = {"1", "2", "3", "4"};
	static const char *const step[] = {"0", "25", "50", "75", "100"};
	static const char *const frac[] = {"0.1", "0.2", "0.3"};
	static const char *const mixed[] = {"1", "10", "100", "1000", "7"};
	struct sweep_param p;
	struct iot_err e;

	(void)state;
	expect_values("size=1k..4m:x2", sizes, 13);
	expect_values("bs=512..4K:x2", upper, 4);
	expect_values("bs=1KiB..1MiB:x4", iec, 6);
	expect_values("n=1..4", add, 4);
	expect_values("pct=0..100:+25", step, 5);
	expect_values("f=0.1..0.3:0.1", frac, 3);
	expect_values("n=1..1000:x10,7", mixed, 5);
	/* the ranges' numbers, and sizes or a multiplying range make a log axis */
	assert_int_equal(sweep_param_parse("size=1k..4g:x2", &p, &e), 0);
	assert_int_equal(p.n, 23);
	assert_string_equal(p.v[22].text, "4g");
	assert_true(p.v[22].num == 4294967296.0);
	assert_true(p.log);
	sweep_param_release(&p);
	assert_int_equal(sweep_param_parse("n=1..4", &p, &e), 0);
	assert_false(p.log);
	sweep_param_release(&p);
	assert_int_equal(sweep_param_parse("bs=4k,128k,4m", &p, &e), 0);
	assert_true(p.log);
	assert_true(p.v[1].num == 131072);
	sweep_param_release(&p);
}

static void test_bad(void **state)
{
	static const char *const bad[] = {
	    "noequals",    "1x=a",         "rep=1,2",        "run=a",
	    "PATH=/bin",   "LD_PRELOAD=x", "IOTAPE_SWEEP=x", "a-b=1",
	    "n=4..1",      "n=1..4:x1",    "n=0..4:x2",      "n=1..4:+0",
	    "n=1..4:fast", "fs=ext4,ext4", "n=1..100000",    "f=@/nonexistent/iotape-values",
	};
	struct sweep_param p;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct iot_err e = {""};

		if (!sweep_param_parse(bad[i], &p, &e))
			fail_msg("'%s' was accepted", bad[i]);
		assert_true(e.msg[0] != 0);
	}
}

static void test_file(void **state)
{
	char path[] = "/tmp/iotape-values.XXXXXX", spec[64];
	struct sweep_param p;
	struct iot_err e;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	(void)state;
	fputs("# kernels to try\n6.1.0-28\n\n  6.6.13  \n6.12.9\r\n", f);
	fclose(f);
	snprintf(spec, sizeof(spec), "kernel=@%s", path);
	assert_int_equal(sweep_param_parse(spec, &p, &e), 0);
	assert_int_equal(p.n, 3);
	assert_string_equal(p.v[0].text, "6.1.0-28");
	assert_string_equal(p.v[1].text, "  6.6.13");
	assert_string_equal(p.v[2].text, "6.12.9");
	sweep_param_release(&p);
	f = fopen(path, "w");
	fputs("# nothing\n", f);
	fclose(f);
	assert_int_equal(sweep_param_parse(spec, &p, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "no values"));
	unlink(path);
}

static void test_numbers(void **state)
{
	bool size;

	(void)state;
	assert_true(sweep_value_num("4096", &size) == 4096 && !size);
	assert_true(sweep_value_num("4k", &size) == 4096 && size);
	assert_true(sweep_value_num("1.5M", &size) == 1.5 * 1048576 && size);
	assert_true(sweep_value_num("128KiB", NULL) == 131072);
	assert_true(sweep_value_num("4KB", NULL) == 4096);
	assert_true(sweep_value_num("-2.5e3", NULL) == -2500);
	assert_true(sweep_value_num("512b", &size) == 512 && size);
	assert_true(isnan(sweep_value_num("ext4", NULL)));
	assert_true(isnan(sweep_value_num("0x10", NULL)));
	assert_true(isnan(sweep_value_num("nan", NULL)));
	assert_true(isnan(sweep_value_num("inf", NULL)));
	assert_true(isnan(sweep_value_num("4kx", NULL)));
	assert_true(isnan(sweep_value_num("", NULL)));
	assert_true(isnan(sweep_value_num(" 4", NULL)));
	assert_true(isnan(sweep_value_num("0.47.2", NULL)));
}

static void test_escape(void **state)
{
	char buf[SWEEP_SEGMENT_MAX + 1];

	(void)state;
	sweep_path_escape("fs", "ext4", buf, sizeof(buf));
	assert_string_equal(buf, "fs=ext4");
	sweep_path_escape("opts", "-o sync,noatime", buf, sizeof(buf));
	assert_string_equal(buf, "opts=-o%20sync,noatime");
	sweep_path_escape("p", "a/b", buf, sizeof(buf));
	assert_string_equal(buf, "p=a%2Fb");
	sweep_path_escape("p", "..", buf, sizeof(buf));
	assert_string_equal(buf, "p=%2E.");
	sweep_path_escape("p", "", buf, sizeof(buf));
	assert_string_equal(buf, "p=");
	sweep_path_escape("p", "50%", buf, sizeof(buf));
	assert_string_equal(buf, "p=50%25");
	sweep_path_escape("p", "\xc3\xa9t\xc3\xa9", buf, sizeof(buf));
	assert_string_equal(buf, "p=%C3%A9t%C3%A9");
	sweep_path_escape("p", "a~b", buf, sizeof(buf));
	assert_string_equal(buf, "p=a%7Eb");
	/* too small a buffer: refused, never a name cut short */
	assert_int_equal(sweep_path_escape("p", "abcdefgh", buf, 8), -ENAMETOOLONG);
	assert_string_equal(buf, "");
}

/* issue #25 item 13: a value of any length gives a directory name within NAME_MAX (a 400-byte
 * value made a sweep that could neither run nor resume: "File name too long") */
static void test_escape_long(void **state)
{
	char a[SWEEP_SEGMENT_MAX + 1], b[SWEEP_SEGMENT_MAX + 1], v[2000];

	(void)state;
	memset(v, 'x', sizeof(v) - 1);
	v[sizeof(v) - 1] = 0;
	assert_int_equal(sweep_path_escape("p", v, a, sizeof(a)), 0);
	assert_true(strlen(a) <= SWEEP_SEGMENT_MAX);
	assert_non_null(strchr(a, '~'));
	assert_int_equal(strlen(strchr(a, '~')), 17);
	/* values that differ only past the cut have different names */
	v[1990] = 'y';
	assert_int_equal(sweep_path_escape("p", v, b, sizeof(b)), 0);
	assert_true(strcmp(a, b) != 0);
	assert_int_equal(strncmp(a, b, strlen(a) - 16), 0);
	/* escapes are never cut in half */
	memset(v, '/', sizeof(v) - 1);
	assert_int_equal(sweep_path_escape("p", v, a, sizeof(a)), 0);
	assert_true(strlen(a) <= SWEEP_SEGMENT_MAX);
	assert_int_equal((strchr(a, '~') - a - 2) % 3, 0);
	/* the longest name that is not cut is as it always was */
	memset(v, 'z', sizeof(v) - 1);
	v[SWEEP_SEGMENT_MAX - 2] = 0;
	assert_int_equal(sweep_path_escape("p", v, a, sizeof(a)), 0);
	assert_int_equal(strlen(a), SWEEP_SEGMENT_MAX);
	assert_null(strchr(a, '~'));
	v[SWEEP_SEGMENT_MAX - 2] = 'z';
	v[SWEEP_SEGMENT_MAX - 1] = 0;
	assert_int_equal(sweep_path_escape("p", v, a, sizeof(a)), 0);
	assert_non_null(strchr(a, '~'));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lists),  cmocka_unit_test(test_escape_long),
	    cmocka_unit_test(test_ranges), cmocka_unit_test(test_bad),
	    cmocka_unit_test(test_file),   cmocka_unit_test(test_numbers),
	    cmocka_unit_test(test_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
