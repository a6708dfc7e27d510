/* SPDX-License-Identifier: MIT */
/* An NFS call from both ends: matching by connection and XID, roles, the split, its bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/nfs_ends.h"

#define US 1000ull
#define MS 1000000ull
#define T0 1700000000000000000ull

/* an NFSv3 GETATTR from 10.0.0.1:cport to 10.0.0.2:2049 */
static struct rpc_txn txn(uint16_t cport, uint32_t xid, uint64_t call, uint64_t reply)
{
	struct rpc_txn t;

	memset(&t, 0, sizeof(t));
	t.kind = RPC_KIND_NFS;
	t.prog = 100003;
	t.vers = 3;
	t.proc = 1;
	t.proto = 6;
	t.client = (struct net_endpoint){{4, {10, 0, 0, 1}}, cport};
	t.server = (struct net_endpoint){{4, {10, 0, 0, 2}}, 2049};
	t.xid = xid;
	t.call_ns = call;
	t.reply_ns = reply;
	t.replied = reply != 0;
	return t;
}

/* host c the client, host s the server (its clock off by off_s); a call at the client at
 * `at` taking `total`, the server's part starting out after it and lasting `server` */
static void call(struct nfs_ends *x, unsigned c, unsigned s, int64_t off_s, uint16_t cport,
                 uint32_t xid, uint64_t at, uint64_t out, uint64_t server, uint64_t total)
{
	struct rpc_txn a = txn(cport, xid, at, at + total);
	struct rpc_txn b = txn(cport, xid, (uint64_t)((int64_t)(at + out) + off_s),
	                       (uint64_t)((int64_t)(at + out + server) + off_s));

	assert_int_equal(nfs_ends_txn(x, c, &a), 0);
	assert_int_equal(nfs_ends_txn(x, s, &b), 0);
}

static void test_split(void **state)
{
	struct nfs_ends *x;
	struct nfs_ends_call k;
	uint64_t n, m, u;

	(void)state;
	assert_int_equal(nfs_ends_new(&x), 0);
	/* the server first: roles come from the times, not the order of the hosts */
	assert_int_equal(nfs_ends_add_host(x, "srv", 5 * MS, 100 * US), 0);
	assert_int_equal(nfs_ends_add_host(x, "cli", 0, 50 * US), 1);
	call(x, 1, 0, 5 * MS, 800, 7, T0, 200 * US, 600 * US, 1000 * US);
	call(x, 1, 0, 5 * MS, 800, 8, T0 + MS, 100 * US, 300 * US, 900 * US);
	/* the same XID on another connection: its own call */
	call(x, 1, 0, 5 * MS, 801, 7, T0 + 2 * MS, 10 * US, 20 * US, 50 * US);
	assert_int_equal(nfs_ends_match(x), 0);
	assert_int_equal(nfs_ends_ncalls(x), 3);
	nfs_ends_call(x, 0, &k);
	assert_int_equal(k.xid, 7);
	assert_int_equal(k.client_host, 1);
	assert_int_equal(k.server_host, 0);
	assert_int_equal(k.replied, 1);
	assert_int_equal(k.server_ns, 600 * US);
	assert_int_equal(k.total_ns, 1000 * US);
	assert_int_equal(k.rest_ns, 400 * US);
	assert_int_equal(k.out_ns, 200 * US);
	assert_int_equal(k.back_ns, 200 * US);
	assert_int_equal(k.bound_ns, 150 * US);
	assert_int_equal(k.call_ns, T0);
	assert_string_equal(k.procedure, "GETATTR");
	assert_string_equal(k.version, "3");
	nfs_ends_call(x, 2, &k);
	assert_int_equal(k.xid, 7);
	assert_int_equal(k.server_ns, 20 * US);
	assert_int_equal(k.total_ns, 50 * US);
	nfs_ends_host_counts(x, 0, &n, &m, &u);
	assert_int_equal(n, 3);
	assert_int_equal(m, 3);
	assert_int_equal(u, 0);
	nfs_ends_free(x);
}

