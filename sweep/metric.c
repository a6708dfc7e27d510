/* SPDX-License-Identifier: MIT */
/* The command's own numbers: a regular expression's match, or a path into its JSON output. */
#include "sweep/sweep.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATH_DEPTH 64

/*
 * glibc's regcomp() copies a repeated sub-expression once per repetition it may need, so nested
 * repetitions ("(a{0,60}){0,60}...", "a+++++...") grow its memory as the product of their
 * counts, and each copy's epsilon closure grows as their square when the repeated part can match
 * nothing ("((){0,60}){0,60}": 3 782 copies, 2 GB). Before compiling, the expression's size after
 * those copies is estimated (an atom counts 1, a group the sum of its contents, a quantifier
 * multiplies what it follows by its count plus one) and refused above REGEX_COST_MAX.
 */
#define REGEX_COST_MAX 256.0
#define REGEX_NEST_MAX 64

/* The end of a bracket expression starting at p ('['), or NULL if it is not closed. */
static const char *bracket_end(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	for (; *p && *p != ']'; p++)
		if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			const char *close = strchr(p + 2, p[1]);

			if (!close || close[1] != ']')
				return NULL;
			p = close + 1;
		}
	return *p ? p : NULL;
}

/* The decimal number at q (0 when none; large ones held at 10^9), and the end of its digits. */
static const char *bound_digits(const char *q, unsigned long *v)
{
	*v = 0;
	for (; isdigit((unsigned char)*q); q++)
		if (*v < 1000000000ul)
			*v = *v * 10 + (unsigned long)(*q - '0');
	return q;
}

/* The estimated compiled size of expr, or a value above REGEX_COST_MAX. */
static double regex_cost(const char *expr)
{
	double sum[REGEX_NEST_MAX + 1] = {0}, last[REGEX_NEST_MAX + 1] = {0};
	int d = 0;

	for (const char *p = expr; *p; p++) {
		double k = 0;

		switch (*p) {
		case '(':
			if (++d > REGEX_NEST_MAX)
				return REGEX_COST_MAX * 2;
			sum[d] = last[d] = 0;
			continue;
		case ')':
			if (d == 0)
				break; /* an ordinary character, as regcomp takes it */
			d--;
			last[d] = sum[d + 1] + 1;
			sum[d] += last[d];
			continue;
		case '|':
			last[d] = 0;
			continue;
		case '*':
		case '+':
		case '?':
			k = 2;
			break;
		case '{': {
			/* {n}, {n,}, {n,m} and glibc's {,m}; anything else is a plain '{' */
			unsigned long lo, hi;
			const char *q = bound_digits(p + 1, &lo);

			hi = lo;
			if (*q == ',') {
				const char *r = bound_digits(q + 1, &hi);

				if (r == q + 1)
					hi = lo + 1; /* {n,}: n copies and a star */
				q = r;
			}
			if (q == p + 1 || *q != '}')
				break;
			k = (double)(hi > lo ? hi : lo) + 1;
			p = q;
			break;
		}
		case '[': {
			const char *close = bracket_end(p);

			if (close)
				p = close;
			break;
		}
		case '\\':
			if (p[1])
				p++;
			break;
		}
		if (k > 0) {
			sum[d] += last[d] * (k - 1);
			last[d] *= k;
		} else {
			last[d] = 1;
			sum[d] += 1;
		}
		if (sum[d] > REGEX_COST_MAX)
			return sum[d];
	}
	return sum[0];
}

static int compile(const char *expr, regex_t *re, struct iot_err *e)
{
	int rc;

	if (regex_cost(expr) > REGEX_COST_MAX)
		return iot_err_set(e, -EINVAL,
		                   "'%s': repetitions nested too deeply (its compiled size would "
		                   "pass %.0f)",
		                   expr, REGEX_COST_MAX);
	rc = regcomp(re, expr, REG_EXTENDED | REG_NEWLINE);

	if (rc) {
		char msg[256];

		regerror(rc, re, msg, sizeof(msg));
		return iot_err_set(e, -EINVAL, "'%s': %s", expr, msg);
	}
	return 0;
}

/* One step of a JSON path: a key, an index, or every element ([*]). */
struct step {
	enum { STEP_KEY, STEP_INDEX, STEP_ALL } kind;
	char key[256];
	size_t index;
};

