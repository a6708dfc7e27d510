/* SPDX-License-Identifier: MIT */
/* Latency sink: bios tracked from queue to completion through merges, in bounded memory. */
#include "analyze/blk_latency.h"

#include <stdlib.h>
#include <string.h>

/*
 * The matching rules are btt's (blktrace's btt/trace_*.c), so that the means agree:
 *  - a Q with data starts tracking a bio [sector, sector + bytes/512) on its device; Q2Q is
 *    the time since the previous Q of the device. A bio already tracked at that start sector
 *    is forgotten: btt (1.2) links the new one in front of it, so that every later lookup
 *    finds the new one and the old one never completes;
 *  - G, I and M (back or front merge) find the tracked bio holding their sector and stamp it
 *    (Q2G, G2I when G was seen, Q2M);
 *  - a D closes the queue phase of every tracked bio inside its range: I2D if the bio was
 *    inserted, else M2D if it was merged; the bio remembers the issue time (a re-issue after a
 *    requeue stamps it again, as btt does);
 *  - a C ends every tracked bio inside its range: Q2C, and D2C and Q2D when it was issued.
 *  - intervals are btt's: a zero or negative difference counts as 1 ns. Passthrough (PC)
 *    records and records without data are not matched.
 * Requests (one D, one C) are tracked too, by start sector, for the per-request D2C.
 *
 * Memory: one pool of max_inflight nodes per table. When it is full the oldest node is
 * dropped and counted (a bio whose completion was lost must not pin memory forever). Lookups
 * hash (device, sector / 64): a range [s, e) is found by visiting its 64-sector blocks, or the
 * whole pool in age order when that is shorter, so a huge discard stays cheap.
 */

#define NIL UINT32_MAX
#define BLK_SHIFT 6
#define NONE UINT64_MAX

const char *const blk_lat_names[BLK_LAT_N] = {
	[BLK_LAT_Q2D] = "q2d", [BLK_LAT_D2C] = "d2c", [BLK_LAT_Q2C] = "q2c",
	[BLK_LAT_Q2G] = "q2g", [BLK_LAT_G2I] = "g2i", [BLK_LAT_Q2M] = "q2m",
	[BLK_LAT_I2D] = "i2d", [BLK_LAT_M2D] = "m2d", [BLK_LAT_Q2Q] = "q2q",
	[BLK_LAT_D2C_REQ] = "d2c_request",
};

struct lnode {
	uint64_t start, end; /* sectors */
	uint64_t q, g, i, m, d; /* times, NONE when not seen */
	uint32_t dev;
	uint32_t hnext;        /* hash chain */
	uint32_t older, newer; /* age list */
};

struct ltab {
	struct lnode *n;
	uint32_t *bucket;
	uint32_t mask;
	uint32_t cap, used, free;
	uint32_t oldest, newest;
};

struct blk_latency {
	struct ltab bio, rq;
	struct blk_latency_dev **dev;
	unsigned ndev;
	int finished;
};

/* ------------------------------------------------------------------------------------- */
/* bounded hash of (device, start sector) with an age list                               */

static int lt_init(struct ltab *t, uint32_t cap)
{
	uint32_t nb = 1;

	/* a quarter of the pool: chains stay short when full, and the buckets stay in cache */
	while (nb < cap / 4 || nb < 64)
		nb <<= 1;
	t->n = malloc((size_t)cap * sizeof(*t->n));
	t->bucket = malloc((size_t)nb * sizeof(*t->bucket));
	if (!t->n || !t->bucket)
		return -1;
	memset(t->bucket, 0xff, (size_t)nb * sizeof(*t->bucket));
	t->mask = nb - 1;
	t->cap = cap;
	t->used = 0;
	for (uint32_t i = 0; i < cap; i++)
		t->n[i].hnext = i + 1 < cap ? i + 1 : NIL;
	t->free = 0;
	t->oldest = t->newest = NIL;
	return 0;
}

static void lt_release(struct ltab *t)
{
	free(t->n);
	free(t->bucket);
}

/* Neighbouring blocks of a device get neighbouring buckets: sequential IO stays in cache. */
static inline uint32_t lt_hash(const struct ltab *t, uint32_t dev, uint64_t blk)
{
	return ((uint32_t)blk ^ (uint32_t)(blk >> 32) ^ (dev * 0x9e3779b1u)) & t->mask;
}

