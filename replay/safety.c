/* SPDX-License-Identifier: MIT */
/* Target safety: what a target is (mounted, held, swap, a loop device's backing file, formatted,
 * the replay's own input), judged on the opened file, and what the options allow onto it. */
#include <blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "replay/internal.h"

/* The whole-disk device of a partition, or dev itself. */
static dev_t whole_disk(dev_t dev)
{
	char path[PATH_MAX];
	unsigned ma, mi;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition", major(dev), minor(dev));
	if (access(path, F_OK))
		return dev;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../dev", major(dev), minor(dev));
	f = fopen(path, "re");
	if (!f)
		return dev;
	if (fscanf(f, "%u:%u", &ma, &mi) != 2)
		ma = major(dev), mi = minor(dev);
	fclose(f);
	return makedev(ma, mi);
}

/* dev is the target, or one of its partitions when the target is a whole disk */
static bool same_disk(dev_t target, dev_t dev)
{
	return dev == target || whole_disk(dev) == target;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/*
 * Is block device dev (or a partition of it) mounted? Matched by the mount's device number
 * and, since btrfs (and other multi-device filesystems) report an anonymous number there, by
 * the device named as the mount's source.
 */
static bool find_mount(dev_t dev, char *what, size_t cap)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t lcap = 0;
	bool found = false;

	if (!f)
		return false;
	while (!found && getline(&line, &lcap, f) > 0) {
		char mnt[PATH_MAX], src[PATH_MAX];
		unsigned ma, mi;
		const char *sep = strstr(line, " - ");
		struct stat st;

		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &ma, &mi, mnt) != 3 || !sep ||
		    sscanf(sep + 3, "%*s %4095s", src) != 1)
			continue;
		unescape(src);
		if (same_disk(dev, makedev(ma, mi)) ||
		    (src[0] == '/' && !stat(src, &st) && S_ISBLK(st.st_mode) &&
		     same_disk(dev, st.st_rdev))) {
			unescape(mnt);
			snprintf(what, cap, "mounted on %.400s", mnt);
			found = true;
		}
	}
	free(line);
	fclose(f);
	return found;
}

/* A device of a mounted btrfs that mountinfo does not name (the other devices of a
 * multi-device filesystem): /sys/fs/btrfs/FSID/devices/NAME/dev, present while mounted. */
static bool find_btrfs_member(dev_t dev, char *what, size_t cap)
{
	DIR *top = opendir("/sys/fs/btrfs");
	struct dirent *fs;
	bool found = false;

	if (!top)
		return false;
	while (!found && (fs = readdir(top))) {
		char p[PATH_MAX];
		struct dirent *d;
		DIR *devs;

		if (fs->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "/sys/fs/btrfs/%s/devices", fs->d_name);
		if (!(devs = opendir(p)))
			continue;
		while (!found && (d = readdir(devs))) {
			unsigned ma, mi;
			FILE *f;

			if (d->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "/sys/fs/btrfs/%s/devices/%s/dev", fs->d_name,
			         d->d_name);
			if (!(f = fopen(p, "re")))
				continue;
			if (fscanf(f, "%u:%u", &ma, &mi) == 2 && same_disk(dev, makedev(ma, mi))) {
				snprintf(what, cap,
				         "a device of the mounted btrfs filesystem %.60s",
				         fs->d_name);
				found = true;
			}
			fclose(f);
		}
		closedir(devs);
	}
	closedir(top);
	return found;
}

static bool first_entry(const char *dir, char *name, size_t cap)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool found = false;

	if (!d)
		return false;
	while (!found && (de = readdir(d)))
		if (de->d_name[0] != '.') {
			snprintf(name, cap, "%s", de->d_name);
			found = true;
		}
	closedir(d);
	return found;
}

/* Does anything hold dev or one of its partitions (device-mapper, md, bcache)? */
static bool find_holder(dev_t dev, char *what, size_t cap)
{
	char dir[64], p[PATH_MAX], name[NAME_MAX + 1];
	struct dirent *de;
	bool found = false;
	DIR *d;

	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	snprintf(p, sizeof(p), "%s/holders", dir);
	if (first_entry(p, name, sizeof(name))) {
		snprintf(what, cap, "held by %s", name);
		return true;
	}
	if (!(d = opendir(dir)))
		return false;
	while (!found && (de = readdir(d))) {
		char part[PATH_MAX];

		snprintf(part, sizeof(part), "%s/%s/partition", dir, de->d_name);
		if (de->d_name[0] == '.' || access(part, F_OK))
			continue;
		snprintf(p, sizeof(p), "%s/%s/holders", dir, de->d_name);
		if (first_entry(p, name, sizeof(name))) {
			snprintf(what, cap, "held by %s (through %.60s)", name, de->d_name);
			found = true;
		}
	}
	closedir(d);
	return found;
}

