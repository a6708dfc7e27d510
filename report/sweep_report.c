/* SPDX-License-Identifier: MIT */
/* The HTML page of a sweep: its definition, its tables, a graph per metric and parameter. */
#include "report/sweep_report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xml.h"
#include "compare/compare_int.h"
#include "report/report_int.h"

#define W 720
#define H 340
#define ML 70 /* margins: left (y labels), right (legend), top, bottom (x labels) */
#define MR 190
#define MT 30
#define MB 48
#define MAX_LINES 64

struct pt {
	double x, mean, lo, hi;
};

struct line {
	char label[256];
	struct pt *p;
	size_t n;
};

struct graph {
	const struct sweep_report_param *x;
	bool logx, logy;
	double x0, x1, y0, y1;
	struct line line[MAX_LINES];
	size_t nlines;
};

/* The parameters a cell group has (its first run's: every run of a cell has the same). */
static const json_t *group_params(const struct compare *c, size_t g)
{
	for (size_t i = 0; i < c->nsamples; i++)
		if (c->sample[i].group == g)
			return c->sample[i].params;
	return NULL;
}

static bool numeric(const struct sweep_report_param *p)
{
	if (p->n < 2)
		return false;
	for (size_t i = 0; i < p->n; i++)
		if (isnan(p->num[i]))
			return false;
	return true;
}

static int by_x(const void *a, const void *b)
{
	const struct pt *p = a, *q = b;

	return (p->x > q->x) - (p->x < q->x);
}

static void graph_release(struct graph *gr)
{
	for (size_t i = 0; i < gr->nlines; i++)
		free(gr->line[i].p);
	gr->nlines = 0;
}

/*
 * Means over two decades or more (wall times of 0.01 s and 9 s) on a log axis, from the decade
 * under the smallest to the one above the largest; error bars that reach zero or below end at
 * the axis. Only when every mean is above zero.
 */
static void log_y(struct graph *gr)
{
	double lo = INFINITY, hi = -INFINITY;

	for (size_t i = 0; i < gr->nlines; i++)
		for (size_t k = 0; k < gr->line[i].n; k++) {
			const struct pt *p = &gr->line[i].p[k];

			if (!(p->mean > 0))
				return;
			lo = fmin(lo, p->lo > 0 ? fmin(p->mean, p->lo) : p->mean);
			hi = fmax(hi, p->hi > 0 ? fmax(p->mean, p->hi) : p->mean);
		}
	if (!(hi / lo >= 100) || !isfinite(hi / lo))
		return;
	gr->logy = true;
	gr->y0 = pow(10, floor(log10(lo)));
	gr->y1 = pow(10, ceil(log10(hi)));
}

/* Metric m of every cell against parameter xi, one line per combination of the others. */
static int graph_build(const struct sweep_report *r, size_t m, size_t xi, struct graph *gr)
{
	const struct compare *c = r->cells;
	const struct sweep_report_param *x = &r->param[xi];

	memset(gr, 0, sizeof(*gr));
	gr->x = x;
	gr->y0 = 0;
	gr->y1 = -INFINITY;
	gr->x0 = INFINITY;
	gr->x1 = -INFINITY;
	for (size_t i = 0; i < x->n; i++) {
		gr->x0 = fmin(gr->x0, x->num[i]);
		gr->x1 = fmax(gr->x1, x->num[i]);
	}
	gr->logx = gr->x0 > 0 && (x->log || gr->x1 / gr->x0 >= 100);
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct stats_summary *s = &c->group[g].cell[m].s;
		const json_t *params = group_params(c, g);
		const char *xv = json_string_value(json_object_get(params, x->name));
		char key[256] = "";
		size_t len = 0, vi, li;
		struct pt *np;

		if (!s->n || !xv)
			continue;
		for (vi = 0; vi < x->n && strcmp(x->text[vi], xv); vi++)
			;
		if (vi == x->n)
			continue;
		for (size_t k = 0; k < r->nparams; k++) {
			const char *v =
			    json_string_value(json_object_get(params, r->param[k].name));

			if (k != xi && v && len < sizeof(key))
				len += (size_t)snprintf(key + len, sizeof(key) - len, "%s%s=%s",
				                        len ? " " : "", r->param[k].name, v);
		}
		for (li = 0; li < gr->nlines && strcmp(gr->line[li].label, key); li++)
			;
		if (li == gr->nlines) {
			if (gr->nlines == MAX_LINES)
				continue; /* the table has them all; a graph of 64 lines says little
				           */
			snprintf(gr->line[li].label, sizeof(gr->line[li].label), "%s", key);
			gr->nlines++;
		}
		np = realloc(gr->line[li].p, (gr->line[li].n + 1) * sizeof(*np));
		if (!np)
			return -ENOMEM;
		gr->line[li].p = np;
		np[gr->line[li].n++] = (struct pt){x->num[vi], s->mean, s->ci_lo, s->ci_hi};
		gr->y0 = fmin(gr->y0, isnan(s->ci_lo) ? s->mean : fmin(s->mean, s->ci_lo));
		gr->y1 = fmax(gr->y1, isnan(s->ci_hi) ? s->mean : fmax(s->mean, s->ci_hi));
	}
	for (size_t i = 0; i < gr->nlines; i++)
		qsort(gr->line[i].p, gr->line[i].n, sizeof(struct pt), by_x);
	if (!(gr->y1 > gr->y0))
		gr->y1 = gr->y0 + 1;
	log_y(gr);
	return 0;
}

