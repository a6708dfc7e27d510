/* SPDX-License-Identifier: MIT */
/* Tests for compare/compare.c: rules, labels, groups, baseline, Welch, --fail-if, renderers. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/units.h"
#include "compare/compare.h"

#include "../memtext.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

/* A summary with one device: mib MiB/s over 1 s (what compare shows; the JSON's mbps is
 * 10^6 bytes/s), p99 in us, and a manifest. */
static json_t *summary(double mib, double p99_us, const char *kernel, const char *fs)
{
	double mbps = mib * IOT_MIB / 1e6;

	json_t *s = json_pack(
	    "{s:I,s:[{s:s,s:{s:I,s:I},s:{s:I,s:I},s:{s:f,s:f},s:{s:{s:I,s:I}},"
	    "s:{s:f,s:[I]},s:{s:f,s:f}}]}",
	    "span_ns", (json_int_t)1000000000, "devices", "dev", "8,0", "reads", "ios",
	    (json_int_t)100, "bytes", (json_int_t)(mib * IOT_MIB), "writes", "ios", (json_int_t)0,
	    "bytes", (json_int_t)0, "throughput", "mbps", mbps, "iops", 100.0, "latency_ns", "d2c",
	    "p50", (json_int_t)100000, "p99", (json_int_t)(p99_us * 1000), "idle", "pct", 1.5,
	    "longest", (json_int_t)20000000, "seeks", "per_sec", 10.0, "sequential_pct", 90.0);

	assert_non_null(s);
	if (kernel)
		json_object_set_new(s, "manifest",
		                    json_pack("{s:s,s:[{s:s,s:[{s:s}]}]}", "kernel", kernel,
		                              "devices", "name", "sda", "filesystems", "type", fs));
	return s;
}

static void add(struct compare *c, const char *path, json_t *s, const char *label)
{
	struct iot_err e;

	assert_int_equal(compare_add(c, path, s, NULL, label, &e), 0);
	json_decref(s);
}

static void test_parse_rule(void **state)
{
	struct cmp_rule r;
	struct iot_err e;

	(void)state;
	assert_int_equal(compare_parse_rule("mbps<-10%", &r, &e), 0);
	assert_string_equal(r.metric, "mbps");
	assert_int_equal(r.op, CMP_LT);
	NEAR(r.value, -10, 0);
	assert_true(r.relative);
	assert_int_equal(compare_parse_rule(" lat_p99 >= 2.5 ", &r, &e), 0);
	assert_string_equal(r.metric, "lat_p99");
	assert_int_equal(r.op, CMP_GE);
	NEAR(r.value, 2.5, 0);
	assert_false(r.relative);
	assert_int_equal(compare_parse_rule("idle_pct>+5 %", &r, &e), 0);
	assert_int_equal(r.op, CMP_GT);
	assert_true(r.relative);
	assert_int_equal(compare_parse_rule("mbps<=0", &r, &e), 0);
	assert_int_equal(r.op, CMP_LE);
	assert_int_equal(compare_parse_rule("mbps", &r, &e), -EINVAL);
	assert_int_equal(compare_parse_rule("<5", &r, &e), -EINVAL);
	assert_int_equal(compare_parse_rule("mbps<abc", &r, &e), -EINVAL);
	assert_int_equal(compare_parse_rule("mbps<5ms", &r, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "ms"));
	assert_int_equal(compare_parse_rule("mbps<nan", &r, &e), -EINVAL);
}

