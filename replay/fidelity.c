/* SPDX-License-Identifier: MIT */
/* A replay against the kernel's view of it (--capture): which IOs reached the device as
 * asked, reordered, split, merged, or not at all. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/blktrace.h"
#include "replay/replay.h"

/* One IO the replay issued, and what the kernel was seen doing with it. */
struct expected {
	uint64_t sector; /* on the disk */
	uint32_t nsect;
	uint32_t covered; /* sectors seen in requests so far */
	uint32_t dev;     /* the disk */
	uint16_t pieces;  /* requests it was seen in */
	uint8_t op;
	bool merged; /* seen inside a request with other IOs */
};

#define MAX_DEVS 16

struct rp_fid {
	struct expected *ex;
	size_t n, cap, limit;
	uint32_t *order; /* ex indices sorted by (dev, sector, index) */
	uint32_t max_nsect;
	uint64_t t_first; /* CLOCK_MONOTONIC of the first issue */
	struct {
		uint32_t traced, disk;
	} devs[MAX_DEVS];
	unsigned ndevs;
	uint32_t *first_seen; /* ex indices in the order the kernel first saw them */
	size_t nfirst;
	/* IOs seen in part (a split under way): the next piece usually continues one of them */
	uint32_t *open;
	size_t nopen, open_cap;
	struct rp_fid_result res;
	bool sorted;
};

int rp_fid_new(struct rp_fid **out, size_t limit)
{
	struct rp_fid *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->limit = limit ? limit : RP_FID_MAX_IOS;
	*out = f;
	return 0;
}

void rp_fid_free(struct rp_fid *f)
{
	if (!f)
		return;
	free(f->ex);
	free(f->order);
	free(f->first_seen);
	free(f->open);
	free(f);
}

void rp_fid_expect(struct rp_fid *f, uint32_t traced_dev, uint32_t disk_dev, uint64_t sector,
                   uint32_t bytes, unsigned op, uint64_t t_issue)
{
	struct expected *e;
	unsigned i;

	if (op == RP_OP_FLUSH || !bytes)
		return; /* an empty request has no range to follow */
	if (f->n == f->limit) {
		f->res.truncated = true;
		return;
	}
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 4096;
		struct expected *ex;

		if (cap > f->limit)
			cap = f->limit;
		ex = realloc(f->ex, cap * sizeof(*ex));
		if (!ex) {
			f->res.truncated = true; /* compare what fits */
			f->limit = f->n;
			return;
		}
		f->ex = ex;
		f->cap = cap;
	}
	for (i = 0; i < f->ndevs && f->devs[i].traced != traced_dev; i++)
		;
	if (i == f->ndevs && i < MAX_DEVS) {
		f->devs[i].traced = traced_dev;
		f->devs[i].disk = disk_dev;
		f->ndevs++;
	}
	if (!f->n)
		f->t_first = t_issue;
	e = &f->ex[f->n++];
	memset(e, 0, sizeof(*e));
	e->sector = sector;
	e->nsect = bytes / 512 ? bytes / 512 : 1;
	e->dev = disk_dev;
	e->op = (uint8_t)op;
	if (e->nsect > f->max_nsect)
		f->max_nsect = e->nsect;
}

static int by_place(const void *a, const void *b, void *arg)
{
	const struct expected *ex = arg;
	const struct expected *x = &ex[*(const uint32_t *)a];
	const struct expected *y = &ex[*(const uint32_t *)b];

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->sector != y->sector)
		return x->sector < y->sector ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static int index_expected(struct rp_fid *f)
{
	f->order = malloc((f->n ? f->n : 1) * sizeof(*f->order));
	f->first_seen = malloc((f->n ? f->n : 1) * sizeof(*f->first_seen));
	if (!f->order || !f->first_seen)
		return -ENOMEM;
	for (size_t i = 0; i < f->n; i++)
		f->order[i] = (uint32_t)i;
	qsort_r(f->order, f->n, sizeof(*f->order), by_place, f->ex);
	f->sorted = true;
	return 0;
}

