/* SPDX-License-Identifier: MIT */
/* A command's documentation rendered as help text and man page, checked, and fed to getopt. */
#include "cli/doc.h"

#include <ctype.h>
#include <getopt.h>
#include <stdint.h>
#include <string.h>

#define HELP_WIDTH 80
#define HELP_OPT_COL_MAX 28 /* widest option column; longer options put their help below */
#define ROFF_WIDTH 78       /* source lines of the man page, for whoever reads the roff */
#define CLI_MAX_OPTS 64

/* ---- text -------------------------------------------------------------------------------- */

/* The end of the word at p: up to a blank, except inside [], () or {} when bracketed (a
 * synopsis's "[--top N]" is not broken across lines). */
static const char *word_end(const char *p, const char *end, int bracketed)
{
	int depth = 0;

	for (; p < end; p++) {
		if (bracketed && strchr("[({", *p))
			depth++;
		else if (bracketed && strchr("])}", *p) && depth > 0)
			depth--;
		else if (isspace((unsigned char)*p) && !depth)
			break;
	}
	return p;
}

/* Fill the words of s[0..n) to width: the first word goes at column col (where the caller
 * left the line), later lines start indent columns in. Returns the column reached. */
static int fill(FILE *f, const char *s, size_t n, int col, int indent, int width, int bracketed)
{
	const char *p = s, *end = s + n;
	int first = 1;

	for (;;) {
		const char *w;
		int len;

		while (p < end && isspace((unsigned char)*p))
			p++;
		if (p == end)
			return col;
		w = p;
		p = word_end(p, end, bracketed);
		len = (int)(p - w);
		if (!first && col + 1 + len > width) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (!first) {
			fputc(' ', f);
			col++;
		}
		fwrite(w, 1, (size_t)len, f);
		col += len;
		first = 0;
	}
}

/* Prose: the next block after *p (blocks are separated by blank lines). Returns 0 at the end;
 * else the block is *b, *n bytes, and *verbatim says its first line starts with a space. */
static int next_block(const char **p, const char **b, size_t *n, int *verbatim)
{
	const char *s = *p, *e;

	while (*s == '\n')
		s++;
	if (!*s)
		return 0;
	e = strstr(s, "\n\n");
	if (!e)
		e = s + strlen(s);
	*b = s;
	*n = (size_t)(e - s);
	*verbatim = *s == ' ';
	*p = e;
	return 1;
}

/* The line at s (up to '\n' or the end): its length; *next is where the next one starts. */
static size_t line_len(const char *s, const char **next)
{
	const char *e = strchr(s, '\n');

	if (!e) {
		*next = s + strlen(s);
		return strlen(s);
	}
	*next = e + 1;
	return (size_t)(e - s);
}

static int count_opts(const struct cli_opt *o)
{
	int n = 0;

	while (o && (o[n].name || o[n].short_name))
		n++;
	return n;
}

/* ---- help ---------------------------------------------------------------------------- */

static void help_prose(FILE *f, const char *text, int indent)
{
	const char *p = text, *b;
	size_t n;
	int verbatim, first = 1;

	while (next_block(&p, &b, &n, &verbatim)) {
		if (!first)
			fputc('\n', f);
		first = 0;
		if (verbatim)
			fprintf(f, "%.*s\n", (int)n, b);
		else {
			fprintf(f, "%*s", indent, "");
			fill(f, b, n, indent, indent, HELP_WIDTH, 0);
			fputc('\n', f);
		}
	}
}

static void usage_lines(FILE *f, const char *prefix, const char *name, const char *synopsis)
{
	const char *p = synopsis, *next;
	int first = 1;

	do {
		size_t n = line_len(p, &next);
		int col = fprintf(f, "%s iotape%s%s", first ? prefix : "   or:", name ? " " : "",
		                  name ? name : "");

		if (n) {
			fputc(' ', f);
			fill(f, p, n, col + 1, col + 1, HELP_WIDTH, 1);
		}
		fputc('\n', f);
		first = 0;
		p = next;
	} while (*p);
}

void cli_doc_usage(FILE *f, const char *name, const struct cli_doc *d)
{
	usage_lines(f, "usage:", name, d->synopsis);
}

