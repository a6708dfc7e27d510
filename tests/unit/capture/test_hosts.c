/* SPDX-License-Identifier: MIT */
/* Unit tests: --host DEST[:DEV,DEV...][:IFACE] parsing (formats/test_runset.c reads runset.json).
 */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(parse_ok),
	    cmocka_unit_test(parse_bad),
	    cmocka_unit_test(parse_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
