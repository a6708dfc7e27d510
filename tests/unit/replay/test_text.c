/* SPDX-License-Identifier: MIT */
/* Unit tests: the block replay's text summary (replay/text.c) from stats filled by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replay.h"

#include "../memtext.h"

/* The text of st, malloc'ed. */
static char *render(const struct replay_stats *st)
{
	struct memtext m;

	replay_stats_text(memtext_start(&m), st);
	return memtext_end(&m);
}

/* A replay of 1000 reads and 500 writes over 2 s, replayed in 1 s with nothing to report. */
static void plain(struct replay_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->engine = "io_uring";
	st->trace_ios = 1500;
	st->ios = 1500;
	st->trace_ops[RP_OP_READ] = 1000;
	st->ops[RP_OP_READ] = 1000;
	st->trace_ops[RP_OP_WRITE] = 500;
	st->ops[RP_OP_WRITE] = 500;
	st->trace_op_bytes[RP_OP_READ] = st->op_bytes[RP_OP_READ] = 4096000;
	st->trace_op_bytes[RP_OP_WRITE] = st->op_bytes[RP_OP_WRITE] = 2048000;
	st->trace_bytes = st->bytes = 6144000;
	st->trace_span_ns = 2000000000;
	st->replay_span_ns = 1000000000;
	st->trace_max_depth = 8;
	st->max_inflight = 4;
	st->dep_waits = 7;
	st->depth_waits = 3;
	hist_init(&st->lag);
	hist_init(&st->lat);
}

static void test_plain(void **state)
{
	struct replay_stats st;
	char *s;

	(void)state;
	plain(&st);
	s = render(&st);
	assert_string_equal(
	    s,
	    "replayed 1500 of 1500 IOs on io_uring\n"
	    "  trace:           750 IOPS      2.93 MiB/s of reads and writes over 2.000 s, depth "
	    "up to 8\n"
	    "  replay:         1500 IOPS      5.86 MiB/s of reads and writes over 1.000 s "
	    "(50.00% of the trace's time), in flight up to 4\n"
	    "  reads:             1000 in the trace,      1000 replayed, 3.9 MiB of 3.9 MiB\n"
	    "  writes:             500 in the trace,       500 replayed, 2.0 MiB of 2.0 MiB\n"
	    "  waits:    7 for the dependency rule, 3 for the depth cap\n"
	    "  errors:   0\n");
	free(s);
}

/* Every optional line, each only when its count is not 0; discards are not data. */
static void test_optional_lines(void **state)
{
	struct rp_fid_result fid = {.expected = 10,
	                            .observed = 12,
	                            .equal = 8,
	                            .split = 1,
	                            .split_requests = 2,
	                            .merged = 1,
	                            .reordered = 3,
	                            .extra = 2};
	struct replay_stats st;
	char *s;

	(void)state;
	plain(&st);
	st.stopped = true;
	st.trace_ops[RP_OP_DISCARD] = 2;
	st.ops[RP_OP_DISCARD] = 1;
	st.trace_op_bytes[RP_OP_DISCARD] = 2u << 30;
	st.op_bytes[RP_OP_DISCARD] = 1u << 30;
	st.split_ios = st.split_ios_max = 5;
	st.split_requests = st.split_requests_max = 11;
	hist_add(&st.lag, 1500);
	hist_add(&st.lat, 250000);
	st.fidelity = &fid;
	st.skipped_writes = 4;
	st.skipped_range = 6;
	st.wrapped = 9;
	st.pend_evicted = 2;
	st.errors = 3;
	st.first_error = -EIO;
	st.first_error_seq = 42;
	s = render(&st);
	assert_non_null(strstr(s, "replayed 1500 of 1500 IOs on io_uring (interrupted)\n"));
	assert_non_null(strstr(s, "  discards:             2 in the trace,         1 replayed, "
	                          "covering 1.0 GiB of 2.0 GiB (not data: not in MiB/s)\n"));
	assert_non_null(strstr(s, "  split:    5 IOs longer than the target takes in one request "
	                          "went to it as 11 requests\n"));
	assert_non_null(strstr(s, "  issue lag: p50 "));
	assert_non_null(strstr(s, "  latency:  p50 "));
	assert_non_null(strstr(s, "  fidelity: 10 IOs onto block devices against the kernel's 12 "
	                          "requests (--capture)\n"));
	assert_non_null(strstr(s, "            8 as issued, 1 split (into 2 requests), 1 merged, 0 "
	                          "missing; 3 reordered; 2 requests not from the replay\n"));
	assert_non_null(strstr(s, "            sequence not equal\n"));
	assert_non_null(strstr(s, "  skipped:  4 writes (no --allow-writes)\n"));
	assert_non_null(strstr(s, "  skipped:  6 IOs past the end of the target"));
	assert_non_null(strstr(s, "  wrapped:  9 IOs\n"));
	assert_non_null(strstr(s, "  2 trace IOs had no completion event\n"));
	assert_non_null(strstr(s, "  errors:   3 (first: Input/output error, IO #42)\n"));
	/* counts of 0 say nothing */
	assert_null(strstr(s, "flushes:"));
	assert_null(strstr(s, "write-zeroes"));
	assert_null(strstr(s, "as reads"));
	assert_null(strstr(s, "page cache"));
	assert_null(strstr(s, "passthrough"));
	free(s);

	/* an estimate of splits gives both ends */
	st.split_ios_max = 7;
	st.split_requests_max = 15;
	st.split_estimate = true;
	s = render(&st);
	assert_non_null(strstr(s, "  split:    5 to 7 IOs longer than the target takes in one "
	                          "request went to it as 11 to 15 requests (an estimate: "));
	free(s);
}

/* No span: rates of 0, not a division by zero. */
static void test_empty(void **state)
{
	struct replay_stats st;
	char *s;

	(void)state;
	memset(&st, 0, sizeof(st));
	st.engine = "null";
	hist_init(&st.lag);
	hist_init(&st.lat);
	s = render(&st);
	assert_non_null(strstr(s, "  trace:             0 IOPS      0.00 MiB/s of reads and writes "
	                          "over 0.000 s"));
	assert_non_null(strstr(s, "(0.00% of the trace's time)"));
	assert_null(strstr(s, "reads:"));
	assert_null(strstr(s, "issue lag"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plain),
	    cmocka_unit_test(test_optional_lines),
	    cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
