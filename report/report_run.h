/* SPDX-License-Identifier: MIT */
/* One run for report and compare: the analysis summary plus the report's own bins. */
#ifndef IOTAPE_REPORT_REPORT_RUN_H
#define IOTAPE_REPORT_REPORT_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "report/report_nfs.h"
#include "report/report_scan.h"
#include "common/err.h"

struct bt_reader;
struct pcap_src;

/*
 * The summary is what `iotape analyze --json` would print for the run (the block sinks of
 * blk_sink.h and the NFS statistics of nfs_stats.h, so tables and compare agree with analyze);
 * the bins are the report's per-interval series. Both come from one pass over the events.
 */
struct report_run {
	json_t *summary;
	struct rpt_run bins;
	struct rpt_nfs nfs;
	bool has_block, has_nfs;
};

int report_run_init(struct report_run *r, uint64_t interval_ns, uint64_t idle_ns);
void report_run_release(struct report_run *r);
/* Every event of rd into the block sinks and the bins; adds devices[] and span_ns. */
int report_run_block(struct report_run *r, struct bt_reader *rd, struct iot_err *e);
/* Every packet of src through the RPC decoder into the NFS statistics and bins; adds "nfs".
 * With clock (the run's manifest, with clock pairs) and a block pass done first, the NFS bins
 * are on the block trace's clock. */
struct manifest;
int report_run_packets(struct report_run *r, struct pcap_src *src, const struct manifest *clock,
                       struct iot_err *e);

#endif
