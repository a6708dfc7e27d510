/* SPDX-License-Identifier: MIT */
/* iotape export: a block trace as blkparse's text, fio iologs with a job file, or CSV. */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h> /* optarg, optind */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "export/export.h"
#include "formats/outcheck.h"
#include "replay/replay.h"

enum { O_VERSION = 256, O_FROM, O_IOENGINE, O_TIMELINE, O_INTERVAL, O_IDLE };

static const struct cli_opt export_opts[] = {
    {.name = "format",
     .short_name = 'f',
     .arg = "FMT",
     .values = "blkparse fio-iolog csv",
     .help = "the output format (required)"},
    {.name = "output",
     .short_name = 'o',
     .arg = "OUT",
     .kind = CLI_FILE,
     .help = "write to OUT instead of standard output (fio-iolog: a directory)"},
    {.name = "iolog-version",
     .key = O_VERSION,
     .arg = "N",
     .values = "2 3",
     .help = "3 (default: times in microseconds) or 2 (no times)",
     .group = "fio-iolog"},
    {.name = "from",
     .key = O_FROM,
     .arg = "WHICH",
     .values = "issue queue",
     .help = "issue: D events (default: what reached the device), or queue: Q events"},
    {.name = "map",
     .short_name = 'm',
     .arg = "SRCDEV=PATH",
     .help = "replay device SRCDEV (MAJ,MIN or a name) onto PATH: the job's replay_redirect= "
             "(else a ${IOTAPE_TARGET_NAME} placeholder)"},
    {.name = "ioengine",
     .key = O_IOENGINE,
     .arg = "NAME",
     .help = "the job file's ioengine (default libaio)"},
    {.name = "timeline",
     .key = O_TIMELINE,
     .help = "rows per device and interval instead of per event",
     .group = "csv"},
    {.name = "interval",
     .key = O_INTERVAL,
     .arg = "DUR",
     .help = "the timeline's interval (default 1s)"},
    {.name = "idle-threshold",
     .key = O_IDLE,
     .arg = "DUR",
     .help = "shortest idle gap the timeline counts (default 10ms)"},
    {0},
};

const struct cli_doc doc_export = {
    .summary = "write a trace as blkparse text, fio iologs or CSV",
    .synopsis = "RUN --format blkparse|fio-iolog|csv [-o OUT] [OPTIONS]",
    .description =
        "Write a block trace in another tool's format (docs/export.md). RUN is a run directory "
        "or a per-CPU set NAME (NAME.blktrace.0, .1, ...); files may be gzip-compressed. The "
        "formats:\n"
        "\n"
        "  blkparse     the text of 'blkparse -i NAME' (blktrace 1.2, default options), byte\n"
        "               for byte, as it writes it to a file; a run directory DIR is read as\n"
        "               'blkparse -D DIR -i NAME1 -i NAME2 ...' (sets sorted by name)\n"
        "  fio-iolog    into directory OUT (required): NAME.iolog per device, replayable by\n"
        "               fio's read_iolog, and replay.fio, a job file that replays them together\n"
        "  csv          one row per event, or with --timeline one row per device and interval",
    .opts = export_opts,
    .operands = CLI_INPUT,
    .exit_status = "0 success, 2 usage or input error, 3 system error",
    .docs = "export.md",
    .see_also = "blkparse(1) fio(1)",
};

enum { FMT_NONE, FMT_BLKPARSE, FMT_IOLOG, FMT_CSV };

struct xopts {
	int fmt;
	const char *run, *out;
	struct export_iolog_opts io;
	struct export_target *targets;
	struct export_csv_opts csv;
	bool csv_opts, iolog_opts;
};

/* OUT written beside and renamed into place (standard output without -o) */
static int open_out(const char *out, struct iot_outfile *o)
{
	struct iot_err e;
	int ret = iot_outfile_open(o, out ? out : "-", 0, &e);

	return ret ? (error("%s", e.msg),
	              ret == -ENOENT || ret == -EISDIR ? EXIT_USAGE : exit_code_for(ret))
	           : 0;
}

static int close_out(struct iot_outfile *o, int ret, struct iot_err *e)
{
	if (ret) {
		iot_outfile_abort(o);
		return ret;
	}
	return iot_outfile_commit(o, e);
}

static int do_blkparse(const struct xopts *x)
{
	struct export_stats st;
	struct iot_outfile o;
	struct iot_err e;
	char **sets;
	unsigned n;
	int ret;

	if ((ret = export_find_sets(x->run, &sets, &n, &e)))
		return error("%s", e.msg), exit_code_for(ret);
	if ((ret = open_out(x->out, &o))) {
		export_free_sets(sets, n);
		return ret;
	}
	ret = export_blkparse(sets, n, o.fd, &st, &e);
	export_free_sets(sets, n);
	if ((ret = close_out(&o, ret, &e)))
		return error("%s", e.msg), exit_code_for(ret);
	return EXIT_OK;
}

static int do_csv(const struct xopts *x)
{
	struct export_stats st;
	struct iot_outfile o;
	struct iot_err e;
	int ret;

	if ((ret = open_out(x->out, &o)))
		return ret;
	ret = export_csv(x->run, &x->csv, o.fd, &st, &e);
	if ((ret = close_out(&o, ret, &e)))
		return error("%s", e.msg), exit_code_for(ret);
	return EXIT_OK;
}

