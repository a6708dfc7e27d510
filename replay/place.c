/* SPDX-License-Identifier: MIT */
/* Small pure helpers: where an IO lands on its target, device names, the write pattern. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replay.h"

int rp_place(uint64_t pos, uint32_t len, uint64_t offset, uint64_t size, bool wrap, uint64_t *out)
{
	uint64_t p;

	if (__builtin_add_overflow(pos, offset, &p))
		p = UINT64_MAX;
	if (len <= size && p <= size - len) {
		*out = p;
		return 0;
	}
	if (!wrap || offset > size || len > size - offset)
		return -ERANGE;
	/* Wrap inside [offset, size): modulo the usable length rounded down to 4 KiB, so an
	 * aligned IO stays aligned; an IO that would straddle the end starts one length earlier. */
	{
		uint64_t usable = (size - offset) & ~4095ull;

		if (usable < len)
			usable = size - offset;
		p = usable ? pos % usable : 0; /* nothing usable: a 0-byte IO at the offset */
		if (p + len > usable)
			p = (usable - len) & ~511ull;
		*out = offset + p;
	}
	return 1;
}

int rp_parse_dev(const char *s, uint32_t *dev, struct iot_err *e)
{
	char path[300];
	unsigned ma, mi;
	char c;
	FILE *f;

	if ((sscanf(s, "%u,%u%c", &ma, &mi, &c) == 2 || sscanf(s, "%u:%u%c", &ma, &mi, &c) == 2) &&
	    ma < 4096 && mi < (1u << 20)) {
		*dev = BLK_MKDEV(ma, mi);
		return 0;
	}
	if (!strncmp(s, "/dev/", 5))
		s += 5;
	if (!*s || strchr(s, '/') || strlen(s) > 200)
		return iot_err_set(e, -EINVAL, "'%s' is not a device (MAJ,MIN or a name)", s);
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", s);
	f = fopen(path, "r");
	if (!f)
		return iot_err_set(e, -ENOENT,
		                   "'%s' is not a block device here; give it as MAJ,MIN", s);
	if (fscanf(f, "%u:%u", &ma, &mi) != 2) {
		fclose(f);
		return iot_err_set(e, -EINVAL, "'%s': cannot read its device number", path);
	}
	fclose(f);
	*dev = BLK_MKDEV(ma, mi);
	return 0;
}

/* splitmix64: the data says where it came from (seed) and is never uninitialised memory. Whole
 * words in the loop, the tail apart: a memcpy() of a variable length per word cost three
 * times the words' own mixing (a 512 KiB pattern is filled during the replay, bench/README.md) */
static inline uint64_t pattern_word(uint64_t s)
{
	uint64_t z = s;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void rp_pattern_fill(void *buf, size_t len, uint64_t seed)
{
	uint8_t *p = buf;
	uint64_t s = seed, z;
	size_t words = len / 8;

	for (size_t i = 0; i < words; i++) {
		z = pattern_word(s += 0x9e3779b97f4a7c15ull);
		memcpy(p + i * 8, &z, 8);
	}
	if (len % 8) {
		z = pattern_word(s += 0x9e3779b97f4a7c15ull);
		memcpy(p + words * 8, &z, len % 8);
	}
}
