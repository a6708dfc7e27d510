/* SPDX-License-Identifier: MIT */
/* The report's idle gaps explained: the gap table with causes, the others' activity beneath. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonint.h"
#include "common/xml.h"
#include "formats/blktrace.h"
#include "report/report_grid.h"
#include "report/report_int.h"

#define NET_COLOR pal_hex(PAL_NET)

static const char *js(const json_t *o, const char *k, const char *none)
{
	const char *v = json_string_value(json_object_get(o, k));

	return v ? v : none;
}

/* The run's device idx (the pass's index) in its summary, found by its number: the summary
 * orders its devices by number, the pass by first event (never look it up by position). */
const json_t *report_dev_json(const struct report_input *in, unsigned idx)
{
	const json_t *devs = json_object_get(in->summary, "devices"), *d;
	uint32_t dev = blk_analysis_device(in->blk, idx);
	char want[32];
	size_t i;

	snprintf(want, sizeof(want), "%u,%u", BLK_DEV_MAJOR(dev), BLK_DEV_MINOR(dev));
	json_array_foreach(devs, i, d)
	{
		if (!strcmp(js(d, "dev", ""), want))
			return d;
	}
	return NULL;
}

static uint64_t ju(const json_t *o, const char *k)
{
	uint64_t v;

	json_u64_member(o, k, &v); /* 0 when missing or not a u64 */
	return v;
}

