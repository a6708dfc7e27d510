/* SPDX-License-Identifier: MIT */
/* Option values with a unit: one rule for every command (durations). */
#include "common/parse.h"

#include <errno.h>
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
