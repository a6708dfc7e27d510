/* SPDX-License-Identifier: MIT */
/* A replay's record (formats/nfs_rec.h): written calls read back by the capture decoders. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "formats/nfs_pipe.h"
#include "formats/nfs_rec.h"

struct seen {
	struct rpc_txn t[8];
	unsigned n;
};

static void on_txn(void *arg, const struct rpc_txn *t)
{
	struct seen *s = arg;

	if (s->n < 8)
		s->t[s->n++] = *t;
}

static void test_round_trip(void **state)
{
	char path[] = "/tmp/iotape-nfsrec-XXXXXX";
	int fd = mkstemp(path);
	struct nfs_rec *r;
	struct iot_err e;
	struct pcap_src *src;
	struct nfs_pipe p;
	struct tcp_cfg tc = {0};
	struct rpc_dec_cfg rc = {0};
	struct seen s = {.n = 0};
	const struct nfs_rec_call calls[] = {
	    {.stream = 0,
	     .proc = 7,
	     .fh = 11,
	     .offset = 4096,
	     .count = 8192,
	     .stable = 2,
	     .done = 8192,
	     .call_ns = 1000,
	     .reply_ns = 51000},
	    {.stream = 1,
	     .proc = 3,
	     .fh = 12,
	     .dir_fh = 10,
	     .name = "missing",
	     .status = 2,
	     .call_ns = 2000,
	     .reply_ns = 3000},
	    {.stream = 0,
	     .proc = 6,
	     .fh = 11,
	     .offset = 0,
	     .count = 4096,
	     .done = 100,
	     .call_ns = 60000,
	     .reply_ns = 61000},
	    {.stream = 0, .proc = 1, .fh = 11, .size = 12288, .call_ns = 70000, .reply_ns = 70500},
	};

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	unlink(path); /* nfs_rec_open refuses a file that exists */
	assert_int_equal(nfs_rec_open(&r, path, &e), 0);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(nfs_rec_write(r, &calls[i], &e), 0);
	assert_int_equal(nfs_rec_close(r, &e), 0);
	assert_int_not_equal(nfs_rec_open(&r, path, &e), 0);

	assert_int_equal(pcap_src_open(&src, path, &e), 0);
	assert_int_equal(nfs_pipe_init(&p, &tc, &rc, on_txn, &s), 0);
	assert_int_equal(nfs_pipe_run(&p, src, &e), 0);
	nfs_pipe_finish(&p);
	assert_int_equal(s.n, 4);
	/* in the order written (a call and its reply together, as the replay completes them) */
	assert_int_equal(s.t[1].proc, 3);
	assert_int_equal(s.t[1].rep.status, 2);
	assert_int_equal(s.t[1].call_ns, 2000);
	assert_int_equal(s.t[0].proc, 7);
	assert_int_equal(s.t[0].call.offset, 4096);
	assert_int_equal(s.t[0].call.count, 8192);
	assert_int_equal(s.t[0].rep.count, 8192);
	assert_int_equal(s.t[0].reply_ns - s.t[0].call_ns, 50000);
	assert_int_equal(s.t[2].proc, 6);
	assert_int_equal(s.t[2].rep.count, 100);
	assert_true(s.t[2].rep.eof);
	assert_int_equal(s.t[3].proc, 1);
	assert_true(s.t[3].rep.has_size);
	assert_int_equal(s.t[3].rep.size, 12288);
	assert_int_equal(rpc_dec_counters(p.rpc)->unmatched_replies, 0);
	assert_int_not_equal(s.t[0].conn_id, s.t[1].conn_id);
	nfs_pipe_release(&p);
	pcap_src_free(src);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
