/* SPDX-License-Identifier: MIT */
/* Unit tests: each traced device's role, group and key from a hand-built system (sysfs,
 * mountinfo, signatures, Ceph OSD directories). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/cap_int.h"
#include "test_sysroot.h"

/* A block device in the fake sysfs: NAME at ma:mi, under DIR (the parent disk's, for a
 * partition), its class link and dev file. */
static void blockdev(const char *name, unsigned ma, unsigned mi, const char *parent)
{
	char dir[256], p[512], t[512], mm[32];

	if (parent)
		snprintf(dir, sizeof(dir), "sys/devices/virtual/block/%s/%s", parent, name);
	else
		snprintf(dir, sizeof(dir), "sys/devices/virtual/block/%s", name);
	snprintf(mm, sizeof(mm), "%u:%u\n", ma, mi);
	snprintf(p, sizeof(p), "%s/dev", dir);
	put(p, mm);
	snprintf(p, sizeof(p), "%s/size", dir);
	put(p, "2048\n");
	if (parent) {
		snprintf(p, sizeof(p), "%s/partition", dir);
		put(p, "1\n");
	}
	snprintf(p, sizeof(p), "sys/dev/block/%u:%u", ma, mi);
	snprintf(t, sizeof(t), "../../%s", dir + 4);
	link_to(p, t);
	snprintf(p, sizeof(p), "sys/class/block/%s", name);
	link_to(p, t);
}

/* /dev/loopN is 7:N, /dev/sda 8:0, /dev/md0 9:0; a link (by-id, an OSD's journal) to one of
 * them is followed. */
static int fake_blockdev(void *arg, const char *path, unsigned *ma, unsigned *mi)
{
	char t[PATH_MAX];
	ssize_t n = readlink(path, t, sizeof(t) - 1);

	(void)arg;
	if (n > 0) {
		t[n] = '\0';
		path = t;
	}
	if (sscanf(path, "/dev/loop%u", mi) == 1) {
		*ma = 7;
		return 0;
	}
	if (!strcmp(path, "/dev/sda")) {
		*ma = 8;
		*mi = 0;
		return 0;
	}
	return -ENOENT;
}

/* Files under /mnt/x are on loop8's xfs. */
static int fake_filedev(void *arg, const char *path, unsigned *ma, unsigned *mi)
{
	(void)arg;
	if (strncmp(path, "/mnt/x/", 7))
		return -ENOENT;
	*ma = 7;
	*mi = 8;
	return 0;
}

static int fake_probe(void *arg, const char *path, struct cap_sig *g)
{
	(void)arg;
	memset(g, 0, sizeof(*g));
	if (!strcmp(path, "/dev/loop10")) {
		strcpy(g->type, "ext4");
		strcpy(g->uuid, "E1");
		strcpy(g->ext_journal, "J1");
	} else if (!strcmp(path, "/dev/loop11")) {
		strcpy(g->type, "jbd");
		strcpy(g->uuid, "J1");
	} else if (!strcmp(path, "/dev/loop12") || !strcmp(path, "/dev/loop13")) {
		strcpy(g->type, "btrfs");
		strcpy(g->uuid, "B1");
	} else if (!strcmp(path, "/dev/loop8")) {
		strcpy(g->type, "xfs");
		strcpy(g->uuid, "X1");
	} else {
		return -ENODATA;
	}
	return 0;
}

