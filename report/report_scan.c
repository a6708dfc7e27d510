/* SPDX-License-Identifier: MIT */
/* The report's own streaming pass: per-interval bins and a sector x time density grid. */
#include "report/report_scan.h"
#include "analyze/blk_sink.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- outstanding requests: open addressing on the start sector, backward-shift delete ---- */

#define FLIGHT_MAX (1u << 17)

struct flight_slot {
	uint64_t sector; /* + 1, so that 0 marks an empty slot */
	uint64_t t;
};

struct rpt_flight {
	struct flight_slot *s;
	uint32_t cap, n;
};

static uint32_t fhash(uint64_t k, uint32_t cap)
{
	k *= 0x9e3779b97f4a7c15ull;
	return (uint32_t)(k >> 32) & (cap - 1);
}

static int flight_grow(struct rpt_flight *f)
{
	uint32_t cap = f->cap ? f->cap * 2 : 1024;
	struct flight_slot *s = calloc(cap, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->cap; i++) {
		uint32_t h;

		if (!f->s[i].sector)
			continue;
		for (h = fhash(f->s[i].sector, cap); s[h].sector; h = (h + 1) & (cap - 1))
			;
		s[h] = f->s[i];
	}
	free(f->s);
	f->s = s;
	f->cap = cap;
	return 0;
}

/* 1 inserted, 0 table full (the request is not tracked), -ENOMEM */
static int flight_put(struct rpt_flight *f, uint64_t sector, uint64_t t)
{
	uint32_t h;

	if (f->n + 1 > f->cap / 2) {
		if (f->cap >= FLIGHT_MAX)
			return 0;
		if (flight_grow(f))
			return -ENOMEM;
	}
	for (h = fhash(sector + 1, f->cap); f->s[h].sector; h = (h + 1) & (f->cap - 1))
		;
	f->s[h].sector = sector + 1;
	f->s[h].t = t;
	f->n++;
	return 1;
}

static int flight_take(struct rpt_flight *f, uint64_t sector, uint64_t *t)
{
	uint32_t h, mask = f->cap - 1;

	if (!f->n)
		return 0;
	for (h = fhash(sector + 1, f->cap); f->s[h].sector; h = (h + 1) & mask) {
		if (f->s[h].sector != sector + 1)
			continue;
		*t = f->s[h].t;
		/* backward-shift deletion keeps probe chains intact without tombstones */
		for (uint32_t j = (h + 1) & mask; f->s[j].sector; j = (j + 1) & mask) {
			uint32_t home = fhash(f->s[j].sector, f->cap);

			if (((j - home) & mask) >= ((j - h) & mask)) {
				f->s[h] = f->s[j];
				h = j;
			}
		}
		f->s[h].sector = 0;
		f->n--;
		return 1;
	}
	return 0;
}

/* ---- latency buckets ---- */

unsigned rpt_lat_bucket(uint64_t ns)
{
	unsigned oct, sub, b;

	if (ns < RPT_LAT_SUB)
		return (unsigned)ns;
	oct = 63u - (unsigned)__builtin_clzll(ns);
	sub = (unsigned)(ns >> (oct - RPT_LAT_SUB_BITS)) & (RPT_LAT_SUB - 1);
	b = (oct - RPT_LAT_SUB_BITS + 1) * RPT_LAT_SUB + sub;
	return b < RPT_LAT_BUCKETS ? b : RPT_LAT_BUCKETS - 1;
}

uint64_t rpt_lat_value(unsigned b)
{
	unsigned oct = b / RPT_LAT_SUB + RPT_LAT_SUB_BITS - 1, sub = b % RPT_LAT_SUB;
	uint64_t lo, w;

	if (b < RPT_LAT_SUB)
		return b;
	w = 1ull << (oct - RPT_LAT_SUB_BITS);
	lo = (1ull << oct) + (uint64_t)sub * w;
	return lo + w / 2;
}

uint64_t rpt_lat_quantile(const uint32_t *lat, uint64_t n, double q)
{
	uint64_t want, seen = 0;

	if (!n)
		return 0;
	/* nearest rank: the smallest value with at least q of the values at or below it */
	want = (uint64_t)ceil(q * (double)n);
	if (want < 1)
		want = 1;
	for (unsigned b = 0; b < RPT_LAT_BUCKETS; b++) {
		seen += lat[b];
		if (seen >= want)
			return rpt_lat_value(b);
	}
	return rpt_lat_value(RPT_LAT_BUCKETS - 1);
}

/* ---- bins ---- */

