/* SPDX-License-Identifier: MIT */
/* Unit tests for cli/doc.c and cli/doc-bash.c: help layout, roff escapes, checks, getopt. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <getopt.h>

#include "cli/doc.h"

#include "../memtext.h"

enum { K_TOP = 256 };

static const struct cli_opt opts[] = {
    {.name = "json", .key = 'j', .help = "write JSON"},
    {.name = "output", .short_name = 'o', .arg = "FILE", .kind = CLI_FILE, .help = "to FILE"},
    {.name = "engine",
     .short_name = 'e',
     .arg = "NAME",
     .values = "io_uring psync null",
     .help = "the engine",
     .group = "engine"},
    {.name = "top", .key = K_TOP, .arg = "N", .help = "the N longest"},
    {.name = "a-very-long-option-name", .key = 'L', .arg = "VALUE", .help = "below its name"},
    {0},
};

static const struct cli_doc doc = {
    .summary = "do a thing",
    .synopsis =
        "[--json] [-o FILE] [--engine NAME] INPUT...\n--top N [--a-very-long-option-name V]",
    .description = "A first paragraph, long enough that it has to be wrapped at eighty columns "
                   "by the help and refilled by roff, with docs/json.md named in it.\n"
                   "\n"
                   "  iotape thing -o x.json run\n"
                   "  .not a request\n"
                   "\n"
                   ".a line that starts with a dot, and a back\\slash (docs/replay.md).",
    .opts = opts,
    .operands = CLI_INPUT,
    .exit_status = "0 success",
    .docs = "thing.md",
    .see_also = "blkparse(1) fio(1)",
};

static char *render(void (*fn)(FILE *, void *), void *arg)
{
	struct memtext m;

	fn(memtext_start(&m), arg);
	return memtext_end(&m);
}

static void help_fn(FILE *f, void *arg)
{
	cli_doc_help(f, "thing", arg, NULL, NULL);
}

static void man_fn(FILE *f, void *arg)
{
	static const struct cli_man_info info = {"1.2.3", "2026-01-02", "/usr/share/doc/iotape"};

	cli_doc_man(f, "thing", arg, NULL, &info);
}

static void bash_fn(FILE *f, void *arg)
{
	const struct cli_page pages[] = {{"thing", arg}, {NULL, NULL}};

	cli_doc_bash(f, pages, NULL);
}

static void test_help(void **state)
{
	char *h = render(help_fn, (void *)&doc), *line, *save = NULL;

	(void)state;
	/* every line within 80 columns */
	for (line = strtok_r(h, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		assert_true(strlen(line) <= 80);
	free(h);
	h = render(help_fn, (void *)&doc);
	assert_non_null(strstr(h,
	                       "usage: iotape thing [--json] [-o FILE] [--engine NAME] INPUT...\n"
	                       "   or: iotape thing --top N [--a-very-long-option-name V]\n"));
	/* the verbatim block as written, the paragraph refilled */
	assert_non_null(strstr(h, "\n  iotape thing -o x.json run\n  .not a request\n"));
	assert_non_null(strstr(h, "\nA first paragraph, long enough that it has to be wrapped at "
	                          "eighty columns by\nthe help"));
	/* options in one column; the group heading; a long one has its help on the next line */
	assert_non_null(strstr(h, "\noptions:\n      --json         write JSON\n"
	                          "  -o, --output FILE  to FILE\n\nengine:\n"
	                          "  -e, --engine NAME  the engine\n"));
	assert_non_null(strstr(h, "\n      --a-very-long-option-name VALUE\n                     "
	                          "below its name\n"));
	assert_non_null(strstr(h, "\nexit status:\n  0 success\n\nmore: docs/thing.md\n"));
	free(h);
}

static void test_help_synopsis_brackets(void **state)
{
	static const struct cli_doc d = {
	    .summary = "s",
	    .synopsis =
	        "[--aaaaaaaaaa AAAAAAAAAA] [--bbbbbbbbbb BBBBBBBBBB] [--cccccccccc CCCCCCCCCC] "
	        "[--dddddddd DDDD]",
	};
	char *h;

	(void)state;
	h = render(help_fn, (void *)&d);
	/* broken between the brackets, never inside, the next line under the first option */
	assert_string_equal(h, "usage: iotape thing [--aaaaaaaaaa AAAAAAAAAA] [--bbbbbbbbbb "
	                       "BBBBBBBBBB]\n                    [--cccccccccc CCCCCCCCCC] "
	                       "[--dddddddd DDDD]\n");
	free(h);
}

static void test_man(void **state)
{
	char *m = render(man_fn, (void *)&doc);

	(void)state;
	assert_non_null(strstr(m, ".TH IOTAPE\\-THING 1 \"2026-01-02\" \"iotape 1.2.3\""));
	assert_non_null(strstr(m, ".SH NAME\niotape\\-thing \\- do a thing\n"));
	assert_non_null(strstr(m, ".SY \"iotape thing\"\n[\\-\\-json] [\\-o\\ FILE]"));
	/* a line starting with a dot is text, not a request; backslashes and minus escaped */
	assert_non_null(strstr(m, "\n\\&.a line that starts"));
	assert_non_null(strstr(m, "back\\eslash"));
	assert_non_null(strstr(m, ".EX\n  iotape thing \\-o x.json run\n  .not a request\n.EE\n"));
	/* docs/X.md named as installed */
	assert_non_null(strstr(m, "/usr/share/doc/iotape/json.md"));
	assert_non_null(strstr(m, "(/usr/share/doc/iotape/replay.md)."));
	assert_null(strstr(m, "docs/"));
	assert_non_null(strstr(m,
	                       ".SS engine\n.TP\n\\fB\\-e\\fR, \\fB\\-\\-engine\\fR \\fINAME\\fR\n"
	                       "the engine\n"));
	assert_non_null(strstr(m, ".SH SEE ALSO\n\\fBiotape\\fR(1),\n\\fBblkparse\\fR(1),\n"
	                          "\\fBfio\\fR(1)\n.PP\n/usr/share/doc/iotape/thing.md\n"));
	/* no line starts with '.' but the requests the renderer writes */
	for (char *p = m; (p = strchr(p, '\n')); p++) {
		static const char *const req[] = {".TH ",  ".SH ",  ".SS ",    ".TP\n",
		                                  ".PP\n", ".SY ",  ".YS\n",   ".EX\n",
		                                  ".EE\n", ".nh\n", ".ad l\n", ".nr HY 0\n"};
		int known = p[1] != '.';

		for (size_t i = 0; !known && i < sizeof(req) / sizeof(req[0]); i++)
			known = !strncmp(p + 1, req[i], strlen(req[i]));
		if (!known)
			fail_msg("a request the renderer does not write: %.20s", p + 1);
	}
	free(m);
}

static void test_bash(void **state)
{
	char *b = render(bash_fn, (void *)&doc);

	(void)state;
	assert_non_null(strstr(b, "\tthing)\n\t\topts='--json -o --output -e --engine --top "
	                          "--a-very-long-option-name' operands=input\n"));
	assert_non_null(strstr(b, "\t\t\t-o | --output) _iotape_value file; return 0 ;;\n"));
	assert_non_null(strstr(
	    b, "\t\t\t-e | --engine) _iotape_value words 'io_uring psync null'; return 0 ;;\n"));
	assert_non_null(strstr(b, "\t\t\t--top) return 0 ;;\n"));
	assert_null(strstr(b, "--json)"));
	assert_non_null(strstr(b, "local commands='thing'\n"));
	free(b);
}

static void test_check(void **state)
{
	char err[256];
	struct cli_opt o[3] = {{.name = "x", .key = 'x', .help = "h"}, {0}, {0}};
	struct cli_doc d = {.summary = "s", .synopsis = "[--x] [--idle-threshold D]", .opts = o};

	(void)state;
	assert_int_equal(cli_doc_check("t", &doc, err, sizeof(err)), 0);
	assert_int_equal(cli_doc_check("t", &d, err, sizeof(err)), 0);
	/* an alias: the same key, both with a value */
	o[0] = (struct cli_opt){.name = "idle-threshold", .key = 't', .arg = "D", .help = "h"};
	o[1] = (struct cli_opt){.name = "idle", .key = 't', .arg = "D", .help = "same"};
	assert_int_equal(cli_doc_check("t", &d, err, sizeof(err)), 0);
	o[1].arg = NULL;
	assert_int_equal(cli_doc_check("t", &d, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "same key"));
	o[1] = (struct cli_opt){.name = "idle-threshold", .key = 'u', .help = "h"};
	assert_int_equal(cli_doc_check("t", &d, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "twice"));
	o[1] = (struct cli_opt){.name = "v", .key = 'v', .values = "a b", .help = "h"};
	assert_int_equal(cli_doc_check("t", &d, err, sizeof(err)), -1);
	o[1] = (struct cli_opt){.name = "v", .key = 'v', .arg = "V", .values = "a 'b", .help = "h"};
	assert_int_equal(cli_doc_check("t", &d, err, sizeof(err)), -1);
	o[1] = (struct cli_opt){.name = "v", .arg = "V", .help = "h"}; /* no key */
	assert_int_equal(cli_doc_check("t", &d, err, sizeof(err)), -1);
	o[1] = (struct cli_opt){.name = "v", .key = 'v', .arg = "V"}; /* no help */
	assert_int_equal(cli_doc_check("t", &d, err, sizeof(err)), -1);
	o[1] = (struct cli_opt){.name = "--v", .key = 'v', .help = "h"};
	assert_int_equal(cli_doc_check("t", &d, err, sizeof(err)), -1);
	o[1] = (struct cli_opt){.name = "v", .key = 'v', .kind = CLI_FILE, .help = "h"};
	assert_int_equal(cli_doc_check("t", &d, err, sizeof(err)), -1);
	o[1] = (struct cli_opt){0};
	/* every option but an alias in the synopsis, by either name, or [OPTIONS] there */
	o[0] = (struct cli_opt){.name = "xy", .short_name = 'x', .help = "h"};
	assert_int_equal(cli_doc_check("t", &d, err, sizeof(err)), -1); /* --x is not -x */
	d.synopsis = "[--xyz]";
	assert_int_equal(cli_doc_check("t", &d, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'--xy' is not in the synopsis"));
	d.synopsis = "[-x]";
	assert_int_equal(cli_doc_check("t", &d, err, sizeof(err)), 0);
	d.synopsis = "[--xy|-y]";
	assert_int_equal(cli_doc_check("t", &d, err, sizeof(err)), 0);
	d.synopsis = "[OPTIONS] INPUT";
	assert_int_equal(cli_doc_check("t", &d, err, sizeof(err)), 0);
	d.synopsis = "a\n";
	assert_int_equal(cli_doc_check("t", &d, err, sizeof(err)), -1);
}

static void test_getopt(void **state)
{
	char *argv[] = {"thing", "--json", "-o", "out", "--top=3", "run", "-e", "null", NULL};
	int c, seen = 0;

	(void)state;
	optind = 1;
	while ((c = cli_getopt(8, argv, &doc)) != -1) {
		switch (c) {
		case 'j':
			seen |= 1;
			break;
		case 'o':
			assert_string_equal(optarg, "out");
			seen |= 2;
			break;
		case K_TOP:
			assert_string_equal(optarg, "3");
			seen |= 4;
			break;
		case 'e':
			assert_int_equal(cli_word_index(cli_opt_find(&doc, 'e')->values, optarg),
			                 2);
			seen |= 8;
			break;
		default:
			fail_msg("unexpected %d", c);
		}
	}
	assert_int_equal(seen, 15);
	/* getopt moved the operand last */
	assert_int_equal(optind, 7);
	assert_string_equal(argv[7], "run");
	assert_int_equal(cli_word_index("io_uring psync null", "psync"), 1);
	assert_int_equal(cli_word_index("io_uring psync null", "sync"), -1);
	assert_int_equal(cli_word_index("io_uring psync null", ""), -1);
	assert_null(cli_opt_find(&doc, 'z'));
}

/* Unknown options: the one getopt would take, ambiguity, and the nearest name for a typo. */
static void test_option_names(void **state)
{
	unsigned n;

	(void)state;
	assert_string_equal(cli_opt_named(&doc, "--output", &n)->name, "output");
	assert_int_equal(n, 1);
	assert_string_equal(cli_opt_named(&doc, "--out=x", &n)->name, "output");
	assert_string_equal(cli_opt_named(&doc, "--t", &n)->name, "top");
	assert_null(cli_opt_named(&doc, "--", &n)); /* every name begins with "" */
	assert_int_equal(n, 5);
	assert_null(cli_opt_named(&doc, "--jsno", &n));
	assert_int_equal(n, 0);
	assert_null(cli_opt_named(&doc, "-o", &n));

	assert_string_equal(cli_opt_nearest(&doc, "--jsno"), "json");       /* swap */
	assert_string_equal(cli_opt_nearest(&doc, "--jso"), "json");        /* deletion */
	assert_string_equal(cli_opt_nearest(&doc, "--engien=x"), "engine"); /* value ignored */
	assert_string_equal(cli_opt_nearest(&doc, "--outptu"), "output");
	assert_string_equal(cli_opt_nearest(&doc, "--hepl"), "help"); /* every command's */
	assert_string_equal(cli_opt_nearest(&doc, "--mna"), "man");
	assert_string_equal(cli_opt_nearest(&doc, "--a-very-long-optoin-nmae"),
	                    "a-very-long-option-name");
	assert_null(cli_opt_nearest(&doc, "--verbose")); /* nothing like it */
	assert_null(cli_opt_nearest(&doc, "--xyz"));
	assert_null(cli_opt_nearest(&doc, "-j"));
	/* a name longer than the distance table is never near */
	assert_null(cli_opt_nearest(&doc,
	                            "--jsonjsonjsonjsonjsonjsonjsonjsonjsonjsonjsonjsonjsonjson"
	                            "jsonjsonjsonjson"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_help),         cmocka_unit_test(test_help_synopsis_brackets),
	    cmocka_unit_test(test_man),          cmocka_unit_test(test_bash),
	    cmocka_unit_test(test_check),        cmocka_unit_test(test_getopt),
	    cmocka_unit_test(test_option_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