static inline uint32_t lt_find(const struct ltab *t, uint32_t dev, uint64_t start)
{
	uint32_t i = t->bucket[lt_hash(t, dev, start >> BLK_SHIFT)];

	while (i != NIL && (t->n[i].start != start || t->n[i].dev != dev))
		i = t->n[i].hnext;
	return i;
}

/*
 * The tracked range holding sector (btt's rb_find_sec): the one starting there, else one that
 * starts at most maxlen - 1 sectors before it (maxlen: the longest range tracked so far on the
 * device, so the blocks to look at stay few).
 */
static uint32_t lt_find_in(const struct ltab *t, uint32_t dev, uint64_t sector, uint64_t maxlen)
{
	uint32_t i = lt_find(t, dev, sector);
	uint64_t lo = maxlen > 1 ? (sector > maxlen - 1 ? sector - (maxlen - 1) : 0) : sector;

	if (i != NIL || !maxlen)
		return i;
	for (uint64_t blk = sector >> BLK_SHIFT;; blk--) {
		for (i = t->bucket[lt_hash(t, dev, blk)]; i != NIL; i = t->n[i].hnext)
			if (t->n[i].dev == dev && t->n[i].start <= sector && sector < t->n[i].end)
				return i;
		if (blk <= lo >> BLK_SHIFT)
			break;
	}
	return NIL;
}

static void lt_unlink(struct ltab *t, uint32_t i)
{
	struct lnode *x = &t->n[i];
	uint32_t *pp = &t->bucket[lt_hash(t, x->dev, x->start >> BLK_SHIFT)];

	while (*pp != i)
		pp = &t->n[*pp].hnext;
	*pp = x->hnext;
	if (x->older != NIL)
		t->n[x->older].newer = x->newer;
	else
		t->oldest = x->newer;
	if (x->newer != NIL)
		t->n[x->newer].older = x->older;
	else
		t->newest = x->older;
	x->hnext = t->free;
	t->free = i;
	t->used--;
}

/* A fresh node for (dev, start); when the pool is full the oldest node is dropped first and
 * its device returned in *evicted_dev (else NIL). */
static uint32_t lt_insert(struct ltab *t, uint32_t dev, uint64_t start, uint64_t end,
			  uint32_t *evicted_dev)
{
	uint32_t i, h;
	struct lnode *x;

	*evicted_dev = NIL;
	if (t->free == NIL) {
		*evicted_dev = t->n[t->oldest].dev;
		lt_unlink(t, t->oldest);
	}
	i = t->free;
	x = &t->n[i];
	t->free = x->hnext;
	t->used++;
	x->start = start;
	x->end = end;
	x->q = x->g = x->i = x->m = x->d = NONE;
	x->dev = dev;
	h = lt_hash(t, dev, start >> BLK_SHIFT);
	x->hnext = t->bucket[h];
	t->bucket[h] = i;
	x->older = t->newest;
	x->newer = NIL;
	if (t->newest != NIL)
		t->n[t->newest].newer = i;
	else
		t->oldest = i;
	t->newest = i;
	return i;
}

/* ------------------------------------------------------------------------------------- */

struct blk_latency *blk_latency_new(const struct blk_opts *o)
{
	struct blk_latency *l = calloc(1, sizeof(*l));
	uint32_t cap = o && o->max_inflight ? o->max_inflight : BLK_DEFAULT_MAX_INFLIGHT;

	if (!l)
		return NULL;
	if (lt_init(&l->bio, cap) || lt_init(&l->rq, cap)) {
		blk_latency_free(l);
		return NULL;
	}
	return l;
}

void blk_latency_free(struct blk_latency *l)
{
	if (!l)
		return;
	lt_release(&l->bio);
	lt_release(&l->rq);
	for (unsigned i = 0; i < l->ndev; i++)
		free(l->dev[i]);
	free(l->dev);
	free(l);
}

static struct blk_latency_dev *get_dev(struct blk_latency *l, unsigned dev)
{
	struct blk_latency_dev *d;

