/* SPDX-License-Identifier: MIT */
/* iotape analyze's output: the JSON document streamed, and the text summary rendered from it. */
#include "cli/analyze.h"

#include <inttypes.h>
#include <string.h>

#include "analyze/blk_analysis.h"
#include "cli/cli.h"
#include "common/jsonint.h"
#include "common/textesc.h"
#include "common/units.h"

uint64_t jget_u(const json_t *o, const char *path)
{
	char key[64];
	const char *dot;
	uint64_t v;

	while ((dot = strchr(path, '.'))) {
		size_t n =
		    (size_t)(dot - path) < sizeof(key) - 1 ? (size_t)(dot - path) : sizeof(key) - 1;
		memcpy(key, path, n);
		key[n] = '\0';
		o = json_object_get(o, key);
		path = dot + 1;
	}
	o = json_object_get(o, path);
	if (json_is_real(o)) {
		double d = json_real_value(o);

		return !(d > 0) ? 0 : d >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)d;
	}
	json_u64_get(o, &v); /* an integer, or a u64 past 2^63 as its digits; else 0 */
	return v;
}

double jget_f(const json_t *o, const char *path)
{
	char key[64];
	const char *dot;

	while ((dot = strchr(path, '.'))) {
		size_t n =
		    (size_t)(dot - path) < sizeof(key) - 1 ? (size_t)(dot - path) : sizeof(key) - 1;
		memcpy(key, path, n);
		key[n] = '\0';
		o = json_object_get(o, key);
		path = dot + 1;
	}
	return json_number_value(json_object_get(o, path));
}

const char *fmt_bytes(uint64_t b, char *buf, size_t len)
{
	return iot_fmt_bytes(b, buf, len); /* one formatter for every renderer */
}

/* The IO at an edge of a gap ("W 4.0 KiB pid 7 (jbd2)"), or "-". */
static const char *io_text(const json_t *io, char *buf, size_t len)
{
	const json_t *comm = json_object_get(io, "comm"), *pid = json_object_get(io, "pid");
	char b[32], name[64]; /* the process name is the trace's: shown, never sent raw */

	if (!json_is_object(io)) {
		snprintf(buf, len, "-");
		return buf;
	}
	snprintf(buf, len, "%s %s", json_string_value(json_object_get(io, "rwbs")),
	         fmt_bytes(jget_u(io, "bytes"), b, sizeof(b)));
	if (json_is_integer(pid))
		snprintf(buf + strlen(buf), len - strlen(buf), " pid %" PRIu64 " (%s)",
		         jget_u(io, "pid"),
		         json_is_string(comm)
		             ? txt_escape(json_string_value(comm), name, sizeof(name))
		             : "?");
	return buf;
}

/* "8,16", "8,16 (osd.0 journal)", with " on HOST", for an entry of explain.devices */
static const char *dev_text(const json_t *o, char *buf, size_t len)
{
	const json_t *host = json_object_get(o, "host"), *role = json_object_get(o, "role");
	char name[64], r[160];

	snprintf(buf, len, "%s", json_string_value(json_object_get(o, "dev")));
	if (json_is_string(role))
		snprintf(buf + strlen(buf), len - strlen(buf), " (%s)",
		         txt_escape(json_string_value(role), r, sizeof(r)));
	if (json_is_string(host))
		snprintf(buf + strlen(buf), len - strlen(buf), " on %s",
		         txt_escape(json_string_value(host), name, sizeof(name)));
	return buf;
}

/* "filestore_sync (ceph-osd)": a command of explain.ended_by, with its process */
static const char *cmd_text(const json_t *c, char *buf, size_t len)
{
	const json_t *proc = json_object_get(c, "process");
	char a[64], b[64];

	txt_escape(json_string_value(json_object_get(c, "comm")), a, sizeof(a));
	if (json_is_string(proc))
		snprintf(buf, len, "%s (%s)", a, txt_escape(json_string_value(proc), b, sizeof(b)));
	else
		snprintf(buf, len, "%s", a);
	return buf;
}

