/* SPDX-License-Identifier: MIT */
/* Buffers of IOs larger than a slot, on huge pages where the kernel gives them. */
/*
 * How many requests the kernel makes of an IO depends on how many physically contiguous
 * pieces its buffer is in (replay/split.c). A buffer inside one huge page is one piece, so
 * buffers are powers of two from twice a slot, carved naturally aligned out of huge pages
 * (larger ones are whole huge pages), and a huge page is asked for with MADV_HUGEPAGE and
 * checked with MADV_COLLAPSE (Linux 6.1; 0 when the range is on huge pages, made so if need
 * be). Where that fails (no transparent huge pages, an older kernel, no memory), the buffer is
 * plain pages and the prediction an estimate. Buffers are never freed before the end: one a
 * slot has outgrown goes to a free list for the next that needs its size.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "replay/internal.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

static size_t huge_size(void)
{
	unsigned long long v = 0;
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "re");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	/* a power of two that a 32-bit length can be measured in */
	return v && !(v & (v - 1)) && v <= (1ull << 30) ? (size_t)v : 0;
}

void rp_bufs_init(struct rp_bufs *b)
{
	*b = (struct rp_bufs){.huge = huge_size()};
}

/* len bytes aligned to align (a power of two, or 0), remembered for the end; NULL if none */
static uint8_t *map(struct rp_bufs *b, size_t len, size_t align)
{
	uint8_t *p, *a;

	if (b->nmaps == b->capmaps) {
		unsigned cap = b->capmaps ? 2 * b->capmaps : 16;
		struct rp_map_rec *n = realloc(b->maps, cap * sizeof(*n));

		if (!n)
			return NULL;
		b->maps = n;
		b->capmaps = cap;
	}
	p = mmap(NULL, len + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	a = align ? (uint8_t *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1)) : p;
	if (a > p)
		munmap(p, (size_t)(a - p));
	if (p + align > a)
		munmap(a + len, (size_t)(p + align - a));
	b->maps[b->nmaps++] = (struct rp_map_rec){a, len};
	return a;
}

/* len bytes (a multiple of the huge page size) on huge pages if the kernel gives them: the
 * contiguous unit (the huge page size), or 0 */
static uint32_t make_huge(struct rp_bufs *b, uint8_t *p, size_t len)
{
	if (madvise(p, len, MADV_HUGEPAGE))
		return 0;
	for (size_t i = 0; i < len; i += b->huge)
		p[i] = 0; /* a write fault in an aligned huge range takes a huge page */
	return madvise(p, len, MADV_COLLAPSE) ? 0 : (uint32_t)b->huge;
}

static int push(struct rp_bufs *b, struct rp_buf buf)
{
	if (b->nfree == b->capfree) {
		unsigned cap = b->capfree ? 2 * b->capfree : 16;
		struct rp_buf *n = realloc(b->free, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		b->free = n;
		b->capfree = cap;
	}
	b->free[b->nfree++] = buf;
	return 0;
}

int rp_bufs_get(struct rp_bufs *b, size_t len, struct rp_buf *out)
{
	size_t cap = 2 * RP_SLOT_BYTES;
	struct rp_buf buf;

	while (cap < len)
		cap *= 2;
	for (unsigned i = b->nfree; i-- > 0;) { /* the last given back: still in the caches */
		if (b->free[i].cap == cap) {
			*out = b->free[i];
			b->free[i] = b->free[--b->nfree];
			return 0;
		}
	}
	if (!b->huge) {
		buf = (struct rp_buf){map(b, cap, 0), cap, 0};
		if (!buf.p)
			return -ENOMEM;
		*out = buf;
		return 0;
	}
	if (cap >= b->huge) {
		buf.p = map(b, cap, b->huge);
		if (!buf.p)
			return -ENOMEM;
		buf.cap = cap;
		buf.unit = make_huge(b, buf.p, cap);
		*out = buf;
		return 0;
	}
	/* a huge page cut into buffers of this size: one now, the others for later */
	buf.p = map(b, b->huge, b->huge);
	if (!buf.p)
		return -ENOMEM;
	buf.cap = cap;
	buf.unit = make_huge(b, buf.p, b->huge);
	for (size_t off = cap; off < b->huge; off += cap)
		if (push(b, (struct rp_buf){buf.p + off, cap, buf.unit}))
			return -ENOMEM;
	*out = buf;
	return 0;
}

int rp_bufs_put(struct rp_bufs *b, const struct rp_buf *buf)
{
	return buf->p ? push(b, *buf) : 0;
}

void rp_bufs_free(struct rp_bufs *b)
{
	for (unsigned i = 0; i < b->nmaps; i++)
		munmap(b->maps[i].p, b->maps[i].len);
	free(b->maps);
	free(b->free);
	*b = (struct rp_bufs){0};
}