	if (dev < l->ndev && l->dev[dev])
		return l->dev[dev];
	if (blk_grow((void ***)&l->dev, &l->ndev, dev))
		return NULL;
	d = malloc(sizeof(*d));
	if (!d)
		return NULL;
	memset(d, 0, sizeof(*d));
	for (unsigned k = 0; k < BLK_LAT_N; k++)
		hist_init(&d->h[k]);
	d->last_q = NONE;
	l->dev[dev] = d;
	return d;
}

static void count_evicted(struct blk_latency *l, uint32_t dev)
{
	if (dev != NIL && dev < l->ndev && l->dev[dev])
		l->dev[dev]->evicted++;
}

/* Visit every tracked bio of dev inside [s, e): fn returns nonzero to drop the node. */
typedef int (*visit_fn)(struct blk_latency_dev *d, struct lnode *x, uint64_t t);

static void visit_range(struct blk_latency *l, struct blk_latency_dev *d, uint32_t dev,
			uint64_t s, uint64_t e, uint64_t t, visit_fn fn, unsigned *hits)
{
	struct ltab *b = &l->bio;
	uint64_t b0 = s >> BLK_SHIFT, b1 = (e - 1) >> BLK_SHIFT;

	*hits = 0;
	if (!b->used)
		return;
	if (b1 - b0 + 1 > b->used) {
		for (uint32_t i = b->oldest, nx; i != NIL; i = nx) {
			struct lnode *x = &b->n[i];

			nx = x->newer;
			if (x->dev != dev || x->start < s || x->end > e)
				continue;
			++*hits;
			if (fn(d, x, t))
				lt_unlink(b, i);
		}
		return;
	}
	for (uint64_t blk = b0; blk <= b1; blk++) {
		uint32_t *pp = &b->bucket[lt_hash(b, dev, blk)];

		while (*pp != NIL) {
			uint32_t i = *pp;
			struct lnode *x = &b->n[i];

			if (x->dev != dev || (x->start >> BLK_SHIFT) != blk || x->start < s ||
			    x->end > e) {
				pp = &x->hnext;
				continue;
			}
			++*hits;
			if (fn(d, x, t))
				lt_unlink(b, i); /* *pp now names the next node */
			else
				pp = &x->hnext;
		}
	}
}

static int on_issue(struct blk_latency_dev *d, struct lnode *x, uint64_t t)
{
	if (x->i != NONE)
		hist_add(&d->h[BLK_LAT_I2D], blk_tdelta(x->i, t));
	else if (x->m != NONE)
		hist_add(&d->h[BLK_LAT_M2D], blk_tdelta(x->m, t));
	x->d = t;
	return 0;
}

static int on_complete(struct blk_latency_dev *d, struct lnode *x, uint64_t t)
{
	hist_add(&d->h[BLK_LAT_Q2C], blk_tdelta(x->q, t));
	if (x->d != NONE) {
		hist_add(&d->h[BLK_LAT_D2C], blk_tdelta(x->d, t));
		hist_add(&d->h[BLK_LAT_Q2D], blk_tdelta(x->q, x->d));
	}
	return 1;
}