static double gx(const struct graph *gr, double x)
{
	double f;

	if (gr->x1 <= gr->x0)
		return ML + (W - ML - MR) / 2.0;
	f = gr->logx ? (log(x) - log(gr->x0)) / (log(gr->x1) - log(gr->x0))
	             : (x - gr->x0) / (gr->x1 - gr->x0);
	return ML + 10 + f * (W - ML - MR - 20);
}

static double gy(const struct graph *gr, double y)
{
	double f = gr->logy ? (y > gr->y0 ? log(y / gr->y0) / log(gr->y1 / gr->y0) : 0)
	                    : (y - gr->y0) / (gr->y1 - gr->y0);

	return H - MB - f * (H - MT - MB);
}

/* An axis number: plain, or in k, M, G or T when the axis goes above 100 000 (the axis's top
 * picks the unit, so every label of an axis has the same: 0.5M, 1M, 1.5M). */
static void tick(char *buf, size_t cap, double v, double top)
{
	static const char units[] = "kMGT";
	double div = 1;
	int u = -1;

	while (fabs(top) >= 1e5 && u < 3 && fabs(top) / (div * 1e3) >= 1) {
		div *= 1e3;
		u++;
	}
	if (u < 0)
		snprintf(buf, cap, "%g", v);
	else
		snprintf(buf, cap, "%g%c", v / div, units[u]);
}

static void text(FILE *f, double x, double y, const char *anchor, const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
	xml_puts(f, s);
	fputs("</text>\n", f);
}

