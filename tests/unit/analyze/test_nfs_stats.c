/* SPDX-License-Identifier: MIT */
/* NFS statistics sink: rows, errors by status, clients, file handles, timeline, copy, JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "analyze/nfs_stats.h"

static struct rpc_txn txn(uint32_t vers, uint32_t proc, uint64_t call, uint64_t reply)
{
	struct rpc_txn t;

	memset(&t, 0, sizeof(t));
	t.kind = RPC_KIND_NFS;
	t.prog = 100003;
	t.vers = vers;
	t.proc = proc;
	t.client.addr = (struct net_addr){4, {192, 168, 0, 7}};
	t.server.addr.family = 4;
	t.call_ns = call;
	t.reply_ns = reply;
	t.replied = reply != 0;
	t.call.op = proc;
	t.call.fh_len = 4;
	memcpy(t.call.fh, "\xde\xad\xbe\xef", 4);
	t.call.decoded = t.rep.decoded = t.rep.has_status = true;
	return t;
}

static void test_rows_and_errors(void **state)
{
	struct nfs_stats s;
	struct rpc_txn t;
	unsigned i;

	(void)state;
	nfs_stats_init(&s, NULL);
	for (i = 0; i < 10; i++) {
		t = txn(3, 6, 1000 * i, 1000 * i + 100 + i); /* READ, SRT 100..109 */
		t.rep.count = 4096;
		nfs_stats_txn(&s, &t);
	}
	t = txn(3, 3, 50, 80); /* LOOKUP NOENT */
	t.rep.status = 2;
	nfs_stats_txn(&s, &t);
	t = txn(3, 3, 60, 0); /* no reply */
	nfs_stats_txn(&s, &t);
	t = txn(3, 1, 70, 90); /* GETATTR, RPC PROC_UNAVAIL */
	t.accept_stat = 3;
	nfs_stats_txn(&s, &t);
	nfs_stats_sort(&s);
	assert_int_equal(s.nprocs, 3);
	assert_string_equal(s.procs[0].name, "GETATTR");
	assert_int_equal(s.procs[0].e.errors, 1);
	assert_int_equal(s.procs[0].e.err[0].status, NFS_ERR_RPC_ACCEPT + 3);
	assert_string_equal(s.procs[1].name, "LOOKUP");
	assert_int_equal(s.procs[1].calls, 2);
	assert_int_equal(s.procs[1].replies, 1);
	assert_int_equal(s.procs[1].e.err[0].status, 2);
	assert_string_equal(s.procs[2].name, "READ");
	assert_string_equal(s.procs[2].version, "3");
	assert_int_equal(s.procs[2].read_bytes, 40960);
	assert_int_equal(s.procs[2].srt->count, 10);
	assert_int_equal(s.procs[2].srt->min, 100);
	assert_int_equal(s.procs[2].srt->max, 109);
	assert_true(hist_mean(s.procs[2].srt) == 104.5);
	assert_int_equal(s.clients[NFS_BY_ADDRESS].n, 1);
	assert_int_equal(s.clients[NFS_BY_ADDRESS].c[0].calls, 13);
	assert_int_equal(s.clients[NFS_BY_ADDRESS].c[0].errors, 2);
	assert_int_equal(s.clients[NFS_BY_CONNECTION].n, 1);
	assert_int_equal(s.clients[NFS_BY_UID].n, 0); /* no AUTH_SYS credentials */
	assert_int_equal(s.files.n, 1);
	nfs_stats_release(&s);
}

static void test_v4_rows(void **state)
{
	struct nfs_stats s;
	struct rpc_txn t;

	(void)state;
	nfs_stats_init(&s, NULL);
	t = txn(4, 1, 10, 20);
	t.call.minor = 1;
	t.call.op = OP4_WRITE;
	t.call.count = 65536;
	nfs_stats_txn(&s, &t);
	t = txn(4, 0, 10, 20); /* NULL */
	nfs_stats_txn(&s, &t);
	t = txn(4, 1, 10, 20); /* empty COMPOUND */
	t.call.op = 0;
	nfs_stats_txn(&s, &t);
	nfs_stats_sort(&s);
	assert_int_equal(s.nprocs, 3);
	assert_string_equal(s.procs[0].name, "NULL");
	assert_string_equal(s.procs[0].version, "4.0");
	assert_string_equal(s.procs[1].name, "COMPOUND");
	assert_string_equal(s.procs[2].name, "WRITE");
	assert_string_equal(s.procs[2].version, "4.1");
	assert_int_equal(s.procs[2].write_bytes, 65536);
	nfs_stats_release(&s);
}

