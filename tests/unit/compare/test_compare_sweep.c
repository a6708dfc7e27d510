/* SPDX-License-Identifier: MIT */
/* Tests for compare/compare_sweep.c: sweep runs with parameters and numbers of their own,
 * groups by cell, --baseline NAME=V, --metrics, PASS/FAIL per matrix cell. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/units.h"
#include "compare/compare.h"

#include "../memtext.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

/* The copy-size x method sweep of the server-side-copy seed, two runs per cell: time in
 * seconds; ssc is slower for small sizes and faster for large ones. */
static const struct {
	const char *size, *method;
	double t[2];
} runs[] = {
    {"1k", "trad", {0.030, 0.034}}, {"1k", "ssc", {0.100, 0.108}},  {"16m", "trad", {0.500, 0.512}},
    {"16m", "ssc", {0.450, 0.461}}, {"128m", "trad", {3.30, 3.39}}, {"128m", "ssc", {2.20, 2.25}},
};

static void load(struct compare *c)
{
	struct iot_err e;

	compare_init(c);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		for (int k = 0; k < 2; k++) {
			json_t *p =
			    json_pack("{s:s, s:s}", "size", runs[i].size, "method", runs[i].method);
			json_t *m = json_pack("{s:f, s:f}", "copy_s", runs[i].t[k], "wall_s",
			                      runs[i].t[k] + 0.01);
			char path[64];

			snprintf(path, sizeof(path), "sw/size=%s/method=%s/rep-%d", runs[i].size,
			         runs[i].method, k + 1);
			assert_int_equal(compare_add_run(c, path, NULL, NULL, p, m, &e), 0);
			json_decref(p);
			json_decref(m);
		}
	}
}

static const struct cmp_group *group(const struct compare *c, const char *label)
{
	for (size_t g = 0; g < c->ngroups; g++)
		if (!strcmp(c->group[g].label, label))
			return &c->group[g];
	fail_msg("no group '%s'", label);
	return NULL;
}

/* The finished compare as text (free it). */
static char *render_text(const struct compare *c)
{
	struct memtext m;

	assert_int_equal(compare_render(c, CMP_FMT_TEXT, memtext_start(&m)), 0);
	return memtext_end(&m);
}

/* Without options: one group per cell, named by its parameters, both runs in it. */
static void test_cells(void **state)
{
	struct compare c;
	struct iot_err e;
	int m;

	(void)state;
	load(&c);
	assert_int_equal(compare_finish(&c, NULL, &e), 0);
	assert_int_equal(c.ngroups, 6);
	assert_int_equal(c.nruns, 12);
	m = compare_metric_find(&c, "copy_s");
	assert_true(m >= 0);
	NEAR(group(&c, "size=16m / method=ssc")->cell[m].s.mean, 0.4555, 1e-9);
	assert_int_equal(group(&c, "size=16m / method=ssc")->cell[m].s.n, 2);
	/* wall_s has its title and unit; the command's own number is shown as it is */
	m = compare_metric_find(&c, "wall_s");
	assert_string_equal(c.metric[m].title, "wall time");
	assert_string_equal(c.metric[m].unit, "s");
	compare_release(&c);
}

/* --rows size --cols method --baseline method=trad --fail-if 'copy_s>0%': each size's ssc
 * against that size's trad, PASS or FAIL in every ssc cell, as the seed's run printed it. */
static void test_param_baseline(void **state)
{
	struct compare_opts o = {.rows = "size", .cols = "method", .baseline = "method=trad"};
	struct compare c;
	struct iot_err e;
	char *out;
	int m;

	(void)state;
	load(&c);
	assert_int_equal(compare_add_rule(&c, "copy_s>0%", &e), 0);
	assert_int_equal(compare_finish(&c, &o, &e), 0);
	assert_true(c.param_base);
	m = compare_metric_find(&c, "copy_s");
	NEAR(group(&c, "1k / ssc")->cell[m].change_pct, (0.104 - 0.032) / 0.032 * 100, 1e-6);
	NEAR(group(&c, "128m / ssc")->cell[m].change_pct, (2.225 - 3.345) / 3.345 * 100, 1e-6);
	assert_int_equal(group(&c, "1k / ssc")->cell[m].result, CMP_FAIL);
	assert_int_equal(group(&c, "16m / ssc")->cell[m].result, CMP_PASS);
	assert_int_equal(group(&c, "128m / ssc")->cell[m].result, CMP_PASS);
	assert_int_equal(c.nfailed, 1);
	/* every trad cell is a baseline of its own row */
	assert_string_equal(c.group[group(&c, "16m / trad")->base].label, "16m / trad");
	assert_string_equal(c.group[group(&c, "16m / ssc")->base].label, "16m / trad");
	out = render_text(&c);
	assert_non_null(strstr(out, "(+225.0%) FAIL"));
	assert_non_null(strstr(out, "(-33.5%) PASS"));
	assert_non_null(strstr(out, "the group with method=trad and the same other values"));
	free(out);
	compare_release(&c);

	/* a baseline value no cell has, and a NAME that does not group: errors */
	load(&c);
	o.baseline = "method=none";
	assert_int_equal(compare_finish(&c, &o, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "no group has method 'none'"));
	compare_release(&c);
	load(&c);
	o.baseline = "kernel=6.1";
	assert_int_equal(compare_finish(&c, &o, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "no such group"));
	compare_release(&c);
}