void blk_latency_feed(struct blk_latency *l, unsigned dev, const struct blk_event *ev)
{
	struct blk_latency_dev *d;
	uint64_t s = ev->sector, e = ev->sector + (ev->bytes >> 9), t = ev->time;
	uint32_t i, ed;
	unsigned hits;

	if (blk_is_notify(ev) || (ev->flags & BLK_F_PC) || !(ev->bytes >> 9))
		return;
	switch (ev->action) {
	case BLK_A_QUEUE:
	case BLK_A_GETRQ:
	case BLK_A_BACKMERGE:
	case BLK_A_FRONTMERGE:
	case BLK_A_INSERT:
	case BLK_A_ISSUE:
	case BLK_A_COMPLETE:
		break;
	default:
		return;
	}
	d = get_dev(l, dev);
	if (!d)
		return;
	switch (ev->action) {
	case BLK_A_QUEUE:
		i = lt_find(&l->bio, dev, s);
		if (i != NIL) {
			d->duplicates++;
			lt_unlink(&l->bio, i);
		}
		i = lt_insert(&l->bio, dev, s, e, &ed);
		count_evicted(l, ed);
		if (e - s > d->max_len)
			d->max_len = e - s;
		l->bio.n[i].q = t;
		if (d->last_q != NONE)
			hist_add(&d->h[BLK_LAT_Q2Q], blk_tdelta(d->last_q, t));
		d->last_q = t;
		break;
	case BLK_A_GETRQ:
		i = lt_find_in(&l->bio, dev, s, d->max_len);
		if (i != NIL) {
			l->bio.n[i].g = t;
			hist_add(&d->h[BLK_LAT_Q2G], blk_tdelta(l->bio.n[i].q, t));
		}
		break;
	case BLK_A_INSERT:
		i = lt_find_in(&l->bio, dev, s, d->max_len);
		if (i != NIL) {
			struct lnode *x = &l->bio.n[i];

			x->i = t;
			if (x->g != NONE)
				hist_add(&d->h[BLK_LAT_G2I], blk_tdelta(x->g, t));
		}
		break;
	case BLK_A_BACKMERGE:
	case BLK_A_FRONTMERGE:
		i = lt_find_in(&l->bio, dev, s, d->max_len);
		if (i != NIL) {
			l->bio.n[i].m = t;
			hist_add(&d->h[BLK_LAT_Q2M], blk_tdelta(l->bio.n[i].q, t));
		}
		break;
	case BLK_A_ISSUE:
		visit_range(l, d, dev, s, e, t, on_issue, &hits);
		i = lt_find(&l->rq, dev, s);
		if (i == NIL) {
			i = lt_insert(&l->rq, dev, s, e, &ed);
			(void)ed;
		}
		l->rq.n[i].d = t;
		break;
	case BLK_A_COMPLETE:
		visit_range(l, d, dev, s, e, t, on_complete, &hits);
		if (!hits)
			d->unmatched_c++;
		i = lt_find(&l->rq, dev, s);
		if (i != NIL) {
			hist_add(&d->h[BLK_LAT_D2C_REQ], blk_tdelta(l->rq.n[i].d, t));
			lt_unlink(&l->rq, i);
		}
		break;
	}
}

void blk_latency_finish(struct blk_latency *l)
{
	if (l->finished)
		return;
	l->finished = 1;
	for (uint32_t i = l->bio.oldest; i != NIL; i = l->bio.n[i].newer) {
		uint32_t dv = l->bio.n[i].dev;

		if (dv < l->ndev && l->dev[dv])
			l->dev[dv]->outstanding++;
	}
	for (uint32_t i = l->rq.oldest; i != NIL; i = l->rq.n[i].newer) {
		uint32_t dv = l->rq.n[i].dev;

		if (dv < l->ndev && l->dev[dv])
			l->dev[dv]->outstanding_rq++;
	}
}

const struct blk_latency_dev *blk_latency_dev(const struct blk_latency *l, unsigned dev)
{
	return dev < l->ndev ? l->dev[dev] : NULL;
}

unsigned blk_latency_tracked(const struct blk_latency *l)
{
	return l->bio.used;
}

int blk_latency_to_json(const struct blk_latency *l, unsigned dev, json_t *obj)
{
	const struct blk_latency_dev *d = blk_latency_dev(l, dev);
	json_t *lat = json_object();
	struct hist empty;

	hist_init(&empty);
	for (unsigned k = 0; k < BLK_LAT_N; k++)
		json_object_set_new(lat, blk_lat_names[k], blk_hist_json(d ? &d->h[k] : &empty, 0));
	json_object_set_new(obj, "latency_ns", lat);
	json_object_set_new(
		obj, "matching",
		json_pack("{sIsIsIsIsI}", "duplicates", (json_int_t)(d ? d->duplicates : 0),
			  "unmatched_completions", (json_int_t)(d ? d->unmatched_c : 0),
			  "outstanding_bios", (json_int_t)(d ? d->outstanding : 0),
			  "outstanding_requests", (json_int_t)(d ? d->outstanding_rq : 0), "evicted",
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
	(void)start;
	(void)end;
	blk_latency_finish(s);
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

const struct blk_sink_ops blk_latency_ops = {"latency", ops_create, ops_feed, ops_finish,
					      ops_to_json, ops_destroy, NULL};