static void graph_svg(FILE *f, const struct graph *gr, const char *title, const char *unit,
                      bool standalone)
{
	double step = svg_nice_step(gr->y1 - gr->y0, 5);
	size_t every = gr->x->n > 10 ? (gr->x->n + 9) / 10 : 1;
	char buf[64];

	svg_open(f, W, H, standalone);
	fputs(">\n", f);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", W, H);
	fputs("<g font-size=\"13\">", f);
	text(f, ML, 18, "start", title);
	fputs("</g>\n", f);
	/* y grid and labels: every decade on a log axis */
	if (gr->logy) {
		for (double v = gr->y0; v <= gr->y1 * 1.001; v *= 10) {
			double y = gy(gr, v);

			fprintf(f,
			        "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			        "stroke=\"#e5e5e5\"/>\n",
			        ML, y, W - MR, y);
			tick(buf, sizeof(buf), v, gr->y1);
			text(f, ML - 6, y + 4, "end", buf);
		}
	} else if (step > 0) {
		double first = ceil(gr->y0 / step) * step;

		for (double v = first; v <= gr->y1 + step * 1e-9; v += step) {
			double y = gy(gr, v);

			fprintf(f,
			        "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			        "stroke=\"#e5e5e5\"/>\n",
			        ML, y, W - MR, y);
			tick(buf, sizeof(buf), fabs(v) < step * 1e-9 ? 0 : v, gr->y1);
			text(f, ML - 6, y + 4, "end", buf);
		}
	}
	snprintf(buf, sizeof(buf), "%s%s", unit, gr->logy ? " (log scale)" : "");
	fprintf(f,
	        "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">",
	        (H - MB + MT) / 2, (H - MB + MT) / 2);
	xml_puts(f, buf);
	fputs("</text>\n", f);
	/* x axis: the parameter's own values as ticks */
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", ML, H - MB,
	        W - MR, H - MB);
	for (size_t i = 0; i < gr->x->n; i++) {
		double x = gx(gr, gr->x->num[i]);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\"/>\n",
		        x, H - MB, x, H - MB + 4);
		if (i % every == 0 || i + 1 == gr->x->n)
			text(f, x, H - MB + 16, "middle", gr->x->text[i]);
	}
	snprintf(buf, sizeof(buf), "%s%s", gr->x->name, gr->logx ? " (log scale)" : "");
	text(f, (ML + W - MR) / 2.0, H - 8, "middle", buf);
	/* lines, points and error bars (95 % CI of the mean) */
	for (size_t i = 0; i < gr->nlines; i++) {
		const struct line *l = &gr->line[i];
		const char *col = run_color(i);

		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"%s points=\"",
		        col, "");
		for (size_t k = 0; k < l->n; k++)
			fprintf(f, "%s%.1f,%.1f", k ? " " : "", gx(gr, l->p[k].x),
			        gy(gr, l->p[k].mean));
		fputs("\"/>\n", f);
		for (size_t k = 0; k < l->n; k++) {
			double x = gx(gr, l->p[k].x);

			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n", x,
			        gy(gr, l->p[k].mean), col);
			if (isnan(l->p[k].lo) || isnan(l->p[k].hi))
				continue;
			fprintf(f,
			        "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fh6M%.1f %.1fh6\" stroke=\"%s\" "
			        "fill=\"none\"/>\n",
			        x, gy(gr, l->p[k].lo), gy(gr, l->p[k].hi), x - 3,
			        gy(gr, l->p[k].lo), x - 3, gy(gr, l->p[k].hi), col);
		}
		fprintf(f, "<rect x=\"%d\" y=\"%zu\" width=\"10\" height=\"10\" fill=\"%s\"/>\n",
		        W - MR + 12, MT + i * 16, col);
		text(f, W - MR + 27, (double)(MT + i * 16 + 9), "start",
		     l->label[0] ? l->label : "every run");
	}
	fputs("</svg>\n", f);
}

/* One graph inline, and as --svg DIR/NAME.svg. */
static int graph_emit(FILE *f, const struct sweep_report *r, const struct graph *gr,
                      const struct cmp_metric *mt)
{
	char title[160], *doc = NULL, name[160];
	size_t len = 0;
	FILE *mf;
	int ret = 0;

	snprintf(title, sizeof(title), "%s by %s%s", mt->title, gr->x->name,
	         gr->nlines > 1 ? ", per value of the other parameters" : "");
	graph_svg(f, gr, title, *mt->unit ? mt->unit : mt->title, false);
	if (!r->svg_out)
		return 0;
	mf = open_memstream(&doc, &len);
	if (!mf)
		return -ENOMEM;
	graph_svg(mf, gr, title, *mt->unit ? mt->unit : mt->title, true);
	if (fclose(mf)) {
		free(doc);
		return -ENOMEM;
	}
	snprintf(name, sizeof(name), "sweep-%s-by-%s.svg", mt->key, gr->x->name);
	for (char *p = name; *p; p++)
		if (*p == '/')
			*p = '_';
	ret = r->svg_out(r->svg_ctx, name, doc, len);
	free(doc);
	return ret;
}

