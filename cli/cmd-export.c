/* SPDX-License-Identifier: MIT */
/* iotape export: a block trace as blkparse's text, fio iologs with a job file, or CSV. */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/export.h"

const char usage_export[] =
    "usage: iotape export RUN --format blkparse|fio-iolog|csv [-o OUT] [OPTIONS]\n"
    "\n"
    "Write a block trace in another tool's format (docs/export.md). RUN is a run directory\n"
    "or a per-CPU set NAME (NAME.blktrace.0, .1, ...); files may be gzip-compressed.\n"
    "\n"
    "formats:\n"
    "  blkparse     the text of 'blkparse -i NAME' (blktrace 1.2, default options), byte\n"
    "               for byte, as it writes it to a file; a run directory DIR is read as\n"
    "               'blkparse -i DIR/NAME1 -i DIR/NAME2 ...' (sets sorted by name)\n"
    "\n"
    "options:\n"
    "  -f, --format FMT       the output format (required)\n"
    "  -o, --output OUT       write to OUT instead of standard output\n"
    "\n"
    "exit status: 0 success, 2 usage or input error, 3 system error\n";

enum { FMT_NONE, FMT_BLKPARSE };

static int open_out(const char *out, int *fd)
{
	if (!out || !strcmp(out, "-")) {
		*fd = STDOUT_FILENO;
		return 0;
	}
	*fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (*fd < 0)
		return error("'%s': %s", out, strerror(errno)),
		       errno == ENOENT ? EXIT_USAGE : EXIT_SYSTEM;
	return 0;
}

static int do_blkparse(const char *run, const char *out)
{
	struct export_stats st;
	struct iot_err e;
	char **sets;
	unsigned n;
	int fd, ret;

	if ((ret = export_find_sets(run, &sets, &n, &e)))
		return error("%s", e.msg), exit_code_for(ret);
	if ((ret = open_out(out, &fd))) {
		export_free_sets(sets, n);
		return ret;
	}
	ret = export_blkparse(sets, n, fd, &st, &e);
	export_free_sets(sets, n);
	if (fd != STDOUT_FILENO && close(fd) && !ret) {
		ret = -errno;
		snprintf(e.msg, sizeof(e.msg), "'%s': %s", out, strerror(errno));
	}
	if (ret)
		return error("%s", e.msg), exit_code_for(ret);
	return EXIT_OK;
}

int cmd_export(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"format", required_argument, NULL, 'f'},
	    {"output", required_argument, NULL, 'o'},
	    {NULL, 0, NULL, 0},
	};
	const char *out = NULL;
	int fmt = FMT_NONE, c;

	while ((c = getopt_long(argc, argv, "f:o:", lo, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "blkparse"))
				fmt = FMT_BLKPARSE;
			else
				return usage_error(
				    "--format: '%s' is not blkparse, fio-iolog or csv", optarg);
			break;
		case 'o':
			out = optarg;
			break;
		default:
			return bad_option(argv);
		}
	}
	if (optind + 1 != argc)
		return usage_error(optind == argc ? "missing RUN" : "one RUN at a time");
	if (fmt == FMT_NONE)
		return usage_error("missing --format");
	return do_blkparse(argv[optind], out);
}
