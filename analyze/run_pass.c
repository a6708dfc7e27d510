/* SPDX-License-Identifier: MIT */
/* The block pass of a run (one trace, several merged, or a run set's hosts) and its document. */
#include "analyze/run_summary.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/blk_bycg.h"
#include "analyze/blk_doc.h"
#include "analyze/idle_explain.h"
#include "common/jsonint.h"
#include "formats/blktrace.h"
#include "formats/manifest.h"

int run_explain_new(struct idle_explain **x, struct blk_analysis *a, const struct blk_opts *o,
                    const struct manifest *m)
{
	struct ie_clock clk = {.m = m && m->have_clock ? m : NULL};

	if (idle_explain_new(x, o->top) || idle_explain_add_host(*x, a, NULL, &clk) < 0)
		return -ENOMEM;
	idle_explain_set_manifest(*x, 0, m);
	return 0;
}

struct ie_clock run_trace_clock(const struct bt_stats *st)
{
	if (!st || !st->have_wallclock)
		return (struct ie_clock){0};
	return (struct ie_clock){.have_wall = true,
	                         .wall_ns = st->wall_sec * 1000000000ll + st->wall_nsec};
}

void run_explain_block_done(struct idle_explain *x, const struct manifest *m,
                            const struct bt_stats *st)
{
	/* the clock pairs win over the TIMESTAMP: they are measured around the trace */
	if (!(m && m->have_clock) && st && st->have_wallclock) {
		struct ie_clock clk = run_trace_clock(st);

		idle_explain_set_clock(x, 0, &clk);
	}
	idle_explain_block_done(x);
}

/* A merged trace's head event, valid while have. */
struct head {
	struct bt_reader *rd;
	struct blk_event ev;
	bool have;
};

static int head_next(struct head *h, struct iot_err *e)
{
	int ret = bt_reader_next(h->rd, &h->ev, e);

	h->have = ret > 0;
	return ret < 0 ? ret : 0;
}

static void merge_feed(struct run_summary *r, const struct blk_event *ev)
{
	r->events++;
	if (!blk_is_notify(ev)) {
		blk_analysis_feed(r->blk, ev);
		if (r->cg)
			blk_bycg_feed(r->cg, ev, 1);
		return;
	}
	r->notifies++;
	if (ev->action == BLK_N_PROCESS && ev->pdu_len)
		bt_comm_table_set(r->comms, ev->pid, (const char *)ev->pdu, ev->pdu_len);
	else if (ev->action == BLK_N_MESSAGE)
		r->messages++;
}

/*
 * Several traces merged by time (few of them: a linear scan beats a heap), each decoded in a
 * thread of its own while the sinks run in this one. 0, or -errno: with r->passed, a trace
 * stopped after the pass began.
 */
static int merge_pass(struct run_summary *r, struct bt_reader **rd, unsigned n, struct iot_err *e)
{
	struct head *h = calloc(n, sizeof(*h));
	int ret = 0;

	if (!h)
		return iot_err_set(e, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < n && !ret; i++)
		ret = bt_reader_prefetch(rd[i], e);
	if (ret) {
		free(h);
		return ret;
	}
	r->passed = true;
	for (unsigned i = 0; i < n && !ret; i++) {
		h[i].rd = rd[i];
		ret = head_next(&h[i], e);
	}
	while (!ret) {
		struct head *best = NULL;

		for (unsigned i = 0; i < n; i++)
			if (h[i].have && (!best || h[i].ev.time < best->ev.time))
				best = &h[i];
		if (!best)
			break;
		merge_feed(r, &best->ev);
		ret = head_next(best, e);
	}
	free(h);
	blk_analysis_finish(r->blk);
	return ret;
}

/* One trace: a reader thread decodes it into batches and runs part of the sinks on each while
 * it is in its cache, this thread the others (blk_analysis_read()); the cgroups' passes, when
 * asked for, fed in this thread. */
