/* SPDX-License-Identifier: MIT */
/* TCP reassembly and RPC record marking: every case of issue 4, on hand-built segments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "formats/tcp_stream.h"
#include "test_nfs_build.h"

#define MAXREC 64

struct got {
	unsigned n;
	struct {
		uint8_t head[256];
		uint32_t head_len;
		uint64_t len;
		bool incomplete;
		uint64_t ts;
		int dir;
		uint64_t conn;
	} r[MAXREC];
	unsigned total;
};

static void on_rec(void *arg, const struct rpc_record *r)
{
	struct got *g = arg;

	g->total++;
	if (g->n >= MAXREC)
		return;
	memcpy(g->r[g->n].head, r->head, r->head_len < 256 ? r->head_len : 256);
	g->r[g->n].head_len = r->head_len;
	g->r[g->n].len = r->len;
	g->r[g->n].incomplete = r->incomplete;
	g->r[g->n].ts = r->ts_ns;
	g->r[g->n].dir = r->dir;
	g->r[g->n].conn = r->conn_id;
	g->n++;
}

/* A plausible RPC call of `size` bytes (size >= 40) with the given xid, framed. */
static void call_msg(struct wb *out, uint32_t xid, size_t size)
{
	struct wb m = {.n = 0};

	rpc_call_hdr(&m, xid, 100003, 3, 1, AUTHB_NONE);
	while (m.n < size)
		m.b[m.n] = (uint8_t)(m.n * 13), m.n++;
	rm_frame(out, &m);
}

/* Each test's table (the default configuration unless the test makes another with table()),
 * the records it delivered and a buffer for its messages: made fresh before the test (fresh()),
 * the table freed after it (done()). */
static struct got g;
static struct tcp_table *t;
static struct wb w;

static void table(const struct tcp_cfg *cfg)
{
	tcp_table_free(t);
	t = NULL;
	memset(&g, 0, sizeof(g));
	assert_int_equal(tcp_table_new(&t, cfg, on_rec, &g), 0);
}

static int fresh(void **state)
{
	(void)state;
	w.n = 0;
	table(NULL);
	return 0;
}

static int done(void **state)
{
	(void)state;
	tcp_table_free(t);
	t = NULL;
	return 0;
}

static void syn(struct tcp_table *t, uint32_t isn)
{
	struct pkt p = tcp_pkt(0, 1000, isn, NULL, 0, 0, 1, TCPF_SYN);

	tcp_table_packet(t, &p);
}

static void seg(struct tcp_table *t, uint32_t seq, const uint8_t *d, uint32_t n, uint64_t ts)
{
	struct pkt p = tcp_pkt(0, 1000, seq, d, n, n, ts, 0);

	tcp_table_packet(t, &p);
}

static uint32_t xid_of(struct got *g, unsigned i)
{
	const uint8_t *h = g->r[i].head;

	return (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
}

/* n calls of `size` bytes, framed: xids xid, xid + 1, ... */
static void calls(struct wb *out, uint32_t xid, unsigned n, size_t size)
{
	for (unsigned i = 0; i < n; i++)
		call_msg(out, xid + i, size);
}

/* The records delivered are n, these xids in this order. */
static void want_xids(struct got *g, unsigned n, ...)
{
	va_list ap;

	assert_int_equal(g->n, n);
	va_start(ap, n);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(xid_of(g, i), va_arg(ap, unsigned));
	va_end(ap);
}

static void test_several_in_one_segment(void **state)
{

	(void)state;
	call_msg(&w, 1, 40);
	call_msg(&w, 2, 100);
	call_msg(&w, 3, 60);
	syn(t, 1000);
	seg(t, 1001, w.b, (uint32_t)w.n, 5);
	want_xids(&g, 3, 1, 2, 3);
	assert_int_equal(g.r[1].len, 100);
	assert_int_equal(g.r[2].ts, 5);
	assert_int_equal(tcp_table_counters(t)->lost_bytes, 0);
}

static void test_one_over_many_segments(void **state)
{
	size_t i;

	(void)state;
	call_msg(&w, 7, 200);
	syn(t, 0xfffffff0u); /* sequence numbers wrap inside the record */
	for (i = 0; i < w.n; i++)
		seg(t, (uint32_t)(0xfffffff1u + i), w.b + i, 1, 100 + i);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.r[0].len, 200);
	assert_int_equal(g.r[0].ts, 100 + w.n - 1); /* time of the last byte */
	assert_memory_equal(g.r[0].head, w.b + 4, 200 > 256 ? 256 : 200);
}