int rpt_run_init(struct rpt_run *r, uint64_t interval_ns, uint64_t idle_ns)
{
	memset(r, 0, sizeof(*r));
	r->width = interval_ns ? interval_ns : RPT_BASE_WIDTH_NS;
	r->idle_threshold = idle_ns ? idle_ns : BLK_DEFAULT_IDLE_NS;
	return 0;
}

static void dev_free(struct rpt_dev *d)
{
	if (!d)
		return;
	if (d->flight)
		free(d->flight->s);
	free(d->flight);
	free(d->bin);
	free(d->grid);
	free(d);
}

void rpt_run_release(struct rpt_run *r)
{
	for (unsigned i = 0; i < r->ndev; i++)
		dev_free(r->dev[i]);
	memset(r, 0, sizeof(*r));
}

uint64_t rpt_run_span(const struct rpt_run *r)
{
	return r->started ? r->tlast - r->t0 : 0;
}

static void bin_merge(struct rpt_bin *a, const struct rpt_bin *b)
{
	a->rd_bytes += b->rd_bytes;
	a->wr_bytes += b->wr_bytes;
	a->rd_ios += b->rd_ios;
	a->wr_ios += b->wr_ios;
	a->issues += b->issues;
	a->seeks += b->seeks;
	a->qd_max = a->qd_max > b->qd_max ? a->qd_max : b->qd_max;
	a->qd_area += b->qd_area;
	a->idle_ns += b->idle_ns;
	a->lat_n += b->lat_n;
	for (unsigned i = 0; i < RPT_LAT_BUCKETS; i++)
		a->lat[i] += b->lat[i];
}

/* Double the bin width: bins 2i and 2i+1 become bin i, on every device. */
static void run_double(struct rpt_run *r)
{
	for (unsigned k = 0; k < r->ndev; k++) {
		struct rpt_dev *d = r->dev[k];

		for (unsigned i = 0; i < RPT_MAX_BINS / 2; i++) {
			struct rpt_bin tmp = d->bin[2 * i];

			bin_merge(&tmp, &d->bin[2 * i + 1]);
			d->bin[i] = tmp;
			for (unsigned row = 0; row < RPT_ROWS; row++)
				for (unsigned w = 0; w < 2; w++)
					d->grid[i][row][w] =
					    d->grid[2 * i][row][w] + d->grid[2 * i + 1][row][w];
		}
		memset(&d->bin[RPT_MAX_BINS / 2], 0, RPT_MAX_BINS / 2 * sizeof(*d->bin));
		memset(&d->grid[RPT_MAX_BINS / 2], 0, RPT_MAX_BINS / 2 * sizeof(*d->grid));
	}
	r->width *= 2;
	r->nbins = (r->nbins + 1) / 2;
}

/* Bin of absolute time t, doubling the width first if t is past the last bin. */
static unsigned run_bin(struct rpt_run *r, uint64_t t)
{
	uint64_t rel = t > r->t0 ? t - r->t0 : 0;

	while (rel / r->width >= RPT_MAX_BINS)
		run_double(r);
	if (rel / r->width + 1 > r->nbins)
		r->nbins = (unsigned)(rel / r->width + 1);
	return (unsigned)(rel / r->width);
}

static unsigned bin_of(const struct rpt_run *r, uint64_t t)
{
	uint64_t rel = t > r->t0 ? t - r->t0 : 0, b = rel / r->width;

	return b >= RPT_MAX_BINS ? RPT_MAX_BINS - 1 : (unsigned)b;
}

/* Spread a quantity over [from, to) across the bins it covers (both already in range). */
static void spread(const struct rpt_run *r, struct rpt_dev *d, uint64_t from, uint64_t to,
                   double depth, bool idle)
{
	while (from < to) {
		unsigned b = bin_of(r, from);
		uint64_t end, len;

		/* the end of bin b, which may lie past the end of the u64 clock */
		if (__builtin_mul_overflow((uint64_t)b + 1, r->width, &end) ||
		    __builtin_add_overflow(end, r->t0, &end) || end > to || b == RPT_MAX_BINS - 1)
			end = to;
		len = end - from;
		if (idle)
			d->bin[b].idle_ns += len;
		else
			d->bin[b].qd_area += depth * (double)len;
		from = end;
	}
}

static void gap_record(struct rpt_run *r, struct rpt_dev *d, uint64_t from, uint64_t to)
{
	uint64_t len = to - from;
	unsigned min = 0;

	if (len < r->idle_threshold)
		return;
	d->gaps++;
	d->idle_total += len;
	spread(r, d, from, to, 0, true);
	if (d->ntop < RPT_TOP_GAPS) {
		d->top[d->ntop++] = (struct rpt_gap){from - r->t0, len};
		return;
	}
	for (unsigned i = 1; i < d->ntop; i++)
		if (d->top[i].len < d->top[min].len)
			min = i;
	if (len > d->top[min].len)
		d->top[min] = (struct rpt_gap){from - r->t0, len};
}

