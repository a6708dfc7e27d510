/* SPDX-License-Identifier: MIT */
/* Sweep parameters: value lists, ranges with size suffixes, value files, names, dir names. */
#include "sweep/sweep.h"

#include "common/parse.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Environment variables a parameter of the same name would clobber for the commands. */
static const char *const reserved_env[] = {
    "PATH",   "HOME",   "IFS",  "SHELL", "ENV",  "BASH_ENV", "CDPATH",         "PWD",
    "OLDPWD", "TMPDIR", "TERM", "USER",  "LANG", "PS4",      "POSIXLY_CORRECT"};
static const char *const reserved_prefix[] = {"LD_", "LC_", "IOTAPE_", "BASH_FUNC_"};

int sweep_name_check(const char *name, struct iot_err *e)
{
	size_t len = strlen(name);

	if (!len || len >= SWEEP_NAME_MAX)
		return iot_err_set(e, -EINVAL, "parameter name '%s': 1 to %d characters", name,
		                   SWEEP_NAME_MAX - 1);
	if (!isalpha((unsigned char)name[0]) && name[0] != '_')
		return iot_err_set(e, -EINVAL,
		                   "parameter name '%s': must start with a letter or '_'", name);
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_')
			return iot_err_set(e, -EINVAL,
			                   "parameter name '%s': only letters, digits and '_' "
			                   "(it is also an environment variable)",
			                   name);
	if (!strcmp(name, "rep") || !strcmp(name, "run"))
		return iot_err_set(e, -EINVAL, "parameter name '%s' is reserved ({%s} is the %s)",
		                   name, name, name[1] == 'e' ? "repetition" : "run directory");
	for (size_t i = 0; i < sizeof(reserved_env) / sizeof(reserved_env[0]); i++)
		if (!strcmp(name, reserved_env[i]))
			goto env;
	for (size_t i = 0; i < sizeof(reserved_prefix) / sizeof(reserved_prefix[0]); i++)
		if (!strncmp(name, reserved_prefix[i], strlen(reserved_prefix[i])))
			goto env;
	return 0;
env:
	return iot_err_set(e, -EINVAL,
	                   "parameter name '%s' would replace that environment variable for the "
	                   "commands; choose another",
	                   name);
}

/* Length of the decimal number at s (sign, digits, fraction, exponent), 0 if none: strtod
 * alone would also take hex, "inf" and "nan", which parameter values do not mean. */
static size_t decimal_len(const char *s)
{
	const char *p = s;
	size_t digits;

	if (*p == '+' || *p == '-')
		p++;
	digits = strspn(p, "0123456789");
	p += digits;
	if (*p == '.') {
		size_t frac = strspn(p + 1, "0123456789");

		p += 1 + frac;
		digits += frac;
	}
	if (!digits)
		return 0;
	if (*p == 'e' || *p == 'E') {
		const char *q = p + 1;
		size_t x;

		if (*q == '+' || *q == '-')
			q++;
		x = strspn(q, "0123456789");
		if (x)
			p = q + x;
	}
	return (size_t)(p - s);
}

double sweep_value_num(const char *text, bool *size)
{
	size_t len = decimal_len(text);
	double v;
	int power;

	if (size)
		*size = false;
	if (!len)
		return NAN;
	v = strtod(text, NULL);
	if (!isfinite(v))
		return NAN;
	if (!text[len])
		return v;
	if (!iot_size_unit(text + len, &power))
		return NAN;
	if (size)
		*size = true;
	return v * pow(1024, power);
}

int sweep_param_add(struct sweep_param *p, const char *text, struct iot_err *e)
{
	struct sweep_value *nv;

	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].text, text))
			return iot_err_set(e, -EINVAL, "--param %s: value '%s' given twice",
			                   p->name, text);
	if (p->n >= SWEEP_MAX_VALUES)
		return iot_err_set(e, -E2BIG, "--param %s: more than %d values", p->name,
		                   SWEEP_MAX_VALUES);
	nv = realloc(p->v, (p->n + 1) * sizeof(*nv));
	if (!nv)
		return iot_err_set(e, -ENOMEM, "out of memory");
	p->v = nv;
	nv[p->n].text = strdup(text);
	if (!nv[p->n].text)
		return iot_err_set(e, -ENOMEM, "out of memory");
	nv[p->n].num = sweep_value_num(text, NULL);
	p->n++;
	return 0;
}

void sweep_param_release(struct sweep_param *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i].text);
	free(p->v);
	free(p->file);
	p->v = NULL;
	p->file = NULL;
	p->n = 0;
}

