/* SPDX-License-Identifier: MIT */
/* Unit tests: a summary run's summary.json laid out as analyze's devices, and bad ones. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "analyze/blk_figures.h"
#include "analyze/blk_summary.h"

static json_t *doc(const char *text)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);

	assert_non_null(j);
	return j;
}

static json_int_t geti(const json_t *o, const char *a, const char *b)
{
	const json_t *v = json_object_get(o, a);

	if (b)
		v = json_object_get(v, b);
	assert_true(json_is_integer(v));
	return json_integer_value(v);
}

/* D2C 10, 20, 30 ns (exact buckets below 2^7), three completions in bin 1, two gaps */
static const char *const request_based =
    "{\"format\": \"iotape-summary\", \"format_version\": 1, \"trace_clock\": \"mono\","
    " \"origin_ns\": 5000000000, \"end_ns\": 7000000000, \"interval_ns\": 1000000000,"
    " \"idle_threshold_ns\": 10000000, \"devices\": [{\"name\": \"loop0\", \"dev\": \"7,0\","
    " \"bio_based\": false, \"latency\": {\"kind\": \"d2c\", \"count\": 3, \"sum\": 60,"
    " \"min\": 10, \"max\": 30, \"buckets\": [[10, 1], [20, 1], [30, 1]]},"
    " \"seeks\": {\"transitions\": 2, \"count\": 1, \"sequential\": 1, \"forward\": 1,"
    " \"backward\": 0, \"seekwatcher\": 1},"
    " \"bins\": [[1, 3, 1, 8192, 4096, 1]],"
    " \"gaps\": [[5100000000, 5120000000], [6000000000, 6500000000]]}]}";

static void test_request_based(void **s)
{
	json_t *sum = doc(request_based), *root = json_object(), *d, *lat, *tl, *bin, *idle, *g;
	struct iot_err e;

	(void)s;
	assert_int_equal(blk_summary_json(sum, 10, 0, 0, root, &e), 0);
	assert_int_equal(geti(root, "start_ns", NULL), 5000000000ll);
	assert_int_equal(geti(root, "span_ns", NULL), 2000000000ll);
	assert_int_equal(geti(root, "timeline", "bins"), 2);
	d = json_array_get(json_object_get(root, "devices"), 0);
	assert_string_equal(json_string_value(json_object_get(d, "dev")), "7,0");
	assert_int_equal(geti(d, "reads", "ios"), 2);
	assert_int_equal(geti(d, "reads", "bytes"), 8192);
	assert_int_equal(geti(d, "writes", "ios"), 1);
	assert_int_equal(geti(d, "writes", "bytes"), 4096);
	/* 3 IOs and 12 KiB over the 2 s span */
	assert_true(json_real_value(json_object_get(json_object_get(d, "throughput"), "iops")) ==
	            1.5);
	lat = json_object_get(json_object_get(d, "latency_ns"), "d2c");
	assert_int_equal(geti(lat, "count", NULL), 3);
	assert_int_equal(geti(lat, "sum", NULL), 60);
	assert_int_equal(geti(lat, "min", NULL), 10);
	assert_int_equal(geti(lat, "p50", NULL), 20);
	assert_int_equal(geti(lat, "max", NULL), 30);
	/* per request: the same figure */
	assert_int_equal(geti(json_object_get(d, "latency_ns"), "d2c_request", "count"), 3);
	assert_null(json_object_get(json_object_get(d, "latency_ns"), "q2c"));
	assert_int_equal(geti(d, "seeks", "count"), 1);
	assert_int_equal(geti(d, "seeks", "transitions"), 2);
	assert_true(json_real_value(
	                json_object_get(json_object_get(d, "seeks"), "sequential_pct")) == 50.0);
	tl = json_object_get(d, "timeline");
	assert_int_equal(json_array_size(tl), 1);
	bin = json_array_get(tl, 0);
	assert_int_equal(geti(bin, "start_ns", NULL), 6000000000ll);
	assert_int_equal(geti(bin, "ios", NULL), 3);
	assert_int_equal(geti(bin, "write_ios", NULL), 1);
	assert_int_equal(geti(bin, "seeks", NULL), 1);
	idle = json_object_get(d, "idle");
	assert_int_equal(geti(idle, "gaps", NULL), 2);
	assert_int_equal(geti(idle, "total_ns", NULL), 520000000);
	/* the longest first */
	g = json_array_get(json_object_get(idle, "longest"), 0);
	assert_int_equal(geti(g, "start_ns", NULL), 6000000000ll);
	assert_int_equal(geti(g, "duration_ns", NULL), 500000000);
	assert_string_equal(json_string_value(json_object_get(g, "ended_by")), "issue");
	/* what a summary cannot give is named, never filled with zeros */
	assert_true(json_array_size(json_object_get(d, "not_given")) > 0);
	assert_null(json_object_get(d, "depth"));
	json_decref(sum);
	json_decref(root);
}

