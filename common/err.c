/* SPDX-License-Identifier: MIT */
/* Error buffer helpers. */
#include "common/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int iot_err_set(struct iot_err *e, int code, const char *fmt, ...)
{
	if (e) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}

void iot_err_prefix(struct iot_err *e, const char *fmt, ...)
{
	char pre[256], old[sizeof(e->msg)];
	va_list ap;

	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	/* truncation is acceptable for a message; say so to the compiler */
	if (snprintf(e->msg, sizeof(e->msg), "%s: %s", pre, old) < 0)
		e->msg[0] = '\0';
}
