/* SPDX-License-Identifier: MIT */
/* Unit tests: a run set of summary runs (analyze/run_summaries.h): each host on one clock. */
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

#include "analyze/blk_analysis.h"
#include "analyze/blk_figures.h"
#include "analyze/run_summaries.h"

/* One device over 2 s from 5 s on its host's trace clock (test_blk_summary.c's request-based
 * summary), its device number DEV. */
#define SUMMARY(DEV)                                                                               \
	"{\"format\": \"iotape-summary\", \"format_version\": 1, \"trace_clock\": \"mono\","       \
	" \"origin_ns\": 5000000000, \"end_ns\": 7000000000, \"interval_ns\": 1000000000,"         \
	" \"idle_threshold_ns\": 10000000, \"devices\": [{\"name\": \"loop\", \"dev\": \"" DEV     \
	"\", \"bio_based\": false, \"latency\": {\"kind\": \"d2c\", \"count\": 3, \"sum\": 60,"    \
	" \"min\": 10, \"max\": 30, \"buckets\": [[10, 1], [20, 1], [30, 1]]},"                    \
	" \"seeks\": {\"transitions\": 2, \"count\": 1, \"sequential\": 1, \"forward\": 1,"        \
	" \"backward\": 0, \"seekwatcher\": 1}, \"bins\": [[1, 3, 1, 8192, 4096, 1]],"             \
	" \"gaps\": [[5100000000, 5120000000], [6000000000, 6500000000]]}]}"

/* Host a: realtime = trace + 99 s (start pair's uncertainty 1 us), its disk keyed "disk-a". */
static const char manifest_a[] =
    "{\"format\": \"iotape-run\", \"format_version\": 1, \"clock\": {"
    "\"start\": {\"realtime_ns\": 100000000000, \"trace_ns\": 1000000000, "
    "\"uncertainty_ns\": 1000},"
    "\"end\": {\"realtime_ns\": 110000000000, \"trace_ns\": 11000000000}},"
    "\"devices\": [{\"name\": \"loop0\", \"major\": 7, \"minor\": 0, \"key\": \"disk-a\"}]}";
/* Host b: realtime = trace + 99.5 s (end pair's uncertainty 3 us), keyed with role and group. */
static const char manifest_b[] =
    "{\"format\": \"iotape-run\", \"format_version\": 1, \"clock\": {"
    "\"start\": {\"realtime_ns\": 100000000000, \"trace_ns\": 500000000},"
    "\"end\": {\"realtime_ns\": 110000000000, \"trace_ns\": 10500000000, "
    "\"uncertainty_ns\": 3000}},"
    "\"devices\": [{\"name\": \"loop1\", \"major\": 7, \"minor\": 1, \"key\": \"disk-b\", "
    "\"role\": \"osd.0 journal\", \"group\": \"osd.0\"}]}";
/* A manifest without clock pairs. */
static const char manifest_bare[] = "{\"format\": \"iotape-run\", \"format_version\": 1}";

struct rundirs {
	char root[64];
	char dir[3][96];
};