/* "  -o, --output FILE" into buf; returns its length. */
static int opt_head(char *buf, size_t len, const struct cli_opt *o)
{
	int n;

	if (o->short_name && o->name)
		n = snprintf(buf, len, "  -%c, --%s", o->short_name, o->name);
	else if (o->short_name)
		n = snprintf(buf, len, "  -%c", o->short_name);
	else
		n = snprintf(buf, len, "      --%s", o->name);
	if (o->arg && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " %s", o->arg);
	return n;
}

/* What every DUR and SIZE value is (common/parse.h), under the options of a command that has
 * one. */
static const char dur_note[] = "DUR is a duration with its unit: ns, us, ms, s, m or h (250us, "
                               "1.5s, 10m); a number without one is refused, except 0.";
static const char size_note[] = "SIZE is bytes, or a number with a binary unit: k, m, g, t "
                                "(4k = 4KiB = 4096, 1.5m, 2g); a number without one is bytes.";

static int has_arg(const struct cli_opt *o, int n, const char *arg)
{
	for (int i = 0; i < n; i++)
		if (o[i].arg && !strcmp(o[i].arg, arg))
			return 1;
	return 0;
}

void cli_doc_help(FILE *f, const char *name, const struct cli_doc *d, const struct cli_page *cmds,
                  const char *docdir)
{
	int col = 0, n = count_opts(d->opts);
	char head[128];

	cli_doc_usage(f, name, d);
	if (d->description) {
		fputc('\n', f);
		help_prose(f, d->description, 0);
	}
	if (cmds)
		fputs("\ncommands:\n", f);
	for (; cmds && cmds->name; cmds++) {
		fprintf(f, "   %-10s ", cmds->name);
		fill(f, cmds->doc->summary, strlen(cmds->doc->summary), 14, 14, HELP_WIDTH, 0);
		fputc('\n', f);
	}
	for (int i = 0; i < n; i++) {
		int w = opt_head(head, sizeof(head), &d->opts[i]) + 2;
		if (w > col && w <= HELP_OPT_COL_MAX)
			col = w;
	}
	for (int i = 0; i < n; i++) {
		const struct cli_opt *o = &d->opts[i];
		int w = opt_head(head, sizeof(head), o);

		if (o->group)
			fprintf(f, "\n%s:\n", o->group);
		else if (i == 0)
			fputs("\noptions:\n", f);
		fputs(head, f);
		if (w + 2 > col)
			fprintf(f, "\n%*s", col, "");
		else
			fprintf(f, "%*s", col - w, "");
		fill(f, o->help, strlen(o->help), col, col, HELP_WIDTH, 0);
		fputc('\n', f);
	}
	if (has_arg(d->opts, n, "DUR")) {
		fputc('\n', f);
		help_prose(f, dur_note, 0);
	}
	if (has_arg(d->opts, n, "SIZE")) {
		fputc('\n', f);
		help_prose(f, size_note, 0);
	}
	if (d->exit_status) {
		fputs("\nexit status:\n", f);
		help_prose(f, d->exit_status, 2);
	}
	if (d->docs) {
		const char *p = d->docs;

		fputs("\nmore:", f);
		while (*p) {
			size_t k = strcspn(p, " ");
			if (k)
				fprintf(f, "%s %s/%.*s", p == d->docs ? "" : ",",
				        docdir ? docdir : "docs", (int)k, p);
			p += k + (p[k] == ' ');
		}
		fputc('\n', f);
	}
}

/* ---- man page ------------------------------------------------------------------------ */

struct roff {
	FILE *f;
	int col; /* column in the roff source line; 0 at the start of a line */
	const struct cli_man_info *info;
};

/* One word of running text: escaped, and at the start of a line made safe from being read as
 * a request. docs/X.md becomes the installed path. */
static void roff_word(struct roff *r, const char *w, size_t n)
{
	const char *docs = NULL;

	if (r->col && r->col + 1 + (int)n > ROFF_WIDTH) {
		fputc('\n', r->f);
		r->col = 0;
	} else if (r->col) {
		fputc(' ', r->f);
		r->col++;
	}
	if (!r->col && n && (w[0] == '.' || w[0] == '\''))
		r->col += fprintf(r->f, "\\&");
	for (size_t i = 0; i < n; i++) {
		if (!docs && !strncmp(w + i, "docs/", 5) && i + 5 < n && r->info->docdir &&
		    (i == 0 || w[i - 1] == '(')) {
			docs = w + i;
			r->col += fprintf(r->f, "%s/", r->info->docdir);
			i += 4;
			continue;
		}
		if (w[i] == '\\')
			r->col += fprintf(r->f, "\\e");
		else if (w[i] == ' ') /* inside a synopsis's [...]: unbreakable */
			r->col += fprintf(r->f, "\\ ");
		else if (w[i] == '-')
			r->col += fprintf(r->f, "\\-");
		else {
			fputc(w[i], r->f);
			r->col++;
		}
	}
}

