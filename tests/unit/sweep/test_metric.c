/* SPDX-License-Identifier: MIT */
/* Unit tests for sweep/metric.c: numbers from a command's text and JSON output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <signal.h>

#include "sweep/sweep.h"

static int eval(const char *spec, const char *out, const char *err, double *v)
{
	struct sweep_metric m;
	struct iot_err e = {""};
	int ret;

	if (sweep_metric_parse(spec, &m, &e))
		fail_msg("'%s': %s", spec, e.msg);
	ret = sweep_metric_eval(&m, out, out ? strlen(out) : 0, err, err ? strlen(err) : 0, NULL, v,
	                        &e);
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
		assert_int_equal(sweep_metric_eval(&m, bin, sizeof(bin) - 1, NULL, 0, NULL, &v, &e),
		                 0);
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
	static const char *const bad[] = {
	    "noeq",          "=x",          "x=",        "x=(unclosed", "x=json:",
	    "x=json:a[",     "x=json:a[x]", "x=json:.a", "x=json:a..b", "a b=x",
	    "x=json:a[\"b]", "x:=y",        ":B/s=y",    "x:a:b=y",     "x:toolongunit=y"};
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
	/* NAME:UNIT: the unit apart from the name */
	{
		struct iot_err e = {""};

		assert_int_equal(
		    sweep_metric_parse("fio_bw:B/s=json:jobs[0].write.bw_bytes", &m, &e), 0);
		assert_string_equal(m.name, "fio_bw");
		assert_string_equal(m.unit, "B/s");
		assert_string_equal(m.expr, "jobs[0].write.bw_bytes");
		sweep_metric_release(&m);
		assert_int_equal(sweep_metric_parse("t=took ([0-9.]+) s", &m, &e), 0);
		assert_string_equal(m.unit, "");
		sweep_metric_release(&m);
	}
}

/*
 * Work bounded whatever the expression: nested bounds and stacked quantifiers are refused by
 * PCRE2's compiler or compile small; a back-reference under a repetition (issue #25 item 6:
 * "(a*)*\1x" ran for minutes on 400 characters) stops at the match limit with a message;
 * expressions users write still work.
 */
static void test_regex_limits(void **state)
{
	static const char *const odd[] = {
	    "x=j++++++++++++++++++++++++++++++++++++++++",
	    "x=(((a{0,60}){0,60}){0,60}){0,60}",
	    "x=((((((((((((((((((a*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*)*",
	    "x=a{70000}",
	    "x=((){0,60}){0,60}",
	    "x=(a*)*\\1x",
	    "x=(a|aa)*c",
	};
	static const char *const fine[] = {
	    "x=([0-9]+(\\.[0-9]*)?) MB/s",
	    "x=[][(){}+*]+ ([0-9]{1,10})",
	    "x=(a|b){1,50} ([0-9]+)",
	    "x=[[:digit:]]+[)]+ ([0-9]+)",
	    "x=a{2,} ([0-9]+)",
	    "x=\\d+ ([0-9]+)",
	};
	char *as = malloc(4097);
	struct sweep_metric m;
	double v;

	(void)state;
	assert_non_null(as);
	/* a's, then what the expressions need somewhere (PCRE2 looks for a required last
	 * character first) but not where a match could use it */
	memset(as, 'a', 4096);
	as[4094] = 'b';
	as[4095] = 'x';
	as[4096] = 0;
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		struct iot_err e = {""};
		int ret;

		if (sweep_metric_parse(odd[i], &m, &e)) {
			assert_true(e.msg[0] != 0);
			continue;
		}
		ret = sweep_metric_eval(&m, as + 4096 - 400, 400, NULL, 0, NULL, &v, &e);
		assert_true(ret == -E2BIG || ret == -ENOENT || ret == -EINVAL);
		sweep_metric_release(&m);
	}
	assert_int_equal(eval("x=(a*)*\\1x", as + 4096 - 400, NULL, &v), -E2BIG);
	for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++) {
		struct iot_err e = {""};

		if (sweep_metric_parse(fine[i], &m, &e))
			fail_msg("'%s': %s", fine[i], e.msg);
		sweep_metric_release(&m);
	}
	assert_int_equal(eval("x=\\d+ ([0-9]+)", "12 34", NULL, &v), 0);
	assert_true(v == 34);
	free(as);
}

/* A stop request (the sweep's SIGTERM) ends a long match at once */
static void test_regex_stop(void **state)
{
	size_t len = 4u << 20;
	char *as = malloc(len);
	volatile sig_atomic_t stop = SIGTERM;
	struct sweep_metric m;
	struct iot_err e = {""};
	double v;

	(void)state;
	assert_non_null(as);
	memset(as, 'a', len);
	as[len - 1] = 'c';
	/* about 2000 steps at each of 4 Mi positions: within the limits, minutes of work */
	assert_int_equal(sweep_metric_parse("x=a{0,1000}c", &m, &e), 0);
	assert_int_equal(sweep_metric_eval(&m, as, len, NULL, 0, &stop, &v, &e), -EINTR);
	assert_non_null(strstr(e.msg, "stopped"));
	sweep_metric_release(&m);
	free(as);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_regex),      cmocka_unit_test(test_json),
	    cmocka_unit_test(test_parse),      cmocka_unit_test(test_regex_limits),
	    cmocka_unit_test(test_regex_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
