/* SPDX-License-Identifier: MIT */
/* Option values with a unit: one rule for every command (durations). */
#ifndef IOTAPE_COMMON_PARSE_H
#define IOTAPE_COMMON_PARSE_H

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

#endif
