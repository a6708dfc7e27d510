/* SPDX-License-Identifier: MIT */
/* Tests for report/report_nfs.c: NFS per-interval bins (ops by kind, outstanding, SRT). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/report_nfs.h"
#include "formats/manifest.h"
#include "formats/pcap_src.h"

#define MS 1000000ull

static void txn(struct rpt_nfs *n, uint32_t vers, uint32_t proc, uint64_t call, uint64_t reply,
                uint32_t status)
{
	struct rpc_txn t;

	memset(&t, 0, sizeof(t));
	t.kind = RPC_KIND_NFS;
	t.vers = vers;
	t.proc = vers == 4 ? 1 : proc;
	t.call.op = vers == 4 ? proc : 0;
	t.call_ns = call;
	t.reply_ns = reply;
	t.replied = reply != 0;
	t.rep.decoded = t.rep.has_status = true; /* as the decoders set them */
	t.rep.status = status;
	rpt_nfs_txn(n, &t);
}

static void test_bins(void **state)
{
	struct rpt_nfs n;
	struct rpc_txn other;
	uint64_t ops[RPT_NFS_SLOTS] = {0}, replies = 0, errors = 0, srt = 0;
	double busy = 0;

	(void)state;
	assert_int_equal(rpt_nfs_init(&n, 0), 0);
	txn(&n, 3, 6, 10 * MS, 12 * MS, 0);  /* READ, 2 ms */
	txn(&n, 3, 7, 11 * MS, 15 * MS, 0);  /* WRITE, 4 ms */
	txn(&n, 3, 6, 20 * MS, 21 * MS, 13); /* READ, an error (NFS3ERR_ACCES) */
	txn(&n, 4, 25, 30 * MS, 33 * MS, 0); /* NFSv4 READ (op 25), 3 ms */
	txn(&n, 3, 1, 40 * MS, 0, 0);        /* GETATTR never answered */
	memset(&other, 0, sizeof(other));
	other.kind = RPC_KIND_MOUNT;
	rpt_nfs_txn(&n, &other);
	assert_int_equal(n.txns, 5);
	assert_int_equal(n.replied, 4);
	assert_int_equal(n.ignored, 1);
	assert_int_equal(n.nslots, 4);
	assert_string_equal(n.slot[0], "v3 READ");
	assert_string_equal(n.slot[1], "v3 WRITE");
	assert_string_equal(n.slot[2], "v4 READ");
	assert_string_equal(n.slot[3], "v3 GETATTR");
	assert_int_equal(rpt_nfs_span(&n), 30 * MS);
	/* 30 ms in 2048 bins from 1 us: 16 us wide */
	assert_int_equal(n.clock.width, 16000);
	for (unsigned b = 0; b < RPT_MAX_BINS; b++) {
		for (unsigned s = 0; s < RPT_NFS_SLOTS; s++)
			ops[s] += n.bin[b].ops[s];
		replies += n.bin[b].replies;
		errors += n.bin[b].errors;
		busy += n.bin[b].busy;
		srt += n.bin[b].srt.count;
	}
	assert_int_equal(ops[0], 2);
	assert_int_equal(ops[1], 1);
	assert_int_equal(ops[2], 1);
	assert_int_equal(ops[3], 1);
	assert_int_equal(replies, 4);
	assert_int_equal(errors, 1);
	assert_int_equal(srt, 4);
	/* outstanding time: 2 + 4 + 1 + 3 ms (the unanswered call has none) */
	assert_true(fabs(busy - 10.0 * MS) < 1);
	/* the first READ was called in the first bin */
	assert_int_equal(n.bin[0].ops[0], 1);
	rpt_nfs_release(&n);
}

/* Clock pairs: trace clock = real clock - real0 + 5 s. */
static void clock_pairs(struct manifest *m, uint64_t real0)
{
	memset(m, 0, sizeof(*m));
	m->have_clock = 1;
	m->start_real_ns = (int64_t)real0;
	m->start_trace_ns = 5000 * (int64_t)MS;
	m->end_real_ns = (int64_t)(real0 + 100000 * MS);
	m->end_trace_ns = 105000 * (int64_t)MS;
}

static void test_align(void **state)
{
	struct rpt_nfs n;
	struct manifest m;
	const uint64_t real0 = 1700000000000000000ull;

	(void)state;
	/* trace clock = real clock - real0 + 5 s; the block run started at trace time 6 s */
	clock_pairs(&m, real0);
	assert_int_equal(rpt_nfs_init(&n, 1 * MS), 0);
	rpt_nfs_align(&n, &m, 6000 * MS);
	txn(&n, 3, 6, real0 + 1500 * MS, real0 + 1502 * MS, 0); /* trace 6.5 s: 500 ms in */
	txn(&n, 3, 6, real0 + 500 * MS, real0 + 502 * MS, 0);   /* before the block run: clamped */
	assert_true(n.aligned);
	assert_int_equal(n.bin[500].ops[0], 1);
	assert_int_equal(n.bin[0].ops[0], 1);
	assert_int_equal(n.clamped, 1);
	/* the clock mapping works in doubles: within a microsecond at 1.7e18 ns */
	assert_true(llabs((long long)rpt_nfs_span(&n) - (long long)(502 * MS)) < 1000);
	rpt_nfs_release(&n);
}

static void frame(struct rpt_nfs *n, uint64_t ts, uint32_t len)
{
	struct pkt p;

	memset(&p, 0, sizeof(p));
	p.src.addr.family = p.dst.addr.family = 4;
	p.proto = 6;
	p.ts_ns = ts;
	p.len = p.caplen = len;
	rpt_nfs_frame(n, &p, ts);
}

/* Every frame's payload in the network series, on the block run's axis, only when aligned. */
static void test_frames(void **state)
{
	struct rpt_nfs n;
	struct manifest m;
	const uint64_t real0 = 1700000000000000000ull;
	uint64_t bytes = 0;

	(void)state;
	clock_pairs(&m, real0);
	/* not aligned: the series would start at the first NFS call, so frames are left out */
	assert_int_equal(rpt_nfs_init(&n, 1 * MS), 0);
	frame(&n, real0 + 1500 * MS, 1000);
	assert_false(n.clock.started);
	assert_int_equal(n.net_packets, 0);
	rpt_nfs_release(&n);
	/* aligned: block run from trace 6 s, so real0 + 1.5 s is 500 ms in */
	assert_int_equal(rpt_nfs_init(&n, 1 * MS), 0);
	rpt_nfs_align(&n, &m, 6000 * MS);
	frame(&n, real0 + 1500 * MS, 1000);
	frame(&n, real0 + 1500 * MS + MS / 2, 500);
	frame(&n, real0 + 500 * MS, 7000);          /* before the block run: not on its axis */
	rpt_nfs_frame(&n, NULL, real0 + 1500 * MS); /* not TCP or UDP: no payload to count */
	assert_int_equal(n.net_packets, 2);
	assert_int_equal(n.bin[500].net_bytes, 1500);
	assert_int_equal(n.bin[500].net_packets, 2);
	/* the frames do not stretch the NFS graphs' span (no call yet) */
	assert_int_equal(rpt_nfs_span(&n), 0);
	/* a frame far on widens the bins: the sums merge, nothing is lost */
	frame(&n, real0 + 9000 * MS, 10);
	assert_true(n.clock.width > 1 * MS);
	for (unsigned b = 0; b < RPT_MAX_BINS; b++)
		bytes += n.bin[b].net_bytes;
	assert_int_equal(bytes, 1510);
	rpt_nfs_release(&n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bins),
	    cmocka_unit_test(test_align),
	    cmocka_unit_test(test_frames),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
