/* SPDX-License-Identifier: MIT */
/* One run for the report: the analysis summary and pass, plus the series only the report draws. */
#ifndef IOTAPE_REPORT_REPORT_RUN_H
#define IOTAPE_REPORT_REPORT_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/run_summary.h"
#include "common/err.h"
#include "report/report_nfs.h"

struct bt_reader;
struct pcap_src;
struct manifest;

/*
 * The summary and the block pass are analyze's (analyze/run_summary.h): tables and graphs
 * read the same sinks. The pass runs with the report's clock (RPT_MAX_BINS intervals from
 * 1 us, or from --interval, doubling) and two additions: per-interval D2C in the latency sink
 * and the density grid (report_grid.h). The NFS series come from the same packets as the
 * NFS statistics.
 */
struct report_run {
	struct run_summary s;
	struct rpt_nfs nfs;
	uint64_t interval_ns, idle_ns;
};

int report_run_init(struct report_run *r, uint64_t interval_ns, uint64_t idle_ns);
void report_run_release(struct report_run *r);
/* Every event of rd into the pass; m: the run's manifest (its devices' roles), or NULL. */
int report_run_block(struct report_run *r, struct bt_reader *rd, const struct manifest *m,
                     struct iot_err *e);
/* A summary run's summary.json (no records: no pass, no graphs of the pass; the document
 * analyze makes of it, analyze/run_summary.h). */
int report_run_summary(struct report_run *r, const char *path, struct iot_err *e);
/* Every packet of src into the NFS statistics and series. With clock (the run's manifest,
 * with clock pairs) and a block pass done first, the NFS series are on the block trace's
 * clock. */
int report_run_packets(struct report_run *r, struct pcap_src *src, const struct manifest *clock,
                       struct iot_err *e);

/*
 * Where the NFS series' origin (their 0 s) falls on the common realtime clock, the run's
 * real_off_ns applied as to the block pass's first event (struct run_summary): on the block
 * trace's axis (rpt_nfs_align()), that event's real_start_ns, the block graphs' own figure;
 * else the first call's capture time. false without series, or when it cannot be placed.
 */
bool report_run_nfs_real0(const struct report_run *r, int64_t *real);

/*
 * A run set's hosts for the report, read as analyze reads the set (run_summary_set(): each
 * host's gaps explained by every host): ctx of its setup and packets hooks is a struct
 * report_run_set, runs[h] host h's run (report_run_init()'s, its options the set's pass's),
 * s the set's summary. report_run_set_setup() adds the report's sinks to host h's pass,
 * report_run_set_packets() its NFS series to its packets; after the call, report_run_adopt()
 * gives runs[h] host h's pass (taken from s) and document (taken from sh).
 */
struct report_run_set {
	struct report_run *runs;
	struct run_summary *s;
};
int report_run_set_setup(void *ctx, unsigned h, struct blk_analysis *a);
void report_run_set_packets(void *ctx, unsigned h, struct run_set_host *sh);
void report_run_adopt(struct report_run *r, struct run_summary *s, unsigned h,
                      struct run_set_host *sh);
/* The bin width of the NFS series (and statistics) of the report's runs. */
uint64_t report_run_nfs_interval(const struct report_run *r);

#endif
