/* SPDX-License-Identifier: MIT */
/* The command's own numbers: a regular expression's match, or a path into its JSON output. */
#include "sweep/sweep.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#define PATH_DEPTH 64
#define STR_(x) #x
#define STR(x) STR_(x)

/*
 * --metric REGEX runs on PCRE2 with limits, because a user's expression over a command's
 * output must not cost without bound: a back-reference under a repetition ("(a*)*\1x") is
 * exponential in any backtracking engine, and glibc's regcomp() also grew as the product of
 * nested bounds (a size estimate guarded that, but not the matching). PCRE2 bounds each start
 * position (match limit: steps; depth limit: nested backtracking points, which is memory),
 * refuses a compiled pattern past its size limit, and calls back at every item of the pattern
 * (auto callouts), where the total work is counted against a budget that grows with the
 * output's length and the sweep's stop flag is checked, so SIGTERM ends a match at once.
 */
#define RE_MATCH_LIMIT 1000000    /* steps per start position */
#define RE_DEPTH_LIMIT 10000u     /* backtracking depth */
#define RE_HEAP_LIMIT (64u << 10) /* KiB of backtracking frames */
#define RE_BUDGET_BASE 10000000u  /* callouts for the whole output: this plus ... */
#define RE_BUDGET_PER_BYTE 100u   /* ... this per byte of it */
#define RE_STOP_EVERY 4096u       /* callouts between looks at the stop flag */

static int compile(const char *expr, uint32_t extra, pcre2_code **out, struct iot_err *e)
{
	int rc;
	PCRE2_SIZE at;

	/* ^ and $ at line ends and . not across them: how the expressions were written for the
	 * POSIX engine before (REG_NEWLINE) */
	*out = pcre2_compile((PCRE2_SPTR)expr, PCRE2_ZERO_TERMINATED, PCRE2_MULTILINE | extra, &rc,
	                     &at, NULL);
	if (!*out) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(rc, msg, sizeof(msg));
		return iot_err_set(e, -EINVAL, "'%s': %s at offset %zu", expr, (const char *)msg,
		                   (size_t)at);
	}
	return 0;
}

struct budget {
	uint64_t left;
	unsigned tick;
	const volatile sig_atomic_t *stop;
	int why; /* -EINTR (stopped) or -E2BIG (budget spent) */
};

