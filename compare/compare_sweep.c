/* SPDX-License-Identifier: MIT */
/* iotape compare over a sweep: runs with parameters and numbers of their own, and per-group
 * baselines (--baseline NAME=V: the cell that differs only in NAME). */
#include "compare/compare.h"
#include "compare/compare_int.h"
#include "common/units.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The titles of the numbers every sweep run has. */
static const struct {
	const char *key, *title, *unit;
	int decimals;
} known[] = {
    {"wall_s", "wall time", "s", 3},
};

/* A command's numbers come in any magnitude: about four significant digits for the largest
 * of them (53718, 0.1523, 0.001234), at most six decimals. */
static int decimals_for(const struct compare *c, size_t m)
{
	double most = 0;
	int d;

	for (size_t i = 0; i < c->nsamples; i++)
		if (!isnan(c->sample[i].v[m]))
			most = fmax(most, fabs(c->sample[i].v[m]));
	if (most == 0)
		return 0;
	d = 3 - (int)floor(log10(most));
	return d < 0 ? 0 : d > 6 ? 6 : d;
}

static int add_metrics(struct compare *c, struct cmp_sample *s, json_t *metrics, struct iot_err *e)
{
	const char *key;
	json_t *v;

	json_object_foreach(metrics, key, v)
	{
		const char *title = key, *unit = "";
		int decimals = -1, m;

		if (!json_is_number(v))
			continue;
		for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
			if (!strcmp(key, known[k].key)) {
				title = known[k].title;
				unit = known[k].unit;
				decimals = known[k].decimals;
			}
		/* a --metric named like one of iotape's own is the command's, not ours */
		m = compare_metric_find(c, key);
		if (m >= 0 && m < M_NBLOCK)
			return iot_err_set(e, -EINVAL,
			                   "metric '%s' of the sweep has the name of iotape's own "
			                   "'%s'",
			                   key, c->metric[m].key);
		m = compare_metric_add(c, key, title, unit, decimals < 0 ? 3 : decimals);
		if (m < 0)
			return iot_err_set(e, m, "more than %d metrics", CMP_MAX_METRICS);
		s->v[m] = json_number_value(v) * (c->metric[m].scale ? c->metric[m].scale : 1);
		if (decimals < 0)
			c->metric[m].decimals = decimals_for(c, (size_t)m);
	}
	return 0;
}

int compare_sweep_unit(struct compare *c, const char *key, const char *unit, struct iot_err *e)
{
	/* bytes are shown in the one unit system (docs/units.md); any other unit as it is */
	static const struct {
		const char *in, *shown;
		double scale;
	} conv[] = {
	    {"B", "MiB", 1 / IOT_MIB},
	    {"KiB", "MiB", 1 / 1024.0},
	    {"B/s", "MiB/s", 1 / IOT_MIB},
	    {"KiB/s", "MiB/s", 1 / 1024.0},
	};
	const char *shown = unit;
	double scale = 0;
	int m = compare_metric_find(c, key);

	if (m >= 0 && m < M_NBLOCK)
		return iot_err_set(e, -EINVAL,
		                   "metric '%s' of the sweep has the name of iotape's own '%s'",
		                   key, c->metric[m].key);
	for (size_t k = 0; k < sizeof(conv) / sizeof(conv[0]); k++)
		if (!strcmp(unit, conv[k].in)) {
			shown = conv[k].shown;
			scale = conv[k].scale;
		}
	m = compare_metric_add(c, key, key, shown, 3);
	if (m < 0)
		return iot_err_set(e, m, "more than %d metrics", CMP_MAX_METRICS);
	c->metric[m].scale = scale;
	return 0;
}

int compare_add_run(struct compare *c, const char *path, json_t *summary, json_t *manifest,
                    json_t *params, json_t *metrics, struct iot_err *e)
{
	size_t first = c->nsamples;
	struct cmp_sample *s;
	int ret;

	if (summary) {
		if ((ret = compare_add(c, path, summary, manifest, NULL, e)))
			return ret;
	} else {
		c->nruns++;
		if ((ret = compare_sample_new(c, path, NULL, manifest, &s)))
			return iot_err_set(e, ret, "out of memory");
	}
	for (size_t i = first; i < c->nsamples; i++)
		c->sample[i].params = json_incref(params);
	/* the run's own numbers belong to the run, not to a device: counted once */
	return add_metrics(c, &c->sample[first], metrics, e);
}

/* "NAME=V" split; 0, or -EINVAL when b is not of that form. */
static int split(const char *b, char *name, size_t cap, const char **value)
{
	const char *eq = strchr(b, '=');

	if (!eq || eq == b || (size_t)(eq - b) >= cap)
		return -EINVAL;
	memcpy(name, b, (size_t)(eq - b));
	name[eq - b] = 0;
	*value = eq + 1;
	return 0;
}

const char *compare_key_next(const char *list, char *part, size_t cap)
{
	size_t len;

	if (!list || !*list)
		return NULL;
	len = strcspn(list, ",");
	snprintf(part, cap, "%.*s", (int)len, list);
	return list + len + (list[len] == ',');
}