/* the first position in order[] at or after (dev, sector) */
static size_t lower(const struct rp_fid *f, uint32_t dev, uint64_t sector)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct expected *e = &f->ex[f->order[mid]];

		if (e->dev < dev || (e->dev == dev && e->sector < sector))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void touch(struct rp_fid *f, uint32_t i, uint32_t sectors)
{
	struct expected *e = &f->ex[i];
	bool was_open = e->pieces && e->covered < e->nsect;

	if (!e->pieces)
		f->first_seen[f->nfirst++] = i;
	e->pieces++;
	e->covered = sectors >= e->nsect - e->covered ? e->nsect : e->covered + sectors;
	if (was_open && e->covered == e->nsect) {
		for (size_t k = 0; k < f->nopen; k++)
			if (f->open[k] == i) {
				f->open[k] = f->open[--f->nopen];
				break;
			}
	} else if (!was_open && e->covered < e->nsect) {
		if (f->nopen == f->open_cap) {
			size_t cap = f->open_cap ? f->open_cap * 2 : 64;
			uint32_t *o = realloc(f->open, cap * sizeof(*o));

			if (!o)
				return; /* it is then found by containment alone */
			f->open = o;
			f->open_cap = cap;
		}
		f->open[f->nopen++] = i;
	}
}

/* The IO a split is under way for whose next piece starts at sector; else the oldest open
 * one that contains [sector, sector + nsect). */
static uint32_t find_open(const struct rp_fid *f, uint32_t dev, uint64_t sector, uint32_t nsect,
                          unsigned op)
{
	uint32_t best = UINT32_MAX;

	for (size_t k = 0; k < f->nopen; k++) {
		const struct expected *e = &f->ex[f->open[k]];

		if (e->dev != dev || e->op != op || e->merged || sector < e->sector ||
		    sector + nsect > e->sector + e->nsect)
			continue;
		if (e->sector + e->covered == sector)
			return f->open[k];
		if (f->open[k] < best)
			best = f->open[k];
	}
	return best;
}

/* An untouched IO starting at (dev, sector) of this kind: the oldest whose length is len,
 * else the oldest longer (len > 0) or shorter (len < 0) one. UINT32_MAX when none. */
static uint32_t find_start(const struct rp_fid *f, uint32_t dev, uint64_t sector, unsigned op,
                           uint32_t nsect, int want)
{
	for (size_t p = lower(f, dev, sector); p < f->n; p++) {
		const struct expected *e = &f->ex[f->order[p]];

		if (e->dev != dev || e->sector != sector)
			break;
		if (e->pieces || e->op != op)
			continue;
		if (want == 0 ? e->nsect == nsect : want > 0 ? e->nsect > nsect : e->nsect < nsect)
			return f->order[p]; /* order[] keeps issue order among equals */
	}
	return UINT32_MAX;
}

/* An IO of this kind that contains [sector, sector + nsect) and is not whole yet (a piece
 * of a split). */
static uint32_t find_containing(const struct rp_fid *f, uint32_t dev, uint64_t sector,
                                uint32_t nsect, unsigned op)
{
	size_t p = lower(f, dev, sector + 1); /* IOs starting at or before sector lie below */

	while (p-- > 0) {
		const struct expected *e = &f->ex[f->order[p]];

		if (e->dev != dev || e->sector + f->max_nsect <= sector)
			break;
		if (e->op == op && !e->merged && e->covered < e->nsect &&
		    e->sector + e->nsect >= sector + nsect)
			return f->order[p];
	}
	return UINT32_MAX;
}

