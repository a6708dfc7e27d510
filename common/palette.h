/* SPDX-License-Identifier: MIT */
/* The one palette of the report and the movie: data colours apart from the state shading. */
#ifndef IOTAPE_COMMON_PALETTE_H
#define IOTAPE_COMMON_PALETTE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Two kinds of colour (docs/report.md, "Colours"), so that they can never be mistaken:
 *   - data: what was measured (read, write, discard, a series, a run's lines); every one has
 *     colour (its channels at least PAL_MIN_CHROMA apart);
 *   - state: what the device was doing (idle time, the longest gaps): neutral greys (channels
 *     at most PAL_MAX_GREY apart), told apart per run by hatching, never by colour, so that
 *     overlapping runs' shading stays grey instead of mixing into a colour of its own.
 * Run i's lines take pal_run(i); none of them is read's or write's colour, since a run's
 * offset plot shows reads and writes in those.
 */
enum pal_id {
	/* data */
	PAL_READ,
	PAL_WRITE,
	PAL_DISCARD,
	PAL_TOTAL,
	PAL_IOPS,
	PAL_SEEKS,
	PAL_DEPTH,
	PAL_LATENCY, /* p50 solid, p99 dashed: one colour, told apart by the dash */
	PAL_NET,
	PAL_NDATA,
	/* state */
	PAL_IDLE = PAL_NDATA,
	PAL_GAP,
	PAL_N
};

#define PAL_MIN_CHROMA 32
#define PAL_MAX_GREY 8
#define PAL_NRUNS 20

/* 0xRRGGBB and "#rrggbb" of a colour. */
uint32_t pal_rgb(enum pal_id id);
const char *pal_hex(enum pal_id id);
/* Run i's colour (repeating past PAL_NRUNS: labels tell those runs apart). */
uint32_t pal_run_rgb(size_t i);
const char *pal_run_hex(size_t i);
/* The angle (degrees) and spacing (px) of run i's idle hatching: distinct for 16 runs. */
void pal_hatch(size_t i, double *angle, double *spacing);

#endif