/* The way a range bound wrote its size suffix, to write the values the same way. */
struct suffix_style {
	bool size;
	bool upper;
	char tail[3]; /* "", "b", "B", "ib", "iB" after the unit letter */
};

static void style_of(const char *bound, struct suffix_style *st)
{
	const char *s = bound + decimal_len(bound);
	int power;

	if (!*s || !iot_size_unit(s, &power) || power == 0)
		return; /* no unit letter (a bare b is bytes): nothing to copy */
	st->size = true;
	st->upper = isupper((unsigned char)*s);
	snprintf(st->tail, sizeof(st->tail), "%s", s + 1);
}

/* A range value as text: sizes in the largest unit that divides them, else %.15g. */
static void format_value(double v, const struct suffix_style *st, char *buf, size_t cap)
{
	static const char units[] = "kmgtp";

	if (st->size && v >= 1 && v == floor(v) && v < 1.8e19) {
		unsigned long long n = (unsigned long long)v;
		int u = 0;

		while (u < 5 && n >= 1024 && n % 1024 == 0) {
			n /= 1024;
			u++;
		}
		if (u)
			snprintf(buf, cap, "%llu%c%s", n,
			         st->upper ? toupper((unsigned char)units[u - 1]) : units[u - 1],
			         st->tail);
		else
			snprintf(buf, cap, "%llu", n);
		return;
	}
	snprintf(buf, cap, "%.15g", v);
}

/* A..B[:STEP] into p's values; 1 when item is not a range (a plain value), 0 or -errno. */
static int add_range(struct sweep_param *p, const char *item, struct iot_err *e)
{
	const char *dots = strstr(item, ".."), *colon;
	char a[128], b[128], buf[160];
	struct suffix_style st = {0};
	double lo, hi, step = 1, v;
	bool mul = false;
	size_t alen, blen;

	if (!dots)
		return 1;
	colon = strchr(dots, ':');
	alen = (size_t)(dots - item);
	blen = colon ? (size_t)(colon - dots - 2) : strlen(dots + 2);
	if (alen >= sizeof(a) || blen >= sizeof(b))
		return 1;
	memcpy(a, item, alen);
	a[alen] = 0;
	memcpy(b, dots + 2, blen);
	b[blen] = 0;
	lo = sweep_value_num(a, NULL);
	hi = sweep_value_num(b, NULL);
	if (isnan(lo) || isnan(hi))
		return 1; /* "v1..v2" is a value, not a range */
	if (colon) {
		const char *s = colon + 1;
		char *end;

		if (*s == 'x' || *s == '*') {
			mul = true;
			s++;
		} else if (*s == '+') {
			s++;
		}
		step = strtod(s, &end);
		if (end == s || *end || !isfinite(step) || (mul ? step <= 1 : step <= 0))
			return iot_err_set(e, -EINVAL,
			                   "--param %s: range '%s': step '%s' is not x<factor> "
			                   "(above 1) or +<increment> (above 0)",
			                   p->name, item, colon + 1);
	}
	if (lo > hi)
		return iot_err_set(e, -EINVAL, "--param %s: range '%s' goes downwards", p->name,
		                   item);
	if (mul && lo <= 0)
		return iot_err_set(e, -EINVAL,
		                   "--param %s: range '%s': a multiplying range "
		                   "must start above 0",
		                   p->name, item);
	/* how many values, before making any: 1..4g (step 1) is four billion */
	if ((mul ? log(hi / lo) / log(step) : (hi - lo) / step) >= SWEEP_MAX_VALUES)
		return iot_err_set(e, -E2BIG, "--param %s: range '%s' has more than %d values",
		                   p->name, item, SWEEP_MAX_VALUES);
	style_of(a, &st);
	if (!st.size)
		style_of(b, &st);
	p->log = p->log || mul || st.size;
	for (size_t i = 0;; i++) {
		int ret;

		v = mul ? lo * pow(step, (double)i) : lo + step * (double)i;
		if (mul && lo == floor(lo) && step == floor(step))
			v = floor(v + 0.5);
		if (v > hi * (1 + 1e-12) + 1e-12)
			break;
		if (i >= SWEEP_MAX_VALUES)
			return iot_err_set(e, -E2BIG,
			                   "--param %s: range '%s' has more than %d values",
			                   p->name, item, SWEEP_MAX_VALUES);
		format_value(v, &st, buf, sizeof(buf));
		if ((ret = sweep_param_add(p, buf, e)))
			return ret;
		p->v[p->n - 1].num = v;
	}
	return 0;
}