static void test_groups_and_welch(void **state)
{
	struct compare c;
	struct iot_err e;
	struct compare_opts o = {.baseline = "6.1"};
	const struct cmp_cell *old, *new;
	int m;

	(void)state;
	compare_init(&c);
	/* a (6.1): 100 102 104; b (6.6): 90 91 92 (labels from the varying kernel) */
	add(&c, "r1", summary(100, 1000, "6.1", "ext4"), NULL);
	add(&c, "r2", summary(90, 1500, "6.6", "ext4"), NULL);
	add(&c, "r3", summary(102, 1000, "6.1", "ext4"), NULL);
	add(&c, "r4", summary(91, 1500, "6.6", "ext4"), NULL);
	add(&c, "r5", summary(104, 1000, "6.1", "ext4"), NULL);
	add(&c, "r6", summary(92, 1500, "6.6", "ext4"), NULL);
	assert_int_equal(compare_add_rule(&c, "mbps<-10%", &e), 0);
	assert_int_equal(compare_add_rule(&c, "p99>1200", &e), 0);
	assert_int_equal(compare_finish(&c, &o, &e), 0);
	assert_int_equal(c.ngroups, 2);
	assert_string_equal(c.group[0].label, "6.1");
	assert_string_equal(c.group[1].label, "6.6");
	assert_int_equal(c.baseline, 0);
	m = compare_metric_find(&c, "MB/s");
	assert_int_equal(m, compare_metric_find(&c, "mbps"));
	old = &c.group[0].cell[m];
	new = &c.group[1].cell[m];
	assert_int_equal(old->s.n, 3);
	NEAR(old->s.mean, 102, 1e-9);
	NEAR(old->s.sd, 2, 1e-9);
	NEAR(new->s.mean, 91, 1e-9);
	NEAR(new->s.sd, 1, 1e-9);
	/* change: (91 - 102) / 102 = -10.784 %; t = -11 / sqrt(4/3 + 1/3) = -8.5206,
	 * df = (5/3)^2 / ((4/3)^2/2 + (1/3)^2/2) = 2.9412 */
	NEAR(new->change_pct, -11.0 / 102 * 100, 1e-9);
	NEAR(new->welch.t, -11 / sqrt(5.0 / 3), 1e-9);
	NEAR(new->welch.df, (25.0 / 9) / ((16.0 / 9 + 1.0 / 9) / 2), 1e-9);
	assert_true(new->welch.p > 0.003 && new->welch.p < 0.004);
	assert_true(isnan(old->change_pct));
	/* mbps -10.8 % fails the relative rule; p99 1500 > 1200 fails the absolute one */
	assert_int_equal(new->result, CMP_FAIL);
	assert_int_equal(old->result, CMP_PASS);
	m = compare_metric_find(&c, "p99");
	assert_int_equal(c.group[1].cell[m].result, CMP_FAIL);
	assert_int_equal(c.group[0].cell[m].result, CMP_PASS);
	assert_int_equal(c.nfailed, 2);
	compare_release(&c);
}

static void test_labels(void **state)
{
	struct compare c;
	struct iot_err e;
	struct compare_opts o = {.baseline = "nope"};

	(void)state;
	/* explicit labels win; nothing in common and no manifest: the file name */
	compare_init(&c);
	add(&c, "dir/run-a.json", summary(1, 1, NULL, NULL), NULL);
	add(&c, "dir/run-b/", summary(1, 1, NULL, NULL), NULL);
	add(&c, "x", summary(1, 1, NULL, NULL), "mine");
	assert_int_equal(compare_finish(&c, NULL, &e), 0);
	assert_int_equal(c.ngroups, 3);
	assert_string_equal(c.group[0].label, "run-a");
	assert_string_equal(c.group[1].label, "run-b");
	assert_string_equal(c.group[2].label, "mine");
	compare_release(&c);

	/* identical manifests: one group of repeated runs, named by what they share */
	compare_init(&c);
	add(&c, "a", summary(1, 1, "6.1", "xfs"), NULL);
	add(&c, "b", summary(2, 1, "6.1", "xfs"), NULL);
	assert_int_equal(compare_finish(&c, NULL, &e), 0);
	assert_int_equal(c.ngroups, 1);
	assert_string_equal(c.group[0].label, "6.1 / xfs / sda");
	compare_release(&c);

	/* the filesystem differs: it alone names the groups; unknown baseline is an error */
	compare_init(&c);
	add(&c, "a", summary(1, 1, "6.1", "xfs"), NULL);
	add(&c, "b", summary(2, 1, "6.1", "ext4"), NULL);
	assert_int_equal(compare_finish(&c, &o, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "'xfs', 'ext4'"));
	compare_release(&c);

	/* a rule on an unknown metric */
	compare_init(&c);
	add(&c, "a", summary(1, 1, NULL, NULL), NULL);
	assert_int_equal(compare_add_rule(&c, "bogus<1", &e), 0);
	assert_int_equal(compare_finish(&c, NULL, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "bogus"));
	compare_release(&c);
}

