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

/* A scratch directory with a copy of run's manifest (NULL: none) and of the files names (a
 * space-separated list, relative to samples/), into dir. */
static void scratch(char *dir, const char *run, const char *files)
{
	char cmd[600];

	assert_non_null(mkdtemp(dir));
	if (run) {
		snprintf(cmd, sizeof(cmd), "cp %s/manifest.json %s/", run, dir);
		assert_int_equal(system(cmd), 0);
	}
	snprintf(cmd, sizeof(cmd), "cd %s && for f in %s; do cp \"$f\" %s/; done",
	         IOTAPE_SRCDIR "/samples", files, dir);
	assert_int_equal(system(cmd), 0);
}

static void rm_dir(const char *dir)
{
	char cmd[200];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* run_set_open() as analyze --hosts opens its INPUTs: no name given, each host named by its
 * manifest's hostname, the second "vm" by its path (two hosts are never one); a run directory
 * of packets alone is a host (no block trace, its capture); nothing read yet. */
static void test_open_names(void **s)
{
	char dir[] = "/tmp/iotape-ut-setopen-XXXXXX";
	struct run_summaries_host h[3] = {
	    {NULL, SAMPLE("ext4"), 0, 0}, {NULL, SAMPLE("xfs"), 0, 0}, {NULL, dir, 7, 0}};
	json_t *warnings = json_array();
	struct run_set_load l;
	struct iot_err e;

	(void)s;
	scratch(dir, SAMPLE("nfs/run"), "nfs/run/net.pcap");
	assert_int_equal(run_set_open(&l, h, 3, NULL, warnings, &e), 0);
	assert_int_equal(l.n, 3);
	assert_false(l.s.passed);
	assert_string_equal(l.h[0].host.name, "vm");
	assert_string_equal(l.h[1].host.name, SAMPLE("xfs"));
	assert_string_equal(l.h[2].host.name, dir);
	for (unsigned k = 0; k < 3; k++) {
		assert_ptr_equal(l.h[k].host.m, &l.man[k]);
		assert_true(l.man[k].have_clock);
		assert_true(json_equal(l.manifest[k], l.man[k].root));
		assert_string_equal(l.h[k].host.path, h[k].path);
		assert_int_equal(l.h[k].host.real_off_ns, h[k].offset_ns);
		assert_null(l.h[k].src);
	}
	assert_non_null(l.h[0].host.rd);
	assert_null(l.capture[0]);
	assert_null(l.h[2].host.rd); /* packets alone */
	assert_non_null(l.capture[2]);
	assert_int_equal(json_array_size(warnings), 0);
	run_set_load_release(&l);
	/* a name given is kept, whatever the manifest says */
	h[0].name = "xfs";
	assert_int_equal(run_set_open(&l, h, 2, NULL, warnings, &e), 0);
	assert_string_equal(l.h[0].host.name, "xfs");
	assert_string_equal(l.h[1].host.name, "vm");
	run_set_load_release(&l);
	json_decref(warnings);
	rm_dir(dir);
}

/* A host with two captures is read from its first, and that is said; what cannot be put on
 * one clock is refused with the path and why; a manifest that cannot be read is told apart
 * (analyze says its error, report reads the hosts apart: run_set_load() answers
 * RUN_SET_APART). */
static void test_open_refused(void **s)
{
	char two[] = "/tmp/iotape-ut-setopen-XXXXXX", bad[] = "/tmp/iotape-ut-setopen-XXXXXX";
	struct run_summaries_host h[2] = {{"a", SAMPLE("ext4"), 0, 0}, {"b", two, 0, 0}};
	json_t *warnings = json_array();
	struct run_set_load l;
	struct iot_err e;
	char path[128];
	FILE *f;

	(void)s;
	scratch(two, SAMPLE("nfs/run"), "nfs/run/net.pcap xfs/loop0.blktrace.0");
	snprintf(path, sizeof(path), "cp %s/net.pcap %s/net.pcapng", two, two);
	assert_int_equal(system(path), 0);
	assert_int_equal(run_set_open(&l, h, 2, NULL, warnings, &e), 0);
	assert_int_equal(json_array_size(warnings), 1);
	assert_non_null(
	    strstr(json_string_value(json_array_get(warnings, 0)), "2 packet captures; reading"));
	assert_non_null(l.h[1].host.rd);
	assert_non_null(l.capture[1]);
	run_set_load_release(&l);

	h[1].path = SAMPLE("xfs/loop0.blktrace.0");
	assert_int_equal(run_set_open(&l, h, 2, NULL, warnings, &e), RUN_SET_APART);
	assert_string_equal(e.msg,
	                    "'" SAMPLE("xfs/loop0.blktrace.0") "' is not a run directory "
	                                                       "with a block trace or packets");
	run_set_load_release(&l);

	scratch(bad, NULL, "xfs/loop0.blktrace.0");
	h[1].path = bad;
	assert_int_equal(run_set_open(&l, h, 2, NULL, warnings, &e), RUN_SET_APART);
	assert_non_null(strstr(e.msg, "is not a run directory with a block trace or packets"));
	run_set_load_release(&l);
	snprintf(path, sizeof(path), "%s/manifest.json", bad);
	assert_non_null(f = fopen(path, "w"));
	fputs("{\"format\": \"iotape-run\", \"format_version\": 1}", f);
	fclose(f);
	assert_int_equal(run_set_open(&l, h, 2, NULL, warnings, &e), RUN_SET_APART);
	assert_non_null(strstr(e.msg, "': its manifest has no clock pairs"));
	assert_int_equal(strncmp(e.msg, "'/tmp/iotape-ut-setopen-", 24), 0);
	run_set_load_release(&l);
	assert_non_null(f = fopen(path, "w"));
	fputs("{\"format\": ", f);
	fclose(f);
	assert_int_equal(run_set_open(&l, h, 2, NULL, warnings, &e), RUN_SET_BAD_MANIFEST);
	assert_int_equal(strncmp(e.msg, "'/tmp/iotape-ut-setopen-", 24), 0);
	run_set_load_release(&l);
	assert_int_equal(run_set_load(&l, h, 2, NULL, 0, NULL, NULL, NULL, warnings, &e),
	                 RUN_SET_APART);
	run_set_load_release(&l);
	json_decref(warnings);
	rm_dir(two);
	rm_dir(bad);
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
	    cmocka_unit_test(test_set),         cmocka_unit_test(test_apart),
	    cmocka_unit_test(test_open_names),  cmocka_unit_test(test_open_refused),
	    cmocka_unit_test(test_key_devices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