int rp_fid_observe(struct rp_fid *f, const struct blk_event *ev)
{
	uint32_t dev = 0, nsect, i;
	unsigned op;
	bool ours = false;

	if (ev->action != BLK_A_ISSUE || !ev->bytes || (ev->flags & BLK_F_PC))
		return 0;
	for (unsigned d = 0; d < f->ndevs && !ours; d++)
		if (ev->dev == f->devs[d].traced || ev->dev == f->devs[d].disk) {
			dev = f->devs[d].disk;
			ours = true;
		}
	if (!ours || ev->time < f->t_first)
		return 0; /* other devices, or before the replay (its own safety probe) */
	if (!f->sorted && index_expected(f))
		return -ENOMEM;
	op = ev->flags & BLK_F_DISCARD        ? RP_OP_DISCARD
	     : ev->flags & BLK_F_WRITE_ZEROES ? RP_OP_WZERO
	     : ev->flags & BLK_F_WRITE        ? RP_OP_WRITE
	                                      : RP_OP_READ;
	nsect = ev->bytes / 512 ? ev->bytes / 512 : 1;
	f->res.observed++;
	/* as asked, or the first piece of a split */
	if ((i = find_start(f, dev, ev->sector, op, nsect, 0)) != UINT32_MAX ||
	    (i = find_start(f, dev, ev->sector, op, nsect, 1)) != UINT32_MAX) {
		touch(f, i, nsect);
		return 0;
	}
	/* a later piece of a split: usually the next of one under way; pieces may also come in
	 * another order, even before the first */
	if ((i = find_open(f, dev, ev->sector, nsect, op)) != UINT32_MAX ||
	    (i = find_containing(f, dev, ev->sector, nsect, op)) != UINT32_MAX) {
		touch(f, i, nsect);
		return 0;
	}
	/* several IOs merged into this request: shorter ones, one after the other */
	if ((i = find_start(f, dev, ev->sector, op, nsect, -1)) != UINT32_MAX) {
		uint64_t at = ev->sector, end = ev->sector + nsect;

		while (i != UINT32_MAX) {
			f->ex[i].merged = true;
			touch(f, i, f->ex[i].nsect);
			at += f->ex[i].nsect;
			if (at >= end)
				break;
			i = find_start(f, dev, at, op, (uint32_t)(end - at), 0);
			if (i == UINT32_MAX)
				i = find_start(f, dev, at, op, (uint32_t)(end - at), -1);
		}
		return 0;
	}
	f->res.extra++;
	return 0;
}

/* The longest strictly increasing subsequence of a[0..n): the IOs that kept their order. */
static size_t lis(const uint32_t *a, size_t n)
{
	uint32_t *tails = malloc((n ? n : 1) * sizeof(*tails));
	size_t len = 0;

	if (!tails)
		return n; /* no memory to tell: claim nothing moved */
	for (size_t i = 0; i < n; i++) {
		size_t lo = 0, hi = len;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (tails[mid] < a[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		tails[lo] = a[i];
		if (lo == len)
			len++;
	}
	free(tails);
	return len;
}

void rp_fid_result(struct rp_fid *f, struct rp_fid_result *res)
{
	struct rp_fid_result r = f->res;

	r.expected = f->n;
	for (size_t i = 0; i < f->n; i++) {
		const struct expected *e = &f->ex[i];

		if (e->covered < e->nsect)
			r.missing++;
		else if (e->merged)
			r.merged++;
		else if (e->pieces > 1) {
			r.split++;
			r.split_requests += e->pieces;
		} else {
			r.equal++;
		}
	}
	r.reordered = f->nfirst - lis(f->first_seen, f->nfirst);
	r.sequence_equal = r.equal == r.expected && !r.reordered && !r.extra && !r.truncated;
	*res = r;
}

int rp_fid_compare(struct rp_fid *f, const char *path, struct rp_fid_result *res, struct iot_err *e)
{
	struct bt_reader *rd;
	struct blk_event ev;
	int ret;

	if ((ret = bt_reader_open(&rd, path, e)))
		return ret;
	while ((ret = bt_reader_next(rd, &ev, e)) > 0)
		if ((ret = rp_fid_observe(f, &ev)) < 0) {
			iot_err_set(e, ret, "out of memory comparing with the capture");
			break;
		}
	bt_reader_free(rd);
	if (ret < 0)
		return ret;
	rp_fid_result(f, res);
	return 0;
}
