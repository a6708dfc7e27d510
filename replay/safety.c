/* SPDX-License-Identifier: MIT */
/* Target safety: mounted, held (dm, md, swap) or formatted targets need --force to be written. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "replay/replay.h"

/* Filesystem magic numbers at their known offsets (value-to-name table). */
static const struct {
	const char *name;
	size_t off;
	const char *magic;
	size_t len;
} signatures[] = {
    /* struct ext2_super_block at 1024, s_magic at 56: 0xEF53 little endian
     * (fs/ext4/ext4.h) */
    {"ext2/3/4", 1024 + 56, "\x53\xef", 2},
    /* struct xfs_dsb sb_magicnum at 0: "XFSB" (fs/xfs/libxfs/xfs_format.h) */
    {"xfs", 0, "XFSB", 4},
    /* struct btrfs_super_block at 64 KiB, magic at 64: "_BHRfS_M" (fs/btrfs/ctree.h) */
    {"btrfs", 65536 + 64, "_BHRfS_M", 8},
    /* swap header: "SWAPSPACE2" in the last 10 bytes of the first 4 KiB page
     * (include/linux/swap.h) */
    {"swap", 4096 - 10, "SWAPSPACE2", 10},
};

const char *rp_fs_signature(const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(signatures) / sizeof(signatures[0]); i++) {
		if (signatures[i].off > len || len - signatures[i].off < signatures[i].len)
			continue;
		if (!memcmp(buf + signatures[i].off, signatures[i].magic, signatures[i].len))
			return signatures[i].name;
	}
	return NULL;
}

/* The whole-disk device of a partition, or dev itself. */
static dev_t whole_disk(dev_t dev)
{
	char path[PATH_MAX], buf[64];
	unsigned ma, mi;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../dev", major(dev), minor(dev));
	snprintf(buf, sizeof(buf), "/sys/dev/block/%u:%u/partition", major(dev), minor(dev));
	if (access(buf, F_OK))
		return dev;
	f = fopen(path, "r");
	if (!f)
		return dev;
	if (fscanf(f, "%u:%u", &ma, &mi) != 2)
		ma = major(dev), mi = minor(dev);
	fclose(f);
	return makedev(ma, mi);
}

/* Is block device dev (or one of its partitions, or a partition's disk) mounted? */
static int check_mounted(dev_t dev, char *where, size_t wlen)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char *line = NULL;
	size_t cap = 0;
	int found = 0;

	if (!f)
		return 0;
	while (!found && getline(&line, &cap, f) > 0) {
		unsigned id, parent, ma, mi;
		char root[PATH_MAX], mnt[PATH_MAX];

		if (sscanf(line, "%u %u %u:%u %4095s %4095s", &id, &parent, &ma, &mi, root, mnt) !=
		    6)
			continue;
		if (makedev(ma, mi) == dev || whole_disk(makedev(ma, mi)) == dev) {
			snprintf(where, wlen, "mounted on %.400s", mnt);
			found = 1;
		}
	}
	free(line);
	fclose(f);
	return found;
}

/* Does anything hold dev (device-mapper, md, bcache, ...)? */
static int check_holders(dev_t dev, char *what, size_t wlen)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dir;
	int found = 0;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/holders", major(dev), minor(dev));
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!found && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(what, wlen, "held by %s", d->d_name);
		found = 1;
	}
	closedir(dir);
	return found;
}

static int check_swap(dev_t dev, ino_t ino, bool blk, char *what, size_t wlen)
{
	FILE *f = fopen("/proc/swaps", "r");
	char name[PATH_MAX];
	int found = 0;
	int c;

	if (!f)
		return 0;
	while ((c = fgetc(f)) != '\n' && c != EOF) /* header line */
		;
	while (!found && fscanf(f, "%4095s%*[^\n]", name) == 1) {
		struct stat st;

		if (stat(name, &st))
			continue;
		if (blk ? (S_ISBLK(st.st_mode) && st.st_rdev == dev)
		        : (st.st_dev == dev && st.st_ino == ino)) {
			snprintf(what, wlen, "in use as swap");
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/* A regular file that backs a loop device is as busy as that loop device. */
static int check_loop_backing(const char *path, char *what, size_t wlen)
{
	char real[PATH_MAX], p[PATH_MAX], back[PATH_MAX];
	struct dirent *d;
	DIR *dir;
	int found = 0;

	if (!realpath(path, real) || !(dir = opendir("/sys/block")))
		return 0;
	while (!found && (d = readdir(dir))) {
		FILE *f;
		unsigned ma, mi;
		size_t n;

		if (strncmp(d->d_name, "loop", 4))
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", d->d_name);
		f = fopen(p, "r");
		if (!f)
			continue;
		n = fread(back, 1, sizeof(back) - 1, f);
		fclose(f);
		back[n] = '\0';
		back[strcspn(back, "\n")] = '\0';
		if (strcmp(back, real))
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/dev", d->d_name);
		f = fopen(p, "r");
		if (!f)
			continue;
		if (fscanf(f, "%u:%u", &ma, &mi) == 2) {
			char sub[200];

			if (check_mounted(makedev(ma, mi), sub, sizeof(sub)) ||
			    check_holders(makedev(ma, mi), sub, sizeof(sub))) {
				snprintf(what, wlen, "backs /dev/%.60s, which is %s", d->d_name,
				         sub);
				found = 1;
			}
		}
		fclose(f);
	}
	closedir(dir);
	return found;
}

int rp_target_check(const char *path, struct iot_err *e)
{
	uint8_t *buf;
	char what[512];
	struct stat st;
	const char *sig;
	ssize_t n;
	int fd;

	if (stat(path, &st))
		return iot_err_set(e, -errno, "'%s': %s", path, strerror(errno));
	if (S_ISBLK(st.st_mode)) {
		if (check_mounted(st.st_rdev, what, sizeof(what)) ||
		    check_holders(st.st_rdev, what, sizeof(what)) ||
		    check_swap(st.st_rdev, 0, true, what, sizeof(what)))
			return iot_err_set(e, -EBUSY, "'%s' is %s (use --force to replay anyway)",
			                   path, what);
	} else if (S_ISREG(st.st_mode)) {
		if (check_swap(st.st_dev, st.st_ino, false, what, sizeof(what)) ||
		    check_loop_backing(path, what, sizeof(what)))
			return iot_err_set(e, -EBUSY, "'%s' %s (use --force to replay anyway)",
			                   path, what);
	} else {
		return iot_err_set(e, -EINVAL, "'%s' is not a block device or a regular file",
		                   path);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return iot_err_set(e, -errno, "'%s': %s", path, strerror(errno));
	buf = calloc(1, 65536 + 4096);
	if (!buf) {
		close(fd);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	n = pread(fd, buf, 65536 + 4096, 0);
	close(fd);
	sig = n > 0 ? rp_fs_signature(buf, (size_t)n) : NULL;
	free(buf);
	if (sig)
		return iot_err_set(e, -EBUSY,
		                   "'%s' carries a %s signature (use --force to replay "
		                   "anyway)",
		                   path, sig);
	return 0;
}
