/* SPDX-License-Identifier: MIT */
/* Counts sink: events, bytes and KiB per action and direction, per device, blkparse's way. */
#include "analyze/blk_counts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonint.h"

struct blk_counts *blk_counts_new(void)
{
	return blk_zalloc(sizeof(struct blk_counts));
}

void blk_counts_free(struct blk_counts *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < c->ndev; i++) {
		if (c->dev[i])
			free(c->dev[i]->last_seq);
		free(c->dev[i]);
	}
	free(c->dev);
	free(c);
}

struct blk_counts_dev *blk_counts_new_dev(struct blk_counts *c, unsigned dev)
{
	if (dev >= c->ndev && blk_grow((void ***)&c->dev, &c->ndev, dev))
		return NULL;
	if (!c->dev[dev])
		c->dev[dev] = blk_zalloc(sizeof(struct blk_counts_dev));
	return c->dev[dev];
}

/* Room in last_seq for cpu; off the hot path (once per new CPU). */
int blk_counts_grow_seq(struct blk_counts_dev *d, unsigned cpu)
{
	unsigned n = d->nseq ? d->nseq : 4;
	uint64_t *p;

	while (n <= cpu)
		n *= 2;
	p = realloc(d->last_seq, n * sizeof(*p));
	if (!p)
		return -1;
	for (unsigned i = d->nseq; i < n; i++)
		p[i] = UINT64_MAX;
	d->last_seq = p;
	d->nseq = n;
	return 0;
}

void blk_counts_feed(struct blk_counts *c, unsigned dev, const struct blk_event *ev)
{
	blk_counts_feed_inline(c, dev, ev, ev->action);
}

const struct blk_counts_dev *blk_counts_dev(const struct blk_counts *c, unsigned dev)
{
	return dev < c->ndev ? c->dev[dev] : NULL;
}

static json_t *io_json(uint64_t ios, uint64_t bytes)
{
	return json_pack("{sIsI}", "ios", (json_int_t)ios, "bytes", (json_int_t)bytes);
}

static json_t *actions_json(const struct blk_action_counts *ac)
{
	json_t *o = json_object();

	for (unsigned a = 1; a < BLK_A_MAX; a++)
		json_object_set_new(o, blk_action_name(a),
		                    json_pack("{sIsIsIsI}", "reads", (json_int_t)ac->n[a][0],
		                              "read_bytes", (json_int_t)ac->bytes[a][0], "writes",
		                              (json_int_t)ac->n[a][1], "write_bytes",
		                              (json_int_t)ac->bytes[a][1]));
	if (ac->n[0][0] + ac->n[0][1])
		json_object_set_new(o, "unknown",
		                    json_pack("{sIsI}", "reads", (json_int_t)ac->n[0][0], "writes",
		                              (json_int_t)ac->n[0][1]));
	return o;
}

/* The numbers of blkparse's per-device summary, with its rules: merges are M plus F, the
 * dispatched bytes lose what was requeued, KiB are the byte sums shifted (blkparse keeps
 * whole KiB and the remainder bytes apart and adds them when it prints). */
static json_t *blkparse_json(const struct blk_counts_dev *d)
{
	const struct blk_action_counts *f = &d->fs, *p = &d->pc;
	json_t *o = json_object();
	static const char *const dir[2] = {"read", "write"};
	char k[64];

	for (unsigned w = 0; w < 2; w++) {
		uint64_t disp = f->bytes[BLK_A_ISSUE][w] - f->bytes[BLK_A_REQUEUE][w];

		if (f->bytes[BLK_A_REQUEUE][w] > f->bytes[BLK_A_ISSUE][w])
			disp = 0;
#define SET(fmt, v)                                                                                \
	do {                                                                                       \
		snprintf(k, sizeof(k), fmt, dir[w]);                                               \
		json_object_set_new(o, k, json_u64((v)));                                          \
	} while (0)
		SET("%ss_queued", f->n[BLK_A_QUEUE][w]);
		SET("%ss_queued_kib", f->bytes[BLK_A_QUEUE][w] >> 10);
		SET("%s_dispatches", f->n[BLK_A_ISSUE][w]);
		SET("%s_dispatches_kib", disp >> 10);
		SET("%ss_requeued", f->n[BLK_A_REQUEUE][w]);
		SET("%ss_completed", f->n[BLK_A_COMPLETE][w]);
		SET("%ss_completed_kib", f->bytes[BLK_A_COMPLETE][w] >> 10);
		SET("%s_merges", f->n[BLK_A_BACKMERGE][w] + f->n[BLK_A_FRONTMERGE][w]);
		SET("%s_merges_kib",
		    (f->bytes[BLK_A_BACKMERGE][w] + f->bytes[BLK_A_FRONTMERGE][w]) >> 10);
		SET("%s_depth", d->max_depth[w]);
		SET("pc_%ss_queued", p->n[BLK_A_QUEUE][w]);
		SET("pc_%s_dispatches", p->n[BLK_A_ISSUE][w]);
		SET("pc_%ss_requeued", p->n[BLK_A_REQUEUE][w]);
		SET("pc_%ss_completed", p->n[BLK_A_COMPLETE][w]);
#undef SET
	}
	json_object_set_new(o, "io_unplugs",
	                    json_u64((f->n[BLK_A_UNPLUG_IO][0] + f->n[BLK_A_UNPLUG_IO][1])));
	json_object_set_new(o, "timer_unplugs",
	                    json_u64((f->n[BLK_A_UNPLUG_TIMER][0] + f->n[BLK_A_UNPLUG_TIMER][1])));
	json_object_set_new(o, "events", json_u64(d->events));
	json_object_set_new(o, "skips", json_u64(d->skip_ranges));
	json_object_set_new(o, "skipped_records", json_u64(d->skips));
	return o;
}