static void test_timeline(void **state)
{
	struct nfs_stats s;
	struct nfs_stats_cfg cfg = {.interval_ns = 1000};
	struct rpc_txn t;

	(void)state;
	nfs_stats_init(&s, &cfg);
	t = txn(3, 7, 5500, 7500); /* WRITE outstanding over three bins */
	t.call.count = 100;
	nfs_stats_txn(&s, &t);
	t = txn(3, 6, 2000, 2100); /* earlier: the timeline grows backwards */
	t.rep.count = 10;
	nfs_stats_txn(&s, &t);
	assert_int_equal(s.clock.origin, 2000);
	assert_int_equal(s.clock.n, 6);
	assert_int_equal(s.bins[0].ops, 1);
	assert_int_equal(s.bins[0].read_bytes, 10);
	assert_int_equal(s.bins[3].ops, 1);
	assert_int_equal(s.bins[3].write_bytes, 100);
	assert_int_equal(s.bins[3].busy_ns, 500);
	assert_int_equal(s.bins[4].busy_ns, 1000);
	assert_int_equal(s.bins[5].busy_ns, 500);
	/* a transaction far away: the timeline coarsens instead of growing */
	t = txn(3, 6, 1000ull * 1000 * 1000, 1000ull * 1000 * 1000 + 10);
	nfs_stats_txn(&s, &t);
	assert_true(s.clock.n <= NFS_MAX_BINS);
	assert_true(s.clock.width > 1000);
	{
		uint64_t ops = 0;
		unsigned i;

		for (i = 0; i < s.clock.n; i++)
			ops += s.bins[i].ops;
		assert_int_equal(ops, 3);
	}
	nfs_stats_release(&s);
}

static void test_copy_and_json(void **state)
{
	struct nfs_stats s;
	struct nfs_pipe p;
	struct rpc_txn t;
	json_t *j, *procs;

	(void)state;
	nfs_stats_init(&s, NULL);
	assert_int_equal(nfs_pipe_init(&p, NULL, NULL, nfs_stats_txn, &s), 0);
	t = txn(4, 1, 1000, 2000);
	t.call.minor = 2;
	t.call.op = OP4_COPY;
	t.rep.copy_async = true;
	memcpy(t.rep.copy_stateid, "0123456789abcdef", 16);
	nfs_stats_txn(&s, &t);
	t = txn(1, 1, 51000, 52000);
	t.kind = RPC_KIND_NFS_CB;
	t.prog = 0x40000000;
	t.call.minor = 2;
	t.call.op = CB4_OFFLOAD;
	t.call.cb_offload = true;
	t.call.cb_count = 1 << 20;
	memcpy(t.call.cb_stateid, "0123456789abcdef", 16);
	nfs_stats_txn(&s, &t);
	assert_int_equal(s.copy.calls, 1);
	assert_int_equal(s.copy.async, 1);
	assert_int_equal(s.copy.callbacks, 1);
	assert_int_equal(s.copy.cb_latency.count, 1);
	assert_int_equal(s.copy.cb_latency.max, 50000);
	j = nfs_stats_json(&s, &p);
	procs = json_object_get(j, "procedures");
	assert_int_equal(json_array_size(procs), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(procs, 0), "name")),
	                    "COPY");
	assert_string_equal(json_string_value(json_object_get(json_array_get(procs, 1), "program")),
	                    "NFS_CB");
	assert_true(json_real_value(json_object_get(
	                json_object_get(json_array_get(procs, 0), "srt_ns"), "mean")) == 1000.0);
	assert_non_null(json_object_get(json_object_get(j, "stream"), "lost_bytes"));
	assert_non_null(json_object_get(json_object_get(j, "stream"), "unmatched_replies"));
	assert_true(json_is_array(json_object_get(j, "timeline")));
	assert_true(json_is_array(json_object_get(json_object_get(j, "clients"), "by_connection")));
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(j, "copy"), "asynchronous")), 1);
	json_decref(j);
	nfs_pipe_release(&p);
	nfs_stats_release(&s);
}

