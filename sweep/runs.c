/* SPDX-License-Identifier: MIT */
/* A sweep's finished runs, walked in matrix order, as compare's samples (compare and report). */
#include "sweep/runs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sweep_cell_runs {
	struct sweep_runs *s;
	size_t cell;
	const struct sweep_result *r;
};

/* host among the hosts' names (kept in the order first seen). 0 or -ENOMEM. */
static int know_host(struct sweep_runs *s, const char *host)
{
	char **nh;

	for (size_t i = 0; i < s->nhosts; i++)
		if (!strcmp(s->hosts[i], host))
			return 0;
	if (!(nh = realloc(s->hosts, (s->nhosts + 1) * sizeof(*nh))))
		return -ENOMEM;
	s->hosts = nh;
	if (!(nh[s->nhosts] = strdup(host)))
		return -ENOMEM;
	s->nhosts++;
	return 0;
}

int sweep_cell_add(struct sweep_cell_runs *out, const char *host, const char *path, json_t *summary,
                   json_t *manifest)
{
	struct sweep_runs *s = out->s;
	struct sweep_run_data *d, *nr = realloc(s->run, (s->n + 1) * sizeof(*nr));

	if (!nr) {
		json_decref(summary);
		json_decref(manifest);
		return -ENOMEM;
	}
	s->run = nr;
	d = &nr[s->n++];
	memset(d, 0, sizeof(*d));
	d->summary = summary;
	d->manifest = manifest;
	d->cell = out->cell;
	d->path = strdup(path);
	d->params = sweep_cell_params(&s->def, out->cell);
	d->metrics = json_deep_copy(out->r->metrics);
	if (!d->path || !d->params || !d->metrics)
		return -ENOMEM;
	/* a run set's host is one more dimension of the run (sweep_def_check keeps "host" free) */
	if (host && (!(d->host = strdup(host)) || know_host(s, host) ||
	             json_object_set_new(d->params, "host", json_string(host))))
		return -ENOMEM;
	return json_object_set_new(d->metrics, "wall_s", json_real((double)out->r->wall_ns / 1e9))
	           ? -ENOMEM
	           : 0;
}

static int keep(struct sweep_runs *s, const char *rundir, size_t cell, const struct sweep_result *r,
                sweep_load_fn load, void *ctx, struct iot_err *e)
{
	struct sweep_cell_runs out = {s, cell, r};
	int ret;

	s->done++;
	if (s->def.capture)
		ret = load(ctx, rundir, &out);
	else
		ret = sweep_cell_add(&out, NULL, rundir, NULL, NULL);
	if (ret == -ENOMEM)
		return iot_err_set(e, -ENOMEM, "out of memory");
	return ret;
}

/* One cell's rep: kept when done, counted when failed or not run. */
static int walk_run(struct sweep_runs *s, size_t cell, unsigned rep, sweep_load_fn load, void *ctx,
                    struct iot_err *e)
{
	char rel[PATH_MAX], rundir[PATH_MAX + 64];
	struct sweep_result r;
	int ret;

	if (sweep_run_path(&s->def, cell, rep, rel, sizeof(rel)))
		return iot_err_set(e, -ENAMETOOLONG, "'%s': path too long", s->dir);
	snprintf(rundir, sizeof(rundir), "%s/%s", s->dir, rel);
	ret = sweep_result_load(rundir, &r, e);
	if (ret == -ENOENT) {
		s->missing++;
		return 0;
	}
	if (ret)
		return -EINVAL; /* e says why */
	if (r.state == SWEEP_RUN_FAILED) {
		s->failed++;
		json_array_append_new(s->failed_list,
		                      json_pack("{s:s, s:s}", "run", rel, "error", r.error));
	} else if (r.state != SWEEP_RUN_DONE) {
		s->missing++;
	}
	ret = r.state == SWEEP_RUN_DONE ? keep(s, rundir, cell, &r, load, ctx, e) : 0;
	sweep_result_release(&r);
	return ret;
}

