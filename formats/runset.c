/* SPDX-License-Identifier: MIT */
/* A run set's manifest (SET/runset.json) read back from untrusted bytes: its hosts, its failed
 * hosts, the set as readers take it. capture/runset.c writes it. */
#include "formats/runset.h"

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void runset_hosts_free(struct runset_host *hosts, unsigned n)
{
	for (unsigned i = 0; hosts && i < n; i++) {
		free(hosts[i].run);
		free(hosts[i].name);
	}
	free(hosts);
}

/* The hosts of a parsed runset.json (root: taken), their runs under dir; path names it in
 * messages. */
/* A run's name is a directory in the set, never a path out of it. */
static bool run_in_set(const char *run)
{
	return run && *run && !strchr(run, '/') && strcmp(run, "..") && strcmp(run, ".");
}

static int parse_hosts(json_t *root, const char *dir, const char *path, struct runset_host **out,
                       unsigned *n, struct iot_err *e)
{
	json_t *hosts, *h;
	size_t i;
	struct runset_host *r = NULL;
	unsigned k = 0;

	hosts = json_object_get(root, "hosts");
	if (strcmp(json_string_value(json_object_get(root, "kind")) ?: "", "iotape-runset") ||
	    !json_is_array(hosts) || json_array_size(hosts) > RUNSET_MAX_HOSTS) {
		json_decref(root);
		return iot_err_set(e, -EINVAL, "'%s' is not a run set's manifest", path);
	}
	if (!(r = calloc(json_array_size(hosts) + 1, sizeof(*r))))
		goto nomem;
	json_array_foreach(hosts, i, h)
	{
		const char *run = json_string_value(json_object_get(h, "run"));
		const char *name = json_string_value(json_object_get(h, "name"));
		json_t *clk = json_object_get(h, "clock");
		json_int_t err = json_integer_value(json_object_get(clk, "error_ns"));

		if (!name || !run_in_set(run))
			continue;
		if (asprintf(&r[k].run, "%s/%s", dir, run) < 0) {
			r[k].run = NULL;
			goto nomem;
		}
		r[k].name = strdup(name);
		r[k].offset_ns = json_integer_value(json_object_get(clk, "offset_ns"));
		r[k].error_ns = err > 0 ? (uint64_t)err : 0; /* a negative error is none */
		r[k].ok = !strcmp(json_string_value(json_object_get(h, "status")) ?: "", "ok");
		if (!r[k++].name)
			goto nomem;
	}
	json_decref(root);
	*out = r;
	*n = k;
	return 0;
nomem:
	json_decref(root);
	runset_hosts_free(r, k);
	return iot_err_set(e, -ENOMEM, "out of memory");
}

int runset_load(const char *dir, struct runset_host **out, unsigned *n, struct iot_err *e)
{
	char path[4200];
	json_error_t je;
	json_t *root;

	*n = 0;
	*out = NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, RUNSET_FILE);
	if (access(path, F_OK))
		return -ENOENT;
	if (!(root = json_load_file(path, 0, &je)))
		return iot_err_set(e, -EINVAL, "'%s': line %d: %s", path, je.line, je.text);
	return parse_hosts(root, dir, path, out, n, e);
}

int runset_parse(const char *text, size_t len, const char *dir, struct runset_host **out,
                 unsigned *n, struct iot_err *e)
{
	json_error_t je;
	json_t *root;

	*n = 0;
	*out = NULL;
	if (!(root = json_loadb(text, len, 0, &je)))
		return iot_err_set(e, -EINVAL, "'%s/%s': line %d: %s", dir, RUNSET_FILE, je.line,
		                   je.text);
	return parse_hosts(root, dir, RUNSET_FILE, out, n, e);
}

int runset_faults(const char *dir, struct runset_fault **out, unsigned *n, struct iot_err *e)
{
	char path[4200];
	json_error_t je;
	json_t *root, *hosts, *h;
	size_t i;
	struct runset_fault *f;

	*n = 0;
	*out = NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, RUNSET_FILE);
	if (access(path, F_OK))
		return -ENOENT;
	if (!(root = json_load_file(path, 0, &je)))
		return iot_err_set(e, -EINVAL, "'%s': line %d: %s", path, je.line, je.text);
	hosts = json_object_get(root, "hosts");
	if (strcmp(json_string_value(json_object_get(root, "kind")) ?: "", "iotape-runset") ||
	    !json_is_array(hosts) || json_array_size(hosts) > RUNSET_MAX_HOSTS) {
		json_decref(root);
		return iot_err_set(e, -EINVAL, "'%s' is not a run set's manifest", path);
	}
	if (!(f = calloc(json_array_size(hosts) + 1, sizeof(*f)))) {
		json_decref(root);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	json_array_foreach(hosts, i, h)
	{
		const char *name = json_string_value(json_object_get(h, "name"));
		const char *reason = json_string_value(json_object_get(h, "reason"));

		if (!strcmp(json_string_value(json_object_get(h, "status")) ?: "", "ok"))
			continue;
		snprintf(f[*n].name, sizeof(f[*n].name), "%s", name ? name : "?");
		snprintf(f[*n].reason, sizeof(f[*n].reason), "%s",
		         reason ? reason : "no reason given");
		/* a run of it in the set, as runset_load() takes one */
		f[*n].have_run = name && run_in_set(json_string_value(json_object_get(h, "run")));
		(*n)++;
	}
	json_decref(root);
	*out = f;
	return 0;
}

void runset_release(struct runset *rs)
{
	runset_hosts_free(rs->h, rs->n);
	free(rs->f);
	memset(rs, 0, sizeof(*rs));
}

int runset_open(const char *dir, struct runset *rs, struct iot_err *e)
{
	unsigned k = 0;
	int ret;

	memset(rs, 0, sizeof(*rs));
	ret = runset_load(dir, &rs->h, &rs->n, e);
	if (ret == -ENOENT)
		return ret;
	if (!ret)
		ret = runset_faults(dir, &rs->f, &rs->nf, e);
	if (ret) {
		runset_release(rs);
		return ret;
	}
	/* a failed host's run is partial at best (a killed capture's last records never made it
	 * to disk): the others are read without it, and the caller says so */
	for (unsigned i = 0; i < rs->n; i++) {
		if (rs->h[i].ok) {
			rs->h[k++] = rs->h[i];
			continue;
		}
		free(rs->h[i].run);
		free(rs->h[i].name);
	}
	rs->n = k;
	if (!rs->n) { /* the failed hosts kept: the caller says why each one failed */
		free(rs->h);
		rs->h = NULL;
		return iot_err_set(e, -ENODATA, "'%s': no host brought a whole run back", dir);
	}
	return 0;
}