static void test_unmatched(void **state)
{
	struct nfs_ends *x;
	struct rpc_txn t;
	uint64_t n, m, u;
	json_t *j;

	(void)state;
	assert_int_equal(nfs_ends_new(&x), 0);
	assert_int_equal(nfs_ends_add_host(x, "cli", 0, 0), 0);
	assert_int_equal(nfs_ends_add_host(x, "srv", 0, 0), 1);
	call(x, 0, 1, 0, 900, 1, T0, 10 * US, 30 * US, 60 * US);
	/* seen by the client only */
	t = txn(900, 2, T0 + MS, T0 + 2 * MS);
	assert_int_equal(nfs_ends_txn(x, 0, &t), 0);
	/* the same XID again 20 s later at the server only: too far to be the same call */
	t = txn(900, 1, T0 + 20000 * MS, T0 + 20001 * MS);
	assert_int_equal(nfs_ends_txn(x, 1, &t), 0);
	/* seen by both, the reply by the client only (the server's capture ended) */
	call(x, 0, 1, 0, 900, 3, T0 + 3 * MS, 10 * US, 30 * US, 60 * US);
	t = txn(900, 4, T0 + 4 * MS, T0 + 4 * MS + 80 * US);
	assert_int_equal(nfs_ends_txn(x, 0, &t), 0);
	t = txn(900, 4, T0 + 4 * MS + 10 * US, 0);
	assert_int_equal(nfs_ends_txn(x, 1, &t), 0);
	assert_int_equal(nfs_ends_match(x), 0);
	assert_int_equal(nfs_ends_ncalls(x), 3);
	nfs_ends_host_counts(x, 0, &n, &m, &u);
	assert_int_equal(n, 4);
	assert_int_equal(m, 3);
	assert_int_equal(u, 1);
	nfs_ends_host_counts(x, 1, &n, &m, &u);
	assert_int_equal(n, 4);
	assert_int_equal(m, 3);
	assert_int_equal(u, 1);
	j = nfs_ends_json(x);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, "matched")), 3);
	assert_int_equal(json_integer_value(json_object_get(j, "unreplied")), 1);
	assert_int_equal(
	    json_integer_value(json_object_get(
	        json_object_get(json_array_get(json_object_get(j, "procedures"), 0), "server_ns"),
	        "count")),
	    2);
	json_decref(j);
	nfs_ends_free(x);
}

static void test_bounds(void **state)
{
	struct nfs_ends *x;
	json_t *j, *neg, *calls;

	(void)state;
	assert_int_equal(nfs_ends_new(&x), 0);
	assert_int_equal(nfs_ends_add_host(x, "cli", 0, 100 * US), 0);
	assert_int_equal(nfs_ends_add_host(x, "srv", 0, 100 * US), 1);
	/* the server's offset is measured 0 but its clock is 150 us behind: the request's leg
	 * comes out negative, within the 200 us bound (clock error) */
	call(x, 0, 1, -150 * (int64_t)US, 700, 1, T0, 100 * US, 500 * US, 800 * US);
	call(x, 0, 1, -150 * (int64_t)US, 700, 2, T0 + MS, 100 * US, 500 * US, 800 * US);
	/* 1 ms behind: beyond the bound, flagged */
	call(x, 0, 1, -1 * (int64_t)MS, 700, 3, T0 + 2 * MS, 100 * US, 500 * US, 800 * US);
	assert_int_equal(nfs_ends_match(x), 0);
	j = nfs_ends_json(x);
	neg = json_object_get(json_object_get(j, "negative"), "out");
	assert_int_equal(json_integer_value(json_object_get(neg, "within_alignment")), 2);
	assert_int_equal(json_integer_value(json_object_get(neg, "beyond_alignment")), 1);
	neg = json_object_get(json_object_get(j, "negative"), "rest");
	assert_int_equal(json_integer_value(json_object_get(neg, "within_alignment")), 0);
	assert_int_equal(json_integer_value(json_object_get(neg, "beyond_alignment")), 0);
	calls = json_object_get(j, "calls");
	assert_int_equal(json_array_size(calls), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(calls, 0), "flag")),
	                    "clock_error");
	assert_string_equal(json_string_value(json_object_get(json_array_get(calls, 2), "flag")),
	                    "beyond_alignment");
	/* rest needs no offset: the same whatever the clocks */
	assert_int_equal(json_integer_value(json_object_get(json_array_get(calls, 2), "rest_ns")),
	                 300 * US);
	assert_int_equal(json_integer_value(json_object_get(j, "alignment_error_ns")), 200 * US);
	json_decref(j);
	nfs_ends_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_split),
	    cmocka_unit_test(test_unmatched),
	    cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
