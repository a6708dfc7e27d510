/* SPDX-License-Identifier: MIT */
/* Unit tests: a device's gaps explained in total as figures (idle_explain_totals()). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze/idle_explain.h"
#include "formats/blktrace.h"
#include "test_blk_events.h"
#include "test_idle_fixture.h"

#define MS 1000000ull
#define A BLK_MKDEV(8, 0)
#define B BLK_MKDEV(8, 16)
/* a percentage or a mean, to double precision */
#define assert_near(a, b) assert_true(fabs((a) - (b)) < 1e-9)

/* A idle 10-100 and 101-120 ms (109 ms); B busy 75 + 19 ms of them, 3 IOs, in both gaps. B's
 * one gap, 50-60 ms, while A was idle too. No capture: no NFS figures. */
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
	struct ie_totals t;
	const struct ie_dev *da, *db;

	(void)s;
	start(&f, 10, NULL);
	feed(&f, ev, sizeof(ev) / sizeof(ev[0]));
	da = idle_explain_find(f.x, 0, 0);
	db = idle_explain_find(f.x, 0, 1);
	assert_non_null(da);
	assert_non_null(db);
	assert_int_equal(idle_explain_totals(f.x, da, &t), 0);
	assert_int_equal(t.gaps_ns, 109 * MS);
	assert_int_equal(t.ndevs, 1);
	assert_ptr_equal(t.devs[0].dev, db);
	assert_int_equal(t.devs[0].busy_ns, 94 * MS);
	assert_near(t.devs[0].busy_pct, 100.0 * 94 / 109);
	assert_int_equal(t.devs[0].ios, 3);
	assert_int_equal(t.devs[0].bytes, (8 + 16 + 8) * 512);
	assert_int_equal(t.devs[0].gaps_busy, 2);
	assert_int_equal(t.nnfs, 0);
	idle_totals_release(&t);
	assert_int_equal(idle_explain_totals(f.x, db, &t), 0);
	assert_int_equal(t.gaps_ns, 10 * MS);
	assert_int_equal(t.ndevs, 1);
	assert_ptr_equal(t.devs[0].dev, da);
	assert_int_equal(t.devs[0].busy_ns, 0);
	assert_near(t.devs[0].busy_pct, 0.0);
	assert_int_equal(t.devs[0].gaps_busy, 0);
	idle_totals_release(&t);
	stop(&f);
}

/* One device idle 10-100 and 110-200 ms (180 ms); a 300-byte packet in each gap; NFS calls 120-150
 * and 130-140 ms, and one from 190 ms never answered (outstanding to the capture's last frame, 195
 * ms): 35 ms with a call outstanding, 45 ms x calls, at most 2, 3 arrivals. */
static void test_nfs(void **s)
{
	const uint64_t W = 1000000000000ull;
	const struct blk_event ev[] = {
	    EV_D(0, 0, 8, R),        EV_C(10 * MS, 0, 8, R),   EV_D(100 * MS, 8, 8, R),
	    EV_C(110 * MS, 8, 8, R), EV_D(200 * MS, 16, 8, R), EV_C(210 * MS, 16, 8, R),
	};
	struct ie_clock clk = {.have_wall = true, .wall_ns = (int64_t)W};
	struct rpc_txn t1 = nfs_call(W + 120 * MS, W + 150 * MS),
	               t2 = nfs_call(W + 130 * MS, W + 140 * MS);
	struct rpc_txn t3 = nfs_call(W + 190 * MS, 0);
	struct fixture f;
	struct ie_totals t;
	struct pkt p;

	(void)s;
	start(&f, 10, &clk);
	feed(&f, ev, sizeof(ev) / sizeof(ev[0]));
	idle_explain_capture_begin(f.x, 0);
	assert_true(idle_explain_capture_mapped(f.x));
	memset(&p, 0, sizeof(p));
	p.proto = 6;
	p.src = (struct net_endpoint){{4, {10, 0, 0, 1}}, 40001};
	p.dst = (struct net_endpoint){{4, {10, 0, 0, 3}}, 2049};
	p.len = p.caplen = 300;
	idle_explain_frame(f.x, &p, W + 20 * MS);
	idle_explain_call(f.x, &t1);
	idle_explain_call(f.x, &t2);
	idle_explain_txn(f.x, &t2);
	idle_explain_txn(f.x, &t1);
	idle_explain_call(f.x, &t3);
	idle_explain_frame(f.x, &p, W + 195 * MS);
	idle_explain_txn(f.x, &t3);
	idle_explain_capture_end(f.x);
	assert_int_equal(idle_explain_totals(f.x, idle_explain_find(f.x, 0, 0), &t), 0);
	assert_int_equal(t.gaps_ns, 180 * MS);
	assert_int_equal(t.ndevs, 0);
	assert_int_equal(t.nnfs, 1);
	assert_int_equal(t.nfs[0].host, 0);
	assert_int_equal(t.nfs[0].busy_ns, 35 * MS);
	assert_near(t.nfs[0].busy_pct, 100.0 * 35 / 180);
	assert_near(t.nfs[0].outstanding_mean, 45.0 / 180);
	assert_int_equal(t.nfs[0].max, 2);
	assert_int_equal(t.nfs[0].arrivals, 3);
	/* the network: one flow, a packet in each gap */
	assert_int_equal(t.net[0].host, 0);
	assert_true(t.net[0].mapped);
	assert_int_equal(t.net[0].packets, 2);
	assert_int_equal(t.net[0].bytes, 600);
	assert_near(t.net[0].mb_per_s, 600 * 1e3 / (180 * MS));
	assert_int_equal(t.net[0].dir_packets[IE_DIR_IN] + t.net[0].dir_packets[IE_DIR_OUT] +
	                     t.net[0].dir_packets[IE_DIR_LOCAL] +
	                     t.net[0].dir_packets[IE_DIR_OTHER] +
	                     t.net[0].dir_packets[IE_DIR_UNKNOWN],
	                 2);
	assert_int_equal(t.net[0].nflows, 1);
	assert_int_equal(t.net[0].flows[0]->bytes, 600);
	assert_int_equal(t.net[0].flows[0]->dst.port, 2049);
	idle_totals_release(&t);
	stop(&f);
}