/* --metrics: only those; an unknown one is an error */
static void test_metrics_filter(void **state)
{
	struct compare_opts o = {.rows = "size", .cols = "method", .metrics = "wall_s"};
	struct compare c;
	struct iot_err e;
	char *out;

	(void)state;
	load(&c);
	assert_int_equal(compare_finish(&c, &o, &e), 0);
	out = render_text(&c);
	assert_non_null(strstr(out, "wall time (s)"));
	assert_null(strstr(out, "copy_s"));
	free(out);
	compare_release(&c);
	load(&c);
	o.metrics = "wall_s,nosuch";
	assert_int_equal(compare_finish(&c, &o, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "nosuch"));
	compare_release(&c);
}

/* A metric's unit (--metric NAME:UNIT=...): bytes per second shown in MiB/s, in its column's
 * unit; another unit as it is; a unit for one of iotape's own names is refused. */
static void test_metric_unit(void **state)
{
	json_t *p = json_pack("{s:s}", "fs", "ext4");
	json_t *m = json_pack("{s:f,s:f}", "bw", 3 * IOT_MIB, "t", 2.5);
	struct compare c;
	struct iot_err e;
	int k;

	(void)state;
	compare_init(&c);
	assert_int_equal(compare_sweep_unit(&c, "bw", "B/s", &e), 0);
	assert_int_equal(compare_sweep_unit(&c, "t", "s", &e), 0);
	assert_int_equal(compare_add_run(&c, "r", NULL, NULL, p, m, &e), 0);
	assert_int_equal(compare_finish(&c, NULL, &e), 0);
	k = compare_metric_find(&c, "bw");
	assert_string_equal(c.metric[k].unit, "MiB/s");
	assert_true(fabs(c.group[0].cell[k].s.mean - 3) < 1e-12);
	k = compare_metric_find(&c, "t");
	assert_string_equal(c.metric[k].unit, "s");
	assert_true(fabs(c.group[0].cell[k].s.mean - 2.5) < 1e-12);
	assert_int_equal(compare_sweep_unit(&c, "mbps", "B/s", &e), -EINVAL);
	compare_release(&c);
	json_decref(p);
	json_decref(m);
}

/* A run with a trace: block metrics per device, the run's own numbers once per run. */
static void test_with_summary(void **state)
{
	json_t *s =
	    json_pack("{s:I, s:[{s:s, s:{s:f,s:f}}, {s:s, s:{s:f,s:f}}]}", "span_ns",
	              (json_int_t)1000000000, "devices", "dev", "7,0", "throughput", "mbps", 4.0,
	              "iops", 10.0, "dev", "7,1", "throughput", "mbps", 2.0, "iops", 10.0);
	json_t *p = json_pack("{s:s}", "fs", "ext4"), *m = json_pack("{s:f}", "bw", 42.0);
	struct compare c;
	struct iot_err e;
	int k;

	(void)state;
	compare_init(&c);
	assert_int_equal(compare_add_run(&c, "r", s, NULL, p, m, &e), 0);
	assert_int_equal(c.nsamples, 2);
	assert_int_equal(compare_finish(&c, NULL, &e), 0);
	k = compare_metric_find(&c, "bw");
	assert_int_equal(c.group[0].cell[k].s.n, 1);
	/* a run, not its two devices: one sample of the run's MiB/s (4 + 2 MB/s), no interval, no
	 * latency of several devices (issue #23 item 5: "4.90 +- 7.56" for one run) */
	assert_int_equal(c.group[0].cell[compare_metric_find(&c, "mbps")].s.n, 1);
	assert_true(fabs(c.group[0].cell[compare_metric_find(&c, "mbps")].s.mean - 6e6 / IOT_MIB) <
	            1e-12);
	assert_true(isnan(c.group[0].cell[compare_metric_find(&c, "mbps")].s.ci_lo));
	assert_int_equal(c.merged, 1);
	assert_int_equal(c.merged_devices, 2);
	compare_release(&c);
	/* a metric with the name of one of iotape's own is refused */
	compare_init(&c);
	json_object_set_new(m, "mbps", json_real(1));
	assert_int_equal(compare_add_run(&c, "r", s, NULL, p, m, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "mbps"));
	compare_release(&c);
	json_decref(s);
	json_decref(p);
	json_decref(m);
}