static void test_multi_fragment(void **state)
{
	struct wb m = {.n = 0};

	(void)state;
	rpc_call_hdr(&m, 9, 100003, 3, 0, AUTHB_NONE);
	putzero(&m, 60);
	/* three fragments: 20, 30, rest */
	put32(&w, 20);
	putbytes(&w, m.b, 20);
	put32(&w, 30);
	putbytes(&w, m.b + 20, 30);
	put32(&w, 0x80000000u | (uint32_t)(m.n - 50));
	putbytes(&w, m.b + 50, m.n - 50);
	syn(t, 0);
	seg(t, 1, w.b, (uint32_t)w.n, 1);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.r[0].len, m.n);
	assert_int_equal(g.r[0].head_len, m.n);
	assert_memory_equal(g.r[0].head, m.b, m.n);
}

static void test_retransmit_and_overlap(void **state)
{

	(void)state;
	calls(&w, 1, 2, 100);
	syn(t, 0);
	seg(t, 1, w.b, 60, 1);
	seg(t, 1, w.b, 60, 2);       /* exact retransmission */
	seg(t, 31, w.b + 30, 80, 3); /* overlaps 30 old bytes, 50 new */
	seg(t, 61, w.b + 60, 50, 4); /* all old */
	seg(t, 111, w.b + 110, (uint32_t)w.n - 110, 5);
	want_xids(&g, 2, 1, 2);
	assert_int_equal(tcp_table_counters(t)->retransmits, 3);
	assert_int_equal(tcp_table_counters(t)->lost_bytes, 0);
}

static void test_out_of_order(void **state)
{

	(void)state;
	calls(&w, 1, 2, 100);
	syn(t, 0);
	seg(t, 1 + 150, w.b + 150, (uint32_t)w.n - 150, 1);
	seg(t, 1 + 60, w.b + 60, 90, 2);
	assert_int_equal(g.n, 0);
	seg(t, 1, w.b, 60, 3);
	want_xids(&g, 2, 1, 2);
	assert_int_equal(g.r[1].ts, 3);
	assert_int_equal(tcp_table_counters(t)->out_of_order, 2);
	assert_int_equal(tcp_table_counters(t)->lost_bytes, 0);
}

/* A gap inside a record body: the record is still delivered, bytes lost counted. */
static void test_gap_in_body(void **state)
{
	struct tcp_cfg cfg = {.head_cap = 128};

	(void)state;
	table(&cfg);
	call_msg(&w, 1, 1000);
	call_msg(&w, 2, 100);
	syn(t, 0);
	seg(t, 1, w.b, 200, 1);
	seg(t, 1 + 500, w.b + 500, (uint32_t)w.n - 500, 2); /* 300 bytes never come */
	assert_int_equal(g.n, 0);
	tcp_table_finish(t);
	assert_int_equal(g.n, 2);
	assert_false(g.r[0].incomplete); /* the kept head (128 bytes) was complete */
	assert_int_equal(g.r[0].len, 1000);
	assert_int_equal(xid_of(&g, 1), 2);
	assert_int_equal(tcp_table_counters(t)->lost_bytes, 300);
}

/* call_cap (the replay's WRITE payloads): calls kept whole over many segments, up to
 * call_total over all connections; replies keep head_cap; a gap inside the kept range of a
 * call makes it incomplete */
static void test_calls_kept_whole(void **state)
{
	struct tcp_cfg cfg = {.head_cap = 128, .call_cap = 6000, .call_total = 4096};
	struct wb r = {.n = 0}, m = {.n = 0};
	size_t i;

	(void)state;
	table(&cfg);
	call_msg(&w, 1, 3000);
	call_msg(&w, 2, 5000); /* beyond what call_total leaves: 128 + 4096 kept */
	syn(t, 0);
	for (i = 0; i < w.n; i += 700) {
		uint32_t n = w.n - i < 700 ? (uint32_t)(w.n - i) : 700;

		seg(t, (uint32_t)(1 + i), w.b + i, n, 1 + i);
	}
	assert_int_equal(g.n, 2);
	assert_int_equal(g.r[0].head_len, 3000);
	assert_int_equal(g.r[0].len, 3000);
	assert_false(g.r[0].incomplete);
	assert_int_equal(g.r[1].head_len, 128 + 4096); /* call_total past head_cap, no more */
	assert_int_equal(g.r[1].len, 5000);
	/* a reply (the other direction) keeps head_cap */
	put32(&m, 9);
	put32(&m, 1);
	while (m.n < 1000)
		m.b[m.n] = 0, m.n++;
	rm_frame(&r, &m);
	{
		struct pkt p = tcp_pkt(1, 1000, 1, r.b, (uint32_t)r.n, (uint32_t)r.n, 9, 0);

		tcp_table_packet(t, &p);
	}
	assert_int_equal(g.n, 3);
	assert_int_equal(g.r[2].head_len, 128);

	/* a hole inside a call's kept range: incomplete */
	table(&cfg);
	w.n = 0;
	call_msg(&w, 3, 3000);
	syn(t, 0);
	seg(t, 1, w.b, 1000, 1);
	seg(t, 1 + 1500, w.b + 1500, (uint32_t)w.n - 1500, 2);
	tcp_table_finish(t);
	assert_int_equal(g.n, 1);
	assert_true(g.r[0].incomplete);
	assert_int_equal(g.r[0].head_len, 996);
}