/* Pids 1-18 (commands c01-c18) each issue one IO of 1 ms, pid k (k > 1) after a gap of
 * 20 * len(k) ms, len a permutation of 2-18 (so the order of the commands that began the gaps
 * is not that of those that ended them): 17 gaps, 3.4 s, ended by c02-c18 and begun by
 * c01-c17. Listed: the 16 that idled longest, the last one's summed as "(others)"; 10 gaps
 * listed (--top 10), no other cause. */
static unsigned len(unsigned k)
{
	return k * 7 % 17 + 2;
}

/* The pid whose gap was of length l (2-18). */
static unsigned of_len(unsigned l)
{
	for (unsigned k = 2; k <= 18; k++)
		if (len(k) == l)
			return k;
	fail();
	return 0;
}

static void test_commands(void **s)
{
	struct bt_comm_table *comms = bt_comm_table_new();
	struct blk_event ev[36];
	struct fixture f;
	struct ie_totals t;
	uint64_t at = 0;
	size_t n = 0;

	(void)s;
	assert_non_null(comms);
	for (uint32_t k = 1; k <= 18; k++) {
		char name[16];

		snprintf(name, sizeof(name), "c%02u", k);
		assert_int_equal(bt_comm_table_set(comms, k, name, strlen(name)), 0);
		if (k > 1)
			at += 20 * len(k) * MS;
		ev[n] = EV_D(at, 8 * k, 8, W);
		ev[n++].pid = k;
		at += MS;
		ev[n++] = EV_C(at, 8 * k, 8, W);
	}
	start(&f, 10, NULL);
	idle_explain_set_comms(f.x, 0, comms);
	feed(&f, ev, n);
	assert_int_equal(idle_explain_totals(f.x, idle_explain_find(f.x, 0, 0), &t), 0);
	assert_int_equal(t.gaps_ns, 3400 * MS);
	assert_int_equal(t.nended, IE_CMDS + 1);
	assert_int_equal(t.nbegan, IE_CMDS + 1);
	for (unsigned i = 0; i < IE_CMDS; i++) {
		char want[16];

		/* ended: the pid after the 360 ms gap first; began: the one before it */
		snprintf(want, sizeof(want), "c%02u", of_len(18 - i));
		assert_string_equal(t.ended[i].comm, want);
		assert_null(t.ended[i].process);
		assert_int_equal(t.ended[i].gaps, 1);
		assert_int_equal(t.ended[i].total_ns, 20 * (18 - i) * MS);
		assert_near(t.ended[i].pct, 100.0 * 20 * (18 - i) / 3400);
		assert_non_null(t.ended[i].per);
		assert_int_equal(t.ended[i].commands, 0);
		snprintf(want, sizeof(want), "c%02u", of_len(18 - i) - 1);
		assert_string_equal(t.began[i].comm, want);
		assert_int_equal(t.began[i].total_ns, 20 * (18 - i) * MS);
		assert_null(t.began[i].per);
	}
	/* the rest: the 40 ms gap, ended by c17 and begun by c16 */
	assert_int_equal(of_len(2), 17);
	assert_string_equal(t.ended[IE_CMDS].comm, "(others)");
	assert_int_equal(t.ended[IE_CMDS].commands, 1);
	assert_int_equal(t.ended[IE_CMDS].gaps, 1);
	assert_int_equal(t.ended[IE_CMDS].total_ns, 40 * MS);
	assert_near(t.ended[IE_CMDS].pct, 100.0 * 40 / 3400);
	assert_string_equal(t.began[IE_CMDS].comm, "(others)");
	assert_int_equal(t.began[IE_CMDS].commands, 1);
	assert_int_equal(t.began[IE_CMDS].total_ns, 40 * MS);
	assert_int_equal(t.cause_gaps[IE_NO_WORK], 10);
	assert_false(t.per->found);
	idle_totals_release(&t);
	stop(&f);
	bt_comm_table_free(comms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_other_devices),
	    cmocka_unit_test(test_nfs),
	    cmocka_unit_test(test_commands),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
