/* SPDX-License-Identifier: MIT */
/* The run directory's layout, in one place: trace sets, net.pcap*, manifest.json; and INPUTs. */
#include "formats/rundir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The captures a run directory may hold, the one read first. */
static const char *const capture_names[] = {
    "net.pcap", "net.pcapng", "net.pcap.gz", "net.pcapng.gz", "net.pcap.zst", "net.pcapng.zst",
};
#define NCAPTURE_NAMES (sizeof(capture_names) / sizeof(capture_names[0]))

static bool compressed_suffix(const char *p)
{
	return !*p || !strcmp(p, ".gz") || !strcmp(p, ".zst");
}

/* The CPU part of NAME.blktrace.N[.gz|.zst] (after the last ".blktrace."), or NULL. */
static const char *set_cpu(const char *name)
{
	const char *p = strstr(name, RUNDIR_SET_INFIX), *d;

	if (!p || p == name)
		return NULL;
	while ((d = strstr(p + 1, RUNDIR_SET_INFIX)))
		p = d;
	p += strlen(RUNDIR_SET_INFIX);
	return *p >= '0' && *p <= '9' ? p : NULL;
}

bool rundir_is_trace_file(const char *name)
{
	const char *p = set_cpu(name);

	if (!p)
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	return compressed_suffix(p);
}

bool rundir_is_capture_file(const char *name)
{
	for (size_t i = 0; i < NCAPTURE_NAMES; i++)
		if (!strcmp(name, capture_names[i]))
			return true;
	return false;
}

bool rundir_is_run_file(const char *name)
{
	return !strcmp(name, RUNDIR_MANIFEST) || !strcmp(name, RUNDIR_SUMMARY) ||
	       rundir_is_trace_file(name) || !strncmp(name, RUNDIR_PCAP, strlen(RUNDIR_PCAP));
}

