/* SPDX-License-Identifier: MIT */
/* What every command shares: messages, exit codes, option parsing, durations as text. No
 * command is called from here (scripts/file-cycles.py). */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "common/textesc.h"

/* Set by main() to its command table: help lists the commands through it without calling
 * back into iotape.c. */
const struct cmd *cli_commands;
const struct cmd *cli_cmd;

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	char *msg;

	fputs("iotape: ", stderr);
	if (cli_cmd)
		fprintf(stderr, "%s: ", cli_cmd->name);
	if (kind)
		fprintf(stderr, "%s: ", kind);
	/* file names, process names and manifest strings in messages: escaped (textesc.h) */
	if (vasprintf(&msg, fmt, ap) >= 0) {
		txt_puts(stderr, msg);
		free(msg);
	}
	fputc('\n', stderr);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning", fmt, ap);
	va_end(ap);
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, fmt, ap);
	va_end(ap);
	if (!cli_cmd)
		return EXIT_USAGE;
	/* the usage alone: the full text is one `iotape help CMD` away */
	cli_doc_usage(stderr, cli_cmd->name, cli_cmd->doc);
	fprintf(stderr, "try 'iotape help %s' for more\n", cli_cmd->name);
	return EXIT_USAGE;
}

int exit_code_for(int err)
{
	switch (-err) {
	case EPERM:
	case EACCES:
	case EBUSY:
	case ENOMEM:
	case ENOSPC:
	case EIO:
	case EROFS:
	case EMFILE:
	case ENFILE:
	case ETIMEDOUT:
		return EXIT_SYSTEM;
	default:
		return EXIT_USAGE;
	}
}

int parse_u64(const char *opt, const char *s, unsigned long long *out)
{
	char *end;

	errno = 0;
	if (!s || !*s || *s == '-')
		return usage_error("%s: '%s' is not a non-negative integer", opt, s ? s : ""), -1;
	*out = strtoull(s, &end, 0);
	if (errno || *end)
		return usage_error("%s: '%s' is not a non-negative integer", opt, s), -1;
	return 0;
}

const char *opt_name(int key)
{
	const struct cli_opt *o = cli_cmd ? cli_opt_find(cli_cmd->doc, key) : NULL;
	static char name[80];

	if (!o)
		snprintf(name, sizeof(name), "?");
	else if (o->name)
		snprintf(name, sizeof(name), "--%s", o->name);
	else
		snprintf(name, sizeof(name), "-%c", o->short_name);
	return name;
}

int bad_value(int key, const char *s)
{
	const struct cli_opt *o = cli_cmd ? cli_opt_find(cli_cmd->doc, key) : NULL;
	char words[512];
	size_t n = 0;

	/* "a, b or c" */
	words[0] = 0;
	for (const char *p = o ? o->values : NULL; p && *p && n < sizeof(words);) {
		size_t k = strcspn(p, " ");
		const char *rest = p + k + (p[k] == ' ');

		n += (size_t)snprintf(words + n, sizeof(words) - n, "%s%.*s",
		                      p == o->values ? ""
		                      : *rest        ? ", "
		                                     : " or ",
		                      (int)k, p);
		p = rest;
	}
	return usage_error("%s: '%s' is not %s", opt_name(key), s ? s : "",
	                   *words ? words : "a known value");
}

int parse_value(int key, const char *s)
{
	const struct cli_opt *o = cli_cmd ? cli_opt_find(cli_cmd->doc, key) : NULL;
	int i = o && o->values ? cli_word_index(o->values, s ? s : "") : -1;

	if (i < 0)
		bad_value(key, s);
	return i;
}

int parse_double(const char *opt, const char *s, double *out)
{
	char *end;

	errno = 0;
	if (!s || !*s)
		return usage_error("%s: missing number", opt), -1;
	*out = strtod(s, &end);
	if (errno || *end)
		return usage_error("%s: '%s' is not a number", opt, s), -1;
	return 0;
}

/* A value through one of common/parse.h's parsers, its refusal a usage error naming opt. */
static int parse_with(int (*parse)(const char *, uint64_t *, struct iot_err *), const char *opt,
                      const char *s, unsigned long long *out)
{
	struct iot_err e;
	uint64_t v;

	if (parse(s, &v, &e))
		return usage_error("%s: %s", opt, e.msg), -1;
	*out = v;
	return 0;
}

int parse_duration_ns(const char *opt, const char *s, unsigned long long *out)
{
	return parse_with(iot_parse_duration, opt, s, out); /* a duration has its unit */
}

int parse_size_bytes(const char *opt, const char *s, unsigned long long *out)
{
	return parse_with(iot_parse_size, opt, s, out); /* a bare number is bytes */
}

int bad_option(char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	const struct cli_doc *d = cli_cmd ? cli_cmd->doc : NULL;
	const struct cli_opt *o;
	const char *near;
	unsigned matches = 0;

	/* getopt says '?' both for an unknown option and for one missing its value */
	if (!strncmp(arg, "--", 2) || !optopt || optopt >= 128) {
		o = d ? cli_opt_named(d, arg, &matches) : NULL;
		if (matches > 1)
			return usage_error(
			    "option '%.*s' is ambiguous: it begins %u options' names",
			    (int)strcspn(arg, "="), arg, matches);
		if (o && o->arg)
			return usage_error("option '--%s' needs a value (%s)", o->name, o->arg);
		if (o)
			return usage_error("option '--%s' takes no value", o->name);
		near = d ? cli_opt_nearest(d, arg) : NULL;
		if (near)
			return usage_error("unknown option '%s'; did you mean '--%s'?", arg, near);
		return usage_error("unknown option '%s'", arg);
	}
	for (o = d ? d->opts : NULL; o && (o->name || o->short_name); o++)
		if (o->short_name == optopt && o->arg)
			return usage_error("option '-%c' needs a value (%s)", optopt, o->arg);
	return usage_error("unknown option '-%c'", optopt);
}

const struct cmd *cli_find_cmd(const char *name)
{
	for (const struct cmd *c = cli_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}
