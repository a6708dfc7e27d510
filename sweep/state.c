/* SPDX-License-Identifier: MIT */
/* What survives a crash: sweep.json (the definition) and each run's result.json (its state). */
#include "sweep/sweep.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/jsonint.h"
#include "common/fs.h"

static const char *const state_names[] = {
    [SWEEP_RUN_PENDING] = "pending", [SWEEP_RUN_SETUP] = "setup",   [SWEEP_RUN_RUNNING] = "running",
    [SWEEP_RUN_DONE] = "done",       [SWEEP_RUN_FAILED] = "failed",
};
static const char *const teardown_names[] = {
    [SWEEP_TD_NONE] = "none",
    [SWEEP_TD_PENDING] = "pending",
    [SWEEP_TD_OK] = "ok",
    [SWEEP_TD_FAILED] = "failed",
};

const char *sweep_run_state_name(enum sweep_run_state s)
{
	return s <= SWEEP_RUN_FAILED ? state_names[s] : "?";
}

void sweep_result_release(struct sweep_result *r)
{
	json_decref(r->metrics);
	json_decref(r->root);
	r->metrics = r->root = NULL;
}

static int name_index(const char *s, const char *const *names, int n)
{
	for (int i = 0; s && i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static int save_json(const char *dir, const char *name, json_t *root, struct iot_err *e)
{
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_ENSURE_ASCII);
	size_t len;
	int ret;

	if (!text)
		return iot_err_set(e, -ENOMEM, "'%s/%s': cannot encode", dir, name);
	len = strlen(text);
	text[len++] = '\n';
	ret = iot_write_atomic(dir, name, text, len, e);
	free(text);
	return ret;
}

int sweep_result_parse(const char *buf, size_t len, struct sweep_result *r, struct iot_err *e)
{
	json_error_t je;
	json_t *j = json_loadb(buf, len, 0, &je);
	const json_t *v, *m;
	const char *key;
	int s, t;

	memset(r, 0, sizeof(*r));
	r->exit_status = -1;
	if (!j)
		return iot_err_set(e, -EINVAL, "not JSON: %s (line %d)", je.text, je.line);
	r->root = j;
	s = name_index(json_string_value(json_object_get(j, "state")), state_names,
	               SWEEP_RUN_FAILED + 1);
	t = name_index(json_string_value(json_object_get(j, "teardown")), teardown_names,
	               SWEEP_TD_FAILED + 1);
	if (s <= SWEEP_RUN_PENDING || !json_is_object(j)) {
		sweep_result_release(r);
		return iot_err_set(e, -EINVAL, "no run state in it");
	}
	r->state = (enum sweep_run_state)s;
	r->teardown = t < 0 ? SWEEP_TD_NONE : (enum sweep_teardown)t;
	if (json_is_integer(v = json_object_get(j, "attempt")) && json_integer_value(v) > 0 &&
	    json_integer_value(v) < 1000000)
		r->attempt = (unsigned)json_integer_value(v);
	if (json_is_integer(v = json_object_get(j, "exit_status")) && json_integer_value(v) >= 0 &&
	    json_integer_value(v) < 512)
		r->exit_status = (int)json_integer_value(v);
	json_u64_member(j, "wall_ns", &r->wall_ns);
	json_u64_member(j, "run_ns", &r->run_ns);
	if (json_is_string(v = json_object_get(j, "error")))
		snprintf(r->error, sizeof(r->error), "%s", json_string_value(v));
	r->metrics = json_object();
	json_object_foreach(json_object_get(j, "metrics"), key, m)
	{
		if (json_is_number(m))
			json_object_set_new(r->metrics, key, json_real(json_number_value(m)));
	}
	return 0;
}

int sweep_result_load(const char *rundir, struct sweep_result *r, struct iot_err *e)
{
	char path[PATH_MAX], *buf = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	memset(r, 0, sizeof(*r));
	r->exit_status = -1;
	if ((size_t)snprintf(path, sizeof(path), "%s/" SWEEP_RESULT, rundir) >= sizeof(path))
		return iot_err_set(e, -ENAMETOOLONG, "'%s': path too long", rundir);
	f = fopen(path, "r");
	if (!f)
		return iot_err_set(e, -errno, "'%s': %s", path, strerror(errno));
	/* a result is small; a huge one is not ours */
	buf = malloc(1 << 20);
	if (buf)
		len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	if (!buf)
		return iot_err_set(e, -ENOMEM, "out of memory");
	ret = sweep_result_parse(buf, len, r, e);
	free(buf);
	if (ret)
		iot_err_prefix(e, "'%s'", path);
	return ret;
}

int sweep_result_save(const char *rundir, const struct sweep_def *d, size_t cell, unsigned rep,
                      const struct sweep_result *r, struct iot_err *e)
{
	json_t *j = json_object();
	char cellpath[4096];
	int ret;

	if (sweep_cell_path(d, cell, cellpath, sizeof(cellpath)))
		cellpath[0] = 0;
	json_object_set_new(j, "format", json_string("iotape-sweep-run"));
	json_object_set_new(j, "state", json_string(sweep_run_state_name(r->state)));
	json_object_set_new(j, "teardown", json_string(teardown_names[r->teardown]));
	json_object_set_new(j, "cell", json_string(cellpath));
	json_object_set_new(j, "params", sweep_cell_params(d, cell));
	json_object_set_new(j, "rep", json_integer(rep));
	json_object_set_new(j, "attempt", json_integer(r->attempt ? r->attempt : 1));
	json_object_set_new(j, "captured", json_boolean(d->capture));
	if (r->exit_status >= 0)
		json_object_set_new(j, "exit_status", json_integer(r->exit_status));
	if (r->wall_ns)
		json_object_set_new(j, "wall_ns", json_u64(r->wall_ns));
	if (r->run_ns)
		json_object_set_new(j, "run_ns", json_u64(r->run_ns));
	if (r->error[0])
		json_object_set_new(j, "error", json_string(r->error));
	json_object_set_new(j, "metrics", r->metrics ? json_incref(r->metrics) : json_object());
	ret = save_json(rundir, SWEEP_RESULT, j, e);
	json_decref(j);
	return ret;
}

bool sweep_is_dir(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	return (size_t)snprintf(path, sizeof(path), "%s/" SWEEP_FILE, dir) < sizeof(path) &&
	       !stat(path, &st) && S_ISREG(st.st_mode);
}

int sweep_create(const char *dir, const struct sweep_def *d, struct iot_err *e)
{
	json_t *j;
	int ret;

	if ((ret = iot_mkdir_p(dir, e)))
		return ret;
	if (sweep_is_dir(dir))
		return iot_err_set(e, -EEXIST,
		                   "'%s' holds a sweep already: continue it with --resume, or "
		                   "choose a new directory",
		                   dir);
	j = sweep_def_to_json(d);
	ret = save_json(dir, SWEEP_FILE, j, e);
	json_decref(j);
	return ret;
}

int sweep_open(const char *dir, struct sweep_def *d, struct iot_err *e)
{
	char path[PATH_MAX];
	json_error_t je;
	json_t *j;
	int ret;

	sweep_def_init(d);
	if ((size_t)snprintf(path, sizeof(path), "%s/" SWEEP_FILE, dir) >= sizeof(path))
		return iot_err_set(e, -ENAMETOOLONG, "'%s': path too long", dir);
	if (access(path, F_OK))
		return iot_err_set(e, -errno, "'%s' is not a sweep (no %s: %s)", dir, SWEEP_FILE,
		                   strerror(errno));
	j = json_load_file(path, 0, &je);
	if (!j)
		return iot_err_set(e, -EINVAL, "'%s': %s (line %d)", path, je.text, je.line);
	ret = sweep_def_from_json(j, d, e);
	json_decref(j);
	if (ret) {
		iot_err_prefix(e, "'%s'", path);
		sweep_def_release(d);
	}
	return ret;
}

int sweep_lock(const char *dir, int *fd, struct iot_err *e)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/.lock", dir) >= sizeof(path))
		return iot_err_set(e, -ENAMETOOLONG, "'%s': path too long", dir);
	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (*fd < 0)
		return iot_err_set(e, -errno, "'%s': %s", path, strerror(errno));
	if (flock(*fd, LOCK_EX | LOCK_NB)) {
		int err = errno;

		close(*fd);
		*fd = -1;
		if (err == EWOULDBLOCK)
			return iot_err_set(e, -EBUSY, "another iotape sweep is running in '%s'",
			                   dir);
		return iot_err_set(e, -err, "'%s': flock: %s", path, strerror(err));
	}
	return 0;
}