static int one_pass(struct run_summary *r, struct bt_reader *rd, struct iot_err *e)
{
	const struct bt_stats *st;
	int ret;

	r->passed = true;
	if (!r->cg) {
		ret = blk_analysis_read(r->blk, rd, e);
	} else {
		const struct blk_event *ev;
		unsigned n;

		blk_analysis_set_comms(r->blk, bt_reader_comms(rd));
		blk_bycg_set_comms(r->cg, bt_reader_comms(rd));
		while ((ret = bt_reader_next_batch(rd, &ev, &n, e)) == 1) {
			blk_analysis_feed_batch(r->blk, ev, n);
			blk_bycg_feed(r->cg, ev, n);
		}
		blk_analysis_finish(r->blk);
	}
	/* the reader counted the notifies and kept the names: no second look at each event */
	st = bt_reader_stats(rd);
	r->events = st->events;
	r->notifies = st->notifies;
	r->messages = st->messages;
	return ret < 0 ? ret : 0;
}

int run_summary_pass(struct run_summary *r, struct bt_reader **rd, unsigned n,
                     int (*setup)(void *ctx, struct blk_analysis *a), void *ctx, struct iot_err *e)
{
	int ret;

	idle_explain_free(r->x);
	r->x = NULL;
	blk_analysis_free(r->blk);
	r->blk = NULL;
	r->passed = false;
	r->events = r->notifies = r->messages = 0;
	if (blk_analysis_new(&r->blk, &r->o) || run_explain_new(&r->x, r->blk, &r->o, r->ident) ||
	    (r->by_cgroup && !r->cg && blk_bycg_new(&r->cg, &r->o)) ||
	    (n > 1 && !r->comms && !(r->comms = bt_comm_table_new())))
		return iot_err_set(e, -ENOMEM, "out of memory");
	if (n > 1) {
		/* the merge keeps the names the notifies give */
		blk_analysis_set_comms(r->blk, r->comms);
		if (r->cg)
			blk_bycg_set_comms(r->cg, r->comms);
	}
	if (setup && (ret = setup(ctx, r->blk)))
		return iot_err_set(e, ret, "out of memory");
	ret = n > 1 ? merge_pass(r, rd, n, e) : one_pass(r, rd[0], e);
	if (r->passed)
		run_explain_block_done(r->x, r->ident, bt_reader_stats(rd[0]));
	return ret;
}

int run_summary_hosts(struct run_summary *r, const struct run_host *h, unsigned n,
                      int (*setup)(void *ctx, unsigned host, struct blk_analysis *a), void *ctx,
                      struct iot_err *e, unsigned *bad)
{
	struct bt_reader **rd = calloc(n ? n : 1, sizeof(*rd));
	int ret = 0;

	*bad = 0;
	idle_explain_free(r->x);
	r->x = NULL;
	r->passed = false;
	r->events = r->notifies = r->messages = 0;
	r->hosts = h;
	r->nhosts = 0;
	free(r->hblk);
	r->hblk = calloc(n ? n : 1, sizeof(*r->hblk));
	if (!rd || !r->hblk || idle_explain_new(&r->x, r->o.top))
		ret = -ENOMEM;
	for (unsigned i = 0; i < n && !ret; i++) {
		struct ie_clock clk = {.m = h[i].m, .real_off_ns = h[i].real_off_ns};

		rd[i] = h[i].rd;
		r->nhosts++;
		if (blk_analysis_new(&r->hblk[i], &r->o) ||
		    idle_explain_add_host(r->x, r->hblk[i], h[i].name, &clk) < 0 ||
		    (setup && setup(ctx, i, r->hblk[i])))
			ret = -ENOMEM;
		else
			idle_explain_set_manifest(r->x, i, h[i].m);
	}
	if (ret) {
		free(rd);
		return iot_err_set(e, ret, "out of memory");
	}
	r->passed = true;
	ret = idle_explain_read(r->x, rd, e, bad);
	free(rd);
	for (unsigned i = 0; i < n; i++) {
		const struct bt_stats *st = h[i].rd ? bt_reader_stats(h[i].rd) : NULL;

		if (!st)
			continue;
		r->events += st->events;
		r->notifies += st->notifies;
		r->messages += st->messages;
	}
	idle_explain_block_done(r->x);
	return ret;
}