/* A gap that swallows a marker: resynchronise at the next plausible record. */
static void test_gap_resync(void **state)
{
	struct tcp_cfg cfg = {.ooo_cap = 64}; /* a small queue: the gap is given up quickly */
	size_t a, b;

	(void)state;
	table(&cfg);
	call_msg(&w, 1, 100);
	a = w.n;
	call_msg(&w, 2, 100);
	b = w.n;
	calls(&w, 3, 2, 100);
	syn(t, 0);
	seg(t, 1, w.b, (uint32_t)a, 1);
	/* lose the first 50 bytes of record 2 (its marker included) */
	seg(t, (uint32_t)(1 + a + 50), w.b + a + 50, (uint32_t)(w.n - a - 50), 2);
	/* the segment does not fit the queue: the gap is given up at once */
	want_xids(&g, 3, 1, 3, 4);
	assert_int_equal(tcp_table_counters(t)->lost_bytes, b - a); /* the whole of record 2 */
	assert_int_equal(tcp_table_counters(t)->resyncs, 1);
}

/* The capture starts in the middle of a record. */
static void test_mid_stream(void **state)
{

	(void)state;
	call_msg(&w, 1, 300);
	calls(&w, 2, 2, 100);
	seg(t, 5000 + 123, w.b + 123, 100, 1); /* no SYN */
	seg(t, 5000 + 223, w.b + 223, (uint32_t)w.n - 223, 2);
	want_xids(&g, 2, 2, 3);
	assert_int_equal(tcp_table_counters(t)->lost_bytes, 304 - 123);
}

/* Frames cut by the snaplen: headers decoded, the missing payload counted. */
static void test_snaplen(void **state)
{
	struct pkt p;

	(void)state;
	call_msg(&w, 1, 2000);
	call_msg(&w, 2, 100);
	syn(t, 0);
	p = tcp_pkt(0, 1000, 1, w.b, 96, 1000, 1, 0); /* 96 of 1000 bytes captured */
	tcp_table_packet(t, &p);
	p = tcp_pkt(0, 1000, 1001, w.b + 1000, 96, (uint32_t)w.n - 1000, 2, 0);
	tcp_table_packet(t, &p);
	/* the second frame's first 96 bytes are inside record 1: record 2 was cut away */
	assert_int_equal(g.n, 1);
	assert_true(g.r[0].incomplete);
	assert_int_equal(g.r[0].head_len, 92);
	assert_int_equal(g.r[0].len, 2000);
	assert_int_equal(tcp_table_counters(t)->lost_bytes, (w.n - 192));
}

static void test_absurd_length(void **state)
{
	size_t before;

	(void)state;
	put32(&w, 0xffffffffu); /* last fragment, length 0x7fffffff */
	putzero(&w, 40);
	call_msg(&w, 5, 100);
	syn(t, 0);
	before = tcp_table_mem(t);
	seg(t, 1, w.b, (uint32_t)w.n, 1);
	assert_int_equal(tcp_table_counters(t)->bad_records, 1);
	want_xids(&g, 1, 5);
	assert_true(tcp_table_mem(t) <= before + 8192);
}