/* Running text: the words of s[0..n), refilled by roff itself; bracketed as for fill(). */
static void roff_fill_b(struct roff *r, const char *s, size_t n, int bracketed)
{
	const char *p = s, *end = s + n;

	for (;;) {
		const char *w;

		while (p < end && isspace((unsigned char)*p))
			p++;
		if (p == end)
			break;
		w = p;
		p = word_end(p, end, bracketed);
		roff_word(r, w, (size_t)(p - w));
	}
}

static void roff_fill(struct roff *r, const char *s, size_t n)
{
	roff_fill_b(r, s, n, 0);
}

/* End the current source line, if one is open, before a request. */
static void roff_req(struct roff *r, const char *req)
{
	if (r->col)
		fputc('\n', r->f);
	r->col = 0;
	fprintf(r->f, "%s\n", req);
}

/* A verbatim line: escapes, no refill (inside .EX/.EE). */
static void roff_line(struct roff *r, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i == 0 && (s[0] == '.' || s[0] == '\''))
			fputs("\\&", r->f);
		if (s[i] == '\\')
			fputs("\\e", r->f);
		else if (s[i] == '-')
			fputs("\\-", r->f);
		else
			fputc(s[i], r->f);
	}
	fputc('\n', r->f);
	r->col = 0;
}

static void roff_prose(struct roff *r, const char *text)
{
	const char *p = text, *b, *next;
	size_t n;
	int verbatim, first = 1;

	while (next_block(&p, &b, &n, &verbatim)) {
		if (!first)
			roff_req(r, ".PP");
		first = 0;
		if (!verbatim) {
			roff_fill(r, b, n);
			continue;
		}
		roff_req(r, ".EX");
		for (const char *l = b; l < b + n; l = next)
			roff_line(r, l, line_len(l, &next));
		roff_req(r, ".EE");
	}
	roff_req(r, "");
}

/* A name in roff: '-' as \- (so copied text is a hyphen-minus). */
static void roff_name(FILE *f, const char *s, int upper)
{
	for (; *s; s++) {
		if (*s == '-')
			fputs("\\-", f);
		else
			fputc(upper ? toupper((unsigned char)*s) : *s, f);
	}
}

static void man_opt(struct roff *r, const struct cli_opt *o)
{
	FILE *f = r->f;

	roff_req(r, ".TP");
	if (o->short_name)
		fprintf(f, "\\fB\\-%c\\fR%s", o->short_name, o->name ? ", " : "");
	if (o->name) {
		fputs("\\fB\\-\\-", f);
		roff_name(f, o->name, 0);
		fputs("\\fR", f);
	}
	if (o->arg) {
		fputs(" \\fI", f);
		roff_name(f, o->arg, 0);
		fputs("\\fR", f);
	}
	fputc('\n', f);
	roff_fill(r, o->help, strlen(o->help));
}

static void man_synopsis(struct roff *r, const char *name, const char *synopsis)
{
	const char *p = synopsis, *next;

	roff_req(r, ".SH SYNOPSIS");
	do {
		size_t n = line_len(p, &next);

		/* .SY is a request: it must start a line, after the previous form's words */
		if (r->col)
			fputc('\n', r->f);
		r->col = 0;
		fputs(".SY \"iotape", r->f);
		if (name) {
			fputc(' ', r->f);
			roff_name(r->f, name, 0);
		}
		fputs("\"\n", r->f);
		roff_fill_b(r, p, n, 1);
		p = next;
	} while (*p);
	roff_req(r, ".YS");
}