/* Completed writes that carry data: blkparse's writes less the ranges covered. */
uint64_t blk_counts_data_writes(const struct blk_counts_dev *d)
{
	return d->done[1] - d->discards - d->wzero;
}

uint64_t blk_counts_data_write_bytes(const struct blk_counts_dev *d)
{
	return d->done_bytes[1] - d->discard_bytes - d->wzero_bytes;
}

int blk_counts_to_json(const struct blk_counts *c, unsigned dev, json_t *obj)
{
	const struct blk_counts_dev *d = blk_counts_dev(c, dev);
	static const struct blk_counts_dev zero;
	const struct blk_action_counts *p;

	if (!d)
		d = &zero;
	p = &d->pc;
	json_object_set_new(obj, "events", json_u64(d->events));
	json_object_set_new(obj, "skips",
	                    json_pack("{sIsI}", "ranges", (json_int_t)d->skip_ranges, "records",
	                              (json_int_t)d->skips));
	json_object_set_new(obj, "reads", io_json(d->done[0], d->done_bytes[0]));
	json_object_set_new(obj, "writes", io_json(d->done[1], d->done_bytes[1]));
	json_object_set_new(obj, "data_writes",
	                    io_json(blk_counts_data_writes(d), blk_counts_data_write_bytes(d)));
	json_object_set_new(obj, "discards", io_json(d->discards, d->discard_bytes));
	json_object_set_new(obj, "write_zeroes", io_json(d->wzero, d->wzero_bytes));
	json_object_set_new(obj, "flushes", json_u64(d->flushes));
	json_object_set_new(obj, "actions", actions_json(&d->fs));
	for (unsigned a = 0; a < BLK_A_MAX; a++)
		if (p->n[a][0] + p->n[a][1]) {
			json_object_set_new(obj, "pc_actions", actions_json(p));
			break;
		}
	json_object_set_new(obj, "blkparse", blkparse_json(d));
	return 0;
}

/* ------------------------------------------------------------------------------------- */

static void *ops_create(const struct blk_opts *o)
{
	(void)o;
	return blk_counts_new();
}

static void ops_feed(void *s, unsigned dev, const struct blk_event *ev)
{
	blk_counts_feed(s, dev, ev);
}

static void ops_finish(void *s, uint64_t start, uint64_t end)
{
	(void)s;
	(void)start;
	(void)end;
}

/* A rate over the trace span, or null for an empty span. */
static json_t *per_span(double v, uint64_t span_ns, double scale)
{
	return span_ns ? json_real(v / (double)span_ns * scale) : json_null();
}

static int ops_to_json(void *s, unsigned dev, json_t *obj, const struct blk_json_ctx *ctx)
{
	const struct blk_counts_dev *d = blk_counts_dev(s, dev);
	uint64_t span = ctx->end_ns - ctx->start_ns;
	double bytes = d ? (double)d->done_bytes[0] + (double)blk_counts_data_write_bytes(d) : 0;
	double ios = d ? (double)d->done[0] + (double)blk_counts_data_writes(d) : 0;
	int ret = blk_counts_to_json(s, dev, obj);

	json_object_set_new(obj, "throughput", blk_throughput_json(bytes, ios, span));
	return ret;
}

/* MB/s and IOPS of the completions with data (a discard's or write-zeroes' range is none) over
 * the trace's span: the one place the report and compare take them from (a summary run's
 * too: analyze/blk_summary.c) */
json_t *blk_throughput_json(double bytes, double ios, uint64_t span_ns)
{
	return json_pack("{s:o,s:o}", "mbps", per_span(bytes, span_ns, 1e3), "iops",
	                 per_span(ios, span_ns, 1e9));
}

static void ops_destroy(void *s)
{
	blk_counts_free(s);
}

const struct blk_sink_ops blk_counts_ops = {
    .name = "counts",
    .create = ops_create,
    .feed = ops_feed,
    .finish = ops_finish,
    .to_json = ops_to_json,
    .destroy = ops_destroy,
};
