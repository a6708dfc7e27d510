/* SPDX-License-Identifier: MIT */
/* Small file-system helpers: mkdir -p. */
#include "common/fs.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
