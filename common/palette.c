/* SPDX-License-Identifier: MIT */
/* The one palette of the report and the movie: data colours apart from the state shading. */
#include "common/palette.h"

static const struct {
	uint32_t rgb;
	const char *hex;
} named[PAL_N] = {
    [PAL_READ] = {0x1f77b4, "#1f77b4"},    [PAL_WRITE] = {0xd62728, "#d62728"},
    [PAL_DISCARD] = {0x8c564b, "#8c564b"}, [PAL_TOTAL] = {0x6a3d9a, "#6a3d9a"},
    [PAL_IOPS] = {0xbcbd22, "#bcbd22"},    [PAL_SEEKS] = {0x2ca02c, "#2ca02c"},
    [PAL_DEPTH] = {0x9467bd, "#9467bd"},   [PAL_LATENCY] = {0xe6550d, "#e6550d"},
    [PAL_NET] = {0x17becf, "#17becf"},     [PAL_IDLE] = {0x7f7f7f, "#7f7f7f"},
    [PAL_GAP] = {0x4d4d4d, "#4d4d4d"},
};

/* Tableau's 20 without its greys and the two colours of read and write, their place taken by
 * four dark companions: the strong colours first, then the light ones. */
static const struct {
	uint32_t rgb;
	const char *hex;
} runs[PAL_NRUNS] = {
    {0xff7f0e, "#ff7f0e"}, {0x2ca02c, "#2ca02c"}, {0x9467bd, "#9467bd"}, {0x8c564b, "#8c564b"},
    {0xe377c2, "#e377c2"}, {0xbcbd22, "#bcbd22"}, {0x17becf, "#17becf"}, {0x393b79, "#393b79"},
    {0x637939, "#637939"}, {0x8c6d31, "#8c6d31"}, {0xffbb78, "#ffbb78"}, {0x98df8a, "#98df8a"},
    {0xc5b0d5, "#c5b0d5"}, {0xc49c94, "#c49c94"}, {0xf7b6d2, "#f7b6d2"}, {0xdbdb8d, "#dbdb8d"},
    {0x9edae5, "#9edae5"}, {0xaec7e8, "#aec7e8"}, {0xff9896, "#ff9896"}, {0x7b4173, "#7b4173"},
};

uint32_t pal_rgb(enum pal_id id)
{
	return named[id < PAL_N ? id : PAL_IDLE].rgb;
}

const char *pal_hex(enum pal_id id)
{
	return named[id < PAL_N ? id : PAL_IDLE].hex;
}

uint32_t pal_run_rgb(size_t i)
{
	return runs[i % PAL_NRUNS].rgb;
}

const char *pal_run_hex(size_t i)
{
	return runs[i % PAL_NRUNS].hex;
}

void pal_hatch(size_t i, double *angle, double *spacing)
{
	static const double a[8] = {45, 135, 0, 90, 22.5, 112.5, 67.5, 157.5};

	*angle = a[i % 8];
	*spacing = (i / 8) % 2 ? 9 : 5;
}
