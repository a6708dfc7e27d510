/* SPDX-License-Identifier: MIT */
/* Option values with a unit: one rule for every command (durations, sizes). */
#include "common/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int iot_parse_duration(const char *s, uint64_t *ns, struct iot_err *e)
{
	static const struct {
		const char *suffix;
		double mult;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}};
	char *end;
	double v;

	if (!s || !*s)
		return iot_err_set(e, -EINVAL, "missing duration");
	errno = 0;
	v = strtod(s, &end);
	if (errno == ERANGE && v != 0)
		return iot_err_set(e, -ERANGE, "'%s' is too long", s);
	/* decimal: strtod's "inf", "nan", signs, spaces and hexadecimal are no durations */
	if (errno || end == s || !strchr("0123456789.", *s) || memchr(s, 'x', (size_t)(end - s)) ||
	    memchr(s, 'X', (size_t)(end - s)))
		return iot_err_set(e, -EINVAL, "'%s' is not a duration (e.g. 10ms, 1.5s)", s);
	if (!*end) {
		if (v == 0) {
			*ns = 0;
			return 0;
		}
		return iot_err_set(e, -EINVAL,
		                   "'%s' has no unit: say %sms or %ss (ns, us, ms, s, m or h)", s,
		                   s, s);
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].suffix)) {
			double t = v * units[i].mult + 0.5;

			if (t >= 18446744073709551616.0)
				return iot_err_set(e, -ERANGE, "'%s' is too long", s);
			*ns = (uint64_t)t;
			return 0;
		}
	}
	return iot_err_set(e, -EINVAL, "'%s' has an unknown unit (ns, us, ms, s, m or h)", s);
}

size_t iot_size_unit(const char *s, int *power)
{
	static const char units[] = "kmgtp";
	const char *u = *s ? strchr(units, tolower((unsigned char)*s)) : NULL;
	size_t len;

	if (!u) {
		if ((*s == 'b' || *s == 'B') && !s[1]) {
			*power = 0;
			return 1;
		}
		return 0;
	}
	*power = (int)(u - units) + 1;
	len = 1;
	if (s[1] == 'i' && (s[2] == 'b' || s[2] == 'B'))
		len = 3;
	else if (s[1] == 'b' || s[1] == 'B')
		len = 2;
	return s[len] ? 0 : len;
}

int iot_parse_size(const char *s, uint64_t *bytes, struct iot_err *e)
{
	size_t digits;
	double v;
	int power = 0;
	const char *unit;

	if (!s || !*s)
		return iot_err_set(e, -EINVAL, "missing size");
	/* decimal only: strtod's signs, spaces, "inf" and hexadecimal are no sizes */
	digits = strspn(s, "0123456789");
	unit = s + digits;
	if (*unit == '.')
		unit += 1 + strspn(unit + 1, "0123456789");
	if (unit == s || (unit == s + 1 && *s == '.') || (*unit && !iot_size_unit(unit, &power)))
		return iot_err_set(
		    e, -EINVAL, "'%s' is not a size (bytes, or with a unit: 4k, 1.5m, 2g, 64KiB)",
		    s);
	v = strtod(s, NULL) * pow(1024, power);
	if (v >= 18446744073709551616.0)
		return iot_err_set(e, -ERANGE, "'%s' is too large", s);
	if (v != floor(v))
		return iot_err_set(e, -EINVAL, "'%s' is not a whole number of bytes", s);
	*bytes = (uint64_t)v;
	return 0;
}
