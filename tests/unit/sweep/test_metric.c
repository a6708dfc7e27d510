/* SPDX-License-Identifier: MIT */
/* Unit tests for sweep/metric.c: numbers from a command's text and JSON output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sweep/sweep.h"

static int eval(const char *spec, const char *out, const char *err, double *v)
{
	struct sweep_metric m;
	struct iot_err e = {""};
	int ret;

	if (sweep_metric_parse(spec, &m, &e))
		fail_msg("'%s': %s", spec, e.msg);
	ret = sweep_metric_eval(&m, out, out ? strlen(out) : 0, err, err ? strlen(err) : 0, v, &e);
	if (ret)
		assert_true(e.msg[0] != 0);
	sweep_metric_release(&m);
	return ret;
}

static void test_regex(void **state)
{
	static const char ssc[] =
	    "INFO: 00:09:01.302004 - Server-side COPY: 0.104049992561 seconds\n"
	    "INFO: 00:09:01.302206 - Traditional COPY: 0.0319610118866 seconds\n";
	static const char dd[] = "16777216 bytes (17 MB, 16 MiB) copied, 0.0123 s, 1.4 GB/s\n";
	double v;

	(void)state;
	assert_int_equal(eval("ssc=Server-side COPY: ([0-9.]+) seconds", ssc, "", &v), 0);
	assert_true(v == 0.104049992561);
	assert_int_equal(eval("trad=^INFO.*Traditional COPY: ([0-9.e-]+)", ssc, "", &v), 0);
	assert_true(v == 0.0319610118866);
	/* not on stdout: stderr is tried (dd reports there) */
	assert_int_equal(eval("secs=copied, ([0-9.]+) s,", "", dd, &v), 0);
	assert_true(v == 0.0123);
	/* no group: the whole match */
	assert_int_equal(eval("n=[0-9]+", "abc 42 def", NULL, &v), 0);
	assert_true(v == 42);
	/* the first group, when there are several (here not a number) */
	assert_int_equal(eval("w=(read|write) ([0-9]+)", "write 17 read 3", NULL, &v), -EINVAL);
	assert_int_equal(eval("w=([0-9]+) (read|write)", "17 write", NULL, &v), 0);
	assert_true(v == 17);
	/* absent, or not a number */
	assert_int_equal(eval("x=nothing ([0-9]+)", ssc, dd, &v), -ENOENT);
	assert_int_equal(eval("x=(GB/s)", "", dd, &v), -EINVAL);
	assert_int_equal(eval("x=copied, (.*)", "", dd, &v), -EINVAL);
	assert_int_equal(eval("x=(0x10)", "0x10", NULL, &v), -EINVAL);
	/* NUL bytes in the output do not end it */
	{
		static const char bin[] = "junk\0junk\nvalue 7\n";
		struct sweep_metric m;
		struct iot_err e;

		assert_int_equal(sweep_metric_parse("v=value ([0-9]+)", &m, &e), 0);
		assert_int_equal(sweep_metric_eval(&m, bin, sizeof(bin) - 1, NULL, 0, &v, &e), 0);
		assert_true(v == 7);
		sweep_metric_release(&m);
	}
}

static void test_json(void **state)
{
	static const char fio[] =
	    "note: both iodepth >= 1 and synchronous I/O engine are selected\n"
	    "{\n  \"fio version\" : \"fio-3.33\",\n  \"jobs\" : [\n"
	    "    {\"jobname\": \"a\", \"read\": {\"bw\": 1000, \"iops\": 250.5,\n"
	    "      \"clat_ns\": {\"percentile\": {\"99.000000\": 123456}}},\n"
	    "     \"write\": {\"bw\": \"77\"}},\n"
	    "    {\"jobname\": \"b\", \"read\": {\"bw\": 500, \"iops\": 125.25}}\n  ]\n}\n"
	    "trailing text\n";
	double v;

	(void)state;
	assert_int_equal(eval("bw=json:jobs[0].read.bw", fio, NULL, &v), 0);
	assert_true(v == 1000);
	assert_int_equal(eval("bw=json:jobs.1.read.bw", fio, NULL, &v), 0);
	assert_true(v == 500);
	assert_int_equal(eval("iops=json:jobs[*].read.iops", fio, NULL, &v), 0);
	assert_true(v == 375.75);
	assert_int_equal(
	    eval("p99=json:jobs[0].read.clat_ns.percentile[\"99.000000\"]", fio, NULL, &v), 0);
	assert_true(v == 123456);
	/* a number written as a string */
	assert_int_equal(eval("w=json:jobs[0].write.bw", fio, NULL, &v), 0);
	assert_true(v == 77);
	assert_int_equal(eval("x=json:jobs[2].read.bw", fio, NULL, &v), -ENOENT);
	assert_int_equal(eval("x=json:jobs[0].jobname", fio, NULL, &v), -EINVAL);
	assert_int_equal(eval("x=json:jobs[0].read", fio, NULL, &v), -EINVAL);
	assert_int_equal(eval("x=json:a", "no json here\n", NULL, &v), -ENOENT);
	assert_int_equal(eval("x=json:[1]", "[1, 2.5]", NULL, &v), 0);
	assert_true(v == 2.5);
}

static void test_parse(void **state)
{
	static const char *const bad[] = {"noeq",        "=x",        "x=",           "x=(unclosed",
	                                  "x=json:",     "x=json:a[", "x=json:a[x]",  "x=json:.a",
	                                  "x=json:a..b", "a b=x",     "x=json:a[\"b]"};
	struct sweep_metric m;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct iot_err e = {""};

		if (!sweep_metric_parse(bad[i], &m, &e)) {
			sweep_metric_release(&m);
			fail_msg("'%s' was accepted", bad[i]);
		}
		assert_true(e.msg[0] != 0);
	}
}

/* Repetitions whose compiled size multiplies out are refused before regcomp() sees them;
 * expressions users write, with escapes, brackets and bounds, still compile. */
static void test_regex_size(void **state)
{
	static const char *const big[] = {
	    "x=j++++++++++++++++++++++++++++++++++++++++",
	    "x=(((a{0,60}){0,60}){0,60}){0,60}",
	    "x=((((((((((((((((((a*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*",
	    "x=a{70000}",
	    "x=((){0,60}){0,60}",
	    "x=((){,060}){0,60}",
	};
	static const char *const fine[] = {
	    "x=([0-9]+(\\.[0-9]*)?) MB/s",
	    "x=[][(){}+*]+ ([0-9]{1,10})",
	    "x=(a|b){1,50} ([0-9]+)",
	    "x=[[:digit:]]+[)]+ ([0-9]+)",
	    "x=a{2,} ([0-9]+)",
	};
	struct sweep_metric m;

	(void)state;
	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		struct iot_err e = {""};

		if (!sweep_metric_parse(big[i], &m, &e)) {
			sweep_metric_release(&m);
			fail_msg("'%s' was accepted", big[i]);
		}
		assert_non_null(strstr(e.msg, "nested too deeply"));
	}
	for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++) {
		struct iot_err e = {""};

		if (sweep_metric_parse(fine[i], &m, &e))
			fail_msg("'%s': %s", fine[i], e.msg);
		sweep_metric_release(&m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_regex),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_regex_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