static int setup(void **state)
{
	char p[256], t[256];

	if (tmpdir_setup(state))
		return -1;
	blockdev("loop0", 7, 0, NULL);
	put("sys/devices/virtual/block/loop0/loop/backing_file", "/img/a.img\n");
	blockdev("loop0p1", 259, 0, "loop0");
	for (unsigned i = 2; i <= 14; i++) {
		snprintf(p, sizeof(p), "loop%u", i);
		blockdev(p, 7, i, NULL);
	}
	put("sys/devices/virtual/block/loop14/loop/backing_file", "/mnt/x/inner.img\n");
	blockdev("md0", 9, 0, NULL);
	put("sys/devices/virtual/block/loop2/holders/md0", "");
	put("sys/devices/virtual/block/loop3/holders/md0", "");
	put("sys/devices/virtual/block/md0/slaves/loop2", "");
	put("sys/devices/virtual/block/md0/slaves/loop3", "");
	put("sys/fs/btrfs/B1/devices/loop12", "");
	put("sys/fs/btrfs/B1/devices/loop13", "");
	blockdev("sda", 8, 0, NULL);
	link_to("dev/disk/by-id/ata-DISK_123", "/dev/sda");
	link_to("dev/disk/by-id/wwn-0x5000c500", "/dev/sda");
	/* a filestore OSD (osd.3) on loop4, its journal loop5; a BlueStore one (osd.4) */
	put("osd/ceph-3/whoami", "3\n");
	put("osd/ceph-3/type", "filestore\n");
	put("osd/ceph-3/fsid", "f3\n");
	put("osd/ceph-3/ceph_fsid", "c\n");
	link_to("osd/ceph-3/journal", "/dev/loop5");
	put("osd/ceph-4/whoami", "4\n");
	put("osd/ceph-4/type", "bluestore\n");
	link_to("osd/ceph-4/block", "/dev/loop6");
	link_to("osd/ceph-4/block.db", "/dev/loop7");
	snprintf(p, sizeof(p), "%s/mountinfo", tmpdir);
	snprintf(t, sizeof(t),
	         "100 1 7:4 / %s/osd/ceph-3 rw - xfs /dev/loop4 rw\n"
	         "101 1 0:55 / %s/osd/ceph-4 rw - tmpfs tmpfs rw\n",
	         tmpdir, tmpdir);
	put("mountinfo", t);
	put("mountinfo2", "102 1 7:8 / /mnt/x rw - xfs /dev/loop8 rw,logdev=/dev/loop9\n"
	                  "103 1 7:10 / /mnt/e rw - ext4 /dev/loop10 rw\n"
	                  "104 1 0:60 / /mnt/b rw - btrfs /dev/loop12 rw,space_cache=v2\n");
	return 0;
}

static const char *str(const json_t *d, const char *k)
{
	const json_t *v = json_object_get(d, k);

	return json_is_string(v) ? json_string_value(v) : "(null)";
}

