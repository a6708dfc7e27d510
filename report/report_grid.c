/* SPDX-License-Identifier: MIT */
/* The report's density grid: IOs issued per time interval and sector range, a sink of the pass. */
#include "report/report_grid.h"

#include <stdlib.h>
#include <string.h>

static void *grid_create(const struct blk_opts *o)
{
	struct rpt_grid *g = calloc(1, sizeof(*g));

	if (g)
		bins_init(&g->clock, o->interval_ns, o->max_bins, false);
	return g;
}

static void grid_destroy(void *s)
{
	struct rpt_grid *g = s;

	for (unsigned i = 0; i < RPT_GRID_DEVICES; i++)
		free(g->dev[i].cell);
	free(g);
}

static void cell_add(void *dst, const void *src)
{
	uint32_t *a = dst;
	const uint32_t *b = src;

	for (unsigned i = 0; i < RPT_ROWS * 2; i++)
		a[i] += b[i];
}

static void grid_moved(void *ctx, const struct bins_move *m)
{
	struct rpt_grid *g = ctx;

	for (unsigned i = 0; i < RPT_GRID_DEVICES; i++)
		if (g->dev[i].cell)
			bins_move_array(m, g->dev[i].cell, g->dev[i].ncell, sizeof(*g->dev[i].cell),
			                cell_add);
}

/* Widen d's rows until sector s shares their aligned block: merge rows in every bin. */
static void rows_take(struct rpt_grid_dev *d, uint64_t s)
{
	unsigned k = d->shift;
	uint64_t lo;

	/* at shift 64 - RPT_ROWS_SHIFT the block is the whole u64 range */
	while (k < 64 - RPT_ROWS_SHIFT &&
	       s >> (RPT_ROWS_SHIFT + k) != d->row_lo >> (RPT_ROWS_SHIFT + k))
		k++;
	if (k == d->shift)
		return;
	lo =
	    k < 64 - RPT_ROWS_SHIFT ? d->row_lo >> (RPT_ROWS_SHIFT + k) << (RPT_ROWS_SHIFT + k) : 0;
	for (uint64_t b = 0; b < d->ncell; b++) {
		uint32_t tmp[RPT_ROWS][2];

		memset(tmp, 0, sizeof(tmp));
		for (unsigned i = 0; i < RPT_ROWS; i++) {
			unsigned j = (unsigned)((d->row_lo + ((uint64_t)i << d->shift) - lo) >> k);

			tmp[j][0] += d->cell[b][i][0];
			tmp[j][1] += d->cell[b][i][1];
		}
		memcpy(d->cell[b], tmp, sizeof(tmp));
	}
	d->row_lo = lo;
	d->shift = k;
}

static void grid_feed(void *s, unsigned dev, const struct blk_event *ev)
{
	struct rpt_grid *g = s;
	struct rpt_grid_dev *d;
	uint64_t k;

	/* issues with data: an empty flush moves no head and transfers nothing */
	if (ev->action != BLK_A_ISSUE || !(ev->bytes >> 9) || dev >= RPT_GRID_DEVICES)
		return;
	d = &g->dev[dev];
	k = bins_place(&g->clock, ev->time, grid_moved, g);
	if (bins_reserve((void **)&d->cell, &d->ncell, k, sizeof(*d->cell), g->clock.max))
		return;
	if (!d->any) {
		d->any = true;
		d->row_lo = ev->sector >> RPT_ROWS_SHIFT << RPT_ROWS_SHIFT;
		d->min_sector = d->max_sector = ev->sector;
	}
	if (ev->sector < d->min_sector)
		d->min_sector = ev->sector;
	if (ev->sector > d->max_sector)
		d->max_sector = ev->sector;
	rows_take(d, ev->sector);
	d->cell[k][rpt_grid_row(d, ev->sector)][blk_is_write(ev)]++;
}

static void grid_start(void *s, uint64_t t0)
{
	struct rpt_grid *g = s;

	bins_start(&g->clock, t0);
}

static void grid_finish(void *s, uint64_t start, uint64_t end)
{
	struct rpt_grid *g = s;

	(void)start;
	if (g->clock.started)
		bins_place(&g->clock, end, grid_moved, g); /* the timeline's bins, to the end */
}

const struct rpt_grid_dev *rpt_grid_dev(const struct rpt_grid *g, unsigned dev)
{
	return dev < RPT_GRID_DEVICES && g->dev[dev].any ? &g->dev[dev] : NULL;
}

const struct blk_sink_ops rpt_grid_ops = {
    .name = "grid",
    .create = grid_create,
    .feed = grid_feed,
    .finish = grid_finish,
    .destroy = grid_destroy,
    .start = grid_start,
    .actions = 1u << BLK_A_ISSUE,
};
