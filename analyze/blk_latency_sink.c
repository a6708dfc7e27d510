/* SPDX-License-Identifier: MIT */
/* The latency sink made and freed, its figures read and written to JSON, and its
 * struct blk_sink_ops; the per-event matching is blk_latency.c's. */
#include <stdlib.h>

#include "analyze/blk_latency_int.h"

const char *const blk_lat_names[BLK_LAT_N] = {
    [BLK_LAT_Q2D] = "q2d", [BLK_LAT_D2C] = "d2c",
    [BLK_LAT_Q2C] = "q2c", [BLK_LAT_Q2G] = "q2g",
    [BLK_LAT_G2I] = "g2i", [BLK_LAT_Q2M] = "q2m",
    [BLK_LAT_I2D] = "i2d", [BLK_LAT_M2D] = "m2d",
    [BLK_LAT_Q2Q] = "q2q", [BLK_LAT_D2C_REQ] = "d2c_request",
};

struct blk_latency *blk_latency_new(const struct blk_opts *o)
{
	struct blk_latency *l = blk_zalloc(sizeof(*l));
	uint32_t cap = o && o->max_inflight ? o->max_inflight : BLK_DEFAULT_MAX_INFLIGHT;
	uint32_t nb = 64;

	if (!l)
		return NULL;
	/* a quarter of the pool: chains stay short when full, the buckets in cache */
	while (nb < cap / 4)
		nb <<= 1;
	l->mask = nb - 1;
	l->bio = malloc((size_t)cap * sizeof(*l->bio));
	l->rq = malloc((size_t)cap * sizeof(*l->rq));
	l->found = malloc((size_t)cap * sizeof(*l->found));
	l->bucket = calloc(nb, sizeof(*l->bucket));
	if (!l->bio || !l->rq || !l->found || !l->bucket) {
		blk_latency_free(l);
		return NULL;
	}
	if (o && o->lat_bins_devices) {
		l->nbinned = o->lat_bins_devices;
		l->bins = calloc(l->nbinned, sizeof(*l->bins));
		l->nbins = calloc(l->nbinned, sizeof(*l->nbins));
		if (!l->bins || !l->nbins) {
			blk_latency_free(l);
			return NULL;
		}
		bins_init(&l->clock, o->interval_ns ? o->interval_ns : BLK_DEFAULT_INTERVAL_NS,
		          o->max_bins ? o->max_bins : BLK_DEFAULT_MAX_BINS, false);
	}
	l->cap = cap;
	l->bio_age.older = l->bio_age.newer = &l->bio_age;
	l->rq_age.older = l->rq_age.newer = &l->rq_age;
	return l;
}

void blk_latency_free(struct blk_latency *l)
{
	if (!l)
		return;
	free(l->bio);
	free(l->rq);
	free(l->found);
	free(l->bucket);
	for (unsigned i = 0; i < l->ndev; i++) {
		for (unsigned k = 0; l->dev[i] && k < BLK_LAT_N; k++)
			hist_few_release(&l->dev[i]->h[k]);
		free(l->dev[i]);
	}
	free(l->dev);
	for (unsigned i = 0; l->bins && i < l->nbinned; i++)
		free(l->bins[i]);
	free(l->bins);
	free(l->nbins);
	free(l);
}

const struct bins *blk_latency_clock(const struct blk_latency *l)
{
	return &l->clock;
}

const struct hist_coarse *blk_latency_bin(const struct blk_latency *l, unsigned dev, uint64_t k)
{
	if (dev >= l->nbinned || k >= l->nbins[dev] || !l->bins[dev][k].count)
		return NULL;
	return &l->bins[dev][k];
}

const struct blk_latency_dev *blk_latency_dev(const struct blk_latency *l, unsigned dev)
{
	return dev < l->ndev ? l->dev[dev] : NULL;
}

unsigned blk_latency_tracked(const struct blk_latency *l)
{
	return l->bio_used;
}

int blk_latency_to_json(const struct blk_latency *l, unsigned dev, json_t *obj)
{
	const struct blk_latency_dev *d = blk_latency_dev(l, dev);
	json_t *lat = json_object();
	struct hist empty;

	hist_init(&empty);
	for (unsigned k = 0; k < BLK_LAT_N; k++)
		json_object_set_new(lat, blk_lat_names[k],
		                    blk_hist_json(d ? hist_few_view(&d->h[k], &empty) : &empty, 0));
	json_object_set_new(obj, "latency_ns", lat);
	json_object_set_new(obj, "matching",
	                    json_pack("{sIsIsIsIsI}", "duplicates",
	                              (json_int_t)(d ? d->duplicates : 0), "unmatched_completions",
	                              (json_int_t)(d ? d->unmatched_c : 0), "outstanding_bios",
	                              (json_int_t)(d ? d->outstanding : 0), "outstanding_requests",
	                              (json_int_t)(d ? d->outstanding_rq : 0), "evicted",
	                              (json_int_t)(d ? d->evicted : 0)));
	return 0;
}

/* ------------------------------------------------------------------------------------- */

static void *ops_create(const struct blk_opts *o)
{
	return blk_latency_new(o);
}

static void ops_feed(void *s, unsigned dev, const struct blk_event *ev)
{
	blk_latency_feed(s, dev, ev);
}

static void ops_finish(void *s, uint64_t start, uint64_t end)
{
	struct blk_latency *l = s;

	(void)start;
	if (l->nbinned && l->clock.started)
		bins_place(&l->clock, end, blk_lat_bins_moved,
		           l); /* the timeline's bins, to the end */
	blk_latency_finish(l);
}

static void ops_start(void *s, uint64_t t0)
{
	struct blk_latency *l = s;

	if (l->nbinned)
		bins_start(&l->clock, t0);
}

static int ops_to_json(void *s, unsigned dev, json_t *obj, const struct blk_json_ctx *ctx)
{
	(void)ctx;
	return blk_latency_to_json(s, dev, obj);
}

static void ops_destroy(void *s)
{
	blk_latency_free(s);
}

const struct blk_sink_ops blk_latency_ops = {
    .name = "latency",
    .create = ops_create,
    .feed = ops_feed,
    .finish = ops_finish,
    .to_json = ops_to_json,
    .destroy = ops_destroy,
    .start = ops_start,
};
