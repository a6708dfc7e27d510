/* SPDX-License-Identifier: MIT */
/* iotape analyze: one streaming pass over block traces (and packet captures), text or JSON. */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h> /* optarg, optind */
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonint.h"
#include "common/units.h"
#include "analyze/blk_latency.h"
#include "analyze/blk_analysis.h"
#include "analyze/blk_doc.h"
#include "analyze/blk_text.h"
#include "analyze/idle_explain.h"
#include "analyze/nfs_ends.h"
#include "capture/hosts.h"
#include "analyze/run_set_load.h"
#include "analyze/run_summaries.h"
#include "analyze/run_summary.h"
#include "cli/analyze.h"
#include "cli/inputs.h"
#include "cli/runs.h"
#include "common/fs.h"
#include "common/textesc.h"
#include "formats/blktrace.h"
#include "formats/manifest.h"
#include "formats/outcheck.h"
#include "iotape_version.h"
#include "sweep/sweep.h"

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
    {.name = "by",
     .key = 'b',
     .arg = "KEY",
     .values = "cgroup",
     .help = "also split the block figures by KEY: cgroup (the cgroup whose IO each record "
             "is, which the bpf capture backend records; paths from the manifest)"},
    {.name = "hosts",
     .key = 'H',
     .help = "each INPUT is the run directory of another host, captured at the same time: "
             "analyze them on one clock (the first's trace clock) through their manifests' "
             "realtime clock pairs, each device with its host, so that a gap on one host is "
             "explained by the others' devices and traffic (docs/diagnose-idle.md); at most "
             "256 hosts, as a run set"},
    {0},
};

const struct cli_doc doc_analyze = {
    .summary = "analyze block traces, packet captures or run directories",
    .synopsis = "[--json] [--interval DUR] [--idle-threshold DUR] [--top N] [--by cgroup] "
                "[--hosts] [-o FILE] INPUT...",
    .description =
        "One streaming pass over block traces (and packet captures): per device counts and "
        "bytes per action, Q2D/D2C/Q2C latency (matched through merges as btt does), queue "
        "depth, idle gaps, seeks and a timeline. Prints a summary, or a JSON document with "
        "--json (schema: docs/json.md; definitions: docs/analyze.md).\n"
        "\n"
        "Each of the longest idle gaps is explained: what the other devices, the network "
        "(every packet of the run's capture) and the NFS server did during it, the IOs that "
        "began and ended it, whether it recurs at a steady period, and a cause from a small "
        "set of rules with the numbers behind it (docs/diagnose-idle.md).\n"
        "\n"
        "For NFS captures: response times per procedure (p50 to p99.9, histograms in JSON), "
        "clients per connection, AUTH_SYS uid and machine, files by name, the slowest calls, "
        "per-procedure series, retransmissions and capture gaps (docs/nfs.md). In a run set "
        "whose hosts captured an NFS client and its server, each call seen from both ends, "
        "its time split into the server's and the rest (network, client side).\n"
        "\n"
        "INPUT is a run directory, a run set (capture --host: its hosts' runs as with "
        "--hosts, each put on the capturing host's clock through the offset measured then; "
        "a set captured at --detail summary: each host's summary, on that clock), "
        "a per-CPU set NAME (NAME.blktrace.0, .1, ...), a single "
        "blktrace file (e.g. blkparse -d output), a fio iolog (its IOs as issue events), '-' "
        "for stdin, or a pcap/pcapng capture. "
        "Several inputs are merged by time. Inputs may be gzip- or zstd-compressed, FIFOs or "
        "<(process substitution): each is read once, its kind sniffed from its first bytes.",
    .opts = analyze_opts,
    .operands = CLI_INPUT,
    .exit_status = "0 success, 2 usage or input error (bad magic, unsupported version, "
                   "truncated record, empty set), 3 system error",
    .docs = "analyze.md json.md nfs.md diagnose-idle.md ceph.md",
    .see_also = "blkparse(1) btt(1) tshark(1)",
};