int sweep_runs_load(struct sweep_runs *s, const char *dir, sweep_load_fn load, void *ctx,
                    struct iot_err *e)
{
	json_error_t je;
	char path[PATH_MAX];
	size_t cells;
	int ret;

	memset(s, 0, sizeof(*s));
	s->dir = dir;
	s->failed_list = json_array();
	if ((ret = sweep_open(dir, &s->def, e)))
		return ret;
	snprintf(path, sizeof(path), "%s/" SWEEP_FILE, dir);
	s->definition = json_load_file(path, 0, &je);
	cells = sweep_ncells(&s->def);
	s->total = cells * s->def.reps;
	for (size_t cell = 0; cell < cells; cell++)
		for (unsigned rep = 1; rep <= s->def.reps; rep++)
			if ((ret = walk_run(s, cell, rep, load, ctx, e)))
				return ret;
	if (!s->n)
		return iot_err_set(e, -ENOENT, "'%s': no run of the sweep is done", dir);
	return 0;
}

void sweep_runs_release(struct sweep_runs *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->run[i].path);
		free(s->run[i].host);
		json_decref(s->run[i].summary);
		json_decref(s->run[i].manifest);
		json_decref(s->run[i].params);
		json_decref(s->run[i].metrics);
	}
	free(s->run);
	for (size_t i = 0; i < s->nhosts; i++)
		free(s->hosts[i]);
	free(s->hosts);
	json_decref(s->definition);
	json_decref(s->failed_list);
	sweep_def_release(&s->def);
	memset(s, 0, sizeof(*s));
}

int sweep_runs_units(const struct sweep_runs *s, struct compare *c, struct iot_err *e)
{
	int ret;

	/* a metric's unit (--metric NAME:UNIT=...) names its rows and axes */
	for (size_t i = 0; i < s->def.nmetrics; i++)
		if (s->def.metric[i].unit[0] &&
		    (ret = compare_sweep_unit(c, s->def.metric[i].name, s->def.metric[i].unit, e)))
			return ret;
	return 0;
}

int sweep_runs_add(const struct sweep_runs *s, struct compare *c, struct iot_err *e)
{
	int ret = sweep_runs_units(s, c, e);

	if (ret)
		return ret;
	for (size_t i = 0; i < s->n; i++) {
		const struct sweep_run_data *d = &s->run[i];

		ret =
		    compare_add_run(c, d->path, d->summary, d->manifest, d->params, d->metrics, e);
		if (ret)
			return ret;
	}
	return 0;
}

void sweep_default_layout(const struct sweep_runs *s, struct compare_opts *o,
                          char names[3][SWEEP_LAYOUT_MAX])
{
	const struct sweep_def *d = &s->def;
	/* the dimensions, slowest first: a run set's hosts, then the parameters */
	const char *dim[SWEEP_MAX_PARAMS + 1];
	size_t n = 0, len = 0;

	if (s->nhosts)
		dim[n++] = "host";
	for (size_t i = 0; i < d->nparams; i++)
		dim[n++] = d->param[i].name;
	if (o->rows || o->cols || o->tables || o->by || n < 2)
		return;
	/* two: rows, columns; more: a table per value of the first, columns the last, rows the
	 * ones between (the Ceph table: bs, then version,distro, then fs) */
	snprintf(names[0], SWEEP_LAYOUT_MAX, "%s", dim[0]);
	snprintf(names[2], SWEEP_LAYOUT_MAX, "%s", dim[n - 1]);
	names[1][0] = 0;
	for (size_t i = 1; i + 1 < n; i++)
		len += (size_t)snprintf(names[1] + len, SWEEP_LAYOUT_MAX - len, "%s%s",
		                        i > 1 ? "," : "", dim[i]);
	o->cols = names[2];
	if (n == 2) {
		o->rows = names[0];
	} else {
		o->tables = names[0];
		o->rows = names[1];
	}
}
