/* SPDX-License-Identifier: MIT */
/* iotape movie: a seekwatcher-style movie of one or more runs, side by side. */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h> /* optarg, optind */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cairo.h>
#include <fontconfig/fontconfig.h>

#include "cli/inputs.h"
#include "cli/runs.h"
#include "common/clock.h"
#include "common/fs.h"
#include "common/jsonint.h"
#include "common/stop.h"
#include "common/units.h"
#include "compare/compare.h"
#include "formats/manifest.h"
#include "formats/outcheck.h"
#include "formats/rundir.h"
#include "formats/runset.h"
#include "analyze/blk_sink.h"
#include "movie/movie.h"

static const struct cli_opt movie_opts[] = {
    {.name = "output",
     .short_name = 'o',
     .arg = "FILE",
     .kind = CLI_FILE,
     .help = "the movie: FILE.mp4 (H.264) or FILE.webm (VP9)"},
    {.name = "fps", .key = 'f', .arg = "N", .help = "frames a second (default 30)"},
    {.name = "length",
     .key = 'L',
     .arg = "DUR",
     .help = "the movie's length, the longest run filling it (default 20s)"},
    {.name = "speed",
     .key = 'S',
     .arg = "X",
     .help = "trace seconds per movie second instead of --length (1: real time)"},
    {.name = "size",
     .key = 's',
     .arg = "WxH",
     .help = "frame size in pixels, even numbers (default 1280x720)"},
    {.name = "window",
     .key = 'w',
     .arg = "DUR",
     .help = "trace time an offset plot shows (default: what 2 s of the movie cover)"},
    {.name = "idle-threshold",
     .key = 'I',
     .arg = "DUR",
     .help = "shortest idle gap shaded (default " BLK_DEFAULT_IDLE_TEXT ", as in analyze)"},
    {.name = "idle", .key = 'I', .arg = "DUR", .help = "the same as --idle-threshold"},
    {.name = "label",
     .key = 'l',
     .arg = "L",
     .help = "name of the next run, in order (default: from the manifests, as compare names "
             "them)"},
    {.name = "quiet", .short_name = 'q', .help = "no progress line"},
    {0},
};

const struct cli_doc doc_movie = {
    .summary = "seekwatcher-style movie of one or more runs (MP4, WebM)",
    .synopsis = "RUN... -o FILE.mp4|FILE.webm [--fps N] [--length DUR | --speed X] [--size WxH] "
                "[--window DUR] [--idle-threshold DUR] [--label L]... [-q]",
    .description =
        "A movie of block IO in the manner of seekwatcher: per run a panel (side by side, up "
        "to 16), per device the sector offset of every issued IO against time in a trailing "
        "window (the newest bright, older fading; reads blue, writes red), idle gaps shaded "
        "while they last, and below it MiB/s, IOPS and seeks/s over the whole run. Every run "
        "plays on one clock from its own first event. The figures are those of "
        "'iotape analyze' (its idle and timeline sinks). A run set ('iotape capture --host', "
        "given alone) is a panel per host, labelled by its name, on the set's clock: each "
        "host from its first event as runset.json's clock offsets place it (to the frame); "
        "a host with packets alone (no block trace) is left out, said in a line.\n"
        "\n"
        "RUN is a run directory, a per-CPU set NAME or one trace file. A run directory is "
        "read once, as the frames are drawn: its manifest gives the axes (the trace's first "
        "and last event, the sectors issued). A trace without such a manifest (a bare trace, "
        "a run captured before iotape recorded them) is read twice, the first time for the "
        "axes, so it cannot be a pipe.\n"
        "\n"
        "The frames are encoded by the ffmpeg program (Debian's ffmpeg package), which must "
        "be on PATH with its libx264 (MP4) or libvpx-vp9 (WebM) encoder.",
    .opts = movie_opts,
    .operands = CLI_INPUT,
    .exit_status = "0 success, 2 usage or input error, 3 system error, no ffmpeg, or "
                   "interrupted (no file is left behind)",
    .docs = "movie.md",
    .see_also = "iowatcher(1) ffmpeg(1) ffprobe(1)",
};