struct input {
	const char *path;
	struct bt_reader *r;
	/* --hosts: each input is a host with its own pass, manifest and capture */
	struct manifest man;
	int have_man;
	struct in_stream *capture;
	char *host;
	int64_t real_off_ns; /* a run set's measured clock offset (struct ie_clock) */
};

struct run {
	struct analyze_opts ao;
	struct blk_opts bo;
	struct input *in;
	unsigned nin;
	struct in_stream **captures;
	unsigned ncap;
	/* the pass, its gaps explained, its document (analyze/run_summary.h) */
	struct run_summary s;
	struct run_host *rh; /* --hosts: the hosts s reads */
	struct manifest man; /* the first run directory's: its clock pairs */
	int have_man;
	struct iot_err stop; /* bad bytes ended the pass: what was read before them is reported */
	int stopped;
	int hosts;                      /* --hosts */
	char *summary;                  /* a summary run's summary.json (taken from its input) */
	int interval_given, idle_given; /* --interval, --idle-threshold (a summary's are its own) */
	int by_cgroup;                  /* --by cgroup */
	json_t *detail;        /* the first run's manifest "detail": what its level lacks */
	struct runset set;     /* INPUT was a run set (capture --host): its hosts */
	bool summaries;        /* every host of the run set a summary run: no pass, their figures */
	struct nfs_ends *ends; /* a run set's NFS calls seen from both ends */
};

/*
 * The pass's end. Bad bytes (an input error) end it with partial results: the sinks keep what
 * came before them, the output says so, and the command exits 2 with the error last. Anything
 * else (out of memory, a read error) ends the command here.
 */
