/* SPDX-License-Identifier: MIT */
/* Unit tests: a run directory's block trace and packet capture opened as every command does. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/blktrace.h"
#include "formats/instream.h"
#include "formats/run_open.h"
#include "../tmpdir.h"

static void put(const char *name, const char *text)
{
	FILE *f = fopen(tpath(name), "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* rundir_scan() of tmpdir/name, then run_open_dir() of it */
static int open_in(const char *name, struct bt_reader **block, struct in_stream **capture,
                   json_t *warnings, struct iot_err *e)
{
	struct rundir rd;
	int ret;

	assert_int_equal(rundir_scan(&rd, tpath(name), e), 0);
	ret = run_open_dir(&rd, name, block, capture, warnings, e);
	rundir_release(&rd);
	return ret;
}

/* Nothing with records: -ENODATA, in the words every command says it */
static void test_empty(void **state)
{
	struct bt_reader *block = (struct bt_reader *)1;
	struct in_stream *capture = (struct in_stream *)1;
	json_t *w = json_array();
	struct iot_err e;

	(void)state;
	assert_int_equal(mkdir(tpath("empty"), 0755), 0);
	put("empty/manifest.json", "{}");
	assert_int_equal(open_in("empty", &block, &capture, w, &e), -ENODATA);
	assert_string_equal(e.msg, "'empty': no block trace (NAME.blktrace.N) or packet capture "
	                           "(net.pcap) in the directory");
	assert_null(block);
	assert_null(capture);
	assert_int_equal(json_array_size(w), 0);
	json_decref(w);
}

/* Two captures: the first in the order of preference is opened, the other said */
static void test_captures(void **state)
{
	struct bt_reader *block;
	struct in_stream *capture;
	json_t *w = json_array();
	struct iot_err e;

	(void)state;
	assert_int_equal(mkdir(tpath("two"), 0755), 0);
	put("two/net.pcap", "x");
	put("two/net.pcapng", "y");
	assert_int_equal(open_in("two", &block, &capture, w, &e), 0);
	assert_null(block);
	assert_non_null(capture);
	assert_int_equal(json_array_size(w), 1);
	assert_non_null(
	    strstr(json_string_value(json_array_get(w, 0)), "'two': 2 packet captures"));
	in_stream_close(capture);
	json_decref(w);
}

/* A trace set that cannot be opened: its error, and the capture opened before it closed */
static void test_trace_fails(void **state)
{
	struct bt_reader *block;
	struct in_stream *capture = NULL;
	json_t *w = json_array();
	struct iot_err e;
	int ret;

	(void)state;
	assert_int_equal(mkdir(tpath("bad"), 0755), 0);
	put("bad/net.pcap", "x");
	/* the scan takes a trace by its name: a directory of that name cannot be read as one */
	assert_int_equal(mkdir(tpath("bad/sda.blktrace.0"), 0755), 0);
	ret = open_in("bad", &block, &capture, w, &e);
	assert_true(ret < 0 && ret != -ENODATA);
	assert_null(block);
	assert_null(capture);
	json_decref(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_captures),
	    cmocka_unit_test(test_trace_fails),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown));
}