int rundir_trace_path(char *buf, size_t len, const char *dir, const char *dev, unsigned cpu)
{
	int n = snprintf(buf, len, "%s/%s" RUNDIR_SET_INFIX "%u", dir, dev, cpu);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* ---- lists ------------------------------------------------------------------------- */

struct list {
	char **v;
	unsigned n, cap;
};

static int list_add(struct list *l, const char *dir, const char *name, struct iot_err *e)
{
	char *p;

	if (l->n == l->cap) {
		unsigned cap = l->cap ? l->cap * 2 : 16;
		char **v = cap > l->cap ? realloc(l->v, cap * sizeof(*v)) : NULL;

		if (!v)
			return iot_err_set(e, -ENOMEM, "out of memory");
		l->v = v;
		l->cap = cap;
	}
	if (!dir)
		p = strdup(name);
	else if (asprintf(&p, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", name) < 0)
		p = NULL;
	if (!p)
		return iot_err_set(e, -ENOMEM, "out of memory");
	l->v[l->n++] = p;
	return 0;
}

void rundir_free_list(char **paths, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

/* Set files in blkparse's order: by set name, then CPU by number (0, 1, ..., 10). */
static int cmp_trace(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	const char *cx = set_cpu(x), *cy = set_cpu(y);
	size_t nx = (size_t)(cx - x), ny = (size_t)(cy - y);
	unsigned long long ux, uy;
	int c = strncmp(x, y, nx < ny ? nx : ny);

	if (c || nx != ny)
		return c ? c : nx < ny ? -1 : 1;
	ux = strtoull(cx, NULL, 10);
	uy = strtoull(cy, NULL, 10);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	return strcmp(x, y);
}

static bool is_regular(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* ---- run directories and sets ------------------------------------------------------- */

int rundir_scan(struct rundir *rd, const char *dir, struct iot_err *e)
{
	struct list traces = {0}, caps = {0};
	struct dirent *de;
	DIR *d;
	int ret = 0;
	char *m;

	memset(rd, 0, sizeof(*rd));
	d = opendir(dir);
	if (!d)
		return iot_err_set(e, -errno, "'%s': %s", dir, strerror(errno));
	while (!ret && (de = readdir(d)))
		if (rundir_is_trace_file(de->d_name))
			ret = list_add(&traces, dir, de->d_name, e);
	closedir(d);
	for (size_t i = 0; !ret && i < NCAPTURE_NAMES; i++) {
		char *p;

		if (asprintf(&p, "%s/%s", dir, capture_names[i]) < 0) {
			ret = iot_err_set(e, -ENOMEM, "out of memory");
			break;
		}
		if (is_regular(p))
			ret = list_add(&caps, dir, capture_names[i], e);
		free(p);
	}
	rd->dir = strdup(dir);
	if (!ret && !rd->dir)
		ret = iot_err_set(e, -ENOMEM, "out of memory");
	if (!ret && asprintf(&m, "%s/" RUNDIR_MANIFEST, dir) >= 0) {
		if (is_regular(m))
			rd->manifest = m;
		else
			free(m);
	}
	if (!ret && asprintf(&m, "%s/" RUNDIR_SUMMARY, dir) >= 0) {
		if (is_regular(m))
			rd->summary = m;
		else
			free(m);
	}
	if (traces.n)
		qsort(traces.v, traces.n, sizeof(*traces.v), cmp_trace);
	rd->traces = traces.v;
	rd->ntraces = traces.n;
	rd->captures = caps.v;
	rd->ncaptures = caps.n;
	if (ret)
		rundir_release(rd);
	return ret;
}

void rundir_release(struct rundir *rd)
{
	rundir_free_list(rd->traces, rd->ntraces);
	rundir_free_list(rd->captures, rd->ncaptures);
	free(rd->manifest);
	free(rd->summary);
	free(rd->dir);
	memset(rd, 0, sizeof(*rd));
}

int rundir_set_files(const char *name, char ***paths, unsigned *n, struct iot_err *e)
{
	const char *slash = strrchr(name, '/'), *base = slash ? slash + 1 : name;
	size_t blen = strlen(base);
	struct list l = {0};
	struct dirent *de;
	char *dir;
	DIR *d;
	int ret = 0;

	*paths = NULL;
	*n = 0;
	dir = slash ? strndup(name, (size_t)(slash - name)) : strdup(".");
	if (!dir)
		return iot_err_set(e, -ENOMEM, "out of memory");
	if (slash && slash == name) { /* "/NAME" */
		free(dir);
		dir = strdup("/");
		if (!dir)
			return iot_err_set(e, -ENOMEM, "out of memory");
	}
	d = *base ? opendir(dir) : NULL;
	while (!ret && d && (de = readdir(d))) {
		/* exactly NAME.blktrace.N: not OTHERNAME.blktrace.N, not NAME.x.blktrace.N */
		if (!strncmp(de->d_name, base, blen) &&
		    !strncmp(de->d_name + blen, RUNDIR_SET_INFIX, strlen(RUNDIR_SET_INFIX)) &&
		    set_cpu(de->d_name) == de->d_name + blen + strlen(RUNDIR_SET_INFIX) &&
		    rundir_is_trace_file(de->d_name))
			ret = list_add(&l, slash ? dir : NULL, de->d_name, e);
	}
	if (d)
		closedir(d);
	free(dir);
	if (!ret && !l.n)
		ret = iot_err_set(e, -ENOENT,
		                  "'%s': no such file, directory or trace set (%s" RUNDIR_SET_INFIX
		                  "N)",
		                  name, name);
	if (ret) {
		rundir_free_list(l.v, l.n);
		return ret;
	}
	qsort(l.v, l.n, sizeof(*l.v), cmp_trace);
	*paths = l.v;
	*n = l.n;
	return 0;
}

/* ---- INPUT arguments ---------------------------------------------------------------- */

int run_input_open(struct run_input *ri, const char *arg, struct iot_err *e)
{
	struct stat st;
	int ret;

	memset(ri, 0, sizeof(*ri));
	ri->arg = arg;
	if (!strcmp(arg, "-")) {
		ri->kind = RUN_INPUT_STREAM;
		return in_stream_open(&ri->in, arg, e);
	}
	if (stat(arg, &st)) {
		int err = errno;

		if (err == ELOOP)
			return iot_err_set(e, -ELOOP, "'%s': a symbolic link loop", arg);
		if (err != ENOENT)
			return iot_err_set(e, -err, "'%s': %s", arg, strerror(err));
		ri->kind = RUN_INPUT_SET;
		ret = rundir_set_files(arg, &ri->set, &ri->nset, e);
		if (ret == -ENOENT && !lstat(arg, &st))
			return iot_err_set(e, -ENOENT, "'%s': a dangling symbolic link", arg);
		return ret;
	}
	if (S_ISDIR(st.st_mode)) {
		ri->kind = RUN_INPUT_DIR;
		return rundir_scan(&ri->rd, arg, e);
	}
	ri->kind = RUN_INPUT_STREAM;
	return in_stream_open(&ri->in, arg, e);
}

void run_input_release(struct run_input *ri)
{
	in_stream_close(ri->in);
	rundir_release(&ri->rd);
	rundir_free_list(ri->set, ri->nset);
	memset(ri, 0, sizeof(*ri));
}
