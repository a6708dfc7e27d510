/* SPDX-License-Identifier: MIT */
/* The report's NFS tables (clients, files, slowest calls) and response time per procedure. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xml.h"
#include "report/report_int.h"
#include "report/report_nfs.h"

/* Everything here is read from the runs' "nfs" summaries: the figures analyze --json has. */

static const json_t *nfs_of(const struct report_input *in)
{
	return json_object_get(in->summary, "nfs");
}

static double num(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static double num2(const json_t *o, const char *a, const char *b)
{
	return num(json_object_get(o, a), b);
}

static const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

static void td_run(FILE *f, const struct report_input *in, size_t i)
{
	fputs("<tr><td>", f);
	swatch(f, run_color(i));
	xml_puts(f, run_label(in));
	fputs("</td>", f);
}

/* "procedure" of a row: "3 READ", "4.1 OPEN" */
static void td_proc(FILE *f, const json_t *o)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%s %s", str(o, "version"), str(o, "name"));
	td_text(f, buf);
}

static void client_row(FILE *f, const struct report_input *in, size_t i, const char *kind,
                       const char *who, const json_t *c)
{
	td_run(f, in, i);
	td_text(f, kind);
	td_text(f, who);
	td_num(f, num(c, "calls"), 0);
	td_num(f, num(c, "errors"), 0);
	td_num(f, (num(c, "read_bytes") + num(c, "write_bytes")) / IOT_MIB, 2);
	td_num(f, num(c, "wait_ns") / 1e6, 3);
	td_num(f, num2(c, "srt_ns", "mean") / 1e6, 3);
	td_num(f, num2(c, "srt_ns", "p99") / 1e6, 3);
	fputs("</tr>\n", f);
}

static bool any_list(const struct report_input *in, size_t n, const char *obj, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (json_array_size(json_object_get(json_object_get(nfs_of(&in[i]), obj), key)))
			return true;
	return false;
}

static void clients_table(FILE *f, const struct report_input *in, size_t n)
{
	if (!any_list(in, n, "clients", "by_connection"))
		return;
	fputs("<h3>NFS clients by time waited</h3>\n<table>\n<thead><tr><th>run</th><th>by</th>"
	      "<th>client</th><th>calls</th><th>errors</th><th>MiB</th><th>waited (ms)</th>"
	      "<th>SRT mean (ms)</th><th>SRT p99 (ms)</th></tr></thead>\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		const json_t *cl = json_object_get(nfs_of(&in[i]), "clients"), *c;
		char who[300];
		size_t k;

		json_array_foreach(json_object_get(cl, "by_connection"), k, c)
		{
			snprintf(who, sizeof(who),
			         strchr(str(c, "address"), ':') ? "[%s]:%.0f" : "%s:%.0f",
			         str(c, "address"), num(c, "port"));
			client_row(f, &in[i], i, "connection", who, c);
		}
		json_array_foreach(json_object_get(cl, "by_uid"), k, c)
		{
			snprintf(who, sizeof(who), "uid %.0f gid %.0f", num(c, "uid"),
			         num(c, "gid"));
			client_row(f, &in[i], i, "user", who, c);
		}
		json_array_foreach(json_object_get(cl, "by_machine"), k, c)
		    client_row(f, &in[i], i, "machine", str(c, "machine"), c);
	}
	fputs("</table>\n", f);
}