/* The gaps by the command that ended them (and their period), then that began them. */
static void text_cmds(FILE *f, const json_t *ex)
{
	const json_t *c, *p;
	char b1[32], b2[32], b3[32], who[160];
	size_t i;

	json_array_foreach(json_object_get(ex, "ended_by"), i, c)
	{
		fprintf(f, "    %-9s %-34s %6" PRIu64 " gaps %12s (%5.1f%%)", i ? "" : "ended by",
		        cmd_text(c, who, sizeof(who)), jget_u(c, "gaps"),
		        fmt_duration((double)jget_u(c, "total_ns"), b1, sizeof(b1)),
		        jget_f(c, "pct"));
		p = json_object_get(c, "periodicity");
		if (json_is_object(p))
			fprintf(f,
			        "  periodic: every %s +- %s (%" PRIu64 " of %" PRIu64
			        " intervals, gaps >= %s)",
			        fmt_duration((double)jget_u(p, "period_ns"), b2, sizeof(b2)),
			        fmt_duration((double)jget_u(p, "jitter_ns"), b3, sizeof(b3)),
			        jget_u(p, "count"), jget_u(p, "gaps") - 1,
			        fmt_duration((double)jget_u(p, "min_gap_ns"), b1, sizeof(b1)));
		fputc('\n', f);
	}
	json_array_foreach(json_object_get(ex, "began_by"), i, c)
	{
		fprintf(f, "    %-9s %-34s %6" PRIu64 " gaps %12s (%5.1f%%)\n", i ? "" : "began by",
		        cmd_text(c, who, sizeof(who)), jget_u(c, "gaps"),
		        fmt_duration((double)jget_u(c, "total_ns"), b1, sizeof(b1)),
		        jget_f(c, "pct"));
	}
}

/* "packets kept: port 2049 or port 111 whole, other tcp or udp 128 bytes (headers)" */
static void text_kept(FILE *f, const json_t *kept)
{
	const json_t *k;
	char flt[160];
	size_t i;

	if (!json_array_size(kept))
		return;
	fputs("    packets kept:", f);
	json_array_foreach(kept, i, k)
	{
		uint64_t snap = jget_u(k, "snaplen");

		fprintf(
		    f, "%s %s ", i ? "," : "",
		    txt_escape(json_string_value(json_object_get(k, "filter")), flt, sizeof(flt)));
		if (snap >= 65535)
			fputs("whole", f);
		else
			fprintf(f, "%" PRIu64 " bytes (headers; sizes from the IP lengths)", snap);
	}
	fputc('\n', f);
}

