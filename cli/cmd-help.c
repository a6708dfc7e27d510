/* SPDX-License-Identifier: MIT */
/* iotape help and iotape version: help text, man pages and completion from the command table. */
#include "cli/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "capture/capture.h"
#include "iotape_version.h"

#ifndef IOTAPE_DOCDIR
#define IOTAPE_DOCDIR "/usr/local/share/doc/iotape/docs"
#endif

static const struct cli_opt iotape_opts[] = {
    {.name = "help", .short_name = 'h', .help = "show this help; after a command, its help"},
    {.name = "version", .key = 'V', .help = "print the version and the commit it was built from"},
    {0},
};

const struct cli_doc doc_iotape = {
    .summary = "capture, replay and analyze storage IO: block traces and NFS/RPC packets",
    .synopsis = "[--version] [--help] COMMAND [ARGS]",
    .description =
        "iotape captures what a Linux storage system does during a run, block-layer traces "
        "(blktrace-style) and NFS/ONC-RPC packets, into a run directory; replays that workload "
        "against another kernel, distribution, filesystem or device; and analyzes runs: idle "
        "gaps, seek patterns, latency percentiles, throughput, per-operation NFS response "
        "times, and comparisons across runs. It reads and writes the files the classic tools "
        "use (blktrace per-CPU sets, pcap and pcapng, fio iologs) and gives the same numbers as "
        "blkparse, btt and tshark where they overlap, in one streaming pass in bounded memory.\n"
        "\n"
        "A run directory holds manifest.json (kernel, distribution, devices, filesystems, "
        "clocks), the DEV.blktrace.CPU files of each traced device and net.pcap.\n"
        "\n"
        "Each command has its manual page, iotape-COMMAND(1); 'iotape help COMMAND' (or "
        "'iotape COMMAND --help') shows the same text, and 'iotape COMMAND --man' (or 'iotape "
        "help --man COMMAND') prints the page itself in roff. Every command takes --help and "
        "--man.",
    .opts = iotape_opts,
    .operands = CLI_CMDNAME,
    .exit_status = "0 success; 1 the analysis found a threshold crossed (compare --fail-if); "
                   "2 a usage or input error; 3 a system error (permission, device busy, out of "
                   "memory). capture exits with the status of the command it ran.",
    .docs = "design.md",
    .see_also = "blktrace(8) blkparse(1) btt(1) btreplay(8) fio(1) tshark(1)",
};

enum { O_MAN = 256, O_MAN_DIR, O_COMPLETION };

static const struct cli_opt help_opts[] = {
    {.name = "man",
     .key = O_MAN,
     .help = "print the manual page of COMMAND (of iotape without one) in roff, for "
             "'iotape help --man capture | man -l -'"},
    {.name = "man-dir",
     .key = O_MAN_DIR,
     .arg = "DIR",
     .kind = CLI_DIR,
     .help = "write every manual page into DIR, gzip-compressed: iotape.1.gz and "
             "iotape-COMMAND.1.gz (the build makes the installed pages so)"},
    {.name = "completion",
     .key = O_COMPLETION,
     .help = "print the bash completion script (installed as "
             "share/bash-completion/completions/iotape)"},
    {0},
};

const struct cli_doc doc_help = {
    .summary = "show the help or the manual page of a command",
    .synopsis = "[COMMAND]\n--man [COMMAND]\n--man-dir DIR\n--completion",
    .description = "Without a COMMAND, list the commands. With one, show its usage, what it does, "
                   "every option and its exit status: the text of its manual page, "
                   "iotape-COMMAND(1), which is made from the same source.",
    .opts = help_opts,
    .operands = CLI_CMDNAME,
    .exit_status = "0 success, 2 no such command or a bad option, 3 DIR could not be written.",
};

const struct cli_doc doc_version = {
    .summary = "print the version",
    .synopsis = "",
    .description = "Print iotape's version and the git commit it was built from, with the "
                   "commit's date, and whether the tree had uncommitted changes (as 'iotape "
                   "--version' does). A build from a 'git archive' tarball knows its commit "
                   "too; other builds without git history say the commit is unknown.",
    .exit_status = "0 success, 2 a bad option or operand.",
};

/* The manual: every command of the table with its text, as the renderers take it. */
struct manual {
	struct cli_page pages[64];
	size_t n;
};

static int manual_init(struct manual *m)
{
	memset(m, 0, sizeof(*m));
	for (const struct cmd *c = cli_commands; c->name; c++) {
		if (m->n + 1 >= sizeof(m->pages) / sizeof(m->pages[0]))
			return error("more than %zu commands", m->n), -E2BIG;
		m->pages[m->n++] = (struct cli_page){c->name, c->doc};
	}
	return 0;
}

/* Every text checked, so that a table getopt cannot use fails the build (which writes the
 * pages), not a user. */
static int manual_check(const struct manual *m)
{
	char err[256];

	if (cli_doc_check("iotape", &doc_iotape, err, sizeof(err)))
		return error("%s", err);
	for (size_t i = 0; i < m->n; i++)
		if (cli_doc_check(m->pages[i].name, m->pages[i].doc, err, sizeof(err)))
			return error("%s", err);
	return 0;
}

