/* SPDX-License-Identifier: MIT */
/* Unit tests: each gap explained by the other devices, packets and NFS calls; periodicity. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "analyze/idle_explain.h"
#include "test_blk_events.h"

#define MS 1000000ull
#define A BLK_MKDEV(8, 0)
#define B BLK_MKDEV(8, 16)

static struct blk_event on(struct blk_event e, uint32_t dev)
{
	e.dev = dev;
	return e;
}

struct fixture {
	struct blk_analysis *a;
	struct idle_explain *x;
};

static void start(struct fixture *f, unsigned top, const struct ie_clock *clk)
{
	struct blk_opts o;
	struct ie_clock none = {0};

	blk_opts_init(&o);
	o.idle_threshold_ns = 10 * MS;
	o.top = top;
	assert_int_equal(blk_analysis_new(&f->a, &o), 0);
	assert_int_equal(idle_explain_new(&f->x, top), 0);
	assert_int_equal(idle_explain_add_host(f->x, f->a, NULL, clk ? clk : &none), 0);
}

static void feed(struct fixture *f, const struct blk_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		blk_analysis_feed(f->a, &ev[i]);
	blk_analysis_finish(f->a);
	idle_explain_block_done(f->x);
}

static void stop(struct fixture *f)
{
	idle_explain_free(f->x);
	blk_analysis_free(f->a);
}

/* Device A idle 10-100 ms; B had one request in flight at the gap's start (issued at 5 ms,
 * done at 30 ms), then 35-50 and 60-120 ms, the last still in flight at the gap's end: busy
 * 20 + 15 + 40 = 75 ms of the 90, two completions, the state at both edges. */
static void test_other_devices(void **s)
{
	const struct blk_event ev[] = {
	    on(EV_D(0, 0, 8, R), A),        on(EV_D(5 * MS, 0, 8, W), B),
	    on(EV_C(10 * MS, 0, 8, R), A),  on(EV_C(30 * MS, 0, 8, W), B),
	    on(EV_D(35 * MS, 8, 16, W), B), on(EV_C(50 * MS, 8, 16, W), B),
	    on(EV_D(60 * MS, 24, 8, W), B), on(EV_D(100 * MS, 8, 8, R), A),
	    on(EV_C(101 * MS, 8, 8, R), A), on(EV_C(120 * MS, 24, 8, W), B),
	};
	struct fixture f;
	const struct ie_dev *a, *b;
	const struct ie_gap *g;

	(void)s;
	start(&f, 10, NULL);
	feed(&f, ev, sizeof(ev) / sizeof(ev[0]));
	a = idle_explain_find(f.x, 0, 0);
	b = idle_explain_find(f.x, 0, 1);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(a->ntop, 2); /* 10-100, and 101-120 (the trace's end) */
	g = a->top[0];
	assert_int_equal(g->g.start, 10 * MS);
	assert_int_equal(g->g.end, 100 * MS);
	assert_int_equal(g->oth[b->g].busy_ns, 75 * MS);
	assert_int_equal(g->oth[b->g].ios, 2);
	assert_int_equal(g->oth[b->g].bytes, 8 * 512 + 16 * 512);
	assert_int_equal(g->oth[b->g].inflight_start, 1);
	assert_int_equal(g->oth[b->g].inflight_end, 1);
	assert_int_equal(g->cause, IE_OTHER_DEV);
	g = a->top[1];
	assert_int_equal(g->g.start, 101 * MS);
	assert_int_equal(g->oth[b->g].busy_ns, 19 * MS);
	assert_int_equal(g->oth[b->g].ios, 1);
	assert_int_equal(g->oth[b->g].inflight_end, 0);
	/* totals over both gaps */
	assert_int_equal(a->tot[b->g].busy_ns, 94 * MS);
	assert_int_equal(a->tot[b->g].ios, 3);
	assert_int_equal(a->tot[b->g].gaps_busy, 2);
	assert_int_equal(a->cause_gaps[IE_OTHER_DEV], 2);
	/* B's one gap, 50-60 ms: A was idle too */
	assert_int_equal(b->ntop, 1);
	assert_int_equal(b->top[0]->oth[a->g].busy_ns, 0);
	assert_int_equal(b->top[0]->cause, IE_NO_WORK);
	stop(&f);
}

static struct pkt tcp(uint8_t src, uint16_t sport, uint8_t dst, uint16_t dport, uint32_t len)
{
	struct pkt p;