/* Runs that nothing says are repeats are not pooled (issue #25 item 14): an ext4 summary
 * whose manifest holds only the host's name and an xfs one without any were one group of
 * n = 2. Runs whose labels differ are never pooled by default, and a layout that would pool
 * them is refused unless --pool says so; the repetition label of a sweep is pooled. */
static void test_pooling(void **state)
{
	struct compare c;
	struct iot_err e;
	struct compare_opts by_kernel = {.by = "kernel"}, pool = {.by = "kernel", .pool = true};
	json_t *s;

	(void)state;
	compare_init(&c);
	s = summary(1, 1, NULL, NULL);
	json_object_set_new(s, "manifest", json_pack("{s:{s:s}}", "host", "hostname", "h1"));
	add(&c, "ext4.json", s, NULL);
	add(&c, "xfs.json", summary(2, 1, NULL, NULL), NULL);
	assert_int_equal(compare_finish(&c, NULL, &e), 0);
	assert_int_equal(c.ngroups, 2);
	assert_int_equal(c.unpooled, 2);
	assert_int_equal(c.group[0].cell[0].s.n, 1);
	compare_release(&c);

	/* labels: bs differs, rep is the repetition */
	for (int mode = 0; mode < 3; mode++) {
		compare_init(&c);
		for (int i = 0; i < 4; i++) {
			s = summary(1 + i, 1, "6.1", "xfs");
			json_object_set_new(
			    json_object_get(s, "manifest"), "labels",
			    json_pack("{s:s, s:i}", "bs", i < 2 ? "4k" : "128k", "rep", i % 2 + 1));
			add(&c, i < 2 ? "small" : "large", s, NULL);
		}
		if (mode == 0) {
			/* by default the label tells them apart: two groups of two repetitions */
			assert_int_equal(compare_finish(&c, NULL, &e), 0);
			assert_int_equal(c.ngroups, 2);
			assert_int_equal(c.group[0].cell[0].s.n, 2);
			assert_non_null(strstr(c.group[1].label, "128k"));
			assert_int_equal(c.unpooled, 0);
		} else if (mode == 1) {
			assert_int_equal(compare_finish(&c, &by_kernel, &e), -EINVAL);
			assert_non_null(strstr(e.msg, "label 'bs' ('4k', '128k')"));
			assert_non_null(strstr(e.msg, "--pool"));
		} else {
			assert_int_equal(compare_finish(&c, &pool, &e), 0);
			assert_int_equal(c.ngroups, 1);
			assert_int_equal(c.group[0].cell[0].s.n, 4);
		}
		compare_release(&c);
	}
}

/* A run of two devices: one sample per device when the layout has the device (matched by
 * key across runs whose loop numbers differ), one value per run otherwise (MB/s summed,
 * per-device latency left out). */
static void test_devices_of_a_run(void **state)
{
	struct compare c;
	struct iot_err e;
	struct compare_opts by_kernel = {.by = "kernel"};
	json_t *s;

	(void)state;
	for (int by = 0; by < 2; by++) {
		compare_init(&c);
		for (int run = 0; run < 2; run++) {
			char path[16];

			s = summary(10 + run, 100, "6.1", "xfs");
			json_array_append_new(
			    json_object_get(s, "devices"),
			    json_deep_copy(json_array_get(json_object_get(s, "devices"), 0)));
			/* loop numbers differ between the runs; the keys do not */
			json_object_set_new(json_array_get(json_object_get(s, "devices"), 0), "dev",
			                    json_string(run ? "7,4" : "7,2"));
			json_object_set_new(json_array_get(json_object_get(s, "devices"), 1), "dev",
			                    json_string(run ? "7,5" : "7,3"));
			json_object_set_new(json_array_get(json_object_get(s, "devices"), 0), "key",
			                    json_string("osd.0 data"));
			json_object_set_new(json_array_get(json_object_get(s, "devices"), 1), "key",
			                    json_string("osd.0 journal"));
			json_object_set_new(json_array_get(json_object_get(s, "devices"), 1),
			                    "role", json_string("osd.0 journal"));
			json_object_del(json_object_get(s, "manifest"), "devices");
			snprintf(path, sizeof(path), "run%d", run);
			add(&c, path, s, NULL);
		}
		/* by default (device is one of the keys) each device is a group, by its key */
		assert_int_equal(compare_finish(&c, by ? &by_kernel : NULL, &e), 0);
		if (!by) {
			assert_int_equal(c.ngroups, 2);
			assert_string_equal(c.group[0].label, "osd.0 data");
			assert_int_equal(c.group[0].cell[0].s.n, 2);
			NEAR(c.group[0].cell[0].s.mean, 10.5, 1e-9);
			assert_int_equal(c.group[1].cell[3].s.n, 2); /* p99, per device */
			assert_int_equal(c.merged, 0);
		} else {
			assert_int_equal(c.ngroups, 1);
			assert_int_equal(c.group[0].cell[0].s.n, 2);
			NEAR(c.group[0].cell[0].s.mean, 21, 1e-9); /* (20 + 22) / 2 */
			assert_int_equal(c.group[0].cell[3].s.n, 0);
			assert_int_equal(c.merged, 2);
		}
		compare_release(&c);
	}
}

