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

/* PATH with its symbolic links followed to the name they point at (which need not exist):
 * renaming over the link itself would replace the link, not the file it names. */
static char *follow(const char *path)
{
	char *p = strdup(path);

	for (int hops = 0; p && hops < 40; hops++) {
		char link[PATH_MAX], *slash, *q;
		struct stat st;
		ssize_t n;

		if (lstat(p, &st) || !S_ISLNK(st.st_mode))
			return p;
		n = readlink(p, link, sizeof(link) - 1);
		if (n < 0)
			return p;
		link[n] = '\0';
		slash = strrchr(p, '/');
		if (link[0] == '/' || !slash) {
			q = strdup(link);
		} else {
			slash[1] = '\0';
			if (asprintf(&q, "%s%s", p, link) < 0)
				q = NULL;
		}
		free(p);
		p = q;
	}
	return p;
}

int iot_outfile_open(struct iot_outfile *o, const char *path, unsigned flags, struct iot_err *e)
{
	const char *slash, *name;
	struct stat st;
	int ret;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->sync = flags & IOT_OUT_SYNC;
	if (!strcmp(path, "-")) {
		o->fd = STDOUT_FILENO;
		return 0;
	}
	if (!(o->path = follow(path)))
		return iot_err_set(e, -ENOMEM, "out of memory");
	if (!stat(o->path, &st) && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode)) {
			ret = iot_err_set(e, -EISDIR, "'%s': %s", path, strerror(EISDIR));
			goto fail;
		}
		o->fd = open(o->path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (o->fd < 0) {
			ret = iot_err_set(e, -errno, "'%s': %s", path, strerror(errno));
			goto fail;
		}
		return 0;
	}
	slash = strrchr(o->path, '/');
	name = slash ? slash + 1 : o->path;
	for (unsigned n = 0;; n++) {
		free(o->tmp);
		if (asprintf(&o->tmp, "%.*s.%s.%ld-%u.tmp", (int)(name - o->path), o->path, name,
		             (long)getpid(), n) < 0) {
			o->tmp = NULL;
			ret = iot_err_set(e, -ENOMEM, "out of memory");
			goto fail;
		}
		o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
		if (o->fd >= 0)
			return 0;
		if (errno != EEXIST || n >= 1000) {
			ret = iot_err_set(e, -errno, "'%s': %s", path, strerror(errno));
			goto fail;
		}
	}
fail:
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	return ret;
}

FILE *iot_outfile_stream(struct iot_outfile *o)
{
	if (!o->f && o->fd >= 0)
		o->f = o->fd == STDOUT_FILENO ? stdout : fdopen(o->fd, "w");
	return o->f;
}

static void outfile_free(struct iot_outfile *o)
{
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	o->f = NULL;
	o->fd = -1;
}

void iot_outfile_abort(struct iot_outfile *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	else if (o->fd > STDERR_FILENO)
		close(o->fd);
	if (o->tmp)
		unlink(o->tmp);
	outfile_free(o);
}

int iot_outfile_suspend(struct iot_outfile *o, struct iot_err *e)
{
	int c;

	if (o->fd <= STDERR_FILENO)
		return 0;
	if (o->f && (fflush(o->f) || ferror(o->f))) {
		int err = errno ? errno : EIO;

		fclose(o->f);
		o->f = NULL;
		o->fd = -1;
		return iot_err_set(e, -err, "'%s': write: %s", o->path, strerror(err));
	}
	c = o->f ? fclose(o->f) : close(o->fd);
	o->f = NULL;
	o->fd = -1;
	return c ? iot_err_set(e, -errno, "'%s': close: %s", o->path, strerror(errno)) : 0;
}

int iot_outfile_resume(struct iot_outfile *o, struct iot_err *e)
{
	if (o->fd >= 0)
		return 0;
	o->fd = open(o->tmp ? o->tmp : o->path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
	return o->fd < 0 ? iot_err_set(e, -errno, "'%s': %s", o->path, strerror(errno)) : 0;
}

int iot_outfile_commit(struct iot_outfile *o, struct iot_err *e)
{
	const char *show = o->path ? o->path : "standard output";
	int ret = 0;

	if (o->f && (fflush(o->f) || ferror(o->f)))
		ret = iot_err_set(e, -(errno ? errno : EIO), "'%s': write: %s", show,
		                  strerror(errno ? errno : EIO));
	if (!ret && o->sync && o->tmp && fsync(o->fd))
		ret = iot_err_set(e, -errno, "'%s': fsync: %s", show, strerror(errno));
	if (o->fd > STDERR_FILENO) {
		int c = o->f ? fclose(o->f) : close(o->fd);

		if (c && !ret)
			ret = iot_err_set(e, -errno, "'%s': close: %s", show, strerror(errno));
		o->f = NULL;
		o->fd = -1;
	}
	if (!ret && o->tmp && rename(o->tmp, o->path))
		ret = iot_err_set(e, -errno, "'%s': rename: %s", show, strerror(errno));
	if (ret) {
		iot_outfile_abort(o);
		return ret;
	}
	if (o->sync && o->tmp) {
		const char *slash = strrchr(o->path, '/');
		char *dir = slash ? strndup(o->path, (size_t)(slash - o->path) + (slash == o->path))
		                  : strdup(".");
		int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

		if (fd < 0 || fsync(fd))
			ret = iot_err_set(e, dir ? -errno : -ENOMEM, "'%s': fsync: %s",
			                  dir ? dir : show, strerror(dir ? errno : ENOMEM));
		if (fd >= 0)
			close(fd);
		free(dir);
	}
	outfile_free(o);
	return ret;
}

int iot_write_file(const char *path, const void *data, size_t len, unsigned flags,
                   struct iot_err *e)
{
	struct iot_outfile o;
	int ret;

	if ((ret = iot_outfile_open(&o, path, flags, e)))
		return ret;
	if ((ret = iot_write_all(o.fd, data, len, NULL))) {
		iot_err_set(e, ret, "'%s': write: %s", path, strerror(-ret));
		iot_outfile_abort(&o);
		return ret;
	}
	return iot_outfile_commit(&o, e);
}

int iot_write_atomic(const char *dir, const char *name, const void *data, size_t len,
                     struct iot_err *e)
{
	char file[PATH_MAX];

	if ((size_t)snprintf(file, sizeof(file), "%s/%s", dir, name) >= sizeof(file))
		return iot_err_set(e, -ENAMETOOLONG, "'%s/%s': path too long", dir, name);
	return iot_write_file(file, data, len, IOT_OUT_SYNC, e);
}
