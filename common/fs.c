/* SPDX-License-Identifier: MIT */
/* Small file-system helpers: mkdir -p, atomic replacement of a file. */
#include "common/fs.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int make_one(const char *p, struct iot_err *e)
{
	struct stat st;

	if (!mkdir(p, 0755))
		return 0;
	if (errno == EEXIST && !stat(p, &st)) {
		if (S_ISDIR(st.st_mode))
			return 0;
		return iot_err_set(e, -ENOTDIR, "'%s' exists and is not a directory", p);
	}
	return iot_err_set(e, -errno, "cannot create directory '%s': %s", p, strerror(errno));
}

int iot_mkdir_p(const char *dir, struct iot_err *e)
{
	char *p = strdup(dir);
	int ret = 0;

	if (!p)
		return iot_err_set(e, -ENOMEM, "out of memory");
	for (char *s = p + 1; *s && !ret; s++) {
		if (*s != '/' || s[-1] == '/')
			continue;
		*s = '\0';
		ret = make_one(p, e);
		*s = '/';
	}
	free(p);
	return ret ? ret : make_one(dir, e);
}

int iot_write_all(int fd, const void *buf, size_t len, size_t *done)
{
	const char *p = buf;
	size_t off = 0;
	int ret = 0;

	while (off < len) {
		ssize_t n = write(fd, p + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		off += (size_t)n;
	}
	if (done)
		*done = off;
	return ret;
}

int iot_write_atomic(const char *dir, const char *name, const void *data, size_t len,
                     struct iot_err *e)
{
	char tmp[PATH_MAX], file[PATH_MAX];
	const char *p = data;
	size_t done = 0;
	int fd, ret = 0;

	if ((size_t)snprintf(file, sizeof(file), "%s/%s", dir, name) >= sizeof(file) ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name) >= sizeof(tmp))
		return iot_err_set(e, -ENAMETOOLONG, "'%s/%s': path too long", dir, name);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return iot_err_set(e, -errno, "'%s': %s", tmp, strerror(errno));
	if ((ret = iot_write_all(fd, p, len, &done)))
		ret = iot_err_set(e, ret, "'%s': write: %s", tmp, strerror(-ret));
	if (!ret && fsync(fd))
		ret = iot_err_set(e, -errno, "'%s': fsync: %s", tmp, strerror(errno));
	if (close(fd) && !ret)
		ret = iot_err_set(e, -errno, "'%s': close: %s", tmp, strerror(errno));
	if (!ret && rename(tmp, file))
		ret = iot_err_set(e, -errno, "'%s': rename: %s", file, strerror(errno));
	if (ret) {
		unlink(tmp);
		return ret;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd))
		ret = iot_err_set(e, -errno, "'%s': fsync: %s", dir, strerror(errno));
	if (fd >= 0)
		close(fd);
	return ret;
}