static struct rpt_dev *dev_get(struct rpt_run *r, uint32_t dev, uint64_t t, int *err)
{
	struct rpt_dev *d;

	for (unsigned i = 0; i < r->ndev; i++)
		if (r->dev[i]->dev == dev)
			return r->dev[i];
	if (r->ndev >= RPT_MAX_DEVICES)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (d) {
		d->bin = calloc(RPT_MAX_BINS, sizeof(*d->bin));
		d->grid = calloc(RPT_MAX_BINS, sizeof(*d->grid));
		d->flight = calloc(1, sizeof(*d->flight));
	}
	if (!d || !d->bin || !d->grid || !d->flight) {
		dev_free(d);
		*err = -ENOMEM;
		return NULL;
	}
	d->dev = dev;
	d->qd_t = t;
	d->idle_start = t;
	hist_init(&d->d2c);
	r->dev[r->ndev++] = d;
	return d;
}

_Static_assert(RPT_ROWS == 1u << 7, "grid_row() shifts by log2(RPT_ROWS) = 7");

/* Row of sector s; widens the grid's sector range (merging rows) to take it in. */
static unsigned grid_row(struct rpt_run *r, struct rpt_dev *d, uint64_t s)
{
	unsigned shift, k;
	uint64_t lo;

	if (!d->grid_init) {
		d->grid_init = true;
		d->row_span = 1;
		d->row_lo = s / RPT_ROWS * RPT_ROWS;
		d->min_sector = d->max_sector = s;
	}
	shift = (unsigned)__builtin_ctzll(d->row_span);
	if (s < d->min_sector)
		d->min_sector = s;
	if (s > d->max_sector)
		d->max_sector = s;
	/*
	 * Aligned blocks of RPT_ROWS << k sectors: grow k until s shares the block with row_lo.
	 * RPT_ROWS << 57 is the whole u64 range, where every sector shares the one block.
	 */
	k = shift;
	while (k < 57 && s >> (7 + k) != d->row_lo >> (7 + k))
		k++;
	if (k != shift) {
		lo = k < 57 ? d->row_lo >> (7 + k) << (7 + k) : 0;
		for (unsigned b = 0; b < r->nbins; b++) {
			uint32_t tmp[RPT_ROWS][2] = {{0}};

			for (unsigned i = 0; i < RPT_ROWS; i++) {
				unsigned j = (unsigned)((d->row_lo + i * d->row_span - lo) >> k);

				tmp[j][0] += d->grid[b][i][0];
				tmp[j][1] += d->grid[b][i][1];
			}
			memcpy(d->grid[b], tmp, sizeof(tmp));
		}
		d->row_lo = lo;
		d->row_span = 1ull << k;
	}
	return (unsigned)((s - d->row_lo) >> k);
}

static void depth_to(const struct rpt_run *r, struct rpt_dev *d, uint64_t t)
{
	if (t > d->qd_t) {
		if (d->qd)
			spread(r, d, d->qd_t, t, (double)d->qd, false);
		d->qd_t = t;
	}
}

int rpt_run_feed(struct rpt_run *r, const struct blk_event *ev)
{
	struct rpt_dev *d;
	unsigned b;
	int err = 0;
	bool wr = blk_is_write(ev);

	if (blk_is_notify(ev))
		return 0;
	if (!r->started) {
		r->started = true;
		r->t0 = ev->time;
	}
	if (ev->time > r->tlast)
		r->tlast = ev->time;
	r->events++;
	b = run_bin(r, ev->time);
	d = dev_get(r, ev->dev, ev->time, &err);
	if (!d) {
		r->ignored++;
		return err;
	}
	switch (ev->action) {
	case BLK_A_ISSUE: {
		int ret;

		if (ev->flags & (BLK_F_FLUSH) && !ev->bytes)
			break; /* an empty flush is not a data transfer or a seek */
		d->issues++;
		d->bin[b].issues++;
		if (d->have_last && ev->sector != d->last_end) {
			d->seeks++;
			d->bin[b].seeks++;
		}
		d->have_last = true;
		d->last_end = ev->sector + ev->bytes / 512;
		d->grid[b][grid_row(r, d, ev->sector)][wr]++;
		ret = flight_put(d->flight, ev->sector, ev->time);
		if (ret < 0)
			return ret;
		if (!ret) {
			d->untracked++;
			break;
		}
		depth_to(r, d, ev->time);
		if (d->qd == 0)
			gap_record(r, d, d->idle_start, ev->time);
		d->qd++;
		if (d->qd > d->bin[b].qd_max)
			d->bin[b].qd_max = d->qd;
		break;
	}
	case BLK_A_COMPLETE: {
		uint64_t t_issue;

		if (wr) {
			d->wr_ios++, d->wr_bytes += ev->bytes;
			d->bin[b].wr_ios++, d->bin[b].wr_bytes += ev->bytes;
		} else if (ev->flags & BLK_F_READ) {
			d->rd_ios++, d->rd_bytes += ev->bytes;
			d->bin[b].rd_ios++, d->bin[b].rd_bytes += ev->bytes;
		}
		if (!flight_take(d->flight, ev->sector, &t_issue))
			break;
		if (ev->time >= t_issue) {
			uint64_t lat = ev->time - t_issue;

			hist_add(&d->d2c, lat);
			d->bin[b].lat[rpt_lat_bucket(lat)]++;
			d->bin[b].lat_n++;
		}
		depth_to(r, d, ev->time);
		if (d->qd && !--d->qd)
			d->idle_start = ev->time;
		break;
	}
	default:
		break;
	}
	return 0;
}

