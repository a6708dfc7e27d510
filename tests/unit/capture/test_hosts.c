/* SPDX-License-Identifier: MIT */
/* Unit tests: --host DEST[:DEV,DEV...][:IFACE] parsing, and reading a run set's manifest. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/hosts.h"

static void parse_ok(void **state)
{
	struct caph_host h;
	struct iot_err e;
	char buf[64];

	(void)state;
	assert_int_equal(caph_parse("osd1:/dev/sdb,/dev/sdc:eth0", &h, &e), 0);
	assert_string_equal(h.dest, "osd1");
	assert_int_equal(h.ndevs, 2);
	assert_string_equal(h.devs[0], "/dev/sdb");
	assert_string_equal(h.devs[1], "/dev/sdc");
	assert_string_equal(h.iface, "eth0");
	assert_string_equal(caph_dir_name(&h, buf, sizeof(buf)), "osd1");
	caph_host_free(&h);

	/* packets only; NAME=DEV kept whole for the remote -d; user@host */
	assert_int_equal(caph_parse("root@n2::veth0", &h, &e), 0);
	assert_string_equal(h.dest, "root@n2");
	assert_int_equal(h.ndevs, 0);
	assert_string_equal(h.iface, "veth0");
	caph_host_free(&h);
	assert_int_equal(caph_parse("n3:data=/dev/vdb", &h, &e), 0);
	assert_int_equal(h.ndevs, 1);
	assert_string_equal(h.devs[0], "data=/dev/vdb");
	assert_null(h.iface);
	caph_host_free(&h);
}

static void parse_bad(void **state)
{
	static const char *const bad[] = {
	    "osd1",                      /* nothing to capture */
	    "osd1::",                    /* nor here */
	    ":/dev/sdb",                 /* no destination */
	    "-oProxyCommand=x:/dev/sdb", /* an ssh option, not a destination */
	    "a/b:/dev/sdb",              /* not a directory name in the set */
	    "osd1:/dev/sdb:eth0:x",      /* one interface */
	};
	struct caph_host h;
	struct iot_err e;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		e.msg[0] = 0;
		assert_int_equal(caph_parse(bad[i], &h, &e), -EINVAL);
		assert_non_null(strstr(e.msg, "--host"));
		assert_null(h.spec);
	}
}

static void parse_file(void **state)
{
	char path[] = "/tmp/iotape-ut-hosts-XXXXXX";
	struct caph_host h[3];
	struct iot_err e;
	unsigned n = 0;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	(void)state;
	assert_non_null(f);
	fputs("# the OSD hosts\n\n  osd1:/dev/sdb,/dev/sdc:eth0  \r\n\tosd2::eth0\n", f);
	fclose(f);
	assert_int_equal(caph_parse_file(path, h, 3, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_string_equal(h[0].dest, "osd1");
	assert_int_equal(h[0].ndevs, 2);
	assert_string_equal(h[0].iface, "eth0");
	assert_string_equal(h[1].dest, "osd2");
	assert_string_equal(h[1].iface, "eth0");
	/* past max; a bad line named by its number, the hosts before it kept */
	assert_int_equal(caph_parse_file(path, h, 3, &n, &e), -EINVAL);
	assert_int_equal(n, 3);
	assert_non_null(strstr(e.msg, ":4: more than 3 hosts"));
	for (unsigned i = 0; i < n; i++)
		caph_host_free(&h[i]);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("osd1:/dev/sdb\nosd2\n", f);
	fclose(f);
	n = 0;
	assert_int_equal(caph_parse_file(path, h, 3, &n, &e), -EINVAL);
	assert_int_equal(n, 1);
	assert_non_null(strstr(e.msg, ":2: --host 'osd2': nothing to capture"));
	caph_host_free(&h[0]);
	unlink(path);
	assert_int_equal(caph_parse_file(path, h, 3, &n, &e), -ENOENT);
}

static void runset_load(void **state)
{
	char dir[] = "/tmp/iotape-ut-runset-XXXXXX", path[128], cmd[160];
	struct caph_runset_host *hs;
	struct iot_err e;
	unsigned n;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(caph_runset_load(dir, &hs, &n, &e), -ENOENT);
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
	assert_int_equal(caph_runset_load(dir, &hs, &n, &e), 0);
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
	caph_runset_free(hs, n);

	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"kind\": \"something else\", \"hosts\": []}", f);
	fclose(f);
	assert_int_equal(caph_runset_load(dir, &hs, &n, &e), -EINVAL);
	/* the same from the text */
	assert_int_equal(caph_runset_parse("{\"kind\": \"iotape-runset\", \"hosts\": "
	                                   "[{\"name\": \"x\", \"run\": \"x\"}]}",
	                                   63, "S", &hs, &n, &e),
	                 0);
	assert_int_equal(n, 1);
	assert_string_equal(hs[0].run, "S/x");
	caph_runset_free(hs, n);
	assert_int_equal(caph_runset_parse("{", 1, "S", &hs, &n, &e), -EINVAL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* A run set as readers take it: the failed host's run left out, every failed host named with
 * its reason; none whole: -ENODATA, the failed hosts still there to be named. */
static void runset_open(void **state)
{
	char dir[] = "/tmp/iotape-ut-runset-XXXXXX", path[128], cmd[160];
	struct caph_runset rs;
	struct iot_err e;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(caph_runset_open(dir, &rs, &e), -ENOENT);
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
	assert_int_equal(caph_runset_open(dir, &rs, &e), 0);
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
	/* a run out of the set is none (caph_runset_load() does not take it either) */
	assert_string_equal(rs.f[2].name, "x");
	assert_string_equal(rs.f[2].reason, "no reason given");
	assert_false(rs.f[2].have_run);
	caph_runset_release(&rs);
	assert_null(rs.h);

	assert_non_null(f = fopen(path, "w"));
	fputs("{\"kind\": \"iotape-runset\", \"hosts\": ["
	      "{\"name\": \"d\", \"run\": \"d\", \"status\": \"failed\", \"reason\": \"killed\"}]}",
	      f);
	fclose(f);
	assert_int_equal(caph_runset_open(dir, &rs, &e), -ENODATA);
	assert_non_null(strstr(e.msg, "no host brought a whole run back"));
	assert_int_equal(rs.n, 0);
	assert_int_equal(rs.nf, 1);
	assert_string_equal(rs.f[0].name, "d");
	caph_runset_release(&rs);

	assert_non_null(f = fopen(path, "w"));
	fputs("{\"kind\": \"other\", \"hosts\": []}", f);
	fclose(f);
	assert_int_equal(caph_runset_open(dir, &rs, &e), -EINVAL);
	assert_null(rs.h);
	assert_null(rs.f);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(parse_ok),    cmocka_unit_test(parse_bad),
	    cmocka_unit_test(parse_file),  cmocka_unit_test(runset_load),
	    cmocka_unit_test(runset_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
