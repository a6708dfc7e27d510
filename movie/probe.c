/* SPDX-License-Identifier: MIT */
/* The movie's first pass: a run's span and each device's sector range, for fixed axes. */
#include "movie/movie.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/blk_sink.h"
#include "formats/blktrace.h"

static int dev_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct movie_probe_dev *)a)->dev;
	uint32_t y = ((const struct movie_probe_dev *)b)->dev;

	return x < y ? -1 : x > y;
}

/*
 * The entry of dev, added on first sight. NULL with *nomem set without memory; NULL alone past
 * the sinks' cap on devices (BLK_MAX_DEVICES: analyze ignores the others too).
 */
static struct movie_probe_dev *find_dev(struct movie_probe *p, unsigned *cap, uint32_t dev,
                                        bool *nomem)
{
	for (unsigned i = 0; i < p->ndev; i++)
		if (p->dev[i].dev == dev)
			return &p->dev[i];
	if (p->ndev >= BLK_MAX_DEVICES)
		return NULL;
	if (p->ndev == *cap) {
		unsigned ncap = *cap ? *cap * 2 : 8;
		struct movie_probe_dev *d = realloc(p->dev, ncap * sizeof(*d));

		if (!d) {
			*nomem = true;
			return NULL;
		}
		p->dev = d;
		*cap = ncap;
	}
	p->dev[p->ndev] = (struct movie_probe_dev){.dev = dev, .lo = UINT64_MAX, .hi = 0};
	return &p->dev[p->ndev++];
}

int movie_probe_read(struct movie_probe *p, struct bt_reader *rd, struct iot_err *e)
{
	struct movie_probe_dev *last = NULL;
	const struct blk_event *ev;
	unsigned cap = 0, n;
	bool nomem = false;
	int ret;

	memset(p, 0, sizeof(*p));
	while ((ret = bt_reader_next_batch(rd, &ev, &n, e)) > 0) {
		for (unsigned i = 0; i < n; i++) {
			const struct blk_event *x = &ev[i];
			uint64_t end;

			if (blk_is_notify(x))
				continue;
			if (!p->events++)
				p->start = p->end = x->time;
			if (x->time > p->end)
				p->end = x->time;
			if (!last || last->dev != x->dev) {
				last = find_dev(p, &cap, x->dev, &nomem);
				if (nomem) {
					movie_probe_release(p);
					return iot_err_set(e, -ENOMEM, "out of memory");
				}
				if (!last)
					continue;
			}
			if (x->action != BLK_A_ISSUE || !(x->bytes >> 9))
				continue;
			last->issues++;
			end = x->sector + (x->bytes >> 9);
			if (end < x->sector)
				end = UINT64_MAX;
			if (x->sector < last->lo)
				last->lo = x->sector;
			if (end > last->hi)
				last->hi = end;
		}
	}
	if (ret < 0) {
		movie_probe_release(p);
		return ret;
	}
	if (!p->events) {
		movie_probe_release(p);
		return iot_err_set(e, -ENODATA, "no block events in the trace");
	}
	for (unsigned i = 0; i < p->ndev; i++) {
		struct movie_probe_dev *d = &p->dev[i];

		if (!d->issues) {
			d->lo = 0;
			d->hi = 1;
		} else if (d->hi <= d->lo) {
			/* an IO at the last sector there is: its end saturated */
			if (d->lo == UINT64_MAX)
				d->lo--;
			d->hi = d->lo + 1;
		}
	}
	qsort(p->dev, p->ndev, sizeof(*p->dev), dev_cmp);
	return 0;
}

void movie_probe_release(struct movie_probe *p)
{
	free(p->dev);
	memset(p, 0, sizeof(*p));
}
