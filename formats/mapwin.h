/* SPDX-License-Identifier: MIT */
/* A file read in place: mapped whole, with a window of resident pages that moves along. */
#ifndef IOTAPE_FORMATS_MAPWIN_H
#define IOTAPE_FORMATS_MAPWIN_H

#include <stddef.h>
#include <stdint.h>

/*
 * Readers of big files (block traces, packet captures) decode records where they lie in the
 * page cache instead of copying them into a buffer (the kernel's copy was 13 % of a block
 * pass and a third of an NFS one). Every `step` bytes (when the reader's position reaches
 * mark), the pages more than `keep` bytes behind are handed back (MADV_DONTNEED: resident
 * memory stays bounded whatever the file's size; the pages stay in the page cache) and the
 * page tables of the next `fill` bytes are filled in one call (MADV_POPULATE_READ) instead
 * of one fault per 64 KiB. A file that shrinks while it is read raises SIGBUS, as for any
 * mapped reader.
 */
struct mapwin {
	uint8_t *base; /* the file's bytes, len of them */
	size_t len;
	size_t dropped; /* bytes below this were handed back */
	size_t ahead;   /* bytes below this have their page tables filled */
	size_t mark;    /* at this position, call mapwin_move() */
	size_t step, keep, fill;
};

/* Map size bytes of fd (read-only) and set the window at 0: 0, or -errno (nothing mapped). */
int mapwin_open(struct mapwin *w, int fd, uint64_t size, size_t step, size_t keep, size_t fill);
/* The reader is at pos (>= mark): move the window, set the next mark. */
void mapwin_move(struct mapwin *w, size_t pos);
void mapwin_close(struct mapwin *w);

#endif
