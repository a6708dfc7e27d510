/* SPDX-License-Identifier: MIT */
/* Unit tests: a run set's manifest (runset.json) read back: its hosts, its failed hosts, the set
 * as readers open it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/runset.h"

static void load(void **state)
{
	char dir[] = "/tmp/iotape-ut-runset-XXXXXX", path[128], cmd[160];
	struct runset_host *hs;
	struct iot_err e;
	unsigned n;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(runset_load(dir, &hs, &n, &e), -ENOENT);
	snprintf(path, sizeof(path), "%s/runset.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	/* a run name that leaves the set, and a host with no run, are not taken */
	fputs("{\"kind\": \"iotape-runset\", \"hosts\": ["
	      "{\"name\": \"a\", \"run\": \"a\", \"status\": \"ok\","
	      " \"clock\": {\"offset_ns\": -1500, \"error_ns\": 400}},"
	      "{\"name\": \"b\", \"run\": \"../etc\", \"status\": \"ok\"},"
	      "{\"name\": \"c\", \"run\": null, \"status\": \"failed\"},"
	      "{\"name\": \"d\", \"run\": \"d\", \"status\": \"failed\"},"
	      "{\"name\": \"e\", \"run\": \"e\", \"status\": \"ok\","
	      " \"clock\": {\"offset_ns\": 5, \"error_ns\": -7}}]}",
	      f);
	fclose(f);
	assert_int_equal(runset_load(dir, &hs, &n, &e), 0);
	assert_int_equal(n, 3);
	assert_string_equal(hs[0].name, "a");
	assert_int_equal(hs[0].offset_ns, -1500);
	assert_int_equal(hs[0].error_ns, 400);
	assert_true(hs[0].ok);
	assert_string_equal(hs[1].name, "d");
	assert_false(hs[1].ok);
	assert_int_equal(strcmp(hs[1].run + strlen(dir), "/d"), 0);
	/* an error below 0 (an edited file) is none, not 2^64 - 7 ns that would excuse anything */
	assert_int_equal(hs[2].error_ns, 0);
	runset_hosts_free(hs, n);

	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"kind\": \"something else\", \"hosts\": []}", f);
	fclose(f);
	assert_int_equal(runset_load(dir, &hs, &n, &e), -EINVAL);
	/* the same from the text */
	assert_int_equal(runset_parse("{\"kind\": \"iotape-runset\", \"hosts\": "
	                              "[{\"name\": \"x\", \"run\": \"x\"}]}",
	                              63, "S", &hs, &n, &e),
	                 0);
	assert_int_equal(n, 1);
	assert_string_equal(hs[0].run, "S/x");
	runset_hosts_free(hs, n);
	assert_int_equal(runset_parse("{", 1, "S", &hs, &n, &e), -EINVAL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* A run set as readers take it: the failed host's run left out, every failed host named with
 * its reason; none whole: -ENODATA, the failed hosts still there to be named. */
static void open_set(void **state)
{
	char dir[] = "/tmp/iotape-ut-runset-XXXXXX", path[128], cmd[160];
	struct runset rs;
	struct iot_err e;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(runset_open(dir, &rs, &e), -ENOENT);
	assert_null(rs.h);
	snprintf(path, sizeof(path), "%s/runset.json", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("{\"kind\": \"iotape-runset\", \"hosts\": ["
	      "{\"name\": \"a\", \"run\": \"a\", \"status\": \"ok\","
	      " \"clock\": {\"offset_ns\": -1500, \"error_ns\": 400}},"
	      "{\"name\": \"c\", \"run\": null, \"status\": \"failed\", \"reason\": \"no ssh\"},"
	      "{\"name\": \"d\", \"run\": \"d\", \"status\": \"failed\", \"reason\": \"killed\"},"
	      "{\"name\": \"x\", \"run\": \"../x\", \"status\": \"failed\"},"
	      "{\"name\": \"e\", \"run\": \"e\", \"status\": \"ok\"}]}",
	      f);
	fclose(f);
	assert_int_equal(runset_open(dir, &rs, &e), 0);
	assert_int_equal(rs.n, 2);
	assert_string_equal(rs.h[0].name, "a");
	assert_int_equal(rs.h[0].offset_ns, -1500);
	assert_string_equal(rs.h[1].name, "e");
	assert_int_equal(rs.nf, 3);
	assert_string_equal(rs.f[0].name, "c");
	assert_string_equal(rs.f[0].reason, "no ssh");
	assert_false(rs.f[0].have_run);
	assert_string_equal(rs.f[1].name, "d");
	assert_string_equal(rs.f[1].reason, "killed");
	assert_true(rs.f[1].have_run);
	/* a run out of the set is none (runset_load() does not take it either) */
	assert_string_equal(rs.f[2].name, "x");
	assert_string_equal(rs.f[2].reason, "no reason given");
	assert_false(rs.f[2].have_run);
	runset_release(&rs);
	assert_null(rs.h);

	assert_non_null(f = fopen(path, "w"));
	fputs("{\"kind\": \"iotape-runset\", \"hosts\": ["
	      "{\"name\": \"d\", \"run\": \"d\", \"status\": \"failed\", \"reason\": \"killed\"}]}",
	      f);
	fclose(f);
	assert_int_equal(runset_open(dir, &rs, &e), -ENODATA);
	assert_non_null(strstr(e.msg, "no host brought a whole run back"));
	assert_int_equal(rs.n, 0);
	assert_int_equal(rs.nf, 1);
	assert_string_equal(rs.f[0].name, "d");
	runset_release(&rs);

	assert_non_null(f = fopen(path, "w"));
	fputs("{\"kind\": \"other\", \"hosts\": []}", f);
	fclose(f);
	assert_int_equal(runset_open(dir, &rs, &e), -EINVAL);
	assert_null(rs.h);
	assert_null(rs.f);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(load),
	    cmocka_unit_test(open_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
