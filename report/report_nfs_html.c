/* SPDX-License-Identifier: MIT */
/* The report's NFS section: per-procedure table and per-interval graphs. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"
#include "report/report_nfs.h"
#include "common/xml.h"

static double jd(const json_t *o, const char *a, const char *b)
{
	const json_t *v = o;

	if (v && a)
		v = json_object_get(v, a);
	if (v && b)
		v = json_object_get(v, b);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void nfs_table(FILE *f, const struct report_input *in, size_t n)
{
	fputs("<table>\n<thead><tr><th>run</th><th>program</th><th>version</th><th>operation</th>"
	      "<th>calls</th>"
	      "<th>errors</th><th>MiB</th><th>SRT mean (ms)</th><th>SRT p50 (ms)</th>"
	      "<th>SRT p99 (ms)</th><th>SRT max (ms)</th></tr></thead>\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		const json_t *procs =
		    json_object_get(json_object_get(in[i].summary, "nfs"), "procedures");
		const json_t *p;
		size_t k;

		json_array_foreach(procs, k, p)
		{
			const json_t *ver = json_object_get(p, "version");
			const char *name = json_string_value(json_object_get(p, "name"));
			const char *prog = json_string_value(json_object_get(p, "program"));
			char vbuf[32];

			if (json_is_string(ver))
				snprintf(vbuf, sizeof(vbuf), "%s", json_string_value(ver));
			else
				snprintf(vbuf, sizeof(vbuf), "%g", jd(p, "version", NULL));
			fputs("<tr><td>", f);
			swatch(f, run_color(i));
			xml_puts(f, run_label(&in[i]));
			fputs("</td>", f);
			td_text(f, prog ? prog : "?");
			td_text(f, vbuf);
			td_text(f, name ? name : "?");
			td_num(f, jd(p, "calls", NULL), 0);
			td_num(f, jd(p, "errors", NULL), 0);
			td_num(f, jd(p, "bytes", NULL) / IOT_MIB, 2);
			td_num(f, jd(p, "srt_ns", "mean") / 1e6, 3);
			td_num(f, jd(p, "srt_ns", "p50") / 1e6, 3);
			td_num(f, jd(p, "srt_ns", "p99") / 1e6, 3);
			td_num(f, jd(p, "srt_ns", "max") / 1e6, 3);
			fputs("</tr>\n", f);
		}
	}
	fputs("</table>\n", f);
}

struct nfs_points {
	size_t n;
	double *x, *ops[RPT_NFS_SLOTS], *total, *outstanding, *p50, *p99;
	struct svg_band *bands;
	size_t nbands;
};

static void points_free(struct nfs_points *p)
{
	free(p->x);
	for (unsigned s = 0; s < RPT_NFS_SLOTS; s++)
		free(p->ops[s]);
	free(p->total);
	free(p->outstanding);
	free(p->p50);
	free(p->p99);
	free(p->bands);
	memset(p, 0, sizeof(*p));
}

static int points_make(const struct rpt_nfs *nf, uint64_t width, size_t hatch, struct nfs_points *p)
{
	uint64_t span = rpt_nfs_span(nf), f;
	struct hist_coarse lat;
	size_t n;
	bool ok;

	memset(p, 0, sizeof(*p));
	if (width < nf->clock.width)
		width = nf->clock.width;
	f = width / nf->clock.width;
	n = span ? (size_t)((span + width - 1) / width) : 1;
	p->n = n;
	p->x = malloc(n * sizeof(double));
	p->total = malloc(n * sizeof(double));
	p->outstanding = malloc(n * sizeof(double));
	p->p50 = malloc(n * sizeof(double));
	p->p99 = malloc(n * sizeof(double));
	p->bands = calloc(n, sizeof(*p->bands));
	ok = p->x && p->total && p->outstanding && p->p50 && p->p99 && p->bands;
	for (unsigned s = 0; s < RPT_NFS_SLOTS; s++)
		ok &= (p->ops[s] = malloc(n * sizeof(double))) != NULL;
	if (!ok) {
		points_free(p);
		return -ENOMEM;
	}
	for (size_t j = 0; j < n; j++) {
		uint64_t t0 = j * width, dur = span > t0 ? span - t0 : 1, ops = 0, replies = 0;
		double busy = 0, secs;

		if (dur > width)
			dur = width;
		secs = (double)dur / 1e9;
		memset(&lat, 0, sizeof(lat));
		for (unsigned s = 0; s < RPT_NFS_SLOTS; s++)
			p->ops[s][j] = 0;
		for (uint64_t k = j * f; k < (j + 1) * f && k < RPT_MAX_BINS; k++) {
			const struct rpt_nfs_bin *b = &nf->bin[k];

			for (unsigned s = 0; s < RPT_NFS_SLOTS; s++) {
				p->ops[s][j] += b->ops[s];
				ops += b->ops[s];
			}
			replies += b->replies;
			busy += b->busy;
			histc_merge(&lat, &b->srt);
		}
		for (unsigned s = 0; s < RPT_NFS_SLOTS; s++)
			p->ops[s][j] /= secs;
		p->x[j] = ((double)t0 + (double)dur / 2) / 1e9 + nf->shift_s;
		p->total[j] = (double)ops / secs;
		p->outstanding[j] = busy / (double)dur;
		p->p50[j] = replies ? (double)histc_quantile(&lat, 0.5) / 1e6 : NAN;
		p->p99[j] = replies ? (double)histc_quantile(&lat, 0.99) / 1e6 : NAN;
		/* nothing sent, nothing outstanding: the server sat idle for the interval */
		if (ops || busy > 0)
			continue;
		if (p->nbands && p->bands[p->nbands - 1].x1 >= (double)t0 / 1e9 - 1e-12)
			p->bands[p->nbands - 1].x1 =
			    (double)(t0 + dur) / 1e9; /* one band, not stripes */
		else
			p->bands[p->nbands++] = (struct svg_band){(double)t0 / 1e9,
			                                          (double)(t0 + dur) / 1e9,
			                                          0.3,
			                                          IDLE_COLOR,
			                                          1,
			                                          "",
			                                          hatch};
	}
	/* a run set's host: its times on the set's axis, as every other time of its series */
	for (size_t j = 0; j < p->nbands; j++) {
		p->bands[j].x0 += nf->shift_s;
		p->bands[j].x1 += nf->shift_s;
	}
	return 0;
}

