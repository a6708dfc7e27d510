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
 * "start_ns", "end_ns", "span_ns" and "timeline". top: the longest idle gaps listed. 0, or
 * -EINVAL when sum is no summary (e filled).
 */
int blk_summary_json(const json_t *sum, unsigned top, json_t *root, struct iot_err *e);

#endif