static int add_file(struct sweep_param *p, const char *path, struct iot_err *e)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int ret = 0;

	if (!f)
		return iot_err_set(e, -errno, "--param %s: '%s': %s", p->name, path,
		                   strerror(errno));
	while (!ret && (n = getline(&line, &cap, f)) >= 0) {
		while (n && isspace((unsigned char)line[n - 1]))
			line[--n] = 0;
		if (!n || line[0] == '#')
			continue;
		if (memchr(line, 0, (size_t)n))
			ret = iot_err_set(e, -EINVAL, "--param %s: '%s' is not a text file",
			                  p->name, path);
		else
			ret = sweep_param_add(p, line, e);
	}
	free(line);
	fclose(f);
	if (!ret && !p->n)
		ret = iot_err_set(e, -EINVAL, "--param %s: '%s' has no values", p->name, path);
	return ret;
}

int sweep_param_parse(const char *spec, struct sweep_param *p, struct iot_err *e)
{
	const char *eq = strchr(spec, '='), *s;
	int ret;

	memset(p, 0, sizeof(*p));
	if (!eq)
		return iot_err_set(e, -EINVAL, "--param '%s': expected NAME=V1,V2,...", spec);
	if ((size_t)(eq - spec) >= sizeof(p->name))
		return iot_err_set(e, -EINVAL, "--param '%s': name too long", spec);
	memcpy(p->name, spec, (size_t)(eq - spec));
	p->name[eq - spec] = 0;
	if ((ret = sweep_name_check(p->name, e)))
		return ret;
	s = eq + 1;
	if (*s == '@') {
		ret = add_file(p, s + 1, e);
		if (!ret && !(p->file = strdup(s + 1)))
			ret = iot_err_set(e, -ENOMEM, "out of memory");
	} else {
		char *copy = strdup(s), *item, *save = NULL;

		if (!copy)
			return iot_err_set(e, -ENOMEM, "out of memory");
		ret = 0;
		/* a trailing or doubled comma gives an empty value, which is a value */
		for (item = copy;; item = save) {
			char *comma = strchr(item, ',');

			if (comma)
				*comma = 0;
			save = comma ? comma + 1 : NULL;
			ret = add_range(p, item, e);
			if (ret == 1)
				ret = sweep_param_add(p, item, e);
			if (ret || !save)
				break;
		}
		free(copy);
	}
	if (!ret) {
		/* sizes written with suffixes are graphed on a log axis, like a multiplying range
		 */
		for (size_t i = 0; i < p->n; i++) {
			bool size;

			sweep_value_num(p->v[i].text, &size);
			p->log = p->log || size;
		}
	}
	if (ret)
		sweep_param_release(p);
	return ret;
}

/* FNV-1a, 64 bits: a long value's directory name keeps this of the whole value */
static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

int sweep_path_escape(const char *name, const char *value, char *buf, size_t cap)
{
	/* past this, a name becomes a prefix and "~" and 16 hex digits of the value's hash */
	const size_t cut = SWEEP_SEGMENT_MAX - 17;
	size_t len = 0;
	int w = snprintf(buf, cap, "%s=", name);

	if (w < 0 || (size_t)w >= cap || cap <= SWEEP_SEGMENT_MAX)
		return buf[0] = 0, -ENAMETOOLONG;
	len = (size_t)w;
	for (const unsigned char *s = (const unsigned char *)value; *s; s++) {
		bool plain = isalnum(*s) || strchr("._,+@:-", *s);
		size_t at = len;

		if (s == (const unsigned char *)value && *s == '.')
			plain = false; /* ".", ".." and hidden names are not values' directories */
		if (plain) {
			buf[len++] = (char)*s;
		} else {
			/* '~' is escaped too, so no value's own name ends like a hashed one */
			snprintf(buf + len, cap - len, "%%%02X", *s);
			len += 3;
		}
		if (len > SWEEP_SEGMENT_MAX) {
			/* too long for one directory name (NAME_MAX): cut at a whole escape that
			 * leaves room, and name the whole value by its hash */
			len = at;
			while (len > cut)
				len -= len >= 3 && buf[len - 3] == '%' ? 3 : 1;
			snprintf(buf + len, cap - len, "~%016llx",
			         (unsigned long long)fnv1a(value));
			return 0;
		}
	}
	buf[len] = 0;
	return 0;
}
