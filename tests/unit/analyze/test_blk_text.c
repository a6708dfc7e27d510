/* SPDX-License-Identifier: MIT */
/* Unit tests: analyze's block text takes the figures from the passes, the rest from the document.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/blk_analysis.h"
#include "analyze/blk_doc.h"
#include "analyze/blk_figures.h"
#include "analyze/blk_summary.h"
#include "analyze/blk_text.h"
#include "analyze/idle_explain.h"
#include "analyze/run_summary.h"
#include "test_blk_events.h"

#include "../memtext.h"

/* The document of a small pass (with the "input" analyze adds), as the command builds it;
 * the pass into *keep when given (else freed). */
static json_t *document_of(struct blk_analysis **keep)
{
	struct blk_event ev[] = {
	    EV_Q(500, 0, 8, R),  EV_Q(1000, 8, 8, W), EV_D(1100, 8, 8, W),
	    EV_D(1200, 0, 8, R), EV_C(2100, 8, 8, W), EV_C(3200, 0, 8, R),
	};
	struct blk_analysis *a;
	struct blk_opts o;
	json_t *root = json_object();

	ev[0].dev = ev[3].dev = ev[5].dev = BLK_MKDEV(8, 16);
	blk_opts_init(&o);
	assert_int_equal(blk_analysis_new(&a, &o), 0);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		blk_analysis_feed(a, &ev[i]);
	blk_analysis_finish(a);
	assert_int_equal(blk_analysis_to_json(a, root, 0), 0);
	if (keep)
		*keep = a;
	else
		blk_analysis_free(a);
	json_object_set_new(root, "input", json_pack("{s:[], s:i}", "files", "events", 6));
	return root;
}

static char *render_with(const json_t *root, const struct run_summary *rs, int *ret,
                         struct iot_err *e)
{
	struct memtext m;

	*ret = blk_text_summary(memtext_start(&m), root, rs, e);
	return memtext_end(&m);
}

/*
 * The figures come from the sinks (analyze/blk_figures.h), not from the document: a figure's
 * key renamed or its value changed in the document changes nothing; without the run's
 * figures the text is refused.
 */
static void test_figures_from_the_pass(void **s)
{
	struct blk_analysis *a;
	json_t *root = document_of(&a), *d = json_array_get(json_object_get(root, "devices"), 1);
	struct devref refs[2] = {{a, 0}, {a, 1}};
	struct run_summary rs = {.refs = refs};
	struct iot_err e = {""};
	int ret;
	char *before = render_with(root, &rs, &ret, &e), *after;

	(void)s;
	assert_int_equal(ret, 0);
	json_object_set(d, "data_writes_renamed", json_object_get(d, "data_writes"));
	json_object_del(d, "data_writes");
	json_object_set_new(json_object_get(d, "reads"), "ios", json_integer(999));
	after = render_with(root, &rs, &ret, &e);
	assert_int_equal(ret, 0);
	assert_string_equal(after, before);
	assert_non_null(strstr(after, "\ndevice 8,16: 3 events\n  reads                 1 ios"));
	free(after);
	free(render_with(root, NULL, &ret, &e));
	assert_int_equal(ret, -EPROTO);
	assert_non_null(strstr(e.msg, "no figures"));
	free(before);
	json_decref(root);
	blk_analysis_free(a);
}

/* A summary run's figures (blk_summary_read()): what its level cannot give prints 0, and its
 * devices' keys are not read. */
static void test_summary_figures(void **s)
{
	json_error_t je;
	json_t *sum = json_loads(
	    "{\"format\": \"iotape-summary\", \"format_version\": 1, \"origin_ns\": 0,"
	    " \"end_ns\": 4000000000, \"interval_ns\": 1000000000, \"idle_threshold_ns\": 10,"
	    " \"devices\": [{\"dev\": \"7,0\", \"bio_based\": false, \"latency\":"
	    " {\"kind\": \"d2c\", \"count\": 1, \"sum\": 7, \"min\": 7, \"max\": 7,"
	    " \"buckets\": [[7, 1]]}, \"seeks\": {\"count\": 3}, \"bins\": [[1, 2, 1, 512, 512, "
	    "1]],"
	    " \"gaps\": [[100, 120], [200, 3000000000]]}]}",
	    0, &je);
	json_t *root = json_object(), *d;
	struct run_summary rs = {0};
	struct iot_err e = {""};
	int ret;
	char *before, *after;

	(void)s;
	assert_non_null(sum);
	assert_int_equal(blk_summary_read(sum, 10, 0, 0, root, &rs.figs, &rs.nfigs, &e), 0);
	json_object_set_new(root, "input", json_pack("{s:[], s:i}", "files", "events", 0));
	before = render_with(root, &rs, &ret, &e);
	assert_int_equal(ret, 0);
	assert_non_null(strstr(before, "\ndevice 7,0: 0 events\n  reads                 1 ios"));
	assert_non_null(strstr(before, "  depth      mean 0.00, max 0\n"));
	assert_non_null(strstr(before, "  idle       2 gaps >= 10 ns"));
	assert_non_null(strstr(before, "  seeks      3 (0 over 128 sectors)"));
	d = json_array_get(json_object_get(root, "devices"), 0);
	json_object_del(d, "reads");
	json_object_del(d, "data_writes");
	json_object_del(d, "seeks");
	json_object_del(json_object_get(d, "idle"), "longest");
	after = render_with(root, &rs, &ret, &e);
	assert_int_equal(ret, 0);
	assert_string_equal(after, before);
	free(after);
	free(before);
	blk_figures_free(rs.figs, rs.nfigs);
	json_decref(sum);
	json_decref(root);
}

