/* SPDX-License-Identifier: MIT */
/* iotape report: one self-contained HTML file with graphs and tables of one or more runs. */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/compare.h"
#include "analyze/report_html.h"
#include "analyze/report_scan.h"
#include "formats/blktrace.h"
#include "iotape_version.h"

const char usage_report[] =
	"usage: iotape report RUN... -o REPORT.html [--svg DIR] [--interval DUR] [--idle DUR]\n"
	"                     [--label L]... [--baseline LABEL] [--title TEXT]\n"
	"\n"
	"One self-contained HTML file (inline SVG, no network, no scripts): the runs' manifests,\n"
	"summary tables and, per device, sector offset over time, MB/s, IOPS, seeks/s, queue\n"
	"depth and D2C latency p50/p99 per interval, idle gaps shaded. Several runs share the\n"
	"axes (one colour per run) and get a comparison table as 'iotape compare' makes it.\n"
	"RUN is a run directory, a per-CPU set NAME or one trace file.\n"
	"\n"
	"  -o FILE          the HTML file to write (required)\n"
	"  --svg DIR        also write every graph as DIR/NAME.svg\n"
	"  --interval DUR   plotted interval (default: about 600 points over the longest run)\n"
	"  --idle DUR       shortest idle gap that is shaded and counted (default 10ms)\n"
	"  --label L        legend name of the next run, in order (default: the manifest or name)\n"
	"  --baseline L     baseline group of the comparison table\n"
	"  --title TEXT     page title\n";

struct svg_dir {
	const char *dir;
	unsigned files;
};

static int write_svg(void *ctx, const char *name, const char *svg, size_t len)
{
	struct svg_dir *s = ctx;
	char *path;
	FILE *f;
	int ret = 0;

	if (asprintf(&path, "%s/%s", s->dir, name) < 0)
		return -ENOMEM;
	f = fopen(path, "w");
	if (!f) {
		ret = -errno;
		error("'%s': %s", path, strerror(errno));
		free(path);
		return ret;
	}
	if (fwrite(svg, 1, len, f) != len)
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -EIO;
	if (ret)
		error("'%s': write failed", path);
	free(path);
	s->files++;
	return ret;
}

static json_t *load_manifest(const char *path)
{
	struct stat st;
	json_error_t je;
	json_t *m = NULL;
	char *mpath;

	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return NULL;
	if (asprintf(&mpath, "%s/manifest.json", path) < 0)
		return NULL;
	if (!access(mpath, F_OK)) {
		m = json_load_file(mpath, 0, &je);
		if (!m)
			warning("'%s': %s (line %d); left out of the report", mpath, je.text,
				je.line);
	}
	free(mpath);
	return m;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", 1, 0, 'o'},	 {"svg", 1, 0, 's'},   {"interval", 1, 0, 'i'},
		{"idle", 1, 0, 'I'},	 {"label", 1, 0, 'l'}, {"baseline", 1, 0, 'b'},
		{"title", 1, 0, 't'},	 {0, 0, 0, 0},
	};
	const char *outpath = NULL, *title = NULL;
	struct svg_dir svg = {0};
	struct report_opts ro = {0};
	struct compare_opts co = {0};
	unsigned long long interval = 0, idle = 10000000ull;
	struct report_input *in = NULL;
	struct rpt_run *runs = NULL;
	const char **labels = calloc((size_t)argc + 1, sizeof(*labels));
	size_t nlabels = 0, n = 0;
	struct compare cmp;
	struct iot_err e;
	FILE *out = NULL;
	int opt, ret = EXIT_OK;
	char *tmp = NULL;

	if (!labels)
		return error("out of memory"), EXIT_SYSTEM;
	compare_init(&cmp);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
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
			if (parse_duration_ns("--idle", optarg, &idle))
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
		default:
			usage_error("unknown option");
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
	if (nlabels && nlabels != n) {
		usage_error("%zu --label for %zu runs: give one per run, in order", nlabels, n);
		goto usage;
	}
	if (svg.dir && mkdir(svg.dir, 0777) && errno != EEXIST) {
		ret = exit_code_for(-errno);
		error("'%s': %s", svg.dir, strerror(errno));
		goto out;
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
		struct bt_reader *rd;

		in[i].path = path;
		in[i].label = nlabels ? labels[i] : NULL;
		in[i].bins = &runs[i];
		rpt_run_init(&runs[i], interval, idle);
		ret = bt_reader_open(&rd, path, &e);
		if (!ret) {
			ret = rpt_run_read(&runs[i], rd, &e);
			bt_reader_free(rd);
		}
		if (ret) {
			error("%s", e.msg);
			ret = exit_code_for(ret);
			goto out;
		}
		in[i].summary = rpt_run_to_json(&runs[i]);
		in[i].manifest = load_manifest(path);
		if (!in[i].summary || compare_add(&cmp, path, in[i].summary, in[i].manifest,
						  in[i].label, &e)) {
			ret = EXIT_SYSTEM;
			error("out of memory");
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
	/* write beside the target and rename, so a failed run never leaves half a report */
	if (asprintf(&tmp, "%s.tmp%d", outpath, (int)getpid()) < 0 || !(out = fopen(tmp, "w"))) {
		ret = exit_code_for(-errno);
		error("'%s': %s", outpath, strerror(errno));
		goto out;
	}
	ret = report_write_html(out, in, n, &ro, &e);
	if (fclose(out) && !ret)
		ret = iot_err_set(&e, -EIO, "'%s': write failed", outpath);
	out = NULL;
	if (!ret && rename(tmp, outpath))
		ret = iot_err_set(&e, -errno, "'%s': %s", outpath, strerror(errno));
	if (ret) {
		unlink(tmp);
		error("%s", e.msg);
		ret = exit_code_for(ret);
		goto out;
	}
	ret = EXIT_OK;
	goto out;
usage:
	ret = EXIT_USAGE;
out:
	for (size_t i = 0; in && i < n; i++) {
		json_decref(in[i].summary);
		json_decref(in[i].manifest);
		rpt_run_release(&runs[i]);
	}
	free(in);
	free(runs);
	free(tmp);
	free(labels);
	compare_release(&cmp);
	return ret;
}
