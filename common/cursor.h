/* SPDX-License-Identifier: MIT */
/* Bounds-checked reading of untrusted bytes (the tcpdump way: compare remaining lengths). */
#ifndef IOTAPE_COMMON_CURSOR_H
#define IOTAPE_COMMON_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * A cursor over [pos, end). Every getter checks the remaining length first; on a short read
 * it sets err, which stays set, and returns 0, so a decoder can read a whole structure and
 * check cur.err once. Inner layers take a narrower cursor with cur_sub().
 */
struct cur {
	const uint8_t *pos;
	const uint8_t *end;
	bool err;
};

static inline struct cur cur_make(const void *p, size_t len)
{
	struct cur c = {(const uint8_t *)p, (const uint8_t *)p + len, false};
	return c;
}

static inline size_t cur_left(const struct cur *c)
{
	return c->err ? 0 : (size_t)(c->end - c->pos);
}

static inline bool cur_need(struct cur *c, size_t n)
{
	if (c->err || (size_t)(c->end - c->pos) < n) {
		c->err = true;
		return false;
	}
	return true;
}

static inline bool cur_skip(struct cur *c, size_t n)
{
	if (!cur_need(c, n))
		return false;
	c->pos += n;
	return true;
}

/* A cursor over the next n bytes; the parent advances past them. */
static inline struct cur cur_sub(struct cur *c, size_t n)
{
	struct cur s = {c->pos, c->pos, true};

	if (cur_need(c, n)) {
		s.end = c->pos + n;
		s.err = false;
		c->pos += n;
	}
	return s;
}

static inline const uint8_t *cur_bytes(struct cur *c, size_t n)
{
	const uint8_t *p = c->pos;

	return cur_skip(c, n) ? p : NULL;
}

static inline uint8_t cur_u8(struct cur *c)
{
	return cur_need(c, 1) ? *c->pos++ : 0;
}

static inline uint16_t cur_be16(struct cur *c)
{
	uint16_t v;

	if (!cur_need(c, 2))
		return 0;
	v = (uint16_t)(c->pos[0] << 8 | c->pos[1]);
	c->pos += 2;
	return v;
}

static inline uint32_t cur_be32(struct cur *c)
{
	uint32_t v;

	if (!cur_need(c, 4))
		return 0;
	v = (uint32_t)c->pos[0] << 24 | (uint32_t)c->pos[1] << 16 | (uint32_t)c->pos[2] << 8 |
	    c->pos[3];
	c->pos += 4;
	return v;
}

static inline uint64_t cur_be64(struct cur *c)
{
	uint64_t hi = cur_be32(c);

	return hi << 32 | cur_be32(c);
}

static inline uint16_t cur_le16(struct cur *c)
{
	uint16_t v;

	if (!cur_need(c, 2))
		return 0;
	v = (uint16_t)(c->pos[1] << 8 | c->pos[0]);
	c->pos += 2;
	return v;
}

static inline uint32_t cur_le32(struct cur *c)
{
	uint32_t v;

	if (!cur_need(c, 4))
		return 0;
	v = (uint32_t)c->pos[3] << 24 | (uint32_t)c->pos[2] << 16 | (uint32_t)c->pos[1] << 8 |
	    c->pos[0];
	c->pos += 4;
	return v;
}

static inline uint64_t cur_le64(struct cur *c)
{
	uint64_t lo = cur_le32(c);

	return (uint64_t)cur_le32(c) << 32 | lo;
}

/* Unaligned host-order loads for fixed-size records already length-checked by the caller. */
static inline uint32_t load_u32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t load_u64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint16_t load_u16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

#endif
