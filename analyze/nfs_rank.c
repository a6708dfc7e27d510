/* SPDX-License-Identifier: MIT */
/* The top-N ranking the client and file tables share. */
#include "analyze/nfs_stats.h"

unsigned nfs_rank_top(const void *ctx, unsigned count, uint64_t (*key)(const void *ctx, unsigned i),
                      bool skip_zero, unsigned *idx, unsigned n)
{
	unsigned got = 0;

	/* insertion into a short sorted list: n is a --top count */
	for (unsigned i = 0; i < count; i++) {
		uint64_t v = key(ctx, i);
		unsigned j;

		if (!v && skip_zero)
			continue;
		for (j = got; j > 0 && key(ctx, idx[j - 1]) < v; j--)
			if (j < n)
				idx[j] = idx[j - 1];
		if (j < n) {
			idx[j] = i;
			if (got < n)
				got++;
		}
	}
	return got;
}