static void man_see_also(struct roff *r, const char *name, const struct cli_doc *d,
                         const struct cli_page *cmds)
{
	const char *p;
	int n = 0;

	roff_req(r, ".SH SEE ALSO");
	if (name)
		fprintf(r->f, "%s\\fBiotape\\fR(1)", n++ ? ",\n" : "");
	for (; !name && cmds && cmds->name; cmds++) {
		fprintf(r->f, "%s\\fBiotape\\-", n++ ? ",\n" : "");
		roff_name(r->f, cmds->name, 0);
		fputs("\\fR(1)", r->f);
	}
	for (p = d->see_also; p && *p;) {
		size_t k = strcspn(p, " "), open = strcspn(p, "(");

		if (k && open < k) {
			fprintf(r->f, "%s\\fB", n++ ? ",\n" : "");
			for (size_t i = 0; i < open; i++) {
				if (p[i] == '-')
					fputs("\\-", r->f);
				else
					fputc(p[i], r->f);
			}
			fprintf(r->f, "\\fR%.*s", (int)(k - open), p + open);
		}
		p += k + (p[k] == ' ');
	}
	if (n)
		fputc('\n', r->f);
	for (p = d->docs; p && *p;) {
		size_t k = strcspn(p, " ");

		if (k) {
			roff_req(r, ".PP");
			fprintf(r->f, "%s/%.*s\n", r->info->docdir, (int)k, p);
		}
		p += k + (p[k] == ' ');
	}
}

void cli_doc_man(FILE *f, const char *name, const struct cli_doc *d, const struct cli_page *cmds,
                 const struct cli_man_info *info)
{
	struct roff r = {f, 0, info};
	const struct cli_opt *o = d->opts;
	int n = count_opts(o);

	fputs(".\\\" Generated by 'iotape help --man' from the command's text in cli/\n", f);
	/* no hyphenation (groff reads HY at each paragraph), ragged right: option names and
	 * paths stay whole */
	fputs(".nr HY 0\n.TH IOTAPE", f);
	if (name) {
		fputs("\\-", f);
		roff_name(f, name, 1);
	}
	fprintf(f, " 1 \"%s\" \"iotape %s\" \"iotape manual\"\n", info->date ? info->date : "",
	        info->version);
	fputs(".nh\n.ad l\n", f);
	fputs(".SH NAME\niotape", f);
	if (name) {
		fputs("\\-", f);
		roff_name(f, name, 0);
	}
	fputs(" \\- ", f);
	roff_fill(&r, d->summary, strlen(d->summary));
	man_synopsis(&r, name, d->synopsis);
	if (d->description) {
		roff_req(&r, ".SH DESCRIPTION");
		roff_prose(&r, d->description);
	}
	if (!name && cmds) {
		roff_req(&r, ".SH COMMANDS");
		for (const struct cli_page *c = cmds; c->name; c++) {
			roff_req(&r, ".TP");
			fputs("\\fBiotape\\-", f);
			roff_name(f, c->name, 0);
			fputs("\\fR(1)\n", f);
			roff_fill(&r, c->doc->summary, strlen(c->doc->summary));
		}
	}
	if (n)
		roff_req(&r, ".SH OPTIONS");
	for (int i = 0; i < n; i++) {
		if (o[i].group) {
			roff_req(&r, "");
			fputs(".SS ", f);
			roff_fill(&r, o[i].group, strlen(o[i].group));
		}
		man_opt(&r, &o[i]);
	}
	if (has_arg(o, n, "DUR")) {
		roff_req(&r, ".PP");
		roff_prose(&r, dur_note);
	}
	if (has_arg(o, n, "SIZE")) {
		roff_req(&r, ".PP");
		roff_prose(&r, size_note);
	}
	if (d->exit_status) {
		roff_req(&r, ".SH EXIT STATUS");
		roff_prose(&r, d->exit_status);
	}
	man_see_also(&r, name, d, cmds);
}

/* ---- checks and getopt ----------------------------------------------------------------- */

static int word_ok(const char *s, const char *extra)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return 0;
	return 1;
}

static int opt_key(const struct cli_opt *o)
{
	return o->key ? o->key : o->short_name;
}

/* Whether the synopsis names "--name" or "-x" as a whole word. */
static int synopsis_has(const char *synopsis, const char *opt)
{
	size_t n = strlen(opt);

	for (const char *p = synopsis; (p = strstr(p, opt)); p++) {
		char before = p == synopsis ? ' ' : p[-1], after = p[n];

		if (!isalnum((unsigned char)before) && before != '-' &&
		    !isalnum((unsigned char)after) && after != '-')
			return 1;
	}
	return 0;
}

/* An option other than an alias (one key for two names) that the synopsis leaves out, when
 * it lists options one by one (a synopsis with [OPTIONS] lists them in the help only). */