/* Where the pages of docs/ are for this iotape: the installed ones when they are there (a
 * package's), else the source tree's docs/ (a build run from its tree). */
static const char *docs_here(void)
{
	return access(IOTAPE_DOCDIR "/design.md", R_OK) == 0 ? IOTAPE_DOCDIR : NULL;
}

void cmd_help_print(FILE *f, const struct cmd *c)
{
	struct manual m;

	if (c)
		cli_doc_help(f, c->name, c->doc, NULL, docs_here());
	else if (manual_init(&m) == 0)
		cli_doc_help(f, NULL, &doc_iotape, m.pages, docs_here());
}

static const struct cli_man_info man_info = {
    .version = IOTAPE_VERSION,
    .date = iotape_commit_date,
    .docdir = IOTAPE_DOCDIR,
};

int cmd_man_print(FILE *f, const struct cmd *c)
{
	struct manual m;

	if (manual_init(&m) || manual_check(&m))
		return EXIT_SYSTEM;
	cli_doc_man(f, c ? c->name : NULL, c ? c->doc : &doc_iotape, m.pages, &man_info);
	if (fflush(f) == EOF)
		return error("write error: %s", strerror(errno)), EXIT_SYSTEM;
	return EXIT_OK;
}

/* The page of name (NULL: iotape's own) as dir/iotape-NAME.1.gz. */
static int write_page(const struct manual *m, const char *dir, const char *name,
                      const struct cli_doc *d)
{
	char *buf = NULL, path[4096];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	gzFile gz;
	int ret = 0;

	if (!f)
		return error("out of memory"), EXIT_SYSTEM;
	cli_doc_man(f, name, d, m->pages, &man_info);
	if (fclose(f))
		return free(buf), error("out of memory"), EXIT_SYSTEM;
	snprintf(path, sizeof(path), "%s/iotape%s%s.1.gz", dir, name ? "-" : "", name ? name : "");
	/* zlib's header has no file name and time 0: the same page gives the same bytes */
	gz = gzopen(path, "wb9");
	if (!gz || gzwrite(gz, buf, (unsigned)len) != (int)len)
		ret = (error("'%s': %s", path, strerror(errno ? errno : EIO)), EXIT_SYSTEM);
	if (gz && gzclose(gz) != Z_OK && !ret)
		ret = (error("'%s': write error", path), EXIT_SYSTEM);
	free(buf);
	return ret;
}

int cmd_help(int argc, char **argv)
{
	const char *man_dir = NULL;
	const struct cmd *c = NULL;
	int opt, man = 0, completion = 0, ret = EXIT_OK;
	struct manual m;

	optind = 1;
	while ((opt = cli_getopt(argc, argv, &doc_help)) != -1) {
		switch (opt) {
		case O_MAN:
			man = 1;
			break;
		case O_MAN_DIR:
			man_dir = optarg;
			break;
		case O_COMPLETION:
			completion = 1;
			break;
		default:
			return bad_option(argv);
		}
	}
	if (argc - optind > 1)
		return usage_error("one command at most");
	if (optind < argc && !(c = cli_find_cmd(argv[optind])))
		return error("no such command '%s'", argv[optind]), EXIT_USAGE;
	if (man + completion + !!man_dir > 1 || ((completion || man_dir) && c))
		return usage_error("--man, --man-dir and --completion go alone");
	if (!man && !completion && !man_dir) {
		cmd_help_print(stdout, c);
		return EXIT_OK;
	}
	if (manual_init(&m) || manual_check(&m))
		return EXIT_SYSTEM;
	if (completion)
		cli_doc_bash(stdout, m.pages, iotape_opts);
	else if (man)
		return cmd_man_print(stdout, c);
	else {
		ret = write_page(&m, man_dir, NULL, &doc_iotape);
		for (size_t i = 0; i < m.n && ret == EXIT_OK; i++)
			ret = write_page(&m, man_dir, m.pages[i].name, m.pages[i].doc);
	}
	if (ret == EXIT_OK && fflush(stdout) == EOF)
		ret = (error("write error: %s", strerror(errno)), EXIT_SYSTEM);
	return ret;
}

int cmd_version(int argc, char **argv)
{
	int opt;

	optind = 1;
	while ((opt = cli_getopt(argc, argv, &doc_version)) != -1)
		return bad_option(argv);
	if (optind < argc)
		return usage_error("no operands");
	printf("iotape %s (commit %s%s%s%s)\n", IOTAPE_VERSION,
	       *iotape_commit ? iotape_commit : "unknown", *iotape_commit_date ? " of " : "",
	       iotape_commit_date, iotape_commit_modified ? ", with uncommitted changes" : "");
	{
		const char *why;

		if (cap_bpf_built(&why))
			printf("capture backends: bpf, relay, tracefs\n");
		else
			printf("capture backends: relay, tracefs (no bpf: %s)\n", why);
	}
	return EXIT_OK;
}
