/* SPDX-License-Identifier: MIT */
/* How many requests the kernel makes of one of the replay's reads or writes on a block device. */
/*
 * A request-based queue splits a bio (block/blk-merge.c) where it would exceed max_sectors_kb
 * or max_segments segments, a segment being a physically contiguous piece of the buffer of at
 * most max_segment_size, and where it would cross a multiple of chunk_sectors. The limits are
 * the queue's (read at open, target.c); the segments depend on where the buffer's pages lie in
 * physical memory, which the replay knows only for its buffers on huge pages (bufs.c): there a
 * segment is max_segment_size, elsewhere anything from a page to max_segment_size, and the
 * count is then a range. A bio-based RAM device (zram, brd, pmem) takes a bio of any size;
 * device-mapper and md split by rules of their own, so their queue's limits give an estimate.
 * Buffers are page-aligned and lengths a multiple of the logical block (else the IO went
 * through the page cache and is not predicted), so dma_alignment never bounces them.
 */
#include "replay/internal.h"

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

/* the bytes one request holds when every segment holds seg bytes */
static uint64_t per_request(const struct rp_target *t, uint64_t seg)
{
	uint64_t cap = t->max_io ? t->max_io : UINT64_MAX;

	if (t->max_segs && seg && (uint64_t)t->max_segs * seg < cap)
		cap = (uint64_t)t->max_segs * seg;
	return cap;
}

/* requests for [off, off + len) split at multiples of chunk (0: none), cap bytes each */
static uint64_t requests(uint64_t off, uint64_t len, uint64_t chunk, uint64_t cap)
{
	uint64_t n = 0;

	if (!chunk)
		return div_up(len, cap);
	while (len) {
		uint64_t piece = chunk - off % chunk;

		if (piece > len)
			piece = len;
		n += div_up(piece, cap);
		off += piece;
		len -= piece;
	}
	return n;
}

void rp_split_predict(const struct rp_target *t, uint64_t off, uint32_t len, uint32_t unit,
                      uint32_t *lo, uint32_t *hi)
{
	uint64_t page = t->page ? t->page : 4096, seg = t->seg_bytes ? t->seg_bytes : page;
	uint64_t best, worst, a, b;

	*lo = *hi = 1;
	if (t->split == RP_SPLIT_NONE || !len)
		return;
	if (unit && seg > unit)
		seg = unit; /* no segment spans two huge pages */
	best = per_request(t, seg);
	/* on huge pages a segment is seg long (unit is a multiple of it), else it may be a page */
	worst = unit && unit % seg == 0 ? best : per_request(t, page);
	a = requests(off, len, t->chunk, best);
	b = requests(off, len, t->chunk, worst);
	*lo = a > UINT32_MAX ? UINT32_MAX : (uint32_t)a;
	*hi = b > UINT32_MAX ? UINT32_MAX : (uint32_t)b;
	if (t->split == RP_SPLIT_GUESS && *lo == *hi && *lo > 1)
		*lo = 1; /* device-mapper or md may take it whole and split below */
}

uint32_t rp_split_whole(const struct rp_target *t)
{
	uint64_t w;

	if (t->split == RP_SPLIT_NONE)
		return UINT32_MAX;
	w = per_request(t, t->page ? t->page : 4096);
	return w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
}
