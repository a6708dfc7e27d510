/* SPDX-License-Identifier: MIT */
/* An NFS replay's outputs (--record, --capture) kept out of its target directory. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/nfs_replay.h"

#define UP_MAX 4096 /* ancestors followed, as a bound against a loop of mounts */

static bool same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Is dir (an O_PATH descriptor, consumed) the object want or inside it? '..' is followed up
 * to the root, so symbolic links and bind mounts on the way are seen for what they are. */
static bool under(int dir, const struct stat *want)
{
	struct stat st, prev = {0};

	for (unsigned k = 0; dir >= 0 && k < UP_MAX; k++) {
		int up;

		if (fstat(dir, &st) || (k && same(&st, &prev)))
			break; /* the root: its '..' is itself */
		if (same(&st, want)) {
			close(dir);
			return true;
		}
		prev = st;
		up = openat(dir, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(dir);
		dir = up;
	}
	if (dir >= 0)
		close(dir);
	return false;
}

/* An O_PATH descriptor of path, or of its nearest ancestor that exists; *whole says which. */
static int nearest(const char *path, bool *whole)
{
	char p[PATH_MAX];
	size_t n = strlen(path);

	*whole = true;
	if (!n || n >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, path, n + 1);
	for (;;) {
		int fd = open(p, O_PATH | O_CLOEXEC);
		char *s;

		if (fd >= 0 || errno != ENOENT)
			return fd >= 0 ? fd : -errno;
		*whole = false;
		while (n > 1 && p[n - 1] == '/')
			p[--n] = 0;
		s = strrchr(p, '/');
		if (!s) {
			fd = open(".", O_PATH | O_CLOEXEC);
			return fd >= 0 ? fd : -errno;
		}
		n = s == p ? 1 : (size_t)(s - p);
		p[n] = 0;
	}
}

/*
 * The house rule (no output is an input or a target) for the NFS replay, until the shared
 * function of the same rule replaces this one: out (what --record or --capture writes) must
 * not be the target directory, lie inside it, or contain it. The workload's own calls create,
 * truncate, rename and remove what is in the target: a record there is destroyed by the
 * replay it records.
 */
int nfs_replay_check_output(const char *opt, const char *out, const char *target, struct iot_err *e)
{
	struct stat tg, os;
	bool whole;
	int fd;

	if (!out || !target)
		return 0;
	if (stat(target, &tg))
		return 0; /* opening the target says what is wrong with it */
	fd = nearest(out, &whole);
	if (fd < 0)
		return iot_err_set(e, fd, "%s '%s': %s", opt, out, strerror(-fd));
	if (fstat(fd, &os)) {
		int err = -errno;

		close(fd);
		return iot_err_set(e, err, "%s '%s': %s", opt, out, strerror(-err));
	}
	if (under(fd, &tg))
		return iot_err_set(e, -EINVAL,
		                   "%s '%s' is in the replay's target '%s': the workload's calls "
		                   "would overwrite or remove it (give a directory outside it)",
		                   opt, out, target);
	if (whole && S_ISDIR(os.st_mode)) {
		fd = open(target, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0 && under(fd, &os))
			return iot_err_set(e, -EINVAL,
			                   "%s '%s' contains the replay's target '%s' (give a "
			                   "directory beside it)",
			                   opt, out, target);
	}
	return 0;
}
