/* SPDX-License-Identifier: MIT */
/* Decimal numbers into a buffer without printf, for writers of millions of lines. */
#ifndef IOTAPE_COMMON_NUMFMT_H
#define IOTAPE_COMMON_NUMFMT_H

#include <stdint.h>
#include <string.h>

/* Two digits at a time: half the divisions of the digit-by-digit loop. */
static const char numfmt_pairs[201] = "00010203040506070809101112131415161718192021222324"
                                      "25262728293031323334353637383940414243444546474849"
                                      "50515253545556575859606162636465666768697071727374"
                                      "75767778798081828384858687888990919293949596979899";

/* The digits of v < 2^32, ending at end (exclusive); returns where they start. 32-bit
 * arithmetic, one division by a constant (a multiplication) per two digits. */
static inline char *numfmt_back32(char *end, uint32_t v)
{
	while (v >= 100) {
		uint32_t q = v / 100;

		end -= 2;
		memcpy(end, numfmt_pairs + 2 * (v - q * 100), 2);
		v = q;
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, numfmt_pairs + 2 * v, 2);
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

/* v < 10^8 in exactly 8 digits ending at end. */
static inline void numfmt_back8(char *end, uint32_t v)
{
	for (int i = 0; i < 4; i++) {
		uint32_t q = v / 100;

		end -= 2;
		memcpy(end, numfmt_pairs + 2 * (v - q * 100), 2);
		v = q;
	}
}

/* The digits of v, ending at end (exclusive); returns where they start (at most 20 back). */
static inline char *numfmt_back(char *end, uint64_t v)
{
	while (v > UINT32_MAX) {
		uint64_t q = v / 100000000;

		numfmt_back8(end, (uint32_t)(v - q * 100000000));
		end -= 8;
		v = q;
	}
	return numfmt_back32(end, (uint32_t)v);
}

/* How many decimal digits v has (1 to 20). */
static inline unsigned numfmt_len(uint64_t v)
{
	static const uint64_t p10[20] = {1ull,
	                                 10ull,
	                                 100ull,
	                                 1000ull,
	                                 10000ull,
	                                 100000ull,
	                                 1000000ull,
	                                 10000000ull,
	                                 100000000ull,
	                                 1000000000ull,
	                                 10000000000ull,
	                                 100000000000ull,
	                                 1000000000000ull,
	                                 10000000000000ull,
	                                 100000000000000ull,
	                                 1000000000000000ull,
	                                 10000000000000000ull,
	                                 100000000000000000ull,
	                                 1000000000000000000ull,
	                                 10000000000000000000ull};
	unsigned t;

	if (v < 10)
		return 1;
	/* log10 from log2: bits * log10(2) is at most one too many */
	t = ((64u - (unsigned)__builtin_clzll(v)) * 1233u) >> 12;
	return t + (v >= p10[t]);
}

/* v in decimal at p (at most 20 bytes); returns the end. */
static inline char *numfmt_u64(char *p, uint64_t v)
{
	p += numfmt_len(v);
	numfmt_back(p, v);
	return p;
}

/* "%*u" for a width w of at most 8: v right-aligned; p must have room for 8 bytes. */
static inline char *numfmt_uw8(char *p, uint64_t v, unsigned w)
{
	unsigned n = numfmt_len(v);

	if (n < w) {
		memset(p, ' ', 8);
		p += w - n;
	}
	p += n;
	numfmt_back(p, v);
	return p;
}

/* printf's "%*d" family: v right-aligned in width w (spaces), or left-aligned with left. */
static inline char *numfmt_i64w(char *p, int64_t v, unsigned w, int left)
{
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	unsigned n = numfmt_len(u) + (v < 0);

	if (!left)
		for (; w > n; w--)
			*p++ = ' ';
	if (v < 0)
		*p = '-';
	p += n;
	numfmt_back(p, u);
	if (left)
		for (; w > n; w--)
			*p++ = ' ';
	return p;
}

/* v < 10^9 in exactly 9 digits, zero-padded ("%09u" of the nanoseconds of a second). */
static inline char *numfmt_9(char *p, uint32_t v)
{
	uint32_t hi = v / 100000000;

	p[0] = (char)('0' + hi % 10);
	numfmt_back8(p + 9, v - hi * 100000000);
	return p + 9;
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
