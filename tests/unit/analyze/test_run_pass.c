/* SPDX-License-Identifier: MIT */
/* Unit tests: the one block pass of a run (analyze/run_pass.c): traces merged, a run set's hosts,
 * the cgroups' split, and partial results, as analyze, report and compare obtain them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/blk_doc.h"
#include "analyze/idle_explain.h"
#include "analyze/run_summary.h"
#include "common/jsonint.h"
#include "formats/blktrace.h"
#include "formats/manifest.h"

#define SAMPLE(x) IOTAPE_SRCDIR "/samples/" x

static struct bt_reader *open_trace(const char *path)
{
	struct bt_reader *rd;
	struct iot_err e;

	assert_int_equal(bt_reader_open(&rd, path, &e), 0);
	return rd;
}

/* The sum of every device's "events" in doc. */
static uint64_t device_events(const json_t *doc)
{
	const json_t *devs = json_object_get(doc, "devices"), *d;
	uint64_t sum = 0, v;
	size_t i;

	assert_true(json_is_array(devs));
	json_array_foreach(devs, i, d)
	{
		assert_int_equal(json_u64_member(d, "events", &v), 0);
		sum += v;
	}
	return sum;
}

/* One trace alone through the pass: what it read, and its devices' events. */
static void alone(const char *path, uint64_t *events, uint64_t *devev)
{
	struct run_summary r;
	struct bt_reader *rd = open_trace(path);
	struct iot_err e;

	assert_int_equal(run_summary_init(&r, NULL), 0);
	assert_int_equal(run_summary_pass(&r, &rd, 1, NULL, NULL, &e), 0);
	assert_true(r.passed);
	assert_int_equal(r.events, bt_reader_stats(rd)->events);
	assert_int_equal(run_summary_json(&r, r.doc), 0);
	*events = r.events;
	*devev = device_events(r.doc);
	bt_reader_free(rd);
	run_summary_release(&r);
}

/* Two traces merged by time into one pass: every event of each read once, the devices' figures
 * those of both, each device of the document pointing at the pass. */
static void test_merge(void **s)
{
	struct run_summary r;
	struct bt_reader *rd[2];
	struct iot_err e;
	uint64_t ev1, ev2, d1, d2;
	size_t n;

	(void)s;
	alone(SAMPLE("ext4"), &ev1, &d1);
	alone(SAMPLE("xfs"), &ev2, &d2);
	assert_true(ev1 > 0 && ev2 > 0);
	rd[0] = open_trace(SAMPLE("ext4"));
	rd[1] = open_trace(SAMPLE("xfs"));
	assert_int_equal(run_summary_init(&r, NULL), 0);
	assert_int_equal(run_summary_pass(&r, rd, 2, NULL, NULL, &e), 0);
	assert_true(r.passed);
	assert_non_null(r.comms);
	assert_int_equal(r.events, ev1 + ev2);
	assert_int_equal(run_summary_json(&r, r.doc), 0);
	assert_int_equal(device_events(r.doc), d1 + d2);
	n = json_array_size(json_object_get(r.doc, "devices"));
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++) {
		assert_ptr_equal(r.refs[i].a, r.blk);
		assert_int_equal(r.refs[i].pos, i);
	}
	assert_null(json_object_get(r.doc, "cgroups"));
	bt_reader_free(rd[0]);
	bt_reader_free(rd[1]);
	run_summary_release(&r);
}

/* by_cgroup: the cgroups' passes run beside the devices' and their figures join the document. */
static void test_by_cgroup(void **s)
{
	struct run_summary r;
	struct bt_reader *rd = open_trace(SAMPLE("ext4"));
	struct iot_err e;
	uint64_t ev, d;

	(void)s;
	alone(SAMPLE("ext4"), &ev, &d);
	assert_int_equal(run_summary_init(&r, NULL), 0);
	r.by_cgroup = true;
	assert_int_equal(run_summary_pass(&r, &rd, 1, NULL, NULL, &e), 0);
	assert_non_null(r.cg);
	assert_int_equal(r.events, ev);
	assert_int_equal(run_summary_json(&r, r.doc), 0);
	assert_true(json_is_array(json_object_get(r.doc, "cgroups")));
	assert_int_equal(device_events(r.doc), d);
	bt_reader_free(rd);
	run_summary_release(&r);
}

/* Bad bytes after good records: the pass ran and holds what came before them; the run summary
 * makes partial results of it. */
