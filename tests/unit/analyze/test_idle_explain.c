/* SPDX-License-Identifier: MIT */
/* Unit tests: each gap explained by the other devices, packets and NFS calls; periodicity. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/idle_explain.h"
#include "formats/blktrace.h"
#include "formats/manifest.h"
#include "test_blk_events.h"
#include "test_idle_fixture.h"

#define MS 1000000ull
#define SEC 1000000000ull
#define A BLK_MKDEV(8, 0)
#define B BLK_MKDEV(8, 16)
#define J BLK_MKDEV(8, 32)
#define C BLK_MKDEV(8, 48)

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
	p.proto = 6;
	p.src = (struct net_endpoint){{4, {10, 0, 0, src}}, sport};
	p.dst = (struct net_endpoint){{4, {10, 0, 0, dst}}, dport};
	p.len = p.caplen = len;
	return p;
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
	struct rpc_txn t1 = nfs_call(W + 120 * MS, W + 150 * MS),
	               t2 = nfs_call(W + 130 * MS, W + 140 * MS);
	struct rpc_txn t3 = nfs_call(W + 190 * MS, 0);

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
	assert_int_equal(f.x->host[0].local[0].family, 4);
	assert_int_equal(f.x->host[0].local[0].bytes[3], 1);
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

static struct blk_event by(struct blk_event e, uint32_t pid)
{
	e.pid = pid;
	return e;
}

/* A manifest: A is osd.0's data, J its journal, B osd.1's data; C was discovered as nothing. */
static const char groups_manifest[] =
    "{\"format\": \"iotape-run\", \"format_version\": 1, \"devices\": ["
    "{\"name\": \"sda\", \"major\": 8, \"minor\": 0, \"key\": \"osd.0 data\", "
    "\"role\": \"osd.0 data\", \"group\": \"osd.0\"},"
    "{\"name\": \"sdb\", \"major\": 8, \"minor\": 16, \"key\": \"osd.1 data\", "
    "\"role\": \"osd.1 data\", \"group\": \"osd.1\"},"
    "{\"name\": \"sdc\", \"major\": 8, \"minor\": 32, \"key\": \"osd.0 journal\", "
    "\"role\": \"osd.0 journal\", \"group\": \"osd.0\"},"
    "{\"name\": \"sdd\", \"major\": 8, \"minor\": 48, \"key\": \"sdd\"}],"
    "\"threads\": [{\"pid\": 300, \"tgid\": 299, \"process\": \"ceph-osd\"}]}";

/* The rules look at the gap's own group first: osd.1's data disk, busy all through osd.0's
 * data disk's gap, ranks last (other_group_busy), below its own journal (busy 56 % of it);
 * with the journal idle, nothing was offered; a device of no known group is the old
 * other_device_busy. (The gaps end at irregular times: no period.) Every cause is listed, in rank
 * order, each with its sentence. */