/* Active swap: a block device (or a partition of it) or a file (device and inode). */
static bool find_swap(const struct stat *t, char *what, size_t cap)
{
	FILE *f = fopen("/proc/swaps", "re");
	char name[PATH_MAX];
	bool found = false;
	int c;

	if (!f)
		return false;
	while ((c = fgetc(f)) != '\n' && c != EOF) /* header line */
		;
	while (!found && fscanf(f, "%4095s%*[^\n]", name) == 1) {
		struct stat st;

		unescape(name);
		if (stat(name, &st))
			continue;
		if (S_ISBLK(t->st_mode) ? S_ISBLK(st.st_mode) && same_disk(t->st_rdev, st.st_rdev)
		                        : st.st_dev == t->st_dev && st.st_ino == t->st_ino) {
			snprintf(what, cap, "in use as swap");
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* In use by the kernel: mounted, held, swap. */
static bool blk_live(dev_t dev, char *what, size_t cap)
{
	struct stat st = {.st_mode = S_IFBLK, .st_rdev = dev};

	return find_mount(dev, what, cap) || find_btrfs_member(dev, what, cap) ||
	       find_holder(dev, what, cap) || find_swap(&st, what, cap);
}

/* The file behind loop device NAME, by device and inode: the kernel's own record of it
 * (LOOP_GET_STATUS64: renames and other names cannot hide it), else its path in sysfs. */
static bool loop_backing(const char *name, dev_t *bdev, ino_t *bino)
{
	char p[PATH_MAX], back[PATH_MAX];
	struct loop_info64 li;
	struct stat st;
	size_t n;
	FILE *f;
	int fd;

	snprintf(p, sizeof(p), "/dev/%s", name);
	fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0) {
		int r = ioctl(fd, LOOP_GET_STATUS64, &li);

		close(fd);
		if (!r) {
			/* the kernel's huge_encode_dev() */
			*bdev = makedev(
			    (unsigned)((li.lo_device >> 8) & 0xfff),
			    (unsigned)((li.lo_device & 0xff) | ((li.lo_device >> 12) & 0xfff00)));
			*bino = (ino_t)li.lo_inode;
			return true;
		}
		if (errno == ENXIO)
			return false; /* no file attached */
	}
	snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", name);
	if (!(f = fopen(p, "re")))
		return false;
	n = fread(back, 1, sizeof(back) - 1, f);
	fclose(f);
	back[n] = '\0';
	back[strcspn(back, "\n")] = '\0';
	if (stat(back, &st))
		return false;
	*bdev = st.st_dev;
	*bino = st.st_ino;
	return true;
}

/* A regular file behind a loop device: as busy as that loop device. */
static enum rp_risk find_loop_backing(const struct stat *t, char *what, size_t cap)
{
	enum rp_risk risk = RP_RISK_NONE;
	DIR *dir = opendir("/sys/block");
	struct dirent *d;

	if (!dir)
		return RP_RISK_NONE;
	while (risk == RP_RISK_NONE && (d = readdir(dir))) {
		char p[PATH_MAX], sub[400];
		unsigned ma, mi;
		dev_t bdev;
		ino_t bino;
		FILE *f;

		if (strncmp(d->d_name, "loop", 4) || !loop_backing(d->d_name, &bdev, &bino) ||
		    bdev != t->st_dev || bino != t->st_ino)
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/dev", d->d_name);
		if (!(f = fopen(p, "re")))
			continue;
		if (fscanf(f, "%u:%u", &ma, &mi) == 2) {
			if (blk_live(makedev(ma, mi), sub, sizeof(sub))) {
				snprintf(what, cap, "backs /dev/%.60s, which is %s", d->d_name,
				         sub);
				risk = RP_RISK_LIVE;
			} else {
				snprintf(what, cap, "backs /dev/%.60s", d->d_name);
				risk = RP_RISK_FORMATTED;
			}
		}
		fclose(f);
	}
	closedir(dir);
	return risk;
}

int rp_signature(int fd, char *out, size_t cap)
{
	blkid_probe pr = blkid_new_probe();
	const char *v = NULL;
	int ret = 0;

	if (!pr)
		return -ENOMEM;
	if (blkid_probe_set_device(pr, fd, 0, 0)) {
		blkid_free_probe(pr);
		return -EIO;
	}
	/* every kind libblkid knows: filesystems, RAID and LVM members, crypto, swap, and
	 * partition tables */
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	switch (blkid_do_safeprobe(pr)) {
	case 0:
		if (!blkid_probe_lookup_value(pr, "TYPE", &v, NULL) ||
		    !blkid_probe_lookup_value(pr, "PTTYPE", &v, NULL)) {
			snprintf(out, cap, "%s", v);
			ret = 1;
		}
		break;
	case -2: /* two signatures that contradict each other: formatted all the same */
		snprintf(out, cap, "several, ambivalent");
		ret = 1;
		break;
	}
	blkid_free_probe(pr);
	/* the probe read through the page cache, and the target stays open from here to the end
	 * of the replay: a block device or file whose cache holds pages makes every O_DIRECT IO
	 * write back and invalidate its range (filemap_write_and_wait_range,
	 * invalidate_inode_pages2_range), a few per cent of a RAM device's 4 KiB IO that a plain
	 * loop does not pay. So the clean pages are dropped again (what others use stays). */
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	return ret;
}

int rp_target_inspect(int fd, const struct replay_opts *o, enum rp_risk *risk, char *what,
                      size_t cap)
{
	struct stat st;
	char sig[64];

	*risk = RP_RISK_NONE;
	what[0] = '\0';
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode))
		return -EINVAL;
	for (unsigned i = 0; S_ISREG(st.st_mode) && i < o->ninputs; i++) {
		if (o->inputs[i].dev == st.st_dev && o->inputs[i].ino == st.st_ino) {
			snprintf(what, cap, "is one of the replay's input files");
			*risk = RP_RISK_INPUT;
			return 0;
		}
	}
	if (S_ISBLK(st.st_mode)) {
		if (blk_live(st.st_rdev, what + 3, cap > 3 ? cap - 3 : 0)) {
			memcpy(what, "is ", 3);
			*risk = RP_RISK_LIVE;
			return 0;
		}
	} else {
		if (find_swap(&st, what + 3, cap > 3 ? cap - 3 : 0)) {
			memcpy(what, "is ", 3);
			*risk = RP_RISK_LIVE;
			return 0;
		}
		if ((*risk = find_loop_backing(&st, what, cap)) != RP_RISK_NONE)
			return 0;
	}
	if (rp_signature(fd, sig, sizeof(sig)) > 0) {
		snprintf(what, cap, "carries a signature (%s)", sig);
		*risk = RP_RISK_FORMATTED;
	}
	return 0;
}