static double jf(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The IO at a gap's edge: "RS 64 KiB, pid 7 (jbd2)", or "-". */
static void td_io(FILE *f, const json_t *io, const char *none)
{
	const json_t *comm = json_object_get(io, "comm");

	fputs("<td>", f);
	if (!json_is_object(io)) {
		xml_puts(f, none);
		fputs("</td>", f);
		return;
	}
	xml_puts(f, js(io, "rwbs", "?"));
	{
		char sz[32];

		fprintf(f, " %s", iot_fmt_bytes(ju(io, "bytes"), sz, sizeof(sz)));
	}
	if (json_is_integer(json_object_get(io, "pid"))) {
		fprintf(f, ", pid %" PRIu64 " (", ju(io, "pid"));
		xml_puts(f, json_is_string(comm) ? json_string_value(comm) : "?");
		fputc(')', f);
	}
	fputs("</td>", f);
}

/* A cell of a list's strings (key: of each object's key), joined by sep ("\n": a line each,
 * "cause: because"); "-" for none. */
static void td_list(FILE *f, const json_t *a, const char *key, const char *sep)
{
	const json_t *v;
	size_t i;

	fputs("<td>", f);
	if (!json_array_size(a))
		fputc('-', f);
	json_array_foreach(a, i, v)
	{
		if (i)
			fputs(strcmp(sep, "\n") ? sep : "<br>", f);
		if (key) {
			xml_puts(f, js(v, "cause", "?"));
			fputs(": ", f);
			xml_puts(f, js(v, key, ""));
		} else {
			xml_puts(f, json_is_string(v) ? json_string_value(v) : "?");
		}
	}
	fputs("</td>", f);
}

/* The gaps by the thread that ended them (each one's period) and that began them. */
static void cmds(FILE *f, const json_t *ex)
{
	static const char *const lists[2] = {"ended_by", "began_by"};
	const json_t *c, *p;
	size_t i;

	if (!json_array_size(json_object_get(ex, "ended_by")) &&
	    !json_array_size(json_object_get(ex, "began_by")))
		return;
	fputs("<table class=\"idle-cmds\">\n<thead><tr><th>the gaps</th><th>thread</th>"
	      "<th>process</th><th>gaps</th><th>idle (s)</th><th>of the gaps (%)</th>"
	      "<th>periodic</th></tr></thead>\n",
	      f);
	for (int l = 0; l < 2; l++) {
		json_array_foreach(json_object_get(ex, lists[l]), i, c)
		{
			p = json_object_get(c, "periodicity");
			fputs("<tr>", f);
			td_text(f, i ? "" : l ? "began by" : "ended by");
			td_text(f, js(c, "comm", "?"));
			td_text(f, js(c, "process", ""));
			td_num(f, (double)ju(c, "gaps"), 0);
			td_num(f, (double)ju(c, "total_ns") / 1e9, 3);
			td_num(f, jf(c, "pct"), 1);
			if (json_is_object(p)) {
				char buf[160];

				snprintf(buf, sizeof(buf),
				         "every %.3f ms \u00b1 %.3f ms (%" PRIu64 " of %" PRIu64
				         " intervals)",
				         (double)ju(p, "period_ns") / 1e6,
				         (double)ju(p, "jitter_ns") / 1e6, ju(p, "count"),
				         ju(p, "gaps") ? ju(p, "gaps") - 1 : 0);
				td_text(f, buf);
			} else {
				td_text(f, "");
			}
			fputs("</tr>\n", f);
		}
	}
	fputs("</table>\n", f);
}

/* What the device's gaps had in common (idle.explain), as a list. */
static void totals(FILE *f, const json_t *ex)
{
	const json_t *o, *p = json_object_get(ex, "periodicity");
	double gaps = (double)ju(ex, "gaps_ns");
	size_t i;

	fputs("<ul class=\"note\">\n", f);
	json_array_foreach(json_object_get(ex, "devices"), i, o)
	{
		fputs("<li>device ", f);
		xml_puts(f, js(o, "dev", "?"));
		if (json_is_string(json_object_get(o, "host"))) {
			fputs(" on ", f);
			xml_puts(f, json_string_value(json_object_get(o, "host")));
		}
		fprintf(f,
		        " had IO in flight %.3f s of the gaps' %.3f s (%.1f%%): %" PRIu64
		        " IOs, %.1f MiB</li>\n",
		        (double)ju(o, "busy_ns") / 1e9, gaps / 1e9, jf(o, "busy_pct"), ju(o, "ios"),
		        (double)ju(o, "bytes") / IOT_MIB);
	}
	json_array_foreach(json_object_get(ex, "network"), i, o)
	{
		if (!json_is_true(json_object_get(o, "mapped"))) {
			fputs("<li>network: packets not placed on the trace clock (no clock pairs "
			      "and "
			      "no TIMESTAMP)</li>\n",
			      f);
			continue;
		}
		fprintf(f,
		        "<li>network during the gaps: %" PRIu64 " packets, %.1f MiB (%.3f MiB/s); "
		        "in %" PRIu64 ", out %" PRIu64 ", local %" PRIu64 "</li>\n",
		        ju(o, "packets"), (double)ju(o, "bytes") / IOT_MIB,
		        jf(o, "mb_per_s") * 1e6 / IOT_MIB, ju(o, "packets_in"),
		        ju(o, "packets_out"), ju(o, "packets_local"));
	}
	json_array_foreach(json_object_get(ex, "nfs"), i, o)
	{
		fprintf(f,
		        "<li>NFS: disk idle while the server had work %.3f s (%.1f%% of the gaps); "
		        "%" PRIu64
		        " calls arrived in the gaps, %.2f outstanding on average, at most "
		        "%" PRIu64 "</li>\n",
		        (double)ju(o, "idle_with_work_ns") / 1e9, jf(o, "idle_with_work_pct"),
		        ju(o, "arrivals"), jf(o, "outstanding_mean"), ju(o, "outstanding_max"));
	}
	if (json_is_object(p))
		fprintf(f,
		        "<li>periodic: gaps of at least %.3f ms end every %.3f ms &plusmn; %.3f ms "
		        "(%" PRIu64 " of %" PRIu64 " intervals)</li>\n",
		        (double)ju(p, "min_gap_ns") / 1e6, (double)ju(p, "period_ns") / 1e6,
		        (double)ju(p, "jitter_ns") / 1e6, ju(p, "count"),
		        ju(p, "gaps") ? ju(p, "gaps") - 1 : 0);
	fputs("</ul>\n", f);
	cmds(f, ex);
}

void report_idle_table(FILE *f, const struct report_input *in, unsigned idx, bool multi)
{
	const json_t *d = report_dev_json(in, idx), *idle = json_object_get(d, "idle");
	const json_t *longest = json_object_get(idle, "longest"), *g;
	uint64_t start = ju(in->summary, "start_ns");
	size_t i;

	if (!json_array_size(longest))
		return;
	fputs("<h3>Why was it idle", f);
	if (multi) {
		fputs(": ", f);
		xml_puts(f, run_label(in));
	}
	fputs("</h3>\n", f);
	totals(f, json_object_get(idle, "explain"));
	fputs("<table class=\"idle-gaps\">\n<thead><tr><th>start (s)</th><th>length (ms)</th>"
	      "<th>IO waiting (ms)</th><th>began by (completed)</th><th>ended by (issued)</th>"
	      "<th>cause</th><th>because</th></tr></thead>\n",
	      f);
	json_array_foreach(longest, i, g)
	{
		const json_t *ex = json_object_get(g, "explain");
		bool end = !strcmp(js(g, "ended_by", ""), "end");

		fputs("<tr>", f);
		td_num(f, (double)(ju(g, "start_ns") - start) / 1e9, 6);
		td_num(f, (double)ju(g, "duration_ns") / 1e6, 3);
		td_num(f,
		       json_is_true(json_object_get(g, "queued")) ? (double)ju(g, "queued_ns") / 1e6
		                                                  : NAN,
		       3);
		td_io(f, json_object_get(g, "io_before"), "start of trace");
		td_io(f, end ? NULL : json_object_get(g, "io_after"), "end of trace");
		/* every cause that holds, ranked, each with its numbers */
		td_list(f, json_object_get(ex, "causes"), NULL, ", ");
		td_list(f, json_object_get(ex, "reasons"), "because", "\n");
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* The capture's payload per plotted point (MiB/s), on the block trace's axis. */
static int net_points(const struct rpt_nfs *nf, double t0_s, double xmax, double **x, double **y,
                      size_t *n)
{
	uint64_t w = nf->clock.width;
	size_t m = nf->clock.n, k = 0;

	*x = calloc(m ? m : 1, sizeof(**x));
	*y = calloc(m ? m : 1, sizeof(**y));
	if (!*x || !*y)
		return -ENOMEM;
	for (size_t b = 0; b < m; b++) {
		double x0 = (double)b * (double)w / 1e9 + t0_s;

		if (x0 > xmax)
			break;
		(*x)[k] = x0 + (double)w / 2e9;
		(*y)[k++] = (double)nf->bin[b].net_bytes / ((double)w / 1e9) / IOT_MIB;
	}
	*n = k;
	return 0;
}

/* The network on a chart of its own when its peak is more than this many times the other
 * devices' peak. */
#define NET_APART 2.0

/* The highest value of n series. */
static double peak(const struct svg_series *s, size_t n)
{
	double m = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < s[i].n; j++)
			if (!isnan(s[i].mean[j]) && s[i].mean[j] > m)
				m = s[i].mean[j];
	return m;
}

int report_idle_chart(struct emit *em, const struct report_input *in, unsigned idx, uint64_t width,
                      const struct svg_band *bands, size_t nbands, const char *id, double xmax)
{
	unsigned ndev = blk_analysis_ndevices(in->blk), nother = 0;
	bool net = in->nfs && in->nfs->aligned && in->nfs->net_packets;
	struct report_points *pts = calloc(ndev ? ndev : 1, sizeof(*pts));
	struct svg_series *ser = calloc(ndev + 1, sizeof(*ser));
	char(*names)[200] = calloc(ndev + 1, sizeof(*names));
	double *nx = NULL, *ny = NULL;
	size_t nn = 0, k = 0;
	bool net_apart = false;
	int ret = 0;

	if (!pts || !ser || !names) {
		ret = -ENOMEM;
		goto out;
	}
	for (unsigned j = 0; j < ndev && j < RPT_GRID_DEVICES; j++) {
		uint32_t dev = blk_analysis_device(in->blk, j);
		const char *role = js(report_dev_json(in, j), "role", NULL);
		uint64_t wj;

		if (j == idx)
			continue;
		/* its own rate over no narrower an interval than its IOs bear */
		wj = report_points_min_width(in->blk, j);
		if ((ret = report_points_make(in->blk, j, wj > width ? wj : width, wj, &pts[j])))
			goto out;
		report_points_shift(&pts[j], in->t0_s);
		if (role)
			snprintf(names[k], sizeof(names[k]), "%s (%u,%u) MiB/s", role,
			         BLK_DEV_MAJOR(dev), BLK_DEV_MINOR(dev));
		else
			snprintf(names[k], sizeof(names[k]), "%u,%u MiB/s", BLK_DEV_MAJOR(dev),
			         BLK_DEV_MINOR(dev));
		ser[k] = (struct svg_series){
		    names[k], run_color(nother++), pts[j].n, pts[j].x, pts[j].mbps, NULL, NULL,
		    false};
		k++;
	}
	if (net) {
		double dmax = peak(ser, k), nmax;

		if ((ret = net_points(in->nfs, in->t0_s, xmax, &nx, &ny, &nn)))
			goto out;
		snprintf(names[k], sizeof(names[k]), "network MiB/s (payload)");
		ser[k] = (struct svg_series){names[k], NET_COLOR, nn, nx, ny, NULL, NULL, true};
		nmax = peak(&ser[k], 1);
		/* a network far busier than the disks would flatten them to the axis: it gets a
		 * chart of its own beneath, on the same time axis and shading */
		if (k && nmax > NET_APART * dmax)
			net_apart = true;
		else
			k++;
	}
	if (k) {
		struct svg_chart c = {.id = id,
		                      .title = net_apart ? "while it idled: the other devices' "
		                                           "throughput (shaded: this device's idle "
		                                           "time)"
		                                         : "while it idled: the other devices' "
		                                           "throughput and the network's (shaded: "
		                                           "this device's idle time)",
		                      .ylabel = "MiB/s",
		                      .xmax = xmax,
		                      .height = 180,
		                      .series = ser,
		                      .nseries = k,
		                      .bands = bands,
		                      .nbands = nbands};

		emit_chart(em, &c);
	}
	if (net_apart) {
		char nid[160];
		struct svg_chart c = {.id = nid,
		                      .title = "while it idled: the network's payload throughput, "
		                               "on a scale of its own (shaded: this device's idle "
		                               "time)",
		                      .ylabel = "MiB/s",
		                      .xmax = xmax,
		                      .height = 140,
		                      .series = &ser[k],
		                      .nseries = 1,
		                      .bands = bands,
		                      .nbands = nbands};

		snprintf(nid, sizeof(nid), "%s-net", id);
		emit_chart(em, &c);
	}
out:
	for (unsigned j = 0; pts && j < ndev; j++)
		report_points_release(&pts[j]);
	free(pts);
	free(ser);
	free(names);
	free(nx);
	free(ny);
	return ret;
}
