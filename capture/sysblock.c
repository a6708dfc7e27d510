/* SPDX-License-Identifier: MIT */
/* Block devices as sysfs and /proc/self/mountinfo describe them, for tracing and the manifest. */
#include "capture/cap_int.h"

#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/jsonint.h"
#include "formats/blkevent.h"

/* Copy with truncation (these are names and paths from sysfs, bounded in practice). */
static void scopy(char *dst, size_t cap, const char *src)
{
	size_t n = strnlen(src, cap - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

int cap_read_str(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (cap == 0)
		return -EINVAL;
	buf[0] = '\0';
	if (fd < 0)
		return -errno;
	n = read(fd, buf, cap - 1);
	if (n < 0) {
		int ret = -errno;
		close(fd);
		return ret;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

int cap_read_u64(const char *path, uint64_t *out)
{
	char buf[64], *end;
	int ret = cap_read_str(path, buf, sizeof(buf));

	if (ret)
		return ret;
	errno = 0;
	*out = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

int cap_write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	size_t len = strlen(s);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0 || (size_t)n != len) {
		int ret = n < 0 ? -errno : -EIO;
		close(fd);
		return ret;
	}
	if (close(fd))
		return -errno;
	return 0;
}

int cap_dev_resolve(const char *arg, unsigned *major, unsigned *minor, struct iot_err *e)
{
	char path[PATH_MAX];
	struct stat st;

	/* a bare kernel name means /dev/NAME (what blktrace -d accepts too) */
	if (!strchr(arg, '/'))
		snprintf(path, sizeof(path), "/dev/%s", arg);
	else
		scopy(path, sizeof(path), arg);
	if (stat(path, &st))
		return iot_err_set(e, -errno, "device '%s': %s", arg, strerror(errno));
	if (!S_ISBLK(st.st_mode))
		return iot_err_set(e, -ENOTBLK, "'%s' is not a block device", arg);
	*major = major(st.st_rdev);
	*minor = minor(st.st_rdev);
	return 0;
}

void cap_pick_bracketed(const char *s, char *out, size_t cap)
{
	const char *a = strchr(s, '['), *b = a ? strchr(a, ']') : NULL;
	size_t n;

	if (!cap)
		return;
	if (!a || !b) {
		scopy(out, cap, s);
		return;
	}
	n = (size_t)(b - a - 1);
	if (n >= cap)
		n = cap - 1;
	memcpy(out, a + 1, n);
	out[n] = '\0';
}

static void join(char *out, size_t cap, const char *a, const char *b)
{
	/* sysfs paths are short; a truncated path simply fails to open */
	if (snprintf(out, cap, "%s/%s", a, b) >= (int)cap)
		out[0] = '\0';
}

int cap_dev_probe(const char *sysroot, unsigned major, unsigned minor, struct cap_dev *d,
                  struct iot_err *e)
{
	char link[PATH_MAX], real[PATH_MAX], p[PATH_MAX + 64], buf[512];
	const char *base;
	uint64_t v;

	memset(d, 0, sizeof(*d));
	d->major = major;
	d->minor = minor;
	d->kdev = BLK_MKDEV(major, minor);
	d->rotational = -1;
	snprintf(link, sizeof(link), "%s/sys/dev/block/%u:%u", sysroot, major, minor);
	if (!realpath(link, real))
		return iot_err_set(e, -errno, "device %u:%u: '%s': %s", major, minor, link,
		                   strerror(errno));
	scopy(d->sysdir, sizeof(d->sysdir), real);
	base = strrchr(real, '/');
	scopy(d->name, sizeof(d->name), base ? base + 1 : real);
	join(p, sizeof(p), real, "partition");
	d->partition = access(p, F_OK) == 0;
	if (d->partition) {
		char parent[PATH_MAX];
		char *slash;

		scopy(parent, sizeof(parent), real);
		slash = strrchr(parent, '/');
		if (slash)
			*slash = '\0';
		base = strrchr(parent, '/');
		scopy(d->parent, sizeof(d->parent), base ? base + 1 : parent);
		join(d->queuedir, sizeof(d->queuedir), parent, "queue");
		join(p, sizeof(p), parent, "device/model");
	} else {
		join(d->queuedir, sizeof(d->queuedir), real, "queue");
		join(p, sizeof(p), real, "device/model");
	}
	if (!cap_read_str(p, buf, sizeof(buf)))
		scopy(d->model, sizeof(d->model), buf);
	join(p, sizeof(p), real, "size");
	if (!cap_read_u64(p, &v))
		d->size_bytes = v * 512;
	join(p, sizeof(p), d->queuedir, "logical_block_size");
	if (!cap_read_u64(p, &v))
		d->lbs = (unsigned)v;
	join(p, sizeof(p), d->queuedir, "rotational");
	if (!cap_read_u64(p, &v))
		d->rotational = v != 0;
	join(p, sizeof(p), d->queuedir, "scheduler");
	if (!cap_read_str(p, buf, sizeof(buf)))
		cap_pick_bracketed(buf, d->scheduler, sizeof(d->scheduler));
	join(p, sizeof(p), real, "loop/backing_file");
	if (!cap_read_str(p, buf, sizeof(buf)))
		scopy(d->backing_file, sizeof(d->backing_file), buf);
	snprintf(d->path, sizeof(d->path), "/dev/%s", d->name);
	return 0;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo */
static void unescape(char *s)
{
	char *o = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
}

/*
 * Each line (proc(5)): ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE
 * SUPEROPTIONS.
 */
int cap_mountinfo_split(char *line, struct cap_mountinfo *m)
{
	char *fld[64], *save = NULL, *tok;
	unsigned n = 0, dash = 0;

	line[strcspn(line, "\n")] = '\0';
	for (tok = strtok_r(line, " ", &save); tok && n < 64; tok = strtok_r(NULL, " ", &save))
		fld[n++] = tok;
	for (unsigned i = 6; i < n && !dash; i++)
		if (!strcmp(fld[i], "-"))
			dash = i;
	if (n < 6 || !dash || dash + 3 > n)
		return -EINVAL;
	m->has_dev = sscanf(fld[2], "%u:%u", &m->major, &m->minor) == 2;
	unescape(fld[4]);
	unescape(fld[dash + 2]);
	m->mountpoint = fld[4];
	m->options = fld[5];
	m->fstype = fld[dash + 1];
	m->source = fld[dash + 2];
	m->super = dash + 3 < n ? fld[dash + 3] : "";
	return 0;
}

/* btrfs reports an anonymous MAJ:MIN (0:NN), so the source device is compared too. */
int cap_mounts_json(FILE *f, const struct cap_dev *d, json_t *arr)
{
	char *line = NULL;
	size_t cap = 0;
	int found = 0;

	while (getline(&line, &cap, f) > 0) {
		struct cap_mountinfo m;
		int match;

		if (cap_mountinfo_split(line, &m))
			continue;
		match = m.has_dev && m.major == d->major && m.minor == d->minor;
		if (!match && !strncmp(m.source, "/dev/", 5)) {
			struct stat st;

			if (!stat(m.source, &st) && S_ISBLK(st.st_mode) &&
			    major(st.st_rdev) == d->major && minor(st.st_rdev) == d->minor)
				match = 1;
		}
		if (!match)
			continue;
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s, s:s}", "mountpoint",
		                                     m.mountpoint, "fstype", m.fstype, "source",
		                                     m.source, "options", m.options,
		                                     "super_options", m.super));
		found++;
	}
	free(line);
	return found;
}

json_t *cap_dev_json(const struct cap_dev *d)
{
	json_t *j = json_object();
	char mm[32];

	snprintf(mm, sizeof(mm), "%u:%u", d->major, d->minor);
	json_object_set_new(j, "name", json_string(d->name));
	json_object_set_new(j, "path", json_string(d->path));
	json_object_set_new(j, "dev", json_string(mm));
	json_object_set_new(j, "major", json_integer(d->major));
	json_object_set_new(j, "minor", json_integer(d->minor));
	json_object_set_new(j, "size_bytes", json_u64(d->size_bytes));
	json_object_set_new(j, "logical_block_size", json_integer(d->lbs));
	json_object_set_new(j, "rotational",
	                    d->rotational < 0 ? json_null() : json_boolean(d->rotational));
	json_object_set_new(j, "scheduler",
	                    d->scheduler[0] ? json_string(d->scheduler) : json_null());
	json_object_set_new(j, "model", d->model[0] ? json_string(d->model) : json_null());
	json_object_set_new(j, "partition", json_boolean(d->partition));
	json_object_set_new(j, "parent", d->partition ? json_string(d->parent) : json_null());
	if (d->backing_file[0])
		json_object_set_new(j, "backing_file", json_string(d->backing_file));
	return j;
}