struct progress {
	bool quiet, tty;
	uint64_t t0_ns;
	int last_pct;
	double last_print;
};

static double since(uint64_t t0_ns)
{
	return (double)(iot_now_ns() - t0_ns) / 1e9;
}

/* "frame 120/600 (20%), 4 s, 16 s left": a line rewritten on a terminal, every 10 % else. */
static int show_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct progress *p = ctx;
	double el = since(p->t0_ns), eta = el / (double)done * (double)(total - done);
	int pct = (int)(done * 100 / total);

	if (iot_stop_sig)
		return 1;
	if (p->quiet)
		return 0;
	if (p->tty) {
		if (done < total && el - p->last_print < 0.25)
			return 0;
		p->last_print = el;
		fprintf(stderr, "\riotape: movie: frame %llu/%llu (%d%%), %.0f s, %.0f s left   ",
		        (unsigned long long)done, (unsigned long long)total, pct, el, eta);
		if (done == total)
			fputc('\n', stderr);
	} else if (pct / 10 != p->last_pct / 10 || done == total) {
		fprintf(stderr, "iotape: movie: frame %llu/%llu (%d%%), %.0f s, %.0f s left\n",
		        (unsigned long long)done, (unsigned long long)total, pct, el, eta);
	}
	p->last_pct = pct;
	return 0;
}

static int parse_size(const char *s, struct movie_opts *o)
{
	unsigned w, h;
	char x, end;

	if (sscanf(s, "%u%c%u%c", &w, &x, &h, &end) != 3 || (x != 'x' && x != 'X'))
		return usage_error("--size: '%s' is not WIDTHxHEIGHT (e.g. 1280x720)", s), -1;
	o->width = w;
	o->height = h;
	return 0;
}

/* The container from the output's name. */
static int output_format(const char *path, enum movie_format *f)
{
	const char *dot = strrchr(path, '.');

	if (dot && !strcasecmp(dot, ".mp4"))
		*f = MOVIE_MP4;
	else if (dot && !strcasecmp(dot, ".webm"))
		*f = MOVIE_WEBM;
	else
		return usage_error("-o '%s': name a .mp4 or .webm file", path), -1;
	return 0;
}

/* A pipe can be read once, and has no manifest to give the axes: it would be read twice. */
static int check_rereadable(const char *arg)
{
	struct stat st;

	if (!strcmp(arg, "-") || (!stat(arg, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)))
		return usage_error("'%s': not a file: without a run's manifest the movie reads its "
		                   "input twice (the axes first), so give a trace file, a set or a "
		                   "run directory",
		                   arg),
		       -1;
	return 0;
}

struct run {
	const char *arg;
	struct movie_probe probe;
	struct manifest mf;
	bool have_mf;
	bool once; /* the manifest gave the axes: the reader opened for them draws the movie */
	char **devname;
	struct cli_input ci;
};

/* The block trace of r, opened (again); prints the error. */
static int open_block(struct run *r, bool first)
{
	int ret = cli_input_open(&r->ci, r->arg, 0);

	if (ret)
		return ret;
	if (!r->ci.block && r->ci.summary) {
		cli_input_release(&r->ci);
		return error("'%s' is a summary run (capture --detail summary): no per-IO records, "
		             "no sector offsets to draw; 'iotape report' and 'iotape analyze' show "
		             "its figures",
		             r->arg),
		       EXIT_USAGE;
	}
	if (!r->ci.block) {
		cli_input_release(&r->ci);
		return error(
		           "'%s': no block trace (a packet capture has no sector offsets to draw)",
		           r->arg),
		       EXIT_USAGE;
	}
	if (first && r->ci.manifest) {
		struct iot_err e;

		if (manifest_load(r->ci.manifest, &r->mf, &e))
			warning("'%s': %s; the run is named by its path", r->ci.manifest, e.msg);
		else
			r->have_mf = true;
	}
	return EXIT_OK;
}

