/* SPDX-License-Identifier: MIT */
/* The block pass: a device table plus every sink, fed one event at a time. */
#ifndef IOTAPE_ANALYZE_BLK_ANALYSIS_H
#define IOTAPE_ANALYZE_BLK_ANALYSIS_H

#include "analyze/blk_sink.h"
#include "common/err.h"

struct blk_analysis;

/* 0 or -ENOMEM. */
int blk_analysis_new(struct blk_analysis **out, const struct blk_opts *o);
void blk_analysis_free(struct blk_analysis *a);
/*
 * One more sink, fed through its ops->feed() after the pass's own (the report's density grid,
 * say): created with the pass's options, freed with it; its state, or NULL on ENOMEM. Add
 * sinks before the first event.
 */
void *blk_analysis_add_sink(struct blk_analysis *a, const struct blk_sink_ops *ops);
/* The state of the sink with these ops (the pass's own or an added one), or NULL: read it
 * with the sink's accessors (blk_timeline_bin(), ...) once the pass has finished. */
void *blk_analysis_sink(const struct blk_analysis *a, const struct blk_sink_ops *ops);
/* Names for pids (the reader's table; it may keep growing while events are fed). */
void blk_analysis_set_comms(struct blk_analysis *a, const struct bt_comm_table *comms);
const struct bt_comm_table *blk_analysis_comms(const struct blk_analysis *a);
void blk_analysis_feed(struct blk_analysis *a, const struct blk_event *ev);
/* The same for n events in a row (notifies among them are skipped). */
void blk_analysis_feed_batch(struct blk_analysis *a, const struct blk_event *ev, unsigned n);
/*
 * A pass over two threads: after blk_analysis_split(), blk_analysis_feed_batch() runs only
 * part of the sinks and blk_analysis_feed_side() the others (counts and the timeline).
 * Each must be given every event, in the same order, from one thread (the side typically
 * from the reader's tap, bt_reader_prefetch_tap()); call blk_analysis_finish() once both are
 * done. The results are those of the single pass.
 */
void blk_analysis_split(struct blk_analysis *a);
void blk_analysis_feed_side(struct blk_analysis *a, const struct blk_event *ev, unsigned n);
void blk_analysis_finish(struct blk_analysis *a);
/*
 * Every event of rd through the pass, as analyze runs it: the reader's thread decodes and
 * feeds part of the sinks (blk_analysis_split()), this one the others; then finish. The
 * reader must be fresh. 0 or -errno (e filled).
 */
int blk_analysis_read(struct blk_analysis *a, struct bt_reader *rd, struct iot_err *e);
/* Devices seen, in order of first appearance, and the trace span (non-notify events). */
unsigned blk_analysis_ndevices(const struct blk_analysis *a);
uint32_t blk_analysis_device(const struct blk_analysis *a, unsigned idx);
uint64_t blk_analysis_start(const struct blk_analysis *a);
uint64_t blk_analysis_end(const struct blk_analysis *a);
/* After blk_analysis_finish(): the dense index of the device at position pos of "devices"
 * (sorted by major, minor), or UINT_MAX (no such position, or not finished). */
unsigned blk_analysis_sorted(const struct blk_analysis *a, unsigned pos);
/* Events on devices past BLK_MAX_DEVICES (ignored, counted). */
uint64_t blk_analysis_dropped(const struct blk_analysis *a);
/*
 * The "devices" array (sorted by major, minor) and the span keys, added to root. With
 * timeline 0 the devices' "timeline" arrays are left out (a null stands in their place):
 * a fine timeline as jansson objects takes about 1.7 KiB a bin, so a writer with a memory
 * bound streams them one bin at a time with blk_analysis_timeline_bin() instead.
 */
int blk_analysis_to_json(struct blk_analysis *a, json_t *root, int timeline);
/* Bins of every device's timeline, and bin k of the device at position pos of "devices". */
uint64_t blk_analysis_timeline_bins(const struct blk_analysis *a);
json_t *blk_analysis_timeline_bin(const struct blk_analysis *a, unsigned pos, uint64_t k);

#endif