/* What the graphs' time axis is (xmax_min > 0: some run's packets on its block trace's clock). */
static const char *axis_note(const struct report_opts *o, double xmax_min)
{
	if (o->runset)
		return "Times on the run set's one time axis, as on the block graphs: each host's "
		       "packet times put on the capturing host's clock by the offset measured then "
		       "(on the block trace's clock first, where its manifest's clock pairs "
		       "allow), "
		       "over the calls only.";
	return xmax_min > 0 ? "Times on the block trace's clock, as on the block graphs (packet "
	                      "times moved onto it with the manifest's clock pairs), over the "
	                      "capture's calls only."
	                    : "Graphs on the capture's clock from each run's first call.";
}

static bool has_calls(const struct report_input *in)
{
	return in->nfs && in->nfs->txns;
}

/*
 * The interval the graphs plot (width, ns) and their time axis [xmin, xmax] (s), over the runs
 * with calls: how many there are (0: no NFS section).
 */
static size_t nfs_axis(const struct report_opts *o, const struct report_input *in, size_t n,
                       uint64_t *width_out, double *xmin_out, double *xmax_out)
{
	uint64_t width = 1, span = 0;
	double xmax = 1e-6, xmin = INFINITY;
	bool all_aligned = true;
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		if (!has_calls(&in[i]))
			continue;
		m++;
		if (in[i].nfs->clock.width > width)
			width = in[i].nfs->clock.width;
		if (rpt_nfs_span(in[i].nfs) > span)
			span = rpt_nfs_span(in[i].nfs);
		/* a run set's host ends where its own span ends on the set's axis */
		xmax = fmax(xmax, in[i].nfs->shift_s + (double)rpt_nfs_span(in[i].nfs) / 1e9);
		all_aligned &= in[i].nfs->aligned;
		/* the first call on the graphs' axis */
		xmin = fmin(xmin, rpt_nfs_x(in[i].nfs, in[i].nfs->cap0));
	}
	if (o->interval_ns)
		while (width < o->interval_ns)
			width *= 2;
	else
		while (span / width > (o->max_points ? o->max_points : 600))
			width *= 2;
	/* the axis over the calls: on the block trace's clock (aligned), the capture may be a
	 * tenth of the block trace; the graphs show the capture's own time, in trace seconds */
	if (!all_aligned || !(xmin > 0) || !(xmin < xmax))
		xmin = 0;
	*width_out = width;
	*xmin_out = xmin;
	*xmax_out = xmax;
	return m;
}

/* What the three graphs share: the runs, their points, the axis and the idle bands. */
struct nfs_graphs {
	const struct report_input *in;
	size_t n;
	bool multi;
	struct nfs_points *pts; /* one per run (empty for a run without calls) */
	struct svg_series *ser; /* room for any one graph's series */
	struct svg_chart frame; /* axis and bands, the same on every graph */
};

/* Each run's points at width, and all runs' idle bands in one array (*nb of them; NULL when
 * out of memory). */
static struct svg_band *nfs_points_all(struct nfs_graphs *g, uint64_t width, size_t *nb)
{
	struct svg_band *bands;
	size_t k = 0;

	for (size_t i = 0; i < g->n; i++) {
		if (!has_calls(&g->in[i]))
			continue;
		if (points_make(g->in[i].nfs, width, g->multi ? i + 1 : 0, &g->pts[i]))
			return NULL;
		k += g->pts[i].nbands;
	}
	bands = calloc(k ? k : 1, sizeof(*bands));
	if (!bands)
		return NULL;
	k = 0;
	for (size_t i = 0; i < g->n; i++) {
		if (g->pts[i].nbands) /* a run without gaps has no array (memcpy takes no NULL) */
			memcpy(bands + k, g->pts[i].bands, g->pts[i].nbands * sizeof(*bands));
		k += g->pts[i].nbands;
	}
	*nb = k;
	return bands;
}

