/* SPDX-License-Identifier: MIT */
/* Warnings a library hands back to its command: strings appended to a JSON array. */
#include "common/warnings.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

int iot_warn_json(json_t *warnings, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!json_is_array(warnings))
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return json_array_append_new(warnings, json_string(msg)) ? -ENOMEM : 0;
}
