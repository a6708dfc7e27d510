/* SPDX-License-Identifier: MIT */
/* RPC: call/reply matching by (connection, XID), credentials, counters, bounded memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "formats/rpc.h"
#include "test_nfs_build.h"

struct txns {
	unsigned n;
	struct rpc_txn t[32];
	unsigned total;
};

static void on_txn(void *arg, const struct rpc_txn *t)
{
	struct txns *x = arg;

	if (x->n < 32)
		x->t[x->n++] = *t;
	x->total++;
}

/* the client 10.0.0.1:800, the server 10.0.0.2:2049 */
static const struct net_endpoint A = {{4, {10, 0, 0, 1}}, 800}, B = {{4, {10, 0, 0, 2}}, 2049};

static void feed(struct rpc_dec *d, const struct wb *m, uint64_t conn, int dir, uint64_t ts)
{
	struct rpc_record r = {
	    .head = m->b,
	    .head_len = (uint32_t)m->n,
	    .len = m->n,
	    .ts_ns = ts,
	    .conn_id = conn,
	    .dir = dir,
	    .proto = 6,
	    .src = dir ? &B : &A,
	    .dst = dir ? &A : &B,
	};

	rpc_dec_record(d, &r);
}

static void v3_read_call(struct wb *m, uint32_t xid, int auth)
{
	rpc_call_hdr(m, xid, 100003, 3, 6, auth);
	if (auth == AUTHB_GSS_INTEG) {
		struct wb a = {.n = 0};

		put32(&a, 7); /* seq_num */
		putopaque(&a, "FH-ABCD", 7);
		put64(&a, 4096);
		put32(&a, 8192);
		putopaque(m, a.b, (uint32_t)a.n);
		putopaque(m, "mic", 3);
		return;
	}
	putopaque(m, "FH-ABCD", 7);
	put64(m, 4096);
	put32(m, 8192);
}

static void v3_read_reply(struct wb *m, uint32_t xid)
{
	rpc_reply_hdr(m, xid, 0);
	put32(m, 0); /* NFS3_OK */
	put32(m, 0); /* no attributes */
	put32(m, 8192);
	put32(m, 1); /* eof */
	put32(m, 8192);
}

static struct rpc_dec *mk(struct txns *x, uint32_t max_pending)
{
	struct rpc_dec *d;
	struct rpc_dec_cfg cfg = {.max_pending = max_pending};

	memset(x, 0, sizeof(*x));
	assert_int_equal(rpc_dec_new(&d, &cfg, on_txn, x), 0);
	return d;
}

static void test_match_by_connection(void **state)
{
	struct txns x;
	struct rpc_dec *d = mk(&x, 0);
	struct wb c = {.n = 0}, r = {.n = 0};

	(void)state;
	v3_read_call(&c, 42, AUTHB_SYS);
	v3_read_reply(&r, 42);
	feed(d, &c, 1, 0, 1000);
	feed(d, &c, 2, 0, 2000); /* same XID, another connection: not a retransmission */
	feed(d, &r, 2, 1, 2500);
	feed(d, &r, 1, 1, 4000);
	assert_int_equal(x.n, 2);
	assert_int_equal(x.t[0].conn_id, 2);
	assert_int_equal(x.t[0].reply_ns - x.t[0].call_ns, 500);
	assert_int_equal(x.t[1].reply_ns - x.t[1].call_ns, 3000);
	assert_int_equal(x.t[1].call.op, 6);
	assert_int_equal(x.t[1].call.offset, 4096);
	assert_int_equal(x.t[1].call.count, 8192);
	assert_int_equal(x.t[1].rep.count, 8192);
	assert_true(x.t[1].rep.eof);
	assert_int_equal(x.t[1].kind, RPC_KIND_NFS);
	assert_int_equal(rpc_dec_counters(d)->retransmits, 0);
	/* a reply in the same direction as the call does not match it */
	feed(d, &c, 3, 0, 5000);
	feed(d, &r, 3, 0, 5001);
	assert_int_equal(rpc_dec_counters(d)->unmatched_replies, 1);
	assert_int_equal(x.n, 2);
	rpc_dec_free(d);
}

