/* SPDX-License-Identifier: MIT */
/* Opening replay targets: block devices or regular files, O_DIRECT, size and alignment. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
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

int rp_target_open(struct rp_target *t, const char *path, const struct replay_opts *o,
                   struct iot_err *e)
{
	struct stat st;
	int flags = open_flags(o);
	int ret;

	memset(t, 0, sizeof(*t));
	t->fd = t->fd_buf = -1;
	if (stat(path, &st))
		return iot_err_set(e, -errno, "'%s': %s", path, strerror(errno));
	if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode))
		return iot_err_set(e, -EINVAL, "'%s' is not a block device or a regular file",
		                   path);
	if (!o->force && (ret = rp_target_check(path, e)))
		return ret;
	t->is_blk = S_ISBLK(st.st_mode);
	/* O_EXCL on a block device: the kernel refuses it while mounted or claimed, closing the
	 * window between the check above and the first write */
	if (t->is_blk && o->allow_writes && !o->force)
		flags |= O_EXCL;
	t->direct = !o->buffered;
	t->fd = open(path, flags | (t->direct ? O_DIRECT : 0));
	if (t->fd < 0 && t->direct && errno == EINVAL) {
		/* a filesystem without O_DIRECT: replay through the page cache, say so in stats */
		t->direct = false;
		t->fd = open(path, flags);
	}
	if (t->fd < 0) {
		ret = -errno;
		if (ret == -EBUSY)
			return iot_err_set(e, ret,
			                   "'%s' is in use (mounted or claimed); use --force "
			                   "to replay anyway",
			                   path);
		return iot_err_set(e, ret, "'%s': %s", path, strerror(errno));
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
		{
			char mq[96];

			snprintf(mq, sizeof(mq), "/sys/dev/block/%u:%u/mq", major(st.st_rdev),
			         minor(st.st_rdev));
			t->bio_based = access(mq, F_OK) != 0;
		}
		t->dev = BLK_MKDEV(major(st.st_rdev), minor(st.st_rdev));
		char *tmp = strdup(path);
		snprintf(t->name, sizeof(t->name), "%s", tmp ? basename(tmp) : "dev");
		free(tmp);
		/* device-mapper and md are bio-based too, but their IO waits on other devices */
		t->ram =
		    t->bio_based && (!strncmp(t->name, "zram", 4) || !strncmp(t->name, "ram", 3) ||
		                     !strncmp(t->name, "pmem", 4));
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
	if (t->fd_buf < 0)
		t->fd_buf = open(t->path, open_flags(o));
	return t->fd_buf;
}

void rp_target_close(struct rp_target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	if (t->fd_buf >= 0)
		close(t->fd_buf);
	t->fd = t->fd_buf = -1;
	free(t->path);
	t->path = NULL;
}
