/* SPDX-License-Identifier: MIT */
/* iotape report: one self-contained HTML file with graphs and tables of one or more runs. */
#include "cli/cli.h"
#include "cli/runs.h"

#include <errno.h>
#include <dirent.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare/compare.h"
#include "report/report_html.h"
#include "report/report_run.h"
#include "cli/analyze.h"
#include "formats/blktrace.h"
#include "formats/manifest.h"
#include "formats/pcap_src.h"
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

/* What a run directory holds: a block trace set, packet captures. */
static void scan_dir(const char *dir, bool *block, char **capture)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	*block = false;
	*capture = NULL;
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strstr(de->d_name, ".blktrace."))
			*block = true;
		if (!*capture && !strncmp(de->d_name, "net.pcap", 8)) {
			char *p;

			if (asprintf(&p, "%s/%s", dir, de->d_name) < 0)
				continue;
			if (analyze_is_capture(p))
				*capture = p;
			else
				free(p);
		}
	}
	closedir(d);
}

static json_t *load_manifest(const char *path);

/* Shared with cmd-compare.c through cli/runs.h. */
int report_load_run(const char *path, uint64_t interval_ns, uint64_t idle_ns, struct report_run *r,
                    json_t **manifest)
{
	struct stat st;
	struct iot_err e;
	bool block = true;
	char *capture = NULL;
	int ret;

	*manifest = NULL;
	if (report_run_init(r, interval_ns, idle_ns))
		return error("out of memory"), EXIT_SYSTEM;
	if (strcmp(path, "-") && !stat(path, &st)) {
		if (S_ISDIR(st.st_mode)) {
			scan_dir(path, &block, &capture);
			if (!block && !capture) {
				error("'%s': no block trace (*.blktrace.N) or net.pcap in the run "
				      "directory",
				      path);
				return EXIT_USAGE;
			}
		} else if (analyze_is_capture(path)) {
			block = false;
			capture = strdup(path);
			if (!capture)
				return error("out of memory"), EXIT_SYSTEM;
		}
	}
	if (block) {
		struct bt_reader *rd;

		ret = bt_reader_open(&rd, path, &e);
		if (!ret) {
			ret = report_run_block(r, rd, &e);
			bt_reader_free(rd);
		}
		if (ret) {
			free(capture);
			error("%s", e.msg);
			return exit_code_for(ret);
		}
	}
	if (capture) {
		struct pcap_src *src;
		struct manifest m;
		bool have_m = block && !manifest_load(path, &m, NULL);

		ret = pcap_src_open(&src, capture, &e);
		if (!ret) {
			/* block and packets of one capture: one time axis via the clock pairs */
			ret = report_run_packets(r, src, have_m ? &m : NULL, &e);
			pcap_src_free(src);
		}
		if (have_m)
			manifest_release(&m);
		if (ret) {
			error("'%s': %s", capture, e.msg);
			free(capture);
			return exit_code_for(ret);
		}
		free(capture);
	}
	*manifest = load_manifest(path);
	return EXIT_OK;
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
	    {"output", 1, 0, 'o'}, {"svg", 1, 0, 's'},   {"interval", 1, 0, 'i'},
	    {"idle", 1, 0, 'I'},   {"label", 1, 0, 'l'}, {"baseline", 1, 0, 'b'},
	    {"title", 1, 0, 't'},  {0, 0, 0, 0},
	};
	const char *outpath = NULL, *title = NULL;
	struct svg_dir svg = {0};
	struct report_opts ro = {0};
	struct compare_opts co = {0};
	unsigned long long interval = 0, idle = 10000000ull;
	struct report_input *in = NULL;
	struct report_run *runs = NULL;
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

		in[i].path = path;
		in[i].label = nlabels ? labels[i] : NULL;
		ret = report_load_run(path, interval, idle, &runs[i], &in[i].manifest);
		if (ret)
			goto out;
		in[i].bins = &runs[i].bins;
		in[i].nfs = runs[i].has_nfs ? &runs[i].nfs : NULL;
		in[i].summary = runs[i].summary;
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
	for (size_t i = 0; in && runs && i < n; i++) {
		json_decref(in[i].manifest);
		report_run_release(&runs[i]);
	}
	free(in);
	free(runs);
	free(tmp);
	free(labels);
	compare_release(&cmp);
	return ret;
}
