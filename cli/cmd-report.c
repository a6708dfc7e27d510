/* SPDX-License-Identifier: MIT */
/* iotape report: one self-contained HTML file with graphs and tables of one or more runs. */
#include "cli/cli.h"
#include "cli/runs.h"

#include <errno.h>
#include <getopt.h> /* optarg, optind */
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/blk_sink.h"
#include "formats/runset.h"
#include "common/fs.h"
#include "compare/compare.h"
#include "report/report_axis.h"
#include "report/report_html.h"
#include "report/report_run.h"
#include "report/sweep_page.h"
#include "sweep/runs.h"
#include "cli/inputs.h"
#include "formats/blktrace.h"
#include "formats/manifest.h"
#include "formats/outcheck.h"
#include "formats/instream.h"
#include "formats/pcap_src.h"
#include "iotape_version.h"

static const struct cli_opt report_opts[] = {
    {.name = "output",
     .short_name = 'o',
     .arg = "FILE",
     .kind = CLI_FILE,
     .help = "the HTML file to write (required)"},
    {.name = "svg",
     .key = 's',
     .arg = "DIR",
     .kind = CLI_DIR,
     .help = "also write every graph as DIR/NAME.svg"},
    {.name = "interval",
     .key = 'i',
     .arg = "DUR",
     .help = "plotted interval (default: about 600 points over the longest run; never one in "
             "which a device averaged fewer than 8 IOs)"},
    {.name = "idle-threshold",
     .key = 'I',
     .arg = "DUR",
     .help = "shortest idle gap that is shaded and counted (default " BLK_DEFAULT_IDLE_TEXT ")"},
    {.name = "idle", .key = 'I', .arg = "DUR", .help = "the same as --idle-threshold"},
    {.name = "label",
     .key = 'l',
     .arg = "L",
     .help = "legend name of the next run, in order (default: the manifest or name)"},
    {.name = "baseline",
     .key = 'b',
     .arg = "L",
     .help = "baseline group of the comparison table (a sweep: NAME=V too)"},
    {.name = "title", .key = 't', .arg = "TEXT", .help = "page title"},
    {.name = "rows",
     .key = 'r',
     .arg = "KEYS",
     .help = "the keys of the rows (e.g. --rows distro --cols filesystem)",
     .group = "the comparison's layout, metrics and gates, as for 'iotape compare'"},
    {.name = "cols", .key = 'c', .arg = "KEYS", .help = "the keys of the columns"},
    {.name = "tables",
     .key = 'T',
     .arg = "KEYS",
     .help = "one table per value of KEY (e.g. a manifest label 'bs')"},
    {.name = "metrics",
     .key = 'M',
     .arg = "LIST",
     .help = "show only these metrics (e.g. mbps,wall_s)"},
    {.name = "fail-if",
     .key = 'f',
     .arg = "RULE",
     .help = "METRIC<VALUE, METRIC>=VALUE or a change like 'mbps<-10%': a group that crosses "
             "it fails its cell and makes the exit status 1 (repeatable)"},
    {0},
};

const struct cli_doc doc_report = {
    .summary = "HTML report with graphs of one or more runs",
    .synopsis = "RUN... -o REPORT.html [--svg DIR] [--interval DUR] [--idle-threshold DUR] "
                "[--label L]... [--baseline LABEL] [--title TEXT] "
                "[--rows KEY,... --cols KEY,... [--tables KEY,...]] [--metrics LIST] "
                "[--fail-if RULE]...\n"
                "SWEEPDIR -o REPORT.html [--svg DIR] "
                "[--rows KEY,... --cols KEY,... [--tables KEY,...]] [--baseline NAME=V] [--fail-if "
                "RULE]... [--metrics LIST] [--title TEXT]",
    .description =
        "One self-contained HTML file (inline SVG, no network, no scripts): the runs' "
        "manifests, summary tables and, per device, sector offset over time, MiB/s, IOPS, "
        "seeks/s, queue depth and D2C latency p50/p99 per interval, idle gaps shaded. Several "
        "runs share the axes (one colour per run) and get a comparison table as 'iotape "
        "compare' makes it, laid out by --rows, --cols, --tables, --metrics and --fail-if. RUN "
        "is a run directory, a per-CPU set NAME, a trace file or a packet capture; a summary run "
        "(capture --detail summary) shows the figures it holds (bins, latency histogram, idle "
        "gaps, seeks) and says it has no per-IO points. A run set "
        "('iotape capture --host', given alone) is a run per host on one time axis (each "
        "host's clock offset from runset.json applied, as 'iotape analyze' does, and its gaps "
        "explained by the other hosts too), its devices keyed HOST:KEY; the hosts that failed "
        "are named with their reason.\n"
        "\n"
        "For a sweep ('iotape sweep'): its definition, failed runs, the tables 'iotape compare "
        "SWEEPDIR' makes with the same options, and a graph per metric against each parameter "
        "whose values are numbers (log axis for sizes), one line per value of the others, with "
        "the 95% confidence interval of each cell's mean as error bars.",
    .opts = report_opts,
    .operands = CLI_INPUT,
    .exit_status = "0 success, 1 a group crossed a --fail-if rule, 2 usage or input error, "
                   "3 system error",
    .docs = "report.md sweep.md",
};