static void test_bounded_memory(void **state)
{
	struct tcp_cfg cfg = {.ooo_cap = 4096, .ooo_total = 16384, .max_conns = 8};
	static uint8_t junk[1400];
	unsigned i;
	size_t base;

	(void)state;
	table(&cfg);
	base = tcp_table_mem(t);
	syn(t, 0);
	/* a flood of segments far ahead of a gap: the queue stays within its cap */
	for (i = 0; i < 1000; i++)
		seg(t, 100000 + i * 1400, junk, 1400, i);
	assert_true(tcp_table_mem(t) < base + 4096 + 8192 + 4096);
	/* a flood of connections: at most max_conns are kept */
	for (i = 0; i < 1000; i++) {
		struct pkt p = tcp_pkt(0, (uint16_t)(2000 + i), 1, junk, 100, 100, i, 0);

		tcp_table_packet(t, &p);
	}
	assert_true(tcp_table_counters(t)->evicted >= 1000 - 8);
	assert_true(tcp_table_mem(t) < base + 8 * (8192 + 4096 + 1024));
}

static void test_two_directions_and_udp(void **state)
{
	struct wb c = {.n = 0}, r = {.n = 0}, m = {.n = 0};
	struct pkt p;

	(void)state;
	call_msg(&c, 11, 40);
	rpc_reply_hdr(&m, 11, 0);
	put32(&m, 0);
	rm_frame(&r, &m);
	syn(t, 0);
	p = tcp_pkt(1, 1000, 500, NULL, 0, 0, 1, TCPF_SYN);
	tcp_table_packet(t, &p);
	seg(t, 1, c.b, (uint32_t)c.n, 2);
	p = tcp_pkt(1, 1000, 501, r.b, (uint32_t)r.n, (uint32_t)r.n, 3, 0);
	tcp_table_packet(t, &p);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.r[0].conn, g.r[1].conn);
	assert_int_not_equal(g.r[0].dir, g.r[1].dir);
	/* UDP: one datagram, one message, no marker */
	p = tcp_pkt(0, 1000, 0, m.b, (uint32_t)m.n, (uint32_t)m.n, 4, 0);
	p.proto = 17;
	tcp_table_packet(t, &p);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.r[2].len, m.n);
	assert_int_not_equal(g.r[2].conn, g.r[0].conn);
}

/* The server acknowledges bytes the capture never saw: the gap is given up at once. */
static void test_acked_unseen(void **state)
{
	struct pkt p;
	size_t a;

	(void)state;
	call_msg(&w, 1, 100);
	a = w.n;
	calls(&w, 2, 2, 100);
	syn(t, 0);
	seg(t, 1, w.b, (uint32_t)a, 1);
	/* record 2 is not captured; record 3 waits in the queue */
	seg(t, (uint32_t)(1 + 2 * a), w.b + 2 * a, (uint32_t)(w.n - 2 * a), 2);
	assert_int_equal(g.n, 1);
	p = tcp_pkt(1, 1000, 1, NULL, 0, 0, 3, TCPF_ACK);
	p.ack = (uint32_t)(1 + w.n);
	tcp_table_packet(t, &p);
	want_xids(&g, 2, 1, 3);
	assert_int_equal(g.r[1].ts, 2); /* the time of the segment that held it */
	assert_int_equal(tcp_table_counters(t)->lost_bytes, a);
}

/* Many small segments behind a hole: what they cost (bookkeeping too) is bounded. */
static void test_queue_segments_cap(void **state)
{
	struct tcp_cfg cfg = {.ooo_total = 2048};
	size_t a, i, start;

	(void)state;
	table(&cfg);
	call_msg(&w, 1, 100);
	a = w.n;
	for (i = 0; i < 100; i++)
		call_msg(&w, (uint32_t)(10 + i), 40);
	syn(t, 0);
	/* record 1 lost; the 100 small ones arrive one segment each */
	for (i = 0, start = a; start < w.n; i++, start += 44)
		seg(t, (uint32_t)(1 + start), w.b + start, 44, 10 + i);
	/* once 2 KiB are held, the hole is given up and all that follows flows */
	assert_int_equal(g.total, 100);
	assert_int_equal(xid_of(&g, 0), 10);
	assert_int_equal(tcp_table_counters(t)->lost_bytes, a);
	assert_int_equal(tcp_table_counters(t)->ooo_given_up, 1);
	assert_true(tcp_table_counters(t)->ooo_peak <= 2048);
}

/* A retransmitted SYN changes nothing; a SYN with a new ISN is a new connection. */
static void test_syn_again(void **state)
{

	(void)state;
	calls(&w, 1, 2, 100);
	syn(t, 1000);
	seg(t, 1001, w.b, 50, 1);
	syn(t, 1000);
	seg(t, 1051, w.b + 50, (uint32_t)w.n - 50, 2);
	assert_int_equal(g.n, 2);
	syn(t, 77777);
	seg(t, 77778, w.b, 104, 3);
	assert_int_equal(g.n, 3);
	assert_int_not_equal(g.r[2].conn, g.r[0].conn);
	assert_int_equal(tcp_table_counters(t)->lost_bytes, 0);
}

