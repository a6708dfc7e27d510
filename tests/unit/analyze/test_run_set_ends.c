/* SPDX-License-Identifier: MIT */
/* Unit tests: a run set's NFS calls seen from both ends, from its hosts as run_set_open() opened
 * them (analyze/run_set_ends.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/nfs_ends.h"
#include "analyze/run_set_load.h"

#define SAMPLE(x) IOTAPE_SRCDIR "/samples/" x

/* Two hosts that captured the same calls: every call matched, each host named as the set
 * names it; a host without a capture takes no part. */
static void test_ends(void **s)
{
	const struct run_summaries_host h[3] = {{"a", SAMPLE("nfs/run"), 0, 1000},
	                                        {"b", SAMPLE("ext4"), 0, 0},
	                                        {"c", SAMPLE("nfs/run"), 500, 1000}};
	json_t *warnings = json_array(), *j;
	struct run_set_load l;
	char *text;
	struct nfs_ends *x;
	struct iot_err e;
	uint64_t txns, matched, unmatched;

	(void)s;
	assert_int_equal(run_set_open(&l, h, 3, NULL, warnings, &e), 0);
	assert_non_null(l.capture_path[0]);
	assert_null(l.capture_path[1]);
	assert_int_equal(run_set_ends(&l, h, &x, warnings, &e), 0);
	assert_non_null(x);
	assert_int_equal(json_array_size(warnings), 0);
	assert_true(nfs_ends_ncalls(x) > 0);
	for (unsigned k = 0; k < 2; k++) {
		nfs_ends_host_counts(x, k, &txns, &matched, &unmatched);
		assert_true(txns > 0);
		assert_int_equal(matched, txns);
		assert_int_equal(unmatched, 0);
	}
	assert_non_null(j = nfs_ends_json(x));
	assert_non_null(text = json_dumps(j, 0));
	assert_non_null(strstr(text, "\"c\"")); /* the set's name */
	free(text);
	json_decref(j);
	nfs_ends_free(x);
	run_set_load_release(&l);

	/* one capture alone: nothing to match */
	assert_int_equal(run_set_open(&l, h, 2, NULL, warnings, &e), 0);
	assert_int_equal(run_set_ends(&l, h, &x, warnings, &e), 0);
	assert_null(x);
	run_set_load_release(&l);
	json_decref(warnings);
}

/* A capture that cannot be read is a warning, naming it; the others' calls are still read. */
static void test_bad_capture(void **s)
{
	char dir[] = "/tmp/iotape-ut-setends-XXXXXX", cmd[300];
	const struct run_summaries_host h[2] = {{"a", SAMPLE("nfs/run"), 0, 0}, {"b", dir, 0, 0}};
	json_t *warnings = json_array();
	struct run_set_load l;
	struct nfs_ends *x;
	struct iot_err e;
	uint64_t txns, matched, unmatched;

	(void)s;
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
	         "cp %s/manifest.json %s/ && printf 'not a capture at all, no' >%s/net.pcap",
	         SAMPLE("nfs/run"), dir, dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(run_set_open(&l, h, 2, NULL, warnings, &e), 0);
	assert_int_equal(run_set_ends(&l, h, &x, warnings, &e), 0);
	assert_int_equal(json_array_size(warnings), 1);
	assert_non_null(strstr(json_string_value(json_array_get(warnings, 0)),
	                       "(the calls seen from both ends go without the rest of it)"));
	assert_int_equal(
	    strncmp(json_string_value(json_array_get(warnings, 0)), "'/tmp/iotape-ut-setends-", 24),
	    0);
	assert_non_null(x);
	nfs_ends_host_counts(x, 0, &txns, &matched, &unmatched);
	assert_true(txns > 0);
	assert_int_equal(matched, 0);
	nfs_ends_free(x);
	run_set_load_release(&l);
	json_decref(warnings);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ends),
	    cmocka_unit_test(test_bad_capture),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
