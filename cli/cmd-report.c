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
#include "common/fs.h"
#include "compare/compare.h"
#include "report/report_html.h"
#include "report/report_run.h"
#include "cli/inputs.h"
#include "cli/sweep-runs.h"
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
        "is a run directory, a per-CPU set NAME, a trace file or a packet capture.\n"
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

int cmd_report(int argc, char **argv)
{
	const char *outpath = NULL, *title = NULL;
	struct svg_dir svg = {0};
	struct report_opts ro = {0};
	struct compare_opts co = {0};
	unsigned long long interval = 0, idle = BLK_DEFAULT_IDLE_NS;
	struct report_input *in = NULL;
	struct report_run *runs = NULL;
	const char **labels = calloc((size_t)argc + 1, sizeof(*labels));
	char **rules = calloc((size_t)argc + 1, sizeof(*rules));
	size_t nlabels = 0, n = 0, nrules = 0;
	struct compare cmp;
	struct iot_err e, stop = {""};
	struct iot_outfile of;
	int opt, ret = EXIT_OK;

	if (!labels || !rules) {
		free(labels);
		free(rules);
		return error("out of memory"), EXIT_SYSTEM;
	}
	compare_init(&cmp);
	optind = 1;
	while ((opt = cli_getopt(argc, argv, &doc_report)) != -1) {
		switch (opt) {
		case 'o':
			outpath = optarg;
			break;
		case 's':
			svg.dir = optarg;
			break;
		case 'i':
			if (parse_duration_ns("--interval", optarg, &interval))
				goto usage;
			if (!interval) {
				usage_error("--interval: must be more than zero");
				goto usage;
			}
			break;
		case 'I':
			if (parse_duration_ns("--idle-threshold", optarg, &idle))
				goto usage;
			break;
		case 'l':
			labels[nlabels++] = optarg;
			break;
		case 'b':
			co.baseline = optarg;
			break;
		case 't':
			title = optarg;
			break;
		case 'r':
			co.rows = optarg;
			break;
		case 'c':
			co.cols = optarg;
			break;
		case 'T':
			co.tables = optarg;
			break;
		case 'M':
			co.metrics = optarg;
			break;
		case 'f':
			if (compare_add_rule(&cmp, optarg, &e)) {
				usage_error("--fail-if: %s", e.msg);
				goto usage;
			}
			rules[nrules++] = optarg;
			break;
		default:
			bad_option(argv);
			goto usage;
		}
	}
	if (!outpath) {
		usage_error("-o REPORT.html is required");
		goto usage;
	}
	if (optind >= argc) {
		usage_error("no runs");
		goto usage;
	}
	n = (size_t)(argc - optind);
	{
		const struct out_spec outs[] = {{outpath, OUT_FILE, "-o"},
		                                {svg.dir, OUT_DIR, "--svg"}};

		if ((ret =
		         out_check((const char *const *)argv + optind, n, NULL, 0, outs, 2, &e))) {
			ret = (error("%s", e.msg), exit_code_for(ret));
			goto out;
		}
	}
	if (svg.dir && mkdir(svg.dir, 0777) && errno != EEXIST) {
		ret = exit_code_for(-errno);
		error("'%s': %s", svg.dir, strerror(errno));
		goto out;
	}
	for (size_t i = 0; n > 1 && i < n; i++) {
		if (sweep_is_dir(argv[optind + (int)i])) {
			usage_error("'%s' is a sweep: report it on its own", argv[optind + (int)i]);
			goto usage;
		}
	}
	if (n == 1 && sweep_is_dir(argv[optind])) {
		struct report_sweep_opts so = {.outpath = outpath,
		                               .title = title,
		                               .svg_dir = svg.dir,
		                               .idle_ns = idle,
		                               .co = co,
		                               .rules = rules,
		                               .nrules = nrules};

		if (nlabels || interval) {
			usage_error("--label and --interval do not apply to a sweep");
			goto usage;
		}
		ret = report_sweep(argv[optind], &so);
		goto out;
	}
	if (nlabels && nlabels != n) {
		usage_error("%zu --label for %zu runs: give one per run, in order", nlabels, n);
		goto usage;
	}
	in = calloc(n, sizeof(*in));
	runs = calloc(n, sizeof(*runs));
	if (!in || !runs) {
		ret = EXIT_SYSTEM;
		error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const char *path = argv[optind + (int)i];

		struct run_feed feed = {feed_block, feed_packets, &runs[i]};
		struct cli_input ci;

		in[i].path = path;
		in[i].label = nlabels ? labels[i] : NULL;
		if (report_run_init(&runs[i], interval, idle)) {
			ret = EXIT_SYSTEM;
			error("out of memory");
			goto out;
		}
		ret = cli_input_open(&ci, path, 0);
		if (!ret)
			ret = load_run(&ci, &feed, &in[i].manifest, &stop);
		cli_input_release(&ci);
		if (ret)
			goto out;
		in[i].blk = runs[i].s.has_block ? runs[i].s.blk : NULL;
		in[i].nfs = runs[i].s.has_nfs ? &runs[i].nfs : NULL;
		in[i].summary = runs[i].s.doc;
		warn_summary_dropped(path, in[i].summary);
		if (compare_add(&cmp, path, in[i].summary, in[i].manifest, in[i].label, &e)) {
			ret = EXIT_SYSTEM;
			error("%s", e.msg);
			goto out;
		}
	}
	if (n > 1) {
		ret = compare_finish(&cmp, &co, &e);
		if (ret) {
			ret = usage_error("%s", e.msg);
			goto out;
		}
		ro.cmp = &cmp;
	}
	ro.title = title;
	ro.version = IOTAPE_VERSION;
	ro.interval_ns = interval;
	if (svg.dir) {
		ro.svg_out = write_svg;
		ro.svg_ctx = &svg;
	}
	/* written beside the target and renamed, so a failed run never leaves half a report */
	if ((ret = iot_outfile_open(&of, outpath, 0, &e)) || !iot_outfile_stream(&of)) {
		if (!ret)
			iot_outfile_abort(&of);
		ret = ret ? ret : -ENOMEM;
		error("%s", ret == -ENOMEM ? "out of memory" : e.msg);
		ret = exit_code_for(ret);
		goto out;
	}
	ret = report_write_html(iot_outfile_stream(&of), in, n, &ro, &e);
	if (ret)
		iot_outfile_abort(&of);
	else
		ret = iot_outfile_commit(&of, &e);
	if (ret) {
		error("%s", e.msg);
		ret = exit_code_for(ret);
		goto out;
	}
	/* partial results were written: the bad bytes that cut them short come last */
	ret = stop.msg[0]   ? (error("%s", stop.msg), EXIT_USAGE)
	      : cmp.nfailed ? EXIT_THRESHOLD /* --fail-if, as compare says it */
	                    : EXIT_OK;
	goto out;
usage:
	ret = EXIT_USAGE;
out:
	for (size_t i = 0; in && runs && i < n; i++) {
		json_decref(in[i].manifest);
		report_run_release(&runs[i]);
	}
	free(in);
	free(runs);
	free(labels);
	free(rules);
	compare_release(&cmp);
	return ret;
}
