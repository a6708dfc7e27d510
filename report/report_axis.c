/* SPDX-License-Identifier: MIT */
/* A run set's hosts on one time axis in the report (report_axis.h). */
#include "report/report_axis.h"

#include <stdint.h>

#include "analyze/blk_analysis.h"
#include "report/report_html.h"
#include "report/report_run.h"

void report_runset_axis(struct report_input *in, struct report_run *runs, size_t n,
                        void (*unplaced)(void *ctx, size_t i), void *ctx)
{
	int64_t first = INT64_MAX, nfs0;

	for (size_t i = 0; i < n; i++) {
		if (runs[i].s.has_block && runs[i].s.have_real_start &&
		    runs[i].s.real_start_ns < first)
			first = runs[i].s.real_start_ns;
		if (report_run_nfs_real0(&runs[i], &nfs0) && nfs0 < first)
			first = nfs0;
	}
	for (size_t i = 0; i < n; i++) {
		/* the offset the pass applied, as the page says it: one source for both */
		in[i].offset_ns = runs[i].s.real_off_ns;
		if (report_run_nfs_real0(&runs[i], &nfs0))
			runs[i].nfs.shift_s = (double)(nfs0 - first) / 1e9;
		if (!runs[i].s.has_block || !blk_analysis_ndevices(runs[i].s.blk))
			continue;
		if (!runs[i].s.have_real_start) {
			if (unplaced)
				unplaced(ctx, i);
			continue;
		}
		in[i].t0_s = (double)(runs[i].s.real_start_ns - first) / 1e9;
	}
}
