/* SPDX-License-Identifier: MIT */
/* iotape analyze: one streaming pass over block traces (and packet captures), text or JSON. */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h> /* optarg, optind */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/blk_latency.h"
#include "analyze/blk_analysis.h"
#include "cli/analyze.h"
#include "cli/inputs.h"
#include "common/textesc.h"
#include "formats/blktrace.h"
#include "iotape_version.h"

static const struct cli_opt analyze_opts[] = {
    {.name = "json", .key = 'j', .help = "write the JSON document instead of the text summary"},
    {.name = "interval",
     .key = 'i',
     .arg = "DUR",
     .help = "timeline bin width (default 1s; e.g. 100ms)"},
    {.name = "idle-threshold",
     .key = 't',
     .arg = "DUR",
     .help = "shortest idle gap that counts (default " BLK_DEFAULT_IDLE_TEXT ")"},
    {.name = "idle", .key = 't', .arg = "DUR", .help = "the same as --idle-threshold"},
    {.name = "top",
     .key = 'n',
     .arg = "N",
     .help = "keep the N longest idle gaps; for packet captures, list the N slowest calls and "
             "the top N files (default 10; at most 1000 for captures)"},
    {.name = "output",
     .short_name = 'o',
     .arg = "FILE",
     .kind = CLI_FILE,
     .help = "write to FILE instead of standard output"},
    {0},
};

const struct cli_doc doc_analyze = {
    .summary = "analyze block traces, packet captures or run directories",
    .synopsis = "[--json] [--interval DUR] [--idle-threshold DUR] [--top N] [-o FILE] INPUT...",
    .description =
        "One streaming pass over block traces (and packet captures): per device counts and "
        "bytes per action, Q2D/D2C/Q2C latency (matched through merges as btt does), queue "
        "depth, idle gaps, seeks and a timeline. Prints a summary, or a JSON document with "
        "--json (schema: docs/json.md; definitions: docs/analyze.md).\n"
        "\n"
        "For NFS captures: response times per procedure (p50 to p99.9, histograms in JSON), "
        "clients per connection, AUTH_SYS uid and machine, files by name, the slowest calls, "
        "per-procedure series, retransmissions and capture gaps (docs/nfs.md).\n"
        "\n"
        "INPUT is a run directory, a per-CPU set NAME (NAME.blktrace.0, .1, ...), a single "
        "blktrace file (e.g. blkparse -d output), a fio iolog (its IOs as issue events), '-' "
        "for stdin, or a pcap/pcapng capture. "
        "Several inputs are merged by time. Inputs may be gzip- or zstd-compressed, FIFOs or "
        "<(process substitution): each is read once, its kind sniffed from its first bytes.",
    .opts = analyze_opts,
    .operands = CLI_INPUT,
    .exit_status = "0 success, 2 usage or input error (bad magic, unsupported version, "
                   "truncated record, empty set), 3 system error",
    .docs = "analyze.md json.md nfs.md",
    .see_also = "blkparse(1) btt(1) tshark(1)",
};

struct input {
	const char *path;
	struct bt_reader *r;
	struct blk_event ev; /* head, valid while have */
	int have;
};

struct run {
	struct analyze_opts ao;
	struct blk_opts bo;
	struct input *in;
	unsigned nin;
	struct in_stream **captures;
	unsigned ncap;
	struct bt_comm_table *comms;
	struct blk_analysis *a;
	uint64_t events, notifies, messages;
	struct iot_err stop; /* bad bytes ended the pass: what was read before them is reported */
	int stopped;
};

/*
 * The pass met an error. Bad bytes (an input error) end it with partial results: the sinks
 * keep what came before them, the output says so, and the command exits 2 with the error
 * last. Anything else (out of memory, a read error) ends the command here.
 */
static int pass_error(struct run *r, const struct iot_err *e, int ret)
{
	if (exit_code_for(ret) != EXIT_USAGE)
		return input_error(e, ret);
	r->stop = *e;
	r->stopped = 1;
	return EXIT_OK;
}