static int parse_path(const char *path, struct step *st, size_t *n, struct iot_err *e)
{
	const char *p = path;

	*n = 0;
	while (*p) {
		struct step *s = &st[*n];

		if (*n >= PATH_DEPTH)
			return iot_err_set(e, -EINVAL, "json path '%s': more than %d steps", path,
			                   PATH_DEPTH);
		if (*p == '[') {
			p++;
			if (*p == '*' && p[1] == ']') {
				s->kind = STEP_ALL;
				p += 2;
			} else if (*p == '"') {
				const char *end = strchr(p + 1, '"');

				if (!end || end[1] != ']' ||
				    (size_t)(end - p - 1) >= sizeof(s->key))
					return iot_err_set(
					    e, -EINVAL, "json path '%s': unclosed [\"key\"]", path);
				s->kind = STEP_KEY;
				memcpy(s->key, p + 1, (size_t)(end - p - 1));
				s->key[end - p - 1] = 0;
				p = end + 2;
			} else if (isdigit((unsigned char)*p)) {
				char *end;

				s->kind = STEP_INDEX;
				s->index = strtoul(p, &end, 10);
				if (*end != ']' || s->index > 1000000)
					return iot_err_set(e, -EINVAL,
					                   "json path '%s': bad index at '%s'",
					                   path, p);
				p = end + 1;
			} else {
				return iot_err_set(
				    e, -EINVAL,
				    "json path '%s': expected [N], [*] or [\"key\"] at "
				    "'%s'",
				    path, p - 1);
			}
		} else {
			size_t len;

			if (*p == '.') {
				if (!*n)
					return iot_err_set(e, -EINVAL,
					                   "json path '%s' starts with '.'", path);
				p++;
			}
			len = strcspn(p, ".[");
			if (!len || len >= sizeof(s->key))
				return iot_err_set(e, -EINVAL,
				                   "json path '%s': empty or long key at '%s'",
				                   path, p);
			s->kind = STEP_KEY;
			memcpy(s->key, p, len);
			s->key[len] = 0;
			/* a purely numeric key after a dot indexes an array too: jobs.0.read */
			if (strspn(s->key, "0123456789") == len) {
				s->kind = STEP_INDEX;
				s->index = strtoul(s->key, NULL, 10);
			}
			p += len;
		}
		(*n)++;
	}
	if (!*n)
		return iot_err_set(e, -EINVAL, "empty json path");
	return 0;
}

int sweep_metric_parse(const char *spec, struct sweep_metric *m, struct iot_err *e)
{
	const char *eq = strchr(spec, '=');
	struct step st[PATH_DEPTH];
	regex_t re;
	size_t n;
	int ret;

	memset(m, 0, sizeof(*m));
	if (!eq || eq == spec || !eq[1])
		return iot_err_set(e, -EINVAL,
		                   "--metric '%s': expected NAME=REGEX or NAME=json:PATH", spec);
	if ((size_t)(eq - spec) >= sizeof(m->name))
		return iot_err_set(e, -EINVAL, "--metric '%s': name too long", spec);
	memcpy(m->name, spec, (size_t)(eq - spec));
	for (const char *c = m->name; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("_.-", *c))
			return iot_err_set(
			    e, -EINVAL, "--metric '%s': a name is letters, digits, '_', '.', '-'",
			    spec);
	if (!strncmp(eq + 1, "json:", 5)) {
		m->kind = SWEEP_METRIC_JSON;
		ret = parse_path(eq + 6, st, &n, e);
	} else {
		m->kind = SWEEP_METRIC_REGEX;
		ret = compile(eq + 1, &re, e);
		if (!ret)
			regfree(&re);
	}
	if (ret) {
		iot_err_prefix(e, "--metric %s", m->name);
		return ret;
	}
	m->expr = strdup(m->kind == SWEEP_METRIC_JSON ? eq + 6 : eq + 1);
	return m->expr ? 0 : iot_err_set(e, -ENOMEM, "out of memory");
}

void sweep_metric_release(struct sweep_metric *m)
{
	free(m->expr);
	m->expr = NULL;
}

/* The whole of s (len bytes, blanks around allowed) as a decimal number. */
static int to_number(const char *s, size_t len, double *v)
{
	char buf[64], *end;

	while (len && isspace((unsigned char)*s))
		s++, len--;
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = 0;
	if (strpbrk(buf, "xXnNiI"))
		return -EINVAL; /* hex, inf, nan: not what a benchmark prints as its figure */
	*v = strtod(buf, &end);
	return end == buf || *end || !isfinite(*v) ? -EINVAL : 0;
}

static int eval_regex(const struct sweep_metric *m, const char *text, size_t len, double *v,
                      struct iot_err *e)
{
	regmatch_t mt[2] = {{0}};
	regex_t re;
	char *buf;
	int ret;