static void test_partial(void **s)
{
	char dir[] = "/tmp/iotape-run-pass-XXXXXX", path[128], buf[3000];
	static const char junk[] = "garbagegarbagegarbagegarbagegarbagegarbagegarbage";
	struct run_summary r;
	struct bt_reader *rd;
	struct iot_err e;
	FILE *in, *out;
	size_t len;
	json_t *input;

	(void)s;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.blktrace.0", dir);
	in = fopen(SAMPLE("btrfs/loop0.blktrace.1"), "rb");
	out = fopen(path, "wb");
	assert_non_null(in);
	assert_non_null(out);
	len = fread(buf, 1, sizeof(buf), in); /* the whole file: 20 records */
	assert_true(len > 0 && len < sizeof(buf));
	assert_int_equal(fwrite(buf, 1, len, out), len);
	assert_int_equal(fwrite(junk, 1, sizeof(junk) - 1, out), sizeof(junk) - 1);
	fclose(in);
	assert_int_equal(fclose(out), 0);

	rd = open_trace(path);
	assert_int_equal(run_summary_init(&r, NULL), 0);
	assert_true(run_summary_pass(&r, &rd, 1, NULL, NULL, &e) < 0);
	assert_true(r.passed);
	assert_true(r.events > 0);
	bt_reader_free(rd);

	rd = open_trace(path);
	assert_int_equal(run_summary_block(&r, rd, NULL, NULL, &e), 1);
	input = json_object_get(r.doc, "input");
	assert_true(json_is_true(json_object_get(input, "partial")));
	assert_string_equal(json_string_value(json_object_get(input, "error")), e.msg);
	assert_true(device_events(r.doc) > 0);
	bt_reader_free(rd);
	run_summary_release(&r);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* A run set's hosts: a pass each on one clock, "hosts" naming them, every device with its
 * host, its gaps explained and pointing at its host's pass. */
static void test_hosts(void **s)
{
	static const char *const paths[2] = {SAMPLE("ext4"), SAMPLE("xfs")};
	static const char *const names[2] = {"a", "b"};
	struct run_summary r;
	struct manifest m[2];
	struct run_host h[2];
	struct iot_err e;
	json_t *root, *hosts, *d;
	uint64_t ev[2], dev[2];
	unsigned bad;
	size_t i;

	(void)s;
	for (unsigned k = 0; k < 2; k++) {
		char mp[256];

		alone(paths[k], &ev[k], &dev[k]);
		snprintf(mp, sizeof(mp), "%s/manifest.json", paths[k]);
		assert_int_equal(manifest_load(mp, &m[k], &e), 0);
		assert_true(m[k].have_clock);
		h[k] = (struct run_host){open_trace(paths[k]), &m[k], names[k], paths[k], 0};
	}
	assert_int_equal(run_summary_init(&r, NULL), 0);
	assert_int_equal(run_summary_hosts(&r, h, 2, NULL, NULL, &e, &bad), 0);
	assert_true(r.passed);
	assert_null(r.blk);
	assert_int_equal(r.nhosts, 2);
	assert_int_equal(r.events, ev[0] + ev[1]);
	root = json_object();
	assert_int_equal(run_summary_json(&r, root), 0);
	hosts = json_object_get(root, "hosts");
	assert_int_equal(json_array_size(hosts), 2);
	for (unsigned k = 0; k < 2; k++) {
		json_t *hk = json_array_get(hosts, k);

		assert_string_equal(json_string_value(json_object_get(hk, "host")), names[k]);
		assert_string_equal(json_string_value(json_object_get(hk, "path")), paths[k]);
	}
	assert_int_equal(device_events(root), dev[0] + dev[1]);
	json_array_foreach(json_object_get(root, "devices"), i, d)
	{
		const char *host = json_string_value(json_object_get(d, "host"));

		assert_non_null(host);
		assert_ptr_equal(r.refs[i].a, r.hblk[strcmp(host, "a") ? 1 : 0]);
		/* each host's gaps explained by the document itself: the explanation finds a
		 * host's devices by their "host", which they carry from the start */
		assert_non_null(json_object_get(json_object_get(d, "idle"), "explain"));
	}
	assert_true(json_is_object(json_object_get(root, "timeline")));
	json_decref(root);
	run_summary_release(&r);
	for (unsigned k = 0; k < 2; k++) {
		bt_reader_free(h[k].rd);
		manifest_release(&m[k]);
	}
}

static int count_setup(void *ctx, unsigned host, struct blk_analysis *a)
{
	unsigned *seen = ctx;

	assert_non_null(a);
	*seen |= 1u << host;
	return 0;
}

/* A run set read for report and compare: each host's document its run's, with the idle gaps
 * and their explanations analyze's document of the set gives that host's devices; the setup
 * hook sees each host's pass. */
static void test_set(void **s)
{
	static const char *const paths[2] = {SAMPLE("ext4"), SAMPLE("xfs")};
	static const char *const names[2] = {"a", "b"};
	struct run_summary r, q;
	struct manifest m[2];
	struct run_host h[2];
	struct run_set_host sh[2] = {{.host = {0}}};
	struct iot_err e;
	json_t *root, *d;
	unsigned bad, seen = 0;
	size_t i, n[2] = {0, 0};

	(void)s;
	for (unsigned k = 0; k < 2; k++) {
		char mp[256];

		snprintf(mp, sizeof(mp), "%s/manifest.json", paths[k]);
		assert_int_equal(manifest_load(mp, &m[k], &e), 0);
		h[k] = (struct run_host){open_trace(paths[k]), &m[k], names[k], paths[k], 0};
		sh[k].host = (struct run_host){open_trace(paths[k]), &m[k], names[k], paths[k], 0};
	}
	assert_int_equal(run_summary_init(&r, NULL), 0);
	assert_int_equal(run_summary_hosts(&r, h, 2, NULL, NULL, &e, &bad), 0);
	root = json_object();
	assert_int_equal(run_summary_json(&r, root), 0);
	/* as analyze writes each host's explanations, after the packets (cli/cmd-analyze.c) */
	for (unsigned k = 0; k < 2; k++)
		assert_int_equal(idle_explain_json(r.x, k, json_object_get(root, "devices")), 0);
	assert_int_equal(run_summary_init(&q, NULL), 0);
	assert_int_equal(run_summary_set(&q, sh, 2, count_setup, NULL, &seen, &e, &bad), 0);
	assert_int_equal(seen, 3);
	assert_int_equal(q.nhosts, 2);
	json_array_foreach(json_object_get(root, "devices"), i, d)
	{
		unsigned k = strcmp(json_string_value(json_object_get(d, "host")), "a") ? 1 : 0;
		json_t *mine = json_array_get(json_object_get(sh[k].doc, "devices"), n[k]++);

		assert_non_null(mine);
		assert_string_equal(json_string_value(json_object_get(mine, "host")), names[k]);
		assert_string_equal(json_string_value(json_object_get(mine, "dev")),
		                    json_string_value(json_object_get(d, "dev")));
		assert_non_null(json_object_get(json_object_get(mine, "idle"), "explain"));
		assert_true(json_equal(json_object_get(mine, "idle"), json_object_get(d, "idle")));
	}
	for (unsigned k = 0; k < 2; k++) {
		assert_int_equal(json_array_size(json_object_get(sh[k].doc, "devices")), n[k]);
		assert_true(n[k] > 0);
		assert_true(sh[k].have_real_start);
	}
	json_decref(root);
	run_summary_release(&r);
	run_summary_release(&q);
	for (unsigned k = 0; k < 2; k++) {
		json_decref(sh[k].doc);
		bt_reader_free(sh[k].host.rd);
		bt_reader_free(h[k].rd);
		manifest_release(&m[k]);
	}
}

/* analyze's "input": each file as its reader saw it, what the pass read, partial or whole. */
static void test_input_json(void **s)
{
	static const char *const paths[2] = {SAMPLE("ext4"), "packets-only"};
	struct run_summary r;
	struct bt_reader *rd[2] = {open_trace(SAMPLE("ext4")), NULL};
	struct iot_err e;
	json_t *in, *w = json_array();
	uint64_t v;

	(void)s;
	assert_int_equal(run_summary_init(&r, NULL), 0);
	assert_int_equal(run_summary_pass(&r, rd, 1, NULL, NULL, &e), 0);
	json_array_append_new(w, json_string("a warning"));
	in = run_summary_input_json(&r, rd, paths, 2, NULL, w);
	assert_non_null(in);
	assert_int_equal(json_array_size(json_object_get(in, "paths")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(in, "paths"), 1)),
	                    "packets-only");
	assert_int_equal(json_array_size(json_object_get(in, "files")),
	                 bt_reader_stats(rd[0])->nfiles);
	assert_int_equal(json_u64_member(in, "events", &v), 0);
	assert_int_equal(v, r.events);
	assert_true(json_is_false(json_object_get(in, "partial")));
	assert_null(json_object_get(in, "error"));
	assert_ptr_equal(json_object_get(in, "warnings"), w);
	json_decref(in);
	in = run_summary_input_json(&r, rd, paths, 1, "stopped here", json_array());
	assert_true(json_is_true(json_object_get(in, "partial")));
	assert_string_equal(json_string_value(json_object_get(in, "error")), "stopped here");
	json_decref(in);
	bt_reader_free(rd[0]);
	run_summary_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_merge),   cmocka_unit_test(test_by_cgroup),
	    cmocka_unit_test(test_partial), cmocka_unit_test(test_hosts),
	    cmocka_unit_test(test_set),     cmocka_unit_test(test_input_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
