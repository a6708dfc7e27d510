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
#include "formats/rundir.h"

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
	p->first = start;
	p->span = end - start;
	return 0;
}

/* The set of a trace file: "NAME.blktrace" of DIR/NAME.blktrace.N, into buf; false for
 * another name. */
static bool set_of(const char *path, char *buf, size_t cap)
{
	const char *base = strrchr(path, '/'), *infix;
	size_t n;

	base = base ? base + 1 : path;
	infix = strstr(base, RUNDIR_SET_INFIX);
	if (!infix)
		return false;
	n = (size_t)(infix - base) + strlen(RUNDIR_SET_INFIX) - 1; /* without the last dot */
	if (n >= cap)
		return false;
	memcpy(buf, base, n);
	buf[n] = '\0';
	return true;
}

/* The set a manifest device's files are ("files", else NAME.blktrace). */
static bool is_set_of(const struct manifest_dev *md, const char *set)
{
	size_t n = strlen(md->name);

	if (md->files)
		return !strcmp(md->files, set);
	return !strncmp(set, md->name, n) && !strcmp(set + n, ".blktrace");
}

/* Does the manifest describe the trace's files? 0, or -ESTALE with e saying how not. */
static int matches_files(const struct manifest *mf, const struct bt_stats *st, struct iot_err *e)
{
	char set[256];

	for (unsigned f = 0; f < st->nfiles; f++) {
		unsigned i;

		if (!st->files[f].path || !set_of(st->files[f].path, set, sizeof(set)))
			return iot_err_set(e, -ESTALE, "'%s' is no trace set the manifest can name",
			                   st->files[f].path ? st->files[f].path : "-");
		for (i = 0; i < mf->ndevs && !is_set_of(&mf->devs[i], set); i++)
			;
		if (i == mf->ndevs)
			return iot_err_set(e, -ESTALE,
			                   "the manifest does not name the trace's set '%s'", set);
	}
	for (unsigned i = 0; i < mf->ndevs; i++) {
		const struct manifest_dev *md = &mf->devs[i];
		unsigned f;

		for (f = 0; f < st->nfiles; f++)
			if (set_of(st->files[f].path, set, sizeof(set)) && is_set_of(md, set))
				break;
		if (f == st->nfiles && md->events)
			return iot_err_set(
			    e, -ESTALE,
			    "device '%s' of the manifest (%llu events) is not in the "
			    "trace",
			    md->name, (unsigned long long)md->events);
		if (md->issued.ios > 1 && md->issued.hi - md->issued.lo <= 1)
			return iot_err_set(
			    e, -ESTALE,
			    "the manifest gives device '%s' a range of one sector for "
			    "%llu IOs",
			    md->name, (unsigned long long)md->issued.ios);
	}
	return 0;
}

int movie_probe_from_manifest(struct movie_probe *p, const struct manifest *mf,
                              const struct bt_stats *st, struct iot_err *e)
{
	uint64_t first = UINT64_MAX, last = 0;
	int ret;

	memset(p, 0, sizeof(*p));
	if (!mf->ndevs)
		return iot_err_set(e, -ENODATA, "the manifest names no device");
	if (st && (ret = matches_files(mf, st, e)))
		return ret;
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
	p->first = first;
	p->span = last - first;
	p->from_manifest = true;
	return 0;
}

void movie_probe_release(struct movie_probe *p)
{
	free(p->dev);
	memset(p, 0, sizeof(*p));
}