static void test_stacks(void **state)
{
	static const struct {
		unsigned ma, mi;
		const char *role, *group, *key, *from;
	} want[] = {
	    {259, 0, "partition 1 of loop0", "loop0", "/img/a.img-part1", "backing_file"},
	    {7, 2, "member of md0", "md0", "loop2", "kernel_name"},
	    {7, 4, "osd.3 data", "osd.3", "osd.3 data", "role"},
	    {7, 5, "osd.3 journal", "osd.3", "osd.3 journal", "role"},
	    {7, 6, "osd.4 block", "osd.4", "osd.4 block", "role"},
	    {7, 7, "osd.4 block.db", "osd.4", "osd.4 block.db", "role"},
	    {7, 8, "xfs /mnt/x data", "xfs /mnt/x", "loop8", "kernel_name"},
	    {7, 9, "xfs /mnt/x log", "xfs /mnt/x", "mylog", "name"},
	    {7, 10, "ext4 /mnt/e data", "ext4 /mnt/e", "loop10", "kernel_name"},
	    {7, 11, "ext4 /mnt/e journal", "ext4 /mnt/e", "loop11", "kernel_name"},
	    {7, 12, "btrfs /mnt/b member", "btrfs /mnt/b", "loop12", "kernel_name"},
	    {7, 13, "btrfs /mnt/b member", "btrfs /mnt/b", "loop13", "kernel_name"},
	    {7, 14, "loop over /mnt/x/inner.img", "xfs /mnt/x", "/mnt/x/inner.img", "backing_file"},
	    {8, 0, "(null)", "(null)", "by-id/wwn-0x5000c500", "by-id"},
	    {7, 3, "member of md0", "md0", "loop3", "kernel_name"},
	};
	enum { N = sizeof(want) / sizeof(want[0]) };
	struct cap_dev devs[N];
	char *names[N] = {0}, path[512], both[1024];
	struct cap_stack_env env = {.sysroot = tmpdir,
	                            .blockdev = fake_blockdev,
	                            .filedev = fake_filedev,
	                            .probe = fake_probe};
	json_t *j = json_array();
	struct iot_err e;
	FILE *a, *b;

	(void)state;
	/* both mount tables in one */
	snprintf(path, sizeof(path), "%s/mountinfo", tmpdir);
	a = fopen(path, "r");
	snprintf(path, sizeof(path), "%s/mountinfo2", tmpdir);
	b = fopen(path, "r");
	assert_non_null(a);
	assert_non_null(b);
	both[fread(both, 1, 512, a)] = '\0';
	strcat(both, fgets(path, sizeof(path), b));
	strcat(both, fgets(path, sizeof(path), b));
	strcat(both, fgets(path, sizeof(path), b));
	fclose(a);
	fclose(b);
	env.mountinfo = fmemopen(both, strlen(both), "r");
	for (unsigned i = 0; i < N; i++) {
		assert_int_equal(cap_dev_probe(tmpdir, want[i].ma, want[i].mi, &devs[i], &e), 0);
		json_array_append_new(j, cap_dev_json(&devs[i]));
	}
	names[7] = "mylog";
	assert_int_equal(cap_devstack(&env, devs, N, NULL, names, j), 0);
	fclose(env.mountinfo);
	for (unsigned i = 0; i < N; i++) {
		const json_t *d = json_array_get(j, i);

		printf("%s: role %s, group %s, key %s (%s)\n", devs[i].name, str(d, "role"),
		       str(d, "group"), str(d, "key"), str(d, "key_from"));
		assert_string_equal(str(d, "role"), want[i].role);
		assert_string_equal(str(d, "group"), want[i].group);
		assert_string_equal(str(d, "key"), want[i].key);
		assert_string_equal(str(d, "key_from"), want[i].from);
	}
	/* the facts behind them */
	assert_string_equal(
	    str(json_array_get(json_object_get(json_array_get(j, 3), "stack"), 0), "objectstore"),
	    "filestore");
	assert_string_equal(str(json_array_get(j, 7), "alias"), "mylog");
	assert_string_equal(str(json_object_get(json_array_get(j, 8), "signature"), "type"),
	                    "ext4");
	json_decref(j);
}

/* Nothing related: no role, no group; a link given on the command line is the key. */
static void test_alone(void **state)
{
	struct cap_stack_env env = {.sysroot = tmpdir,
	                            .blockdev = fake_blockdev,
	                            .filedev = fake_filedev,
	                            .probe = fake_probe};
	struct cap_dev d;
	struct iot_err e;
	char link[512], *given[1] = {link};
	json_t *j = json_array();

	(void)state;
	snprintf(link, sizeof(link), "%s/dev/disk/by-id/ata-DISK_123", tmpdir);
	assert_int_equal(cap_dev_probe(tmpdir, 8, 0, &d, &e), 0);
	json_array_append_new(j, cap_dev_json(&d));
	assert_int_equal(cap_devstack(&env, &d, 1, given, NULL, j), 0);
	assert_true(json_is_null(json_object_get(json_array_get(j, 0), "role")));
	assert_true(json_is_null(json_object_get(json_array_get(j, 0), "group")));
	assert_string_equal(str(json_array_get(j, 0), "key"), link);
	assert_string_equal(str(json_array_get(j, 0), "key_from"), "path");
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stacks),
	    cmocka_unit_test(test_alone),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, setup, tmpdir_teardown));
}
