/* SPDX-License-Identifier: MIT */
/* Unit tests for report/sweep_page.c: a sweep's page built from its loaded runs, and written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>

#include <cmocka.h>

#include "report/sweep_page.h"
#include "../sweep_fixture.h"
#include "../tmpdir.h"

static void load(struct sweep_runs *s, const char *name, char *dir, size_t cap)
{
	struct iot_err e = {""};

	snprintf(dir, cap, "%s/%s", tmpdir, name);
	make_sweep(dir);
	assert_int_equal(sweep_runs_load(s, dir, no_load, NULL, &e), 0);
}

static int svg_count(void *ctx, const char *name, const char *svg, size_t len)
{
	(void)name;
	assert_non_null(strstr(svg, "<svg"));
	assert_true(len > 0);
	(*(unsigned *)ctx)++;
	return 0;
}

/* The page's figures are the sweep's: its counts, its parameters as numbers, its layout. */
static void test_build(void **state)
{
	struct sweep_runs s;
	struct sweep_page p;
	struct iot_err e = {""};
	unsigned svgs = 0;
	char dir[128];
	struct sweep_page_opts o = {.version = "v1", .svg_out = svg_count, .svg_ctx = &svgs};

	(void)state;
	load(&s, "build", dir, sizeof(dir));
	o.dir = dir;
	assert_int_equal(sweep_page_build(&p, &s, &o, &e), 0);
	assert_false(p.bad_opts);
	assert_string_equal(p.r.title, dir); /* no --title: the directory */
	assert_string_equal(p.r.version, "v1");
	assert_ptr_equal(p.r.definition, s.definition);
	assert_int_equal(p.r.runs_total, 4);
	assert_int_equal(p.r.runs_done, 2);
	assert_int_equal(p.r.runs_failed, 1);
	assert_int_equal(json_array_size(p.r.failed), 1);
	assert_int_equal(p.r.nparams, 2);
	assert_string_equal(p.r.param[0].name, "fs");
	assert_int_equal(p.r.param[0].n, 2);
	assert_string_equal(p.r.param[0].text[1], "xfs");
	assert_true(isnan(p.r.param[0].num[0]));
	assert_string_equal(p.r.param[1].text[1], "64k");
	assert_true(p.r.param[1].num[1] == 65536.0);
	assert_true(p.r.param[1].log);
	/* the default layout: rows fs, columns bs; the cells one group per done cell */
	assert_ptr_equal(p.r.table, &p.table);
	assert_ptr_equal(p.r.cells, &p.cells);
	assert_string_equal(p.table.opts.rows, "fs");
	assert_string_equal(p.table.opts.cols, "bs");
	assert_int_equal(p.cells.ngroups, 2);
	assert_int_equal(p.table.nfailed, 0);
	/* the page, beside and renamed; the graphs through svg_out */
	snprintf(dir, sizeof(dir), "%s/page.html", tmpdir);
	assert_int_equal(sweep_page_write(&p, dir, &e), 0);
	{
		FILE *f = fopen(dir, "r");
		char head[64] = "";

		assert_non_null(f);
		assert_non_null(fgets(head, sizeof(head), f));
		fclose(f);
		assert_non_null(strstr(head, "<!DOCTYPE html>"));
	}
	assert_true(svgs > 0);
	sweep_page_release(&p);
	sweep_runs_release(&s);
}

/* A title given and a rule crossed: the groups that crossed it counted for the exit status. */
static void test_rules(void **state)
{
	struct sweep_runs s;
	struct sweep_page p;
	struct iot_err e = {""};
	char dir[128];
	char *rules[] = {"bw<15"};
	struct sweep_page_opts o = {.title = "T", .rules = rules, .nrules = 1};

	(void)state;
	load(&s, "rules", dir, sizeof(dir));
	o.dir = dir;
	assert_int_equal(sweep_page_build(&p, &s, &o, &e), 0);
	assert_string_equal(p.r.title, "T");
	assert_null(p.r.svg_out);
	assert_int_equal(p.table.nfailed, 1);
	sweep_page_release(&p);
	sweep_runs_release(&s);
}

/* The options at fault say so (the command prints its usage); no page is written where the
 * directory is missing, and nothing is left beside it. */
static void test_errors(void **state)
{
	struct sweep_runs s;
	struct sweep_page p;
	struct iot_err e = {""};
	char dir[128], out[160];
	char *bad[] = {"bw<<"};
	struct sweep_page_opts o = {.rules = bad, .nrules = 1};

	(void)state;
	load(&s, "errors", dir, sizeof(dir));
	o.dir = dir;
	assert_int_equal(sweep_page_build(&p, &s, &o, &e), -EINVAL);
	assert_true(p.bad_opts);
	assert_non_null(strstr(e.msg, "--fail-if: "));
	sweep_page_release(&p);
	o.nrules = 0;
	o.co.rows = "nosuchparam";
	assert_int_not_equal(sweep_page_build(&p, &s, &o, &e), 0);
	assert_true(p.bad_opts);
	sweep_page_release(&p);
	o.co.rows = NULL;
	assert_int_equal(sweep_page_build(&p, &s, &o, &e), 0);
	snprintf(out, sizeof(out), "%s/missing/page.html", tmpdir);
	assert_int_equal(sweep_page_write(&p, out, &e), -ENOENT);
	sweep_page_release(&p);
	sweep_runs_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_build),
	    cmocka_unit_test(test_rules),
	    cmocka_unit_test(test_errors),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown));
}
