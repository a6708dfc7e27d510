/* SPDX-License-Identifier: MIT */
/* Opening replay targets: block devices or regular files, O_DIRECT, size and alignment. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "replay/internal.h"

static int open_flags(const struct replay_opts *o)
{
	return (o->allow_writes ? O_RDWR : O_RDONLY) | O_CLOEXEC;
}

/* Open the inspected file again for IO, through its descriptor (/proc/self/fd/N names the
 * file itself, not the path, which may have changed since), and check it is the same one. */
static int reopen(int fd, const struct stat *st, int flags)
{
	char p[64];
	struct stat now;
	int nfd;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	nfd = open(p, flags);
	if (nfd < 0)
		return -errno;
	if (fstat(nfd, &now) || now.st_dev != st->st_dev || now.st_ino != st->st_ino ||
	    now.st_rdev != st->st_rdev) {
		close(nfd);
		return -ESTALE;
	}
	return nfd;
}

static uint64_t sys_u64(const char *dir, const char *file)
{
	char p[160];
	unsigned long long v = 0;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	if (!(f = fopen(p, "re")))
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* What the device's queue takes (on the disk, for a partition), and where a partition
 * starts: the kernel splits longer requests, and --capture's comparison needs disk sectors */
static void block_limits(struct rp_target *t, const struct stat *st)
{
	char dev[64], disk[80], q[96];
	uint64_t v;

	snprintf(dev, sizeof(dev), "/sys/dev/block/%u:%u", major(st->st_rdev), minor(st->st_rdev));
	snprintf(disk, sizeof(disk), "%s%s", dev, sys_u64(dev, "partition") ? "/.." : "");
	t->disk_dev = BLK_MKDEV(major(st->st_rdev), minor(st->st_rdev));
	if (sys_u64(dev, "partition")) {
		unsigned ma, mi;
		FILE *f;

		t->part_start = sys_u64(dev, "start");
		snprintf(q, sizeof(q), "%s/dev", disk);
		if ((f = fopen(q, "re"))) {
			if (fscanf(f, "%u:%u", &ma, &mi) == 2)
				t->disk_dev = BLK_MKDEV(ma, mi);
			fclose(f);
		}
	}
	snprintf(q, sizeof(q), "%s/mq", disk);
	t->bio_based = access(q, F_OK) != 0;
	snprintf(q, sizeof(q), "%s/queue", disk);
	/* a request holds at most max_sectors_kb, and max_segments pieces of physically
	 * contiguous memory of at most max_segment_size each (replay/split.c); no request crosses
	 * a multiple of chunk_sectors */
	v = sys_u64(q, "max_sectors_kb") << 10;
	t->max_io = v > UINT32_MAX ? 0 : (uint32_t)v;
	v = sys_u64(q, "max_segments");
	t->max_segs = v > UINT32_MAX ? 0 : (uint32_t)v;
	v = sys_u64(q, "max_segment_size");
	t->seg_bytes = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
	v = sys_u64(q, "chunk_sectors") << 9;
	t->chunk = v > UINT32_MAX ? 0 : (uint32_t)v;
	t->page = (uint32_t)sysconf(_SC_PAGESIZE);
	v = sys_u64(q, "discard_max_bytes");
	t->max_bytes[RP_OP_DISCARD] = v > UINT32_MAX ? 0 : (uint32_t)v;
	v = sys_u64(q, "write_zeroes_max_bytes");
	t->max_bytes[RP_OP_WZERO] = v > UINT32_MAX ? 0 : (uint32_t)v;
}

int rp_target_open(struct rp_target *t, const char *path, const struct replay_opts *o,
                   struct iot_err *e)
{
	struct stat st;
	int flags = open_flags(o);
	char warn[700];
	int ret, fd0;

	memset(t, 0, sizeof(*t));
	t->fd = t->fd_buf = -1;
	t->whole = UINT32_MAX; /* files: not predicted */
	fd0 = rp_target_open_checked(path, o, &st, warn, sizeof(warn), e);
	if (fd0 < 0)
		return fd0;
	if (warn[0] && o->notice)
		o->notice(o->notice_arg, warn);
	t->is_blk = S_ISBLK(st.st_mode);
	/* O_EXCL on a block device: the kernel refuses it while mounted or claimed, and nobody
	 * can mount it while we write (--force does not lift this; --allow-mounted must) */
	if (t->is_blk && o->allow_writes && !o->allow_mounted)
		flags |= O_EXCL;
	t->direct = !o->buffered;
	t->fd = reopen(fd0, &st, flags | (t->direct ? O_DIRECT : 0));
	if (t->fd == -EINVAL && t->direct) {
		/* a filesystem without O_DIRECT: replay through the page cache, say so in stats */
		t->direct = false;
		t->fd = reopen(fd0, &st, flags);
	}
	close(fd0);
	if (t->fd < 0) {
		ret = t->fd;
		t->fd = -1;
		if (ret == -EBUSY)
			return iot_err_set(e, ret,
			                   "'%s' is in use (mounted or claimed by the kernel); "
			                   "refused even with --force (--allow-mounted writes "
			                   "anyway)",
			                   path);
		if (ret == -ESTALE)
			return iot_err_set(e, ret, "'%s' changed while it was opened", path);
		return iot_err_set(e, ret, "'%s': %s", path, strerror(-ret));
	}
	t->path = strdup(path);
	if (!t->path) {
		rp_target_close(t);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	if (t->is_blk) {
		int lbs = 512;

		if (ioctl(t->fd, BLKGETSIZE64, &t->size) || ioctl(t->fd, BLKSSZGET, &lbs)) {
			ret = iot_err_set(e, -errno, "'%s': cannot read its size: %s", path,
			                  strerror(errno));
			rp_target_close(t);
			return ret;
		}
		t->lbs = lbs > 0 ? (unsigned)lbs : 512;
		block_limits(t, &st);
		t->dev = BLK_MKDEV(major(st.st_rdev), minor(st.st_rdev));
		{
			/* the kernel's name (a /dev/disk/by-id link names the same device) */
			char link[96], real[PATH_MAX];
			ssize_t n;

			snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_rdev),
			         minor(st.st_rdev));
			n = readlink(link, real, sizeof(real) - 1);
			real[n > 0 ? n : 0] = '\0';
			snprintf(t->name, sizeof(t->name), "%s",
			         n > 0 && strrchr(real, '/') ? strrchr(real, '/') + 1 : "dev");
		}
		/* device-mapper and md are bio-based too, but their IO waits on other devices */
		t->ram =
		    t->bio_based && (!strncmp(t->name, "zram", 4) || !strncmp(t->name, "ram", 3) ||
		                     !strncmp(t->name, "pmem", 4));
		/* a bio-based driver splits only if it asks the block layer to: these take a bio of
		 * any size (their queue's limits are no request's); device-mapper and md do split,
		 * by their own rules and on the devices below them */
		t->split = !t->bio_based ? RP_SPLIT_LIMITS
		           : t->ram      ? RP_SPLIT_NONE
		                         : RP_SPLIT_GUESS;
		t->whole = rp_split_whole(t);
	} else {
		t->size = (uint64_t)st.st_size;
		t->lbs = 512;
		t->dev = BLK_MKDEV(major(st.st_dev), minor(st.st_dev));
		snprintf(t->name, sizeof(t->name), "file");
	}
	if (!t->size) {
		ret = iot_err_set(e, -EINVAL, "'%s' is empty", path);
		rp_target_close(t);
		return ret;
	}
	return 0;
}

int rp_target_buffered_fd(struct rp_target *t, const struct replay_opts *o)
{
	if (!t->direct)
		return t->fd;
	if (t->fd_buf < 0) {
		char p[64];

		/* the same file as t->fd, whatever its path names now */
		snprintf(p, sizeof(p), "/proc/self/fd/%d", t->fd);
		t->fd_buf = open(p, open_flags(o));
	}
	return t->fd_buf;
}

void rp_target_close(struct rp_target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	if (t->fd_buf >= 0)
		close(t->fd_buf);
	t->fd = t->fd_buf = -1;
	t->whole = UINT32_MAX; /* files: not predicted */
	free(t->path);
	t->path = NULL;
}