static const struct cli_opt *synopsis_missing(const struct cli_doc *d, int n)
{
	char buf[CLI_NAME_MAX + 3];

	if (strstr(d->synopsis, "[OPTIONS]"))
		return NULL;
	for (int i = 0; i < n; i++) {
		const struct cli_opt *o = &d->opts[i];
		int alias = 0, named = 0;

		for (int j = 0; j < i; j++)
			alias |= opt_key(&d->opts[j]) == opt_key(o);
		if (o->name) {
			snprintf(buf, sizeof(buf), "--%s", o->name);
			named = synopsis_has(d->synopsis, buf);
		}
		if (o->short_name) {
			snprintf(buf, sizeof(buf), "-%c", o->short_name);
			named |= synopsis_has(d->synopsis, buf);
		}
		if (!alias && !named)
			return o;
	}
	return NULL;
}

int cli_doc_check(const char *name, const struct cli_doc *d, char *err, size_t len)
{
	const struct cli_opt *o = d->opts;
	int n = count_opts(o);

#define BAD(...) return snprintf(err, len, __VA_ARGS__), -1
	if (!d->summary || !d->synopsis)
		BAD("%s: a summary and a synopsis (maybe \"\") are needed", name);
	if ((*d->synopsis && d->synopsis[strlen(d->synopsis) - 1] == '\n') ||
	    strstr(d->synopsis, "\n\n") || d->synopsis[0] == '\n')
		BAD("%s: the synopsis has an empty form", name);
	if (n > CLI_MAX_OPTS)
		BAD("%s: more than %d options", name, CLI_MAX_OPTS);
	if (d->docs && !word_ok(d->docs, " ._-"))
		BAD("%s: docs '%s' is not a list of file names", name, d->docs);
	for (int i = 0; i < n; i++) {
		const char *on = o[i].name ? o[i].name : "";

		if (o[i].name && strlen(o[i].name) > CLI_NAME_MAX)
			BAD("%s: option '%s': a long name of at most %d characters", name, on,
			    CLI_NAME_MAX);
		if (o[i].name && (!word_ok(o[i].name, "-") || o[i].name[0] == '-'))
			BAD("%s: option '%s': a long name is letters, digits and '-'", name, on);
		if (o[i].short_name && !isalnum((unsigned char)o[i].short_name))
			BAD("%s: option '%s': a short name is a letter or digit", name, on);
		if (!opt_key(&o[i]) || opt_key(&o[i]) == '?' || opt_key(&o[i]) == ':')
			BAD("%s: option '%s' has no key for getopt", name, on);
		if (!o[i].help || !*o[i].help)
			BAD("%s: option '%s' has no help", name, on);
		if (o[i].arg && strchr(o[i].arg, ' '))
			BAD("%s: option '%s': its value's name has a blank", name, on);
		if (o[i].values && (!o[i].arg || !word_ok(o[i].values, " _.,:+-")))
			BAD("%s: option '%s': values need an argument and are plain words", name,
			    on);
		if ((o[i].kind != CLI_TEXT || o[i].values) && !o[i].arg)
			BAD("%s: option '%s': a flag has no value to complete", name, on);
		if (o[i].kind == CLI_COMMAND || o[i].kind == CLI_CMDNAME)
			BAD("%s: option '%s': that kind is for operands", name, on);
		for (int j = 0; j < i; j++) {
			if (o[i].name && o[j].name && !strcmp(o[i].name, o[j].name))
				BAD("%s: option '%s' twice", name, on);
			if (o[i].short_name && o[i].short_name == o[j].short_name)
				BAD("%s: option '-%c' twice", name, o[i].short_name);
			/* one key for two names is an alias (--idle for --idle-threshold) */
			if (opt_key(&o[i]) == opt_key(&o[j]) && !o[i].arg != !o[j].arg)
				BAD("%s: options '%s' and '%s' have the same key, not the same "
				    "value",
				    name, on, o[j].name ? o[j].name : "");
		}
	}
	if ((o = synopsis_missing(d, n)))
		BAD("%s: option '%s%s' is not in the synopsis (name it, or write [OPTIONS] there)",
		    name, o->name ? "--" : "-", o->name ? o->name : (char[]){o->short_name, 0});
#undef BAD
	return 0;
}

