/* SPDX-License-Identifier: MIT */
/* Files read in place through a moving window of resident pages (formats/mapwin.h). */
#include "formats/mapwin.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define MIB_MASK (~(size_t)0xfffff)

int mapwin_open(struct mapwin *w, int fd, uint64_t size, size_t step, size_t keep, size_t fill)
{
	void *m;

	memset(w, 0, sizeof(*w));
	if (fd < 0 || !size || size > SIZE_MAX)
		return -EINVAL;
	m = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	madvise(m, (size_t)size, MADV_SEQUENTIAL);
	w->base = m;
	w->len = (size_t)size;
	w->step = step;
	w->keep = keep;
	w->fill = fill;
	mapwin_move(w, 0);
	return 0;
}

void mapwin_move(struct mapwin *w, size_t pos)
{
	size_t upto = pos > w->keep ? (pos - w->keep) & MIB_MASK : 0;

	if (upto > w->dropped) {
		madvise(w->base + w->dropped, upto - w->dropped, MADV_DONTNEED);
		w->dropped = upto;
	}
#ifdef MADV_POPULATE_READ
	if (w->ahead < w->len) {
		size_t to = (pos + w->fill + 0xfffff) & MIB_MASK; /* page aligned */

		if (to > w->len)
			to = w->len;
		if (to > w->ahead) {
			/* older kernels say EINVAL: the pages then come in by faults */
			madvise(w->base + w->ahead, to - w->ahead, MADV_POPULATE_READ);
			w->ahead = to;
		}
	}
#endif
	w->mark = pos + w->step;
}

void mapwin_close(struct mapwin *w)
{
	if (w->len)
		munmap(w->base, w->len);
	memset(w, 0, sizeof(*w));
}