static void test_matrix_and_render(void **state)
{
	struct compare c;
	struct iot_err e;
	struct compare_opts o = {.rows = "kernel", .cols = "filesystem"};
	struct memtext m;
	char *buf;

	(void)state;
	compare_init(&c);
	add(&c, "a", summary(100, 1, "6.1", "xfs"), NULL);
	add(&c, "b", summary(80, 1, "6.1", "ext4"), NULL);
	add(&c, "c", summary(50, 1, "6.6", "xfs"), NULL);
	add(&c, "d", summary(40, 1, "6.6", "ext4<b>"), NULL);
	assert_int_equal(compare_finish(&c, &o, &e), 0);
	assert_int_equal(c.ngroups, 4);
	assert_string_equal(c.group[3].rowv, "6.6");
	assert_string_equal(c.group[3].colv, "ext4<b>");
	assert_int_equal(compare_render(&c, CMP_FMT_TEXT, memtext_start(&m)), 0);
	buf = memtext_end(&m);
	assert_non_null(strstr(buf, "kernel \\ filesystem"));
	assert_non_null(strstr(buf, "100.00 (baseline)"));
	assert_non_null(strstr(buf, "40.00 (-60.0%)"));
	free(buf);
	/* HTML escapes what came from the manifest */
	assert_int_equal(compare_render(&c, CMP_FMT_HTML, memtext_start(&m)), 0);
	buf = memtext_end(&m);
	assert_non_null(strstr(buf, "ext4&lt;b&gt;"));
	assert_null(strstr(buf, "ext4<b>"));
	free(buf);
	compare_release(&c);
}

/* --tables: one matrix per value, each compared with its own table's baseline cell; the
 * manifest as iotape capture writes it (host.kernel.release, host.distro, mounts, labels) */
static json_t *captured(double mbps, const char *distro, const char *fs, const char *bs)
{
	json_t *s = summary(mbps, 1, NULL, NULL);

	json_object_set_new(
	    s, "manifest",
	    json_pack("{s:{s:{s:s},s:{s:s,s:s}},s:{s:s},s:[{s:s,s:I,s:I,s:[{s:s}]}]}", "host",
	              "kernel", "release", "6.1.0", "distro", "id", distro, "version_id", "12",
	              "labels", "bs", bs, "devices", "name", "sda", "major", (json_int_t)8, "minor",
	              (json_int_t)0, "mounts", "fstype", fs));
	return s;
}