/* What the device's gaps had in common: the other devices, the network, NFS, the period. */
static void text_explain(FILE *f, const json_t *ex)
{
	const json_t *o, *p = json_object_get(ex, "periodicity"), *c;
	const char *key;
	char b1[32], b2[32], b3[32], b4[32], who[128];
	size_t i;
	int any = 0;

	if (!json_is_object(ex) || !jget_u(ex, "gaps_ns"))
		return;
	json_array_foreach(json_object_get(ex, "devices"), i, o)
	{
		fprintf(f, "    %s %s busy %s of the gaps' %s (%.1f%%), %" PRIu64 " IOs, %s\n",
		        i ? "         " : "while idle:", dev_text(o, who, sizeof(who)),
		        fmt_duration((double)jget_u(o, "busy_ns"), b1, sizeof(b1)),
		        fmt_duration((double)jget_u(ex, "gaps_ns"), b2, sizeof(b2)),
		        jget_f(o, "busy_pct"), jget_u(o, "ios"),
		        fmt_bytes(jget_u(o, "bytes"), b3, sizeof(b3)));
	}
	json_array_foreach(json_object_get(ex, "network"), i, o)
	{
		if (!json_is_true(json_object_get(o, "mapped"))) {
			fprintf(
			    f, "    network: packets not placed on the trace clock (no clock pairs "
			       "and no TIMESTAMP)\n");
			continue;
		}
		fprintf(f,
		        "    network during the gaps: %" PRIu64 " packets, %s (%s): in %" PRIu64
		        " (%s), out %" PRIu64 " (%s)",
		        jget_u(o, "packets"), fmt_bytes(jget_u(o, "bytes"), b1, sizeof(b1)),
		        iot_fmt_rate(jget_f(o, "mb_per_s") * 1e6, b4, sizeof(b4)),
		        jget_u(o, "packets_in"), fmt_bytes(jget_u(o, "bytes_in"), b2, sizeof(b2)),
		        jget_u(o, "packets_out"),
		        fmt_bytes(jget_u(o, "bytes_out"), b3, sizeof(b3)));
		if (jget_u(o, "packets_local"))
			fprintf(f, ", local %" PRIu64 " (%s)", jget_u(o, "packets_local"),
			        fmt_bytes(jget_u(o, "bytes_local"), b1, sizeof(b1)));
		fputc('\n', f);
		text_kept(f, json_object_get(o, "kept"));
	}
	json_array_foreach(json_object_get(ex, "nfs"), i, o)
	{
		if (!jget_u(o, "arrivals") && !jget_u(o, "idle_with_work_ns"))
			continue;
		fprintf(
		    f,
		    "    NFS during the gaps: disk idle while the server had work %s (%.1f%% of "
		    "the gaps), %" PRIu64 " calls arrived, %.2f outstanding on average, at most "
		    "%" PRIu64 "\n",
		    fmt_duration((double)jget_u(o, "idle_with_work_ns"), b1, sizeof(b1)),
		    jget_f(o, "idle_with_work_pct"), jget_u(o, "arrivals"),
		    jget_f(o, "outstanding_mean"), jget_u(o, "outstanding_max"));
	}
	if (json_is_object(p))
		fprintf(f,
		        "    periodic: gaps of at least %s end every %s +- %s (%" PRIu64
		        " of %" PRIu64 " intervals)\n",
		        fmt_duration((double)jget_u(p, "min_gap_ns"), b1, sizeof(b1)),
		        fmt_duration((double)jget_u(p, "period_ns"), b2, sizeof(b2)),
		        fmt_duration((double)jget_u(p, "jitter_ns"), b3, sizeof(b3)),
		        jget_u(p, "count"), jget_u(p, "gaps") - 1);
	text_cmds(f, ex);
	fprintf(f, "    causes of the gaps listed:");
	json_object_foreach((json_t *)json_object_get(ex, "causes"), key, c)
	{
		if (json_integer_value(c))
			fprintf(f, "%s %s %" PRIu64, any++ ? "," : "", key,
			        (uint64_t)json_integer_value(c));
	}
	fprintf(f, "%s\n", any ? "" : " none");
}

static void text_idle(FILE *f, const json_t *idle, uint64_t start)
{
	const json_t *longest = json_object_get(idle, "longest"), *g;
	char b1[32], b2[32];
	size_t i;

	fprintf(f, "  %-10s %" PRIu64 " gaps >= %s, %s in total (%.1f%% of the span)\n", "idle",
	        jget_u(idle, "gaps"),
	        fmt_duration((double)jget_u(idle, "threshold_ns"), b1, sizeof(b1)),
	        fmt_duration((double)jget_u(idle, "total_ns"), b2, sizeof(b2)),
	        jget_f(idle, "pct"));
	text_explain(f, json_object_get(idle, "explain"));
	if (json_array_size(longest))
		fprintf(f, "    %14s %14s %12s %12s  %-30s %-30s %s\n", "start (s)", "end (s)",
		        "length", "IO waiting", "began by (completed)", "ended by (issued)",
		        "cause");
	json_array_foreach(longest, i, g)
	{
		const json_t *ex = json_object_get(g, "explain"), *c;
		char before[160], after[160], because[600], causes[256], t1[40], t2[40];
		size_t k;

		io_text(json_object_get(g, "io_before"), before, sizeof(before));
		if (!strcmp(json_string_value(json_object_get(g, "ended_by")), "end"))
			snprintf(after, sizeof(after), "end of trace");
		else
			io_text(json_object_get(g, "io_after"), after, sizeof(after));
		/* how long a queued request waited while the device sat idle */
		if (json_is_true(json_object_get(g, "queued")))
			fmt_duration((double)jget_u(g, "queued_ns"), b2, sizeof(b2));
		else
			snprintf(b2, sizeof(b2), "-");
		/* every cause that holds, ranked: the label first */
		causes[0] = '\0';
		json_array_foreach(json_object_get(ex, "causes"), k, c)
		{
			snprintf(causes + strlen(causes), sizeof(causes) - strlen(causes), "%s%s",
			         k ? ", " : "", json_string_value(c));
		}
		fprintf(f, "    %14s %14s %12s %12s  %-30s %-30s %s\n",
		        fmt_secs(jget_u(g, "start_ns") - start, 6, t1, sizeof(t1)),
		        fmt_secs(jget_u(g, "end_ns") - start, 6, t2, sizeof(t2)),
		        fmt_duration((double)jget_u(g, "duration_ns"), b1, sizeof(b1)), b2, before,
		        after, causes[0] ? causes : "-");
		json_array_foreach(json_object_get(ex, "reasons"), k, c)
		{
			fprintf(f, "      %s: %s\n", json_string_value(json_object_get(c, "cause")),
			        txt_escape(json_string_value(json_object_get(c, "because")),
			                   because, sizeof(because)));
		}
	}
}

