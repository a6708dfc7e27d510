/* SPDX-License-Identifier: MIT */
/* Unsigned 64-bit integers in JSON: jansson's integers are signed. */
#ifndef IOTAPE_COMMON_JSONINT_H
#define IOTAPE_COMMON_JSONINT_H

#include <stdint.h>

#include <jansson.h>

/*
 * Times (ns since an arbitrary clock origin), sectors and byte counts are unsigned 64-bit;
 * jansson holds integers as long long, so one at or past 2^63 came out negative
 * (json_integer((json_int_t)v)). Every such number goes through json_u64(): an integer up
 * to INT64_MAX, and past it a string of its decimal digits ("9223372036854775808"), the
 * documented form (docs/json.md) that json_u64_get() and the readers take back.
 */
json_t *json_u64(uint64_t v);

/* An integer >= 0 or a string of decimal digits up to 2^64-1 into *v: 0, or -EINVAL (*v = 0)
 * for anything else (a negative number, a real, a string of something else). */
int json_u64_get(const json_t *j, uint64_t *v);

/* j as a double when it is a u64 in either form (summaries read by compare and the report),
 * else NaN. */
double json_u64_number(const json_t *j);

/* The same, the member key of object o; -ENOENT (*v = 0) when it is not there. */
int json_u64_member(const json_t *o, const char *key, uint64_t *v);

#endif