static int pass_end(struct run *r, const struct iot_err *e, int ret)
{
	if (!ret)
		return EXIT_OK;
	if (!r->s.passed || exit_code_for(ret) != EXIT_USAGE)
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

/* Host i of l, opened, taken into r as an input of its own. 0 or -ENOMEM. */
static int take_host(struct run *r, struct run_set_load *l, unsigned i)
{
	struct run_set_host *h = &l->h[i];
	struct input *in = realloc(r->in, (r->nin + 1) * sizeof(*in));

	if (!in)
		return -ENOMEM;
	r->in = in;
	in = &r->in[r->nin++];
	memset(in, 0, sizeof(*in));
	in->path = h->host.path;
	in->r = h->host.rd;
	h->host.rd = NULL;
	in->capture = l->capture[i];
	l->capture[i] = NULL;
	in->man = l->man[i]; /* taken: l releases it no more */
	h->host.m = NULL;
	in->have_man = 1;
	in->real_off_ns = h->host.real_off_ns;
	return (in->host = strdup(h->host.name)) ? 0 : -ENOMEM;
}

/* Warnings a library handed back, printed and let go. */
static void print_warnings(json_t *warnings)
{
	json_t *w;
	size_t k;

	json_array_foreach(warnings, k, w)
	{
		warning("%s", json_string_value(w));
	}
	json_decref(warnings);
}

/* What run_set_open() refused, as analyze says it. An exit code. */
static int open_error(const struct run_set_load *l, const struct run_summaries_host *hs,
                      const struct iot_err *e, int ret)
{
	if (ret == RUN_SET_APART)
		return usage_error("--hosts: %s", e->msg);
	if (ret == RUN_SET_BAD_MANIFEST)
		return error("%s", e->msg), EXIT_USAGE;
	if (ret == -EINVAL && l->n && sweep_is_dir(hs[l->n - 1].path))
		return error("'%s' is a sweep: 'iotape compare' and 'iotape report' read it whole; "
		             "other commands take one of its runs (NAME=VALUE/.../rep-K)",
		             hs[l->n - 1].path),
		       EXIT_USAGE;
	return input_error(e, ret);
}

/*
 * --hosts, or a run set of several hosts: hs[0..n-1] opened by run_set_open() as report and
 * compare open a set's hosts (analyze/run_set_load.h: a run directory with a block trace or
 * packets alone, a manifest with clock pairs; the host's name from the set, else its manifest),
 * each taken as an input with its own pass, manifest and capture. What cannot be put on one
 * clock is refused here. With ends (a run set), its NFS calls seen from both ends into r->ends
 * (run_set_ends(): its warnings said first). An exit code after printing any error.
 */
static int open_hosts(struct run *r, const struct run_summaries_host *hs, unsigned n, bool ends)
{
	json_t *warnings = json_array(), *ends_warnings = json_array();
	struct run_set_load l;
	struct iot_err e;
	int ret;

	if (!warnings || !ends_warnings) {
		json_decref(warnings);
		json_decref(ends_warnings);
		return error("out of memory"), EXIT_SYSTEM;
	}
	ret = run_set_open(&l, hs, n, &r->bo, warnings, &e);
	if (!ret && ends)
		ret = run_set_ends(&l, hs, &r->ends, ends_warnings, &e);
	print_warnings(ends_warnings);
	print_warnings(warnings);
	if (ret) /* run_set_ends()'s -E2BIG too: EXIT_USAGE */
		ret = open_error(&l, hs, &e, ret);
	for (unsigned i = 0; i < l.n && !ret; i++)
		if (take_host(r, &l, i))
			ret = (error("out of memory"), EXIT_SYSTEM);
	run_set_load_release(&l);
	return ret;
}

/* --hosts INPUT...: each a host named by its manifest (open_hosts()). An exit code. */
static int open_hosts_args(struct run *r, const char *const *paths, unsigned n)
{
	struct run_summaries_host *hs = calloc(n, sizeof(*hs));
	int ret;

	if (!hs)
		return error("out of memory"), EXIT_SYSTEM;
	for (unsigned i = 0; i < n; i++)
		hs[i].path = paths[i];
	ret = open_hosts(r, hs, n, false);
	free(hs);
	return ret;
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
	/* the clock pairs that put packets on the trace clock: one host, one clock */
	if (ci.manifest && !r->have_man && !manifest_load(ci.manifest, &r->man, NULL))
		r->have_man = 1;
	if (ci.summary) {
		if (r->summary || r->nin || r->ncap || ci.capture) {
			cli_input_release(&ci);
			return usage_error(
			    "'%s' is a summary run (bpf --detail summary): analyze it "
			    "alone",
			    path);
		}
		r->summary = ci.summary;
		ci.summary = NULL;
	}
	if (ci.block && r->summary) {
		cli_input_release(&ci);
		return usage_error("a summary run (bpf --detail summary) is analyzed alone, not "
		                   "with '%s'",
		                   path);
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

/* Warnings about the input, on stderr and (for the JSON document) in list. */
static void warn_inputs(const struct run *r, json_t *list)
{
	struct iot_err kept = {""}; /* r->stop is printed last by the caller */

	if (r->stopped)
		partial_results("block trace", &r->stop, &kept, list);
	for (unsigned i = 0; i < r->nin; i++)
		if (r->in[i].r) /* a packets-only host has none */
			warn_block_input(r->in[i].r, list);
	if (r->s.blk)
		warn_dropped_devices(NULL, blk_analysis_dropped(r->s.blk), list);
	if (r->hosts && r->s.x) {
		char why[512];

		if (!idle_explain_hosts_together(r->s.x, why, sizeof(why))) {
			warning("%s", why);
			json_array_append_new(list, json_string(why));
		}
	}
}

/* The document's "input": the traces, what the pass read, its warnings (taken). NULL: out of
 * memory. */
static json_t *input_json(const struct run *r, json_t *warnings)
{
	struct bt_reader **rd = calloc(r->nin, sizeof(*rd));
	const char **paths = calloc(r->nin, sizeof(*paths));
	json_t *o = NULL;

	for (unsigned i = 0; rd && paths && i < r->nin; i++) {
		rd[i] = r->in[i].r;
		paths[i] = r->in[i].path;
	}
	if (rd && paths)
		o = run_summary_input_json(&r->s, rd, paths, r->nin,
		                           r->stopped ? r->stop.msg : NULL, warnings);
	else
		json_decref(warnings);
	free(rd);
	free(paths);
	return o;
}

/* ------------------------------------------------------------------------------------- */

static void run_release(struct run *r)
{
	for (unsigned i = 0; i < r->nin; i++) {
		bt_reader_free(r->in[i].r);
		if (r->in[i].have_man)
			manifest_release(&r->in[i].man);
		if (r->in[i].capture)
			in_stream_close(r->in[i].capture);
		free(r->in[i].host);
	}
	free(r->in);
	free(r->rh);
	for (unsigned i = 0; i < r->ncap; i++)
		in_stream_close(r->captures[i]);
	free(r->captures);
	free(r->summary);
	run_summary_release(&r->s);
	if (r->have_man)
		manifest_release(&r->man);
	runset_release(&r->set);
	nfs_ends_free(r->ends);
}

/* A run set's hosts sh (run_set_hosts()): summaries' figures, or its runs opened (one
 * alone as any INPUT, several as --hosts). An exit code after printing any error. */
static int open_runset_hosts(struct run *r, const char *path, const struct run_summaries_host *sh)
{
	/* captured at --detail summary on every host (analyze each host where it ran, bring back
	 * kilobytes): their figures, on one clock, without a pass or a host limit */
	int ret = run_summaries_detect(sh, r->set.n);

	if (ret < 0)
		return usage_error("'%s': some hosts' runs are summaries (--detail summary), the "
		                   "others' records: analyze them apart",
		                   path);
	if (ret && r->by_cgroup)
		return usage_error("--by cgroup: a summary run holds no figures per cgroup");
	if ((r->summaries = ret))
		return EXIT_OK;
	if (r->by_cgroup && r->set.n > 1)
		return usage_error("--by cgroup and a run set of several hosts do not go together "
		                   "(yet)");
	if (r->set.n == 1)
		return open_input(r, r->set.h[0].run);
	r->hosts = 1;
	return open_hosts(r, sh, r->set.n, true);
}

/*
 * INPUT is a run set (capture --host): its hosts' runs, as --hosts would take them, each
 * named as in the set and put on the capturing host's clock through the offset measured
 * then. -ENOENT when it is not one.
 */
static int open_runset(struct run *r, const char *path)
{
	struct run_summaries_host *sh;
	/* its failed hosts named with their reasons, as report, compare and movie name them */
	int ret = cli_runset_open(path, &r->set);

	if (ret)
		return ret; /* -ENOENT: no run set; else an exit code, the error printed */
	if (!(sh = run_set_hosts(&r->set)))
		return error("out of memory"), EXIT_SYSTEM;
	ret = open_runset_hosts(r, path, sh);
	free(sh);
	return ret;
}

/* One host (or several inputs merged into one pass): the pass, its gaps explained. */
static int block_pass(struct run *r)
{
	struct bt_reader **rd = calloc(r->nin, sizeof(*rd));
	struct iot_err e;
	int ret;

	if (!rd)
		return error("out of memory"), EXIT_SYSTEM;
	for (unsigned i = 0; i < r->nin; i++)
		rd[i] = r->in[i].r;
	r->s.ident = r->have_man ? &r->man : NULL;
	r->s.by_cgroup = r->by_cgroup;
	ret = run_summary_pass(&r->s, rd, r->nin, NULL, NULL, &e);
	free(rd);
	return pass_end(r, &e, ret);
}

/* --hosts: a pass per host, all fed in the order of one clock (analyze/idle_hosts.c). */
static int hosts_pass(struct run *r)
{
	struct iot_err e;
	unsigned bad;

	if (!(r->rh = calloc(r->nin, sizeof(*r->rh))))
		return error("out of memory"), EXIT_SYSTEM;
	for (unsigned i = 0; i < r->nin; i++) {
		const struct input *in = &r->in[i];

		r->rh[i] = (struct run_host){in->r, &in->man, in->host, in->path, in->real_off_ns};
	}
	return pass_end(r, &e, run_summary_hosts(&r->s, r->rh, r->nin, NULL, NULL, &e, &bad));
}

/* --hosts: each host's capture on its own (its NFS statistics in its "hosts" entry), laid
 * over every host's gaps. An exit code. */
static int hosts_captures(struct run *r, json_t *root, FILE *text)
{
	json_t *hosts = json_object_get(root, "hosts");
	int ret = EXIT_OK;

	for (unsigned i = 0; i < r->nin && ret == EXIT_OK; i++) {
		struct in_stream *c = r->in[i].capture;

		if (!c)
			continue;
		r->in[i].capture = NULL; /* taken */
		if (text)
			fprintf(text, "\nhost %s: ", r->in[i].host);
		ret = analyze_captures(&c, 1, &r->s, i, json_array_get(hosts, i), text, &r->stop);
		r->stopped |= r->stop.msg[0] != 0;
	}
	for (unsigned i = 0; i < r->nin && ret == EXIT_OK; i++)
		if (idle_explain_json(r->s.x, i, json_object_get(root, "devices")))
			ret = (error("out of memory"), EXIT_SYSTEM);
	return ret;
}

/* A summary run: its figures into root as the sinks would write them, read where every command
 * reads them (analyze/run_summary.h), and kept in r->s for the text. */
static int summary_doc(struct run *r, json_t *root)
{
	struct run_summary *s = &r->s;
	struct iot_err e;
	uint64_t w = 0;
	char a[32], b[32];
	int ret;

	s->want_interval_ns = r->interval_given ? r->bo.interval_ns : 0;
	s->want_idle_ns = r->idle_given ? r->bo.idle_threshold_ns : 0;
	ret = run_summary_file(s, r->summary, &e);
	if (!ret && json_object_update(root, s->doc))
		ret = iot_err_set(&e, -ENOMEM, "out of memory");
	if (ret)
		return error("%s", e.msg), exit_code_for(ret);
	json_u64_member(json_object_get(root, "timeline"), "interval_ns", &w);
	/* coarser bins are the summary's merged, when they divide: else they are kept */
	if (r->interval_given && w != r->bo.interval_ns)
		warning("'%s': --interval %s is no multiple of the summary run's %s bins: its bins "
		        "are kept",
		        r->summary, iot_fmt_dur((double)r->bo.interval_ns, a, sizeof(a)),
		        iot_fmt_dur((double)w, b, sizeof(b)));
	return EXIT_OK;
}

/* The text summary of root, each device's figures from its pass or summary run in s. A figure the
 * text reads but the document lacks is a bug of iotape (a renamed key): an error, never a silent 0.
 * An exit code. */
static int print_text(FILE *out, const json_t *root, const struct run_summary *s)
{
	struct iot_err e;

	if (blk_text_summary(out, root, s, &e))
		return error("internal error: %s", e.msg), EXIT_SYSTEM;
	return EXIT_OK;
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
			r->interval_given = 1;
			break;
		case 't':
			if (parse_duration_ns("--idle-threshold", optarg, &v))
				return -1;
			r->ao.idle_threshold_ns = v;
			r->idle_given = 1;
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
		case 'H':
			r->hosts = 1;
			break;
		case 'b':
			if (strcmp(optarg, "cgroup"))
				return bad_value('b', optarg), -1;
			r->by_cgroup = 1;
			break;
		default:
			return bad_option(argv), -1;
		}
	}
	if (optind >= argc)
		return usage_error("no input"), -1;
	if (r->hosts && r->by_cgroup)
		return usage_error("--by cgroup and --hosts do not go together (yet)"), -1;
	if (r->hosts && argc - optind < 2)
		return usage_error("--hosts: give the run directories of two hosts or more"), -1;
	/* as many as a run set holds (the explanation itself has no limit; each host is an open
	 * trace and capture) */
	if (r->hosts && argc - optind > (int)CAPH_MAX_HOSTS)
		return usage_error("--hosts: at most %u hosts (as a run set)", CAPH_MAX_HOSTS), -1;
	return optind;
}

/* Options, the output checked against the inputs, the inputs opened, the pass run. An exit
 * code after printing any error. */
static int read_inputs(struct run *r, int argc, char **argv, const char **out_path)
{
	struct iot_err e;
	int first, err, ret = EXIT_OK;

	blk_opts_init(&r->bo);
	r->ao.interval_ns = r->bo.interval_ns;
	r->ao.idle_threshold_ns = r->bo.idle_threshold_ns;
	r->ao.top = r->bo.top;
	first = parse_args(r, argc, argv, out_path);
	if (first < 0)
		return EXIT_USAGE;
	{
		const struct out_spec o = {*out_path, OUT_FILE, "-o"};

		if ((err = out_check((const char *const *)argv + first, (size_t)(argc - first),
		                     NULL, 0, &o, 1, &e)))
			return error("%s", e.msg), exit_code_for(err);
	}
	r->bo.interval_ns = r->ao.interval_ns;
	r->bo.idle_threshold_ns = r->ao.idle_threshold_ns;
	r->bo.top = r->ao.top;
	if (run_summary_init(&r->s, &r->bo))
		return error("out of memory"), EXIT_SYSTEM;
	/* a run set alone: its hosts' runs (--hosts implied) */
	if (argc - first == 1 && !r->hosts && (ret = open_runset(r, argv[first])) != -ENOENT)
		first = argc;
	else
		ret = EXIT_OK;
	if (ret == EXIT_OK && r->hosts && first < argc)
		ret =
		    open_hosts_args(r, (const char *const *)argv + first, (unsigned)(argc - first));
	for (int i = first; i < argc && ret == EXIT_OK && !r->hosts; i++)
		ret = open_input(r, argv[i]);
	/* the block sinks only for block traces: their pools are 10 MB a capture does not need */
	if (ret == EXIT_OK && r->nin)
		ret = r->hosts ? hosts_pass(r) : block_pass(r);
	return ret;
}

/* A run set of summary runs' document into root (analyze/run_summaries.h), its warnings
 * printed. An exit code. */
static int summaries_doc(struct run *r, json_t *root)
{
	struct run_summaries_host *h = run_set_hosts(&r->set);
	json_t *warnings = json_array(), *w;
	struct iot_err e;
	size_t i;
	int ret;

	if (!h || !warnings) {
		free(h);
		json_decref(warnings);
		return error("out of memory"), EXIT_SYSTEM;
	}
	/* the devices' figures kept in r->s for the text */
	ret = run_summaries_read(h, r->set.n, &r->bo, r->interval_given ? r->bo.interval_ns : 0,
	                         r->idle_given ? r->bo.idle_threshold_ns : 0, root, &r->s.figs,
	                         &r->s.nfigs, warnings, &e);
	json_array_foreach(warnings, i, w)
	{
		warning("%s", json_string_value(w));
	}
	json_decref(warnings);
	free(h);
	return ret ? (error("%s", e.msg), exit_code_for(ret)) : EXIT_OK;
}

/* The document into *root: the options, what the capture's level of detail could not record,
 * then a summary run's figures, or the input and the passes' devices (the timelines are
 * streamed by blk_doc_write(), the text does not show them). An exit code. */
static int document(struct run *r, json_t **rootp)
{
	json_t *warnings = json_array(), *root = json_object();

	*rootp = root;
	warn_inputs(r, warnings);
	json_object_set_new(root, "tool", json_string("iotape"));
	json_object_set_new(root, "version", json_string(IOTAPE_VERSION));
	json_object_set_new(root, "command", json_string("analyze"));
	json_object_set_new(root, "options",
	                    json_pack("{sIsIsI}", "interval_ns", (json_int_t)r->ao.interval_ns,
	                              "idle_threshold_ns", (json_int_t)r->ao.idle_threshold_ns,
	                              "top", (json_int_t)r->ao.top));
	/* what the capture's level of detail could not record (docs/capture.md) */
	if (r->have_man && json_is_object(json_object_get(r->man.root, "detail")))
		json_object_set(root, "detail", json_object_get(r->man.root, "detail"));
	if (r->summaries)
		return json_decref(warnings), summaries_doc(r, root);
	if (r->summary || !r->nin) {
		json_decref(warnings);
		return r->summary ? summary_doc(r, root) : EXIT_OK;
	}
	if (json_object_set_new(root, "input", input_json(r, warnings)) ||
	    run_summary_json(&r->s, root))
		return error("out of memory"), EXIT_SYSTEM;
	return EXIT_OK;
}

/*
 * The packet captures (their text after the block devices', whose gaps they help explain),
 * then the text summary or the JSON document, into out. An exit code.
 */
static int emit(struct run *r, json_t *root, FILE *out)
{
	FILE *captext = NULL;
	char *capbuf = NULL;
	size_t caplen = 0;
	int ret = EXIT_OK;

	if (r->summary || r->summaries) {
		if (!r->ao.json)
			return print_text(out, root, &r->s);
		if (json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ||
		    fputc('\n', out) == EOF)
			return error("writing the document failed"), EXIT_SYSTEM;
		return EXIT_OK;
	}
	if ((r->ncap || r->hosts) && !r->ao.json && r->nin &&
	    !(captext = open_memstream(&capbuf, &caplen)))
		return error("out of memory"), EXIT_SYSTEM;
	if (r->ncap) {
		/* all packet captures together, merged by time, as the block traces are */
		ret = analyze_captures(r->captures, r->ncap, &r->s, 0, root,
		                       r->ao.json ? NULL
		                       : captext  ? captext
		                                  : out,
		                       &r->stop);
		r->stopped |= r->stop.msg[0] != 0;
		for (unsigned i = 0; i < r->ncap; i++)
			r->captures[i] = NULL; /* taken */
		if (ret == EXIT_OK && r->s.x &&
		    idle_explain_json(r->s.x, 0, json_object_get(root, "devices")))
			ret = (error("out of memory"), EXIT_SYSTEM);
	}
	if (r->hosts && ret == EXIT_OK)
		ret = hosts_captures(r, root, captext);
	if (captext && fclose(captext))
		ret = (error("out of memory"), EXIT_SYSTEM);
	if (r->nin && !r->ao.json && ret == EXIT_OK)
		ret = print_text(out, root, &r->s);
	if (capbuf && ret == EXIT_OK)
		fwrite(capbuf, 1, caplen, out);
	free(capbuf);
	if (ret == EXIT_OK && r->ends) {
		json_t *ends = nfs_ends_json(r->ends);

		if (!ends)
			ret = (error("out of memory"), EXIT_SYSTEM);
		json_object_set_new(root, "nfs_ends", ends);
		if (!r->ao.json)
			nfs_ends_text(out, r->ends);
	}
	if (ret == EXIT_OK && r->ao.json && blk_doc_write(out, root, r->s.refs))
		ret = (error("writing the JSON document failed"), EXIT_SYSTEM);
	return ret;
}

int cmd_analyze(int argc, char **argv)
{
	struct run r;
	const char *out_path = NULL;
	json_t *root = NULL;
	FILE *out = stdout;
	struct iot_outfile of;
	struct iot_err e;
	int err, ret;

	memset(&r, 0, sizeof(r));
	ret = read_inputs(&r, argc, argv, &out_path);
	if (ret == EXIT_OK)
		ret = document(&r, &root);
	/* written beside the target and renamed: a failure never leaves half a document */
	if (ret == EXIT_OK && out_path && (err = iot_outfile_open(&of, out_path, 0, &e)))
		ret = (error("%s", e.msg), exit_code_for(err));
	else if (ret == EXIT_OK && out_path && !(out = iot_outfile_stream(&of))) {
		iot_outfile_abort(&of);
		out = stdout;
		ret = (error("out of memory"), EXIT_SYSTEM);
	}
	if (ret == EXIT_OK) {
		ret = emit(&r, root, out);
		if (out == stdout && fflush(out) == EOF)
			ret = (error("write error: %s", strerror(errno)), EXIT_SYSTEM);
	}
	if (out != stdout && ret != EXIT_OK)
		iot_outfile_abort(&of);
	else if (out != stdout && (err = iot_outfile_commit(&of, &e)))
		ret = (error("%s", e.msg), EXIT_SYSTEM);
	if (ret == EXIT_OK && r.stopped)
		ret = (error("%s", r.stop.msg), EXIT_USAGE); /* after the partial results */
	json_decref(root);
	run_release(&r);
	return ret;
}
