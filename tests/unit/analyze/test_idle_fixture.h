/* SPDX-License-Identifier: MIT */
/* Helpers for the idle explainer's tests: one host's block pass and explainer over hand-built
 * events (10 ms idle threshold), an event moved to another device, an NFS call. */
#ifndef IOTAPE_TEST_IDLE_FIXTURE_H
#define IOTAPE_TEST_IDLE_FIXTURE_H

#include <string.h>

#include "analyze/idle_explain.h"
#include "formats/rpc.h"

struct fixture {
	struct blk_analysis *a;
	struct idle_explain *x;
};

/* e on device dev */
static inline struct blk_event on(struct blk_event e, uint32_t dev)
{
	e.dev = dev;
	return e;
}

/* A pass keeping the top longest gaps of each device, and its explainer on clock clk (NULL:
 * no clock pairs). */
static inline void start(struct fixture *f, unsigned top, const struct ie_clock *clk)
{
	struct blk_opts o;
	struct ie_clock none = {0};

	blk_opts_init(&o);
	o.idle_threshold_ns = 10 * 1000000ull;
	o.top = top;
	assert_int_equal(blk_analysis_new(&f->a, &o), 0);
	assert_int_equal(idle_explain_new(&f->x, top), 0);
	assert_int_equal(idle_explain_add_host(f->x, f->a, NULL, clk ? clk : &none), 0);
}

/* ev[0..n-1] through the pass, then the pass and the explainer's block part finished. */
static inline void feed(struct fixture *f, const struct blk_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		blk_analysis_feed(f->a, &ev[i]);
	blk_analysis_finish(f->a);
	idle_explain_block_done(f->x);
}

static inline void stop(struct fixture *f)
{
	idle_explain_free(f->x);
	blk_analysis_free(f->a);
}

/* An NFS call at c (ns, wall clock) answered at r; r 0: never answered. */
static inline struct rpc_txn nfs_call(uint64_t c, uint64_t r)
{
	struct rpc_txn t;

	memset(&t, 0, sizeof(t));
	t.kind = RPC_KIND_NFS;
	t.call_ns = c;
	t.reply_ns = r;
	t.replied = r != 0;
	return t;
}

#endif
