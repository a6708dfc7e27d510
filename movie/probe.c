/* SPDX-License-Identifier: MIT */
/* A run's span and each device's sector range, for fixed axes: from the run's manifest, or
 * from a first pass over a bare trace. */
#include "movie/movie.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/blk_sink.h"
#include "formats/blktrace.h"
#include "formats/manifest.h"

static int dev_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct movie_probe_dev *)a)->dev;
	uint32_t y = ((const struct movie_probe_dev *)b)->dev;

	return x < y ? -1 : x > y;
}

/* The axis of a device from the sectors its issued requests covered. */
static struct movie_probe_dev axis_of(uint32_t dev, const struct blk_extent *x)
{
	struct movie_probe_dev d = {.dev = dev, .lo = x->lo, .hi = x->hi, .issues = x->ios};

	if (!x->ios) {
		d.lo = 0;
		d.hi = 1;
	} else if (d.hi <= d.lo) {
		/* an IO at the last sector there is: its end saturated */
		if (d.lo == UINT64_MAX)
			d.lo--;
		d.hi = d.lo + 1;
	}
	return d;
}

struct seen {
	uint32_t dev;
	struct blk_extent x;
};

/*
 * The entry of dev, added on first sight. NULL with *nomem set without memory; NULL alone past
 * the sinks' cap on devices (BLK_MAX_DEVICES: analyze ignores the others too).
 */
static struct seen *find_dev(struct seen **v, unsigned *n, unsigned *cap, uint32_t dev, bool *nomem)
{
	for (unsigned i = 0; i < *n; i++)
		if ((*v)[i].dev == dev)
			return &(*v)[i];
	if (*n >= BLK_MAX_DEVICES)
		return NULL;
	if (*n == *cap) {
		unsigned ncap = *cap ? *cap * 2 : 8;
		struct seen *d = realloc(*v, ncap * sizeof(*d));

		if (!d) {
			*nomem = true;
			return NULL;
		}
		*v = d;
		*cap = ncap;
	}
	(*v)[*n] = (struct seen){.dev = dev};
	return &(*v)[(*n)++];
}

int movie_probe_read(struct movie_probe *p, struct bt_reader *rd, struct iot_err *e)
{
	struct seen *seen = NULL, *last = NULL;
	const struct blk_event *ev;
	uint64_t start = 0, end = 0, events = 0;
	unsigned nseen = 0, cap = 0, n;
	bool nomem = false;
	int ret;

	memset(p, 0, sizeof(*p));
	while ((ret = bt_reader_next_batch(rd, &ev, &n, e)) > 0) {
		for (unsigned i = 0; i < n; i++) {
			const struct blk_event *x = &ev[i];

			if (blk_is_notify(x))
				continue;
			if (!events++)
				start = end = x->time;
			if (x->time > end)
				end = x->time;
			if (!last || last->dev != x->dev) {
				last = find_dev(&seen, &nseen, &cap, x->dev, &nomem);
				if (nomem) {
					free(seen);
					return iot_err_set(e, -ENOMEM, "out of memory");
				}
				if (!last)
					continue;
			}
			blk_extent_add(&last->x, x);
		}
	}
	if (ret < 0 || !events) {
		free(seen);
		return ret < 0 ? ret : iot_err_set(e, -ENODATA, "no block events in the trace");
	}
	p->dev = calloc(nseen, sizeof(*p->dev));
	if (!p->dev) {
		free(seen);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	for (unsigned i = 0; i < nseen; i++)
		p->dev[i] = axis_of(seen[i].dev, &seen[i].x);
	free(seen);
	p->ndev = nseen;
	qsort(p->dev, p->ndev, sizeof(*p->dev), dev_cmp);
	p->span = end - start;
	return 0;
}

int movie_probe_from_manifest(struct movie_probe *p, const struct manifest *mf, struct iot_err *e)
{
	uint64_t first = UINT64_MAX, last = 0;

	memset(p, 0, sizeof(*p));
	if (!mf->ndevs)
		return iot_err_set(e, -ENODATA, "the manifest names no device");
	for (unsigned i = 0; i < mf->ndevs; i++) {
		const struct manifest_dev *md = &mf->devs[i];

		if (!md->have_span)
			return iot_err_set(e, -ENODATA, "the manifest has no span for %s",
			                   md->name);
		if (md->first_event_ns < first)
			first = md->first_event_ns;
		if (md->last_event_ns > last)
			last = md->last_event_ns;
	}
	p->ndev = mf->ndevs < BLK_MAX_DEVICES ? mf->ndevs : BLK_MAX_DEVICES;
	p->dev = calloc(p->ndev, sizeof(*p->dev));
	if (!p->dev)
		return iot_err_set(e, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < p->ndev; i++)
		p->dev[i] =
		    axis_of(mf->devs[i].major << 20 | mf->devs[i].minor, &mf->devs[i].issued);
	qsort(p->dev, p->ndev, sizeof(*p->dev), dev_cmp);
	p->span = last - first;
	p->from_manifest = true;
	return 0;
}

void movie_probe_release(struct movie_probe *p)
{
	free(p->dev);
	memset(p, 0, sizeof(*p));
}