/* Labels as 'iotape compare' derives them from the manifests (what differs between runs). */
static int derive_labels(struct run *runs, size_t n, const char **given, const char **label,
                         struct compare *cmp)
{
	struct iot_err e;

	for (size_t i = 0; i < n; i++) {
		json_t *sum = json_object(), *devs = json_array(), *d = json_object();
		char name[24];
		int ret;

		snprintf(name, sizeof(name), "%u,%u", runs[i].probe.dev[0].dev >> 20,
		         runs[i].probe.dev[0].dev & 0xfffff);
		json_object_set_new(d, "dev", json_string(name));
		json_array_append_new(devs, d);
		json_object_set_new(sum, "devices", devs);
		json_object_set_new(sum, "span_ns", json_u64(runs[i].probe.span));
		ret = compare_add(cmp, runs[i].arg, sum, runs[i].have_mf ? runs[i].mf.root : NULL,
		                  given ? given[i] : NULL, &e);
		json_decref(sum);
		if (ret)
			return error("%s", e.msg), exit_code_for(ret);
	}
	if (compare_finish(cmp, NULL, &e))
		return error("%s", e.msg), EXIT_USAGE;
	for (size_t i = 0; i < n; i++)
		label[i] = cmp->sample[i].label;
	return EXIT_OK;
}

static int parse_args(int argc, char **argv, struct movie_opts *o, const char **out,
                      const char **labels, size_t *nlabels, bool *quiet)
{
	unsigned long long v;
	bool length = false;
	int opt;

	optind = 1;
	while ((opt = cli_getopt(argc, argv, &doc_movie)) != -1) {
		switch (opt) {
		case 'o':
			*out = optarg;
			break;
		case 'f':
			if (parse_u64("--fps", optarg, &v))
				return -1;
			if (v < 1 || v > 240)
				return usage_error("--fps: '%s': give 1 to 240", optarg), -1;
			o->fps = (unsigned)v;
			break;
		case 'L':
			if (parse_duration_ns("--length", optarg, &v))
				return -1;
			if (!v)
				return usage_error("--length: must be more than zero"), -1;
			o->length_ns = v;
			length = true;
			break;
		case 'S':
			if (parse_double("--speed", optarg, &o->speed))
				return -1;
			if (!(o->speed > 0) || o->speed > 1e12)
				return usage_error("--speed: '%s': give a number above zero",
				                   optarg),
				       -1;
			break;
		case 's':
			if (parse_size(optarg, o))
				return -1;
			break;
		case 'w':
			if (parse_duration_ns("--window", optarg, &v))
				return -1;
			if (!v)
				return usage_error("--window: must be more than zero"), -1;
			o->window_ns = v;
			break;
		case 'I':
			if (parse_duration_ns("--idle-threshold", optarg, &v))
				return -1;
			o->idle_threshold_ns = v;
			break;
		case 'l':
			labels[(*nlabels)++] = optarg;
			break;
		case 'q':
			*quiet = true;
			break;
		default:
			return bad_option(argv), -1;
		}
	}
	if (length && o->speed > 0)
		return usage_error("--length and --speed: give one of them"), -1;
	if (o->speed > 0)
		o->length_ns = 0;
	if (!*out)
		return usage_error("-o FILE.mp4 or FILE.webm is required"), -1;
	if (output_format(*out, &o->format))
		return -1;
	if (optind >= argc)
		return usage_error("no runs"), -1;
	if ((size_t)(argc - optind) > MOVIE_MAX_RUNS)
		return usage_error("%d runs: a movie shows at most %u", argc - optind,
		                   MOVIE_MAX_RUNS),
		       -1;
	if (*nlabels && *nlabels != (size_t)(argc - optind))
		return usage_error("%zu --label for %d runs: give one per run, in order", *nlabels,
		                   argc - optind),
		       -1;
	if (o->width < 320 || o->height < 180 || o->width > 7680 || o->height > 4320 ||
	    o->width % 2 || o->height % 2)
		return usage_error("--size %ux%u: give even numbers from 320x180 to 7680x4320",
		                   o->width, o->height),
		       -1;
	return 0;
}

