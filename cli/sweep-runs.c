/* SPDX-License-Identifier: MIT */
/* A sweep's finished runs as compare's samples, for iotape compare and iotape report. */
#include "cli/cli.h"
#include "cli/runs.h"
#include "cli/sweep-runs.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "report/sweep_report.h"
#include "iotape_version.h"

static int keep(struct sweep_runs *s, const char *rundir, size_t cell, const struct sweep_result *r,
                uint64_t idle_ns, struct iot_err *stop)
{
	struct sweep_run_data *d, *nr = realloc(s->run, (s->n + 1) * sizeof(*nr));
	int ret;

	if (!nr)
		return error("out of memory"), EXIT_SYSTEM;
	s->run = nr;
	d = &nr[s->n];
	memset(d, 0, sizeof(*d));
	if (s->def.capture &&
	    (ret = load_summary(rundir, idle_ns, &d->summary, &d->manifest, stop)))
		return ret;
	d->path = strdup(rundir);
	d->params = sweep_cell_params(&s->def, cell);
	d->metrics = json_deep_copy(r->metrics);
	s->n++;
	if (!d->path || !d->params || !d->metrics)
		return error("out of memory"), EXIT_SYSTEM;
	json_object_set_new(d->metrics, "wall_s", json_real((double)r->wall_ns / 1e9));
	return EXIT_OK;
}

