/* SPDX-License-Identifier: MIT */
/* Interval bins whose width doubles (see bins.h). */
#include "common/bins.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void bins_init(struct bins *b, uint64_t width, uint64_t max, bool aligned)
{
	memset(b, 0, sizeof(*b));
	b->width = b->width0 = width ? width : 1;
	b->max = b->max0 = max >= 2 ? max : 2;
	b->aligned = aligned;
}

void bins_start(struct bins *b, uint64_t origin)
{
	b->started = true;
	b->origin = b->aligned ? origin - origin % b->width : origin;
	b->n = 1;
}

/* Double the width: pairs of bins become one (aligned: the origin moves down to a multiple
 * of the new width, so an odd first bin pairs with the one before it). */
static void widen(struct bins *b, bins_move_fn fn, void *ctx)
{
	struct bins_move m = {.used = b->n, .widen = 1};

	if (b->aligned && (b->origin / b->width) & 1) {
		m.off = 1;
		b->origin -= b->width;
	}
	b->width *= 2;
	b->n = ((b->n - 1 + m.off) >> 1) + 1;
	b->widened++;
	if (fn)
		fn(ctx, &m);
}

uint64_t bins_place(struct bins *b, uint64_t t, bins_move_fn fn, void *ctx)
{
	if (!b->started) {
		bins_start(b, t);
		return bins_index(b, t);
	}
	for (;;) {
		uint64_t k;

		/* past 2^63 ns a bin covers every time there is: nothing left to double */
		if (b->width > UINT64_MAX / 2)
			return bins_index(b, t);
		if (t < b->origin) {
			struct bins_move m = {.used = b->n};

			if (!b->aligned)
				return 0;
			m.right = (b->origin - t - 1) / b->width + 1;
			if (b->n + m.right > b->max) {
				widen(b, fn, ctx);
				continue;
			}
			b->origin -= m.right * b->width;
			b->n += m.right;
			if (fn)
				fn(ctx, &m);
			return 0;
		}
		k = (t - b->origin) / b->width;
		if (k < b->max) {
			if (k >= b->n)
				b->n = k + 1;
			return k;
		}
		widen(b, fn, ctx);
	}
}

void bins_share(struct bins *b, uint64_t nseries, uint64_t total, bins_move_fn fn, void *ctx)
{
	uint64_t m = total / (nseries ? nseries : 1);

	if (m < BINS_SHARE_MIN)
		m = BINS_SHARE_MIN;
	m = (uint64_t)1 << (63 - __builtin_clzll(m)); /* halves, not a change per series */
	if (m > b->max0)
		m = b->max0;
	if (m >= b->max)
		return;
	b->max = m;
	while (b->started && b->n > b->max && b->width <= UINT64_MAX / 2)
		widen(b, fn, ctx);
	if (b->n > b->max) /* nothing left to double */
		b->max = b->n;
}

void bins_cut(void **arr, uint64_t *cap, size_t size, uint64_t max)
{
	void *p;

	if (*cap <= max)
		return;
	p = realloc(*arr, max * size);
	if (!p)
		return;
	*arr = p;
	*cap = max;
}

uint64_t bins_start_of(const struct bins *b, uint64_t k)
{
	uint64_t off;

	if (__builtin_mul_overflow(k, b->width, &off) ||
	    __builtin_add_overflow(off, b->origin, &off))
		return UINT64_MAX;
	return off;
}

uint64_t bins_end_of(const struct bins *b, uint64_t k)
{
	return k == UINT64_MAX ? UINT64_MAX : bins_start_of(b, k + 1);
}

int bins_reserve(void **arr, uint64_t *cap, uint64_t k, size_t size, uint64_t max)
{
	uint64_t n = *cap ? *cap : 16;
	char *p;

	if (k < *cap)
		return 0;
	while (n <= k)
		n *= 2;
	if (n > max)
		n = max > k ? max : k + 1;
	p = realloc(*arr, n * size);
	if (!p)
		return -ENOMEM;
	memset(p + *cap * size, 0, (n - *cap) * size);
	*arr = p;
	*cap = n;
	return 0;
}

void bins_move_array(const struct bins_move *m, void *arr, uint64_t cap, size_t size,
                     void (*add)(void *dst, const void *src))
{
	uint64_t n = m->used < cap ? m->used : cap;
	char *a = arr;

	if (m->right) {
		if (m->right >= cap)
			n = 0;
		else if (n > cap - m->right)
			n = cap - m->right; /* not with arrays of max elements */
		if (n)
			memmove(a + m->right * size, a, n * size);
		memset(a, 0, (m->right < cap ? m->right : cap) * size);
		return;
	}
	if (!m->widen)
		return;
	/* bin k goes to (k + off) / 2 <= k: ascending, every target is final before it is used */
	for (uint64_t k = 0; k < n; k++) {
		uint64_t d = (k + m->off) >> 1;

		if (d == k)
			continue;
		add(a + d * size, a + k * size);
		memset(a + k * size, 0, size);
	}
}
