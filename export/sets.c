/* SPDX-License-Identifier: MIT */
/* Which per-CPU sets a RUN argument names, as blkparse's -i arguments would. */
#include "export/export.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The set name of a file NAME.blktrace.N or NAME.blktrace.N.gz, malloc'ed; NULL if not one. */
static char *set_of(const char *file)
{
	const char *p = strstr(file, ".blktrace."), *q;

	if (!p)
		return NULL;
	while ((q = strstr(p + 1, ".blktrace.")))
		p = q;
	q = p + strlen(".blktrace.");
	if (*q < '0' || *q > '9')
		return NULL;
	while (*q >= '0' && *q <= '9')
		q++;
	if (*q && strcmp(q, ".gz"))
		return NULL;
	return strndup(file, (size_t)(p - file));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void export_free_sets(char **sets, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		free(sets[i]);
	free(sets);
}

static int push(char ***sets, unsigned *n, char *s)
{
	char **v;

	if (!s)
		return -ENOMEM;
	v = realloc(*sets, (*n + 1) * sizeof(*v));
	if (!v) {
		free(s);
		return -ENOMEM;
	}
	*sets = v;
	(*sets)[(*n)++] = s;
	return 0;
}

static int from_dir(const char *run, char ***sets, unsigned *n, struct iot_err *e)
{
	DIR *d = opendir(run);
	struct dirent *de;
	char **names = NULL;
	unsigned nn = 0;
	size_t rl = strlen(run);
	int ret = 0;

	if (!d)
		return iot_err_set(e, -errno, "'%s': %s", run, strerror(errno));
	while (!ret && (de = readdir(d))) {
		char *s = set_of(de->d_name);

		if (s)
			ret = push(&names, &nn, s);
	}
	closedir(d);
	if (ret) {
		export_free_sets(names, nn);
		return iot_err_set(e, ret, "out of memory");
	}
	if (!nn)
		return iot_err_set(e, -ENOENT,
		                   "'%s': no blktrace files (NAME.blktrace.N) in directory", run);
	qsort(names, nn, sizeof(*names), cmp_str);
	while (rl > 1 && run[rl - 1] == '/')
		rl--;
	for (unsigned i = 0; i < nn && !ret; i++) {
		char *s;

		if (i && !strcmp(names[i], names[i - 1]))
			continue;
		ret = asprintf(&s, "%.*s/%s", (int)rl, run, names[i]) < 0 ? -ENOMEM
		                                                          : push(sets, n, s);
	}
	export_free_sets(names, nn);
	return ret ? iot_err_set(e, ret, "out of memory") : 0;
}

int export_find_sets(const char *run, char ***sets, unsigned *n, struct iot_err *e)
{
	struct stat st;
	char *s, *probe;
	int ret;

	*sets = NULL;
	*n = 0;
	if (stat(run, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			ret = from_dir(run, sets, n, e);
		else if ((s = set_of(run)))
			ret = push(sets, n, s) ? iot_err_set(e, -ENOMEM, "out of memory") : 0;
		else
			ret =
			    iot_err_set(e, -EINVAL,
			                "'%s': one trace file, not a per-CPU set (NAME.blktrace.N) "
			                "or run directory: blkparse reads such a file only from "
			                "stdin, which this export does not imitate",
			                run);
	} else {
		if (asprintf(&probe, "%s.blktrace.0", run) < 0)
			return iot_err_set(e, -ENOMEM, "out of memory");
		ret = stat(probe, &st);
		free(probe);
		if (ret && asprintf(&probe, "%s.blktrace.0.gz", run) >= 0) {
			ret = stat(probe, &st);
			free(probe);
		}
		if (ret)
			return iot_err_set(e, -ENOENT,
			                   "'%s': no such run directory or trace set "
			                   "(%s.blktrace.0)",
			                   run, run);
		ret = push(sets, n, strdup(run)) ? iot_err_set(e, -ENOMEM, "out of memory") : 0;
	}
	if (ret) {
		export_free_sets(*sets, *n);
		*sets = NULL;
		*n = 0;
	}
	return ret;
}
