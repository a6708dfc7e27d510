/* SPDX-License-Identifier: MIT */
/* export_find_sets(): the sets `blkparse -i` would be given for a run directory, set or file. */
#include "test_export.h"

#include <errno.h>

#include "export/export.h"

static void touch(const char *name)
{
	FILE *f = fopen(tpath(name), "w");

	assert_non_null(f);
	fputs("x", f);
	fclose(f);
}

/* export_find_sets(run) gives exactly the sets want (tmpdir-relative), in order. */
static void expect(const char *run, const char *const *want, unsigned nwant)
{
	char **sets;
	unsigned n;
	struct iot_err e;

	assert_int_equal(export_find_sets(run, &sets, &n, &e), 0);
	assert_int_equal(n, nwant);
	for (unsigned i = 0; i < n; i++)
		assert_string_equal(sets[i], tpath(want[i]));
	export_free_sets(sets, n);
}

static void test_sets(void **s)
{
	static const char *const both[] = {"a", "b"}, *const b[] = {"b"};
	char **sets;
	unsigned n;
	struct iot_err e;

	(void)s;
	touch("b.blktrace.0");
	touch("b.blktrace.1");
	touch("a.blktrace.0.gz");
	touch("manifest.json");
	touch("notes.txt");
	/* a directory: its sets by name, compressed ones too; other files are not sets */
	expect(tmpdir, both, 2);
	/* a set, or one of its files */
	expect(tpath("b"), b, 1);
	expect(tpath("b.blktrace.1"), b, 1);
	/* a file that is not a set's: blkparse would read it only from a pipe */
	assert_int_equal(export_find_sets(tpath("notes.txt"), &sets, &n, &e), -EINVAL);
	assert_null(sets);
	assert_int_equal(n, 0);
	assert_non_null(strstr(e.msg, "not a per-CPU set"));
	/* nothing by that name */
	assert_true(export_find_sets(tpath("c"), &sets, &n, &e) < 0);
	assert_null(sets);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sets),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown));
}
