/* SPDX-License-Identifier: MIT */
/* analyze --by cgroup: a block pass per cgroup, each fed the events of its IO. */
#ifndef IOTAPE_ANALYZE_BLK_BYCG_H
#define IOTAPE_ANALYZE_BLK_BYCG_H

#include <jansson.h>

#include "analyze/blk_sink.h"

/* Groups kept, "other" included: the IO of cgroups past the first BLK_BYCG_MAX - 1 is
 * counted under BLK_BYCG_OTHER. */
#define BLK_BYCG_MAX 64u
#define BLK_BYCG_INFLIGHT 4096u   /* bios and requests in flight tracked per cgroup */
#define BLK_BYCG_NONE 0ull        /* records without a cgroup id (plug, unplug, tracefs) */
#define BLK_BYCG_OTHER UINT64_MAX /* past BLK_BYCG_MAX */

struct blk_bycg;

/* 0 or -ENOMEM. */
int blk_bycg_new(struct blk_bycg **out, const struct blk_opts *o);
void blk_bycg_free(struct blk_bycg *b);
/* Names for pids, as blk_analysis_set_comms(). */
void blk_bycg_set_comms(struct blk_bycg *b, const struct bt_comm_table *comms);
/* Events in time order (notifies skipped): each to the pass of its cgroup. */
void blk_bycg_feed(struct blk_bycg *b, const struct blk_event *ev, unsigned n);
/*
 * "cgroups": [{id, path, events, devices: [...]}] in order of first IO, each device as
 * analyze's "devices" has it (timelines left out). paths: the manifest's "cgroups" ([{id,
 * path}], may be NULL): a cgroup it does not name gets a null path. 0 or -ENOMEM.
 */
int blk_bycg_to_json(struct blk_bycg *b, const json_t *paths, json_t *root);

struct blk_analysis;
/* The pass of group i of "cgroups" (in order of first IO), or NULL. */
const struct blk_analysis *blk_bycg_pass(const struct blk_bycg *b, unsigned i);

#endif
