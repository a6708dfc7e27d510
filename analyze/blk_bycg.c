/* SPDX-License-Identifier: MIT */
/* analyze --by cgroup: a block pass per cgroup, each fed the events of its IO. */
#include "analyze/blk_bycg.h"

#include <errno.h>
#include <stdlib.h>

#include "analyze/blk_analysis.h"
#include "common/jsonint.h"

/*
 * Every record of an IO carries the cgroup id of its blkcg (the bpf backend writes it into Q,
 * G, I, D, C and the merges; the kernel's blk tracer with its blk_cgroup option too), so the
 * events of one cgroup form a trace of their own and each cgroup's figures are those of a
 * pass over it: its IO counts, latencies, and its idle gaps (when none of its IO was in
 * flight: who left the device to others). Records without an id (plug and unplug, which
 * belong to no IO, or a trace captured without ids) make a group of their own, id 0.
 */
struct group {
	uint64_t id;
	uint64_t events;
	struct blk_analysis *a;
};

struct blk_bycg {
	struct blk_opts o;
	const struct bt_comm_table *comms;
	struct group g[BLK_BYCG_MAX];
	unsigned n;
	unsigned last; /* the group of the last event: IO runs in streaks */
	int failed;
};

int blk_bycg_new(struct blk_bycg **out, const struct blk_opts *o)
{
	struct blk_bycg *b = calloc(1, sizeof(*b));

	*out = b;
	if (!b)
		return -ENOMEM;
	b->o = *o;
	/* each cgroup's pass tracks its own IO in flight: smaller pools (the latency sink's
	 * default is sized for a whole trace) */
	if (!b->o.max_inflight || b->o.max_inflight > BLK_BYCG_INFLIGHT)
		b->o.max_inflight = BLK_BYCG_INFLIGHT;
	return 0;
}

void blk_bycg_free(struct blk_bycg *b)
{
	if (!b)
		return;
	for (unsigned i = 0; i < b->n; i++)
		blk_analysis_free(b->g[i].a);
	free(b);
}

void blk_bycg_set_comms(struct blk_bycg *b, const struct bt_comm_table *comms)
{
	b->comms = comms;
	for (unsigned i = 0; i < b->n; i++)
		blk_analysis_set_comms(b->g[i].a, comms);
}

static struct group *group_of(struct blk_bycg *b, uint64_t id)
{
	struct group *g;

	if (b->last < b->n && b->g[b->last].id == id)
		return &b->g[b->last];
	for (unsigned i = 0; i < b->n; i++)
		if (b->g[i].id == id)
			return &b->g[b->last = i];
	if (b->n >= BLK_BYCG_MAX - 1 && id != BLK_BYCG_OTHER)
		return group_of(b, BLK_BYCG_OTHER);
	g = &b->g[b->n];
	if (blk_analysis_new(&g->a, &b->o)) {
		b->failed = 1;
		return NULL;
	}
	blk_analysis_set_comms(g->a, b->comms);
	g->id = id;
	b->last = b->n++;
	return g;
}

void blk_bycg_feed(struct blk_bycg *b, const struct blk_event *ev, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct group *g;

		if (blk_is_notify(&ev[i]))
			continue;
		g = group_of(b, ev[i].flags & BLK_F_CGROUP ? ev[i].cgroup : BLK_BYCG_NONE);
		if (!g)
			continue;
		g->events++;
		blk_analysis_feed(g->a, &ev[i]);
	}
}

static json_t *path_of(const json_t *paths, uint64_t id)
{
	size_t i;
	const json_t *c;

	json_array_foreach(paths, i, c)
	{
		const json_t *cid = json_object_get(c, "id");

		if (json_is_integer(cid) && (uint64_t)json_integer_value(cid) == id &&
		    json_is_string(json_object_get(c, "path")))
			return json_incref(json_object_get(c, "path"));
	}
	return json_null();
}

int blk_bycg_to_json(struct blk_bycg *b, const json_t *paths, json_t *root)
{
	json_t *arr = json_array();

	if (!arr || b->failed) {
		json_decref(arr);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < b->n; i++) {
		struct group *g = &b->g[i];
		json_t *o = json_object();

		if (!o || blk_analysis_to_json(g->a, o, 0)) {
			json_decref(o);
			json_decref(arr);
			return -ENOMEM;
		}
		json_object_del(o, "timeline");
		json_object_set_new(
		    o, "id", g->id == BLK_BYCG_OTHER ? json_string("other") : json_u64(g->id));
		json_object_set_new(o, "path",
		                    g->id == BLK_BYCG_NONE || g->id == BLK_BYCG_OTHER
		                        ? json_null()
		                        : path_of(paths, g->id));
		json_object_set_new(o, "events", json_u64(g->events));
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "cgroups", arr);
	return 0;
}

const struct blk_analysis *blk_bycg_pass(const struct blk_bycg *b, unsigned i)
{
	return i < b->n ? b->g[i].a : NULL;
}