static int render(struct movie *m, const struct movie_opts *o, struct run *runs, size_t n,
                  const char *outpath, bool quiet)
{
	struct bt_reader *rd[MOVIE_MAX_RUNS];
	struct progress p = {.quiet = quiet, .tty = isatty(2), .last_pct = -1};
	struct iot_outfile of;
	struct iot_err e;
	int ret = EXIT_OK;

	for (size_t i = 0; i < n; i++) {
		if (!runs[i].once && (ret = open_block(&runs[i], false)))
			return ret;
		rd[i] = runs[i].ci.block;
	}
	/* written beside the target and renamed, so that a failure never leaves half a movie;
	 * ffmpeg writes the file by its name */
	if ((ret = iot_outfile_open(&of, outpath, 0, &e))) {
		error("%s", e.msg);
		return exit_code_for(ret);
	}
	close(of.fd);
	of.fd = -1;
	if (!quiet) {
		char win[32];

		fprintf(stderr,
		        "iotape: movie: %llu frames at %u fps (x%.3g, window %s), %ux%u -> %s\n",
		        (unsigned long long)movie_frames(m), o->fps, movie_speed(m),
		        iot_fmt_dur((double)movie_window_ns(m), win, sizeof(win)), o->width,
		        o->height, outpath);
	}
	p.t0_ns = iot_now_ns();
	/* stopped as every command is (common/stop.h): movie_render() sees it through
	 * show_progress(), the half-written file goes */
	iot_stop_catch(0);
	ret = movie_render(m, rd,
	                   of.tmp    ? of.tmp
	                   : of.path ? of.path
	                             : outpath,
	                   show_progress, &p, &e);
	if (ret)
		iot_outfile_abort(&of);
	else
		ret = iot_outfile_commit(&of, &e);
	if (ret == -EINTR)
		return error("interrupted; no movie written"), EXIT_SYSTEM;
	if (ret)
		return ret == -ENODATA ? (error("%s", e.msg), EXIT_USAGE) : input_error(&e, ret);
	for (size_t i = 0; i < n; i++) {
		if (movie_unshown(m, (unsigned)i))
			warning("'%s': %llu events after the last event its manifest records were "
			        "not drawn",
			        runs[i].arg, (unsigned long long)movie_unshown(m, (unsigned)i));
		if (movie_undrawn(m, (unsigned)i))
			warning("'%s': %llu events of devices its manifest does not name were not "
			        "drawn",
			        runs[i].arg, (unsigned long long)movie_undrawn(m, (unsigned)i));
		if (movie_outside(m, (unsigned)i))
			warning("'%s': %llu IOs outside the sector range its manifest records were "
			        "drawn at the panel's edge",
			        runs[i].arg, (unsigned long long)movie_outside(m, (unsigned)i));
	}
	return EXIT_OK;
}

/* A host that captured packets only (no block trace, no summary): the movie draws block IO
 * and has no packet panel, so it has nothing to draw for it. A run that cannot be scanned is
 * not: its error is said when its panel is opened. */
static bool packets_only(const char *run)
{
	struct rundir rd;
	struct iot_err e;
	bool only;

	if (rundir_scan(&rd, run, &e))
		return false;
	only = !rd.ntraces && rd.ncaptures && !rd.summary;
	rundir_release(&rd);
	return only;
}

/*
 * Is one of the n paths a run set? Then it must be alone and unlabelled, and its hosts are the
 * panels: *n of them, host (*panel)[i] in panel i, labelled by their names (the label arrays
 * made again for them). A host with packets alone is left out, said in a line; a set of
 * nothing else is refused. EXIT_OK, or an exit code after the error.
 */