static void test_groups(void **s)
{
	const struct blk_event ev[] = {
	    on(EV_D(0, 0, 8, W), A),         on(EV_C(10 * MS, 0, 8, W), A),
	    on(EV_D(10 * MS, 0, 8, W), B),   on(EV_D(30 * MS, 0, 8, W), J),
	    on(EV_C(80 * MS, 0, 8, W), J),   on(EV_C(100 * MS, 0, 8, W), B),
	    on(EV_D(100 * MS, 8, 8, W), A),  on(EV_C(110 * MS, 8, 8, W), A),
	    on(EV_D(110 * MS, 8, 8, W), B),  on(EV_C(200 * MS, 8, 8, W), B),
	    on(EV_D(200 * MS, 16, 8, W), A), on(EV_C(210 * MS, 16, 8, W), A),
	    on(EV_D(210 * MS, 16, 8, W), C), on(EV_C(330 * MS, 16, 8, W), C),
	    on(EV_D(330 * MS, 24, 8, W), A), on(EV_C(331 * MS, 24, 8, W), A),
	};
	struct manifest m;
	struct iot_err e;
	struct fixture f;
	const struct ie_dev *a;
	json_t *root = json_object(), *gaps, *x, *r;

	(void)s;
	assert_int_equal(manifest_parse(groups_manifest, sizeof(groups_manifest) - 1, &m, &e), 0);
	start(&f, 10, NULL);
	idle_explain_set_manifest(f.x, 0, &m);
	feed(&f, ev, sizeof(ev) / sizeof(ev[0]));
	a = idle_explain_find(f.x, 0, 0);
	assert_string_equal(a->group, "osd.0");
	assert_int_equal(a->ntop, 3);
	assert_int_equal(a->timed[0]->cause, IE_GROUP_DEV);
	assert_int_equal(a->timed[0]->causes, 1u << IE_GROUP_DEV | 1u << IE_OTHER_GROUP);
	assert_int_equal(a->timed[1]->cause, IE_NO_WORK);
	assert_int_equal(a->timed[1]->causes, 1u << IE_NO_WORK | 1u << IE_OTHER_GROUP);
	assert_int_equal(a->timed[2]->cause, IE_OTHER_DEV);
	assert_int_equal(blk_analysis_to_json(f.a, root, 0), 0);
	assert_int_equal(idle_explain_json(f.x, 0, json_object_get(root, "devices")), 0);
	gaps = json_object_get(
	    json_object_get(json_array_get(json_object_get(root, "devices"), 0), "idle"),
	    "longest");
	for (size_t i = 0; i < json_array_size(gaps); i++) {
		x = json_object_get(json_array_get(gaps, i), "explain");
		if (json_integer_value(json_object_get(json_array_get(gaps, i), "start_ns")) !=
		    (json_int_t)(10 * MS))
			continue;
		assert_string_equal(json_string_value(json_object_get(x, "cause")),
		                    "own_group_busy");
		r = json_object_get(x, "reasons");
		assert_int_equal(json_array_size(r), 2);
		assert_string_equal(
		    json_string_value(json_object_get(json_array_get(r, 1), "cause")),
		    "other_group_busy");
		assert_non_null(
		    strstr(json_string_value(json_object_get(json_array_get(r, 0), "because")),
		           "osd.0 journal (8,32), of its own group osd.0, had IO in flight for "
		           "50.000 ms"));
		assert_non_null(
		    strstr(json_string_value(json_object_get(json_array_get(r, 1), "because")),
		           "osd.1 data (8,16), of group osd.1, had IO in flight for 90.000 ms"));
		assert_string_equal(json_string_value(json_object_get(
		                        json_array_get(json_object_get(x, "devices"), 0), "group")),
		                    "osd.1");
	}
	json_decref(root);
	stop(&f);
	manifest_release(&m);
}

/* A sync thread ends the data disk's gaps every 5 s; writeback ends others between them, so
 * the series of all gaps is broken, and too short anyway (20 s). The gaps the sync thread
 * ended make a series of their own: four ends, three intervals; the first three alone (two
 * intervals) too. The listed ones are periodic, and the command's process is known. */
static void test_period_command(void **s)
{
	struct bt_comm_table *comms = bt_comm_table_new();
	struct blk_event ev[64];
	struct manifest m;
	struct iot_err e;
	struct fixture f;
	const struct ie_dev *d;
	const struct ie_cmd *c;
	static const uint64_t wb[] = {1900, 7300, 11100, 16800, 18200}; /* ms: writeback */
	unsigned nsync;

	(void)s;
	assert_int_equal(manifest_parse(groups_manifest, sizeof(groups_manifest) - 1, &m, &e), 0);
	bt_comm_table_set(comms, 300, "filestore_sync", 14);
	bt_comm_table_set(comms, 400, "kworker/u4:2", 12);
	for (nsync = 3; nsync <= 4; nsync++) {
		size_t n = 0, w = 0;

		start(&f, 10, NULL);
		idle_explain_set_manifest(f.x, 0, &m);
		idle_explain_set_comms(f.x, 0, comms);
		ev[n++] = by(EV_D(0, 0, 8, W), 400);
		ev[n++] = EV_C(10 * MS, 0, 8, W);
		for (unsigned k = 1; k <= nsync; k++) {
			uint64_t t = k * 5 * SEC + (k % 2) * 3 * MS; /* +- 3 ms */

			while (w < 5 && wb[w] * MS < t) {
				ev[n++] = by(EV_D(wb[w] * MS, 100, 8, W), 400);
				ev[n++] = EV_C(wb[w] * MS + 40 * MS, 100, 8, W);
				w++;
			}
			ev[n++] = by(EV_D(t, 8 * k, 8, W), 300);
			ev[n++] = EV_C(t + 100 * MS, 8 * k, 8, W);
		}
		feed(&f, ev, n);
		d = idle_explain_find(f.x, 0, 0);
		assert_false(d->per.found);
		c = &d->cmds[0];
		assert_string_equal(c->comm, "filestore_sync");
		assert_string_equal(c->process, "ceph-osd");
		assert_int_equal(c->ended, nsync);
		assert_true(c->per.found);
		assert_int_equal(c->per.count, nsync - 1);
		assert_true(c->per.period_ns > 4990 * MS && c->per.period_ns < 5010 * MS);
		assert_int_equal(d->cmds[1].ended, w);
		assert_false(d->cmds[1].per.found);
		for (unsigned i = 0; i < d->ntop; i++) {
			const struct ie_gap *g = d->top[i];

			assert_int_equal(g->periodic, g->g.pid == 300);
			if (g->g.pid == 300)
				assert_int_equal(g->cause, IE_PERIODIC);
		}
		stop(&f);
	}
	bt_comm_table_free(comms);
	manifest_release(&m);
}

