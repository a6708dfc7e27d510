/* SPDX-License-Identifier: MIT */
/* The one unit system of everything a person reads: binary byte sizes, readable durations. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "common/numfmt.h"
#include "common/units.h"

const char *iot_fmt_bytes(uint64_t b, char *buf, size_t len)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	double v = (double)b;
	unsigned u = 0;

	while (v >= 1024 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024;
		u++;
	}
	if (u)
		snprintf(buf, len, "%.1f %s", v, unit[u]);
	else
		snprintf(buf, len, "%" PRIu64 " B", b);
	return buf;
}

const char *iot_fmt_size(double b, char *buf, size_t len)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB"};
	unsigned i = 0;

	while (b >= 1024 && i + 1 < sizeof(unit) / sizeof(unit[0])) {
		b /= 1024;
		i++;
	}
	snprintf(buf, len, b < 10 && i ? "%.1f %s" : "%.0f %s", b, unit[i]);
	return buf;
}

const char *iot_fmt_rate(double bps, char *buf, size_t len)
{
	static const char *const unit[] = {"B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s", "PiB/s"};
	double v = bps;
	unsigned u = 0;

	if (isnan(bps)) {
		snprintf(buf, len, "-");
		return buf;
	}
	while (fabs(v) >= 1024 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
	return buf;
}

const char *iot_fmt_dur(double ns, char *buf, size_t len)
{
	double a = fabs(ns);

	if (isnan(ns))
		snprintf(buf, len, "-");
	else if (a < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (a < 1e6)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (a < 1e9)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
	return buf;
}

const char *iot_fmt_secs(uint64_t ns, unsigned dec, char *buf, size_t len)
{
	char tmp[40];

	*numfmt_secs(tmp, ns, dec) = '\0';
	snprintf(buf, len, "%s", tmp);
	return buf;
}

const char *iot_fmt_secs_signed(int64_t ns, unsigned dec, char *buf, size_t len)
{
	char tmp[40];
	uint64_t mag = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

	tmp[0] = ns < 0 ? '-' : '+';
	*numfmt_secs(tmp + 1, mag, dec) = '\0';
	snprintf(buf, len, "%s", tmp);
	return buf;
}