static void test_unmatched_and_retransmit(void **state)
{
	struct txns x;
	struct rpc_dec *d = mk(&x, 0);
	struct wb c = {.n = 0}, r = {.n = 0}, r2 = {.n = 0};

	(void)state;
	v3_read_call(&c, 1, AUTHB_NONE);
	v3_read_reply(&r, 1);
	v3_read_reply(&r2, 99);
	feed(d, &c, 1, 0, 100);
	feed(d, &c, 1, 0, 200); /* retransmitted call: SRT from the first */
	feed(d, &r, 1, 1, 300);
	feed(d, &r, 1, 1, 301);  /* duplicate reply */
	feed(d, &r2, 1, 1, 400); /* reply without a call */
	c.n = 0;
	v3_read_call(&c, 5, AUTHB_NONE);
	feed(d, &c, 1, 0, 500); /* call without a reply */
	rpc_dec_finish(d);
	assert_int_equal(x.n, 2);
	assert_int_equal(x.t[0].reply_ns - x.t[0].call_ns, 200);
	assert_int_equal(x.t[0].retransmits, 1);
	assert_false(x.t[1].replied);
	assert_int_equal(rpc_dec_counters(d)->retransmits, 1);
	assert_int_equal(rpc_dec_counters(d)->unmatched_replies, 2);
	assert_int_equal(rpc_dec_counters(d)->unmatched_calls, 1);
	rpc_dec_free(d);
}

static void test_gss(void **state)
{
	struct txns x;
	struct rpc_dec *d = mk(&x, 0);
	struct wb c = {.n = 0}, r = {.n = 0};

	(void)state;
	v3_read_call(&c, 3, AUTHB_GSS_INTEG);
	rpc_reply_hdr(&r, 3, 0);
	{
		struct wb a = {.n = 0};

		put32(&a, 7);
		put32(&a, 0);
		put32(&a, 0);
		put32(&a, 100);
		put32(&a, 0);
		put32(&a, 100);
		putopaque(&r, a.b, (uint32_t)a.n);
	}
	feed(d, &c, 1, 0, 1);
	feed(d, &r, 1, 1, 2);
	assert_int_equal(x.n, 1);
	assert_int_equal(x.t[0].gss_service, 2);
	assert_int_equal(x.t[0].call.offset, 4096);
	assert_int_equal(x.t[0].rep.count, 100);
	/* privacy: counted, not decoded */
	c.n = 0;
	rpc_call_hdr(&c, 4, 100003, 3, 6, AUTHB_GSS_PRIV);
	putopaque(&c, "encrypted", 9);
	feed(d, &c, 1, 0, 3);
	assert_int_equal(rpc_dec_counters(d)->undecoded, 1);
	rpc_dec_free(d);
}

static void test_denied_and_errors(void **state)
{
	struct txns x;
	struct rpc_dec *d = mk(&x, 0);
	struct wb c = {.n = 0}, r = {.n = 0}, junk = {.n = 0};

	(void)state;
	v3_read_call(&c, 8, AUTHB_SYS);
	put32(&r, 8);
	put32(&r, 1);
	put32(&r, 1); /* MSG_DENIED */
	put32(&r, 1); /* AUTH_ERROR */
	put32(&r, 5);
	feed(d, &c, 1, 0, 1);
	feed(d, &r, 1, 1, 2);
	assert_int_equal(x.t[0].reply_stat, 1);
	assert_int_equal(x.t[0].reject_stat, 1);
	c.n = r.n = 0;
	v3_read_call(&c, 9, AUTHB_SYS);
	rpc_reply_hdr(&r, 9, 1); /* PROG_UNAVAIL */
	feed(d, &c, 1, 0, 3);
	feed(d, &r, 1, 1, 4);
	assert_int_equal(x.t[1].accept_stat, 1);
	/* not RPC at all, and a call with rpcvers 3 */
	put32(&junk, 1);
	put32(&junk, 7);
	feed(d, &junk, 1, 0, 5);
	assert_int_equal(rpc_dec_counters(d)->not_rpc, 1);
	c.n = 0;
	v3_read_call(&c, 10, AUTHB_NONE);
	c.b[11] = 3;
	feed(d, &c, 1, 0, 6);
	assert_int_equal(rpc_dec_counters(d)->bad_calls, 1);
	/* an auth body longer than 400 bytes */
	c.n = 0;
	put32(&c, 11);
	put32(&c, 0);
	put32(&c, 2);
	put32(&c, 100003);
	put32(&c, 3);
	put32(&c, 0);
	put32(&c, 1);
	put32(&c, 0xfffffffcu);
	feed(d, &c, 1, 0, 7);
	assert_int_equal(rpc_dec_counters(d)->bad_calls, 2);
	rpc_dec_free(d);
}

