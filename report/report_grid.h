/* SPDX-License-Identifier: MIT */
/* The report's density grid: IOs issued per time interval and sector range, a sink of the pass. */
#ifndef IOTAPE_REPORT_REPORT_GRID_H
#define IOTAPE_REPORT_REPORT_GRID_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/blk_sink.h"
#include "common/bins.h"

/*
 * For the "sector offset over time" image: per device, per interval of the timeline's clock
 * (same origin, interval and max_bins), RPT_ROWS sector rows of issues with data, reads and
 * writes apart. The rows cover aligned blocks of RPT_ROWS << shift sectors; when an issue
 * lands outside, rows merge (shift grows) until it fits, up to the whole u64 range. Memory:
 * 1 KiB per interval for each of the first RPT_GRID_DEVICES devices.
 */
#define RPT_ROWS_SHIFT 7u
#define RPT_ROWS (1u << RPT_ROWS_SHIFT)
#define RPT_GRID_DEVICES 16u

struct rpt_grid_dev {
	uint32_t (*cell)[RPT_ROWS][2]; /* [bin][row][read 0, write 1] */
	uint64_t ncell;                /* bins allocated */
	uint64_t row_lo;               /* row r covers [row_lo + (r << shift), + (1 << shift)) */
	unsigned shift;
	uint64_t min_sector, max_sector; /* exact, for the axis */
	bool any;
};

struct rpt_grid {
	struct bins clock;
	struct rpt_grid_dev dev[RPT_GRID_DEVICES];
};

extern const struct blk_sink_ops rpt_grid_ops;

/* Row of sector s on device d's current rows (s within them). */
static inline unsigned rpt_grid_row(const struct rpt_grid_dev *d, uint64_t s)
{
	return (unsigned)((s - d->row_lo) >> d->shift);
}

/* Device dev's grid (dense index, as the pass numbers devices), or NULL. */
const struct rpt_grid_dev *rpt_grid_dev(const struct rpt_grid *g, unsigned dev);

#endif