void rpt_run_finish(struct rpt_run *r)
{
	for (unsigned i = 0; i < r->ndev; i++) {
		struct rpt_dev *d = r->dev[i];

		depth_to(r, d, r->tlast);
		if (!d->qd && r->tlast > d->idle_start)
			gap_record(r, d, d->idle_start, r->tlast);
	}
}

static int gap_cmp(const void *a, const void *b)
{
	const struct rpt_gap *x = a, *y = b;

	if (x->len != y->len)
		return x->len < y->len ? 1 : -1;
	return (x->start > y->start) - (x->start < y->start);
}

json_t *rpt_run_to_json(const struct rpt_run *r)
{
	json_t *root = json_object(), *devs = json_array();
	uint64_t span = rpt_run_span(r);
	char name[24];

	if (!root || !devs) {
		json_decref(root);
		json_decref(devs);
		return NULL;
	}
	for (unsigned i = 0; i < r->ndev; i++) {
		const struct rpt_dev *d = r->dev[i];
		struct rpt_gap top[RPT_TOP_GAPS];
		json_t *longest = json_array();
		double secs = (double)span / 1e9;

		memcpy(top, d->top, sizeof(top));
		qsort(top, d->ntop, sizeof(top[0]), gap_cmp);
		for (unsigned k = 0; k < d->ntop && k < 10; k++)
			json_array_append_new(
			    longest, json_pack("{s:I,s:I}", "start_ns", (json_int_t)top[k].start,
			                       "duration_ns", (json_int_t)top[k].len));
		snprintf(name, sizeof(name), "%u,%u", BLK_DEV_MAJOR(d->dev), BLK_DEV_MINOR(d->dev));
		json_array_append_new(
		    devs,
		    json_pack("{s:s,s:{s:I,s:I},s:{s:I,s:I},s:{s:{s:I,s:f,s:I,s:I,s:I,s:I,s:I}},"
		              "s:{s:I,s:I,s:I,s:f,s:o},s:{s:I,s:f,s:f}}",
		              "dev", name, "reads", "ios", (json_int_t)d->rd_ios, "bytes",
		              (json_int_t)d->rd_bytes, "writes", "ios", (json_int_t)d->wr_ios,
		              "bytes", (json_int_t)d->wr_bytes, "latency_ns", "d2c", "count",
		              (json_int_t)d->d2c.count, "mean", hist_mean(&d->d2c), "p50",
		              (json_int_t)hist_quantile(&d->d2c, 0.5), "p90",
		              (json_int_t)hist_quantile(&d->d2c, 0.9), "p99",
		              (json_int_t)hist_quantile(&d->d2c, 0.99), "min",
		              (json_int_t)(d->d2c.count ? d->d2c.min : 0), "max",
		              (json_int_t)d->d2c.max, "idle", "threshold_ns",
		              (json_int_t)r->idle_threshold, "gaps", (json_int_t)d->gaps,
		              "total_ns", (json_int_t)d->idle_total, "pct",
		              span ? 100.0 * (double)d->idle_total / (double)span : 0.0, "longest",
		              longest, "seeks", "count", (json_int_t)d->seeks, "sequential_pct",
		              d->issues ? 100.0 * (double)(d->issues - d->seeks) / (double)d->issues
		                        : 0.0,
		              "per_sec", secs > 0 ? (double)d->seeks / secs : 0.0));
	}
	json_object_set_new(root, "span_ns", json_integer((json_int_t)span));
	json_object_set_new(root, "devices", devs);
	json_object_set_new(root, "source", json_string("iotape report pass"));
	return root;
}