/* devices[] and the span from the pass, the explanations into them. 0 or -ENOMEM. */
static int block_json(struct run_summary *r, json_t *root)
{
	unsigned n = blk_analysis_ndevices(r->blk);

	if (blk_analysis_to_json(r->blk, root, 0) ||
	    blk_ident_json(json_object_get(root, "devices"), r->ident, NULL) ||
	    idle_explain_json(r->x, 0, json_object_get(root, "devices")))
		return -ENOMEM;
	if (r->cg && blk_bycg_to_json(
	                 r->cg, r->ident ? json_object_get(r->ident->root, "cgroups") : NULL, root))
		return -ENOMEM;
	free(r->refs);
	r->refs = calloc(n ? n : 1, sizeof(*r->refs));
	if (!r->refs)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++)
		r->refs[i] = (struct devref){r->blk, i};
	return 0;
}

int run_host_devices_json(struct blk_analysis *a, const struct run_host *h, json_t *doc)
{
	json_t *d;
	size_t k;

	if (blk_analysis_to_json(a, doc, 0))
		return -ENOMEM;
	/* each device with its host from the start: the explanations find a host's devices by it
	 * (their numbers repeat across hosts) */
	json_array_foreach(json_object_get(doc, "devices"), k, d)
	{
		if (json_object_set_new(d, "host", json_string(h->name)))
			return -ENOMEM;
	}
	return blk_ident_json(json_object_get(doc, "devices"), h->m, NULL);
}

/* Host i's devices (each with its host) into devs and r->refs from *nd on. 0 or -ENOMEM. */
static int host_devices(struct run_summary *r, unsigned i, json_t *t, json_t *devs, size_t *nd)
{
	size_t k;
	json_t *d;

	json_array_foreach(json_object_get(t, "devices"), k, d)
	{
		if (json_array_append(devs, d))
			return -ENOMEM;
		r->refs[(*nd)++] = (struct devref){r->hblk[i], (unsigned)k};
	}
	return 0;
}

/* "hosts" (each one's span on its own clock and its offset to the common clock) and every
 * host's devices, each with its host. 0 or -ENOMEM. */
static int hosts_json(struct run_summary *r, json_t *root)
{
	json_t *hosts = json_array(), *devs = json_array();
	uint64_t start = UINT64_MAX, end = 0;
	size_t nd = 0;

	free(r->refs);
	for (unsigned i = 0; i < r->nhosts; i++)
		nd += blk_analysis_ndevices(r->hblk[i]);
	if (!hosts || !devs || !(r->refs = calloc(nd ? nd : 1, sizeof(*r->refs))))
		goto nomem;
	nd = 0;
	for (unsigned i = 0; i < r->nhosts; i++) {
		const struct run_host *in = &r->hosts[i];
		struct blk_analysis *a = r->hblk[i];
		json_t *t = json_object(), *h;
		uint64_t s = blk_analysis_start(a), f = blk_analysis_end(a), cs, cf;

		if (!t || run_host_devices_json(a, in, t) ||
		    idle_explain_json(r->x, i, json_object_get(t, "devices")) ||
		    host_devices(r, i, t, devs, &nd)) {
			json_decref(t);
			goto nomem;
		}
		if (!idle_explain_to_common(r->x, i, s, &cs) ||
		    !idle_explain_to_common(r->x, i, f, &cf))
			cs = s, cf = f;
		/* a packets-only host has no block span to join the others' */
		if (blk_analysis_ndevices(a)) {
			start = cs < start ? cs : start;
			end = cf > end ? cf : end;
		}
		h = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I}", "host", in->name, "path", in->path,
		              "start_ns", (json_int_t)s, "end_ns", (json_int_t)f, "span_ns",
		              (json_int_t)(f - s), "offset_ns", (json_int_t)(cs - s));
		json_array_append_new(hosts, h);
		if (!i) /* the timeline's keys: one interval for every host */
			json_object_set(root, "timeline", json_object_get(t, "timeline"));
		json_decref(t);
	}
	json_object_set_new(root, "start_ns", json_u64((nd ? start : 0)));
	json_object_set_new(root, "end_ns", json_u64(end));
	json_object_set_new(root, "span_ns", json_u64((nd ? end - start : 0)));
	json_object_set_new(root, "hosts", hosts);
	json_object_set_new(root, "alignment_error_ns", json_u64(idle_explain_alignment_ns(r->x)));
	json_object_set_new(root, "devices", devs);
	return 0;
