/* SPDX-License-Identifier: MIT */
/* Shared between the report's HTML files (not a public interface). */
#ifndef IOTAPE_REPORT_REPORT_INT_H
#define IOTAPE_REPORT_REPORT_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/report_html.h"
#include "report/report_svg.h"

#include "common/palette.h"

#define READ_COLOR pal_hex(PAL_READ)
#define WRITE_COLOR pal_hex(PAL_WRITE)
#define IDLE_COLOR pal_hex(PAL_IDLE)

/* The colour of run i (common/palette.h: docs/report.md). */
const char *run_color(size_t i);
extern const char report_css[];

struct emit {
	FILE *f;
	const struct report_opts *o;
	int err;
};

/* Write a chart inline, and to --svg when asked; errors stick in em->err. */
void emit_chart(struct emit *em, const struct svg_chart *c);
const char *run_label(const struct report_input *in);
void td_num(FILE *f, double v, int dec);
void td_text(FILE *f, const char *s);
void swatch(FILE *f, const char *color);

/* The NFS section: summary table from the JSON, graphs from the NFS bins; xmax_min > 0 when
 * the time axis is shared with the block graphs. */
void report_nfs_section(struct emit *em, const struct report_input *in, size_t n, double xmax_min);
/* The NFS clients, files and slowest calls tables from the runs' summaries. */
void report_nfs_tables(FILE *f, const struct report_input *in, size_t n);
/* One chart per procedure: response time p50/p99 per interval (the summaries' series). */
void report_nfs_srt_charts(struct emit *em, const struct report_input *in, size_t n, double xmin,
                           double xmax);

/* Under a device's graphs (report_idle.c): its longest idle gaps with their causes, from run
 * in's summary (multi: name the run), and a chart of the run's other devices' throughput and
 * the network's on the same time axis, shaded with the device's idle bands. */
void report_idle_table(FILE *f, const struct report_input *in, unsigned idx, bool multi);
/* A device's D2C as compared (per request, else btt's per bio: docs/report.md). */
const json_t *report_d2c(const json_t *dev);
/* Device idx of run in's pass in its summary (devices[]), found by its number, or NULL. */
const json_t *report_dev_json(const struct report_input *in, unsigned idx);
int report_idle_chart(struct emit *em, const struct report_input *in, unsigned idx, uint64_t width,
                      const struct svg_band *bands, size_t nbands, const char *id, double xmax);

/* The per-device graphs (report_devices.c): a section per device key across the runs, each
 * run's graphs in it on one time axis (at least xmax_min s), points width ns apart or wider. */
void report_devices_section(struct emit *em, const struct report_input *in, size_t n,
                            uint64_t width, double xmax_min);
/* The plotted interval: a power-of-two multiple of every run's bin width, at most
 * max_points points over the longest run (or the --interval asked for, when coarser). */
uint64_t report_plot_width(const struct report_input *in, size_t n, const struct report_opts *o);
/* The interval device k of run i is plotted in (never below width). */
uint64_t report_plotted_width(const struct report_input *in, size_t n, uint64_t width, size_t i,
                              unsigned k);
/* The devices of a run with graphs: the first RPT_GRID_DEVICES the pass numbered. */
unsigned report_graphed(const struct blk_analysis *a);
/* A pass's span in seconds (0 without one). */
double report_span_s(const struct blk_analysis *a);

/* A summary run (capture --detail summary: figures, no records; report_summary.c): its devices'
 * bins, latency histogram, idle gaps and seeks, and what it cannot show. */
bool report_summary_run(const struct report_input *in);
void report_summary_section(struct emit *em, const struct report_input *in, size_t n);

#endif
