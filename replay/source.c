/* SPDX-License-Identifier: MIT */
/* The replay's trace source over a blktrace reader: events in batches, read where they lie. */
#include "formats/blktrace.h"
#include "replay/replay.h"

/* Events per batch: enough that the reader's per-call cost vanishes, few enough that decoding a
 * batch (a few microseconds) does not hold up an IO due on the trace's clock. */
#define RP_SOURCE_BATCH 256u

static int reader_next(void *arg, struct blk_event *ev, struct iot_err *e)
{
	return bt_reader_next(arg, ev, e);
}

static int reader_batch(void *arg, const struct blk_event **ev, unsigned *n, struct iot_err *e)
{
	return bt_reader_next_batch_max(arg, RP_SOURCE_BATCH, ev, n, e);
}

/* the events the replay does not look at are not decoded (Q, G, I, merges in issue mode) */
static void reader_keep(void *arg, uint32_t actions)
{
	bt_reader_keep_actions(arg, actions);
}

struct rp_source rp_source_reader(struct bt_reader *rd)
{
	return (struct rp_source){
	    .next = reader_next, .arg = rd, .batch = reader_batch, .keep = reader_keep};
}
