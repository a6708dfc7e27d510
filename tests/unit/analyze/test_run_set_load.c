/* SPDX-License-Identifier: MIT */
/* Unit tests: a run set's hosts opened and read as one (analyze/run_set_load.c), as report,
 * compare and a sweep's cells read a set. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/run_set_load.h"
#include "formats/manifest.h"

#define SAMPLE(x) IOTAPE_SRCDIR "/samples/" x

/* Two hosts with clock pairs: one pass over both, each host's document its own devices, each
 * with its host and its gaps explained, its manifest as JSON, its offset on its pass. */
static void test_set(void **s)
{
	const struct run_summaries_host h[2] = {{"a", SAMPLE("ext4"), 0, 0},
	                                        {"b", SAMPLE("xfs"), -1500, 10}};
	json_t *warnings = json_array(), *d;
	struct run_set_load l;
	struct iot_err e;
	size_t i;

	(void)s;
	assert_int_equal(run_set_load(&l, h, 2, NULL, 0, NULL, NULL, NULL, warnings, &e), 0);
	assert_int_equal(l.n, 2);
	assert_int_equal(json_array_size(warnings), 0);
	assert_true(l.s.passed);
	for (unsigned k = 0; k < 2; k++) {
		assert_non_null(l.h[k].host.rd);
		assert_string_equal(l.h[k].host.name, h[k].name);
		assert_int_equal(l.h[k].host.real_off_ns, h[k].offset_ns);
		assert_true(json_is_object(l.manifest[k]));
		assert_true(json_equal(l.manifest[k], l.man[k].root));
		assert_non_null(l.s.hblk[k]);
		assert_true(json_array_size(json_object_get(l.h[k].doc, "devices")) > 0);
		json_array_foreach(json_object_get(l.h[k].doc, "devices"), i, d)
		{
			assert_string_equal(json_string_value(json_object_get(d, "host")),
			                    h[k].name);
			assert_non_null(json_object_get(json_object_get(d, "idle"), "explain"));
		}
	}
	run_set_load_release(&l);
	json_decref(warnings);
}

/* What analyze cannot put on one clock is read apart: a trace alone (no manifest), a run
 * directory whose manifest has no clock pairs. What cannot be read at all is an error. */
static void test_apart(void **s)
{
	char dir[] = "/tmp/iotape-ut-setload-XXXXXX", path[128], cmd[300];
	struct run_summaries_host h[2] = {{"a", SAMPLE("ext4"), 0, 0},
	                                  {"b", SAMPLE("xfs/loop0.blktrace.0"), 0, 0}};
	json_t *warnings = json_array();
	struct run_set_load l;
	struct iot_err e;
	FILE *f;

	(void)s;
	assert_int_equal(run_set_load(&l, h, 2, NULL, 0, NULL, NULL, NULL, warnings, &e),
	                 RUN_SET_APART);
	assert_false(l.s.passed);
	run_set_load_release(&l);

	assert_non_null(mkdtemp(dir));
	h[1].path = dir;
	/* nothing in it */
	assert_int_equal(run_set_load(&l, h, 2, NULL, 0, NULL, NULL, NULL, warnings, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "no block trace"));
	run_set_load_release(&l);
	/* a trace and a manifest without clock pairs */
	snprintf(cmd, sizeof(cmd), "cp %s %s/", SAMPLE("xfs/loop0.blktrace.0"), dir);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("{\"format\": \"iotape-run\", \"format_version\": 1}", f);
	fclose(f);
	assert_int_equal(run_set_load(&l, h, 2, NULL, 0, NULL, NULL, NULL, warnings, &e),
	                 RUN_SET_APART);
	run_set_load_release(&l);
	/* a host that is not there */
	h[1].path = SAMPLE("no-such-run");
	assert_true(run_set_load(&l, h, 2, NULL, 0, NULL, NULL, NULL, warnings, &e) < 0);
	run_set_load_release(&l);
	assert_int_equal(json_array_size(warnings), 0);
	json_decref(warnings);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* A set's hosts' devices apart in compare and the report: HOST:KEY, whatever their names. */
static void test_key_devices(void **s)
{
	json_t *doc = json_pack("{s:[{s:s}, {s:s}]}", "devices", "key", "loop0", "dev", "7,0");

	(void)s;
	assert_int_equal(run_set_key_devices(doc, "h1"), 0);
	assert_string_equal(json_string_value(json_object_get(
	                        json_array_get(json_object_get(doc, "devices"), 0), "key")),
	                    "h1:loop0");
	assert_string_equal(json_string_value(json_object_get(
	                        json_array_get(json_object_get(doc, "devices"), 1), "key")),
	                    "h1:?");
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_set),
	    cmocka_unit_test(test_apart),
	    cmocka_unit_test(test_key_devices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
