/* SPDX-License-Identifier: MIT */
/* The one unit system of everything a person reads: binary byte sizes, readable durations. */
#ifndef IOTAPE_COMMON_UNITS_H
#define IOTAPE_COMMON_UNITS_H

#include <stddef.h>
#include <stdint.h>

/*
 * docs/units.md: sizes are binary (KiB, MiB, GiB: powers of 1024), as analyze's text has
 * always printed them; rates of bytes are MiB/s. Durations take the largest unit of ns, us,
 * ms and s that keeps them at least 1, so no reader counts digits. Every renderer (text,
 * report, movie, compare) formats through here, so that one figure reads the same wherever it
 * is shown.
 */
#define IOT_MIB 1048576.0 /* bytes in a MiB: what a rate in MiB/s divides by */

/* "512 B", "4.0 KiB", "164.2 MiB". Returns buf. */
const char *iot_fmt_bytes(uint64_t b, char *buf, size_t len);
/* The same units, compact for an axis label: "512 B", "1.5 KiB", "256 MiB". Returns buf. */
const char *iot_fmt_size(double b, char *buf, size_t len);
/* "830 B/s", "12.3 MiB/s", "1.2 GiB/s" for a rate in bytes per second (NaN: "-"). Returns buf. */
const char *iot_fmt_rate(double bytes_per_s, char *buf, size_t len);
/* "830 ns", "434.1 ms", "1.02 ms", "2.500 s" (NaN: "-"). Returns buf. */
const char *iot_fmt_dur(double ns, char *buf, size_t len);
/* ns as seconds with dec (0 to 9) decimals, exact for any u64 (numfmt_secs()): "12.345" of a
 * span or a time on the trace's clock, where the unit is fixed by the text around it. */
const char *iot_fmt_secs(uint64_t ns, unsigned dec, char *buf, size_t len);
/* The same with its sign, always: "+0.000120000", "-1.500". */
const char *iot_fmt_secs_signed(int64_t ns, unsigned dec, char *buf, size_t len);

#endif