/* ------------------------------------------------------------------------------------- */
/*
 * The JSON document, streamed: jansson writes every key and value, but the devices'
 * timelines are written one bin at a time (as jansson objects a 100000-bin timeline would
 * take 170 MB). The layout is jansson's JSON_INDENT(2), with one timeline bin per line.
 */

#define DUMP_FLAGS (JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY)

/* v with jansson, its continuation lines indented by ind more spaces. */
static void put_value(FILE *f, const json_t *v, int ind, size_t flags)
{
	char *s = json_dumps(v, flags);

	if (!s) {
		fputs("null", f); /* only without memory; the caller's ferror check sees the rest */
		return;
	}
	for (const char *p = s; *p; p++) {
		fputc(*p, f);
		if (*p == '\n')
			fprintf(f, "%*s", ind, "");
	}
	free(s);
}

static void put_key(FILE *f, const char *key, int ind, int first)
{
	json_t *k = json_string(key);

	fprintf(f, "%s\n%*s", first ? "" : ",", ind, "");
	put_value(f, k, 0, DUMP_FLAGS);
	fputs(": ", f);
	json_decref(k);
}

static void put_device(FILE *f, const json_t *dev, const struct blk_analysis *a, unsigned pos)
{
	const char *key;
	json_t *v;
	int first = 1;

	fputs("{", f);
	json_object_foreach((json_t *)dev, key, v)
	{
		put_key(f, key, 6, first);
		first = 0;
		if (strcmp(key, "timeline") || !json_is_null(v)) {
			put_value(f, v, 6, DUMP_FLAGS | JSON_INDENT(2));
			continue;
		}
		fputs("[", f);
		for (uint64_t k = 0, n = blk_analysis_timeline_bins(a); k < n; k++) {
			json_t *bin = blk_analysis_timeline_bin(a, pos, k);

			fprintf(f, "%s\n        ", k ? "," : "");
			put_value(f, bin, 0, DUMP_FLAGS | JSON_COMPACT);
			json_decref(bin);
		}
		fputs("\n      ]", f);
	}
	fputs("\n    }", f);
}

int write_document(FILE *f, const json_t *root, const struct devref *refs)
{
	const char *key;
	json_t *v;
	int first = 1;

	fputs("{", f);
	json_object_foreach((json_t *)root, key, v)
	{
		put_key(f, key, 2, first);
		first = 0;
		if (strcmp(key, "devices") || !json_is_array(v)) {
			put_value(f, v, 2, DUMP_FLAGS | JSON_INDENT(2));
			continue;
		}
		fputs("[", f);
		for (size_t i = 0; i < json_array_size(v); i++) {
			fprintf(f, "%s\n    ", i ? "," : "");
			put_device(f, json_array_get(v, i), refs[i].a, refs[i].pos);
		}
		fputs(json_array_size(v) ? "\n  ]" : "]", f);
	}
	fputs("\n}\n", f);
	return ferror(f) ? -1 : 0;
}

