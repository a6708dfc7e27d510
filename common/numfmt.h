/* SPDX-License-Identifier: MIT */
/* Decimal numbers into a buffer without printf, for writers of millions of lines. */
#ifndef IOTAPE_COMMON_NUMFMT_H
#define IOTAPE_COMMON_NUMFMT_H

#include <stdint.h>
#include <string.h>

/*
 * Eight digits at once, in one 64-bit word (SWAR): v < 10^8 is split into two halves of four
 * digits (one division by a constant), each half into two pairs (x / 100 as x * 10486 >> 20,
 * exact below 10^4), each pair into two digits (x / 10 as x * 103 >> 10, exact below 100),
 * every lane at once. The result is the eight ASCII digits, zero-padded, the most significant
 * in the lowest byte (the first in memory on a little-endian machine).
 */
static inline uint64_t numfmt_swar8(uint32_t v)
{
	uint64_t hi = v / 10000, lo = v - (uint32_t)hi * 10000;
	uint64_t x = hi | lo << 32;                               /* 32-bit lanes, < 10^4 */
	uint64_t y = ((x * 10486) >> 20) & 0x0000007f0000007full; /* x / 100 */
	uint64_t w = y | (x - y * 100) << 16;                     /* 16-bit lanes, < 100 */
	uint64_t t = ((w * 103) >> 10) & 0x000f000f000f000full;   /* w / 10 */
	uint64_t d = t | (w - t * 10) << 8;                       /* bytes, < 10 */

	return d | 0x3030303030303030ull;
}

/* How many leading zeros the eight digits of numfmt_swar8(v) have (v < 10^8, v > 0). */
static inline unsigned numfmt_swar8_zeros(uint64_t digits)
{
	return (unsigned)__builtin_ctzll(digits & 0x0f0f0f0f0f0f0f0full) >> 3;
}

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "numfmt.h writes the digits of a word in little-endian order"
#endif

/* v < 10^8 in exactly 8 digits at p. */
static inline char *numfmt_8(char *p, uint32_t v)
{
	uint64_t d = numfmt_swar8(v);

	memcpy(p, &d, 8);
	return p + 8;
}

/* v < 10^8 without leading zeros; writes 8 bytes at p, returns the end of the digits. */
static inline char *numfmt_small(char *p, uint32_t v)
{
	uint64_t d;
	unsigned z;

	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	d = numfmt_swar8(v);
	z = numfmt_swar8_zeros(d);
	d >>= 8 * z;
	memcpy(p, &d, 8);
	return p + 8 - z;
}

/* v in decimal at p; writes up to 24 bytes (digits and slack) at p, returns the end. */
static inline char *numfmt_u64(char *p, uint64_t v)
{
	if (v < 100000000)
		return numfmt_small(p, (uint32_t)v);
	if (v < 10000000000000000ull) {
		uint64_t hi = v / 100000000;

		p = numfmt_small(p, (uint32_t)hi);
		return numfmt_8(p, (uint32_t)(v - hi * 100000000));
	}
	{
		uint64_t hi = v / 10000000000000000ull, mid = v % 10000000000000000ull / 100000000;

		p = numfmt_small(p, (uint32_t)hi);
		p = numfmt_8(p, (uint32_t)mid);
		return numfmt_8(p, (uint32_t)(v % 100000000));
	}
}

/* How many decimal digits v has (1 to 20). */
static inline unsigned numfmt_len(uint64_t v)
{
	unsigned n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* printf's "%*d" family: v right-aligned in width w (spaces), or left-aligned with left.
 * Writes up to max(w, 21) + 24 bytes at p. */
static inline char *numfmt_i64w(char *p, int64_t v, unsigned w, int left)
{
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	char tmp[48], *e = tmp;
	unsigned n;

	if (v < 0)
		*e++ = '-';
	e = numfmt_u64(e, u);
	n = (unsigned)(e - tmp);
	if (!left)
		for (; w > n; w--)
			*p++ = ' ';
	memcpy(p, tmp, n);
	p += n;
	if (left)
		for (; w > n; w--)
			*p++ = ' ';
	return p;
}

/* "%*u" for v < 10^8 and a width w of at most 8: right-aligned, one 8-byte store when the
 * digits fill the width; writes up to 16 bytes at p. */
static inline char *numfmt_uw8(char *p, uint32_t v, unsigned w)
{
	uint64_t d, spaces = 0x2020202020202020ull;
	unsigned n;

	if (v >= 100000000)
		return numfmt_i64w(p, v, w, 0);
	d = numfmt_swar8(v);
	n = v ? 8 - numfmt_swar8_zeros(d) : 1;
	if (n >= w) {
		d >>= 8 * (8 - n);
		memcpy(p, &d, 8);
		return p + n;
	}
	/* the digits at the end of w bytes, spaces before them */
	memcpy(p, &spaces, 8);
	d >>= 8 * (8 - n);
	memcpy(p + w - n, &d, 8);
	return p + w;
}

/* v < 10^9 in exactly 9 digits, zero-padded ("%09u" of the nanoseconds of a second). */
static inline char *numfmt_9(char *p, uint32_t v)
{
	uint32_t hi = v / 100000000;

	p[0] = (char)('0' + hi % 10);
	return numfmt_8(p + 1, v - hi * 100000000);
}

/*
 * ns as seconds with dec (0 to 9) digits after the point, rounded half up, in integers: a
 * double holds nanoseconds exactly only to 2^53 (104 days), so printf of ns / 1e9 was off by
 * up to 2 us near 2^63. Writes up to 32 bytes at p, returns the end.
 */
static inline char *numfmt_secs(char *p, uint64_t ns, unsigned dec)
{
	static const uint64_t p10[10] = {1,      10,      100,      1000,      10000,
	                                 100000, 1000000, 10000000, 100000000, 1000000000};
	uint64_t div, q;
	char frac[16];

	dec = dec > 9 ? 9 : dec;
	div = p10[9 - dec];
	q = ns / div + (ns % div >= div - div / 2 && div > 1); /* div >= 10: q cannot wrap */
	p = numfmt_u64(p, q / p10[dec]);
	if (dec) {
		numfmt_9(frac, (uint32_t)(q % p10[dec]));
		*p++ = '.';
		memcpy(p, frac + 9 - dec, dec);
		p += dec;
	}
	return p;
}

/* printf's "%*s": s (n bytes) right-aligned in width w. */
static inline char *numfmt_strw(char *p, const char *s, size_t n, unsigned w)
{
	for (; w > n; w--)
		*p++ = ' ';
	memcpy(p, s, n);
	return p + n;
}

#endif
