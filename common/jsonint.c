/* SPDX-License-Identifier: MIT */
/* Unsigned 64-bit integers in JSON: jansson's integers are signed. */
#include "common/jsonint.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

json_t *json_u64(uint64_t v)
{
	char buf[24];

	if (v <= INT64_MAX)
		return json_integer((json_int_t)v);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return json_string(buf);
}

int json_u64_get(const json_t *j, uint64_t *v)
{
	const char *s;
	uint64_t x = 0;

	*v = 0;
	if (json_is_integer(j)) {
		if (json_integer_value(j) < 0)
			return -EINVAL;
		*v = (uint64_t)json_integer_value(j);
		return 0;
	}
	if (!json_is_string(j) || !*(s = json_string_value(j)) || json_string_length(j) > 20)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -EINVAL;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return 0;
}

int json_u64_member(const json_t *o, const char *key, uint64_t *v)
{
	const json_t *j = json_object_get(o, key);

	if (!j) {
		*v = 0;
		return -ENOENT;
	}
	return json_u64_get(j, v);
}

double json_u64_number(const json_t *j)
{
	uint64_t v;

	return json_u64_get(j, &v) ? NAN : (double)v;
}