/* ------------------------------------------------------------------------------------- */
/* Text summary, rendered from the JSON document so that both say the same thing.         */

/*
 * More than a tenth of the completions matched no queued bio: btt's per-bio rows cover only
 * the rest. Say so, and why: a bio split into several requests (X) completes in pieces at
 * sectors no bio was queued at (writes over max_sectors_kb: a journal's), and a write with
 * FUA or a preflush on a device without them ends with a flush sequence's completion.
 */
static void unmatched_note(FILE *f, const json_t *d)
{
	uint64_t un = jget_u(d, "matching.unmatched_completions");
	uint64_t all = jget_u(d, "reads.ios") + jget_u(d, "writes.ios");
	uint64_t splits = jget_u(d, "actions.split.reads") + jget_u(d, "actions.split.writes");
	uint64_t flush = jget_u(d, "depth.flush_completions");

	if (!all || 10 * un <= all)
		return;
	fprintf(f,
	        "    note: %" PRIu64 " of %" PRIu64
	        " completions (%.0f%%) matched no queued bio, so "
	        "btt's rows above leave them out:",
	        un, all, 100.0 * (double)un / (double)all);
	if (splits)
		fprintf(f,
		        " %" PRIu64 " bios were split into requests (X) that complete at "
		        "sectors no bio was queued at;",
		        splits);
	if (flush)
		fprintf(f,
		        " %" PRIu64 " completions ended a flush sequence (FUA or preflush "
		        "writes);",
		        flush);
	if (!splits && !flush)
		fprintf(f, " requests issued before the trace began, or lost records;");
	fprintf(f, " d2c rq follows every request\n");
}

