/* SPDX-License-Identifier: MIT */
/* iotape compare output: text, Markdown, CSV, JSON and an HTML fragment for the report. */
#include "compare/compare.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/jsonint.h"
#include "common/textesc.h"
#include "common/xml.h"

int compare_format_parse(const char *s, enum cmp_format *out)
{
	static const struct {
		const char *name;
		enum cmp_format f;
	} names[] = {{"text", CMP_FMT_TEXT},   {"markdown", CMP_FMT_MARKDOWN},
	             {"md", CMP_FMT_MARKDOWN}, {"csv", CMP_FMT_CSV},
	             {"json", CMP_FMT_JSON},   {"html", CMP_FMT_HTML}};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcasecmp(s, names[i].name)) {
			*out = names[i].f;
			return 0;
		}
	}
	return -EINVAL;
}

/* ---- a table of strings, laid out by the text, Markdown and HTML writers ---- */

struct tbl {
	size_t nr, nc, cap;
	char **cell;    /* nr x nc, row 0 is the header */
	bool right[16]; /* column is numeric */
	bool fail_row[256];
};

static void tbl_free(struct tbl *t)
{
	for (size_t i = 0; i < t->nr * t->nc; i++)
		free(t->cell[i]);
	free(t->cell);
}

static int tbl_row(struct tbl *t)
{
	if (t->nr * t->nc + t->nc > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16 * t->nc;
		char **n;

		while (cap < t->nr * t->nc + t->nc)
			cap *= 2;
		n = realloc(t->cell, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		t->cell = n;
		t->cap = cap;
	}
	for (size_t i = 0; i < t->nc; i++)
		t->cell[t->nr * t->nc + i] = NULL;
	t->nr++;
	return 0;
}

__attribute__((format(printf, 3, 4))) static void tbl_set(struct tbl *t, size_t col,
                                                          const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	/* labels come from manifests: their control bytes are shown, never sent (textesc.h) */
	free(t->cell[(t->nr - 1) * t->nc + col]);
	t->cell[(t->nr - 1) * t->nc + col] = s ? txt_strdup(s) : NULL;
	free(s);
}

static const char *tbl_get(const struct tbl *t, size_t r, size_t c)
{
	const char *s = t->cell[r * t->nc + c];

	return s ? s : "";
}

/* Display width: UTF-8 continuation bytes take no column. */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void pad(FILE *f, size_t n)
{
	while (n--)
		fputc(' ', f);
}

static void tbl_text_line(const struct tbl *t, const size_t *w, size_t r, FILE *f)
{
	char *line = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&line, &len);

	if (!m)
		return;
	for (size_t c = 0; c < t->nc; c++) {
		const char *s = tbl_get(t, r, c);
		size_t gap = w[c] - width(s);

		if (c)
			fputs("  ", m);
		if (t->right[c] && r)
			pad(m, gap);
		fputs(s, m);
		if (!t->right[c] || !r)
			pad(m, gap);
	}
	fclose(m);
	/* no trailing blanks: empty last columns would otherwise leave them */
	while (len && line[len - 1] == ' ')
		len--;
	fwrite(line, 1, len, f);
	fputc('\n', f);
	free(line);
}

static void tbl_text(const struct tbl *t, FILE *f)
{
	size_t w[16] = {0};

	for (size_t r = 0; r < t->nr; r++)
		for (size_t c = 0; c < t->nc; c++)
			if (width(tbl_get(t, r, c)) > w[c])
				w[c] = width(tbl_get(t, r, c));
	for (size_t r = 0; r < t->nr; r++) {
		tbl_text_line(t, w, r, f);
		if (r == 0) {
			for (size_t c = 0; c < t->nc; c++) {
				if (c)
					fputs("  ", f);
				for (size_t i = 0; i < w[c]; i++)
					fputc('-', f);
			}
			fputc('\n', f);
		}
	}
}