static int feed_block(void *ctx, struct bt_reader *rd, const struct manifest *m, struct iot_err *e)
{
	return report_run_block(ctx, rd, m, e);
}

static int feed_packets(void *ctx, struct pcap_src *src, const struct manifest *clock,
                        struct iot_err *e)
{
	return report_run_packets(ctx, src, clock, e);
}

/* iotape report SWEEPDIR: the page built by the report library, written beside the target and
 * renamed. An exit code after printing any error. */
static int report_sweep(const char *dir, const char *outpath, const struct sweep_page_opts *o,
                        uint64_t idle_ns)
{
	struct sweep_runs s;
	struct sweep_page p;
	struct iot_err e = {""}, stop = {""};
	int ret;

	if ((ret = load_sweep(&s, dir, idle_ns, &stop))) {
		sweep_runs_release(&s);
		return ret;
	}
	if ((ret = sweep_page_build(&p, &s, o, &e)))
		ret = p.bad_opts ? usage_error("%s", e.msg)
		                 : (error("%s", e.msg), exit_code_for(ret));
	else if ((ret = sweep_page_write(&p, outpath, &e)))
		ret = (error("%s", e.msg), exit_code_for(ret));
	/* partial results were written: the bad bytes that cut them short come last */
	else
		ret = stop.msg[0]       ? (error("%s", stop.msg), EXIT_USAGE)
		      : p.table.nfailed ? EXIT_THRESHOLD
		                        : EXIT_OK;
	sweep_page_release(&p);
	sweep_runs_release(&s);
	return ret;
}

static int feed_summary(void *ctx, const char *path, struct iot_err *e)
{
	return report_run_summary(ctx, path, e);
}

/* A host report_runset_axis() cannot place: said, by its name. */
static void unplaced(void *ctx, size_t i)
{
	const struct runset *rs = ctx;

	warning("host %s: its trace has neither clock pairs nor a TIMESTAMP: its graphs start at "
	        "0 of the set's time axis",
	        rs->h[i].name);
}

/* A run set's hosts on one time axis (report/report_axis.h); the failed hosts, for the report
 * to name. An exit code. */
static int runset_axis(struct report_input *in, struct report_run *runs, size_t n,
                       const struct runset *rs, struct report_fault **faults)
{
	report_runset_axis(in, runs, n, unplaced, (void *)rs);
	if (!rs->nf)
		return EXIT_OK;
	if (!(*faults = calloc(rs->nf, sizeof(**faults))))
		return error("out of memory"), EXIT_SYSTEM;
	for (unsigned i = 0; i < rs->nf; i++)
		(*faults)[i] = (struct report_fault){rs->f[i].name, rs->f[i].reason};
	return EXIT_OK;
}

/* The command line. */
struct report_cli {
	const char *outpath, *title;
	struct svg_dir svg;
	struct compare_opts co;
	unsigned long long interval, idle;
	int idle_given;
	const char **labels;
	char **rules;
	size_t nlabels, nrules;
	struct compare cmp;
};