static void summary_section(FILE *f, const struct sweep_report *r)
{
	const json_t *cmd = json_object_get(r->definition, "command"), *v;
	size_t i;

	fputs("<p>", f);
	xml_puts(f, r->dir);
	fprintf(f, ": %zu runs, %zu done, %zu failed, %zu not run.</p>\n<table>\n", r->runs_total,
	        r->runs_done, r->runs_failed, r->runs_total - r->runs_done - r->runs_failed);
	fputs("<tr><th>command</th><td><code>", f);
	json_array_foreach(cmd, i, v)
	{
		if (i)
			fputc(' ', f);
		xml_puts(f, json_string_value(v) ? json_string_value(v) : "");
	}
	fputs("</code></td></tr>\n", f);
	for (size_t k = 0; k < 2; k++) {
		const char *key = k ? "teardown" : "setup";
		const char *s = json_string_value(json_object_get(r->definition, key));

		if (!s)
			continue;
		fprintf(f, "<tr><th>%s</th><td><code>", key);
		xml_puts(f, s);
		fputs("</code></td></tr>\n", f);
	}
	for (size_t k = 0; k < r->nparams; k++) {
		fputs("<tr><th>", f);
		xml_puts(f, r->param[k].name);
		fputs("</th><td>", f);
		for (size_t j = 0; j < r->param[k].n; j++) {
			if (j)
				fputs(", ", f);
			xml_puts(f, r->param[k].text[j]);
		}
		fputs("</td></tr>\n", f);
	}
	fprintf(f, "<tr><th>repetitions</th><td>%lld, order %s, seed %lld</td></tr>\n",
	        (long long)json_integer_value(json_object_get(r->definition, "reps")),
	        json_string_value(json_object_get(r->definition, "order"))
	            ? json_string_value(json_object_get(r->definition, "order"))
	            : "?",
	        (long long)json_integer_value(json_object_get(r->definition, "seed")));
	fputs("</table>\n", f);
	if (json_array_size(r->failed)) {
		fputs("<h3>Failed runs</h3>\n<table>\n<tr><th>run</th><th>why</th></tr>\n", f);
		json_array_foreach(r->failed, i, v)
		{
			if (i >= 200) {
				fprintf(f, "<tr><td colspan=\"2\">and %zu more</td></tr>\n",
				        json_array_size(r->failed) - i);
				break;
			}
			fputs("<tr class=\"fail\">", f);
			td_text(f, json_string_value(json_object_get(v, "run")));
			td_text(f, json_string_value(json_object_get(v, "error")));
			fputs("</tr>\n", f);
		}
		fputs("</table>\n", f);
	}
}

int sweep_report_write_html(FILE *f, const struct sweep_report *r, struct iot_err *e)
{
	const struct compare *c = r->cells;
	char *def;
	bool any = false;
	int ret;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
	xml_puts(f, r->title);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", report_css);
	xml_puts(f, r->title);
	fputs("</h1>\n<h2>Sweep</h2>\n", f);
	summary_section(f, r);
	fputs("<h2>Tables</h2>\n", f);
	if ((ret = compare_render(r->table, CMP_FMT_HTML, f)))
		return iot_err_set(e, ret, "writing the tables: %s", strerror(-ret));
	fputs("<h2>Graphs</h2>\n<p class=\"note\">The mean of each cell's runs; error bars: the "
	      "95 % confidence interval of the mean (Student t), where a cell has two runs or "
	      "more.</p>\n",
	      f);
	for (size_t at = 0; at < c->nmetrics; at++) {
		size_t m = compare_metric_at(c, at);

		if (!compare_metric_shown(c, m))
			continue;
		for (size_t xi = 0; xi < r->nparams; xi++) {
			struct graph gr;

			if (!numeric(&r->param[xi]))
				continue;
			ret = graph_build(r, m, xi, &gr);
			if (!ret && gr.nlines)
				ret = graph_emit(f, r, &gr, &c->metric[m]);
			graph_release(&gr);
			if (ret)
				return iot_err_set(e, ret, "graph of %s: %s", c->metric[m].key,
				                   strerror(-ret));
			any = true;
		}
	}
	if (!any)
		fputs(
		    "<p class=\"note\">No parameter has numbers for values: no graphs (the tables "
		    "above have every figure).</p>\n",
		    f);
	def = json_dumps(r->definition, JSON_INDENT(2));
	fputs("<h2>Definition</h2>\n<details><summary>sweep.json</summary><pre>", f);
	xml_puts(f, def ? def : "");
	fprintf(f, "</pre></details>\n<p class=\"note\">iotape %s</p>\n</body>\n</html>\n",
	        r->version ? r->version : "");
	free(def);
	return ferror(f) ? iot_err_set(e, -EIO, "write failed") : 0;
}