static void test_plausible(void **state)
{

	(void)state;
	call_msg(&w, 1, 40);
	assert_true(rpc_record_plausible(w.b, w.n, 1 << 24));
	w.b[11] = 7; /* msg_type 7 */
	assert_false(rpc_record_plausible(w.b, w.n, 1 << 24));
	assert_false(rpc_record_plausible(w.b, 8, 1 << 24));
}

/* Another protocol on a TCP connection: its bytes are not lost, they are not RPC. */
static void test_not_rpc(void **state)
{
	uint8_t d[3000];
	uint32_t x = 12345;

	(void)state;
	memcpy(d, "ceph v027", 9); /* a marker of 0x63657068 bytes: a bad record */
	for (size_t i = 9; i < sizeof(d); i++) {
		x = x * 1103515245 + 12345;
		d[i] = (uint8_t)(x >> 16);
	}
	syn(t, 1000);
	seg(t, 1001, d, 1500, 1);
	seg(t, 1001 + 1500 + 100, d + 1600, 1400, 2); /* a hole of 100 bytes, given up at the end */
	tcp_table_finish(t);
	assert_int_equal(g.n, 0);
	assert_int_equal(tcp_table_counters(t)->lost_bytes, 0);
	assert_int_equal(tcp_table_counters(t)->bad_records, 0);
	assert_int_equal(tcp_table_counters(t)->resyncs, 0);
	assert_int_equal(tcp_table_counters(t)->non_rpc_bytes, 3000);
	assert_int_equal(tcp_table_counters(t)->non_rpc_conns, 1);
}

/* A direction that loses sync before its first RPC record: once the record shows, what was
 * skipped before it is lost (a stream joined mid-record, as before). */
static void test_losses_held_until_rpc(void **state)
{
	uint8_t junk[64];

	(void)state;
	memset(junk, 0xff, sizeof(junk)); /* marker 0x7fffffff: a bad record */
	call_msg(&w, 7, 80);
	syn(t, 1000);
	seg(t, 1001, junk, sizeof(junk), 1);
	assert_int_equal(tcp_table_counters(t)->lost_bytes, 0);
	assert_int_equal(tcp_table_counters(t)->bad_records, 0);
	seg(t, 1001 + sizeof(junk), w.b, (uint32_t)w.n, 2);
	tcp_table_finish(t);
	want_xids(&g, 1, 7);
	assert_int_equal(tcp_table_counters(t)->lost_bytes, sizeof(junk));
	assert_int_equal(tcp_table_counters(t)->bad_records, 1);
	assert_int_equal(tcp_table_counters(t)->resyncs, 1);
	assert_int_equal(tcp_table_counters(t)->non_rpc_bytes, 0);
	assert_int_equal(tcp_table_counters(t)->non_rpc_conns, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_several_in_one_segment, fresh, done),
	    cmocka_unit_test_setup_teardown(test_one_over_many_segments, fresh, done),
	    cmocka_unit_test_setup_teardown(test_multi_fragment, fresh, done),
	    cmocka_unit_test_setup_teardown(test_retransmit_and_overlap, fresh, done),
	    cmocka_unit_test_setup_teardown(test_out_of_order, fresh, done),
	    cmocka_unit_test_setup_teardown(test_gap_in_body, fresh, done),
	    cmocka_unit_test_setup_teardown(test_calls_kept_whole, fresh, done),
	    cmocka_unit_test_setup_teardown(test_gap_resync, fresh, done),
	    cmocka_unit_test_setup_teardown(test_mid_stream, fresh, done),
	    cmocka_unit_test_setup_teardown(test_snaplen, fresh, done),
	    cmocka_unit_test_setup_teardown(test_absurd_length, fresh, done),
	    cmocka_unit_test_setup_teardown(test_bounded_memory, fresh, done),
	    cmocka_unit_test_setup_teardown(test_two_directions_and_udp, fresh, done),
	    cmocka_unit_test_setup_teardown(test_acked_unseen, fresh, done),
	    cmocka_unit_test_setup_teardown(test_queue_segments_cap, fresh, done),
	    cmocka_unit_test_setup_teardown(test_syn_again, fresh, done),
	    cmocka_unit_test_setup_teardown(test_plausible, fresh, done),
	    cmocka_unit_test_setup_teardown(test_not_rpc, fresh, done),
	    cmocka_unit_test_setup_teardown(test_losses_held_until_rpc, fresh, done),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