/* Coarser than the capture's: bins merged (a multiple), gaps that long kept; finer: refused */
static void test_asked(void **s)
{
	json_t *sum =
	    doc("{\"format\": \"iotape-summary\", \"format_version\": 1, \"origin_ns\": 0,"
	        " \"end_ns\": 4000, \"interval_ns\": 1000, \"idle_threshold_ns\": 10,"
	        " \"devices\": [{\"dev\": \"7,0\", \"bio_based\": false, \"latency\":"
	        " {\"kind\": \"d2c\", \"count\": 1, \"sum\": 7, \"min\": 7, \"max\": 7,"
	        " \"buckets\": [[7, 1]]}, \"seeks\": {},"
	        " \"bins\": [[0, 1, 0, 512, 0, 0], [1, 2, 1, 512, 512, 1], [3, 4, 0, 2048, 0, 2]],"
	        " \"gaps\": [[100, 120], [200, 300], [1000, 1050]]}]}");
	json_t *root = json_object(), *d, *tl, *idle;
	struct iot_err e;

	(void)s;
	assert_int_equal(blk_summary_json(sum, 10, 2000, 50, root, &e), 0);
	assert_int_equal(geti(root, "timeline", "interval_ns"), 2000);
	assert_int_equal(geti(root, "timeline", "bins"), 2);
	d = json_array_get(json_object_get(root, "devices"), 0);
	tl = json_object_get(d, "timeline");
	assert_int_equal(json_array_size(tl), 2);
	assert_int_equal(geti(json_array_get(tl, 0), "ios", NULL), 3);
	assert_int_equal(geti(json_array_get(tl, 0), "write_ios", NULL), 1);
	assert_int_equal(geti(json_array_get(tl, 0), "seeks", NULL), 1);
	assert_int_equal(geti(json_array_get(tl, 0), "width_ns", NULL), 2000);
	assert_int_equal(geti(json_array_get(tl, 1), "start_ns", NULL), 2000);
	assert_int_equal(geti(json_array_get(tl, 1), "ios", NULL), 4);
	idle = json_object_get(d, "idle");
	assert_int_equal(geti(idle, "threshold_ns", NULL), 50);
	assert_int_equal(geti(idle, "gaps", NULL), 2);
	assert_int_equal(geti(idle, "total_ns", NULL), 150);
	json_decref(root);

	/* no multiple: the summary's bins */
	root = json_object();
	assert_int_equal(blk_summary_json(sum, 10, 1500, 0, root, &e), 0);
	assert_int_equal(geti(root, "timeline", "interval_ns"), 1000);
	json_decref(root);

	/* finer than it holds: said, not made up */
	root = json_object();
	assert_int_equal(blk_summary_json(sum, 10, 500, 0, root, &e), -ERANGE);
	assert_non_null(strstr(e.msg, "cannot give finer"));
	assert_int_equal(blk_summary_json(sum, 10, 0, 5, root, &e), -ERANGE);
	json_decref(root);
	json_decref(sum);
}

/* A bio-based device: Q2C, no seeks or gaps (it issues no requests) */
static void test_bio_based(void **s)
{
	json_t *sum =
	    doc("{\"format\": \"iotape-summary\", \"format_version\": 1, \"origin_ns\": 1,"
	        " \"end_ns\": 11, \"interval_ns\": 1000, \"idle_threshold_ns\": 5,"
	        " \"devices\": [{\"dev\": \"252,0\", \"bio_based\": true, \"latency\":"
	        " {\"kind\": \"q2c\", \"count\": 1, \"sum\": 7, \"min\": 7, \"max\": 7,"
	        " \"buckets\": [[7, 1]]}, \"seeks\": {}, \"bins\": [], \"gaps\": []}]}");
	json_t *root = json_object(), *d;
	struct iot_err e;

	(void)s;
	assert_int_equal(blk_summary_json(sum, 10, 0, 0, root, &e), 0);
	d = json_array_get(json_object_get(root, "devices"), 0);
	assert_int_equal(geti(json_object_get(d, "latency_ns"), "q2c", "p50"), 7);
	assert_null(json_object_get(json_object_get(d, "latency_ns"), "d2c"));
	assert_null(json_object_get(d, "seeks"));
	assert_null(json_object_get(d, "idle"));
	json_decref(sum);
	json_decref(root);
}

