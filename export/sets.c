/* SPDX-License-Identifier: MIT */
/* Which per-CPU sets a RUN argument names, as blkparse's -i arguments would. */
#include "export/export.h"
#include "formats/rundir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The set of a trace file "DIR/NAME.blktrace.N[.gz|.zst]": "DIR/NAME", malloc'ed; NULL
 * if it is not one (formats/rundir.h knows the names). */
static char *set_of(const char *path)
{
	const char *base = strrchr(path, '/'), *p, *q;

	base = base ? base + 1 : path;
	if (!rundir_is_trace_file(base))
		return NULL;
	for (p = strstr(base, RUNDIR_SET_INFIX); (q = strstr(p + 1, RUNDIR_SET_INFIX));)
		p = q;
	return strndup(path, (size_t)(p - path));
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
	struct rundir rd;
	size_t rl = strlen(run);
	int ret;

	if ((ret = rundir_scan(&rd, run, e)))
		return ret;
	if (!rd.ntraces) {
		rundir_release(&rd);
		return iot_err_set(e, -ENOENT,
		                   "'%s': no blktrace files (NAME.blktrace.N) in directory", run);
	}
	while (rl > 1 && run[rl - 1] == '/')
		rl--;
	/* the traces come sorted by name: a set's files are next to each other */
	for (unsigned i = 0; i < rd.ntraces && !ret; i++) {
		char *set = set_of(rd.traces[i]), *s;
		const char *name = set ? strrchr(set, '/') : NULL;

		name = name ? name + 1 : set;
		if (!set)
			continue;
		if (asprintf(&s, "%.*s/%s", (int)rl, run, name) < 0)
			ret = -ENOMEM;
		else if (*n && !strcmp((*sets)[*n - 1], s))
			free(s);
		else
			ret = push(sets, n, s);
		free(set);
	}
	rundir_release(&rd);
	return ret ? iot_err_set(e, ret, "out of memory") : 0;
}

int export_find_sets(const char *run, char ***sets, unsigned *n, struct iot_err *e)
{
	struct stat st;
	char *s;
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
		char **files;
		unsigned nf;

		if ((ret = rundir_set_files(run, &files, &nf, e)))
			return ret;
		rundir_free_list(files, nf);
		ret = push(sets, n, strdup(run)) ? iot_err_set(e, -ENOMEM, "out of memory") : 0;
	}
	if (ret) {
		export_free_sets(*sets, *n);
		*sets = NULL;
		*n = 0;
	}
	return ret;
}
