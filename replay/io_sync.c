/* SPDX-License-Identifier: MIT */
/* The synchronous execution of one IO, shared by the engines (below the registry). */
#include "replay/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int64_t rw_full(struct rp_io *io)
{
	struct iovec iov;
	uint64_t done = 0;

	/* short transfers happen on files (EOF) and signals: finish or report what was done */
	while (done < io->len) {
		ssize_t n;

		iov.iov_base = (char *)io->buf + done;
		iov.iov_len = io->len - done;
		/* the plain calls through syscall(): glibc's wrappers are cancellation points,
		 * which costs two calls around each system call (and preadv2 copies an iovec
		 * in), a few per cent of a RAM device's IO */
		if (io->op == RP_OP_WRITE && io->rw_flags)
			n = pwritev2(io->fd, &iov, 1, (off_t)(io->off + done), io->rw_flags);
		else if (io->op == RP_OP_WRITE)
			n = syscall(SYS_pwrite64, io->fd, iov.iov_base, iov.iov_len,
			            (off_t)(io->off + done));
		else
			n = syscall(SYS_pread64, io->fd, iov.iov_base, iov.iov_len,
			            (off_t)(io->off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return done ? (int64_t)done : -errno;
		if (n == 0)
			break;
		done += (uint64_t)n;
	}
	return (int64_t)done;
}

int64_t rp_io_sync(struct rp_io *io)
{
	switch (io->op) {
	case RP_OP_READ:
	case RP_OP_WRITE:
		return rw_full(io);
	case RP_OP_FLUSH:
		return fdatasync(io->fd) ? -errno : 0;
	case RP_OP_DISCARD:
		if (io->is_blk) {
			uint64_t range[2] = {io->off, io->len};

			return ioctl(io->fd, BLKDISCARD, range) ? -errno : (int64_t)io->len;
		}
		return fallocate(io->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)io->off,
		                 (off_t)io->len)
		           ? -errno
		           : (int64_t)io->len;
	case RP_OP_WZERO:
		return fallocate(io->fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, (off_t)io->off,
		                 (off_t)io->len)
		           ? -errno
		           : (int64_t)io->len;
	}
	return -EINVAL;
}
