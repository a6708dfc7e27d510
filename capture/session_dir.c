/* SPDX-License-Identifier: MIT */
/* A capture's run directory: checked against the outputs, prepared, room kept for the last
 * manifest, traces removed. */
#include "capture/session_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/fs.h"
#include "formats/outcheck.h"
#include "formats/rundir.h"

/* Room kept for the final manifest: a disk that the trace fills up must still take it */
#define RESERVE_NAME ".manifest.reserve"
#define RESERVE_MIN (64u << 10)

/* A run directory is created if missing (with its parents); an existing one must not hold a capture
 * already. */
int session_prepare_rundir(const char *dir, struct iot_err *e)
{
	DIR *d;
	struct dirent *de;
	int ret = 0;

	if ((ret = iot_mkdir_p(dir, e))) {
		iot_err_prefix(e, "run directory '%s'", dir);
		return ret;
	}
	d = opendir(dir);
	if (!d)
		return iot_err_set(e, -errno, "run directory '%s': %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		if (rundir_is_run_file(de->d_name)) {
			ret = iot_err_set(e, -EEXIST,
			                  "run directory '%s' already holds a capture ('%s'); use "
			                  "a new one",
			                  dir, de->d_name);
			break;
		}
	}
	closedir(d);
	return ret;
}

/*
 * No output is ever an input, nor another output (formats/outcheck.h): --stdout and --stderr
 * (which may be one file) are not RUNDIR, nor a file the capture writes in it (a trace set,
 * the packets, the manifest), and RUNDIR is no directory either of them names.
 */
int session_check_outputs(const struct cap_opts *o, struct iot_err *e)
{
	const char *files[] = {o->cmd_stdout, o->cmd_stderr}, *opts[] = {"--stdout", "--stderr"};
	struct stat dir, st;
	int ret;

	for (unsigned i = 0; i < 2; i++) {
		const struct out_spec outs[] = {{o->rundir, OUT_DIR, "-o"},
		                                {files[i], OUT_FILE, opts[i]}};
		const char *slash;
		char *parent;

		if (!files[i])
			continue;
		if ((ret = out_check(NULL, 0, NULL, 0, outs, 2, e)))
			return ret;
		slash = strrchr(files[i], '/');
		parent = slash ? strndup(files[i], (size_t)(slash - files[i]) + (slash == files[i]))
		               : strdup(".");
		if (!parent)
			return iot_err_set(e, -ENOMEM, "out of memory");
		ret = !stat(parent, &st) && !stat(o->rundir, &dir) && st.st_dev == dir.st_dev &&
		      st.st_ino == dir.st_ino && rundir_is_run_file(slash ? slash + 1 : files[i]);
		free(parent);
		if (ret)
			return iot_err_set(e, -EINVAL,
			                   "%s '%s' is a file the capture writes in '%s'", opts[i],
			                   files[i], o->rundir);
	}
	return 0;
}

/* COMMAND's output file (--stdout, --stderr), opened before tracing starts so that a bad path
 * stops nothing half-way. */
int session_open_output(const char *path, const char *opt, int *fd, struct iot_err *e)
{
	if (!path)
		return 0;
	*fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (*fd < 0)
		return iot_err_set(e, -errno, "%s '%s': %s", opt, path, strerror(errno));
	return 0;
}

/* As blktrace warns: writing the trace to a traced device traces its own writes. */
void session_warn_self_trace(const struct run *r)
{
	const struct cap_opts *o = r->o;
	struct stat st;

	for (unsigned i = 0; i < o->ndevs && !stat(o->rundir, &st); i++)
		if (major(st.st_dev) == r->devs[i].major && minor(st.st_dev) == r->devs[i].minor)
			cap_say(
			    o->notice, o->arg,
			    "warning: '%s' is on traced device '%s': the trace will include its "
			    "own writes",
			    o->rundir, r->devs[i].name);
}

/*
 * The manifest is rewritten at the end (state, counts, error), and a capture that stopped
 * because the disk is full must still be able to say so: the space is set aside at the start
 * in a hidden file, freed right before the final write. Four times the first manifest covers
 * what the end adds (counts, clocks, per-CPU ring-buffer figures).
 */
int session_reserve_room(struct run *r, size_t manifest_len, struct iot_err *e)
{
	off_t len = (off_t)(4 * manifest_len > RESERVE_MIN ? 4 * manifest_len : RESERVE_MIN);
	int fd, err;

	snprintf(r->reserve, sizeof(r->reserve), "%s/" RESERVE_NAME, r->o->rundir);
	fd = open(r->reserve, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = errno;
		r->reserve[0] = '\0';
		return iot_err_set(e, -err, "'%s/%s': %s", r->o->rundir, RESERVE_NAME,
		                   strerror(err));
	}
	err = posix_fallocate(fd, 0, len);
	if (err == EOPNOTSUPP || err == EINVAL) {
		/* no fallocate here: real blocks of zeros do the same */
		static const char zero[4096];

		err = 0;
		for (off_t done = 0; done < len && !err; done += (off_t)sizeof(zero))
			if (write(fd, zero, sizeof(zero)) != (ssize_t)sizeof(zero))
				err = errno ? errno : EIO;
	}
	if (close(fd) && !err)
		err = errno;
	if (err) {
		unlink(r->reserve);
		r->reserve[0] = '\0';
		return iot_err_set(e, -err, "'%s/%s': %s", r->o->rundir, RESERVE_NAME,
		                   strerror(err));
	}
	return 0;
}

void session_release_room(struct run *r)
{
	if (r->reserve[0])
		unlink(r->reserve);
	r->reserve[0] = '\0';
}

/* Remove device i's trace files (NAME.blktrace.N). */
void session_remove_traces(const struct run *r, unsigned i)
{
	char p[4096];

	for (unsigned c = 0; c < 1024; c++)
		if (rundir_trace_path(p, sizeof(p), r->o->rundir, r->devs[i].name, c) ||
		    (unlink(p) && c > 256))
			break;
}