static void nfs_chart(struct emit *em, const struct nfs_graphs *g, const char *id,
                      const char *title, const char *ylabel, size_t nseries)
{
	struct svg_chart c = g->frame;

	c.id = id;
	c.title = title;
	c.ylabel = ylabel;
	c.series = g->ser;
	c.nseries = nseries;
	emit_chart(em, &c);
}

/* Operations per second: one series a run, or with one run one a slot (READ, WRITE, ...). */
static size_t ops_series(const struct nfs_graphs *g)
{
	const struct nfs_points *pts = g->pts;
	size_t k = 0;

	for (size_t i = 0; i < g->n; i++) {
		const struct rpt_nfs *nf = g->in[i].nfs;

		if (!has_calls(&g->in[i]))
			continue;
		if (g->multi) {
			g->ser[k++] = (struct svg_series){
			    run_label(&g->in[i]), run_color(i), pts[i].n, pts[i].x,
			    pts[i].total,         NULL,         NULL,     false};
			continue;
		}
		for (unsigned s = 0; s < nf->nslots; s++)
			g->ser[k++] =
			    (struct svg_series){nf->slot[s],   run_color(s), pts[i].n, pts[i].x,
			                        pts[i].ops[s], NULL,         NULL,     false};
	}
	return k;
}

static size_t outstanding_series(const struct nfs_graphs *g)
{
	const struct nfs_points *pts = g->pts;
	size_t k = 0;

	for (size_t i = 0; i < g->n; i++)
		if (has_calls(&g->in[i]))
			g->ser[k++] =
			    (struct svg_series){g->multi ? run_label(&g->in[i]) : "outstanding",
			                        g->multi ? run_color(i) : pal_hex(PAL_DEPTH),
			                        pts[i].n,
			                        pts[i].x,
			                        pts[i].outstanding,
			                        NULL,
			                        NULL,
			                        false};
	return k;
}

/* Response time: p50 and p99 of each run, named in names[2 i] and names[2 i + 1] (owned by
 * the caller). */
static size_t srt_series(const struct nfs_graphs *g, char **names)
{
	const struct nfs_points *pts = g->pts;
	size_t k = 0;

	for (size_t i = 0; i < g->n; i++) {
		const char *col = g->multi ? run_color(i) : pal_hex(PAL_LATENCY), *label, *sep;

		if (!has_calls(&g->in[i]))
			continue;
		label = g->multi ? run_label(&g->in[i]) : "";
		sep = g->multi ? " " : "";
		if (asprintf(&names[2 * i], "%s%sp50", label, sep) < 0)
			names[2 * i] = NULL;
		if (asprintf(&names[2 * i + 1], "%s%sp99", label, sep) < 0)
			names[2 * i + 1] = NULL;
		g->ser[k++] = (struct svg_series){names[2 * i], col,  pts[i].n, pts[i].x,
		                                  pts[i].p50,   NULL, NULL,     false};
		g->ser[k++] = (struct svg_series){names[2 * i + 1], col,  pts[i].n, pts[i].x,
		                                  pts[i].p99,       NULL, NULL,     true};
	}
	return k;
}

void report_nfs_section(struct emit *em, const struct report_input *in, size_t n, double xmax_min)
{
	struct nfs_graphs g = {.in = in, .n = n};
	struct svg_band *bands = NULL;
	uint64_t width;
	size_t m = nfs_axis(em->o, in, n, &width, &g.frame.xmin, &g.frame.xmax);
	char **names;

	if (!m)
		return;
	g.multi = m > 1;
	fputs("<h2>NFS</h2>\n", em->f);
	nfs_table(em->f, in, n);
	fprintf(em->f,
	        "<p class=\"note\">%s Shaded: intervals with no call sent and none "
	        "outstanding. Plotted interval: %.6g ms.</p>\n",
	        axis_note(em->o, xmax_min), (double)width / 1e6);
	g.pts = calloc(n, sizeof(*g.pts));
	g.ser = calloc(n * RPT_NFS_SLOTS + 2 * n, sizeof(*g.ser));
	names = calloc(2 * n, sizeof(*names));
	if (!g.pts || !g.ser || !names || !(bands = nfs_points_all(&g, width, &g.frame.nbands))) {
		em->err = -ENOMEM;
		goto out;
	}
	g.frame.bands = bands;
	nfs_chart(em, &g, "nfs-ops", "NFS operations per second", "ops/s", ops_series(&g));
	nfs_chart(em, &g, "nfs-outstanding", "outstanding NFS requests (mean per interval)",
	          "requests", outstanding_series(&g));
	nfs_chart(em, &g, "nfs-srt", "NFS response time per interval (p50 solid, p99 dashed)", "ms",
	          srt_series(&g, names));
	report_nfs_srt_charts(em, in, n, g.frame.xmin, g.frame.xmax);
	report_nfs_tables(em->f, in, n);
out:
	free(bands);
	for (size_t i = 0; g.pts && i < n; i++)
		points_free(&g.pts[i]);
	for (size_t i = 0; names && i < 2 * n; i++)
		free(names[i]);
	free(g.pts);
	free(g.ser);
	free(names);
}