static int open_set(char **paths, size_t *n, struct runset *rs, unsigned **panel,
                    const char ***labels, const char ***label, size_t *nlabels)
{
	int ret;

	for (size_t i = 0; i < *n; i++) {
		const char *a = paths[i];

		if ((ret = cli_runset_open(a, rs)) == -ENOENT)
			continue;
		if (ret)
			return ret;
		if (*n > 1 || *nlabels)
			return usage_error(*n > 1 ? "'%s' is a run set: give it on its own"
			                          : "'%s' is a run set: its hosts name its panels "
			                            "(no --label)",
			                   a);
		if (!(*panel = calloc(rs->n, sizeof(**panel))))
			return error("out of memory"), EXIT_SYSTEM;
		*n = 0;
		for (unsigned h = 0; h < rs->n; h++) {
			if (!packets_only(rs->h[h].run)) {
				(*panel)[(*n)++] = h;
				continue;
			}
			warning(
			    "host %s: packets only (no block trace): left out of the movie, which "
			    "draws block IO ('iotape report' shows its packets)",
			    rs->h[h].name);
		}
		if (!*n)
			return usage_error(
			    "'%s': no host with a block trace (packets only): no sector "
			    "offsets to draw; 'iotape report' and 'iotape analyze' show "
			    "its packets",
			    a);
		if (*n > MOVIE_MAX_RUNS)
			return usage_error(
			    "'%s': %zu hosts with a block trace: a movie shows at most %u", a, *n,
			    MOVIE_MAX_RUNS);
		free(*labels);
		free(*label);
		*labels = calloc(*n + 1, sizeof(**labels));
		*label = calloc(*n + 1, sizeof(**label));
		if (!*labels || !*label)
			return error("out of memory"), EXIT_SYSTEM;
		for (size_t k = 0; k < *n; k++)
			(*labels)[(*nlabels)++] = rs->h[(*panel)[k]].name;
		break;
	}
	return EXIT_OK;
}

/* Run r opened and its axes probed: from its manifest (one pass), else a first pass over the
 * trace. EXIT_OK, or an exit code after the error. */
static int probe_run(struct run *r)
{
	struct iot_err e;
	int ret;

	if ((ret = open_block(r, true)))
		return ret;
	if (r->have_mf && !(ret = movie_probe_from_manifest(&r->probe, &r->mf,
	                                                    bt_reader_stats(r->ci.block), &e))) {
		r->once = true;
	} else {
		if (ret == -ESTALE)
			warning("'%s': %s; the axes come from a first pass over the trace", r->arg,
			        e.msg);
		ret = movie_probe_read(&r->probe, r->ci.block, &e);
		cli_input_release(&r->ci);
	}
	if (ret)
		return ret == -ENODATA ? (error("'%s': %s", r->arg, e.msg), EXIT_USAGE)
		                       : input_error(&e, ret);
	if (movie_dev_names(&r->probe, r->have_mf ? &r->mf : NULL, &r->devname))
		return error("out of memory"), EXIT_SYSTEM;
	if (r->probe.ndev > MOVIE_MAX_DEVS)
		warning("'%s': %u devices; the movie shows the first %u (by major, minor)", r->arg,
		        r->probe.ndev, MOVIE_MAX_DEVS);
	return EXIT_OK;
}

/* A run set's hosts on the set's clock (movie_set_lags()); a host that cannot be placed said. */
static void runset_lags(const struct run *runs, size_t n, const struct runset *rs,
                        const unsigned *panel, struct movie_run_info *info)
{
	const struct manifest *mf[MOVIE_MAX_RUNS];
	uint64_t first[MOVIE_MAX_RUNS];
	int64_t off[MOVIE_MAX_RUNS];
	bool placed[MOVIE_MAX_RUNS];

	for (size_t i = 0; i < n; i++) {
		mf[i] = runs[i].have_mf ? &runs[i].mf : NULL;
		first[i] = runs[i].probe.first;
		off[i] = rs->h[panel[i]].offset_ns;
	}
	movie_set_lags(mf, first, off, n, info, placed);
	for (size_t i = 0; i < n; i++)
		if (!placed[i])
			warning(
			    "host %s: its manifest has no clock pairs: its panel starts with the "
			    "movie, not on the set's clock",
			    rs->h[panel[i]].name);
}

