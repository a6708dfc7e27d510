/* SPDX-License-Identifier: MIT */
/* What every subcommand shares: the command table entry, messages and exit codes. */
#ifndef IOTAPE_CLI_CLI_H
#define IOTAPE_CLI_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "cli/doc.h"

/* Exit codes (DESIGN.md "Errors and messages"). */
enum {
	EXIT_OK = 0,
	EXIT_THRESHOLD = 1, /* the analysis found a threshold crossed (compare --fail-if) */
	EXIT_USAGE = 2,     /* usage or input error */
	EXIT_SYSTEM = 3,    /* permission, device busy, out of memory, ... */
};

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const struct cli_doc *doc; /* help, man page, completion and options (cli/doc.h) */
};

/* The command table, ending with a NULL name: iotape.c's, set by main() (cli/util.c). */
extern const struct cmd *cli_commands;
extern const struct cmd *cli_cmd; /* the running command, for message prefixes */
/* The command called name, or NULL (cli/util.c, as are the helpers below). */
const struct cmd *cli_find_cmd(const char *name);

/* The text of iotape(1) and `iotape --help` (cmd-help.c). */
extern const struct cli_doc doc_iotape;
/* Print c's help (`iotape help NAME`, `iotape NAME --help`); c NULL for iotape's own. */
void cmd_help_print(FILE *f, const struct cmd *c);
/* Print c's manual page in roff (`iotape NAME --man`); an exit code. */
int cmd_man_print(FILE *f, const struct cmd *c);
/* Where the sources were when this was built: the commit ("" when unknown, in a tarball
 * made without `git archive`), its date, and 1 when the tree had uncommitted changes. */
extern const char iotape_commit[], iotape_commit_date[];
extern const int iotape_commit_modified;

/* "iotape: CMD: message\n" on stderr; returns -1 so `return error(...)` reads well. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print the usage error and the command's usage line; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Map a negative errno from the library to an exit code (input error vs system error). */
int exit_code_for(int err);

/* After getopt_long() returned '?': name the offending option in a usage error and return
 * EXIT_USAGE. getopt's own message is off (main sets opterr = 0). */
int bad_option(char **argv);

/* Parse helpers: 0 or -1 (after printing a usage error). */
/* The index of s among the values of the running command's option key, or -1 after a usage
 * error naming the accepted ones ("--engine: 'x' is not io_uring, psync or null"). */
int parse_value(int key, const char *s);
/* That usage error alone, for a value a library parser refused; returns EXIT_USAGE. */
int bad_value(int key, const char *s);
/* "--name" (or "-x") of the running command's option key, for messages. */
const char *opt_name(int key);
int parse_u64(const char *opt, const char *s, unsigned long long *out);
int parse_double(const char *opt, const char *s, double *out);
/* "10ms", "1.5s", "250us" into ns: a duration has its unit, a bare number other than 0 is
 * refused (common/parse.h). */
int parse_duration_ns(const char *opt, const char *s, unsigned long long *out);
/* A SIZE (common/parse.h: bytes, or 4k, 1.5m, 2g): a usage error naming opt when it is not one. */
int parse_size_bytes(const char *opt, const char *s, unsigned long long *out);

/* A command: its function, and its text and options (the doc_X its CMD(X) in the table of
 * iotape.c names). One CMD_DECL per subcommand. */
#define CMD_DECL(x)                                                                                \
	int cmd_##x(int argc, char **argv);                                                        \
	extern const struct cli_doc doc_##x
CMD_DECL(analyze);
CMD_DECL(capture);
CMD_DECL(replay);
CMD_DECL(report);
CMD_DECL(compare);
CMD_DECL(movie);
CMD_DECL(export);
CMD_DECL(sweep);
CMD_DECL(help);
CMD_DECL(version);

#endif