/* Option opt into k: EXIT_OK, or EXIT_USAGE after the error. */
static int report_opt(struct report_cli *k, int opt, char **argv)
{
	struct iot_err e;

	switch (opt) {
	case 'o':
		k->outpath = optarg;
		break;
	case 's':
		k->svg.dir = optarg;
		break;
	case 'i':
		if (parse_duration_ns("--interval", optarg, &k->interval))
			return EXIT_USAGE;
		if (!k->interval) {
			usage_error("--interval: must be more than zero");
			return EXIT_USAGE;
		}
		break;
	case 'I':
		if (parse_duration_ns("--idle-threshold", optarg, &k->idle))
			return EXIT_USAGE;
		k->idle_given = 1;
		break;
	case 'l':
		k->labels[k->nlabels++] = optarg;
		break;
	case 'b':
		k->co.baseline = optarg;
		break;
	case 't':
		k->title = optarg;
		break;
	case 'r':
		k->co.rows = optarg;
		break;
	case 'c':
		k->co.cols = optarg;
		break;
	case 'T':
		k->co.tables = optarg;
		break;
	case 'M':
		k->co.metrics = optarg;
		break;
	case 'f':
		if (compare_add_rule(&k->cmp, optarg, &e)) {
			usage_error("--fail-if: %s", e.msg);
			return EXIT_USAGE;
		}
		k->rules[k->nrules++] = optarg;
		break;
	default:
		bad_option(argv);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* The page and the --svg directory are none of the inputs; the directory made. An exit code. */
static int check_outputs(const struct report_cli *k, char **paths, size_t n)
{
	const struct out_spec outs[] = {{k->outpath, OUT_FILE, "-o"},
	                                {k->svg.dir, OUT_DIR, "--svg"}};
	struct iot_err e;
	int ret;

	if ((ret = out_check((const char *const *)paths, n, NULL, 0, outs, 2, &e)))
		return error("%s", e.msg), exit_code_for(ret);
	if (k->svg.dir && mkdir(k->svg.dir, 0777) && errno != EEXIST) {
		ret = exit_code_for(-errno);
		error("'%s': %s", k->svg.dir, strerror(errno));
		return ret;
	}
	return EXIT_OK;
}

/* Is one of the n paths a run set? Then it must be alone and unlabelled: its hosts become the
 * runs (rs, ro->runset, *n). EXIT_OK, or an exit code after the error. */
static int open_set(const struct report_cli *k, char **paths, size_t *n, struct runset *rs,
                    struct report_opts *ro)
{
	for (size_t i = 0; i < *n; i++) {
		int ret = cli_runset_open(paths[i], rs);

		if (ret == -ENOENT)
			continue;
		if (ret)
			return ret;
		if (*n > 1)
			return usage_error("'%s' is a run set: report it on its own", paths[i]);
		if (k->nlabels)
			return usage_error(
			    "--label does not apply to a run set: its hosts name its runs");
		ro->runset = paths[i];
		*n = rs->n;
		break;
	}
	return EXIT_OK;
}

static int add_run(struct report_cli *k, struct report_input *in, struct report_run *runs, size_t i,
                   const struct runset *rs);

/* Run i of the report read (run set host i when rs is one), its figures into the comparison.
 * An exit code after printing any error. */
static int load_one(struct report_cli *k, struct report_input *in, struct report_run *runs,
                    size_t i, const char *path, const struct runset *rs, struct iot_err *stop)
{
	struct run_feed feed = {feed_block, feed_packets, &runs[i], feed_summary};
	struct cli_input ci;
	bool set = rs->n > 0;
	int ret;

	in[i].path = path;
	in[i].label = k->nlabels ? k->labels[i] : set ? rs->h[i].name : NULL;
	if (report_run_init(&runs[i], k->interval, k->idle_given ? k->idle : 0))
		return error("out of memory"), EXIT_SYSTEM;
	if (set) {
		/* its clock on the capturing host's, as analyze puts it */
		runs[i].s.real_off_ns = rs->h[i].offset_ns;
		in[i].host = rs->h[i].name;
		in[i].offset_err_ns = rs->h[i].error_ns;
	}
	ret = cli_input_open(&ci, path, 0);
	if (!ret)
		ret = load_run(&ci, &feed, &in[i].manifest, stop);
	cli_input_release(&ci);
	if (ret)
		return ret;
	return add_run(k, in, runs, i, rs);
}

/* Run i, read, into the report's inputs and the comparison. An exit code. */
static int add_run(struct report_cli *k, struct report_input *in, struct report_run *runs, size_t i,
                   const struct runset *rs)
{
	const char *path = in[i].path;
	bool set = rs->n > 0;
	struct iot_err e;

	in[i].blk = runs[i].s.has_block ? runs[i].s.blk : NULL;
	in[i].nfs = runs[i].s.has_nfs ? &runs[i].nfs : NULL;
	in[i].summary = runs[i].s.doc;
	warn_summary_dropped(path, in[i].summary);
	if (set && run_set_key_devices(in[i].summary, rs->h[i].name))
		return error("out of memory"), EXIT_SYSTEM;
	if (compare_add(&k->cmp, path, in[i].summary, in[i].manifest, in[i].label, &e))
		return error("%s", e.msg), EXIT_SYSTEM;
	return EXIT_OK;
}

/* A run set of several hosts, read as 'iotape analyze SET' reads it (each host's gaps explained
 * by every host, cli/runs.h): each host a run of the report. An exit code after printing any
 * error. */
static int load_set(struct report_cli *k, struct report_input *in, struct report_run *runs,
                    const struct runset *rs, struct run_set_load *l, struct iot_err *stop)
{
	struct report_run_set set = {runs, &l->s};
	int ret;

	for (unsigned i = 0; i < rs->n; i++)
		if (report_run_init(&runs[i], k->interval, k->idle_given ? k->idle : 0))
			return error("out of memory"), EXIT_SYSTEM;
	/* every host's pass with the report's options (and sinks), as each run's */
	ret = load_runset(l, rs, &runs[0].s.o, report_run_nfs_interval(&runs[0]),
	                  report_run_set_setup, report_run_set_packets, &set, stop);
	for (unsigned i = 0; i < rs->n && !ret; i++) {
		report_run_adopt(&runs[i], &l->s, i, &l->h[i]);
		in[i].path = rs->h[i].run;
		in[i].label = rs->h[i].name;
		in[i].host = rs->h[i].name;
		in[i].offset_err_ns = rs->h[i].error_ns;
		in[i].manifest = json_incref(l->manifest[i]);
		ret = add_run(k, in, runs, i, rs);
	}
	return ret;
}

/* The n runs of the report (a run set's hosts when rs has them, else paths), set holding a run
 * set's passes. An exit code after printing any error. */
static int load_runs(struct report_cli *k, struct report_input *in, struct report_run *runs,
                     size_t n, char **paths, const struct runset *rs, struct run_set_load *set,
                     struct iot_err *stop)
{
	int ret = rs->n > 1 ? load_set(k, in, runs, rs, set, stop) : RUNSET_APART;

	if (ret != RUNSET_APART)
		return ret;
	/* each host a run of its own (or not a set) */
	for (size_t i = 0; i < n; i++)
		report_run_release(&runs[i]);
	run_set_load_release(set);
	for (size_t i = 0; i < n; i++)
		if ((ret = load_one(k, in, runs, i, rs->n ? rs->h[i].run : paths[i], rs, stop)))
			return ret;
	return EXIT_OK;
}

/* The page, written beside outpath and renamed, so a failed run never leaves half a report. An
 * exit code after printing any error. */
static int write_report(const char *outpath, const struct report_input *in, size_t n,
                        const struct report_opts *ro)
{
	struct iot_outfile of;
	struct iot_err e;
	int ret;

	if ((ret = iot_outfile_open(&of, outpath, 0, &e)) || !iot_outfile_stream(&of)) {
		if (!ret)
			iot_outfile_abort(&of);
		ret = ret ? ret : -ENOMEM;
		error("%s", ret == -ENOMEM ? "out of memory" : e.msg);
		return exit_code_for(ret);
	}
	ret = report_write_html(iot_outfile_stream(&of), in, n, ro, &e);
	if (ret)
		iot_outfile_abort(&of);
	else
		ret = iot_outfile_commit(&of, &e);
	if (ret)
		return error("%s", e.msg), exit_code_for(ret);
	return EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	struct report_cli k = {.idle = BLK_DEFAULT_IDLE_NS};
	struct report_opts ro = {0};
	struct report_input *in = NULL;
	struct report_run *runs = NULL;
	size_t n = 0;
	struct iot_err e, stop = {""};
	struct runset rs = {0};
	struct run_set_load set = {0};
	struct report_fault *faults = NULL;
	int opt, ret = EXIT_OK;

	k.labels = calloc((size_t)argc + 1, sizeof(*k.labels));
	k.rules = calloc((size_t)argc + 1, sizeof(*k.rules));
	if (!k.labels || !k.rules) {
		free(k.labels);
		free(k.rules);
		return error("out of memory"), EXIT_SYSTEM;
	}
	compare_init(&k.cmp);
	optind = 1;
	while ((opt = cli_getopt(argc, argv, &doc_report)) != -1)
		if ((ret = report_opt(&k, opt, argv)))
			goto out;
	if (!k.outpath) {
		ret = usage_error("-o REPORT.html is required");
		goto out;
	}
	if (optind >= argc) {
		ret = usage_error("no runs");
		goto out;
	}
	n = (size_t)(argc - optind);
	if ((ret = check_outputs(&k, argv + optind, n)))
		goto out;
	for (size_t i = 0; n > 1 && i < n; i++) {
		if (sweep_is_dir(argv[optind + (int)i])) {
			ret = usage_error("'%s' is a sweep: report it on its own",
			                  argv[optind + (int)i]);
			goto out;
		}
	}
	if (n == 1 && sweep_is_dir(argv[optind])) {
		struct sweep_page_opts so = {.dir = argv[optind],
		                             .title = k.title,
		                             .version = IOTAPE_VERSION,
		                             .co = k.co,
		                             .rules = k.rules,
		                             .nrules = k.nrules,
		                             .svg_out = k.svg.dir ? write_svg : NULL,
		                             .svg_ctx = &k.svg};

		if (k.nlabels || k.interval)
			ret = usage_error("--label and --interval do not apply to a sweep");
		else
			ret = report_sweep(argv[optind], k.outpath, &so, k.idle);
		goto out;
	}
	/* a run set: its hosts as the runs, on one time axis */
	if ((ret = open_set(&k, argv + optind, &n, &rs, &ro)))
		goto out;
	if (k.nlabels && k.nlabels != n) {
		ret = usage_error("%zu --label for %zu runs: give one per run, in order", k.nlabels,
		                  n);
		goto out;
	}
	in = calloc(n, sizeof(*in));
	runs = calloc(n, sizeof(*runs));
	if (!in || !runs) {
		ret = (error("out of memory"), EXIT_SYSTEM);
		goto out;
	}
	if ((ret = load_runs(&k, in, runs, n, argv + optind, &rs, &set, &stop)))
		goto out;
	if (ro.runset && (ret = runset_axis(in, runs, n, &rs, &faults)))
		goto out;
	ro.faults = faults;
	ro.nfaults = faults ? rs.nf : 0;
	if (n > 1) {
		if ((ret = compare_finish(&k.cmp, &k.co, &e))) {
			ret = usage_error("%s", e.msg);
			goto out;
		}
		ro.cmp = &k.cmp;
	}
	ro.title = k.title;
	ro.version = IOTAPE_VERSION;
	ro.interval_ns = k.interval;
	if (k.svg.dir) {
		ro.svg_out = write_svg;
		ro.svg_ctx = &k.svg;
	}
	if ((ret = write_report(k.outpath, in, n, &ro)))
		goto out;
	/* partial results were written: the bad bytes that cut them short come last */
	ret = stop.msg[0]     ? (error("%s", stop.msg), EXIT_USAGE)
	      : k.cmp.nfailed ? EXIT_THRESHOLD /* --fail-if, as compare says it */
	                      : EXIT_OK;
out:
	for (size_t i = 0; in && runs && i < n; i++) {
		json_decref(in[i].manifest);
		report_run_release(&runs[i]);
	}
	free(in);
	free(runs);
	free(faults);
	run_set_load_release(&set);
	runset_release(&rs);
	free(k.labels);
	free(k.rules);
	compare_release(&k.cmp);
	return ret;
}