int cmd_movie(int argc, char **argv)
{
	struct movie_opts o;
	const char *outpath = NULL, **labels = calloc((size_t)argc + 1, sizeof(*labels));
	const char **label = calloc((size_t)argc + 1, sizeof(*label));
	struct movie_run_info *info = NULL;
	struct run *runs = NULL;
	struct movie *m = NULL;
	struct compare cmp;
	struct movie_probe *probes = NULL;
	struct runset rs = {0};
	unsigned *panel = NULL; /* a run set's: the host in each panel */
	size_t nlabels = 0, n = 0;
	bool quiet = false;
	struct iot_err e;
	int ret;

	compare_init(&cmp);
	if (!labels || !label) {
		ret = (error("out of memory"), EXIT_SYSTEM);
		goto out;
	}
	movie_opts_init(&o);
	if (parse_args(argc, argv, &o, &outpath, labels, &nlabels, &quiet)) {
		ret = EXIT_USAGE;
		goto out;
	}
	n = (size_t)(argc - optind);
	/* a run set: a panel per host that brought a whole run back, named by the set */
	if ((ret = open_set(argv + optind, &n, &rs, &panel, &labels, &label, &nlabels)))
		goto out;
	runs = calloc(n, sizeof(*runs));
	info = calloc(n, sizeof(*info));
	probes = calloc(n, sizeof(*probes));
	if (!runs || !info || !probes) {
		ret = (error("out of memory"), EXIT_SYSTEM);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		runs[i].arg = panel ? rs.h[panel[i]].run : argv[optind + (int)i];
		if (check_rereadable(runs[i].arg)) {
			ret = EXIT_USAGE;
			goto out;
		}
	}
	{
		const struct out_spec out = {outpath, OUT_FILE, "-o"};

		/* the operands as given (a run set is one, whatever its hosts) */
		if ((ret = out_check((const char *const *)argv + optind, (size_t)(argc - optind),
		                     NULL, 0, &out, 1, &e))) {
			ret = (error("%s", e.msg), exit_code_for(ret));
			goto out;
		}
	}
	/* before reading, which may take a while: the encoder is there */
	if (movie_enc_check(o.format, &e)) {
		ret = (error("%s", e.msg), EXIT_SYSTEM);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if ((ret = probe_run(&runs[i])))
			goto out;
		probes[i] = runs[i].probe;
	}
	if ((ret = derive_labels(runs, n, nlabels ? labels : NULL, label, &cmp)))
		goto out;
	for (size_t i = 0; i < n; i++) {
		info[i].label = label[i];
		info[i].devname = (const char *const *)runs[i].devname;
	}
	if (panel)
		runset_lags(runs, n, &rs, panel, info);
	ret = movie_new(&m, &o, probes, info, (unsigned)n, &e);
	if (ret) {
		ret = ret == -EINVAL ? usage_error("%s", e.msg) : (error("%s", e.msg), EXIT_SYSTEM);
		goto out;
	}
	ret = render(m, &o, runs, n, outpath, quiet);
out:
	movie_free(m);
	/* cairo's font caches and fontconfig's, which hold the labels' font: freed, so that a leak
	 * checker sees only what iotape leaks */
	cairo_debug_reset_static_data();
	FcFini();
	for (size_t i = 0; runs && i < n; i++) {
		cli_input_release(&runs[i].ci);
		movie_dev_names_free(runs[i].devname, runs[i].probe.ndev);
		movie_probe_release(&runs[i].probe);
		if (runs[i].have_mf)
			manifest_release(&runs[i].mf);
	}
	compare_release(&cmp);
	runset_release(&rs);
	free(panel);
	free(runs);
	free(info);
	free(probes);
	free(labels);
	free(label);
	return ret;
}
