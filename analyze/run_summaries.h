/* SPDX-License-Identifier: MIT */
/* A run set whose hosts are all summary runs: each host's figures on the first host's clock. */
#ifndef IOTAPE_ANALYZE_RUN_SUMMARIES_H
#define IOTAPE_ANALYZE_RUN_SUMMARIES_H

#include <stdint.h>

#include <jansson.h>

#include "common/err.h"

struct blk_opts;

/* One host of a run set as runset.json names it (the caller's; analyze does not read
 * runset.json: capture/hosts.h does). */
struct run_summaries_host {
	const char *name, *path; /* its name in the set, and its run directory */
	int64_t offset_ns;       /* its CLOCK_REALTIME minus the capturing host's, measured */
	uint64_t error_ns;       /* the offset is right within this */
};

/*
 * A run set of summary runs (capture --host --detail summary: a summary.json per host, no
 * records)? 1 when every host's run is one, 0 when none is, -EINVAL for a mix. A run that
 * cannot be read counts as none (reading it later says what is wrong).
 */
int run_summaries_detect(const struct run_summaries_host *h, unsigned n);

/*
 * Each host's figures as a summary run's (analyze/run_summary.h's run_summary_file(); the bins
 * and threshold of want_interval_ns and want_idle_ns, 0: its own) into root, laid out as
 * analyze --hosts lays its hosts out: "hosts" (each one's start on the first host's trace
 * clock, through its clock pairs and its measured offset), "devices" with their "key", "role",
 * "group" and "host", one span, the clocks' alignment error. What the user should know but
 * does not stop it (a capture left out, a host without clock pairs) is appended to warnings as
 * strings, in order. 0 or -errno (e filled, root untouched but for "timeline" and "detail").
 */
int run_summaries_doc(const struct run_summaries_host *h, unsigned n, const struct blk_opts *o,
                      uint64_t want_interval_ns, uint64_t want_idle_ns, json_t *root,
                      json_t *warnings, struct iot_err *e);
/* The same, and every host's devices' figures into *figs (*nfigs of them, in the order of
 * root's "devices"; free them with blk_figures_free()): what the text view prints. */
struct blk_figures;
int run_summaries_read(const struct run_summaries_host *h, unsigned n, const struct blk_opts *o,
                       uint64_t want_interval_ns, uint64_t want_idle_ns, json_t *root,
                       struct blk_figures **figs, unsigned *nfigs, json_t *warnings,
                       struct iot_err *e);

#endif