	memset(&p, 0, sizeof(p));
	p.family = 4;
	p.proto = 6;
	p.src[0] = 10;
	p.src[3] = src;
	p.dst[0] = 10;
	p.dst[3] = dst;
	p.sport = sport;
	p.dport = dport;
	p.len = p.caplen = len;
	return p;
}

static struct rpc_txn call(uint64_t c, uint64_t r)
{
	struct rpc_txn t;

	memset(&t, 0, sizeof(t));
	t.kind = RPC_KIND_NFS;
	t.call_ns = c;
	t.reply_ns = r;
	t.replied = r != 0;
	return t;
}

/* Packets (wall clock = trace + 1000 s) and NFS calls laid over one device's gaps 10-100 and
 * 110-200 ms: directions from an inferred local address, flows, calls outstanding. */
static void test_packets_and_calls(void **s)
{
	const uint64_t W = 1000000000000ull;
	const struct blk_event ev[] = {
	    EV_D(0, 0, 8, R),        EV_C(10 * MS, 0, 8, R),   EV_D(100 * MS, 8, 8, R),
	    EV_C(110 * MS, 8, 8, R), EV_D(200 * MS, 16, 8, R), EV_C(210 * MS, 16, 8, R),
	};
	struct ie_clock clk = {.have_wall = true, .wall_ns = (int64_t)W};
	struct fixture f;
	const struct ie_dev *d;
	const struct ie_gap *g1, *g2;
	struct pkt p;
	struct rpc_txn t1 = call(W + 120 * MS, W + 150 * MS), t2 = call(W + 130 * MS, W + 140 * MS);
	struct rpc_txn t3 = call(W + 190 * MS, 0);

	(void)s;
	start(&f, 10, &clk);
	feed(&f, ev, sizeof(ev) / sizeof(ev[0]));
	idle_explain_capture_begin(f.x, 0);
	assert_true(idle_explain_capture_mapped(f.x));
	p = tcp(2, 6800, 1, 40000, 1000); /* in, during the first gap */
	for (int i = 0; i < 5; i++)
		idle_explain_frame(f.x, &p, W + 20 * MS + i);
	p = tcp(1, 40001, 3, 6801, 300); /* out */
	idle_explain_frame(f.x, &p, W + 30 * MS);
	idle_explain_frame(f.x, NULL, W + 31 * MS); /* not TCP/UDP */
	p = tcp(1, 40001, 3, 6801, 300);            /* during the burst: in no gap */
	idle_explain_frame(f.x, &p, W + 105 * MS);
	idle_explain_call(f.x, &t1);
	idle_explain_call(f.x, &t2);
	idle_explain_txn(f.x, &t2);
	idle_explain_txn(f.x, &t1);
	idle_explain_call(f.x, &t3); /* never answered: outstanding to the capture's end */
	p = tcp(1, 40001, 3, 6801, 300);
	idle_explain_frame(f.x, &p, W + 195 * MS);
	idle_explain_txn(f.x, &t3);
	idle_explain_capture_end(f.x);
	d = idle_explain_find(f.x, 0, 0);
	g1 = d->timed[0];
	g2 = d->timed[1];
	assert_int_equal(g1->g.start, 10 * MS);
	assert_int_equal(g1->net[0].packets, 6);
	assert_int_equal(g1->net[0].bytes, 5300);
	assert_int_equal(g1->net[0].frames_other, 1);
	assert_int_equal(g1->net[0].flows.n, 2);
	assert_int_equal(d->net_tot[0].packets, 7);
	/* 10.0.0.1 is in every packet: the local address */
	assert_int_equal(f.x->host[0].nlocal, 1);
	assert_true(f.x->host[0].local_inferred);
	assert_int_equal(f.x->host[0].local[0][4], 1);
	/* calls: 120-150 and 130-140 ms, 190 ms to the end (195 ms: the last packet) */
	assert_int_equal(g2->nfs[0].arrivals, 3);
	assert_int_equal(g2->nfs[0].max, 2);
	assert_int_equal(g2->nfs[0].busy_ns, 30 * MS + 5 * MS);
	assert_true(g2->nfs[0].area == (double)(40 * MS + 5 * MS));
	assert_int_equal(d->nfs_tot[0].busy_ns, 35 * MS);
	assert_int_equal(g2->cause, IE_NO_WORK); /* 35 of 90 ms: less than half */
	stop(&f);
}

/* Past IE_FLOW_CAP flows in a gap, new flows count without a direction; known ones still
 * count in full. */
