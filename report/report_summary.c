/* SPDX-License-Identifier: MIT */
/* A summary run in the report: the figures its summary.json holds, and what it cannot show. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonint.h"
#include "common/units.h"
#include "common/xml.h"
#include "report/report_int.h"
#include "report/report_svg.h"

/*
 * A summary run (capture --detail summary) has no records, so no pass: its figures are the
 * document analyze makes of its summary.json (analyze/run_summary.h run_summary_file()), and
 * everything here is drawn from that document: the timeline's bins, the latency histogram, the
 * idle gaps and the seek counts. What needs records (a point per IO, the sector plot, the
 * queue depth, latency per interval) is said to be missing, never drawn as zero.
 */

bool report_summary_run(const struct report_input *in)
{
	return json_is_string(json_object_get(json_object_get(in->summary, "input"), "summary"));
}

/* o[k] as a number (integer, real or a u64 string), NaN when absent */
static double num(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : json_u64_number(v);
}

/* The timeline's bins as dense series (bins without completions are measured zeros). */
struct sum_series {
	size_t n;
	double *x, *rd_mbps, *wr_mbps, *iops, *seeks;
};

static int series_make(const json_t *doc, const json_t *dev, struct sum_series *s)
{
	const json_t *tl = json_object_get(dev, "timeline"), *b;
	double t0 = num(doc, "start_ns"), w = num(json_object_get(doc, "timeline"), "interval_ns");
	double nb = num(json_object_get(doc, "timeline"), "bins");
	size_t i;

	memset(s, 0, sizeof(*s));
	if (isnan(t0) || !(w > 0) || !(nb >= 1) || nb > 1e6)
		return 0;
	s->n = (size_t)nb;
	s->x = calloc(s->n, sizeof(double));
	s->rd_mbps = calloc(s->n, sizeof(double));
	s->wr_mbps = calloc(s->n, sizeof(double));
	s->iops = calloc(s->n, sizeof(double));
	s->seeks = calloc(s->n, sizeof(double));
	if (!s->x || !s->rd_mbps || !s->wr_mbps || !s->iops || !s->seeks)
		return -ENOMEM;
	for (i = 0; i < s->n; i++)
		s->x[i] = ((double)i + 0.5) * w / 1e9;
	json_array_foreach(tl, i, b)
	{
		double k = floor((num(b, "start_ns") - t0) / w);

		if (!(k >= 0) || k >= (double)s->n)
			continue;
		s->rd_mbps[(size_t)k] = num(b, "read_mbps");
		s->wr_mbps[(size_t)k] = num(b, "write_mbps");
		s->iops[(size_t)k] = num(b, "iops");
		s->seeks[(size_t)k] = num(b, "seeks") / (w / 1e9);
	}
	return 0;
}

static void series_free(struct sum_series *s)
{
	free(s->x);
	free(s->rd_mbps);
	free(s->wr_mbps);
	free(s->iops);
	free(s->seeks);
}

/* The longest idle gaps as bands, with their nanoseconds (from the run's start) for a test. */
static size_t gap_bands(const json_t *doc, const json_t *dev, size_t run, struct svg_band *bands,
                        size_t cap)
{
	const json_t *l = json_object_get(json_object_get(dev, "idle"), "longest"), *g;
	double t0 = num(doc, "start_ns");
	size_t i, n = 0;

	json_array_foreach(l, i, g)
	{
		double s0 = num(g, "start_ns") - t0, s1 = num(g, "end_ns") - t0;

		if (n >= cap || isnan(s0) || isnan(s1))
			break;
		bands[n] =
		    (struct svg_band){s0 / 1e9, s1 / 1e9, 0.25, pal_hex(PAL_GAP), 1.5, "", 0};
		snprintf(bands[n].attrs, sizeof(bands[n].attrs),
		         "class=\"idle-gap\" data-run=\"%zu\" data-start-ns=\"%.0f\" "
		         "data-end-ns=\"%.0f\"",
		         run, s0, s1);
		n++;
	}
	return n;
}

