/* SPDX-License-Identifier: MIT */
/* A summary run (the bpf backend's --detail summary) as analyze's document. */
#ifndef IOTAPE_ANALYZE_BLK_SUMMARY_H
#define IOTAPE_ANALYZE_BLK_SUMMARY_H

#include <jansson.h>

#include "analyze/blk_sink.h"
#include "common/err.h"

/*
 * The devices of summary.json (sum) into root as analyze writes them: "devices" (each with
 * its "timeline" and the keys it holds, "not_given" naming the figures it cannot give),
 * "start_ns", "end_ns", "span_ns" and "timeline". top: the longest idle gaps listed.
 * interval_ns, idle_ns: the bin width and idle threshold asked for (0: the summary's); a
 * multiple of the summary's bins merges them, a threshold above its own keeps the gaps that
 * long; finer than the capture kept is -ERANGE (e says what the summary holds), a width that
 * is no multiple keeps the summary's (root's "timeline" says which). 0, or -EINVAL when sum is
 * no summary (e filled).
 */
int blk_summary_json(const json_t *sum, unsigned top, uint64_t interval_ns, uint64_t idle_ns,
                     json_t *root, struct iot_err *e);

/*
 * The same, and each device's figures into *figs (*nfigs of them, in the order of root's
 * "devices"; free them with blk_figures_free()): what the text view prints.
 */
struct blk_figures;
int blk_summary_read(const json_t *sum, unsigned top, uint64_t interval_ns, uint64_t idle_ns,
                     json_t *root, struct blk_figures **figs, unsigned *nfigs, struct iot_err *e);

#endif