	if (len > INT_MAX - 1)
		len = INT_MAX - 1;
	/* regexec wants a string: a copy that ends in NUL (REG_STARTEND still reads past NULs
	 * inside, which a command's output may have) */
	buf = malloc(len + 1);
	if (!buf)
		return iot_err_set(e, -ENOMEM, "out of memory");
	memcpy(buf, text, len);
	buf[len] = 0;
	if ((ret = compile(m->expr, &re, e))) {
		free(buf);
		return ret;
	}
	mt[0].rm_so = 0;
	mt[0].rm_eo = (regoff_t)len;
	ret = regexec(&re, buf, 2, mt, REG_STARTEND) ? -ENOENT : 0;
	if (!ret && (re.re_nsub < 1 || mt[1].rm_so < 0))
		mt[1] = mt[0];
	regfree(&re);
	if (!ret && to_number(buf + mt[1].rm_so, (size_t)(mt[1].rm_eo - mt[1].rm_so), v))
		ret = iot_err_set(
		    e, -EINVAL, "metric %s: '%.*s' is not a number", m->name,
		    (int)(mt[1].rm_eo - mt[1].rm_so > 40 ? 40 : mt[1].rm_eo - mt[1].rm_so),
		    buf + mt[1].rm_so);
	free(buf);
	return ret;
}

/* The path from step i on, below j: its number, or the sum over [*]. */
static int walk(const json_t *j, const struct step *st, size_t i, size_t n, double *v)
{
	if (i == n) {
		if (json_is_number(j)) {
			*v = json_number_value(j);
			return 0;
		}
		if (json_is_string(j))
			return to_number(json_string_value(j), json_string_length(j), v) ? -EINVAL
			                                                                 : 0;
		return -EINVAL;
	}
	switch (st[i].kind) {
	case STEP_KEY:
		j = json_object_get(j, st[i].key);
		return j ? walk(j, st, i + 1, n, v) : -ENOENT;
	case STEP_INDEX:
		j = json_array_get(j, st[i].index);
		return j ? walk(j, st, i + 1, n, v) : -ENOENT;
	case STEP_ALL: {
		const json_t *x;
		double sum = 0, one;
		size_t k, found = 0;
		int ret = -ENOENT;

		if (!json_is_array(j))
			return -ENOENT;
		json_array_foreach(j, k, x)
		{
			int r = walk(x, st, i + 1, n, &one);

			if (!r) {
				sum += one;
				found++;
			} else if (r == -EINVAL) {
				ret = r;
			}
		}
		if (!found)
			return ret;
		*v = sum;
		return 0;
	}
	}
	return -ENOENT;
}

static int eval_json(const struct sweep_metric *m, const char *out, size_t len, double *v,
                     struct iot_err *e)
{
	struct step st[PATH_DEPTH];
	const char *p = out, *end = out + len;
	json_error_t je;
	json_t *doc = NULL;
	size_t n;
	int ret;

	if ((ret = parse_path(m->expr, st, &n, e)))
		return ret;
	/* the document starts at the first line that starts with { or [ */
	while (p < end) {
		const char *q = p, *nl;

		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (q < end && (*q == '{' || *q == '[')) {
			doc = json_loadb(q, (size_t)(end - q), JSON_DISABLE_EOF_CHECK, &je);
			if (doc)
				break;
		}
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
		p = nl + 1;
	}
	if (!doc)
		return iot_err_set(e, -ENOENT, "metric %s: no JSON document in the output",
		                   m->name);
	ret = walk(doc, st, 0, n, v);
	json_decref(doc);
	if (ret == -ENOENT)
		return iot_err_set(e, ret, "metric %s: '%s' is not in the JSON output", m->name,
		                   m->expr);
	if (ret)
		return iot_err_set(e, ret, "metric %s: '%s' is not a number", m->name, m->expr);
	return 0;
}

int sweep_metric_eval(const struct sweep_metric *m, const char *out, size_t outlen, const char *err,
                      size_t errlen, double *v, struct iot_err *e)
{
	int ret;

	if (m->kind == SWEEP_METRIC_JSON)
		return eval_json(m, out ? out : "", out ? outlen : 0, v, e);
	ret = eval_regex(m, out ? out : "", out ? outlen : 0, v, e);
	if (ret == -ENOENT)
		ret = eval_regex(m, err ? err : "", err ? errlen : 0, v, e);
	if (ret == -ENOENT)
		return iot_err_set(e, ret, "metric %s: /%s/ matches nothing in the output", m->name,
		                   m->expr);
	return ret;
}