int rp_target_judge(const char *path, enum rp_risk risk, const char *what,
                    const struct replay_opts *o, char *warn, size_t wcap, struct iot_err *e)
{
	warn[0] = '\0';
	switch (risk) {
	case RP_RISK_NONE:
		return 0;
	case RP_RISK_INPUT:
		return iot_err_set(e, -EBUSY, "'%s' %s: refused", path, what);
	case RP_RISK_LIVE:
		if (o->allow_mounted) {
			snprintf(warn, wcap,
			         o->allow_writes
			             ? "--allow-mounted: writing to '%.300s', which %s: the "
			               "filesystem or volume on it will be corrupted"
			             : "--allow-mounted: reading from '%.300s', which %s",
			         path, what);
			return 0;
		}
		if (o->allow_writes)
			return iot_err_set(
			    e, -EBUSY,
			    "'%s' %s: writing to it would corrupt what uses it, so "
			    "this is refused even with --force (--allow-mounted writes "
			    "anyway, at that cost)",
			    path, what);
		if (o->force)
			return 0; /* reads of a live device harm nothing */
		return iot_err_set(
		    e, -EBUSY,
		    "'%s' %s (a replay is meant for a scratch target; --force replays "
		    "the reads anyway)",
		    path, what);
	case RP_RISK_FORMATTED:
		if (o->force || o->allow_mounted)
			return 0;
		return iot_err_set(e, -EBUSY, "'%s' %s (use --force to replay onto it anyway)",
		                   path, what);
	}
	return 0;
}

int rp_target_open_checked(const char *path, const struct replay_opts *o, struct stat *st,
                           char *warn, size_t wcap, struct iot_err *e)
{
	char what[512];
	enum rp_risk risk;
	int fd, ret;

	/* a file target is not reached through a symlink: one swapped in between the user's
	 * check and ours would send the writes elsewhere. A device may be (/dev/disk/by-id). */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0 && errno == ELOOP) {
		struct stat lst;

		if (stat(path, &lst) || !S_ISBLK(lst.st_mode))
			return iot_err_set(
			    e, -EINVAL,
			    "'%s' is a symbolic link, which a file target may not be "
			    "(give the file's own path)",
			    path);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0 && (fstat(fd, st) || !S_ISBLK(st->st_mode))) {
			close(fd);
			return iot_err_set(e, -EINVAL, "'%s' changed while it was opened", path);
		}
	}
	if (fd < 0)
		return iot_err_set(e, -errno, "'%s': %s", path, strerror(errno));
	if (fstat(fd, st)) {
		ret = iot_err_set(e, -errno, "'%s': %s", path, strerror(errno));
		close(fd);
		return ret;
	}
	if (!S_ISBLK(st->st_mode) && !S_ISREG(st->st_mode)) {
		close(fd);
		return iot_err_set(e, -EINVAL, "'%s' is not a block device or a regular file",
		                   path);
	}
	ret = rp_target_inspect(fd, o, &risk, what, sizeof(what));
	if (!ret)
		ret = rp_target_judge(path, risk, what, o, warn, wcap, e);
	else
		iot_err_set(e, ret, "'%s': %s", path, strerror(-ret));
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int rp_target_check(const char *path, const struct replay_opts *o, struct iot_err *e)
{
	struct stat st;
	char warn[600];
	int fd = rp_target_open_checked(path, o, &st, warn, sizeof(warn), e);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}