nomem:
	json_decref(hosts);
	json_decref(devs);
	return -ENOMEM;
}

int run_summary_json(struct run_summary *r, json_t *root)
{
	return r->hblk ? hosts_json(r, root) : block_json(r, root);
}

json_t *run_summary_input_json(const struct run_summary *r, struct bt_reader *const *rd,
                               const char *const *path, unsigned n, const char *stop,
                               json_t *warnings)
{
	static const struct bt_stats no_stats;
	json_t *o = json_object(), *paths = json_array(), *files = json_array();
	json_t *versions = json_array();
	uint64_t skips = 0, truncated = 0;
	unsigned seen = 0; /* versions seen, as a bit set */
	json_t *wall = NULL;

	for (unsigned i = 0; i < n; i++) {
		const struct bt_stats *st = rd[i] ? bt_reader_stats(rd[i]) : &no_stats;

		json_array_append_new(paths, json_string(path[i]));
		skips += st->skips;
		if (st->have_wallclock && !wall)
			wall = json_pack("{sIsI}", "sec", (json_int_t)st->wall_sec, "nsec",
			                 (json_int_t)st->wall_nsec);
		for (unsigned f = 0; f < st->nfiles; f++) {
			const struct bt_file_stats *fs = &st->files[f];
			json_t *j = json_object();

			truncated += fs->truncated != 0;
			if (fs->version < 32)
				seen |= 1u << fs->version;
			json_object_set_new(j, "path", json_string(fs->path));
			json_object_set_new(j, "format",
			                    json_string(fs->format ? fs->format : "blktrace"));
			json_object_set_new(j, "version", json_integer(fs->version));
			if (fs->iolog_version)
				json_object_set_new(j, "iolog_version",
				                    json_integer(fs->iolog_version));
			json_object_set_new(j, "byte_order",
			                    json_string(fs->swapped ? "swapped" : "native"));
			json_object_set_new(j, "gzip", json_boolean(fs->gzip));
			json_object_set_new(j, "compression", json_string(fs->compression));
			json_object_set_new(j, "records", json_u64(fs->records));
			json_object_set_new(j, "bytes", json_u64(fs->bytes));
			json_object_set_new(j, "skips", json_u64(fs->skips));
			json_object_set_new(j, "truncated", json_boolean(fs->truncated));
			if (fs->truncated)
				json_object_set_new(j, "truncated_at", json_u64(fs->trunc_at));
			json_array_append_new(files, j);
		}
	}
	for (unsigned v = 1; v < 32; v++)
		if (seen & (1u << v))
			json_array_append_new(versions, json_integer(v));
	json_object_set_new(o, "paths", paths);
	json_object_set_new(o, "files", files);
	json_object_set_new(o, "versions", versions);
	json_object_set_new(o, "events", json_u64(r->events));
	json_object_set_new(o, "notifies", json_u64(r->notifies));
	json_object_set_new(o, "messages", json_u64(r->messages));
	json_object_set_new(o, "skips", json_u64(skips));
	json_object_set_new(o, "truncated", json_u64(truncated));
	json_object_set_new(o, "wallclock", wall ? wall : json_null());
	json_object_set_new(o, "partial", json_boolean(stop != NULL));
	if (stop)
		json_object_set_new(o, "error", json_string(stop));
	json_object_set_new(o, "warnings", warnings);
	return o;
}
