/* SPDX-License-Identifier: MIT */
/* Unit tests: device facts from a hand-built sysfs tree, mountinfo parsing, small helpers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/cap_int.h"
#include "test_sysroot.h"
#include "formats/blkevent.h"

static int setup(void **state)
{
	if (tmpdir_setup(state))
		return -1;
	/* a loop device: whole disk, its own queue */
	put("sys/devices/virtual/block/loop3/size", "2097152\n");
	put("sys/devices/virtual/block/loop3/queue/logical_block_size", "4096\n");
	put("sys/devices/virtual/block/loop3/queue/rotational", "0\n");
	put("sys/devices/virtual/block/loop3/queue/scheduler", "none [mq-deadline] kyber bfq\n");
	put("sys/devices/virtual/block/loop3/loop/backing_file", "/tmp/disk.img\n");
	link_to("sys/dev/block/7:3", "../../devices/virtual/block/loop3");
	/* a partition: the queue and model are the parent disk's */
	put("sys/devices/pci0000:00/virtio1/block/vda/queue/logical_block_size", "512\n");
	put("sys/devices/pci0000:00/virtio1/block/vda/queue/rotational", "1\n");
	put("sys/devices/pci0000:00/virtio1/block/vda/queue/scheduler", "[none] mq-deadline\n");
	put("sys/devices/pci0000:00/virtio1/block/vda/device/model", "QEMU HARDDISK   \n");
	put("sys/devices/pci0000:00/virtio1/block/vda/vda2/size", "1024\n");
	put("sys/devices/pci0000:00/virtio1/block/vda/vda2/partition", "2\n");
	link_to("sys/dev/block/253:2", "../../devices/pci0000:00/virtio1/block/vda/vda2");
	return 0;
}

static void test_probe_disk(void **state)
{
	struct cap_dev d;
	struct iot_err e;

	(void)state;
	assert_int_equal(cap_dev_probe(tmpdir, 7, 3, &d, &e), 0);
	assert_string_equal(d.name, "loop3");
	assert_string_equal(d.path, "/dev/loop3");
	assert_int_equal(d.kdev, BLK_MKDEV(7, 3));
	assert_int_equal(d.size_bytes, 2097152ull * 512);
	assert_int_equal(d.lbs, 4096);
	assert_int_equal(d.rotational, 0);
	assert_string_equal(d.scheduler, "mq-deadline");
	assert_string_equal(d.backing_file, "/tmp/disk.img");
	assert_int_equal(d.partition, 0);
	assert_string_equal(d.model, "");
	assert_non_null(strstr(d.sysdir, "/sys/devices/virtual/block/loop3"));
}

static void test_probe_partition(void **state)
{
	struct cap_dev d;
	struct iot_err e;
	json_t *j;

	(void)state;
	assert_int_equal(cap_dev_probe(tmpdir, 253, 2, &d, &e), 0);
	assert_string_equal(d.name, "vda2");
	assert_int_equal(d.partition, 1);
	assert_string_equal(d.parent, "vda");
	assert_int_equal(d.size_bytes, 1024 * 512);
	assert_int_equal(d.lbs, 512);
	assert_int_equal(d.rotational, 1);
	assert_string_equal(d.scheduler, "none");
	assert_string_equal(d.model, "QEMU HARDDISK");
	/* tracing a partition: its own trace/ directory under the disk's */
	assert_non_null(strstr(d.sysdir, "/block/vda/vda2"));
	j = cap_dev_json(&d);
	assert_string_equal(json_string_value(json_object_get(j, "dev")), "253:2");
	assert_string_equal(json_string_value(json_object_get(j, "parent")), "vda");
	assert_true(json_is_true(json_object_get(j, "rotational")));
	json_decref(j);
}

static void test_probe_missing(void **state)
{
	struct cap_dev d;
	struct iot_err e;

	(void)state;
	assert_int_equal(cap_dev_probe(tmpdir, 8, 0, &d, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "8:0"));
}

static void test_resolve(void **state)
{
	unsigned ma, mi;
	struct iot_err e;

	(void)state;
	assert_int_equal(cap_dev_resolve("/no/such/device", &ma, &mi, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "/no/such/device"));
	assert_int_equal(cap_dev_resolve("/dev/null", &ma, &mi, &e), -ENOTBLK);
	assert_non_null(strstr(e.msg, "not a block device"));
}

