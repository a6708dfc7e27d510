/* SPDX-License-Identifier: MIT */
/* Helpers shared by the block sinks: aligned state, per-device arrays, histogram JSON. */
#include "analyze/blk_sink.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonint.h"

void blk_opts_init(struct blk_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->interval_ns = BLK_DEFAULT_INTERVAL_NS;
	o->idle_threshold_ns = BLK_DEFAULT_IDLE_NS;
	o->top = BLK_DEFAULT_TOP;
	o->max_inflight = BLK_DEFAULT_MAX_INFLIGHT;
	o->max_bins = BLK_DEFAULT_MAX_BINS;
	o->max_bins_total = BLK_DEFAULT_MAX_BINS_TOTAL;
}

const char *blk_dev_name(uint32_t dev, char *buf)
{
	snprintf(buf, 24, "%u,%u", BLK_DEV_MAJOR(dev), BLK_DEV_MINOR(dev));
	return buf;
}

void *blk_zalloc(size_t size)
{
	size_t n = (size + 63) & ~(size_t)63;
	void *p = aligned_alloc(64, n ? n : 64);

	if (p)
		memset(p, 0, n ? n : 64);
	return p;
}

int blk_grow(void ***arr, unsigned *n, unsigned idx)
{
	unsigned nn;
	void **p;

	if (idx < *n)
		return 0;
	nn = *n ? *n : 4;
	while (nn <= idx)
		nn *= 2;
	p = realloc(*arr, nn * sizeof(*p));
	if (!p)
		return -ENOMEM;
	memset(p + *n, 0, (nn - *n) * sizeof(*p));
	*arr = p;
	*n = nn;
	return 0;
}

json_t *blk_hist_json(const struct hist *h, int buckets)
{
	json_t *o = json_object();

	json_object_set_new(o, "count", json_u64(h->count));
	/* exact as an integer up to jansson's 2^63 - 1; past it (times near the clock's end)
	 * a real, never a cast out of range */
	json_object_set_new(o, "sum",
	                    h->sum <= (long double)INT64_MAX ? json_u64(h->sum)
	                                                     : json_real((double)h->sum));
	json_object_set_new(o, "mean", json_real(hist_mean(h)));
	json_object_set_new(o, "min", json_u64((h->count ? h->min : 0)));
	json_object_set_new(o, "p50", json_u64(hist_quantile(h, 0.50)));
	json_object_set_new(o, "p90", json_u64(hist_quantile(h, 0.90)));
	json_object_set_new(o, "p99", json_u64(hist_quantile(h, 0.99)));
	json_object_set_new(o, "max", json_u64(h->max));
	if (buckets) {
		json_t *b = json_array();

		for (unsigned i = 0; i < HIST_BUCKETS && h->count; i++) {
			uint64_t lo, hi;
			json_t *e;

			if (!h->b[i])
				continue;
			hist_bucket_bounds(i, &lo, &hi);
			e = json_object();
			json_object_set_new(e, "lo", json_u64(lo));
			json_object_set_new(e, "hi", json_u64(hi));
			json_object_set_new(e, "count", json_u64(h->b[i]));
			json_array_append_new(b, e);
		}
		json_object_set_new(o, "buckets", b);
	}
	return o;
}