static int add_capture(struct run *r, struct in_stream *in)
{
	struct in_stream **p = realloc(r->captures, (r->ncap + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	r->captures = p;
	r->captures[r->ncap++] = in;
	return 0;
}

/* INPUT, opened once: its block trace joins the merge, its packet capture is kept for later. */
static int open_input(struct run *r, const char *path)
{
	struct cli_input ci;
	struct input *in;
	int ret = cli_input_open(&ci, path, 0);

	if (ret)
		return ret;
	if (ci.capture) {
		if (add_capture(r, ci.capture))
			goto nomem;
		ci.capture = NULL;
	}
	if (ci.block) {
		in = realloc(r->in, (r->nin + 1) * sizeof(*in));
		if (!in)
			goto nomem;
		r->in = in;
		in = &r->in[r->nin++];
		memset(in, 0, sizeof(*in));
		in->path = path;
		in->r = ci.block;
		ci.block = NULL;
	}
	cli_input_release(&ci);
	return EXIT_OK;
nomem:
	cli_input_release(&ci);
	return error("out of memory"), EXIT_SYSTEM;
}

static int input_next(struct input *in, struct iot_err *e)
{
	int ret = bt_reader_next(in->r, &in->ev, e);

	in->have = ret > 0;
	return ret;
}

static void notify(struct run *r, const struct blk_event *ev)
{
	r->notifies++;
	if (ev->action == BLK_N_PROCESS && ev->pdu_len)
		bt_comm_table_set(r->comms, ev->pid, (const char *)ev->pdu, ev->pdu_len);
	else if (ev->action == BLK_N_MESSAGE)
		r->messages++;
}

static inline void consume(struct run *r, const struct blk_event *ev)
{
	r->events++;
	if (!blk_is_notify(ev))
		blk_analysis_feed(r->a, ev);
	else
		notify(r, ev);
}

/* Merge the inputs by time (few inputs: a linear scan beats a heap) and feed every sink. */
static int run_pass(struct run *r)
{
	struct iot_err e;
	int ret;

	if (r->nin == 1) {
		/*
		 * The common case, without the merge: a reader thread decodes and merges the
		 * per-CPU files into batches and runs part of the sinks on each batch while it is
		 * in its cache; this thread runs the others (blk_analysis_read()).
		 */
		struct bt_reader *rd = r->in[0].r;
		const struct bt_stats *st;

		ret = blk_analysis_read(r->a, rd, &e);
		if (ret < 0 && (ret = pass_error(r, &e, ret)))
			return ret;
		/* the reader counted the notifies and kept the names: no second look at each event
		 */
		st = bt_reader_stats(rd);
		r->events = st->events;
		r->notifies = st->notifies;
		r->messages = st->messages;
		return EXIT_OK;
	}
	/* decode each input in a thread of its own while the sinks run in this one */
	for (unsigned i = 0; i < r->nin; i++)
		if ((ret = bt_reader_prefetch(r->in[i].r, &e)))
			return input_error(&e, ret);
	for (unsigned i = 0; i < r->nin && !r->stopped; i++)
		if ((ret = input_next(&r->in[i], &e)) < 0 && (ret = pass_error(r, &e, ret)))
			return ret;
	while (!r->stopped) {
		struct input *best = NULL;

		for (unsigned i = 0; i < r->nin; i++)
			if (r->in[i].have && (!best || r->in[i].ev.time < best->ev.time))
				best = &r->in[i];
		if (!best)
			break;
		consume(r, &best->ev);
		if ((ret = input_next(best, &e)) < 0 && (ret = pass_error(r, &e, ret)))
			return ret;
	}
	blk_analysis_finish(r->a);
	return EXIT_OK;
}

/* Warnings about the input, on stderr and (for the JSON document) in list. */
static void warn_inputs(const struct run *r, json_t *list)
{
	struct iot_err kept = {""}; /* r->stop is printed last by the caller */

	if (r->stopped)
		partial_results("block trace", &r->stop, &kept, list);
	for (unsigned i = 0; i < r->nin; i++)
		warn_block_input(r->in[i].r, list);
}

static json_t *input_json(const struct run *r, json_t *warnings)
{
	json_t *o = json_object(), *paths = json_array(), *files = json_array();
	json_t *versions = json_array();
	uint64_t skips = 0, truncated = 0;
	unsigned seen = 0; /* versions seen, as a bit set */
	json_t *wall = NULL;

	for (unsigned i = 0; i < r->nin; i++) {
		const struct bt_stats *st = bt_reader_stats(r->in[i].r);

		json_array_append_new(paths, json_string(r->in[i].path));
		skips += st->skips;
		if (st->have_wallclock && !wall)
			wall = json_pack("{sIsI}", "sec", (json_int_t)st->wall_sec, "nsec",
			                 (json_int_t)st->wall_nsec);
		for (unsigned f = 0; f < st->nfiles; f++) {
			const struct bt_file_stats *fs = &st->files[f];
			json_t *j = json_object();

			truncated += fs->truncated != 0;
			if (fs->version < 32)
				seen |= 1u << fs->version;
			json_object_set_new(j, "path", json_string(fs->path));
			json_object_set_new(j, "format",
			                    json_string(fs->format ? fs->format : "blktrace"));
			json_object_set_new(j, "version", json_integer(fs->version));
			if (fs->iolog_version)
				json_object_set_new(j, "iolog_version",
				                    json_integer(fs->iolog_version));
			json_object_set_new(j, "byte_order",
			                    json_string(fs->swapped ? "swapped" : "native"));
			json_object_set_new(j, "gzip", json_boolean(fs->gzip));
			json_object_set_new(j, "compression", json_string(fs->compression));
			json_object_set_new(j, "records", json_integer((json_int_t)fs->records));
			json_object_set_new(j, "bytes", json_integer((json_int_t)fs->bytes));
			json_object_set_new(j, "skips", json_integer((json_int_t)fs->skips));
			json_object_set_new(j, "truncated", json_boolean(fs->truncated));
			if (fs->truncated)
				json_object_set_new(j, "truncated_at",
				                    json_integer((json_int_t)fs->trunc_at));
			json_array_append_new(files, j);
		}
	}
	for (unsigned v = 1; v < 32; v++)
		if (seen & (1u << v))
			json_array_append_new(versions, json_integer(v));
	json_object_set_new(o, "paths", paths);
	json_object_set_new(o, "files", files);
	json_object_set_new(o, "versions", versions);
	json_object_set_new(o, "events", json_integer((json_int_t)r->events));
	json_object_set_new(o, "notifies", json_integer((json_int_t)r->notifies));
	json_object_set_new(o, "messages", json_integer((json_int_t)r->messages));
	json_object_set_new(o, "skips", json_integer((json_int_t)skips));
	json_object_set_new(o, "truncated", json_integer((json_int_t)truncated));
	json_object_set_new(o, "wallclock", wall ? wall : json_null());
	json_object_set_new(o, "partial", json_boolean(r->stopped));
	if (r->stopped)
		json_object_set_new(o, "error", json_string(r->stop.msg));
	json_object_set_new(o, "warnings", warnings);
	return o;
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

static void put_device(FILE *f, const json_t *dev, struct blk_analysis *a, unsigned pos)
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

static int write_document(FILE *f, const json_t *root, struct blk_analysis *a)
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
			put_device(f, json_array_get(v, i), a, (unsigned)i);
		}
		fputs(json_array_size(v) ? "\n  ]" : "]", f);
	}
	fputs("\n}\n", f);
	return ferror(f) ? -1 : 0;
}

