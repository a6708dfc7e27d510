/* SPDX-License-Identifier: MIT */
/* Unit tests: the mount a directory is on, and the block device under it (replay/nfs_record.c),
 * on this machine's own mounts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "replay/nfs_replay.h"

static void test_mount_of(void **state)
{
	struct nr_mount m;

	(void)state;
	assert_int_equal(nr_mount_of("/proc/self", &m), 0);
	assert_string_equal(m.mountpoint, "/proc");
	assert_string_equal(m.fstype, "proc");
	assert_true(nr_mount_of("/no/such/dir/iotape", &m) < 0);
}

/* procfs is on no block device; "/" is on one, or on none (an overlay, a tmpfs): whatever is
 * named is a block device, and the one "/" is on (btrfs excepted: its device numbers are
 * anonymous, and the mount's source names the device) */
static void test_dir_device(void **state)
{
	struct nr_mount m;
	struct stat root, sb;
	char *dev;

	(void)state;
	assert_null(nr_dir_device("/proc"));
	assert_null(nr_dir_device("/no/such/dir/iotape"));
	dev = nr_dir_device("/");
	if (!dev)
		return;
	assert_int_equal(stat(dev, &sb), 0);
	assert_true(S_ISBLK(sb.st_mode));
	assert_int_equal(stat("/", &root), 0);
	assert_int_equal(nr_mount_of("/", &m), 0);
	if (strcmp(m.fstype, "btrfs"))
		assert_true(sb.st_rdev == root.st_dev);
	free(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mount_of),
	    cmocka_unit_test(test_dir_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