static void files_table(FILE *f, const struct report_input *in, size_t n)
{
	if (!any_list(in, n, "files", "by_time"))
		return;
	fputs("<h3>NFS files by time waited</h3>\n<table>\n<thead><tr><th>run</th><th>file</th>"
	      "<th>calls</th><th>errors</th><th>MiB read</th><th>MiB written</th>"
	      "<th>sequential %</th><th>waited (ms)</th><th>SRT p99 (ms)</th></tr></thead>\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		const json_t *x;
		size_t k;

		json_array_foreach(
		    json_object_get(json_object_get(nfs_of(&in[i]), "files"), "by_time"), k, x)
		{
			double ios = num2(x, "read", "ops") + num2(x, "write", "ops");
			double seq = num2(x, "read", "sequential") + num2(x, "write", "sequential");
			char path[1100];

			/* absent read/write: no IO that way */
			if (isnan(ios))
				ios = !isnan(num2(x, "read", "ops")) ? num2(x, "read", "ops")
				                                     : num2(x, "write", "ops");
			if (isnan(seq))
				seq = !isnan(num2(x, "read", "sequential"))
				          ? num2(x, "read", "sequential")
				          : num2(x, "write", "sequential");
			snprintf(path, sizeof(path), "%s%s", str(x, "path"),
			         strcmp(str(x, "name_state"), "removed") ? "" : " (removed)");
			td_run(f, &in[i], i);
			td_text(f, path);
			td_num(f, num(x, "ops"), 0);
			td_num(f, num(x, "errors"), 0);
			td_num(f,
			       isnan(num2(x, "read", "bytes")) ? 0
			                                       : num2(x, "read", "bytes") / IOT_MIB,
			       2);
			td_num(f,
			       isnan(num2(x, "write", "bytes"))
			           ? 0
			           : num2(x, "write", "bytes") / IOT_MIB,
			       2);
			td_num(f, ios > 0 ? 100 * seq / ios : NAN, 1);
			td_num(f, num(x, "wait_ns") / 1e6, 3);
			td_num(f, num2(x, "srt_ns", "p99") / 1e6, 3);
			fputs("</tr>\n", f);
		}
	}
	fputs("</table>\n", f);
}

static void slowest_table(FILE *f, const struct report_input *in, size_t n)
{
	bool any = false;

	for (size_t i = 0; i < n; i++)
		any |= json_array_size(json_object_get(nfs_of(&in[i]), "slowest")) > 0;
	if (!any)
		return;
	fputs("<h3>The slowest NFS calls</h3>\n<table>\n<thead><tr><th>run</th><th>at (s)</th>"
	      "<th>SRT (ms)</th><th>client</th><th>XID</th><th>procedure</th><th>file</th>"
	      "<th>offset</th><th>count</th><th>status</th></tr></thead>\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		const json_t *x;
		size_t k;

		json_array_foreach(json_object_get(nfs_of(&in[i]), "slowest"), k, x)
		{
			char buf[300];

			td_run(f, &in[i], i);
			td_num(f,
			       in[i].nfs ? rpt_nfs_x(in[i].nfs, (uint64_t)num(x, "call_ns")) : NAN,
			       6);
			td_num(f, num(x, "srt_ns") / 1e6, 3);
			snprintf(buf, sizeof(buf), "%s:%.0f", str(x, "client"),
			         num(x, "client_port"));
			td_text(f, buf);
			snprintf(buf, sizeof(buf), "0x%08llx", (unsigned long long)num(x, "xid"));
			td_text(f, buf);
			td_proc(f, x);
			td_text(f, str(x, "file"));
			td_num(f, num(x, "offset"), 0);
			td_num(f, num(x, "count"), 0);
			td_text(f, str(x, "status"));
			fputs("</tr>\n", f);
		}
	}
	fputs("</table>\n", f);
}

void report_nfs_tables(FILE *f, const struct report_input *in, size_t n)
{
	clients_table(f, in, n);
	files_table(f, in, n);
	slowest_table(f, in, n);
}

/* --- response time over time, one chart per procedure --- */

struct proc_pts {
	double *x, *p50, *p99;
	size_t n;
};

/* The points of one procedure's series of a run (timeline_by_procedure.procedures[j]). */
static int proc_points(const struct report_input *in, const json_t *series, struct proc_pts *p)
{
	const json_t *tb = json_object_get(nfs_of(in), "timeline_by_procedure");
	const json_t *a50 = json_object_get(series, "srt_p50_ns");
	const json_t *a99 = json_object_get(series, "srt_p99_ns");
	const json_t *calls = json_object_get(series, "calls");
	double iv = num(tb, "interval_ns"), t0 = num(tb, "start_ns");
	size_t n = json_array_size(calls);

	p->n = n;
	p->x = malloc((n ? n : 1) * sizeof(double));
	p->p50 = malloc((n ? n : 1) * sizeof(double));
	p->p99 = malloc((n ? n : 1) * sizeof(double));
	if (!p->x || !p->p50 || !p->p99)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		uint64_t mid = (uint64_t)(t0 + ((double)k + 0.5) * iv);
		bool none = json_integer_value(json_array_get(calls, k)) == 0;

		p->x[k] = in->nfs ? rpt_nfs_x(in->nfs, mid) : (double)mid / 1e9;
		p->p50[k] = none ? NAN : (double)json_integer_value(json_array_get(a50, k)) / 1e6;
		p->p99[k] = none ? NAN : (double)json_integer_value(json_array_get(a99, k)) / 1e6;
	}
	return 0;
}