static void text_device(FILE *f, const json_t *d, uint64_t start)
{
	static const char *const lat[] = {"q2d", "d2c", "q2c", "q2g",        "g2i",
	                                  "q2m", "i2d", "m2d", "d2c_request"};
	char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
	const json_t *idle = json_object_get(d, "idle");
	size_t i;
	char name[64];

	fprintf(f, "\ndevice %s", json_string_value(json_object_get(d, "dev")));
	if (json_is_string(json_object_get(d, "role")) ||
	    json_is_string(json_object_get(d, "group"))) {
		char r[160], g[160];
		const char *role = json_string_value(json_object_get(d, "role"));
		const char *grp = json_string_value(json_object_get(d, "group"));

		fprintf(f, " (%s%s%s)", role ? txt_escape(role, r, sizeof(r)) : "",
		        role && grp ? ", group "
		        : grp       ? "group "
		                    : "",
		        grp ? txt_escape(grp, g, sizeof(g)) : "");
	}
	if (json_is_string(json_object_get(d, "host")))
		fprintf(
		    f, " on %s",
		    txt_escape(json_string_value(json_object_get(d, "host")), name, sizeof(name)));
	fprintf(f, ": %" PRIu64 " events\n", jget_u(d, "events"));
	/* writes of data; a discard's or write-zeroes' range is no transfer (fstrim's 592 MiB
	 * of "writes"): each has its line, as have flushes */
	fprintf(f, "  %-10s %12" PRIu64 " ios %12s   writes %12" PRIu64 " ios %12s\n", "reads",
	        jget_u(d, "reads.ios"), fmt_bytes(jget_u(d, "reads.bytes"), b1, sizeof(b1)),
	        jget_u(d, "data_writes.ios"),
	        fmt_bytes(jget_u(d, "data_writes.bytes"), b2, sizeof(b2)));
	if (jget_u(d, "discards.ios"))
		fprintf(f, "  %-10s %12" PRIu64 " ios %12s covered (no data: not in writes)\n",
		        "discards", jget_u(d, "discards.ios"),
		        fmt_bytes(jget_u(d, "discards.bytes"), b1, sizeof(b1)));
	if (jget_u(d, "write_zeroes.ios"))
		fprintf(f, "  %-10s %12" PRIu64 " ios %12s covered (no data: not in writes)\n",
		        "w-zeroes", jget_u(d, "write_zeroes.ios"),
		        fmt_bytes(jget_u(d, "write_zeroes.bytes"), b1, sizeof(b1)));
	if (jget_u(d, "flushes"))
		fprintf(f, "  %-10s %12" PRIu64 " requests (no data)\n", "flushes",
		        jget_u(d, "flushes"));
	fprintf(f,
	        "  %-10s %12" PRIu64 " bios (%" PRIu64 " back, %" PRIu64 " front merges), %" PRIu64
	        " requeues\n",
	        "queued", jget_u(d, "actions.queue.reads") + jget_u(d, "actions.queue.writes"),
	        jget_u(d, "actions.backmerge.reads") + jget_u(d, "actions.backmerge.writes"),
	        jget_u(d, "actions.frontmerge.reads") + jget_u(d, "actions.frontmerge.writes"),
	        jget_u(d, "actions.requeue.reads") + jget_u(d, "actions.requeue.writes"));
	/* btt's intervals per bio, then the request-level D2C (what report and compare show) */
	fprintf(
	    f,
	    "  %-10s %8s %10s %10s %10s %10s %10s %10s   (btt's, per bio; d2c rq: per request)\n",
	    "latency", "count", "mean", "min", "p50", "p90", "p99", "max");
	for (i = 0; i < sizeof(lat) / sizeof(lat[0]); i++) {
		const json_t *h = json_object_get(json_object_get(d, "latency_ns"), lat[i]);
		/* bios for the btt intervals; requests (one D, one C) for the last row */
		const char *name = strcmp(lat[i], "d2c_request") ? lat[i] : "d2c rq";

		if (!jget_u(h, "count") && i > 2)
			continue;
		fprintf(f, "    %-8s %8" PRIu64 " %10s %10s %10s %10s %10s %10s\n", name,
		        jget_u(h, "count"), fmt_duration(jget_f(h, "mean"), b1, sizeof(b1)),
		        fmt_duration((double)jget_u(h, "min"), b2, sizeof(b2)),
		        fmt_duration((double)jget_u(h, "p50"), b3, sizeof(b3)),
		        fmt_duration((double)jget_u(h, "p90"), b4, sizeof(b4)),
		        fmt_duration((double)jget_u(h, "p99"), b5, sizeof(b5)),
		        fmt_duration((double)jget_u(h, "max"), b6, sizeof(b6)));
	}
	if (!jget_u(d, "latency_ns.q2c.count") && jget_u(d, "latency_ns.d2c_request.count"))
		fprintf(f, "    (no queue (Q) events in the trace: d2c rq is per request, issue to "
		           "completion)\n");
	unmatched_note(f, d);
	fprintf(f, "  %-10s mean %.2f, max %" PRIu64 "\n", "depth", jget_f(d, "depth.mean"),
	        jget_u(d, "depth.max"));
	text_idle(f, idle, start);
	fprintf(f,
	        "  %-10s %" PRIu64 " (%" PRIu64 " over 128 sectors), %.1f%% sequential, %.1f/s, "
	        "%" PRIu64 " forward, %" PRIu64 " backward\n",
	        "seeks", jget_u(d, "seeks.count"), jget_u(d, "seeks.seekwatcher"),
	        jget_f(d, "seeks.sequential_pct"), jget_f(d, "seeks.per_sec"),
	        jget_u(d, "seeks.forward"), jget_u(d, "seeks.backward"));
}

