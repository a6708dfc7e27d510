/* SPDX-License-Identifier: MIT */
/* The HTML report: runs, manifests, summary tables, comparison; then the graphs' sections. */
#include "report/report_html.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonint.h"
#include "common/units.h"
#include "report/report_grid.h"

#include "report/report_int.h"
#include "report/report_svg.h"
#include "common/xml.h"

/* ---- small helpers ---- */

static double jd(const json_t *o, const char *a, const char *b, const char *c)
{
	const json_t *v = o;

	if (v && a)
		v = json_object_get(v, a);
	if (v && b)
		v = json_object_get(v, b);
	if (v && c)
		v = json_object_get(v, c);
	return json_is_number(v) ? json_number_value(v) : json_u64_number(v);
}

/* ---- manifest: flattened key/value rows, bounded ---- */

static void flatten(FILE *f, const json_t *v, char *key, size_t klen, size_t cap, unsigned *rows)
{
	if (*rows >= 400)
		return;
	if (json_is_object(v)) {
		const char *k;
		const json_t *x;

		json_object_foreach((json_t *)v, k, x)
		{
			int w = snprintf(key + klen, cap - klen, "%s%s", klen ? "." : "", k);

			flatten(f, x, key,
			        klen + (size_t)(w > 0 ? w : 0) < cap ? klen + (size_t)w : cap - 1,
			        cap, rows);
			key[klen] = 0;
		}
		return;
	}
	if (json_is_array(v)) {
		size_t i;
		const json_t *x;

		json_array_foreach(v, i, x)
		{
			int w = snprintf(key + klen, cap - klen, "[%zu]", i);

			flatten(f, x, key,
			        klen + (size_t)(w > 0 ? w : 0) < cap ? klen + (size_t)w : cap - 1,
			        cap, rows);
			key[klen] = 0;
		}
		return;
	}
	(*rows)++;
	fputs("<tr>", f);
	td_text(f, key);
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		size_t len = strlen(s);

		fputs("<td>", f);
		xml_putn(f, s, len > 300 ? 300 : len);
		if (len > 300)
			fputs("…", f);
		fputs("</td>", f);
	} else {
		char *s = json_dumps(v, JSON_ENCODE_ANY);

		td_text(f, s ? s : "");
		free(s);
	}
	fputs("</tr>\n", f);
}

