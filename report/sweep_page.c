/* SPDX-License-Identifier: MIT */
/* A sweep's report page built from its loaded runs: the tables, the cells and the parameters. */
#include "report/sweep_page.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"

/* The tables (rules and layout as compare makes them) and the cells (one group per cell, the
 * tables' metrics), both finished. */
static int build_tables(struct sweep_page *p, const struct sweep_runs *s,
                        const struct sweep_page_opts *o, struct iot_err *e)
{
	struct compare_opts to = o->co, co = {0};
	int ret;

	if ((ret = sweep_runs_add(s, &p->table, e)) || (ret = sweep_runs_add(s, &p->cells, e)))
		return ret;
	for (size_t i = 0; i < o->nrules; i++) {
		struct iot_err re;

		if ((ret = compare_add_rule(&p->table, o->rules[i], &re))) {
			p->bad_opts = true;
			return iot_err_set(e, ret, "--fail-if: %s", re.msg);
		}
	}
	sweep_default_layout(s, &to, p->layout);
	co.metrics = to.metrics;
	if ((ret = compare_finish(&p->table, &to, e)) || (ret = compare_finish(&p->cells, &co, e)))
		p->bad_opts = true;
	return ret;
}

/* The sweep's parameters as the graphs take them (the report does not read sweep.json); cells
 * captured on several hosts (sweep --host) have the host as one more: no axis, a line per host. */
static int build_params(struct sweep_page *p, const struct sweep_runs *s, struct iot_err *e)
{
	const struct sweep_def *d = &s->def;

	for (size_t k = 0; k < d->nparams; k++) {
		const struct sweep_param *sp = &d->param[k];

		p->text[k] = calloc(sp->n, sizeof(*p->text[k]));
		p->num[k] = calloc(sp->n, sizeof(*p->num[k]));
		if (!p->text[k] || !p->num[k])
			return iot_err_set(e, -ENOMEM, "out of memory");
		for (size_t j = 0; j < sp->n; j++) {
			p->text[k][j] = sp->v[j].text;
			p->num[k][j] = sp->v[j].num;
		}
		p->param[k] =
		    (struct sweep_report_param){sp->name, sp->n, p->text[k], p->num[k], sp->log};
	}
	if (s->nhosts) {
		if (!(p->host_num = calloc(s->nhosts, sizeof(*p->host_num))))
			return iot_err_set(e, -ENOMEM, "out of memory");
		for (size_t j = 0; j < s->nhosts; j++)
			p->host_num[j] = NAN;
		p->param[d->nparams] = (struct sweep_report_param){
		    "host", s->nhosts, (const char *const *)s->hosts, p->host_num, false};
	}
	return 0;
}

int sweep_page_build(struct sweep_page *p, const struct sweep_runs *s,
                     const struct sweep_page_opts *o, struct iot_err *e)
{
	int ret;

	memset(p, 0, sizeof(*p));
	if (compare_init(&p->table) || compare_init(&p->cells))
		return iot_err_set(e, -ENOMEM, "out of memory");
	if ((ret = build_tables(p, s, o, e)) || (ret = build_params(p, s, e)))
		return ret;
	p->r = (struct sweep_report){
	    .title = o->title ? o->title : o->dir,
	    .version = o->version,
	    .dir = o->dir,
	    .definition = s->definition,
	    .param = p->param,
	    .nparams = s->def.nparams + (s->nhosts > 0),
	    .runs_total = s->total,
	    .runs_done = s->done,
	    .runs_failed = s->failed,
	    .failed = s->failed_list,
	    .table = &p->table,
	    .cells = &p->cells,
	    .svg_out = o->svg_out,
	    .svg_ctx = o->svg_out ? o->svg_ctx : NULL,
	};
	return 0;
}

int sweep_page_write(const struct sweep_page *p, const char *path, struct iot_err *e)
{
	struct iot_outfile of;
	FILE *f;
	int ret;

	if ((ret = iot_outfile_open(&of, path, 0, e)))
		return ret;
	if (!(f = iot_outfile_stream(&of))) {
		iot_outfile_abort(&of);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	if ((ret = sweep_report_write_html(f, &p->r, e))) {
		iot_outfile_abort(&of);
		return ret;
	}
	return iot_outfile_commit(&of, e);
}

void sweep_page_release(struct sweep_page *p)
{
	for (size_t k = 0; k < SWEEP_MAX_PARAMS; k++) {
		free(p->text[k]);
		free(p->num[k]);
		p->text[k] = NULL;
		p->num[k] = NULL;
	}
	free(p->host_num);
	p->host_num = NULL;
	compare_release(&p->table);
	compare_release(&p->cells);
}
