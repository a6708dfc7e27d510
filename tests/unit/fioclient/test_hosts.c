/* SPDX-License-Identifier: MIT */
/* Unit tests: --fio-client HOST[:PORT]=TARGET slots and hosts files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fioclient/fioclient.h"

static void test_slot(void **state)
{
	struct fc_slot s;
	struct iot_err e;
	char name[64];

	(void)state;
	assert_int_equal(fc_slot_parse(&s, "osd1=/dev/sdb", &e), 0);
	assert_string_equal(s.host, "osd1");
	assert_int_equal(s.port, FC_DEFAULT_PORT);
	assert_string_equal(s.target, "/dev/sdb");
	assert_string_equal(fc_slot_name(&s, name, sizeof(name)), "osd1:8765");
	fc_slot_release(&s);
	assert_int_equal(fc_slot_parse(&s, "10.0.0.5:8766=/dev/nvme0n1", &e), 0);
	assert_string_equal(s.host, "10.0.0.5");
	assert_int_equal(s.port, 8766);
	fc_slot_release(&s);
	assert_int_equal(fc_slot_parse(&s, "[::1]:9000=/tmp/a=b", &e), 0);
	assert_string_equal(s.host, "::1");
	assert_int_equal(s.port, 9000);
	assert_string_equal(s.target, "/tmp/a=b");
	assert_string_equal(fc_slot_name(&s, name, sizeof(name)), "[::1]:9000");
	assert_true(fc_host_is_local(s.host));
	fc_slot_release(&s);
	assert_int_equal(fc_slot_parse(&s, "[fe80::1]=/x", &e), 0);
	assert_int_equal(s.port, FC_DEFAULT_PORT);
	fc_slot_release(&s);
	/* refused */
	assert_int_equal(fc_slot_parse(&s, "host", &e), -EINVAL);
	assert_int_equal(fc_slot_parse(&s, "host=", &e), -EINVAL);
	assert_int_equal(fc_slot_parse(&s, "=/x", &e), -EINVAL);
	assert_int_equal(fc_slot_parse(&s, "h:0=/x", &e), -EINVAL);
	assert_int_equal(fc_slot_parse(&s, "h:65536=/x", &e), -EINVAL);
	assert_int_equal(fc_slot_parse(&s, "h:80a=/x", &e), -EINVAL);
	assert_int_equal(fc_slot_parse(&s, "::1:8765=/x", &e), -EINVAL);
	assert_int_equal(fc_slot_parse(&s, "[::1=/x", &e), -EINVAL);
	assert_int_equal(fc_slot_parse(&s, "[::1]x=/x", &e), -EINVAL);
	assert_true(fc_host_is_local("localhost"));
	assert_true(fc_host_is_local("127.0.0.2"));
	assert_false(fc_host_is_local("10.0.0.1"));
}

static int dev_of(const char *s, uint32_t *dev, struct iot_err *e)
{
	unsigned ma, mi;

	if (sscanf(s, "%u,%u", &ma, &mi) != 2)
		return iot_err_set(e, -EINVAL, "'%s' is not MAJ,MIN", s);
	*dev = BLK_MKDEV(ma, mi);
	return 0;
}

static void test_hosts_file(void **state)
{
	char path[] = "/tmp/iotape-test-hosts-XXXXXX";
	struct fc_slot *slots = NULL;
	struct fc_map *maps = NULL;
	unsigned ns = 0, nm = 0;
	struct iot_err e;
	FILE *f;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs("# hosts\n\nosd1=/dev/sdb 8,16 8,32  # two devices\n  osd2:8766=/dev/sdc\n", f);
	fclose(f);
	assert_int_equal(fc_hosts_file(path, &slots, &ns, &maps, &nm, dev_of, &e), 0);
	assert_int_equal(ns, 2);
	assert_int_equal(nm, 2);
	assert_string_equal(slots[1].host, "osd2");
	assert_int_equal(slots[1].port, 8766);
	assert_int_equal(maps[0].dev, BLK_MKDEV(8, 16));
	assert_int_equal(maps[1].slot, 0);
	for (unsigned i = 0; i < ns; i++)
		fc_slot_release(&slots[i]);
	free(slots);
	free(maps);

	/* a bad line names the file and the line; an empty file has no hosts */
	f = fopen(path, "w");
	fputs("osd1=/dev/sdb\nosd2:x=/dev/sdc\n", f);
	fclose(f);
	slots = NULL, maps = NULL, ns = nm = 0;
	assert_int_equal(fc_hosts_file(path, &slots, &ns, &maps, &nm, dev_of, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "line 2"));
	for (unsigned i = 0; i < ns; i++)
		fc_slot_release(&slots[i]);
	free(slots);
	free(maps);
	f = fopen(path, "w");
	fputs("# nothing\n", f);
	fclose(f);
	slots = NULL, maps = NULL, ns = nm = 0;
	assert_int_equal(fc_hosts_file(path, &slots, &ns, &maps, &nm, dev_of, &e), -EINVAL);
	f = fopen(path, "w");
	fputs("osd1=/dev/sdb nodev\n", f);
	fclose(f);
	assert_int_equal(fc_hosts_file(path, &slots, &ns, &maps, &nm, dev_of, &e), -EINVAL);
	for (unsigned i = 0; i < ns; i++)
		fc_slot_release(&slots[i]);
	free(slots);
	free(maps);
	unlink(path);
	assert_int_equal(fc_hosts_file("/nonexistent/hosts", &slots, &ns, &maps, &nm, dev_of, &e),
	                 -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_slot),
	    cmocka_unit_test(test_hosts_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
