/* SPDX-License-Identifier: MIT */
/* A line for the user through the caller's notice callback (libraries never print). */
#include "capture/cap_int.h"

#include <stdarg.h>
#include <stdio.h>

void cap_say(void (*notice)(void *arg, const char *msg), void *arg, const char *fmt, ...)
{
	char buf[768];
	va_list ap;

	if (!notice)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	notice(arg, buf);
}
