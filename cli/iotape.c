/* SPDX-License-Identifier: MIT */
/* iotape: the entry point and the command table. */
#include "cli/cli.h"

#include <getopt.h>
#include <string.h>

/* The single command table: one line per subcommand (git style). Each command's text, options
 * and completion are its doc (cli/doc.h), in its own file. */
#define CMD(x)                                                                                     \
	{                                                                                          \
		.name = #x, .fn = cmd_##x, .doc = &doc_##x                                         \
	}
static const struct cmd commands[] = {
    CMD(analyze),
    CMD(replay),
    CMD(report),
    CMD(compare),
    CMD(capture),
    CMD(export),
    CMD(sweep),
    CMD(movie),
    /* new subcommands go here */
    CMD(help),
    CMD(version),
    {0},
};

int main(int argc, char **argv)
{
	const struct cmd *c;

	cli_commands = commands;
	if (argc < 2) {
		cmd_help_print(stderr, NULL);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		cmd_help_print(stdout, NULL);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version"))
		argv[1] = "version";
	c = cli_find_cmd(argv[1]);
	if (!c) {
		fprintf(stderr, "iotape: '%s' is not a command; see 'iotape --help'\n", argv[1]);
		return EXIT_USAGE;
	}
	cli_cmd = c;
	opterr = 0; /* commands report bad options themselves, with bad_option() */
	for (int i = 2; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			cmd_help_print(stdout, c);
			return EXIT_OK;
		}
		/* help's own --man names the page to print (iotape help --man [COMMAND]) */
		if (!strcmp(argv[i], "--man") && c->fn != cmd_help)
			return cmd_man_print(stdout, c);
	}
	return c->fn(argc - 1, argv + 1);
}
