/* SPDX-License-Identifier: MIT */
/* Option values with a unit: one rule for every command (durations, sizes). */
#ifndef IOTAPE_COMMON_PARSE_H
#define IOTAPE_COMMON_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/*
 * A duration written with its unit into *ns: a number (decimals allowed, "1.5s") and one of
 * ns, us, ms, s, m, h ("250us", "10ms", "2m"). A number without a unit is refused, whatever
 * the option (it meant nanoseconds to some and seconds to others): the message suggests the
 * units. "0" alone is zero in every unit and is taken. 0, or -EINVAL (missing, not a number,
 * negative, no or an unknown unit) or -ERANGE (past 2^64 ns, about 584 years), e says why
 * without the option's name.
 */
int iot_parse_duration(const char *s, uint64_t *ns, struct iot_err *e);

/*
 * A size in bytes into *bytes: a number (decimals allowed, "1.5m") and optionally a binary
 * unit, k, m, g, t or p in either case, alone or followed by b, B, ib or iB: 4k = 4K = 4kB =
 * 4KiB = 4096 (powers of 1024, as the kernel's and fio's sizes). A number without a unit is
 * bytes, for every option ("b" or "B" alone says so too). 0, or -EINVAL (missing, not a
 * decimal number, negative, an unknown unit, not a whole number of bytes) or -ERANGE (2^64
 * or more); e says why without the option's name.
 */
int iot_parse_size(const char *s, uint64_t *bytes, struct iot_err *e);
/* The unit of a size at s (what follows the number; nothing may follow the unit): its power
 * of 1024 and its length, or 0 when s is not a unit ("" is none either). "b" is power 0. */
size_t iot_size_unit(const char *s, int *power);

#endif