static void test_tables(void **state)
{
	struct compare c;
	struct iot_err e;
	struct compare_opts o = {
	    .rows = "distro", .cols = "filesystem", .tables = "bs", .baseline = "debian 12 / xfs"};
	int m;

	(void)state;
	compare_init(&c);
	add(&c, "a", captured(100, "debian", "ext4", "4k"), NULL);
	add(&c, "b", captured(50, "debian", "xfs", "4k"), NULL);
	add(&c, "c", captured(400, "debian", "ext4", "1m"), NULL);
	add(&c, "d", captured(200, "debian", "xfs", "1m"), NULL);
	assert_int_equal(compare_add_rule(&c, "mbps>+50%", &e), 0);
	assert_int_equal(compare_finish(&c, &o, &e), 0);
	assert_int_equal(c.ngroups, 4);
	assert_string_equal(c.group[0].label, "4k / debian 12 / ext4");
	assert_string_equal(c.group[0].tabv, "4k");
	assert_string_equal(c.group[0].colv, "ext4");
	/* each table's xfs cell is its baseline: +100 % in both, never against the other size */
	assert_int_equal(c.group[0].base, 1);
	assert_int_equal(c.group[2].base, 3);
	m = compare_metric_find(&c, "mbps");
	NEAR(c.group[0].cell[m].change_pct, 100, 1e-9);
	NEAR(c.group[2].cell[m].change_pct, 100, 1e-9);
	assert_true(isnan(c.group[3].cell[m].change_pct));
	assert_int_equal(c.nfailed, 2);
	compare_release(&c);
}

/* Summaries and manifests of the wrong shape are read leniently: missing numbers are missing
 * (NaN, "-"), never a crash or a zero. */
static void test_malformed(void **state)
{
	static const char *const docs[] = {
	    "{\"devices\": \"x\", \"nfs\": 3}",
	    "{\"devices\": [1, \"a\", null, {}], \"span_ns\": \"1\"}",
	    "{\"devices\": [{\"dev\": 5, \"reads\": 3, \"idle\": {\"longest\": {}}}]}",
	    "{\"devices\": [{\"idle\": {\"longest\": [\"x\", {\"start_ns\": 1}]}}],"
	    " \"manifest\": {\"devices\": 7, \"host\": [1], \"kernel\": {\"release\": 6}}}",
	    "{\"nfs\": {\"procedures\": [1, {\"name\": 3}, {\"name\": \"READ\", \"calls\": 1,"
	    " \"version\": {\"x\": 1}, \"srt_ns\": []}]}}",
	    "{\"devices\": [], \"manifest\": {\"devices\": [{\"name\": \"sda\", \"mounts\":"
	    " [{\"fstype\": [\"ext4\"]}]}], \"distro\": {\"id\": 1, \"version_id\": \"2\"}}}",
	};
	struct compare c;
	struct iot_err e;
	struct memtext m;
	char *buf;

	(void)state;
	compare_init(&c);
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		json_error_t je;
		json_t *j = json_loads(docs[i], 0, &je);

		assert_non_null(j);
		compare_add(&c, "x", j, NULL, NULL, &e);
		json_decref(j);
	}
	assert_int_equal(compare_add(&c, "y", NULL, NULL, NULL, &e), -EINVAL);
	assert_int_equal(compare_finish(&c, NULL, &e), 0);
	memtext_start(&m);
	for (int fmt = CMP_FMT_TEXT; fmt <= CMP_FMT_HTML; fmt++)
		assert_int_equal(compare_render(&c, (enum cmp_format)fmt, m.f), 0);
	buf = memtext_end(&m);
	assert_null(strstr(buf, "nan"));
	free(buf);
	compare_release(&c);
}

static void test_csv_quoting(void **state)
{
	struct compare c;
	struct iot_err e;
	struct memtext m;
	char *buf;

	(void)state;
	compare_init(&c);
	add(&c, "a", summary(10, 1, NULL, NULL), "a,\"b\"");
	assert_int_equal(compare_finish(&c, NULL, &e), 0);
	assert_int_equal(compare_render(&c, CMP_FMT_CSV, memtext_start(&m)), 0);
	buf = memtext_end(&m);
	assert_non_null(strstr(buf, "\nmbps,MiB/s,\"a,\"\"b\"\"\",1,10,,10,,,,,,,\n"));
	free(buf);
	compare_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_rule),       cmocka_unit_test(test_groups_and_welch),
	    cmocka_unit_test(test_labels),           cmocka_unit_test(test_matrix_and_render),
	    cmocka_unit_test(test_tables),           cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_csv_quoting),      cmocka_unit_test(test_pooling),
	    cmocka_unit_test(test_devices_of_a_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