static int do_iolog(struct xopts *x)
{
	struct export_iolog_result res;
	struct iot_err e;
	int ret;

	if (!x->out || !strcmp(x->out, "-"))
		return usage_error("fio-iolog writes files: -o DIR is required");
	x->io.dir = x->out;
	x->io.run = x->run;
	ret = export_fio_iolog(x->run, &x->io, &res, &e);
	if (ret) {
		export_iolog_result_release(&res);
		return error("%s", e.msg), exit_code_for(ret);
	}
	for (unsigned i = 0; i < res.ndevs; i++) {
		const struct export_iolog_dev *d = &res.devs[i];

		if (!d->ios && !d->skipped)
			continue;
		printf("%s (%u,%u): %" PRIu64 " IOs, %" PRIu64 " bytes -> %s/%s, iodepth %u",
		       d->name, BLK_DEV_MAJOR(d->dev), BLK_DEV_MINOR(d->dev), d->ios, d->bytes,
		       x->out, d->iolog[0] ? d->iolog : "(none)", d->iodepth);
		if (d->skipped)
			printf(", %" PRIu64 " left out (passthrough, write-zeroes, empty)",
			       d->skipped);
		printf("\n");
	}
	printf("job file: %s/replay.fio\n", x->out);
	export_iolog_result_release(&res);
	return EXIT_OK;
}

static int add_map(struct xopts *x, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct export_target *t;
	struct iot_err e;
	char *src;
	uint32_t dev;
	int ret;

	if (!eq || eq == arg || !eq[1])
		return usage_error("--map: '%s' is not SRCDEV=PATH", arg);
	src = strndup(arg, (size_t)(eq - arg));
	if (!src)
		return error("out of memory"), EXIT_SYSTEM;
	ret = rp_parse_dev(src, &dev, &e);
	free(src);
	if (ret)
		return usage_error("--map: %s", e.msg);
	t = realloc(x->targets, (x->io.ntargets + 1) * sizeof(*t));
	if (!t)
		return error("out of memory"), EXIT_SYSTEM;
	x->targets = t;
	t[x->io.ntargets].dev = dev;
	t[x->io.ntargets].target = eq + 1;
	t[x->io.ntargets].job = 0;
	x->io.targets = t;
	x->io.ntargets++;
	return 0;
}

static int parse(struct xopts *x, int argc, char **argv)
{
	static const int fmts[] = {FMT_BLKPARSE, FMT_IOLOG, FMT_CSV}; /* --format's values */
	unsigned long long v;
	int c, i, ret;

	while ((c = cli_getopt(argc, argv, &doc_export)) != -1) {
		switch (c) {
		case 'f':
			if ((i = parse_value('f', optarg)) < 0)
				return EXIT_USAGE;
			x->fmt = fmts[i];
			break;
		case 'o':
			x->out = optarg;
			break;
		case 'm':
			if ((ret = add_map(x, optarg)))
				return ret;
			x->iolog_opts = true;
			break;
		case O_VERSION:
			if ((i = parse_value(O_VERSION, optarg)) < 0)
				return EXIT_USAGE;
			x->io.version = 2 + (unsigned)i; /* "2 3" */
			x->iolog_opts = true;
			break;
		case O_FROM:
			if ((i = parse_value(O_FROM, optarg)) < 0)
				return EXIT_USAGE;
			x->io.from_queue = i == 1; /* "issue queue" */
			x->iolog_opts = true;
			break;
		case O_IOENGINE:
			x->io.ioengine = optarg;
			x->iolog_opts = true;
			break;
		case O_TIMELINE:
			x->csv.timeline = true;
			x->csv_opts = true;
			break;
		case O_INTERVAL:
		case O_IDLE:
			if (parse_duration_ns(c == O_INTERVAL ? "--interval" : "--idle-threshold",
			                      optarg, &v))
				return EXIT_USAGE;
			if (c == O_INTERVAL && !v)
				return usage_error("--interval: must be more than 0");
			*(c == O_INTERVAL ? &x->csv.blk.interval_ns
			                  : &x->csv.blk.idle_threshold_ns) = v;
			x->csv_opts = true;
			break;
		default:
			return bad_option(argv);
		}
	}
	if (optind + 1 != argc)
		return usage_error(optind == argc ? "missing RUN" : "one RUN at a time");
	x->run = argv[optind];
	if (x->fmt == FMT_NONE)
		return usage_error("missing --format");
	if (x->iolog_opts && x->fmt != FMT_IOLOG)
		return usage_error(
		    "--map, --iolog-version, --from and --ioengine are for fio-iolog");
	if (x->csv_opts && x->fmt != FMT_CSV)
		return usage_error("--timeline, --interval and --idle-threshold are for csv");
	return 0;
}

int cmd_export(int argc, char **argv)
{
	struct xopts x;
	int ret;

	memset(&x, 0, sizeof(x));
	x.io.version = 3;
	blk_opts_init(&x.csv.blk);
	ret = parse(&x, argc, argv);
	if (!ret) {
		struct out_spec out = {x.out, x.fmt == FMT_IOLOG ? OUT_DIR : OUT_FILE, "-o"};
		struct iot_err e;

		if ((ret = out_check(&x.run, 1, NULL, 0, &out, x.out ? 1 : 0, &e)))
			ret = (error("%s", e.msg), exit_code_for(ret));
	}
	if (!ret) {
		switch (x.fmt) {
		case FMT_BLKPARSE:
			ret = do_blkparse(&x);
			break;
		case FMT_IOLOG:
			ret = do_iolog(&x);
			break;
		default:
			ret = do_csv(&x);
			break;
		}
	}
	free(x.targets);
	return ret;
}
