/* SPDX-License-Identifier: MIT */
/* A run set's hosts on one time axis in the report: where each host's graphs start. */
#ifndef IOTAPE_REPORT_REPORT_AXIS_H
#define IOTAPE_REPORT_REPORT_AXIS_H

#include <stddef.h>

struct report_input;
struct report_run;

/*
 * The hosts runs[0..n-1] of a run set (in[i] the report's view of runs[i]) on one time axis:
 * each host's first event placed on the capturing host's realtime clock by its pass
 * (analyze/run_summary.h, the measured offset applied), and so the origin of its NFS graphs
 * (report_run_nfs_real0(): the same offset, the same function), the earliest at 0: in[i].t0_s
 * and runs[i].nfs.shift_s; in[i].offset_ns, the offset the page shows, is the one the pass
 * applied (runs[i].s.real_off_ns). unplaced(ctx, i), when given, for each host with block devices
 * whose first event cannot be placed (neither clock pairs nor a TIMESTAMP): its graphs start at 0.
 */
void report_runset_axis(struct report_input *in, struct report_run *runs, size_t n,
                        void (*unplaced)(void *ctx, size_t i), void *ctx);

#endif