/* The lines people look for first: where, what kernel, which devices and filesystems. */
static void key_facts(FILE *f, const json_t *m)
{
	static const char *const paths[][4] = {
	    {"host", "host", "hostname", NULL},
	    {"kernel", "host", "kernel", "release"},
	    {"distro", "host", "distro", "pretty_name"},
	    {"tracing backend", "backend", "name", NULL},
	    {"command exit status", "command", "exit_status", NULL},
	    {"duration", "duration_ns", NULL, NULL},
	};
	const json_t *devs = json_object_get(m, "devices"), *d;
	size_t i;

	fputs("<table>\n", f);
	for (size_t k = 0; k < sizeof(paths) / sizeof(paths[0]); k++) {
		const json_t *v = json_object_get(m, paths[k][1]);
		char *s;

		for (int j = 2; j < 4 && paths[k][j] && v; j++)
			v = json_object_get(v, paths[k][j]);
		if (!v || json_is_null(v))
			continue;
		if (json_is_number(v) && !strcmp(paths[k][1], "duration_ns")) {
			char dur[32];

			/* a person reads "498.92 ms", not 498924772 */
			s = strdup(iot_fmt_dur(json_number_value(v), dur, sizeof(dur)));
		} else {
			s = json_is_string(v) ? strdup(json_string_value(v))
			                      : json_dumps(v, JSON_ENCODE_ANY);
		}
		fputs("<tr>", f);
		td_text(f, paths[k][0]);
		td_text(f, s ? s : "");
		fputs("</tr>\n", f);
		free(s);
	}
	json_array_foreach(devs, i, d)
	{
		const json_t *mt = json_array_get(json_object_get(d, "mounts"), 0);
		const char *name = json_string_value(json_object_get(d, "name"));
		const char *fs = json_string_value(json_object_get(mt, "fstype"));
		const char *mp = json_string_value(json_object_get(mt, "mountpoint"));

		fputs("<tr><td>device</td><td>", f);
		xml_puts(f, name ? name : "?");
		if (fs) {
			fputs(": ", f);
			xml_puts(f, fs);
			fputs(" on ", f);
			xml_puts(f, mp ? mp : "?");
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void section_manifests(FILE *f, const struct report_input *in, size_t n)
{
	bool any = false;

	for (size_t i = 0; i < n; i++)
		any |= in[i].manifest != NULL;
	if (!any)
		return;
	fputs("<h2>Manifest</h2>\n", f);
	for (size_t i = 0; i < n; i++) {
		char key[512] = "";
		unsigned rows = 0;

		if (!in[i].manifest)
			continue;
		fputs("<h3>", f);
		swatch(f, run_color(i));
		xml_puts(f, run_label(&in[i]));
		fputs("</h3>\n", f);
		key_facts(f, in[i].manifest);
		fputs("<details><summary>the whole manifest</summary>\n<table>\n", f);
		flatten(f, in[i].manifest, key, 0, sizeof(key), &rows);
		fputs("</table>\n", f);
		if (rows >= 400)
			fputs("<p class=\"note\">(truncated at 400 fields)</p>\n", f);
		fputs("</details>\n", f);
	}
}

/* ---- summary table from the analysis JSON (whichever pass produced it) ---- */

static double longest_ms(const json_t *idle)
{
	const json_t *l = json_object_get(idle, "longest"), *g;
	double best = NAN;
	size_t i;

	json_array_foreach(l, i, g)
	{
		double v = json_is_number(g) ? json_number_value(g) : jd(g, "duration_ns", 0, 0);

		if (isnan(v))
			v = jd(g, "len_ns", 0, 0);
		if (isnan(v))
			v = jd(g, "end_ns", 0, 0) - jd(g, "start_ns", 0, 0);
		if (!isnan(v) && (isnan(best) || v > best))
			best = v;
	}
	if (isnan(best) && json_is_array(l))
		best = 0;
	return best / 1e6;
}

/* The D2C users compare: per request (d2c_request: issue to completion of every request,
 * the pieces of a split bio and FUA writes included), else btt's per-bio d2c (a summary from
 * before requests were measured). */
const json_t *report_d2c(const json_t *dev)
{
	const json_t *l = json_object_get(dev, "latency_ns"),
	             *r = json_object_get(l, "d2c_request");

	return json_integer_value(json_object_get(r, "count")) > 0 ? r : json_object_get(l, "d2c");
}

static void section_summary(FILE *f, const struct report_input *in, size_t n)
{
	static const char *const d2c_keys[] = {"mean", "p50", "p99", "max"};

	fputs("<h2>Summary</h2>\n<table>\n<thead><tr><th>run</th><th>device</th>"
	      "<th>reads</th><th>read MiB</th><th>writes</th><th>write MiB</th><th>MiB/s</th>"
	      "<th>IOPS</th><th>D2C mean (us)</th><th>D2C p50 (us)</th><th>D2C p99 (us)</th>"
	      "<th>D2C max (us)</th><th>idle gaps</th><th>idle %</th><th>longest gap (ms)</th>"
	      "<th>seeks/s</th><th>sequential %</th></tr></thead>\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		const json_t *devs = json_object_get(in[i].summary, "devices"), *d;
		size_t k;

		json_array_foreach(devs, k, d)
		{
			const json_t *dev = json_object_get(d, "dev");
			const json_t *lat = report_d2c(d);

			fputs("<tr><td>", f);
			swatch(f, run_color(i));
			xml_puts(f, run_label(&in[i]));
			fputs("</td>", f);
			td_text(f, json_is_string(dev) ? json_string_value(dev) : "?");
			td_num(f, jd(d, "reads", "ios", 0), 0);
			td_num(f, jd(d, "reads", "bytes", 0) / IOT_MIB, 1);
			td_num(f, jd(d, "writes", "ios", 0), 0);
			td_num(f, jd(d, "writes", "bytes", 0) / IOT_MIB, 1);
			/* the JSON's 10^6 bytes/s, shown in MiB/s (docs/units.md) */
			td_num(f, jd(d, "throughput", "mbps", 0) * 1e6 / IOT_MIB, 2);
			td_num(f, jd(d, "throughput", "iops", 0), 1);
			/* no latency measured is not a latency of zero (compare says the same) */
			for (unsigned q = 0; q < 4; q++)
				td_num(f,
				       jd(lat, "count", 0, 0) > 0 ? jd(lat, d2c_keys[q], 0, 0) / 1e3
				                                  : NAN,
				       1);
			td_num(f, jd(d, "idle", "gaps", 0), 0);
			td_num(f, jd(d, "idle", "pct", 0), 1);
			td_num(f, longest_ms(json_object_get(d, "idle")), 2);
			td_num(f, jd(d, "seeks", "per_sec", 0), 1);
			td_num(f, jd(d, "seeks", "sequential_pct", 0), 1);
			fputs("</tr>\n", f);
		}
	}
	fputs("</table>\n", f);
}

/* A run's input stopped at bad bytes: its numbers are of what came before them. */
static void partial_note(FILE *f, const json_t *input, const char *what)
{
	const char *err;

	if (!json_is_true(json_object_get(input, "partial")))
		return;
	err = json_string_value(json_object_get(input, "error"));

	fprintf(f, "<strong>partial results</strong>: the %s stops at bad bytes (", what);
	xml_puts(f, err ? err : "");
	fputs("); what came before them is shown. ", f);
}

/* A run set: one row per host above, on one time axis; the hosts that brought no whole run
 * back are named with runset.json's reason. */
static void runset_note(FILE *f, const struct report_opts *o)
{
	if (!o->runset)
		return;
	fputs("<p class=\"note\">Run set ", f);
	xml_puts(f, o->runset);
	fputs(": a row per host that brought a whole run back; every host's graphs on the set's "
	      "one time axis (each host's clock put on the capturing host's by the offset "
	      "measured then, as 'iotape analyze' does), its devices keyed by host.</p>\n",
	      f);
	if (!o->nfaults)
		return;
	fputs("<table class=\"faults\">\n<thead><tr><th>missing host</th><th>why</th></tr>"
	      "</thead>\n",
	      f);
	for (size_t i = 0; i < o->nfaults; i++) {
		fputs("<tr>", f);
		td_text(f, o->faults[i].host);
		td_text(f, o->faults[i].reason);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* One row of the Runs table: what the pass saw, from the summary and the pass. */
static void run_row(FILE *f, const struct report_input *in, size_t n, size_t i, uint64_t width)
{
	bool multi = n > 1;
	const struct blk_analysis *a = in[i].blk;
	const json_t *devs = json_object_get(in[i].summary, "devices"), *d;
	double events = 0, dropped = jd(in[i].summary, "events_dropped_devices", 0, 0);
	unsigned ndev = a ? blk_analysis_ndevices(a) : 0;
	size_t k;

	json_array_foreach(devs, k, d) events += jd(d, "events", 0, 0);
	fputs("<tr><td>", f);
	swatch(f, run_color(i));
	xml_puts(f, run_label(&in[i]));
	fputs("</td>", f);
	td_text(f, in[i].path);
	td_num(f, jd(in[i].summary, "span_ns", 0, 0) / 1e9, 3);
	td_num(f, events + (isnan(dropped) ? 0 : dropped), 0);
	td_num(f, a || !report_summary_run(&in[i]) ? ndev : json_array_size(devs), 0);
	/* the bin the rate graphs plot (chosen from the data), not the timeline's interval; a
	 * summary run's bins are its capture's (report_summary.c) */
	{
		uint64_t lo = UINT64_MAX, hi = 0;
		char b1[32], b2[32];

		for (unsigned k = 0; k < report_graphed(a); k++) {
			uint64_t w = report_plotted_width(in, n, width, i, k);

			lo = w < lo ? w : lo;
			hi = w > hi ? w : hi;
		}
		if (!a && report_summary_run(&in[i]))
			lo = hi = (uint64_t)jd(in[i].summary, "timeline", "interval_ns", 0);
		fputs("<td class=\"n bin\">", f);
		if (!hi)
			fputs("-", f);
		else if (lo == hi)
			fputs(iot_fmt_dur((double)hi, b1, sizeof(b1)), f);
		else
			fprintf(f, "%s to %s", iot_fmt_dur((double)lo, b1, sizeof(b1)),
			        iot_fmt_dur((double)hi, b2, sizeof(b2)));
		fputs("</td>", f);
	}
	fputs("<td>", f);
	if (in[i].host) {
		fputs("host ", f);
		xml_puts(f, in[i].host);
		fprintf(
		    f,
		    " of the run set: its graphs start <span class=\"host-t0\" data-t0-s=\"%.9f\">"
		    "%.6f s</span> into the set's time axis (its clock %+.6f ms from the "
		    "capturing host's, within %.3f ms). ",
		    in[i].t0_s, in[i].t0_s, (double)in[i].offset_ns / 1e6,
		    (double)in[i].offset_err_ns / 1e6);
	}
	if (multi) {
		/* its idle time on the shared graphs: grey, hatched as this */
		svg_hatch_swatch(f, i);
		fputs(" its idle shading. ", f);
	}
	if (ndev > RPT_GRID_DEVICES)
		fprintf(f, "graphs for the first %u devices; %u more in the tables only. ",
		        RPT_GRID_DEVICES, ndev - RPT_GRID_DEVICES);
	if (!isnan(dropped))
		fprintf(f, "%.0f events on devices past the first %u were not analyzed.", dropped,
		        BLK_MAX_DEVICES);
	partial_note(f, json_object_get(in[i].summary, "input"), "block trace");
	partial_note(f, json_object_get(json_object_get(in[i].summary, "nfs"), "input"), "capture");
	fputs("</td></tr>\n", f);
}

int report_write_html(FILE *f, const struct report_input *in, size_t n, const struct report_opts *o,
                      struct iot_err *e)
{
	struct emit em = {f, o, 0};
	uint64_t width = report_plot_width(in, n, o);
	double xshared = 0;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
	xml_puts(f, o->title ? o->title : "iotape report");
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", report_css);
	xml_puts(f, o->title ? o->title : "iotape report");
	fputs("</h1>\n<p class=\"note\">made by iotape ", f);
	xml_puts(f, o->version ? o->version : "");
	fputs("; one self-contained file (no network, no scripts).</p>\n", f);

	fputs(
	    "<h2>Runs</h2>\n<table>\n<thead><tr><th>run</th><th>path</th><th>span (s)</th>"
	    "<th>events</th><th>devices</th><th>rate graphs' bin</th><th>notes</th></tr></thead>\n",
	    f);
	for (size_t i = 0; i < n; i++)
		run_row(f, in, n, i, width);
	fputs("</table>\n", f);
	runset_note(f, o);
	section_manifests(f, in, n);
	section_summary(f, in, n);
	if (o->cmp && o->cmp->ngroups) {
		fputs("<h2>Comparison</h2>\n", f);
		if (compare_render(o->cmp, CMP_FMT_HTML, f))
			em.err = -EIO;
	}
	/* packets on the block trace's clock: NFS and block graphs share one time axis */
	for (size_t i = 0; i < n; i++) {
		double b = report_span_s(in[i].blk);

		if (in[i].nfs && in[i].nfs->aligned) {
			double s = (double)rpt_nfs_span(in[i].nfs) / 1e9;

			xshared = xshared > s ? xshared : s;
			xshared = xshared > b ? xshared : b;
		}
	}
	report_devices_section(&em, in, n, width, xshared);
	if (!em.err)
		report_summary_section(&em, in, n);
	if (!em.err)
		report_nfs_section(&em, in, n, xshared);
	fputs("</body>\n</html>\n", f);
	if (em.err)
		return iot_err_set(e, em.err, "writing the report: %s", strerror(-em.err));
	if (ferror(f))
		return iot_err_set(e, -EIO, "writing the report failed");
	return 0;
}