/* Random ends (exponential intervals) of one command: how often a short series passes as
 * periodic. Measured here, and held to what docs/diagnose-idle.md says: two intervals about
 * 5 % of the time, three about 1 %. */
static void test_period_command_random(void **s)
{
	struct idle_explain x;
	struct ie_host host;
	struct ie_dev d;
	struct ie_span sp[8];
	uint64_t r = 0x9e3779b97f4a7c15ull;
	unsigned found[2] = {0, 0}, trials = 4000;

	(void)s;
	for (unsigned ni = 2; ni <= 3; ni++) {
		for (unsigned t = 0; t < trials; t++) {
			uint64_t now = 0;

			memset(&x, 0, sizeof(x));
			memset(&host, 0, sizeof(host));
			memset(&d, 0, sizeof(d));
			x.nhosts = x.cap_hosts = 1;
			x.host = &host;
			x.host[0].x = &x;
			for (unsigned k = 0; k <= ni; k++) {
				double u;

				r = r * 6364136223846793005ull + 1442695040888963407ull;
				u = ((double)(r >> 11) + 0.5) / 9007199254740992.0;
				now += (uint64_t)(-log(u) * 1e9) + 20 * MS;
				sp[k] = (struct ie_span){
				    .cs = now - 15 * MS, .ce = now, .end_pid = 7, .by_issue = true};
			}
			d.all = sp;
			d.nall = ni + 1;
			assert_int_equal(ie_cmds_build(&x, &d, 10 * MS), 0);
			found[ni - 2] += d.cmds[0].per.found;
			ie_cmds_free(&d);
		}
	}
	printf("random series found periodic: %u of %u with 2 intervals, %u with 3\n", found[0],
	       trials, found[1]);
	assert_true(found[0] < trials * 7 / 100);
	assert_true(found[1] < trials * 2 / 100);
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

/*
 * More hosts than the explainer once held (16), as a run set may (256): 20 hosts, host h's
 * trace clock h x 10 ms ahead of the first's (its manifest's clock pairs). A on the first host
 * is idle 10-100 ms; on each other host h, its one device has one request in flight for h ms
 * from 20 ms (common clock). The gap sees each of them, on the common clock. The hosts' state
 * grows with the hosts, not with the events: the table holds at most twice the hosts.
 */
#define MANY_HOSTS 20u
static void feed1(struct blk_analysis *a, struct blk_event e)
{
	blk_analysis_feed(a, &e);
}

static void test_many_hosts(void **s)
{
	struct manifest man[MANY_HOSTS];
	struct blk_analysis *a[MANY_HOSTS];
	struct idle_explain *x;
	struct blk_opts o;
	struct iot_err e;
	const struct ie_dev *da;
	const struct ie_gap *g;

	(void)s;
	blk_opts_init(&o);
	o.idle_threshold_ns = 5 * MS;
	assert_int_equal(idle_explain_new(&x, 4), 0);
	for (unsigned h = 0; h < MANY_HOSTS; h++) {
		char buf[512], name[16];
		uint64_t t0 = h * 10 * MS + 1000;
		int n = snprintf(buf, sizeof(buf),
		                 "{\"format\": \"iotape-run\", \"format_version\": 1, \"clock\": {"
		                 "\"start\": {\"realtime_ns\": 5000000000, \"trace_ns\": %llu},"
		                 "\"end\": {\"realtime_ns\": 6000000000, \"trace_ns\": %llu}}}",
		                 (unsigned long long)t0, (unsigned long long)(t0 + SEC));
		struct ie_clock clk = {.m = &man[h]};

		assert_int_equal(manifest_parse(buf, (size_t)n, &man[h], &e), 0);
		assert_int_equal(blk_analysis_new(&a[h], &o), 0);
		snprintf(name, sizeof(name), "h%u", h);
		assert_int_equal(idle_explain_add_host(x, a[h], name, &clk), (int)h);
	}
	assert_true(x->cap_hosts >= MANY_HOSTS && x->cap_hosts <= 2 * MANY_HOSTS);
	/* in the order of the common clock: host h's trace time is common + h x 10 ms */
	feed1(a[0], on(EV_D(0, 0, 8, R), A));
	feed1(a[0], on(EV_C(10 * MS, 0, 8, R), A));
	for (unsigned h = 1; h < MANY_HOSTS; h++)
		feed1(a[h], on(EV_D(20 * MS + h * 10 * MS, 0, 8, W), A));
	for (unsigned h = 1; h < MANY_HOSTS; h++)
		feed1(a[h], on(EV_C(20 * MS + h * MS + h * 10 * MS, 0, 8, W), A));
	feed1(a[0], on(EV_D(100 * MS, 8, 8, R), A));
	feed1(a[0], on(EV_C(101 * MS, 8, 8, R), A));
	for (unsigned h = 0; h < MANY_HOSTS; h++)
		blk_analysis_finish(a[h]);
	idle_explain_block_done(x);
	assert_int_equal(idle_explain_hosts(x), MANY_HOSTS);
	assert_string_equal(idle_explain_host_name(x, MANY_HOSTS - 1), "h19");
	da = idle_explain_find(x, 0, 0);
	assert_non_null(da);
	assert_true(da->ntop >= 1);
	g = da->top[0];
	assert_int_equal(g->g.start, 10 * MS);
	assert_int_equal(g->g.end, 100 * MS);
	assert_int_equal(g->n_oth, MANY_HOSTS);
	for (unsigned h = 1; h < MANY_HOSTS; h++) {
		const struct ie_dev *d = idle_explain_find(x, h, 0);

		assert_non_null(d);
		assert_int_equal(d->host, h);
		assert_int_equal(g->oth[d->g].busy_ns, h * MS);
		assert_int_equal(g->oth[d->g].ios, 1);
		assert_int_equal(g->oth[d->g].inflight_start, 0);
	}
	idle_explain_free(x);
	for (unsigned h = 0; h < MANY_HOSTS; h++) {
		blk_analysis_free(a[h]);
		manifest_release(&man[h]);
	}
}

/*
 * More devices than the explainer once compared (64 over all hosts), as a run set of many
 * hosts has: 100 hosts of two devices each, on one clock. Every device is busy 0-5 ms (B) or
 * 0-10 ms (A); on the last host, B has one request in flight 20-90 ms while its A is idle
 * 10-100 ms: that gap, on the 199th and 200th devices, is explained by B (70 of its 90 ms), and
 * the first host's A sees all 199 others. The device table grows with the devices, not with the
 * events: it holds at most twice the devices.
 */
#define WIDE_HOSTS 100u
static void test_many_devices(void **s)
{
	struct manifest *man = calloc(WIDE_HOSTS, sizeof(*man));
	struct blk_analysis **a = calloc(WIDE_HOSTS, sizeof(*a));
	const unsigned last = WIDE_HOSTS - 1;
	const struct ie_dev *da, *db;
	struct idle_explain *x;
	struct blk_opts o;
	struct iot_err e;
	const struct ie_gap *g;

	(void)s;
	assert_non_null(man);
	assert_non_null(a);
	blk_opts_init(&o);
	o.idle_threshold_ns = 5 * MS;
	assert_int_equal(idle_explain_new(&x, 4), 0);
	for (unsigned h = 0; h < WIDE_HOSTS; h++) {
		static const char js[] =
		    "{\"format\": \"iotape-run\", \"format_version\": 1, \"clock\": {"
		    "\"start\": {\"realtime_ns\": 5000000000, \"trace_ns\": 1000},"
		    "\"end\": {\"realtime_ns\": 6000000000, \"trace_ns\": 1000001000}}}";
		struct ie_clock clk = {.m = &man[h]};
		char name[16];

		assert_int_equal(manifest_parse(js, sizeof(js) - 1, &man[h], &e), 0);
		assert_int_equal(blk_analysis_new(&a[h], &o), 0);
		snprintf(name, sizeof(name), "h%u", h);
		assert_int_equal(idle_explain_add_host(x, a[h], name, &clk), (int)h);
	}
	/* in the order of the common clock (every host's trace clock is the first's) */
	for (unsigned h = 0; h < WIDE_HOSTS; h++) {
		feed1(a[h], on(EV_D(0, 0, 8, R), A));
		feed1(a[h], on(EV_D(0, 0, 8, W), B));
	}
	for (unsigned h = 0; h < WIDE_HOSTS; h++)
		feed1(a[h], on(EV_C(5 * MS, 0, 8, W), B));
	for (unsigned h = 0; h < WIDE_HOSTS; h++)
		feed1(a[h], on(EV_C(10 * MS, 0, 8, R), A));
	feed1(a[last], on(EV_D(20 * MS, 8, 8, W), B));
	feed1(a[last], on(EV_C(90 * MS, 8, 8, W), B));
	for (unsigned h = 0; h < WIDE_HOSTS; h++)
		feed1(a[h], on(EV_D(100 * MS, 8, 8, R), A));
	for (unsigned h = 0; h < WIDE_HOSTS; h++)
		feed1(a[h], on(EV_C(101 * MS, 8, 8, R), A));
	for (unsigned h = 0; h < WIDE_HOSTS; h++)
		blk_analysis_finish(a[h]);
	idle_explain_block_done(x);
	assert_int_equal(idle_explain_ndevs(x), 2 * WIDE_HOSTS);
	assert_true(x->cap_devs >= 2 * WIDE_HOSTS && x->cap_devs <= 4 * WIDE_HOSTS);
	da = idle_explain_find(x, last, 0);
	db = idle_explain_find(x, last, 1);
	assert_non_null(da);
	assert_non_null(db);
	assert_true(da->g >= 64 && db->g >= 64);
	assert_true(da->ntop >= 1);
	g = da->top[0];
	assert_int_equal(g->g.start, 10 * MS);
	assert_int_equal(g->g.end, 100 * MS);
	assert_int_equal(g->n_oth, 2 * WIDE_HOSTS);
	assert_int_equal(g->oth[db->g].busy_ns, 70 * MS);
	assert_int_equal(g->oth[db->g].ios, 1);
	assert_int_equal(g->cause, IE_OTHER_DEV);
	assert_int_equal(da->tot[db->g].busy_ns, 70 * MS);
	/* the first host's A, idle as long, sees the last host's B among 199 others */
	da = idle_explain_find(x, 0, 0);
	assert_non_null(da);
	assert_true(da->ntop >= 1);
	assert_int_equal(da->top[0]->n_oth, 2 * WIDE_HOSTS);
	assert_int_equal(da->top[0]->oth[db->g].busy_ns, 70 * MS);
	for (unsigned k = 0; k < 2 * WIDE_HOSTS; k++)
		if (k != db->g && k != da->g)
			assert_int_equal(da->top[0]->oth[k].busy_ns, 0);
	idle_explain_free(x);
	for (unsigned h = 0; h < WIDE_HOSTS; h++) {
		blk_analysis_free(a[h]);
		manifest_release(&man[h]);
	}
	free(a);
	free(man);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_other_devices),  cmocka_unit_test(test_packets_and_calls),
	    cmocka_unit_test(test_flow_cap),       cmocka_unit_test(test_period),
	    cmocka_unit_test(test_json),           cmocka_unit_test(test_groups),
	    cmocka_unit_test(test_period_command), cmocka_unit_test(test_period_command_random),
	    cmocka_unit_test(test_many_hosts),     cmocka_unit_test(test_many_devices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