/* A call cut inside its credentials (small snaplen) still counts; a complete one does not. */
static void test_cut_call(void **state)
{
	struct txns x;
	struct rpc_dec *d = mk(&x, 0);
	struct wb c = {.n = 0}, r = {.n = 0};
	struct rpc_record rec;

	(void)state;
	v3_read_call(&c, 21, AUTHB_SYS);
	v3_read_reply(&r, 21);
	rec = (struct rpc_record){.head = c.b,
	                          .head_len = 34,
	                          .len = c.n,
	                          .conn_id = 1,
	                          .proto = 6,
	                          .src = &A,
	                          .dst = &B,
	                          .ts_ns = 10};
	rpc_dec_record(d, &rec);
	rec.len = 34; /* the same bytes as a whole record: malformed */
	rec.head = c.b;
	c.b[3] = 22;
	rpc_dec_record(d, &rec);
	feed(d, &r, 1, 1, 30);
	assert_int_equal(x.n, 1);
	assert_int_equal(x.t[0].proc, 6);
	assert_false(x.t[0].call.decoded);
	assert_int_equal(x.t[0].reply_ns - x.t[0].call_ns, 20);
	assert_int_equal(rpc_dec_counters(d)->bad_calls, 1);
	rpc_dec_free(d);
}

static void test_xid_flood(void **state)
{
	struct txns x;
	struct rpc_dec *d = mk(&x, 1000);
	struct wb c = {.n = 0};
	uint32_t i;

	(void)state;
	v3_read_call(&c, 0, AUTHB_NONE);
	for (i = 0; i < 200000; i++) {
		c.b[0] = (uint8_t)(i >> 24);
		c.b[1] = (uint8_t)(i >> 16);
		c.b[2] = (uint8_t)(i >> 8);
		c.b[3] = (uint8_t)i;
		feed(d, &c, 1, 0, i);
	}
	assert_int_equal(rpc_dec_counters(d)->evicted, 200000 - 1000);
	assert_true(rpc_dec_mem(d) < 1024 * 1024 + 1001 * sizeof(struct rpc_txn) * 2);
	rpc_dec_finish(d);
	assert_int_equal(rpc_dec_counters(d)->unmatched_calls, 200000);
	rpc_dec_free(d);
}

static void test_mount_portmap(void **state)
{
	struct txns x;
	struct rpc_dec *d = mk(&x, 0);
	struct wb c = {.n = 0}, r = {.n = 0};

	(void)state;
	rpc_call_hdr(&c, 1, 100005, 3, 1, AUTHB_SYS);
	putopaque(&c, "/export", 7);
	rpc_reply_hdr(&r, 1, 0);
	put32(&r, 0);
	feed(d, &c, 1, 0, 1);
	feed(d, &r, 1, 1, 2);
	assert_int_equal(x.t[0].kind, RPC_KIND_MOUNT);
	assert_string_equal(rpc_proc_name(RPC_KIND_MOUNT, 3, 1), "MNT");
	assert_string_equal(rpc_proc_name(RPC_KIND_PORTMAP, 2, 3), "GETPORT");
	assert_string_equal(rpc_proc_name(RPC_KIND_PORTMAP, 4, 3), "GETADDR");
	assert_string_equal(rpc_proc_name(RPC_KIND_NFS, 3, 21), "COMMIT");
	assert_string_equal(rpc_proc_name(RPC_KIND_NFS, 4, 1), "COMPOUND");
	assert_null(rpc_proc_name(RPC_KIND_NFS, 3, 22));
	assert_string_equal(rpc_prog_name(100000), "PORTMAP");
	rpc_dec_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_match_by_connection),
	    cmocka_unit_test(test_unmatched_and_retransmit),
	    cmocka_unit_test(test_gss),
	    cmocka_unit_test(test_denied_and_errors),
	    cmocka_unit_test(test_cut_call),
	    cmocka_unit_test(test_xid_flood),
	    cmocka_unit_test(test_mount_portmap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