static void pts_free(struct proc_pts *p)
{
	free(p->x);
	free(p->p50);
	free(p->p99);
	memset(p, 0, sizeof(*p));
}

/* The series of the procedure called "version name" in a run's summary, or NULL. */
static const json_t *series_of(const struct report_input *in, const char *ver, const char *name)
{
	const json_t *s;
	size_t k;

	json_array_foreach(
	    json_object_get(json_object_get(nfs_of(in), "timeline_by_procedure"), "procedures"), k,
	    s) if (!strcmp(str(s, "version"), ver) && !strcmp(str(s, "name"), name)) return s;
	return NULL;
}

void report_nfs_srt_charts(struct emit *em, const struct report_input *in, size_t n, double xmin,
                           double xmax)
{
	/* procedures in the order the first run that has them lists them */
	for (size_t i = 0; i < n; i++) {
		const json_t *s;
		size_t j;

		json_array_foreach(
		    json_object_get(json_object_get(nfs_of(&in[i]), "timeline_by_procedure"),
		                    "procedures"),
		    j, s)
		{
			struct proc_pts *pts = calloc(n, sizeof(*pts));
			struct svg_series *ser = calloc(2 * n, sizeof(*ser));
			char title[128], *names = calloc(n, 128);
			size_t k = 0, first = n;
			bool multi = false;

			/* drawn by the first run that has it */
			for (size_t r = 0; r < n && first == n; r++)
				if (series_of(&in[r], str(s, "version"), str(s, "name")))
					first = r;
			if (first != i || !pts || !ser || !names) {
				if (first == i)
					em->err = -ENOMEM;
				free(pts);
				free(ser);
				free(names);
				continue;
			}
			for (size_t r = 0; r < n; r++)
				multi |=
				    r != i && series_of(&in[r], str(s, "version"), str(s, "name"));
			for (size_t r = 0; r < n; r++) {
				const json_t *sr =
				    series_of(&in[r], str(s, "version"), str(s, "name"));
				const char *col = multi ? run_color(r) : pal_hex(PAL_LATENCY);

				if (!sr)
					continue;
				if (proc_points(&in[r], sr, &pts[r])) {
					em->err = -ENOMEM;
					break;
				}
				snprintf(names + 128 * r, 128, "%s%sp50",
				         multi ? run_label(&in[r]) : "", multi ? " " : "");
				ser[k++] =
				    (struct svg_series){names + 128 * r, col,  pts[r].n, pts[r].x,
				                        pts[r].p50,      NULL, NULL,     false};
				ser[k++] = (struct svg_series){
				    multi ? "" : "p99", col,  pts[r].n, pts[r].x,
				    pts[r].p99,         NULL, NULL,     true};
			}
			if (!em->err) {
				char id[96];
				struct svg_chart c = {.title = title,
				                      .ylabel = "ms",
				                      .xmin = xmin,
				                      .xmax = xmax,
				                      .series = ser,
				                      .nseries = k};

				snprintf(title, sizeof(title),
				         "NFS %s %s response time (p50 solid, p99 dashed)",
				         str(s, "version"), str(s, "name"));
				snprintf(id, sizeof(id), "nfs-srt-%s-%s", str(s, "version"),
				         str(s, "name"));
				c.id = id;
				emit_chart(em, &c);
			}
			for (size_t r = 0; r < n; r++)
				pts_free(&pts[r]);
			free(pts);
			free(ser);
			free(names);
		}
	}
}