static void md_cell(FILE *f, const char *s)
{
	fputc(' ', f);
	for (; *s; s++) {
		if (*s == '|' || *s == '\\' || *s == '*' || *s == '_' || *s == '`')
			fputc('\\', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
	fputs(" |", f);
}

static void tbl_markdown(const struct tbl *t, FILE *f)
{
	for (size_t r = 0; r < t->nr; r++) {
		fputc('|', f);
		for (size_t c = 0; c < t->nc; c++)
			md_cell(f, tbl_get(t, r, c));
		fputc('\n', f);
		if (r == 0) {
			fputc('|', f);
			for (size_t c = 0; c < t->nc; c++)
				fputs(t->right[c] ? " ---: |" : " --- |", f);
			fputc('\n', f);
		}
	}
}

static void tbl_html(const struct tbl *t, FILE *f)
{
	fputs("<table class=\"cmp\">\n", f);
	for (size_t r = 0; r < t->nr; r++) {
		fputs(r == 0                        ? "<thead><tr>"
		      : (r < 256 && t->fail_row[r]) ? "<tr class=\"fail\">"
		                                    : "<tr>",
		      f);
		for (size_t c = 0; c < t->nc; c++) {
			fputs(r == 0 ? "<th>" : t->right[c] ? "<td class=\"n\">" : "<td>", f);
			xml_puts(f, tbl_get(t, r, c));
			fputs(r == 0 ? "</th>" : "</td>", f);
		}
		fputs(r == 0 ? "</tr></thead>\n" : "</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* ---- numbers ---- */

bool compare_metric_shown(const struct compare *c, size_t m)
{
	if (c->hidden[m])
		return false;
	for (size_t g = 0; g < c->ngroups; g++)
		if (c->group[g].cell[m].s.n || c->group[g].cell[m].missing)
			return true; /* a gate that failed for want of data is shown too */
	return false;
}

static void metric_name(const struct compare *c, size_t m, char *buf, size_t cap)
{
	const struct cmp_metric *mt = &c->metric[m];

	if (*mt->unit && strcmp(mt->unit, mt->title))
		snprintf(buf, cap, "%s (%s)", mt->title, mt->unit);
	else
		snprintf(buf, cap, "%s", mt->title);
}

static void fmt_num(char *buf, size_t cap, double v, int decimals)
{
	if (isnan(v))
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "%.*f", decimals, v);
}

static void fmt_p(char *buf, size_t cap, double p)
{
	if (isnan(p))
		snprintf(buf, cap, "-");
	else if (p < 0.001)
		snprintf(buf, cap, "<0.001");
	else
		snprintf(buf, cap, "%.3f", p);
}

static void fmt_change(char *buf, size_t cap, const struct compare *c, size_t g, double pct)
{
	if (g == c->group[g].base)
		snprintf(buf, cap, "baseline");
	else if (isnan(pct))
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "%+.1f%%", pct);
}

static const char *result_name(const struct cmp_cell *cell)
{
	if (cell->result == CMP_FAIL)
		return cell->missing ? "FAIL (no data)" : "FAIL";
	return cell->result == CMP_PASS ? "PASS" : "";
}

/* The long table: one row per metric and group. */
static int build_long(const struct compare *c, struct tbl *t)
{
	bool cmp = c->ngroups > 1, rules = c->nrules > 0;
	size_t col = 0;

	t->nc = 7 + (cmp ? 2 : 0) + (rules ? 1 : 0);
	if (tbl_row(t))
		return -ENOMEM;
	tbl_set(t, col++, "metric");
	tbl_set(t, col++, "group");
	tbl_set(t, col, "n"), t->right[col++] = true;
	tbl_set(t, col, "mean"), t->right[col++] = true;
	tbl_set(t, col, "sd"), t->right[col++] = true;
	tbl_set(t, col, "median"), t->right[col++] = true;
	tbl_set(t, col, "95%% CI"), t->right[col++] = true;
	if (cmp) {
		tbl_set(t, col, "vs baseline"), t->right[col++] = true;
		tbl_set(t, col, "p (Welch)"), t->right[col++] = true;
	}
	if (rules)
		tbl_set(t, col++, "result");
	for (size_t at = 0; at < c->nmetrics; at++) {
		size_t m = compare_metric_at(c, at);
		char name[96];

		if (!compare_metric_shown(c, m))
			continue;
		metric_name(c, m, name, sizeof(name));
		for (size_t g = 0; g < c->ngroups; g++) {
			const struct cmp_cell *cell = &c->group[g].cell[m];
			int d = c->metric[m].decimals;
			char a[64], b[64];

			if (!cell->s.n && !cell->missing && !cell->not_given &&
			    g != c->group[g].base)
				continue; /* a run without this kind of data (CSV and JSON keep it)
				           */
			if (tbl_row(t))
				return -ENOMEM;
			col = 0;
			tbl_set(t, col++, "%s", name);
			tbl_set(t, col++, "%s", c->group[g].label);
			tbl_set(t, col++, "%zu", cell->s.n);
			fmt_num(a, sizeof(a), cell->s.mean, d);
			/* not a zero: the run's level of detail does not record it */
			tbl_set(t, col++, "%s", !cell->s.n && cell->not_given ? "not given" : a);
			fmt_num(a, sizeof(a), cell->s.sd, d);
			tbl_set(t, col++, "%s", a);
			fmt_num(a, sizeof(a), cell->s.median, d);
			tbl_set(t, col++, "%s", a);
			if (isnan(cell->s.ci_lo)) {
				tbl_set(t, col++, "-");
			} else {
				fmt_num(a, sizeof(a), cell->s.ci_lo, d);
				fmt_num(b, sizeof(b), cell->s.ci_hi, d);
				tbl_set(t, col++, "%s .. %s", a, b);
			}
			if (cmp) {
				fmt_change(a, sizeof(a), c, g, cell->change_pct);
				tbl_set(t, col++, "%s", a);
				fmt_p(a, sizeof(a), cell->welch.p);
				tbl_set(t, col++, "%s", g == c->group[g].base ? "" : a);
			}
			if (rules)
				tbl_set(t, col++, "%s", result_name(cell));
			if (t->nr - 1 < 256)
				t->fail_row[t->nr - 1] = cell->result == CMP_FAIL;
		}
	}
	return 0;
}

static const char *nz(const char *s)
{
	return s ? s : "";
}

/* Distinct row (what 0), column (1) or table (2) values of the groups in table tab, in
 * first-appearance order: at most cap (a cap of c->ngroups holds them all). */
static size_t distinct(const struct compare *c, int what, const char *tab, const char **out,
                       size_t cap)
{
	size_t n = 0;

	for (size_t g = 0; g < c->ngroups; g++) {
		const struct cmp_group *gr = &c->group[g];
		const char *v = what == 0 ? gr->rowv : what == 1 ? gr->colv : gr->tabv;
		size_t i;

		if (tab && strcmp(nz(gr->tabv), tab))
			continue;
		if (!v)
			v = "";
		for (i = 0; i < n; i++)
			if (!strcmp(out[i], v))
				break;
		if (i == n && n < cap)
			out[n++] = v;
	}
	return n;
}

/* A key list as a heading: "version,distro" -> "version, distro". */
static const char *keys_text(const char *keys, char *buf, size_t cap)
{
	size_t n = 0;

	buf[0] = 0;
	for (const char *p = keys ? keys : ""; *p && n + 3 < cap; p++) {
		buf[n++] = *p;
		if (*p == ',')
			buf[n++] = ' ';
	}
	buf[n] = 0;
	return buf;
}

/* What a matrix shows of its axes: at most MATRIX_ROWS rows, MATRIX_COLS columns (the table
 * keeps 16 columns, the first for the row names) and MATRIX_TABLES tables. */
#define MATRIX_ROWS 64u
#define MATRIX_COLS 15u
#define MATRIX_TABLES 64u

/* "(2 more columns not shown: l16, l17; ...)" under a matrix that could not show them all. */
static void matrix_note(FILE *f, enum cmp_format fmt, const char *what, const char **v, size_t n,
                        size_t shown)
{
	if (n <= shown)
		return;
	fputs(fmt == CMP_FMT_HTML ? "<p>" : "\n", f);
	fprintf(f, "(%zu more %s not shown: ", n - shown, what);
	for (size_t i = shown; i < n && i < shown + 8; i++) {
		if (i > shown)
			fputs(", ", f);
		if (fmt == CMP_FMT_HTML)
			xml_puts(f, v[i]);
		else
			txt_puts(f, v[i]);
	}
	fprintf(f, "%s; a matrix shows %u columns and %u rows: split it with --tables)%s\n",
	        n > shown + 8 ? ", ..." : "", MATRIX_COLS, MATRIX_ROWS,
	        fmt == CMP_FMT_HTML ? "</p>" : "");
}

static int build_matrix(const struct compare *c, size_t m, const char *tab, const char **rv,
                        size_t nr, const char **cv, size_t nc, struct tbl *t)
{
	char rk[256], ck[256];
	int d = c->metric[m].decimals;

	t->nc = nc + 1;
	if (tbl_row(t))
		return -ENOMEM;
	tbl_set(t, 0, "%s \\ %s", keys_text(c->opts.rows, rk, sizeof(rk)),
	        keys_text(c->opts.cols, ck, sizeof(ck)));
	for (size_t j = 0; j < nc; j++) {
		tbl_set(t, j + 1, "%s", cv[j]);
		t->right[j + 1] = true;
	}
	for (size_t i = 0; i < nr; i++) {
		if (tbl_row(t))
			return -ENOMEM;
		tbl_set(t, 0, "%s", rv[i]);
		for (size_t j = 0; j < nc; j++) {
			for (size_t g = 0; g < c->ngroups; g++) {
				const struct cmp_group *gr = &c->group[g];
				const struct cmp_cell *cell = &gr->cell[m];
				char a[64], ci[64] = "", ch[64] = "";

				if (strcmp(nz(gr->rowv), rv[i]) || strcmp(nz(gr->colv), cv[j]) ||
				    strcmp(nz(gr->tabv), tab) || (!cell->s.n && !cell->not_given))
					continue;
				if (!cell->s.n) {
					tbl_set(t, j + 1, "not given");
					continue;
				}
				fmt_num(a, sizeof(a), cell->s.mean, d);
				if (!isnan(cell->s.ci_hi))
					snprintf(ci, sizeof(ci), " ±%.*f", d,
					         (cell->s.ci_hi - cell->s.ci_lo) / 2);
				if (c->ngroups > 1 && g != gr->base && !isnan(cell->change_pct))
					snprintf(ch, sizeof(ch), " (%+.1f%%)", cell->change_pct);
				else if (c->ngroups > 1 && g == gr->base)
					snprintf(ch, sizeof(ch), " (baseline)");
				/* a cell a rule checked says how it came out; a baseline, compared
				 * with itself, only that it is one */
				tbl_set(t, j + 1, "%s%s%s%s", a, ci, ch,
				        cell->result == CMP_FAIL
				            ? (cell->missing ? " FAIL (no data)" : " FAIL")
				        : cell->result == CMP_PASS && g != gr->base ? " PASS"
				                                                    : "");
			}
		}
	}
	return 0;
}

static int render_tables(const struct compare *c, enum cmp_format fmt, FILE *f)
{
	bool matrix = c->opts.rows || c->opts.cols || c->opts.tables;
	const char **tabs = NULL, **rv = NULL, **cv = NULL;
	char tk[256];
	size_t ntabs;
	int ret = 0;

	if (!matrix) {
		struct tbl t = {0};

		ret = build_long(c, &t);
		if (!ret) {
			if (fmt == CMP_FMT_TEXT)
				tbl_text(&t, f);
			else if (fmt == CMP_FMT_MARKDOWN)
				tbl_markdown(&t, f);
			else
				tbl_html(&t, f);
		}
		tbl_free(&t);
		return ret;
	}
	tabs = calloc(c->ngroups + 1, sizeof(*tabs));
	rv = calloc(c->ngroups + 1, sizeof(*rv));
	cv = calloc(c->ngroups + 1, sizeof(*cv));
	if (!tabs || !rv || !cv) {
		ret = -ENOMEM;
		goto out;
	}
	ntabs = distinct(c, 2, NULL, tabs, c->ngroups);
	for (size_t k = 0; k < ntabs && k < MATRIX_TABLES && !ret; k++) {
		bool first = k == 0;
		size_t nr = distinct(c, 0, tabs[k], rv, c->ngroups);
		size_t nc = distinct(c, 1, tabs[k], cv, c->ngroups);

		if (c->opts.tables) {
			if (fmt == CMP_FMT_TEXT || fmt == CMP_FMT_MARKDOWN) {
				fputs(first ? "" : "\n\n", f);
				fputs(fmt == CMP_FMT_TEXT ? "== " : "## ", f);
				txt_puts(f, keys_text(c->opts.tables, tk, sizeof(tk)));
				fputs(" = ", f);
				txt_puts(f, tabs[k]);
				fputs(fmt == CMP_FMT_TEXT ? " ==\n" : "\n", f);
			} else {
				fputs("<h3>", f);
				xml_puts(f, keys_text(c->opts.tables, tk, sizeof(tk)));
				fputs(" = ", f);
				xml_puts(f, tabs[k]);
				fputs("</h3>\n", f);
			}
			first = false;
		}
		for (size_t at = 0; at < c->nmetrics && !ret; at++) {
			size_t m = compare_metric_at(c, at);
			struct tbl t = {0};
			char name[96];

			if (!compare_metric_shown(c, m))
				continue;
			metric_name(c, m, name, sizeof(name));
			ret = build_matrix(c, m, tabs[k], rv, nr < MATRIX_ROWS ? nr : MATRIX_ROWS,
			                   cv, nc < MATRIX_COLS ? nc : MATRIX_COLS, &t);
			if (!ret) {
				if (fmt == CMP_FMT_TEXT) {
					fputs(first ? "" : "\n", f);
					txt_puts(f, name);
					fputs("\n\n", f);
					tbl_text(&t, f);
				} else if (fmt == CMP_FMT_MARKDOWN) {
					fputs(first ? "### " : "\n### ", f);
					txt_puts(f, name);
					fputs("\n\n", f);
					tbl_markdown(&t, f);
				} else {
					fputs("<h4>", f);
					xml_puts(f, name);
					fputs("</h4>\n", f);
					tbl_html(&t, f);
				}
				matrix_note(f, fmt, "columns", cv, nc, MATRIX_COLS);
				matrix_note(f, fmt, "rows", rv, nr, MATRIX_ROWS);
			}
			first = false;
			tbl_free(&t);
		}
	}
	if (!ret)
		matrix_note(f, fmt, "tables", tabs, ntabs, MATRIX_TABLES);
out:
	free(tabs);
	free(rv);
	free(cv);
	return ret;
}

/* The baseline as the footer names it: its label, or with --tables the row and column that
 * are the baseline of each table. */
static const char *baseline_name(const struct compare *c, char *buf, size_t cap)
{
	const struct cmp_group *b = &c->group[c->baseline];

	if (!c->opts.tables)
		return b->label;
	snprintf(buf, cap, "%s%s%s, in each table", b->rowv ? b->rowv : "",
	         b->rowv && b->colv ? " / " : "", b->colv ? b->colv : "");
	return buf;
}

static void footer(const struct compare *c, enum cmp_format fmt, FILE *f)
{
	char bn[600];
	const char *pre = fmt == CMP_FMT_MARKDOWN ? "\n" : "\n";

	if (c->ngroups > 1 && c->param_base) {
		fprintf(f, "%sbaseline: for each group, the group with ", pre);
		txt_puts(f, c->opts.baseline);
		fputs(" and the same other values; p: Welch's two-sided t-test against it; CI: "
		      "Student t, 95%\n",
		      f);
	} else if (c->ngroups > 1) {
		fprintf(f, "%sbaseline: ", pre);
		txt_puts(f, baseline_name(c, bn, sizeof(bn)));
		fputs("; p: Welch's two-sided t-test against the baseline; CI: Student t, 95%\n",
		      f);
	}
	for (size_t r = 0; r < c->nrules; r++) {
		size_t fails = 0;
		int m = compare_metric_find(c, c->rule[r].metric);

		for (size_t g = 0; m >= 0 && g < c->ngroups; g++)
			fails += c->group[g].cell[m].result == CMP_FAIL &&
			         c->group[g].cell[m].rule == (int)r;
		fprintf(f, "%s--fail-if '", fmt == CMP_FMT_MARKDOWN ? "\n" : "");
		txt_puts(f, c->rule[r].text);
		fprintf(f, "': %s\n", fails ? "FAIL" : "PASS");
	}
}

static void csv_num(FILE *f, double v)
{
	fputc(',', f);
	if (isnan(v))
		return;
	if (isinf(v))
		fputs(v > 0 ? "inf" : "-inf", f);
	else
		fprintf(f, "%.6g", v);
}

static void render_csv(const struct compare *c, FILE *f)
{
	fputs("metric,unit,group,n,mean,sd,median,ci95_lo,ci95_hi,change_pct,welch_t,welch_df,"
	      "p_value,result\n",
	      f);
	for (size_t at = 0; at < c->nmetrics; at++) {
		size_t m = compare_metric_at(c, at);

		if (!compare_metric_shown(c, m))
			continue;
		for (size_t g = 0; g < c->ngroups; g++) {
			const struct cmp_cell *cell = &c->group[g].cell[m];

			txt_csv_puts(f, c->metric[m].key);
			fputc(',', f);
			txt_csv_puts(f, c->metric[m].unit);
			fputc(',', f);
			txt_csv_puts(f, c->group[g].label);
			fprintf(f, ",%zu", cell->s.n);
			csv_num(f, cell->s.mean);
			csv_num(f, cell->s.sd);
			csv_num(f, cell->s.median);
			csv_num(f, cell->s.ci_lo);
			csv_num(f, cell->s.ci_hi);
			csv_num(f, cell->change_pct);
			csv_num(f, cell->welch.t);
			csv_num(f, cell->welch.df);
			csv_num(f, cell->welch.p);
			fprintf(f, ",%s\n", result_name(cell));
		}
	}
}

static json_t *jreal(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* A sweep group's parameters: those every run of the group has with one value (new
 * reference), or NULL when its runs are no sweep's. */
static json_t *shared_params(const struct compare *c, size_t g)
{
	json_t *p = NULL;

	for (size_t i = 0; i < c->nsamples; i++) {
		const char *key;
		json_t *v, *tmp;

		if (c->sample[i].group != g || !c->sample[i].params)
			continue;
		if (!p) {
			p = json_deep_copy(c->sample[i].params);
			continue;
		}
		json_object_foreach_safe(p, tmp, key, v)
		{
			if (!json_equal(v, json_object_get(c->sample[i].params, key)))
				json_object_del(p, key);
		}
	}
	return p;
}

json_t *compare_to_json(const struct compare *c)
{
	json_t *root = json_object(), *groups = json_array(), *metrics = json_array();
	json_t *rules = json_array();

	if (!root || !groups || !metrics || !rules) {
		json_decref(root);
		json_decref(groups);
		json_decref(metrics);
		json_decref(rules);
		return NULL;
	}
	json_object_set_new(root, "baseline",
	                    c->ngroups ? json_string(c->group[c->baseline].label) : json_null());
	json_object_set_new(root, "test", json_string("welch"));
	json_object_set_new(root, "confidence", json_real(0.95));
	for (size_t g = 0; g < c->ngroups; g++) {
		json_t *o = json_object(), *runs = json_array(), *params;

		json_object_set_new(o, "label", json_string(c->group[g].label));
		if (c->group[g].rowv)
			json_object_set_new(o, "row", json_string(c->group[g].rowv));
		if (c->group[g].colv)
			json_object_set_new(o, "col", json_string(c->group[g].colv));
		if (c->group[g].tabv)
			json_object_set_new(o, "table", json_string(c->group[g].tabv));
		json_object_set_new(o, "baseline", json_string(c->group[c->group[g].base].label));
		for (size_t i = 0; i < c->nsamples; i++)
			if (c->sample[i].group == g)
				json_array_append_new(runs, json_string(c->sample[i].path));
		if ((params = shared_params(c, g)))
			json_object_set_new(o, "params", params);
		json_object_set_new(o, "runs", runs);
		json_array_append_new(groups, o);
	}
	for (size_t at = 0; at < c->nmetrics; at++) {
		size_t m = compare_metric_at(c, at);
		json_t *o, *rows;

		if (!compare_metric_shown(c, m))
			continue;
		o = json_object();
		rows = json_array();
		json_object_set_new(o, "key", json_string(c->metric[m].key));
		json_object_set_new(o, "title", json_string(c->metric[m].title));
		json_object_set_new(o, "unit", json_string(c->metric[m].unit));
		for (size_t g = 0; g < c->ngroups; g++) {
			const struct cmp_cell *cell = &c->group[g].cell[m];
			json_t *r = json_object();

			json_object_set_new(r, "group", json_string(c->group[g].label));
			json_object_set_new(r, "n", json_u64(cell->s.n));
			json_object_set_new(r, "mean", jreal(cell->s.mean));
			json_object_set_new(r, "sd", jreal(cell->s.sd));
			json_object_set_new(r, "median", jreal(cell->s.median));
			json_object_set_new(r, "min", jreal(cell->s.min));
			json_object_set_new(r, "max", jreal(cell->s.max));
			json_object_set_new(
			    r, "ci95",
			    json_pack("[o,o]", jreal(cell->s.ci_lo), jreal(cell->s.ci_hi)));
			json_object_set_new(r, "change_pct", jreal(cell->change_pct));
			json_object_set_new(r, "welch",
			                    json_pack("{s:o,s:o,s:o}", "t", jreal(cell->welch.t),
			                              "df", jreal(cell->welch.df), "p",
			                              jreal(cell->welch.p)));
			if (cell->result)
				json_object_set_new(
				    r, "result",
				    json_string(cell->result == CMP_FAIL ? "FAIL" : "PASS"));
			if (cell->missing)
				json_object_set_new(r, "missing", json_true());
			if (cell->not_given)
				json_object_set_new(r, "not_given", json_true());
			json_array_append_new(rows, r);
		}
		json_object_set_new(o, "rows", rows);
		json_array_append_new(metrics, o);
	}
	for (size_t r = 0; r < c->nrules; r++)
		json_array_append_new(rules, json_string(c->rule[r].text));
	json_object_set_new(root, "groups", groups);
	json_object_set_new(root, "metrics", metrics);
	json_object_set_new(root, "fail_if", rules);
	json_object_set_new(root, "failed", json_u64(c->nfailed));
	return root;
}

int compare_render(const struct compare *c, enum cmp_format fmt, FILE *f)
{
	char bn[600];
	int ret = 0;

	switch (fmt) {
	case CMP_FMT_TEXT:
	case CMP_FMT_MARKDOWN:
		ret = render_tables(c, fmt, f);
		if (!ret)
			footer(c, fmt, f);
		break;
	case CMP_FMT_HTML:
		ret = render_tables(c, fmt, f);
		if (!ret && c->ngroups > 1 && c->param_base) {
			fputs("<p class=\"note\">baseline: for each group, the group with ", f);
			xml_puts(f, c->opts.baseline);
			fputs(" and the same other values; p: Welch's two-sided t-test against it; "
			      "CI: Student t, 95 %</p>\n",
			      f);
		} else if (!ret && c->ngroups > 1) {
			fputs("<p class=\"note\">baseline: ", f);
			xml_puts(f, baseline_name(c, bn, sizeof(bn)));
			fputs("; p: Welch's two-sided t-test against the baseline; CI: Student t, "
			      "95 %</p>\n",
			      f);
		}
		break;
	case CMP_FMT_CSV:
		render_csv(c, f);
		break;
	case CMP_FMT_JSON: {
		json_t *j = compare_to_json(c);

		if (!j)
			return -ENOMEM;
		ret = json_dumpf(j, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) ? -EIO : 0;
		fputc('\n', f);
		json_decref(j);
		break;
	}
	}
	return ferror(f) ? -EIO : ret;
}
