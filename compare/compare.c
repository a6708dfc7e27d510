/* SPDX-License-Identifier: MIT */
/* iotape compare: runs grouped by label, per-metric statistics, baseline, --fail-if rules. */
#include "compare/compare.h"
#include "compare/compare_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NONNEG 0, INFINITY, 0 /* lo, hi, scale */
#define PCT 0, 100, 0
static const struct cmp_metric block_metrics[M_NBLOCK] = {
    [M_MBPS] = {"mbps", "MiB/s", "MiB/s", 2, NONNEG},
    [M_IOPS] = {"iops", "IOPS", "IOPS", 1, NONNEG},
    [M_P50] = {"lat_p50", "D2C p50", "us", 1, NONNEG},
    [M_P99] = {"lat_p99", "D2C p99", "us", 1, NONNEG},
    [M_IDLE] = {"idle_pct", "idle", "%", 1, PCT},
    [M_GAP] = {"longest_gap", "longest gap", "ms", 2, NONNEG},
    [M_SEEKS] = {"seeks", "seeks/s", "seeks/s", 1, NONNEG},
    [M_SEQ] = {"seq_pct", "sequential", "%", 1, PCT},
    [M_IDLE_OTHER] = {"idle_other_busy", "other device busy while idle", "%", 1, PCT},
    [M_IDLE_WORK] = {"idle_nfs_work", "idle with NFS calls outstanding", "%", 1, PCT},
};

int compare_init(struct compare *c)
{
	memset(c, 0, sizeof(*c));
	memcpy(c->metric, block_metrics, sizeof(block_metrics));
	c->nmetrics = M_NBLOCK;
	return 0;
}

void compare_release(struct compare *c)
{
	for (size_t i = 0; i < c->nsamples; i++) {
		struct cmp_sample *s = &c->sample[i];

		free(s->path);
		free(s->label);
		for (int a = 0; a < CMP_ATTR_NUM; a++)
			free(s->attr[a]);
		json_decref(s->manifest);
		json_decref(s->params);
	}
	free(c->sample);
	for (size_t i = 0; i < c->ngroups; i++) {
		free(c->group[i].label);
		free(c->group[i].rowv);
		free(c->group[i].colv);
		free(c->group[i].tabv);
	}
	free(c->group);
	memset(c, 0, sizeof(*c));
}

/* ---- rules ---- */

int compare_parse_rule(const char *s, struct cmp_rule *r, struct iot_err *e)
{
	const char *p = s, *name;
	size_t len;
	char *end;

	memset(r, 0, sizeof(*r));
	snprintf(r->text, sizeof(r->text), "%s", s);
	while (isspace((unsigned char)*p))
		p++;
	name = p;
	while (*p && *p != '<' && *p != '>')
		p++;
	len = (size_t)(p - name);
	while (len && isspace((unsigned char)name[len - 1]))
		len--;
	if (!len || len >= sizeof(r->metric))
		return iot_err_set(e, -EINVAL, "'%s': expected METRIC<VALUE or METRIC>VALUE[%%]",
		                   s);
	memcpy(r->metric, name, len);
	if (!*p)
		return iot_err_set(e, -EINVAL, "'%s': no comparison (< <= > >=)", s);
	r->op = *p == '<' ? CMP_LT : CMP_GT;
	p++;
	if (*p == '=') {
		r->op = r->op == CMP_LT ? CMP_LE : CMP_GE;
		p++;
	}
	while (isspace((unsigned char)*p))
		p++;
	errno = 0;
	r->value = strtod(p, &end);
	if (end == p || errno || !isfinite(r->value))
		return iot_err_set(e, -EINVAL, "'%s': '%s' is not a number", s, p);
	p = end;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '%') {
		r->relative = true;
		p++;
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p)
		return iot_err_set(e, -EINVAL,
		                   "'%s': unexpected '%s' (values are in the metric's "
		                   "unit, or a percent change like -10%%)",
		                   s, p);
	return 0;
}

int compare_add_rule(struct compare *c, const char *s, struct iot_err *e)
{
	int ret;

	if (c->nrules >= CMP_MAX_RULES)
		return iot_err_set(e, -E2BIG, "more than %d --fail-if rules", CMP_MAX_RULES);
	ret = compare_parse_rule(s, &c->rule[c->nrules], e);
	if (!ret)
		c->nrules++;
	return ret;
}