/* The attributes that make the groups: those of --rows, --cols, --tables, or the --by list. */
static size_t grouping_keys(const struct compare *c, char keys[][64], size_t cap)
{
	const char *list[3] = {c->opts.rows, c->opts.cols, c->opts.tables};
	size_t n = 0;

	if (!c->opts.rows && !c->opts.cols && !c->opts.tables) {
		list[0] = c->opts.by;
		/* label mode: the groups are the labels derived from these (default: the
		 * parameters) */
		for (size_t i = 0; i < c->nsamples && !n && !c->opts.by; i++) {
			const char *key;
			json_t *v;

			json_object_foreach(c->sample[i].params, key, v)
			{
				(void)v;
				if (n < cap)
					snprintf(keys[n++], 64, "%s", key);
			}
		}
	}
	for (size_t l = 0; l < 3; l++) {
		char part[64];

		for (const char *p = list[l]; n < cap && (p = compare_key_next(p, part, 64));)
			if (*part)
				snprintf(keys[n++], 64, "%s", part);
	}
	return n;
}

/* Does some sample have attribute name? */
static bool some_has(const struct compare *c, const char *name)
{
	for (size_t i = 0; i < c->nsamples; i++) {
		char *v = compare_sample_attr(&c->sample[i], name);

		free(v);
		if (v)
			return true;
	}
	return false;
}

int compare_check_layout(const struct compare *c, struct iot_err *e)
{
	static const char *const opt[4] = {"--rows", "--cols", "--tables", "--by"};
	const char *list[3] = {c->opts.rows, c->opts.cols, c->opts.tables};
	char keys[3 * 16][64], part[64];
	const char *sopt, *slist;
	size_t nkeys, l;
	bool matrix;
	const char *name;
	json_t *v;

	for (l = 0; l < 3; l++)
		for (const char *p = list[l]; (p = compare_key_next(p, part, sizeof(part)));)
			if (!*part || !some_has(c, part))
				return iot_err_set(e, -EINVAL, "%s: no run has '%s'", opt[l], part);
	if (!c->opts.rows && !c->opts.cols && !c->opts.tables && !c->opts.by)
		return 0; /* the groups are the cells */
	nkeys = grouping_keys(c, keys, sizeof(keys) / sizeof(keys[0]));
	for (size_t k = 0; k < nkeys; k++)
		if (!strcasecmp(keys[k], "label") || !strcasecmp(keys[k], "run"))
			return 0; /* a group per label (every parameter by default) or per run */
	/* the list to suggest adding to: --rows, --cols or --tables (the first given), or --by */
	for (l = 0; l < 2 && !list[l]; l++)
		;
	matrix = c->opts.rows || c->opts.cols || c->opts.tables;
	sopt = matrix ? opt[l] : opt[3];
	slist = matrix ? list[l] : c->opts.by;
	/* a parameter varies when some run's value differs from the first run's that has it */
	for (size_t i = 0; i < c->nsamples; i++) {
		json_object_foreach(c->sample[i].params, name, v)
		{
			const json_t *w = NULL;
			size_t k = 0;

			for (size_t j = 0; j <= i && !w; j++)
				w = json_object_get(c->sample[j].params, name);
			while (k < nkeys && strcmp(keys[k], name))
				k++;
			if (k == nkeys && !json_equal(v, w))
				return iot_err_set(
				    e, -EINVAL,
				    "the sweep's parameter '%s' has more than one value but is not "
				    "in %s: its cells' runs would be pooled (add it, e.g. %s "
				    "%s,%s)",
				    name, matrix ? "--rows, --cols or --tables" : "--by", sopt,
				    slist, name);
		}
	}
	return 0;
}

static int same(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

int compare_param_bases(struct compare *c, struct iot_err *e)
{
	char name[64], keys[3 * 16][64];
	const char *value;
	size_t nkeys, k, *rep;
	bool found = false;

	if (!c->opts.baseline || split(c->opts.baseline, name, sizeof(name), &value))
		return 1;
	nkeys = grouping_keys(c, keys, sizeof(keys) / sizeof(keys[0]));
	for (k = 0; k < nkeys; k++)
		if (!strcmp(keys[k], name))
			break;
	if (k == nkeys)
		return 1; /* not one of the grouping keys: a plain label with '=' in it */
	rep = calloc(c->ngroups, sizeof(*rep));
	if (!rep)
		return iot_err_set(e, -ENOMEM, "out of memory");
	for (size_t i = c->nsamples; i-- > 0;)
		rep[c->sample[i].group] = i; /* each group's first sample stands for it */
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct cmp_sample *sg = &c->sample[rep[g]];

		c->group[g].base = g; /* no such cell: compared with nothing */
		for (size_t h = 0; h < c->ngroups; h++) {
			const struct cmp_sample *sh = &c->sample[rep[h]];
			bool match = true;

			for (size_t i = 0; i < nkeys && match; i++) {
				char *a = compare_sample_attr(sh, keys[i]);
				char *want = strcmp(keys[i], name)
				                 ? compare_sample_attr(sg, keys[i])
				                 : strdup(value);

				match = same(a, want);
				free(a);
				free(want);
			}
			if (match) {
				c->group[g].base = h;
				if (!found)
					c->baseline = h;
				found = true;
				break;
			}
		}
	}
	free(rep);
	if (!found)
		return iot_err_set(e, -EINVAL, "--baseline %s: no group has %s '%s'",
		                   c->opts.baseline, name, value);
	c->param_base = true;
	return 0;
}