int cli_getopt(int argc, char **argv, const struct cli_doc *d)
{
	static const struct cli_doc *built;
	static struct option lo[CLI_MAX_OPTS + 1];
	static char so[3 * CLI_MAX_OPTS + 2];

	if (built != d) {
		const struct cli_opt *o = d->opts;
		int n = count_opts(o), nl = 0;
		size_t ns = 0;

		if (n > CLI_MAX_OPTS)
			n = CLI_MAX_OPTS; /* cli_doc_check() says so when the manual is built */
		if (d->in_order)
			so[ns++] = '+';
		for (int i = 0; i < n; i++) {
			if (o[i].name)
				lo[nl++] = (struct option){
				    o[i].name, o[i].arg ? required_argument : no_argument, NULL,
				    opt_key(&o[i])};
			if (o[i].short_name) {
				so[ns++] = o[i].short_name;
				if (o[i].arg)
					so[ns++] = ':';
			}
		}
		lo[nl] = (struct option){NULL, 0, NULL, 0};
		so[ns] = 0;
		built = d;
	}
	return getopt_long(argc, argv, so, lo, NULL);
}

int cli_word_index(const char *values, const char *s)
{
	size_t n = strlen(s);
	int i = 0;

	for (const char *p = values; p && *p; i++) {
		size_t k = strcspn(p, " ");

		if (k == n && !strncmp(p, s, n))
			return i;
		p += k + (p[k] == ' ');
	}
	return -1;
}

const struct cli_opt *cli_opt_find(const struct cli_doc *d, int key)
{
	for (const struct cli_opt *o = d->opts; o && (o->name || o->short_name); o++)
		if (opt_key(o) == key)
			return o;
	return NULL;
}

/* Edit distance (insertions, deletions, substitutions, adjacent swaps) between a[0..na) and
 * b[0..nb), or more than max once it cannot be max or less. */
static size_t edit_distance(const char *a, size_t na, const char *b, size_t nb, size_t max)
{
	size_t rows[3][CLI_NAME_MAX + 1], *pp = rows[0], *prev = rows[1], *cur = rows[2];

	if (na > CLI_NAME_MAX || nb > CLI_NAME_MAX)
		return max + 1;
	for (size_t j = 0; j <= nb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= na; i++) {
		size_t best;

		cur[0] = best = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]), ins = cur[j - 1] + 1,
			       del = prev[j] + 1, v = sub < ins ? sub : ins;

			v = v < del ? v : del;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			cur[j] = v;
			best = v < best ? v : best;
		}
		if (best > max)
			return max + 1;
		size_t *t = pp;
		pp = prev;
		prev = cur;
		cur = t;
	}
	return prev[nb];
}

const struct cli_opt *cli_opt_named(const struct cli_doc *d, const char *arg, unsigned *matches)
{
	const struct cli_opt *found = NULL;
	size_t n;

	*matches = 0;
	if (strncmp(arg, "--", 2))
		return NULL;
	arg += 2;
	n = strcspn(arg, "=");
	/* as getopt_long() reads them: the exact name, else a prefix of one name only */
	for (const struct cli_opt *o = d->opts; o && (o->name || o->short_name); o++) {
		if (!o->name || strncmp(o->name, arg, n))
			continue;
		if (strlen(o->name) == n) {
			*matches = 1;
			return o;
		}
		found = o;
		++*matches;
	}
	return *matches == 1 ? found : NULL;
}

const char *cli_opt_nearest(const struct cli_doc *d, const char *arg)
{
	static const char *const everywhere[] = {"help", "man"};
	const char *best = NULL;
	size_t n, best_d, max;

	if (strncmp(arg, "--", 2))
		return NULL;
	arg += 2;
	n = strcspn(arg, "=");
	/* a third of the name wrong at most (one letter in a short name), so that a suggestion
	 * is a likely typo, not any option */
	max = n < 4 ? 1 : n / 3;
	best_d = max + 1;
	for (const struct cli_opt *o = d->opts; o && (o->name || o->short_name); o++) {
		size_t k;

		if (!o->name)
			continue;
		k = edit_distance(arg, n, o->name, strlen(o->name), max);
		if (k < best_d || (k == best_d && best && strcmp(o->name, best) < 0)) {
			best = o->name;
			best_d = k;
		}
	}
	for (size_t i = 0; i < sizeof(everywhere) / sizeof(everywhere[0]); i++) {
		size_t k = edit_distance(arg, n, everywhere[i], strlen(everywhere[i]), max);

		if (k < best_d) {
			best = everywhere[i];
			best_d = k;
		}
	}
	return best_d <= max ? best : NULL;
}