static bool rule_crossed(const struct cmp_rule *r, double v)
{
	if (isnan(v))
		return false;
	switch (r->op) {
	case CMP_LT:
		return v < r->value;
	case CMP_LE:
		return v <= r->value;
	case CMP_GT:
		return v > r->value;
	case CMP_GE:
		return v >= r->value;
	}
	return false;
}

/* ---- grouping ---- */

static char *path_base(const char *path)
{
	size_t len = strlen(path);
	const char *b;
	char *r;

	while (len > 1 && path[len - 1] == '/')
		len--;
	b = path + len;
	while (b > path && b[-1] != '/')
		b--;
	r = strndup(b, (size_t)(path + len - b));
	if (r && strlen(r) > 5 && !strcmp(r + strlen(r) - 5, ".json"))
		r[strlen(r) - 5] = 0;
	return r;
}

static int str_eq(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

static int append(char *buf, size_t cap, const char *s)
{
	size_t len = strlen(buf);

	if (len && len + 3 < cap)
		strcat(buf, " / "), len += 3;
	snprintf(buf + len, cap - len, "%s", s ? s : "?");
	return 0;
}

/* A label's part for attribute name: "NAME=VALUE" for a sweep's parameter, else the value. */
static char *label_part(const struct cmp_sample *s, const char *name)
{
	char *v = compare_sample_attr(s, name), *r = NULL;

	if (!v || !json_object_get(s->params, name))
		return v;
	if (asprintf(&r, "%s=%s", name, v) < 0)
		r = NULL;
	free(v);
	return r;
}

/* A sweep's runs are grouped by its parameters unless --by says otherwise. */
static const char *default_by(const struct compare *c, char *buf, size_t cap)
{
	for (size_t i = 0; i < c->nsamples; i++) {
		const char *key;
		json_t *v;
		size_t len = 0;

		if (!json_object_size(c->sample[i].params))
			continue;
		buf[0] = 0;
		json_object_foreach(c->sample[i].params, key, v)
		{
			(void)v;
			if (len + strlen(key) + 2 < cap)
				len += (size_t)snprintf(buf + len, cap - len, "%s%s",
				                        len ? "," : "", key);
		}
		return buf;
	}
	return "kernel,distro,filesystem,device";
}

/* The repetition of a sweep's cell (capture --label rep=N): the one label runs are pooled by */
#define REP_LABEL "rep"

/* Does a label (the manifest's "labels") of some sample differ from another's? */
static bool label_varies(const struct compare *c, const char *key)
{
	for (size_t i = 1; i < c->nsamples; i++)
		if (!json_equal(
		        json_object_get(json_object_get(c->sample[i].manifest, "labels"), key),
		        json_object_get(json_object_get(c->sample[0].manifest, "labels"), key)))
			return true;
	return false;
}

/* The default --by, plus the manifests' labels whose values differ between the runs (but
 * the repetition): runs labelled differently are never pooled by default. */
static void by_with_labels(const struct compare *c, char *buf, size_t cap)
{
	for (size_t i = 0; i < c->nsamples; i++) {
		const char *key;
		json_t *v;

		json_object_foreach(json_object_get(c->sample[i].manifest, "labels"), key, v)
		{
			char part[72];
			size_t len = strlen(buf);

			(void)v;
			snprintf(part, sizeof(part), ",%s,", key);
			if (!strcmp(key, REP_LABEL) || strlen(key) > 63 || !label_varies(c, key))
				continue;
			/* already there */
			{
				char padded[1100];

				snprintf(padded, sizeof(padded), ",%s,", buf);
				if (strstr(padded, part))
					continue;
			}
			if (len + strlen(key) + 2 < cap)
				snprintf(buf + len, cap - len, ",%s", key);
		}
	}
}

/* Attributes of the run itself, not of one of its devices. */
static bool run_attr(const char *name)
{
	static const char *const dev[] = {"device", "dev", "role", "group"};

	for (size_t i = 0; i < sizeof(dev) / sizeof(dev[0]); i++)
		if (!strcasecmp(name, dev[i]))
			return false;
	return true;
}

/* Automatic labels: the --by attributes that differ between samples, joined by " / ". */
static int derive_labels(struct compare *c, struct iot_err *e)
{
	char dflt[1024];
	const char *by = c->opts.by ? c->opts.by : default_by(c, dflt, sizeof(dflt));
	char names[16][64];
	size_t nnames = 0;
	bool varies[16] = {false}, any = false, run_known = false;
	const char *p;

	if (!c->opts.by) {
		if (by != dflt)
			snprintf(dflt, sizeof(dflt), "%s", by);
		by_with_labels(c, dflt, sizeof(dflt));
		by = dflt;
	}
	p = by;

	while (*p && nnames < 16) {
		size_t len = strcspn(p, ",");

		if (len && len < sizeof(names[0])) {
			memcpy(names[nnames], p, len);
			names[nnames++][len] = 0;
		} else if (len) {
			return iot_err_set(e, -EINVAL, "--by: '%.*s' is too long", (int)len, p);
		}
		p += len + (p[len] == ',');
	}
	for (size_t k = 0; k < nnames; k++) {
		bool known = true;

		for (size_t i = 0; i < c->nsamples; i++) {
			char *a = compare_sample_attr(&c->sample[i], names[k]);
			char *b = compare_sample_attr(&c->sample[0], names[k]);

			/* without any manifest, equal device names say nothing about the runs */
			if (a && (c->sample[i].manifest || c->sample[i].params))
				any = true;
			if (!str_eq(a, b))
				varies[k] = true;
			known &= a != NULL;
			free(a);
			free(b);
		}
		/* something about the runs themselves that every one of them says */
		run_known |= known && run_attr(names[k]);
	}
	/*
	 * Runs are pooled only when something says they repeat one configuration: a kernel,
	 * distro, filesystem or label known for every one of them. Without it (summaries with
	 * an empty manifest, or none), each run is a group of its own, named by its file, and
	 * the caller says so (unpooled).
	 */
	c->unpooled = 0;
	if (!run_known && c->nruns > 1) {
		for (size_t i = 0; i < c->nsamples; i++)
			if (!c->sample[i].label)
				c->unpooled = c->nruns;
	}
	for (size_t i = 0; i < c->nsamples; i++) {
		struct cmp_sample *s = &c->sample[i];
		char buf[256] = "";
		bool some = false;

		if (s->label)
			continue;
		/* no manifest anywhere: nothing says which runs repeat which; name them by file */
		for (size_t k = 0; any && k < nnames; k++) {
			char *a;

			if (!varies[k])
				continue;
			a = label_part(s, names[k]);
			append(buf, sizeof(buf), a);
			some |= a != NULL;
			free(a);
		}
		if (!some && buf[0]) {
			/* none of the differing attributes known here: the file name says more */
			s->label = path_base(s->path);
			if (!s->label)
				return iot_err_set(e, -ENOMEM, "out of memory");
			continue;
		}
		if (c->unpooled) {
			/* nothing tells the runs apart, nor says they repeat each other: the run
			 * leads the label (its devices, when they differ, follow) */
			char *run = path_base(s->path);

			if (!run)
				return iot_err_set(e, -ENOMEM, "out of memory");
			if (some && buf[0] && asprintf(&s->label, "%s / %s", run, buf) >= 0)
				free(run);
			else
				s->label = run;
			continue;
		}
		if (!some && any) {
			/* every sample is alike: one group named by what they share */
			for (size_t k = 0; k < nnames; k++) {
				char *a = label_part(s, names[k]);

				if (a)
					append(buf, sizeof(buf), a);
				free(a);
			}
			some = true;
		}
		s->label = some ? strdup(buf) : path_base(s->path);
		if (!s->label)
			return iot_err_set(e, -ENOMEM, "out of memory");
	}
	return 0;
}

/* A sample's place on a matrix axis: the values of key's attributes ("version,distro": two),
 * joined by " / "; "?" for one it does not have. */
static char *coord(const struct cmp_sample *s, const char *key)
{
	char buf[1024] = "", part[64];

	if (!key)
		return NULL;
	for (const char *p = key; (p = compare_key_next(p, part, sizeof(part)));) {
		char *v = compare_sample_attr(s, part);

		append(buf, sizeof(buf), v);
		free(v);
	}
	return strdup(buf);
}

static int make_groups(struct compare *c, struct iot_err *e)
{
	bool matrix = c->opts.rows || c->opts.cols || c->opts.tables;

	c->group = calloc(c->nsamples ? c->nsamples : 1, sizeof(*c->group));
	if (!c->group)
		return iot_err_set(e, -ENOMEM, "out of memory");
	for (size_t i = 0; i < c->nsamples; i++) {
		struct cmp_sample *s = &c->sample[i];
		char *rowv = NULL, *colv = NULL, *tabv = NULL, *label;
		size_t g;

		if (matrix) {
			char buf[3 * 1024] = "";

			rowv = coord(s, c->opts.rows);
			colv = coord(s, c->opts.cols);
			tabv = coord(s, c->opts.tables);
			if (tabv)
				append(buf, sizeof(buf), tabv);
			if (rowv)
				append(buf, sizeof(buf), rowv);
			if (colv)
				append(buf, sizeof(buf), colv);
			label = strdup(buf);
		} else {
			label = strdup(s->label);
		}
		if (!label) {
			free(rowv);
			free(colv);
			free(tabv);
			return iot_err_set(e, -ENOMEM, "out of memory");
		}
		for (g = 0; g < c->ngroups; g++)
			if (!strcmp(c->group[g].label, label))
				break;
		if (g == c->ngroups) {
			c->group[g].label = label;
			c->group[g].rowv = rowv;
			c->group[g].colv = colv;
			c->group[g].tabv = tabv;
			c->ngroups++;
		} else {
			free(label);
			free(rowv);
			free(colv);
			free(tabv);
		}
		c->group[g].nsamples++;
		s->group = g;
	}
	return 0;
}

/*
 * Metric m of one run in a group from its k samples there (one per device of the run the
 * group holds; a run's samples are next to each other): with one, its value; with several,
 * MB/s and IOPS are the run's sum over them, the run's own numbers (NFS, a sweep's metrics:
 * given once per run) stay, and a per-device figure (a latency, an idle share) is not the
 * run's: unknown. Counting devices as samples made one run of four disks "4.90 +- 7.56".
 */
static double run_value(const struct compare *c, const size_t *idx, size_t k, size_t m)
{
	double sum = NAN;

	if (k == 1)
		return c->sample[idx[0]].v[m];
	for (size_t j = 0; j < k; j++) {
		double v = c->sample[idx[j]].v[m];

		if (isnan(v))
			continue;
		if (m >= M_NBLOCK)
			return v;
		if (m != M_MBPS && m != M_IOPS)
			return NAN;
		sum = isnan(sum) ? v : sum + v;
	}
	return sum;
}

/* A confidence interval ends at the quantity's bounds (struct cmp_metric). */
static void clip_ci(const struct compare *c, size_t m, struct stats_summary *s)
{
	double lo = c->metric[m].lo, hi = c->metric[m].hi;

	if (isnan(lo)) {
		lo = 0;
		for (size_t i = 0; i < c->nsamples; i++)
			if (c->sample[i].v[m] < 0)
				lo = -INFINITY;
	}
	if (!isnan(s->ci_lo) && s->ci_lo < lo)
		s->ci_lo = lo;
	if (!isnan(s->ci_hi) && s->ci_hi > hi)
		s->ci_hi = hi;
}

/* No group pools runs whose manifests' labels differ (but the repetition), unless asked
 * (opts.pool) or grouped by --label: the layout left out something that tells them apart. */
static int check_pooled_labels(const struct compare *c, struct iot_err *e)
{
	if (c->opts.pool)
		return 0;
	for (size_t i = 0; i < c->nsamples; i++) {
		const struct cmp_sample *a = &c->sample[i], *b = NULL;
		const json_t *la = json_object_get(a->manifest, "labels"), *lb, *v;
		const char *key;

		if (a->labeled)
			continue;
		for (size_t j = 0; j < i && !b; j++)
			if (c->sample[j].group == a->group && c->sample[j].run != a->run &&
			    !c->sample[j].labeled)
				b = &c->sample[j];
		if (!b)
			continue;
		lb = json_object_get(b->manifest, "labels");
		for (int side = 0; side < 2; side++) {
			json_object_foreach((json_t *)(side ? lb : la), key, v)
			{
				const json_t *w = json_object_get(side ? la : lb, key);
				char *x, *y;

				if (!strcmp(key, REP_LABEL) || json_equal(v, w))
					continue;
				x = compare_jtext(side ? w : v);
				y = compare_jtext(side ? v : w);
				iot_err_set(
				    e, -EINVAL,
				    "'%s' and '%s' differ in their label '%s' ('%s', '%s') but "
				    "would be pooled in group '%s': add %s to the layout (--by, "
				    "--rows, --cols or --tables), or give --pool to pool them",
				    b->path, a->path, key, y ? y : "none", x ? x : "none",
				    c->group[a->group].label, key);
				free(x);
				free(y);
				return -EINVAL;
			}
		}
	}
	return 0;
}

static int summarize(struct compare *c, struct iot_err *e)
{
	double *x = malloc((c->nsamples ? c->nsamples : 1) * sizeof(*x));
	size_t *idx = malloc((c->nsamples ? c->nsamples : 1) * sizeof(*idx));

	if (!x || !idx) {
		free(x);
		free(idx);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	c->merged = c->merged_devices = 0;
	for (size_t g = 0; g < c->ngroups; g++) {
		size_t nidx = 0;

		for (size_t i = 0; i < c->nsamples; i++)
			if (c->sample[i].group == g)
				idx[nidx++] = i;
		for (size_t m = 0; m < c->nmetrics; m++) {
			size_t n = 0;

			for (size_t a = 0, b; a < nidx; a = b) {
				double v;

				for (b = a + 1;
				     b < nidx && c->sample[idx[b]].run == c->sample[idx[a]].run;)
					b++;
				if (m == 0 && b - a > 1) {
					c->merged++;
					if (b - a > c->merged_devices)
						c->merged_devices = b - a;
				}
				v = run_value(c, idx + a, b - a, m);
				if (!isnan(v))
					x[n++] = v;
				for (size_t k = a; k < b; k++)
					c->group[g].cell[m].not_given |=
					    c->sample[idx[k]].not_given[m];
			}
			stats_summarize(x, n, &c->group[g].cell[m].s);
			clip_ci(c, m, &c->group[g].cell[m].s);
		}
	}
	free(x);
	free(idx);
	for (size_t g = 0; g < c->ngroups; g++) {
		for (size_t m = 0; m < c->nmetrics; m++) {
			struct cmp_cell *cell = &c->group[g].cell[m];
			const struct cmp_cell *base = &c->group[c->group[g].base].cell[m];

			cell->rule = -1;
			cell->change_pct = NAN;
			cell->welch.t = cell->welch.df = cell->welch.p = NAN;
			if (g == c->group[g].base || c->ngroups < 2)
				continue;
			if (base->s.n && cell->s.n && base->s.mean != 0)
				cell->change_pct =
				    (cell->s.mean - base->s.mean) / fabs(base->s.mean) * 100;
			stats_welch_test(&base->s, &cell->s, &cell->welch);
		}
	}
	return 0;
}

static int apply_rules(struct compare *c, struct iot_err *e)
{
	for (size_t r = 0; r < c->nrules; r++) {
		const struct cmp_rule *rule = &c->rule[r];
		int m = compare_metric_find(c, rule->metric);

		if (m < 0)
			return iot_err_set(e, -EINVAL, "--fail-if '%s': unknown metric '%s'",
			                   rule->text, rule->metric);
		for (size_t g = 0; g < c->ngroups; g++) {
			struct cmp_cell *cell = &c->group[g].cell[m];
			const struct cmp_cell *base = &c->group[c->group[g].base].cell[m];
			bool crossed, missing;
			double change = cell->change_pct;

			/* two means of 0 did not change; a change from 0 to anything else is none
			 * that a percentage can check */
			if (isnan(change) && base->s.mean == 0 && cell->s.mean == 0)
				change = 0;
			/*
			 * A gate fails closed: no value to check (no run has the metric, a field
			 * that is no number, a relative rule whose baseline has none or whose
			 * change is undefined) is a failure.
			 */
			missing = !cell->s.n || isnan(cell->s.mean) ||
			          (rule->relative && (!base->s.n || isnan(base->s.mean) ||
			                              (g != c->group[g].base && isnan(change))));
			if (missing) {
				crossed = true;
			} else if (rule->relative) {
				if (g == c->group[g].base)
					crossed = false;
				else
					crossed =
					    rule_crossed(rule, change) &&
					    (c->opts.alpha <= 0 || (!isnan(cell->welch.p) &&
					                            cell->welch.p < c->opts.alpha));
			} else {
				crossed = rule_crossed(rule, cell->s.mean);
			}
			if (crossed && cell->result != CMP_FAIL) {
				cell->result = CMP_FAIL;
				cell->rule = (int)r;
				cell->missing = missing;
				c->nfailed++;
			} else if (cell->result == CMP_NONE) {
				cell->result = CMP_PASS;
			}
		}
	}
	return 0;
}

/* Each group's baseline: the baseline group itself, or with --tables the group at the same
 * row and column of its own table (the first group of the table when there is none). */
static void assign_bases(struct compare *c)
{
	const struct cmp_group *b = &c->group[c->baseline];

	for (size_t g = 0; g < c->ngroups; g++) {
		struct cmp_group *gr = &c->group[g];
		size_t first = SIZE_MAX;

		gr->base = c->baseline;
		if (!c->opts.tables)
			continue;
		for (size_t k = 0; k < c->ngroups; k++) {
			const struct cmp_group *o = &c->group[k];

			if (!str_eq(o->tabv, gr->tabv))
				continue;
			if (first == SIZE_MAX)
				first = k;
			if (str_eq(o->rowv, b->rowv) && str_eq(o->colv, b->colv)) {
				first = k;
				break;
			}
		}
		gr->base = first;
	}
}

/* --metrics LIST: every other metric hidden, the listed ones shown in its order; an unknown
 * name is an error. */
static int select_metrics(struct compare *c, struct iot_err *e)
{
	const char *p = c->opts.metrics;
	size_t k = 0;

	if (!p)
		return 0;
	for (size_t m = 0; m < c->nmetrics; m++)
		c->hidden[m] = true;
	while (*p) {
		size_t len = strcspn(p, ",");
		char name[64];
		int m;

		if (len && len < sizeof(name)) {
			memcpy(name, p, len);
			name[len] = 0;
			if ((m = compare_metric_find(c, name)) < 0)
				return iot_err_set(e, -EINVAL, "--metrics: unknown metric '%s'",
				                   name);
			if (c->hidden[m])
				c->order[k++] = (size_t)m;
			c->hidden[m] = false;
		}
		p += len + (p[len] == ',');
	}
	for (size_t m = 0; m < c->nmetrics; m++)
		if (c->hidden[m])
			c->order[k++] = m;
	c->ordered = true;
	return 0;
}

size_t compare_metric_at(const struct compare *c, size_t i)
{
	return c->ordered && i < c->nmetrics ? c->order[i] : i;
}

int compare_finish(struct compare *c, const struct compare_opts *o, struct iot_err *e)
{
	int ret;

	if (o)
		c->opts = *o;
	if (!c->nsamples)
		return iot_err_set(e, -EINVAL, "nothing to compare");
	ret = select_metrics(c, e);
	if (!ret)
		ret = derive_labels(c, e);
	if (!ret)
		ret = compare_check_layout(c, e); /* after the labels: "label" is a key too */
	if (!ret)
		ret = make_groups(c, e);
	if (!ret)
		ret = check_pooled_labels(c, e);
	if (ret)
		return ret;
	c->baseline = 0;
	if (c->opts.baseline) {
		size_t g;

		for (g = 0; g < c->ngroups; g++)
			if (!strcmp(c->group[g].label, c->opts.baseline))
				break;
		/* with --tables, "ROW / COL" names the baseline of every table */
		for (size_t k = 0; g == c->ngroups && c->opts.tables && k < c->ngroups; k++) {
			const char *l = c->group[k].label, *tv = c->group[k].tabv;
			size_t tl = tv ? strlen(tv) : 0;

			if (tv && !strncmp(l, tv, tl) && !strncmp(l + tl, " / ", 3) &&
			    !strcmp(l + tl + 3, c->opts.baseline))
				g = k;
		}
		/* NAME=V: every group has its own baseline, the same cell with NAME=V */
		if (g == c->ngroups && (ret = compare_param_bases(c, e)) <= 0) {
			if (ret)
				return ret;
			goto bases_done;
		}
		if (g == c->ngroups) {
			char list[256] = "";

			for (size_t i = 0; i < c->ngroups; i++) {
				size_t len = strlen(list);

				snprintf(list + len, sizeof(list) - len, "%s'%s'", i ? ", " : "",
				         c->group[i].label);
			}
			return iot_err_set(e, -EINVAL,
			                   "--baseline '%s': no such group (groups: %s)",
			                   c->opts.baseline, list);
		}
		c->baseline = g;
	}
	assign_bases(c);
bases_done:
	ret = summarize(c, e);
	if (!ret)
		ret = apply_rules(c, e);
	return ret;
}