static void charts(struct emit *em, const struct report_input *in, size_t run, const json_t *dev,
                   const char *devid)
{
	struct sum_series s;
	struct svg_band bands[64];
	struct svg_series ser[3];
	double xmax = num(in->summary, "span_ns") / 1e9;
	size_t nb = gap_bands(in->summary, dev, run, bands, 64);
	char id[128], title[128], wtxt[32];

	if (series_make(in->summary, dev, &s)) {
		em->err = -ENOMEM;
		series_free(&s);
		return;
	}
	if (!s.n) {
		series_free(&s);
		return;
	}
	if (!(xmax > 0))
		xmax = s.x[s.n - 1] * 2;
	iot_fmt_dur(num(json_object_get(in->summary, "timeline"), "interval_ns"), wtxt,
	            sizeof(wtxt));
#define SUMCHART(key, ttl, unit, k)                                                                \
	do {                                                                                       \
		struct svg_chart c = {.id = id,                                                    \
		                      .title = title,                                              \
		                      .ylabel = unit,                                              \
		                      .xmax = xmax,                                                \
		                      .series = ser,                                               \
		                      .nseries = k,                                                \
		                      .bands = bands,                                              \
		                      .nbands = nb};                                               \
		snprintf(id, sizeof(id), "run%zu-%s-%s", run + 1, devid, key);                     \
		snprintf(title, sizeof(title), "%s (per %s bin of the capture)", ttl, wtxt);       \
		emit_chart(em, &c);                                                                \
	} while (0)
	ser[0] = (struct svg_series){"read", READ_COLOR, s.n, s.x, s.rd_mbps, NULL, NULL, false};
	ser[1] = (struct svg_series){"write", WRITE_COLOR, s.n, s.x, s.wr_mbps, NULL, NULL, false};
	SUMCHART("mbps", "throughput", "MB/s", 2);
	ser[0] =
	    (struct svg_series){"IOPS", pal_hex(PAL_TOTAL), s.n, s.x, s.iops, NULL, NULL, false};
	SUMCHART("iops", "IOPS", "IO/s", 1);
	ser[0] =
	    (struct svg_series){"seeks", pal_hex(PAL_SEEKS), s.n, s.x, s.seeks, NULL, NULL, false};
	SUMCHART("seeks", "seeks per second", "seeks/s", 1);
#undef SUMCHART
	series_free(&s);
}

