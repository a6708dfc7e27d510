/* SPDX-License-Identifier: MIT */
/* XDR (RFC 4506) on top of the bounds-checked cursor: lengths checked before 4-byte rounding. */
#ifndef IOTAPE_FORMATS_XDR_H
#define IOTAPE_FORMATS_XDR_H

#include <stdbool.h>
#include <stdint.h>

#include "common/cursor.h"

static inline uint32_t xdr_u32(struct cur *c)
{
	return cur_be32(c);
}

static inline uint64_t xdr_u64(struct cur *c)
{
	return cur_be64(c);
}

static inline bool xdr_bool(struct cur *c)
{
	return cur_be32(c) != 0;
}

/* Padded size of n opaque bytes, computed in 64 bits so 0xffffffff cannot wrap. */
static inline uint64_t xdr_pad(uint32_t n)
{
	return ((uint64_t)n + 3) & ~(uint64_t)3;
}

/* Skip n fixed opaque bytes (padded). */
static inline bool xdr_skip(struct cur *c, uint32_t n)
{
	uint64_t p = xdr_pad(n);

	if (p > cur_left(c)) {
		c->err = true;
		return false;
	}
	return cur_skip(c, (size_t)p);
}

/*
 * Variable-length opaque<max> or string<max>: returns a pointer to the bytes and their length,
 * or NULL (cursor error set) when the length exceeds max or the bytes left.
 */
static inline const uint8_t *xdr_opaque(struct cur *c, uint32_t max, uint32_t *len)
{
	uint32_t n = cur_be32(c);
	const uint8_t *p;

	*len = 0;
	if (c->err)
		return NULL;
	if (n > max) {
		c->err = true;
		return NULL;
	}
	p = c->pos;
	if (!xdr_skip(c, n))
		return NULL;
	*len = n;
	return p;
}

static inline bool xdr_skip_opaque(struct cur *c, uint32_t max)
{
	uint32_t n;

	return xdr_opaque(c, max, &n) != NULL || (!c->err && n == 0);
}

/* An array of n fixed-size items, each `size` bytes: checks n * size against what is left. */
static inline bool xdr_skip_array(struct cur *c, uint32_t size, uint32_t max)
{
	uint32_t n = cur_be32(c);
	uint64_t total = (uint64_t)n * size;

	if (c->err || n > max || total > cur_left(c)) {
		c->err = true;
		return false;
	}
	return cur_skip(c, (size_t)total);
}

#endif