/* The figures the text prints, from the same values as the document's keys */
static void test_figures(void **s)
{
	json_t *sum = doc(request_based), *root = json_object();
	struct blk_figures *f = NULL;
	unsigned n = 0;
	struct iot_err e;

	(void)s;
	assert_int_equal(blk_summary_read(sum, 1, 0, 0, root, &f, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_int_equal(f->dev, BLK_MKDEV(7, 0));
	assert_int_equal(f->not_given, BLK_FIG_NO_EVENTS | BLK_FIG_NO_ACTIONS | BLK_FIG_NO_DEPTH);
	assert_int_equal(f->reads.ios, 2);
	assert_int_equal(f->reads.bytes, 8192);
	assert_int_equal(f->writes.ios, 1);
	assert_int_equal(f->data_writes.bytes, 4096);
	/* D2C 10, 20, 30: per bio and per request alike; nothing else given */
	assert_int_equal(f->lat_given, 1u << BLK_LAT_D2C | 1u << BLK_LAT_D2C_REQ);
	assert_int_equal(f->lat[BLK_LAT_D2C].count, 3);
	assert_int_equal(f->lat[BLK_LAT_D2C].min, 10);
	assert_int_equal(f->lat[BLK_LAT_D2C].p50, 20);
	assert_int_equal(f->lat[BLK_LAT_D2C].max, 30);
	assert_true(f->lat[BLK_LAT_D2C].mean == 20.0);
	assert_int_equal(f->lat[BLK_LAT_D2C_REQ].max, 30);
	assert_int_equal(f->lat[BLK_LAT_Q2C].count, 0);
	/* seeks over the 2 s span */
	assert_int_equal(f->seeks, 1);
	assert_int_equal(f->seekwatcher, 1);
	assert_int_equal(f->seq_transitions, 2);
	assert_int_equal(f->sequential, 1);
	assert_int_equal(f->forward, 1);
	assert_true(f->sequential_pct == 50.0);
	assert_true(f->seeks_per_sec == 0.5);
	/* gaps of 20 and 500 ms; --top 1 keeps the longest, ended by an issue, edges unknown */
	assert_int_equal(f->idle_threshold_ns, 10000000);
	assert_int_equal(f->idle_gaps, 2);
	assert_int_equal(f->idle_total_ns, 520000000);
	assert_true(f->idle_pct == 26.0);
	assert_int_equal(f->ngaps, 1);
	assert_int_equal(f->gaps[0].start_ns, 6000000000ll);
	assert_int_equal(f->gaps[0].end_ns, 6500000000ll);
	assert_false(f->gaps[0].ended_by_end || f->gaps[0].queued);
	assert_false(f->gaps[0].before.present || f->gaps[0].after.present);
	blk_figures_free(f, n);
	json_decref(sum);
	json_decref(root);
}

/* Not a summary, or a bucket past the histogram's: refused, naming why */
static void test_bad(void **s)
{
	static const char *const bad[] = {
	    "{\"format\": \"iotape-run\", \"format_version\": 1, \"interval_ns\": 1, \"devices\": "
	    "[]}",
	    "{\"format\": \"iotape-summary\", \"format_version\": 2, \"interval_ns\": 1, "
	    "\"devices\": "
	    "[]}",
	    "{\"format\": \"iotape-summary\", \"format_version\": 1, \"interval_ns\": 0, "
	    "\"devices\": "
	    "[]}",
	    "{\"format\": \"iotape-summary\", \"format_version\": 1, \"interval_ns\": 1}",
	    "{\"format\": \"iotape-summary\", \"format_version\": 1, \"interval_ns\": 1, "
	    "\"devices\":"
	    " [{\"dev\": \"1,2\", \"latency\": {\"kind\": \"d2c\", \"buckets\": [[99999, 1]]}}]}",
	    "{\"format\": \"iotape-summary\", \"format_version\": 1, \"interval_ns\": 1, "
	    "\"devices\":"
	    " [{\"dev\": \"1,2\", \"latency\": {\"kind\": \"x\", \"buckets\": []}}]}",
	    "{\"format\": \"iotape-summary\", \"format_version\": 1, \"interval_ns\": 1, "
	    "\"devices\":"
	    " [{\"dev\": \"1,2\", \"latency\": {\"kind\": \"d2c\", \"buckets\": [[-1, 1]]}}]}",
	};

	(void)s;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *sum = doc(bad[i]), *root = json_object();
		struct iot_err e = {""};

		assert_int_equal(blk_summary_json(sum, 10, 0, 0, root, &e), -EINVAL);
		assert_true(e.msg[0] != '\0');
		json_decref(sum);
		json_decref(root);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_request_based), cmocka_unit_test(test_asked),
	    cmocka_unit_test(test_bio_based),     cmocka_unit_test(test_figures),
	    cmocka_unit_test(test_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