static void test_mountinfo(void **state)
{
	static const char mi[] =
	    "36 25 7:3 / /mnt/with\\040space rw,relatime shared:1 - ext4 /dev/loop3 "
	    "rw,errors=remount-ro\n"
	    "37 25 0:45 / /mnt/btr rw,relatime - btrfs /dev/no-such-dev-xyz rw,space_cache=v2\n"
	    "38 25 7:1 / /other rw - ext4 /dev/loop1 rw\n"
	    "garbage line\n"
	    "39 25 7:3 /sub /bind rw master:2 - ext4 /dev/loop3 rw\n";
	FILE *f = fmemopen((void *)mi, sizeof(mi) - 1, "r");
	struct cap_dev d = {.major = 7, .minor = 3};
	json_t *arr = json_array(), *m;

	(void)state;
	assert_int_equal(cap_mounts_json(f, &d, arr), 2);
	fclose(f);
	m = json_array_get(arr, 0);
	assert_string_equal(json_string_value(json_object_get(m, "mountpoint")), "/mnt/with space");
	assert_string_equal(json_string_value(json_object_get(m, "fstype")), "ext4");
	assert_string_equal(json_string_value(json_object_get(m, "source")), "/dev/loop3");
	assert_string_equal(json_string_value(json_object_get(m, "options")), "rw,relatime");
	assert_string_equal(json_string_value(json_object_get(m, "super_options")),
	                    "rw,errors=remount-ro");
	m = json_array_get(arr, 1);
	assert_string_equal(json_string_value(json_object_get(m, "mountpoint")), "/bind");
	json_decref(arr);
}

/* The one mountinfo splitter devstack.c and cap_mounts_json() read lines with. */
static void test_mountinfo_split(void **state)
{
	char l1[] = "36 25 7:3 / /mnt/a\\134b\\011c rw,relatime shared:1 master:4 - xfs "
	            "/dev/with\\040sp rw,attr2\n";
	char l2[] = "37 25 x:y / /m rw - tmpfs tmpfs";
	char l3[] = "38 25 7:1 / /m rw shared:1 - ext4";
	char l4[] = "39 25 7:1 / /m rw,noatime";
	struct cap_mountinfo m;

	(void)state;
	assert_int_equal(cap_mountinfo_split(l1, &m), 0);
	assert_true(m.has_dev);
	assert_int_equal(m.major, 7);
	assert_int_equal(m.minor, 3);
	assert_string_equal(m.mountpoint, "/mnt/a\\b\tc");
	assert_string_equal(m.options, "rw,relatime");
	assert_string_equal(m.fstype, "xfs");
	assert_string_equal(m.source, "/dev/with sp");
	assert_string_equal(m.super, "rw,attr2");
	/* no super options: an empty string; an unreadable MAJ:MIN: said, not a failure */
	assert_int_equal(cap_mountinfo_split(l2, &m), 0);
	assert_false(m.has_dev);
	assert_string_equal(m.fstype, "tmpfs");
	assert_string_equal(m.source, "tmpfs");
	assert_string_equal(m.super, "");
	/* no source after the separator, or no separator at all */
	assert_int_equal(cap_mountinfo_split(l3, &m), -EINVAL);
	assert_int_equal(cap_mountinfo_split(l4, &m), -EINVAL);
}

static void test_helpers(void **state)
{
	char buf[16], p[128];
	uint64_t v;

	(void)state;
	cap_pick_bracketed("none [bfq] kyber", buf, sizeof(buf));
	assert_string_equal(buf, "bfq");
	cap_pick_bracketed("mono", buf, sizeof(buf));
	assert_string_equal(buf, "mono");
	cap_pick_bracketed("[a-very-long-scheduler-name]", buf, 8);
	assert_string_equal(buf, "a-very-");
	snprintf(p, sizeof(p), "%s/sys/devices/virtual/block/loop3/size", tmpdir);
	assert_int_equal(cap_read_u64(p, &v), 0);
	assert_int_equal(v, 2097152);
	assert_int_equal(cap_write_str(p, "42\n"), 0);
	assert_int_equal(cap_read_str(p, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "42");
	snprintf(p, sizeof(p), "%s/nonexistent", tmpdir);
	assert_int_equal(cap_read_u64(p, &v), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_probe_disk),    cmocka_unit_test(test_probe_partition),
	    cmocka_unit_test(test_probe_missing), cmocka_unit_test(test_resolve),
	    cmocka_unit_test(test_mountinfo),     cmocka_unit_test(test_mountinfo_split),
	    cmocka_unit_test(test_helpers),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, setup, tmpdir_teardown));
}