/* ------------------------------------------------------------------------------------- */
/* Text summary, rendered from the JSON document so that both say the same thing.         */

static uint64_t jget_u(const json_t *o, const char *path)
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
	o = json_object_get(o, path);
	if (json_is_integer(o))
		return (uint64_t)json_integer_value(o);
	if (json_is_real(o))
		return (uint64_t)json_real_value(o);
	return 0;
}

static double jget_f(const json_t *o, const char *path)
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

static const char *fmt_bytes(uint64_t b, char *buf, size_t len)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	double v = (double)b;
	unsigned u = 0;

	while (v >= 1024 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024;
		u++;
	}
	if (u)
		snprintf(buf, len, "%.1f %s", v, unit[u]);
	else
		snprintf(buf, len, "%" PRIu64 " B", b);
	return buf;
}

static void text_device(FILE *f, const json_t *d, uint64_t start)
{
	static const char *const lat[] = {"q2d", "d2c", "q2c", "q2g",        "g2i",
	                                  "q2m", "i2d", "m2d", "d2c_request"};
	char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
	const json_t *idle = json_object_get(d, "idle"), *longest;
	size_t i;
	json_t *g;

	fprintf(f, "\ndevice %s: %" PRIu64 " events\n",
	        json_string_value(json_object_get(d, "dev")), jget_u(d, "events"));
	fprintf(f, "  %-10s %12" PRIu64 " ios %12s   writes %12" PRIu64 " ios %12s\n", "reads",
	        jget_u(d, "reads.ios"), fmt_bytes(jget_u(d, "reads.bytes"), b1, sizeof(b1)),
	        jget_u(d, "writes.ios"), fmt_bytes(jget_u(d, "writes.bytes"), b2, sizeof(b2)));
	fprintf(f,
	        "  %-10s %12" PRIu64 " bios (%" PRIu64 " back, %" PRIu64 " front merges), %" PRIu64
	        " requeues\n",
	        "queued", jget_u(d, "actions.queue.reads") + jget_u(d, "actions.queue.writes"),
	        jget_u(d, "actions.backmerge.reads") + jget_u(d, "actions.backmerge.writes"),
	        jget_u(d, "actions.frontmerge.reads") + jget_u(d, "actions.frontmerge.writes"),
	        jget_u(d, "actions.requeue.reads") + jget_u(d, "actions.requeue.writes"));
	fprintf(f, "  %-10s %8s %10s %10s %10s %10s %10s %10s\n", "latency", "count", "mean", "min",
	        "p50", "p90", "p99", "max");
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
	fprintf(f, "  %-10s mean %.2f, max %" PRIu64 "\n", "depth", jget_f(d, "depth.mean"),
	        jget_u(d, "depth.max"));
	fprintf(f, "  %-10s %" PRIu64 " gaps >= %s, %s in total (%.1f%% of the span)\n", "idle",
	        jget_u(idle, "gaps"),
	        fmt_duration((double)jget_u(idle, "threshold_ns"), b1, sizeof(b1)),
	        fmt_duration((double)jget_u(idle, "total_ns"), b2, sizeof(b2)),
	        jget_f(idle, "pct"));
	longest = json_object_get(idle, "longest");
	if (json_array_size(longest))
		fprintf(f, "    %14s %14s %12s %12s  %s\n", "start (s)", "end (s)", "length",
		        "IO waiting", "ended by");
	json_array_foreach(longest, i, g)
	{
		const json_t *comm = json_object_get(g, "comm");
		char who[128],
		    name[96]; /* the process name is the trace's: shown, never sent raw */

		if (!strcmp(json_string_value(json_object_get(g, "ended_by")), "end"))
			snprintf(who, sizeof(who), "end of trace");
		else
			snprintf(who, sizeof(who), "pid %" PRIu64 " (%s)", jget_u(g, "pid"),
			         json_is_string(comm)
			             ? txt_escape(json_string_value(comm), name, sizeof(name))
			             : "?");
		/* how long a queued request waited while the device sat idle */
		if (json_is_true(json_object_get(g, "queued")))
			fmt_duration((double)jget_u(g, "queued_ns"), b2, sizeof(b2));
		else
			snprintf(b2, sizeof(b2), "-");
		fprintf(f, "    %14.6f %14.6f %12s %12s  %s\n",
		        (double)(jget_u(g, "start_ns") - start) / 1e9,
		        (double)(jget_u(g, "end_ns") - start) / 1e9,
		        fmt_duration((double)jget_u(g, "duration_ns"), b1, sizeof(b1)), b2, who);
	}
	fprintf(f,
	        "  %-10s %" PRIu64 " (%" PRIu64 " over 128 sectors), %.1f%% sequential, %.1f/s, "
	        "%" PRIu64 " forward, %" PRIu64 " backward\n",
	        "seeks", jget_u(d, "seeks.count"), jget_u(d, "seeks.seekwatcher"),
	        jget_f(d, "seeks.sequential_pct"), jget_f(d, "seeks.per_sec"),
	        jget_u(d, "seeks.forward"), jget_u(d, "seeks.backward"));
}

