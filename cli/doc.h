/* SPDX-License-Identifier: MIT */
/* A command's documentation as data: the one source of its help, man page, completion, getopt. */
#ifndef IOTAPE_CLI_DOC_H
#define IOTAPE_CLI_DOC_H

#include <stdio.h>

/* What a value (or an operand) is, for bash completion. */
enum cli_kind {
	CLI_TEXT,     /* free text (a number, a duration, a label): nothing to offer */
	CLI_FILE,     /* any file */
	CLI_DIR,      /* a directory */
	CLI_INPUT,    /* a run directory, a trace (set NAME or file), a capture or a summary */
	CLI_BLOCKDEV, /* a block device (/dev/NAME) */
	CLI_IFACE,    /* a network interface */
	CLI_COMMAND,  /* operands: a program and its arguments, after "--" */
	CLI_CMDNAME,  /* operands: an iotape command */
};

/*
 * One option. The table of a command ends with an entry whose name and short_name are both
 * zero. getopt_long()'s tables are built from it (cli_getopt()), so an option that is not
 * documented cannot be parsed.
 */
struct cli_opt {
	const char *name;   /* long name without "--"; NULL for a short-only option */
	char short_name;    /* 0 when there is no short form */
	int key;            /* what cli_getopt() returns for it; 0 means short_name */
	const char *arg;    /* the value's name (DUR, FILE), NULL for a flag */
	enum cli_kind kind; /* what the value is, for completion */
	const char *values; /* the accepted values, space-separated (engines, formats, ...) */
	const char *help;   /* one or more sentences; wrapped by the renderers */
	const char *group;  /* starts a group of options under this heading ("targets") */
};

/*
 * A command's text. Prose (description, exit_status) is blocks separated by blank lines: a
 * block whose first line starts with a space is kept as it is (an example, a list); other
 * blocks are paragraphs, refilled to the width of the help or the man page.
 */
struct cli_doc {
	const char *summary;     /* one line: `iotape --help` and the man page's NAME */
	const char *synopsis;    /* what follows "iotape NAME", one form per line */
	const char *description; /* prose */
	const struct cli_opt *opts;
	enum cli_kind operands;  /* what the operands are, for completion */
	const char *exit_status; /* prose */
	const char *docs;        /* pages of docs/ to read, space-separated ("replay.md") */
	const char *see_also;    /* other manual pages ("blkparse(1) btt(1)") */
	int in_order;            /* options end at the first operand (capture's "-- COMMAND") */
};

/* A command as the manual knows it: its name and its text. */
struct cli_page {
	const char *name; /* "analyze"; NULL ends a list */
	const struct cli_doc *doc;
};

/* `iotape help NAME`: the usage, description, options and exit status, 80 columns wide; name
 * NULL for iotape's own, which also lists cmds. The pages of docs/ it names are in docdir
 * (NULL: "docs", as in the source tree). */
void cli_doc_help(FILE *f, const char *name, const struct cli_doc *d, const struct cli_page *cmds,
                  const char *docdir);
/* The usage line(s) alone, for a usage error. */
void cli_doc_usage(FILE *f, const char *name, const struct cli_doc *d);

/* Where the man pages say docs/ is installed, their version and date. */
struct cli_man_info {
	const char *version;
	const char *date;   /* YYYY-MM-DD or "" */
	const char *docdir; /* docs/X.md is installed as DOCDIR/X.md */
};
/* The man page iotape-NAME(1) in roff (man macros); name NULL for iotape(1) itself, whose
 * page also lists cmds. */
void cli_doc_man(FILE *f, const char *name, const struct cli_doc *d, const struct cli_page *cmds,
                 const struct cli_man_info *info);
/* The bash completion script for iotape and every command of cmds (main_opts: the options
 * that may come before the command). */
void cli_doc_bash(FILE *f, const struct cli_page *cmds, const struct cli_opt *main_opts);

/* Check a command's text and options for what the renderers and getopt need (unique names
 * and keys, values only with an argument, ...): 0, or -1 with the reason in err. */
int cli_doc_check(const char *name, const struct cli_doc *d, char *err, size_t len);

/*
 * getopt_long() over d's options: the same return values and optarg/optind, the tables built
 * from d on the first call (and again when d changes).
 */
int cli_getopt(int argc, char **argv, const struct cli_doc *d);

/* The option of d that cli_getopt() returns key for (NULL if none). */
const struct cli_opt *cli_opt_find(const struct cli_doc *d, int key);
/* The option of d that arg ("--name" or "--name=VALUE") names as getopt_long() reads it
 * (the whole name, or a prefix of one option's only), or NULL; *matches counts the options
 * it could name (more than one: ambiguous). */
const struct cli_opt *cli_opt_named(const struct cli_doc *d, const char *arg, unsigned *matches);
/* For an unknown "--name": the long option of d (or help, man, which every command takes)
 * nearest to it by edit distance, when few enough letters differ to be a typo; else NULL. */
#define CLI_NAME_MAX 64
const char *cli_opt_nearest(const struct cli_doc *d, const char *arg);
/* The index of s among the space-separated words of values, or -1. */
int cli_word_index(const char *values, const char *s);

#endif