static int on_callout(pcre2_callout_block *cb, void *arg)
{
	struct budget *b = arg;

	(void)cb;
	if (!b->left--) {
		b->why = -E2BIG;
		return PCRE2_ERROR_CALLOUT;
	}
	if (++b->tick >= RE_STOP_EVERY) {
		b->tick = 0;
		if (b->stop && *b->stop) {
			b->why = -EINTR;
			return PCRE2_ERROR_CALLOUT;
		}
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
	pcre2_code *re;
	size_t n;
	int ret;

	memset(m, 0, sizeof(*m));
	if (!eq || eq == spec || !eq[1])
		return iot_err_set(e, -EINVAL,
		                   "--metric '%s': expected NAME=REGEX or NAME=json:PATH", spec);
	if ((size_t)(eq - spec) >= sizeof(m->name))
		return iot_err_set(e, -EINVAL, "--metric '%s': name too long", spec);
	memcpy(m->name, spec, (size_t)(eq - spec));
	/* NAME:UNIT: the unit its axis and table headers name (docs/sweep.md) */
	char *colon = strchr(m->name, ':');

	if (colon) {
		if (!colon[1] || strlen(colon + 1) >= sizeof(m->unit) || strchr(colon + 1, ':'))
			return iot_err_set(e, -EINVAL,
			                   "--metric '%s': a unit after ':' is 1 to %zu characters",
			                   spec, sizeof(m->unit) - 1);
		snprintf(m->unit, sizeof(m->unit), "%s", colon + 1);
		*colon = 0;
	}
	if (!m->name[0])
		return iot_err_set(e, -EINVAL, "--metric '%s': no name", spec);
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
		ret = compile(eq + 1, 0, &re, e);
		if (!ret)
			pcre2_code_free(re);
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

static int eval_regex(const struct sweep_metric *m, const char *text, size_t len,
                      const volatile sig_atomic_t *stop, double *v, struct iot_err *e)
{
	struct budget b = {.stop = stop};
	pcre2_match_context *mc = NULL;
	pcre2_match_data *md = NULL;
	pcre2_code *re;
	PCRE2_SIZE *ov, so, eo;
	int ret, rc;

	if ((ret = compile(m->expr, PCRE2_AUTO_CALLOUT, &re, e)))
		return ret;
	md = pcre2_match_data_create_from_pattern(re, NULL);
	mc = pcre2_match_context_create(NULL);
	if (!md || !mc) {
		ret = iot_err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	b.left = RE_BUDGET_BASE + (uint64_t)RE_BUDGET_PER_BYTE * len;
	pcre2_set_match_limit(mc, RE_MATCH_LIMIT);
	pcre2_set_depth_limit(mc, RE_DEPTH_LIMIT);
	pcre2_set_heap_limit(mc, RE_HEAP_LIMIT);
	pcre2_set_callout(mc, on_callout, &b);
	/* the output as it is: NUL bytes inside do not end it */
	rc = pcre2_match(re, (PCRE2_SPTR)text, len, 0, 0, md, mc);
	if (rc == PCRE2_ERROR_NOMATCH) {
		ret = -ENOENT;
		goto out;
	}
	if (rc == PCRE2_ERROR_CALLOUT && b.why == -EINTR) {
		ret = iot_err_set(e, -EINTR, "metric %s: stopped", m->name);
		goto out;
	}
	if (rc == PCRE2_ERROR_CALLOUT || rc == PCRE2_ERROR_MATCHLIMIT ||
	    rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT) {
		ret = iot_err_set(e, -E2BIG,
		                  "metric %s: /%s/ backtracks too much on this output (%s); write "
		                  "it without nested repetitions or back-references",
		                  m->name, m->expr,
		                  rc == PCRE2_ERROR_CALLOUT ? "more steps than the output's budget"
		                  : rc == PCRE2_ERROR_MATCHLIMIT
		                      ? "more than " STR(RE_MATCH_LIMIT) " steps at one position"
		                      : "backtracking nested too deeply");
		goto out;
	}
	if (rc < 0) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(rc, msg, sizeof(msg));
		ret = iot_err_set(e, -EINVAL, "metric %s: %s", m->name, (const char *)msg);
		goto out;
	}
	/* the first group when it took part in the match, else the whole match */
	ov = pcre2_get_ovector_pointer(md);
	so = ov[0], eo = ov[1];
	if (rc >= 2 && ov[2] != PCRE2_UNSET)
		so = ov[2], eo = ov[3];
	if (eo < so || eo > len)
		eo = so; /* \K in a lookahead can end a match before its start */
	if (to_number(text + so, eo - so, v))
		ret = iot_err_set(e, -EINVAL, "metric %s: '%.*s' is not a number", m->name,
		                  (int)(eo - so > 40 ? 40 : eo - so), text + so);
out:
	pcre2_match_context_free(mc);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
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
                      size_t errlen, const volatile sig_atomic_t *stop, double *v,
                      struct iot_err *e)
{
	int ret;

	if (m->kind == SWEEP_METRIC_JSON)
		return eval_json(m, out ? out : "", out ? outlen : 0, v, e);
	ret = eval_regex(m, out ? out : "", out ? outlen : 0, stop, v, e);
	if (ret == -ENOENT)
		ret = eval_regex(m, err ? err : "", err ? errlen : 0, stop, v, e);
	if (ret == -ENOENT)
		return iot_err_set(e, ret, "metric %s: /%s/ matches nothing in the output", m->name,
		                   m->expr);
	return ret;
}