/* The Ceph seed's table: rows distro and version together, columns the filesystem, a table
 * per request size (--rows version,distro --cols fs --tables bs); MB/s = 10*bs + fs + row. */
static void load_ceph(struct compare *c)
{
	static const char *bs[] = {"4k", "128k"}, *ver[] = {"0.46", "0.47.2"},
	                  *distro[] = {"oneiric", "precise"}, *fs[] = {"btrfs", "ext4", "xfs"};
	struct iot_err e;

	compare_init(c);
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 2; b++)
			for (int d = 0; d < 2; d++)
				for (int f = 0; f < 3; f++) {
					json_t *p = json_pack("{s:s, s:s, s:s, s:s}", "bs", bs[a],
					                      "version", ver[b], "distro",
					                      distro[d], "fs", fs[f]);
					json_t *m = json_pack("{s:f}", "bw",
					                      10.0 * a + f + 0.1 * (2 * b + d));

					assert_int_equal(
					    compare_add_run(c, "r", NULL, NULL, p, m, &e), 0);
					json_decref(p);
					json_decref(m);
				}
}

/* compare_finish() of the Ceph runs with layout o: the error with text want, or (NULL) a
 * group per cell. */
static void ceph_layout(struct compare_opts o, const char *want)
{
	struct compare c;
	struct iot_err e;

	load_ceph(&c);
	if (want) {
		assert_int_equal(compare_finish(&c, &o, &e), -EINVAL);
		assert_non_null(strstr(e.msg, want));
	} else {
		assert_int_equal(compare_finish(&c, &o, &e), 0);
		assert_int_equal(c.ngroups, 24);
	}
	compare_release(&c);
}

static void test_rows_of_two_params(void **state)
{
	struct compare_opts o = {.rows = "version,distro", .cols = "fs", .tables = "bs"};
	struct compare c;
	struct iot_err e;
	char *out;
	int m;

	(void)state;
	load_ceph(&c);
	assert_int_equal(compare_finish(&c, &o, &e), 0);
	assert_int_equal(c.ngroups, 24);
	m = compare_metric_find(&c, "bw");
	NEAR(group(&c, "128k / 0.47.2 / oneiric / xfs")->cell[m].s.mean, 12.2, 1e-9);
	assert_string_equal(group(&c, "128k / 0.47.2 / oneiric / xfs")->rowv, "0.47.2 / oneiric");
	out = render_text(&c);
	assert_non_null(strstr(out, "== bs = 128k =="));
	assert_non_null(strstr(out, "version, distro \\ fs"));
	assert_non_null(strstr(out, "\n0.47.2 / precise  "));
	/* each table is compared with its own first cell, and the footer says so */
	assert_non_null(strstr(out, "baseline: 0.46 / oneiric / btrfs, in each table;"));
	free(out);
	compare_release(&c);

	/* --baseline NAME=V with a row of two parameters: each row's xfs cell */
	load_ceph(&c);
	o.baseline = "fs=xfs";
	assert_int_equal(compare_finish(&c, &o, &e), 0);
	assert_string_equal(c.group[group(&c, "4k / 0.46 / precise / ext4")->base].label,
	                    "4k / 0.46 / precise / xfs");
	compare_release(&c);

	/* a key no run has is an error, not one cell of '?' that pools every run */
	ceph_layout((struct compare_opts){.rows = "version,nosuch", .cols = "fs", .tables = "bs"},
	            "--rows: no run has 'nosuch'");
	/* a parameter that varies and is in no part of the layout would pool its cells */
	ceph_layout((struct compare_opts){.rows = "version", .cols = "fs", .tables = "bs"},
	            "parameter 'distro' has more than one value");
	ceph_layout((struct compare_opts){.by = "bs,version,fs"}, "'distro' has");
	/* the labels name every parameter: a group per cell */
	ceph_layout((struct compare_opts){.rows = "label", .cols = "fs"}, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cells),          cmocka_unit_test(test_param_baseline),
	    cmocka_unit_test(test_metrics_filter), cmocka_unit_test(test_with_summary),
	    cmocka_unit_test(test_metric_unit),    cmocka_unit_test(test_rows_of_two_params),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