static void put(const char *dir, const char *name, const char *text)
{
	char p[160];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	assert_non_null(f = fopen(p, "w"));
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Three run directories under one temporary root: a, b and c (empty). */
static void make_dirs(struct rundirs *r)
{
	snprintf(r->root, sizeof(r->root), "/tmp/iotape-test-summaries-XXXXXX");
	assert_non_null(mkdtemp(r->root));
	for (int i = 0; i < 3; i++) {
		snprintf(r->dir[i], sizeof(r->dir[i]), "%s/%c", r->root, 'a' + i);
		assert_int_equal(mkdir(r->dir[i], 0700), 0);
	}
}

static void remove_dirs(struct rundirs *r)
{
	static const char *const files[] = {"summary.json", "manifest.json"};
	char p[160];

	for (int i = 0; i < 3; i++) {
		for (int k = 0; k < 2; k++) {
			snprintf(p, sizeof(p), "%s/%s", r->dir[i], files[k]);
			unlink(p);
		}
		assert_int_equal(rmdir(r->dir[i]), 0);
	}
	assert_int_equal(rmdir(r->root), 0);
}

static json_int_t geti(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	assert_true(json_is_integer(v));
	return json_integer_value(v);
}

static const char *gets(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Every host a summary run, none, or a mix. */
static void test_detect(void **s)
{
	struct rundirs r;
	struct run_summaries_host h[2];

	(void)s;
	make_dirs(&r);
	h[0] = (struct run_summaries_host){"a", r.dir[0], 0, 0};
	h[1] = (struct run_summaries_host){"c", r.dir[2], 0, 0};
	assert_int_equal(run_summaries_detect(h, 2), 0);
	put(r.dir[0], "summary.json", SUMMARY("7,0"));
	assert_int_equal(run_summaries_detect(h, 2), -EINVAL);
	assert_int_equal(run_summaries_detect(h, 1), 1);
	put(r.dir[2], "summary.json", SUMMARY("7,0"));
	assert_int_equal(run_summaries_detect(h, 2), 1);
	remove_dirs(&r);
}

/* Two hosts: b's start on a's trace clock through both clock pairs and b's measured offset,
 * each device keyed by its host's manifest, one span, the alignment's error bound. */
static void test_two_hosts(void **s)
{
	struct rundirs r;
	struct run_summaries_host h[2];
	json_t *root = json_object(), *warnings = json_array(), *hosts, *devs, *d;
	struct iot_err e;

	(void)s;
	make_dirs(&r);
	put(r.dir[0], "summary.json", SUMMARY("7,0"));
	put(r.dir[0], "manifest.json", manifest_a);
	put(r.dir[1], "summary.json", SUMMARY("7,1"));
	put(r.dir[1], "manifest.json", manifest_b);
	/* b's realtime clock is 250 ms behind a's, measured within 500 ns */
	h[0] = (struct run_summaries_host){"a", r.dir[0], 0, 0};
	h[1] = (struct run_summaries_host){"b", r.dir[1], -250000000, 500};
	assert_int_equal(run_summaries_doc(h, 2, NULL, 0, 0, root, warnings, &e), 0);
	assert_int_equal(json_array_size(warnings), 0);

	hosts = json_object_get(root, "hosts");
	assert_int_equal(json_array_size(hosts), 2);
	assert_string_equal(gets(json_array_get(hosts, 0), "host"), "a");
	assert_string_equal(gets(json_array_get(hosts, 0), "path"), r.dir[0]);
	assert_int_equal(geti(json_array_get(hosts, 0), "start_ns"), 5000000000ll);
	assert_int_equal(geti(json_array_get(hosts, 0), "offset_ns"), 0);
	assert_string_equal(gets(json_array_get(hosts, 1), "host"), "b");
	/* b's 5 s is its realtime 104.5 s, a's 104.75 s (b's clock is behind): 5.75 s on a's
	 * trace clock */
	assert_int_equal(geti(json_array_get(hosts, 1), "start_ns"), 5000000000ll);
	assert_int_equal(geti(json_array_get(hosts, 1), "offset_ns"), 750000000);
	assert_int_equal(geti(json_array_get(hosts, 1), "span_ns"), 2000000000ll);
	/* one span over both, on a's clock */
	assert_int_equal(geti(root, "start_ns"), 5000000000ll);
	assert_int_equal(geti(root, "end_ns"), 7750000000ll);
	assert_int_equal(geti(root, "span_ns"), 2750000000ll);
	/* two hosts' clock pairs (the worst 3 us, twice) and two offsets (0 and 500 ns) */
	assert_int_equal(geti(root, "alignment_error_ns"), 6500);

	devs = json_object_get(root, "devices");
	assert_int_equal(json_array_size(devs), 2);
	d = json_array_get(devs, 0);
	assert_string_equal(gets(d, "host"), "a");
	assert_string_equal(gets(d, "dev"), "7,0");
	assert_string_equal(gets(d, "key"), "disk-a");
	assert_true(json_is_null(json_object_get(d, "role")));
	d = json_array_get(devs, 1);
	assert_string_equal(gets(d, "host"), "b");
	assert_string_equal(gets(d, "key"), "disk-b");
	assert_string_equal(gets(d, "role"), "osd.0 journal");
	assert_string_equal(gets(d, "group"), "osd.0");
	assert_true(json_is_true(json_object_get(json_object_get(root, "input"), "summaries")));
	assert_true(json_is_object(json_object_get(root, "timeline")));
	json_decref(root);

	/* the devices' figures (the text's), in the order of "devices": a's, then b's */
	{
		struct blk_figures *f = NULL;
		unsigned n = 0;

		root = json_object();
		json_array_clear(warnings);
		assert_int_equal(run_summaries_read(h, 2, NULL, 0, 0, root, &f, &n, warnings, &e),
		                 0);
		assert_int_equal(n, 2);
		assert_int_equal(f[0].dev, BLK_MKDEV(7, 0));
		assert_int_equal(f[1].dev, BLK_MKDEV(7, 1));
		assert_int_equal(f[1].lat[BLK_LAT_D2C].count, 3);
		assert_int_equal(f[1].idle_gaps, 2);
		assert_int_equal(f[1].reads.bytes, 8192);
		blk_figures_free(f, n);
		json_decref(root);
	}
	json_decref(warnings);
	remove_dirs(&r);
}

/* What does not stop the document is handed back as warnings, in order, never printed; a
 * summary that is none stops it, naming its host. */
static void test_warnings_and_errors(void **s)
{
	struct rundirs r;
	struct run_summaries_host h[3];
	json_t *root = json_object(), *warnings = json_array();
	struct iot_err e;

	(void)s;
	make_dirs(&r);
	put(r.dir[0], "summary.json", SUMMARY("7,0"));
	put(r.dir[0], "manifest.json", manifest_a);
	put(r.dir[1], "summary.json", SUMMARY("7,1"));
	put(r.dir[1], "manifest.json", manifest_bare);
	put(r.dir[2], "summary.json", SUMMARY("7,2"));
	h[0] = (struct run_summaries_host){"a", r.dir[0], 0, 0};
	h[1] = (struct run_summaries_host){"b", r.dir[1], 0, 0};
	h[2] = (struct run_summaries_host){"c", r.dir[2], 0, 0};
	assert_int_equal(run_summaries_doc(h, 3, NULL, 0, 0, root, warnings, &e), 0);
	assert_int_equal(json_array_size(warnings), 3);
	assert_string_equal(json_string_value(json_array_get(warnings, 0)),
	                    "host b: its manifest has no clock pairs: its times are not put on the "
	                    "first host's clock");
	assert_string_equal(json_string_value(json_array_get(warnings, 1)),
	                    "host c: no manifest.json: its times stay on its own trace clock");
	assert_string_equal(json_string_value(json_array_get(warnings, 2)),
	                    "host c: its manifest has no clock pairs: its times are not put on the "
	                    "first host's clock");
	/* unplaced hosts keep their own times */
	assert_int_equal(geti(json_array_get(json_object_get(root, "hosts"), 2), "offset_ns"), 0);
	json_decref(root);

	put(r.dir[1], "summary.json", "{\"format\": \"iotape-summary\", \"format_version\": 2}");
	root = json_object();
	json_array_clear(warnings);
	assert_int_equal(run_summaries_doc(h, 3, NULL, 0, 0, root, warnings, &e), -EINVAL);
	assert_int_equal(strncmp(e.msg, "host b: ", 8), 0);
	assert_null(json_object_get(root, "hosts"));
	json_decref(root);
	json_decref(warnings);
	remove_dirs(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_detect),
	    cmocka_unit_test(test_two_hosts),
	    cmocka_unit_test(test_warnings_and_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