/*
 * A gap's causes and the sentences that justify them come from the explainer's structs
 * (analyze/idle_explain.h), not from the document's longest[].explain: A idle 10-100 ms while
 * B had IO in flight for 75 ms of it.
 */
static void test_causes_from_the_explainer(void **s)
{
#define MS 1000000ull
	const uint32_t A = BLK_MKDEV(8, 0), B = BLK_MKDEV(8, 16);
	struct blk_event ev[] = {
	    EV_D(0, 0, 8, R),         EV_D(5 * MS, 0, 8, W),   EV_C(10 * MS, 0, 8, R),
	    EV_C(30 * MS, 0, 8, W),   EV_D(35 * MS, 8, 16, W), EV_C(50 * MS, 8, 16, W),
	    EV_D(60 * MS, 24, 8, W),  EV_D(100 * MS, 8, 8, R), EV_C(101 * MS, 8, 8, R),
	    EV_C(120 * MS, 24, 8, W),
	};
	static const unsigned on_b[] = {1, 3, 4, 5, 6, 9};
	struct blk_analysis *a;
	struct idle_explain *x;
	struct blk_opts o;
	struct ie_clock none = {0};
	json_t *root = json_object(), *d, *g;
	struct devref refs[2];
	struct run_summary rs = {0};
	struct iot_err e = {""};
	int ret;
	char *before, *after;
	size_t i, k;

	(void)s;
	for (i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		ev[i].dev = A;
	for (i = 0; i < sizeof(on_b) / sizeof(on_b[0]); i++)
		ev[on_b[i]].dev = B;
	blk_opts_init(&o);
	assert_int_equal(blk_analysis_new(&a, &o), 0);
	assert_int_equal(idle_explain_new(&x, o.top), 0);
	assert_int_equal(idle_explain_add_host(x, a, NULL, &none), 0);
	for (i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		blk_analysis_feed(a, &ev[i]);
	blk_analysis_finish(a);
	assert_int_equal(blk_analysis_to_json(a, root, 0), 0);
	assert_int_equal(idle_explain_json(x, 0, json_object_get(root, "devices")), 0);
	json_object_set_new(root, "input", json_pack("{s:[], s:i}", "files", "events", 10));
	refs[0] = (struct devref){a, 0};
	refs[1] = (struct devref){a, 1};
	rs.refs = refs;
	rs.x = x;
	before = render_with(root, &rs, &ret, &e);
	assert_int_equal(ret, 0);
	assert_non_null(strstr(before, " other_device_busy\n      other_device_busy: 8,16 had IO "
	                               "in flight for 75.000 ms of the gap's 90.000 ms (83%): 2 "
	                               "IOs"));
	json_array_foreach(json_object_get(root, "devices"), i, d)
	{
		json_array_foreach(json_object_get(json_object_get(d, "idle"), "longest"), k, g)
		{
			json_object_del(g, "explain");
		}
	}
	after = render_with(root, &rs, &ret, &e);
	assert_int_equal(ret, 0);
	assert_string_equal(after, before);
	free(after);
	free(before);
	json_decref(root);
	idle_explain_free(x);
	blk_analysis_free(a);
#undef MS
}

static void test_every_path_there(void **s)
{
	struct blk_analysis *a;
	json_t *root = document_of(&a);
	struct devref refs[2] = {{a, 0}, {a, 1}};
	struct run_summary rs = {.refs = refs};
	struct iot_err e = {""};
	int ret;
	char *text = render_with(root, &rs, &ret, &e);

	(void)s;
	assert_int_equal(ret, 0);
	assert_string_equal(e.msg, "");
	/* the figures are the sinks': the write of 8 sectors on 8,0, the read on 8,16 */
	assert_non_null(strstr(text, "0 file(s), 6 events, 2 device(s), span 2.7 us"));
	assert_non_null(strstr(text, "\ndevice 8,0: 3 events\n"));
	assert_non_null(strstr(text, "\ndevice 8,16: 3 events\n"));
	assert_non_null(strstr(text, "writes            1 ios      4.0 KiB"));
	free(text);
	json_decref(root);
	blk_analysis_free(a);
}

/* A key the text still reads from the document, renamed in the JSON view: an error naming
 * the path, not a 0. */
static void test_renamed_key_fails(void **s)
{
	struct blk_analysis *a;
	json_t *root = document_of(&a);
	struct devref refs[2] = {{a, 0}, {a, 1}};
	struct run_summary rs = {.refs = refs};
	struct iot_err e = {""};
	int ret;
	char *text;

	(void)s;
	json_object_del(root, "span_ns");
	text = render_with(root, &rs, &ret, &e);
	assert_int_equal(ret, -EPROTO);
	assert_non_null(strstr(e.msg, "'span_ns'"));
	free(text);
	json_decref(root);
	blk_analysis_free(a);
}

/* A device's figures found by position (the run's refs) but checked by name: refs that point
 * at the other device are refused, never printed under this device's name. */
static void test_figures_of_another_device(void **s)
{
	struct blk_analysis *a;
	json_t *root = document_of(&a);
	struct devref refs[2] = {{a, 1}, {a, 0}};
	struct run_summary rs = {.refs = refs};
	struct iot_err e = {""};
	int ret;
	char *text;

	(void)s;
	text = render_with(root, &rs, &ret, &e);
	assert_int_equal(ret, -EPROTO);
	assert_null(strstr(text, "\ndevice 8,0: 3 events\n  reads                 1 ios"));
	free(text);
	json_decref(root);
	blk_analysis_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_figures_from_the_pass),
	    cmocka_unit_test(test_summary_figures),
	    cmocka_unit_test(test_causes_from_the_explainer),
	    cmocka_unit_test(test_every_path_there),
	    cmocka_unit_test(test_renamed_key_fails),
	    cmocka_unit_test(test_figures_of_another_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
