/* SPDX-License-Identifier: MIT */
/* A top-N heap: the best N of the items offered, in an array the caller owns. */
#ifndef IOTAPE_COMMON_TOPN_H
#define IOTAPE_COMMON_TOPN_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/*
 * A min-heap of at most cap items of size bytes each at v: its root is the item it would drop
 * first. drops_first(a, b) says that a leaves before b (the shorter gap, the faster call); it
 * must be a strict order, ties broken the way the caller's ranking breaks them. The functions
 * are inline and take drops_first at each call, so that a caller's constant comparator is
 * compiled into its loop (the slowest NFS calls are offered once a reply). Sort v[0..n) with
 * the caller's own order to list them.
 */
typedef bool (*iot_topn_less)(const void *a, const void *b);

struct iot_topn {
	void *v;
	size_t size;
	unsigned n, cap;
};

static inline void iot_topn_init(struct iot_topn *t, void *v, unsigned cap, size_t size)
{
	t->v = v;
	t->size = size;
	t->n = 0;
	t->cap = cap;
}

static inline void *iot_topn_at(const struct iot_topn *t, unsigned i)
{
	return (char *)t->v + (size_t)i * t->size;
}

/* Whether x would be kept: there is room, or the root drops first. */
static inline bool iot_topn_wants(const struct iot_topn *t, const void *x,
                                  iot_topn_less drops_first)
{
	return t->cap && (t->n < t->cap || drops_first(t->v, x));
}

/*
 * Keep x (when iot_topn_wants() said so; copied in). 0 when there was room; 1 when x took the
 * place of the root, which is copied to *out first when out is not NULL (for the caller to
 * release what it owns). Items move by a hole, one copy a level.
 */
static inline int iot_topn_put(struct iot_topn *t, const void *x, void *out,
                               iot_topn_less drops_first)
{
	size_t sz = t->size;
	unsigned i;

	if (t->n < t->cap) {
		for (i = t->n++; i > 0; i = (i - 1) / 2) {
			void *up = iot_topn_at(t, (i - 1) / 2);

			if (!drops_first(x, up))
				break;
			memcpy(iot_topn_at(t, i), up, sz);
		}
		memcpy(iot_topn_at(t, i), x, sz);
		return 0;
	}
	if (out)
		memcpy(out, t->v, sz);
	for (i = 0;;) {
		unsigned l = 2 * i + 1, m = l;

		if (l >= t->n)
			break;
		if (l + 1 < t->n && drops_first(iot_topn_at(t, l + 1), iot_topn_at(t, l)))
			m = l + 1;
		if (!drops_first(iot_topn_at(t, m), x))
			break;
		memcpy(iot_topn_at(t, i), iot_topn_at(t, m), sz);
		i = m;
	}
	memcpy(iot_topn_at(t, i), x, sz);
	return 1;
}

#endif