static void test_flow_cap(void **s)
{
	struct ie_flows t = {0};
	struct pkt p;

	(void)s;
	for (unsigned i = 0; i < IE_FLOW_CAP + 10; i++) {
		p = tcp(1, (uint16_t)(1000 + i), 2, 80, 10);
		assert_int_equal(ie_flows_add(&t, &p), 0);
	}
	assert_int_equal(t.n, IE_FLOW_CAP);
	assert_int_equal(t.over_packets, 10);
	assert_int_equal(t.over_bytes, 100);
	p = tcp(1, 1000, 2, 80, 10);
	ie_flows_add(&t, &p);
	assert_int_equal(t.over_packets, 10);
	ie_flows_free(&t);
}

/* Bursts every 500 ms (+- 1 ms) with short gaps inside them: a period at the long gaps'
 * level; the same gaps at random times: none. */
static void test_period(void **s)
{
	struct blk_event ev[400];
	struct fixture f;
	const struct ie_dev *d;
	uint64_t r = 12345;
	size_t n = 0;

	(void)s;
	start(&f, 10, NULL);
	for (unsigned b = 0; b < 12; b++) {
		uint64_t t = b * 500 * MS + (b % 3) * MS;

		for (unsigned k = 0; k < 6; k++, t += k == 3 ? 20 * MS : 2 * MS) {
			ev[n++] = EV_D(t, k * 8, 8, R);
			ev[n++] = EV_C(t + MS, k * 8, 8, R);
		}
	}
	feed(&f, ev, n);
	d = idle_explain_find(f.x, 0, 0);
	assert_true(d->per.found);
	assert_true(d->per.period_ns > 499 * MS && d->per.period_ns < 501 * MS);
	assert_int_equal(d->per.count, 10); /* 11 gaps, 10 intervals */
	assert_true(d->per.jitter_ns < 2 * MS);
	assert_true(d->top[0]->periodic);
	assert_int_equal(d->top[0]->cause, IE_PERIODIC);
	stop(&f);

	start(&f, 10, NULL);
	n = 0;
	for (uint64_t t = 0, b = 0; b < 40; b++) {
		r = r * 6364136223846793005ull + 1442695040888963407ull;
		t += 20 * MS + (r >> 33) % (900 * MS);
		ev[n++] = EV_D(t, b * 8, 8, R);
		ev[n++] = EV_C(t + MS, b * 8, 8, R);
	}
	feed(&f, ev, n);
	assert_false(idle_explain_find(f.x, 0, 0)->per.found);
	stop(&f);
}

/* The JSON: keys in every listed gap and in the totals. */
static void test_json(void **s)
{
	const struct blk_event ev[] = {
	    on(EV_D(0, 0, 8, R), A),        on(EV_C(10 * MS, 0, 8, R), A),
	    on(EV_D(20 * MS, 0, 8, W), B),  on(EV_C(90 * MS, 0, 8, W), B),
	    on(EV_D(100 * MS, 8, 8, R), A), on(EV_C(101 * MS, 8, 8, R), A),
	};
	struct fixture f;
	json_t *root = json_object(), *g, *e;

	(void)s;
	start(&f, 10, NULL);
	feed(&f, ev, sizeof(ev) / sizeof(ev[0]));
	assert_int_equal(blk_analysis_to_json(f.a, root, 0), 0);
	assert_int_equal(idle_explain_json(f.x, 0, json_object_get(root, "devices")), 0);
	g = json_array_get(
	    json_object_get(
	        json_object_get(json_array_get(json_object_get(root, "devices"), 0), "idle"),
	        "longest"),
	    0);
	e = json_object_get(g, "explain");
	assert_string_equal(json_string_value(json_object_get(e, "cause")), "other_device_busy");
	assert_non_null(strstr(json_string_value(json_object_get(e, "because")),
	                       "8,16 had IO in flight for 70.000 ms of the gap's 90.000 ms (78%)"));
	assert_int_equal(json_integer_value(json_object_get(
	                     json_array_get(json_object_get(e, "devices"), 0), "busy_ns")),
	                 70 * MS);
	assert_true(json_is_array(json_object_get(e, "network")));
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(g, "io_before"), "action")),
	    "complete");
	json_decref(root);
	stop(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_other_devices), cmocka_unit_test(test_packets_and_calls),
	    cmocka_unit_test(test_flow_cap),      cmocka_unit_test(test_period),
	    cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