void text_summary(FILE *f, const json_t *root)
{
	const json_t *in = json_object_get(root, "input"), *devs = json_object_get(root, "devices");
	const json_t *hosts = json_object_get(root, "hosts"), *h;
	uint64_t start = jget_u(root, "start_ns");
	char b1[32], b2[40];
	size_t i;
	json_t *d;

	if (json_is_true(json_object_get(in, "partial")))
		fprintf(f,
		        "partial results: the input stops at bad bytes (%s); what came before "
		        "them:\n",
		        json_string_value(json_object_get(in, "error")));
	fprintf(f, "%zu file(s), %" PRIu64 " events, %zu device(s), span %s",
	        json_array_size(json_object_get(in, "files")), jget_u(in, "events"),
	        json_array_size(devs),
	        fmt_duration((double)jget_u(root, "span_ns"), b1, sizeof(b1)));
	fprintf(f, ", timeline %" PRIu64 " bins of %s (--json)\n", jget_u(root, "timeline.bins"),
	        fmt_duration((double)jget_u(root, "timeline.interval_ns"), b2, sizeof(b2)));
	/* a level of detail below every event (bpf --detail io or summary) says what it lacks */
	if (json_is_object(json_object_get(root, "detail")) &&
	    json_array_size(json_object_get(json_object_get(root, "detail"), "not_given"))) {
		const json_t *ng = json_object_get(json_object_get(root, "detail"), "not_given"),
		             *v;

		fprintf(
		    f, "captured at --detail %s: not given:",
		    json_string_value(json_object_get(json_object_get(root, "detail"), "level")));
		json_array_foreach(ng, i, v) fprintf(f, " %s", json_string_value(v));
		fputc('\n', f);
	}
	/* the JSON's times are on the trace's clock; the text's count from its start */
	fprintf(f, "times in seconds from %s s on the trace clock (start_ns)\n",
	        fmt_secs(start, 9, b2, sizeof(b2)));
	if (jget_u(root, "events_dropped_devices"))
		fprintf(f,
		        "not analyzed: %" PRIu64
		        " events on devices past the first %u (more devices "
		        "than iotape keeps apart)\n",
		        jget_u(root, "events_dropped_devices"), BLK_MAX_DEVICES);
	json_array_foreach(hosts, i, h)
	{
		char name[64];

		fprintf(
		    f, "host %s (%s): span %s, its trace clock %s s from the first host's",
		    txt_escape(json_string_value(json_object_get(h, "host")), name, sizeof(name)),
		    json_string_value(json_object_get(h, "path")),
		    fmt_duration((double)jget_u(h, "span_ns"), b1, sizeof(b1)),
		    fmt_secs_signed(json_integer_value(json_object_get(h, "offset_ns")), 9, b2,
		                    sizeof(b2)));
		fputc('\n', f);
	}
	if (json_array_size(hosts))
		fprintf(f,
		        "one clock (the first host's trace clock) through the manifests' clock "
		        "pairs: alignment error at most %s\n",
		        fmt_duration((double)jget_u(root, "alignment_error_ns"), b1, sizeof(b1)));
	/* --by cgroup: the same per cgroup, after the devices' figures of all IO (below) */
	json_array_foreach(devs, i, d)
	{
		/* gap times from the start of the first host's run, whatever the device's clock */
		int64_t off = 0;
		size_t k;

		json_array_foreach(hosts, k, h)
		{
			if (json_equal(json_object_get(h, "host"), json_object_get(d, "host")))
				off = json_integer_value(json_object_get(h, "offset_ns"));
		}
		text_device(f, d, (uint64_t)((int64_t)start - off));
	}
	json_array_foreach(json_object_get(root, "cgroups"), i, h)
	{
		const json_t *id = json_object_get(h, "id"), *path = json_object_get(h, "path");
		char name[256];
		size_t k;

		if (json_is_integer(id) && !json_integer_value(id))
			fprintf(f,
			        "\nrecords without a cgroup id (plug, unplug; or captured without "
			        "ids): %" PRIu64 " events\n",
			        jget_u(h, "events"));
		else if (json_is_integer(id))
			fprintf(f, "\ncgroup %s (id %" PRIu64 "): %" PRIu64 " events\n",
			        json_is_string(path)
			            ? txt_escape(json_string_value(path), name, sizeof(name))
			            : "(path unknown)",
			        (uint64_t)json_integer_value(id), jget_u(h, "events"));
		else
			fprintf(f, "\ncgroups past the first %u: %" PRIu64 " events\n", 63u,
			        jget_u(h, "events"));
		json_array_foreach(json_object_get(h, "devices"), k, d) text_device(f, d, start);
	}
}