static void text_summary(FILE *f, const json_t *root)
{
	const json_t *in = json_object_get(root, "input"), *devs = json_object_get(root, "devices");
	uint64_t start = jget_u(root, "start_ns");
	char b1[32], b2[32];
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
	json_array_foreach(devs, i, d) text_device(f, d, start);
}

/* ------------------------------------------------------------------------------------- */

static void run_release(struct run *r)
{
	for (unsigned i = 0; i < r->nin; i++)
		bt_reader_free(r->in[i].r);
	free(r->in);
	for (unsigned i = 0; i < r->ncap; i++)
		in_stream_close(r->captures[i]);
	free(r->captures);
	bt_comm_table_free(r->comms);
	blk_analysis_free(r->a);
}

static int parse_args(struct run *r, int argc, char **argv, const char **out)
{
	unsigned long long v;
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, &doc_analyze)) != -1) {
		switch (c) {
		case 'j':
			r->ao.json = 1;
			break;
		case 'i':
			if (parse_duration_ns("--interval", optarg, &v))
				return -1;
			if (!v)
				return usage_error("--interval: must be more than 0"), -1;
			r->ao.interval_ns = v;
			break;
		case 't':
			if (parse_duration_ns("--idle-threshold", optarg, &v))
				return -1;
			r->ao.idle_threshold_ns = v;
			break;
		case 'n':
			if (parse_u64("--top", optarg, &v))
				return -1;
			if (v > BLK_MAX_TOP)
				return usage_error("--top: at most %u", BLK_MAX_TOP), -1;
			r->ao.top = (unsigned)v;
			break;
		case 'o':
			*out = optarg;
			break;
		default:
			return bad_option(argv), -1;
		}
	}
	if (optind >= argc)
		return usage_error("no input"), -1;
	return optind;
}