int sweep_runs_load(struct sweep_runs *s, const char *dir, uint64_t idle_ns, struct iot_err *stop)
{
	struct iot_err e = {""};
	json_error_t je;
	char path[PATH_MAX];
	size_t cells;
	int ret;

	memset(s, 0, sizeof(*s));
	s->dir = dir;
	s->failed_list = json_array();
	if ((ret = sweep_open(dir, &s->def, &e)))
		return error("%s", e.msg), exit_code_for(ret);
	snprintf(path, sizeof(path), "%s/" SWEEP_FILE, dir);
	s->definition = json_load_file(path, 0, &je);
	cells = sweep_ncells(&s->def);
	s->total = cells * s->def.reps;
	/* matrix order, so that rows and columns come out in the order the values were given */
	for (size_t cell = 0; cell < cells; cell++) {
		for (unsigned rep = 1; rep <= s->def.reps; rep++) {
			char rel[PATH_MAX], rundir[PATH_MAX + 64];
			struct sweep_result r;

			if (sweep_run_path(&s->def, cell, rep, rel, sizeof(rel)))
				return error("'%s': path too long", dir), EXIT_USAGE;
			snprintf(rundir, sizeof(rundir), "%s/%s", dir, rel);
			ret = sweep_result_load(rundir, &r, &e);
			if (ret == -ENOENT) {
				s->missing++;
				continue;
			}
			if (ret)
				return error("%s", e.msg), EXIT_USAGE;
			if (r.state == SWEEP_RUN_FAILED) {
				s->failed++;
				json_array_append_new(
				    s->failed_list,
				    json_pack("{s:s, s:s}", "run", rel, "error", r.error));
			} else if (r.state != SWEEP_RUN_DONE) {
				s->missing++;
			}
			ret = r.state == SWEEP_RUN_DONE ? keep(s, rundir, cell, &r, idle_ns, stop)
			                                : 0;
			sweep_result_release(&r);
			if (ret)
				return ret;
		}
	}
	if (s->failed || s->missing)
		warning("'%s': %zu of %zu runs are in the tables; %zu failed, %zu not run (yet)",
		        dir, s->n, s->total, s->failed, s->missing);
	if (!s->n)
		return error("'%s': no run of the sweep is done", dir), EXIT_USAGE;
	return EXIT_OK;
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

int sweep_runs_add(const struct sweep_runs *s, struct compare *c)
{
	struct iot_err e = {""};

	for (size_t i = 0; i < s->def.nmetrics; i++)
		if (s->def.metric[i].unit[0] &&
		    compare_sweep_unit(c, s->def.metric[i].name, s->def.metric[i].unit, &e))
			return error("%s", e.msg), EXIT_USAGE;
	for (size_t i = 0; i < s->n; i++) {
		const struct sweep_run_data *d = &s->run[i];
		int ret =
		    compare_add_run(c, d->path, d->summary, d->manifest, d->params, d->metrics, &e);

		if (ret)
			return error("%s", e.msg), exit_code_for(ret);
	}
	return EXIT_OK;
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

int report_sweep(const char *dir, const struct report_sweep_opts *o)
{
	struct sweep_report_param params[SWEEP_MAX_PARAMS];
	struct compare table, cells;
	struct compare_opts to = o->co, co = {0};
	struct sweep_runs s;
	struct sweep_report r = {0};
	char layout[3][SWEEP_LAYOUT_MAX];
	const char **text[SWEEP_MAX_PARAMS] = {0};
	double *num[SWEEP_MAX_PARAMS] = {0};
	struct iot_err e = {""}, stop = {""};
	struct svg_dir svg = {.dir = o->svg_dir};
	struct iot_outfile of;
	int ret;

	compare_init(&table);
	compare_init(&cells);
	if ((ret = sweep_runs_load(&s, dir, o->idle_ns, &stop)) ||
	    (ret = sweep_runs_add(&s, &table)) || (ret = sweep_runs_add(&s, &cells)))
		goto out;
	for (size_t i = 0; i < o->nrules; i++) {
		if (compare_add_rule(&table, o->rules[i], &e)) {
			ret = usage_error("--fail-if: %s", e.msg);
			goto out;
		}
	}
	sweep_default_layout(&s.def, &to, layout);
	/* the graphs: one group per cell, the same metrics as the tables */
	co.metrics = to.metrics;
	if ((ret = compare_finish(&table, &to, &e)) || (ret = compare_finish(&cells, &co, &e))) {
		ret = usage_error("%s", e.msg);
		goto out;
	}
	for (size_t k = 0; k < s.def.nparams; k++) {
		const struct sweep_param *p = &s.def.param[k];

		text[k] = calloc(p->n, sizeof(*text[k]));
		num[k] = calloc(p->n, sizeof(*num[k]));
		if (!text[k] || !num[k]) {
			error("out of memory");
			ret = EXIT_SYSTEM;
			goto out;
		}
		for (size_t j = 0; j < p->n; j++) {
			text[k][j] = p->v[j].text;
			num[k][j] = p->v[j].num;
		}
		params[k] = (struct sweep_report_param){p->name, p->n, text[k], num[k], p->log};
	}
	r.title = o->title ? o->title : dir;
	r.version = IOTAPE_VERSION;
	r.dir = dir;
	r.definition = s.definition;
	r.param = params;
	r.nparams = s.def.nparams;
	r.runs_total = s.total;
	r.runs_done = s.n;
	r.runs_failed = s.failed;
	r.failed = s.failed_list;
	r.table = &table;
	r.cells = &cells;
	if (o->svg_dir) {
		r.svg_out = write_svg;
		r.svg_ctx = &svg;
	}
	/* written beside the target and renamed: a failure never leaves half a page */
	if ((ret = iot_outfile_open(&of, o->outpath, 0, &e)) || !iot_outfile_stream(&of)) {
		if (!ret)
			iot_outfile_abort(&of);
		ret = ret ? ret : -ENOMEM;
		error("%s", ret == -ENOMEM ? "out of memory" : e.msg);
		ret = exit_code_for(ret);
		goto out;
	}
	ret = sweep_report_write_html(iot_outfile_stream(&of), &r, &e);
	if (ret)
		iot_outfile_abort(&of);
	else
		ret = iot_outfile_commit(&of, &e);
	if (ret) {
		error("%s", e.msg);
		ret = exit_code_for(ret);
		goto out;
	}
	/* partial results were written: the bad bytes that cut them short come last */
	ret = stop.msg[0]     ? (error("%s", stop.msg), EXIT_USAGE)
	      : table.nfailed ? EXIT_THRESHOLD
	                      : EXIT_OK;
out:
	for (size_t k = 0; k < SWEEP_MAX_PARAMS; k++) {
		free(text[k]);
		free(num[k]);
	}
	compare_release(&table);
	compare_release(&cells);
	sweep_runs_release(&s);
	return ret;
}
