/* SPDX-License-Identifier: MIT */
/* Unit tests: a run's summary loaded for compare and sweeps, its messages handed back
 * (analyze/run_load.h: run_summary_load(), run_msgs_partial()), and a run set read with them
 * (analyze/run_set_load.h: run_set_load_runset()). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/blk_sink.h"
#include "analyze/run_load.h"
#include "analyze/run_set_load.h"
#include "formats/runset.h"
#include "../tmpdir.h"

#define SAMPLE(x) IOTAPE_SRCDIR "/samples/" x

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char *msg(const json_t *msgs, size_t i)
{
	return json_string_value(json_array_get(msgs, i));
}

/* A second input's bad bytes after a first one's: its error said there, the first kept for
 * last. */
static void test_partial(void **st)
{
	struct iot_err stop = {""}, a, b;
	json_t *msgs = json_array();

	(void)st;
	iot_err_set(&a, -EINVAL, "'t': bad magic at offset 8");
	iot_err_set(&b, -EINVAL, "'c': bad record at offset 9");
	assert_int_equal(run_msgs_partial(msgs, "block trace", &a, &stop), 0);
	assert_int_equal(run_msgs_partial(msgs, "capture", &b, &stop), 0);
	assert_int_equal(json_array_size(msgs), 3);
	assert_string_equal(msg(msgs, 0), "partial results: the block trace stops at bad bytes; "
	                                  "what came before them is reported (the error follows)");
	assert_non_null(strstr(msg(msgs, 1), "the capture stops at bad bytes"));
	assert_string_equal(json_string_value(json_object_get(json_array_get(msgs, 2), "error")),
	                    b.msg);
	assert_string_equal(stop.msg, a.msg);
	json_decref(msgs);
}

/* A saved summary is taken with its warnings (cut short, devices past the last); a manifest,
 * bytes that are no JSON, a directory with nothing to read are the user's errors. */
static void test_saved(void **st)
{
	json_t *msgs = json_array(), *sum, *man;
	struct iot_err stop = {""}, e;

	(void)st;
	write_file(tpath("s.json"), "{\"devices\": [], \"events_dropped_devices\": 3, "
	                            "\"input\": {\"partial\": true}}");
	assert_int_equal(
	    run_summary_load(tpath("s.json"), BLK_DEFAULT_IDLE_NS, &sum, &man, msgs, &stop, &e), 0);
	assert_true(json_is_array(json_object_get(sum, "devices")));
	assert_null(man);
	assert_int_equal(json_array_size(msgs), 2);
	assert_non_null(strstr(msg(msgs, 0), "s.json': partial results: the analysis it saves"));
	assert_non_null(strstr(msg(msgs, 1), "s.json': 3 events on devices past the first"));
	assert_string_equal(stop.msg, "");
	json_decref(sum);
	json_array_clear(msgs);

	write_file(tpath("m.json"), "{\"format\": \"iotape-run\"}");
	assert_int_equal(
	    run_summary_load(tpath("m.json"), BLK_DEFAULT_IDLE_NS, &sum, &man, msgs, &stop, &e),
	    -EINVAL);
	assert_non_null(strstr(e.msg, "a run's manifest.json, not an 'iotape analyze --json'"));
	assert_null(sum);
	write_file(tpath("bad.json"), "{\"devices\": ");
	assert_int_equal(
	    run_summary_load(tpath("bad.json"), BLK_DEFAULT_IDLE_NS, &sum, &man, msgs, &stop, &e),
	    -EINVAL);
	assert_non_null(strstr(e.msg, "bad.json': not a JSON summary: "));
	assert_int_equal(mkdir(tpath("empty"), 0755), 0);
	assert_int_equal(
	    run_summary_load(tpath("empty"), BLK_DEFAULT_IDLE_NS, &sum, &man, msgs, &stop, &e),
	    -EINVAL);
	assert_non_null(
	    strstr(e.msg, "empty': no block trace (NAME.blktrace.N) or packet capture"));
	assert_int_equal(json_array_size(msgs), 0);
	json_decref(msgs);
}

/* A run directory analyzed as analyze would: its devices, its manifest as JSON, nothing said. */
static void test_run(void **st)
{
	json_t *msgs = json_array(), *sum, *man;
	struct iot_err stop = {""}, e;

	(void)st;
	assert_int_equal(
	    run_summary_load(SAMPLE("ext4"), BLK_DEFAULT_IDLE_NS, &sum, &man, msgs, &stop, &e), 0);
	assert_true(json_array_size(json_object_get(sum, "devices")) > 0);
	assert_true(json_is_object(man));
	assert_int_equal(json_array_size(msgs), 0);
	json_decref(sum);
	json_decref(man);
	json_decref(msgs);
}

/* A run set as formats/runset.h opens it: its hosts as run_set_load() takes them, read as one;
 * a host analyze cannot put on the set's clock: the set read apart, nothing more said. */
static void test_runset(void **st)
{
	struct runset_host hs[2] = {{(char *)SAMPLE("ext4"), (char *)"a", 0, 0, 1},
	                            {(char *)SAMPLE("xfs"), (char *)"b", -1500, 10, 1}};
	struct runset rs = {hs, 2, NULL, 0};
	struct run_summaries_host *h = run_set_hosts(&rs);
	json_t *msgs = json_array();
	struct iot_err stop = {""}, e;
	struct run_set_load l;

	(void)st;
	assert_non_null(h);
	assert_string_equal(h[1].name, "b");
	assert_string_equal(h[1].path, SAMPLE("xfs"));
	assert_int_equal(h[1].offset_ns, -1500);
	assert_int_equal(h[1].error_ns, 10);
	free(h);
	assert_int_equal(run_set_load_runset(&l, &rs, NULL, 0, NULL, NULL, NULL, msgs, &stop, &e),
	                 0);
	assert_int_equal(l.n, 2);
	assert_true(json_array_size(json_object_get(l.h[1].doc, "devices")) > 0);
	assert_int_equal(json_array_size(msgs), 0);
	run_set_load_release(&l);
	/* a trace file alone has no manifest, so no clock pairs */
	hs[1].run = (char *)SAMPLE("xfs/loop0.blktrace.0");
	assert_int_equal(run_set_load_runset(&l, &rs, NULL, 0, NULL, NULL, NULL, msgs, &stop, &e),
	                 RUN_SET_APART);
	run_set_load_release(&l);
	assert_int_equal(json_array_size(msgs), 0);
	assert_string_equal(stop.msg, "");
	json_decref(msgs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_partial),
	    cmocka_unit_test(test_saved),
	    cmocka_unit_test(test_run),
	    cmocka_unit_test(test_runset),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown));
}