int cmd_analyze(int argc, char **argv)
{
	struct run r;
	const char *out_path = NULL;
	json_t *root = NULL, *warnings = NULL;
	FILE *out = stdout;
	int first, ret = EXIT_OK;

	memset(&r, 0, sizeof(r));
	blk_opts_init(&r.bo);
	r.ao.interval_ns = r.bo.interval_ns;
	r.ao.idle_threshold_ns = r.bo.idle_threshold_ns;
	r.ao.top = r.bo.top;
	first = parse_args(&r, argc, argv, &out_path);
	if (first < 0)
		return EXIT_USAGE;
	r.bo.interval_ns = r.ao.interval_ns;
	r.bo.idle_threshold_ns = r.ao.idle_threshold_ns;
	r.bo.top = r.ao.top;
	r.comms = bt_comm_table_new();
	if (!r.comms) {
		run_release(&r);
		return error("out of memory"), EXIT_SYSTEM;
	}
	for (int i = first; i < argc && ret == EXIT_OK; i++)
		ret = open_input(&r, argv[i]);
	/* the block sinks only for block traces: their pools are 10 MB a capture does not need */
	if (ret == EXIT_OK && r.nin) {
		if (blk_analysis_new(&r.a, &r.bo)) {
			run_release(&r);
			return error("out of memory"), EXIT_SYSTEM;
		}
		blk_analysis_set_comms(r.a, r.comms);
		ret = run_pass(&r);
	}
	if (ret != EXIT_OK)
		goto done;
	warnings = json_array();
	warn_inputs(&r, warnings);
	root = json_object();
	json_object_set_new(root, "tool", json_string("iotape"));
	json_object_set_new(root, "version", json_string(IOTAPE_VERSION));
	json_object_set_new(root, "command", json_string("analyze"));
	json_object_set_new(root, "options",
	                    json_pack("{sIsIsI}", "interval_ns", (json_int_t)r.ao.interval_ns,
	                              "idle_threshold_ns", (json_int_t)r.ao.idle_threshold_ns,
	                              "top", (json_int_t)r.ao.top));
	if (r.nin) {
		json_object_set_new(root, "input", input_json(&r, warnings));
		warnings = NULL;
		/* the timelines are streamed by write_document(), the text does not show them */
		if (blk_analysis_to_json(r.a, root, 0)) {
			ret = (error("out of memory"), EXIT_SYSTEM);
			goto done;
		}
	}
	if (out_path && !(out = fopen(out_path, "w"))) {
		int err = errno;

		ret = (error("'%s': %s", out_path, strerror(err)), exit_code_for(-err));
		out = stdout;
		goto done;
	}
	if (r.nin && !r.ao.json)
		text_summary(out, root);
	if (r.ncap && ret == EXIT_OK) {
		/* all packet captures together, merged by time, as the block traces are */
		ret = analyze_captures(r.captures, r.ncap, &r.ao, root, r.ao.json ? NULL : out,
		                       &r.stop);
		r.stopped |= r.stop.msg[0] != 0;
		for (unsigned i = 0; i < r.ncap; i++)
			r.captures[i] = NULL; /* taken */
	}
	if (ret == EXIT_OK && r.ao.json && write_document(out, root, r.a))
		ret = (error("writing the JSON document failed"), EXIT_SYSTEM);
	if (fflush(out) == EOF)
		ret = (error("write error: %s", strerror(errno)), EXIT_SYSTEM);
	if (ret == EXIT_OK && r.stopped)
		ret = (error("%s", r.stop.msg), EXIT_USAGE); /* after the partial results */
done:
	if (out != stdout && fclose(out) == EOF && ret == EXIT_OK)
		ret = (error("'%s': %s", out_path, strerror(errno)), EXIT_SYSTEM);
	json_decref(root);
	json_decref(warnings);
	run_release(&r);
	return ret;
}
