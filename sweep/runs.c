/* SPDX-License-Identifier: MIT */
/* A sweep's finished runs, walked in matrix order, as compare's samples (compare and report). */
#include "sweep/runs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int keep(struct sweep_runs *s, const char *rundir, size_t cell, const struct sweep_result *r,
                sweep_load_fn load, void *ctx, struct iot_err *e)
{
	struct sweep_run_data *d, *nr = realloc(s->run, (s->n + 1) * sizeof(*nr));
	int ret;

	if (!nr)
		return iot_err_set(e, -ENOMEM, "out of memory");
	s->run = nr;
	d = &nr[s->n];
	memset(d, 0, sizeof(*d));
	if (s->def.capture && (ret = load(ctx, rundir, &d->summary, &d->manifest)))
		return ret;
	d->path = strdup(rundir);
	d->params = sweep_cell_params(&s->def, cell);
	d->metrics = json_deep_copy(r->metrics);
	s->n++;
	if (!d->path || !d->params || !d->metrics)
		return iot_err_set(e, -ENOMEM, "out of memory");
	json_object_set_new(d->metrics, "wall_s", json_real((double)r->wall_ns / 1e9));
	return 0;
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
		json_decref(s->run[i].summary);
		json_decref(s->run[i].manifest);
		json_decref(s->run[i].params);
		json_decref(s->run[i].metrics);
	}
	free(s->run);
	json_decref(s->definition);
	json_decref(s->failed_list);
	sweep_def_release(&s->def);
	memset(s, 0, sizeof(*s));
}

int sweep_runs_add(const struct sweep_runs *s, struct compare *c, struct iot_err *e)
{
	int ret;

	/* a metric's unit (--metric NAME:UNIT=...) names its rows and axes */
	for (size_t i = 0; i < s->def.nmetrics; i++)
		if (s->def.metric[i].unit[0] &&
		    (ret = compare_sweep_unit(c, s->def.metric[i].name, s->def.metric[i].unit, e)))
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

void sweep_default_layout(const struct sweep_def *d, struct compare_opts *o,
                          char names[3][SWEEP_LAYOUT_MAX])
{
	size_t len = 0;

	if (o->rows || o->cols || o->tables || o->by || d->nparams < 2)
		return;
	/* two: rows, columns; more: a table per value of the first, columns the last, rows the
	 * ones between (the Ceph table: bs, then version,distro, then fs) */
	snprintf(names[0], SWEEP_LAYOUT_MAX, "%s", d->param[0].name);
	snprintf(names[2], SWEEP_LAYOUT_MAX, "%s", d->param[d->nparams - 1].name);
	names[1][0] = 0;
	for (size_t i = 1; i + 1 < d->nparams; i++)
		len += (size_t)snprintf(names[1] + len, SWEEP_LAYOUT_MAX - len, "%s%s",
		                        i > 1 ? "," : "", d->param[i].name);
	o->cols = names[2];
	if (d->nparams == 2) {
		o->rows = names[0];
	} else {
		o->tables = names[0];
		o->rows = names[1];
	}
}