/* #12 item 14: a COPY whose reply precedes its call (clocks of a merged capture, a fuzzer's
 * input) gives a response time of 0, not 2^64 - d; and means are reals in the JSON. */
static void test_copy_reply_before_call(void **state)
{
	struct nfs_stats s;
	struct nfs_pipe p;
	struct rpc_txn t;
	json_t *j, *srt;

	(void)state;
	nfs_stats_init(&s, NULL);
	assert_int_equal(nfs_pipe_init(&p, NULL, NULL, nfs_stats_txn, &s), 0);
	t = txn(4, 1, 5000, 4000);
	t.call.minor = 2;
	t.call.op = OP4_COPY;
	t.rep.count = 10;
	nfs_stats_txn(&s, &t);
	assert_int_equal(s.copy.srt.count, 1);
	assert_int_equal(s.copy.srt.max, 0);
	t = txn(3, 6, 1000, 1003); /* READ, SRT 3: a mean of 3, and one of 1.5 below */
	nfs_stats_txn(&s, &t);
	t = txn(3, 6, 1000, 1000);
	nfs_stats_txn(&s, &t);
	j = nfs_stats_json(&s, &p);
	srt = json_object_get(json_object_get(j, "copy"), "srt_ns");
	assert_true(json_is_real(json_object_get(srt, "mean")));
	assert_int_equal(json_integer_value(json_object_get(srt, "max")), 0);
	srt = json_object_get(json_array_get(json_object_get(j, "procedures"), 0), "srt_ns");
	assert_true(json_is_real(json_object_get(srt, "mean")));
	assert_true(json_real_value(json_object_get(srt, "mean")) == 1.5);
	json_decref(j);
	nfs_pipe_release(&p);
	nfs_stats_release(&s);
}

/* 100000 handles: the table keeps 4096, folding the least busy out; the busiest stay. */
static void test_file_cap(void **state)
{
	struct nfs_stats s;
	struct rpc_txn t = txn(3, 1, 1, 2);
	unsigned i, k, idx[3];
	uint64_t ops = 0;

	(void)state;
	nfs_stats_init(&s, NULL);
	for (i = 0; i < 100000; i++) {
		memcpy(t.call.fh, &i, 4);
		nfs_stats_txn(&s, &t);
		/* a few busy files met late: 50 calls each, answered slowly */
		if (i % 20000 == 19999) {
			t.reply_ns = 1000;
			for (k = 0; k < 50; k++)
				nfs_stats_txn(&s, &t);
			t.reply_ns = 2;
		}
	}
	assert_int_equal(s.files.n, 4096);
	assert_true(s.files.evicted > 0);
	for (i = 0; i < s.files.n; i++)
		ops += s.files.f[i].ops;
	/* handles past the names map's 65536 nodes are folded too: every call is somewhere */
	assert_int_equal(ops + s.files.other.ops, 100000 + 5 * 50);
	assert_true(nfs_names_counters(s.names)->untracked > 0);
	assert_int_equal(nfs_stats_top_files(&s, NFS_RANK_OPS, idx, 3), 3);
	assert_int_equal(s.files.f[idx[0]].ops, 51);
	assert_true(nfs_stats_mem(&s) < 64u << 20);
	nfs_stats_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rows_and_errors),
	    cmocka_unit_test(test_v4_rows),
	    cmocka_unit_test(test_timeline),
	    cmocka_unit_test(test_copy_and_json),
	    cmocka_unit_test(test_copy_reply_before_call),
	    cmocka_unit_test(test_file_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