/* The latency histogram in powers of two (common/hist's buckets are finer than a table). */
static void latency_table(FILE *f, const json_t *dev)
{
	const json_t *l = json_object_get(dev, "latency_ns"), *h = NULL, *b;
	const char *kind = NULL, *k;
	static const char *const q[] = {"count", "mean", "min", "p50", "p90", "p99", "max"};
	uint64_t rows[65][2] = {{0}}; /* per power of two: its count, and whether any */
	double total;
	size_t i;

	json_object_foreach((json_t *)l, k, b)
	{
		if (!strcmp(k, "d2c") || !strcmp(k, "q2c")) {
			kind = k;
			h = b;
			break;
		}
	}
	if (!h)
		return;
	fprintf(f, "<h4>%s latency (us)</h4>\n<table class=\"sum-lat\">\n<thead><tr>",
	        !strcmp(kind, "d2c") ? "D2C" : "Q2C");
	for (i = 0; i < 7; i++)
		fprintf(f, "<th>%s</th>", q[i]);
	fputs("</tr></thead>\n<tr>", f);
	total = num(h, "count");
	for (i = 0; i < 7; i++) {
		double v = num(h, q[i]);

		fprintf(f, "<td class=\"n\" data-key=\"%s\" data-v=\"%.0f\">", q[i],
		        isnan(v) ? -1 : v);
		if (isnan(v) || (i && !(total > 0)))
			fputs("-", f);
		else
			fprintf(f, "%.*f", i ? 1 : 0, i ? v / 1e3 : v);
		fputs("</td>", f);
	}
	fputs("</tr>\n</table>\n", f);
	json_array_foreach(json_object_get(h, "buckets"), i, b)
	{
		double lo = num(b, "lo"), c = num(b, "count");
		unsigned p = lo >= 1 ? (unsigned)floor(log2(lo)) : 0;

		if (isnan(c) || p > 64)
			continue;
		rows[p][0] += (uint64_t)c;
		rows[p][1] = 1;
	}
	fputs("<table class=\"sum-hist\">\n<thead><tr><th>from (us)</th><th>below (us)</th>"
	      "<th>requests</th><th>share %</th></tr></thead>\n",
	      f);
	for (i = 0; i < 65; i++) {
		if (!rows[i][1])
			continue;
		fprintf(f, "<tr data-count=\"%llu\">", (unsigned long long)rows[i][0]);
		td_num(f, ldexp(1, (int)i) / 1e3, 3);
		td_num(f, ldexp(1, (int)i + 1) / 1e3, 3);
		td_num(f, (double)rows[i][0], 0);
		td_num(f, total > 0 ? 100.0 * (double)rows[i][0] / total : NAN, 1);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void idle_seek_tables(FILE *f, const json_t *doc, const json_t *dev)
{
	const json_t *idle = json_object_get(dev, "idle"), *seeks = json_object_get(dev, "seeks");
	const json_t *g;
	double t0 = num(doc, "start_ns");
	char thr[32];
	size_t i;

	if (idle) {
		iot_fmt_dur(num(idle, "threshold_ns"), thr, sizeof(thr));
		fprintf(f, "<h4>idle gaps (at least %s, as the capture kept them)</h4>\n", thr);
		fputs("<table class=\"sum-idle\">\n<thead><tr><th>gaps</th><th>idle (ms)</th>"
		      "<th>idle %</th></tr></thead>\n<tr>",
		      f);
		td_num(f, num(idle, "gaps"), 0);
		td_num(f, num(idle, "total_ns") / 1e6, 3);
		td_num(f, num(idle, "pct"), 2);
		fputs("</tr>\n</table>\n<table class=\"sum-gaps\">\n<thead><tr><th>start (s)</th>"
		      "<th>length (ms)</th></tr></thead>\n",
		      f);
		json_array_foreach(json_object_get(idle, "longest"), i, g)
		{
			fprintf(f, "<tr data-start-ns=\"%.0f\" data-duration-ns=\"%.0f\">",
			        num(g, "start_ns") - t0, num(g, "duration_ns"));
			td_num(f, (num(g, "start_ns") - t0) / 1e9, 6);
			td_num(f, num(g, "duration_ns") / 1e6, 3);
			fputs("</tr>\n", f);
		}
		fputs("</table>\n", f);
	}
	if (seeks) {
		static const char *const k[] = {"count",      "seekwatcher", "transitions",
		                                "sequential", "forward",     "backward"};

		fputs("<h4>seeks</h4>\n<table class=\"sum-seeks\">\n<thead><tr>", f);
		for (i = 0; i < 6; i++)
			fprintf(f, "<th>%s</th>", k[i]);
		fputs("<th>per second</th></tr></thead>\n<tr>", f);
		for (i = 0; i < 6; i++)
			fprintf(f, "<td class=\"n\" data-key=\"%s\">%.0f</td>", k[i],
			        num(seeks, k[i]));
		td_num(f, num(seeks, "per_sec"), 2);
		fputs("</tr>\n</table>\n", f);
	}
}

/* What the summary cannot show: said in words, with the figures its level does not give. */
static void missing_note(FILE *f, const json_t *dev)
{
	const json_t *ng = json_object_get(dev, "not_given"), *v;
	size_t i;

	fputs("<p class=\"note summary-missing\">A summary run (capture --detail summary) keeps "
	      "the kernel's figures, not records: <strong>no per-IO points, no sector-offset "
	      "plot</strong>, no queue depth and no latency per interval can be drawn from it.",
	      f);
	if (json_array_size(ng)) {
		fputs(" Not given at this level: ", f);
		json_array_foreach(ng, i, v)
		{
			fputs(i ? ", " : "", f);
			xml_puts(f, json_string_value(v) ? json_string_value(v) : "?");
		}
		fputc('.', f);
	}
	fputs("</p>\n", f);
}

void report_summary_section(struct emit *em, const struct report_input *in, size_t n)
{
	for (size_t r = 0; r < n && !em->err; r++) {
		const json_t *d;
		size_t k;

		if (!report_summary_run(&in[r]))
			continue;
		json_array_foreach(json_object_get(in[r].summary, "devices"), k, d)
		{
			const char *dev = json_string_value(json_object_get(d, "dev"));
			const char *name = json_string_value(json_object_get(d, "name"));
			char devid[64];

			snprintf(devid, sizeof(devid), "dev%s", dev ? dev : "?");
			for (char *c = devid; *c; c++)
				if (*c == ',')
					*c = '-';
			fprintf(em->f,
			        "<section class=\"summary-run\" data-run=\"%zu\" data-dev=\"", r);
			xml_puts(em->f, dev ? dev : "?");
			fputs("\">\n<h2>Device ", em->f);
			xml_puts(em->f, dev ? dev : "?");
			if (name) {
				fputs(" (", em->f);
				xml_puts(em->f, name);
				fputc(')', em->f);
			}
			fputs(": summary run ", em->f);
			swatch(em->f, run_color(r));
			xml_puts(em->f, run_label(&in[r]));
			fputs("</h2>\n", em->f);
			missing_note(em->f, d);
			charts(em, &in[r], r, d, devid);
			latency_table(em->f, d);
			idle_seek_tables(em->f, in[r].summary, d);
			fputs("</section>\n", em->f);
		}
	}
}
