/* SPDX-License-Identifier: MIT */
/* What a sweep's run left in its directory: its output files, and how its capture ended. */
#include "sweep/runner_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/jsonint.h"
#include "formats/manifest.h"

int sweep_open_in(const char *dir, const char *name, int flags)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return open(path, flags | O_CLOEXEC, 0644);
}

/* The first OUTPUT_MAX bytes of RUNDIR/name (an empty buffer when it is missing). */
char *sweep_slurp(const char *dir, const char *name, size_t *len)
{
	int fd = sweep_open_in(dir, name, O_RDONLY);
	struct stat st;
	size_t cap = fd >= 0 && !fstat(fd, &st) && st.st_size >= 0 && st.st_size < OUTPUT_MAX
	                 ? (size_t)st.st_size
	                 : OUTPUT_MAX;
	char *buf = malloc(cap + 1);
	ssize_t n;

	*len = 0;
	if (buf && fd >= 0) {
		while (*len < cap &&
		       ((n = read(fd, buf + *len, cap - *len)) > 0 || (n < 0 && errno == EINTR)))
			if (n > 0)
				*len += (size_t)n;
	}
	if (fd >= 0)
		close(fd);
	if (buf)
		buf[*len] = 0;
	return buf;
}

/* The last line of RUNDIR/name, for messages (capture.log says why a capture did not start). */
static void last_line(const char *dir, const char *name, char *out, size_t cap)
{
	size_t len;
	char *buf = sweep_slurp(dir, name, &len), *p;

	out[0] = 0;
	if (!buf)
		return;
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		buf[--len] = 0;
	p = memrchr(buf, '\n', len);
	snprintf(out, cap, "%s", p ? p + 1 : buf);
	free(buf);
}

/* After a capture: what its manifest says about the run. */
enum run_end sweep_capture_outcome(const char *rundir, int st, char why, struct sweep_result *res)
{
	struct manifest m;
	struct iot_err me;
	const char *state;
	const json_t *w;

	if (manifest_load(rundir, &m, &me)) {
		char line[400];

		last_line(rundir, "capture.log", line, sizeof(line));
		snprintf(res->error, sizeof(res->error),
		         "the capture did not start (status %d): %.400s", st,
		         line[0] ? line : me.msg);
		return why == 'S' ? RUN_STOPPED : RUN_FATAL;
	}
	state = json_string_value(json_object_get(m.root, "state"));
	res->exit_status = m.have_exit_status ? m.exit_status : -1;
	w = json_object_get(json_object_get(m.root, "command"), "wall_ns");
	json_u64_get(w, &res->wall_ns); /* 0 when missing */
	if (!state)
		state = "?";
	if (!strcmp(state, "complete")) {
		const char *why_not =
		    json_string_value(json_object_get(json_object_get(m.root, "command"), "error"));

		/* the capture ran, its command could not: say why, as a shell would */
		if (why_not)
			snprintf(res->error, sizeof(res->error), "cannot run %s", why_not);
		manifest_release(&m);
		return RUN_OK;
	}
	if (why == 'S') {
		manifest_release(&m);
		return RUN_STOPPED;
	}
	if (!strcmp(state, "failed"))
		snprintf(res->error, sizeof(res->error), "the capture failed: %s",
		         json_string_value(json_object_get(m.root, "error"))
		             ? json_string_value(json_object_get(m.root, "error"))
		             : "?");
	else if (!strcmp(state, "interrupted") && why != 'T')
		snprintf(res->error, sizeof(res->error), "the capture was interrupted (status %d)",
		         st);
	else if (why != 'T')
		snprintf(res->error, sizeof(res->error),
		         "the capture ended in state '%s' (status %d)", state, st);
	manifest_release(&m);
	return RUN_FAILED;
}

/* The name of the first host runset.json says failed, with its reason, into out. */
static void failed_host(const json_t *set, char *out, size_t cap)
{
	const json_t *h;
	size_t i;

	json_array_foreach(json_object_get(set, "hosts"), i, h)
	{
		const char *st = json_string_value(json_object_get(h, "status"));
		const char *name = json_string_value(json_object_get(h, "name"));
		const char *why = json_string_value(json_object_get(h, "reason"));

		if (st && strcmp(st, "ok")) {
			snprintf(out, cap, "host %s failed: %s", name ? name : "?",
			         why ? why : "?");
			return;
		}
	}
	snprintf(out, cap, "a host's run did not come back whole");
}

/* After a capture on several hosts (--host): what RUNDIR/set/runset.json says about the run. */
enum run_end sweep_set_outcome(const char *rundir, int st, char why, struct sweep_result *res)
{
	char path[PATH_MAX + 64];
	json_error_t je;
	json_t *set, *cmd;
	const json_t *status;
	enum run_end end = RUN_OK;

	snprintf(path, sizeof(path), "%s/" SWEEP_SET_DIR "/runset.json", rundir);
	if (!(set = json_load_file(path, 0, &je)) || !json_is_object(set)) {
		char line[400];

		json_decref(set);
		/* capture --host says why on its standard error, which is the run's */
		last_line(rundir, "stderr", line, sizeof(line));
		snprintf(res->error, sizeof(res->error),
		         "the capture did not start (status %d): %.400s", st,
		         line[0] ? line : je.text);
		return why == 'S' ? RUN_STOPPED : RUN_FATAL;
	}
	cmd = json_object_get(set, "command");
	status = json_object_get(cmd, "status");
	res->exit_status = json_is_integer(status) ? (int)json_integer_value(status) : -1;
	json_u64_get(json_object_get(cmd, "wall_ns"), &res->wall_ns); /* 0 when missing */
	if (why == 'S') {
		json_decref(set);
		return RUN_STOPPED;
	}
	if (!json_is_true(json_object_get(set, "complete"))) {
		/* a cell's hosts are its run: one missing fails it, as a failed capture does */
		failed_host(set, res->error, sizeof(res->error));
		end = RUN_FAILED;
	} else if (json_is_integer(json_object_get(set, "stop_signal")) && why != 'T') {
		snprintf(res->error, sizeof(res->error), "the capture was interrupted (status %d)",
		         st);
		end = RUN_FAILED;
	} else if (json_is_false(json_object_get(cmd, "ran"))) {
		/* the exit status (127, 126) fails the run */
		snprintf(res->error, sizeof(res->error), "cannot run COMMAND (status %d)",
		         res->exit_status);
	}
	json_decref(set);
	return end;
}
