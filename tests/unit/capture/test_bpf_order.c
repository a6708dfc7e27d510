/* SPDX-License-Identifier: MIT */
/* Unit tests: the bpf backend's io records become Q, D and C in time order in each CPU's file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef IOTAPE_HAVE_BPF

#include "capture/bpf_int.h"
#include "formats/blktrace.h"
#include "formats/rundir.h"
#include "../tmpdir.h"

#define T0 1000000000ull /* the records' clock: 1 s */
#define FIO 100u
#define WORKER 200u
#define DEV BLK_MKDEV(7, 7)

static void name(struct cap_backend_state *s, uint32_t pid, const char *comm)
{
	struct iot_bpf_name n = {.pid = pid, .kind = IOT_REC_NAME};

	strncpy(n.comm, comm, sizeof(n.comm) - 1);
	assert_int_equal(capbpf_on_record(s, &n, sizeof(n)), 0);
}

/* an IO read from the ring buffer: issued by FIO on icpu, completed by WORKER on ccpu (its name
 * sent in a name record before when named) */
static void io(struct cap_backend_state *s, uint64_t q, uint64_t d, uint64_t c, uint32_t icpu,
               uint32_t ccpu, int named)
{
	struct iot_bpf_io r = {0};

	if (named)
		name(s, WORKER, "kworker/1:1");
	r.time = T0 + c;
	r.sector = q; /* tells the IOs apart */
	r.bytes = 4096;
	r.action = BLK_A_COMPLETE | (uint32_t)(BLK_F_READ | BLK_F_COMPLETE | BLK_F_FS) << 16;
	r.pid = WORKER;
	r.dev = DEV;
	r.cpu = ccpu;
	r.kind = IOT_REC_IO;
	r.t_queue = T0 + q;
	r.t_issue = T0 + d;
	r.issue_pid = FIO;
	r.issue_cpu = (uint16_t)icpu;
	r.nbio = 1;
	assert_int_equal(capbpf_on_record(s, &r, sizeof(r)), 0);
}

/* what a CPU's file must hold, in order: action (or 'N' a PROCESS notify), time, sector */
struct want {
	char what;
	uint64_t t, sector;
	const char *comm;
};

static void check_cpu(unsigned cpu, const struct want *w, size_t n)
{
	char path[128];
	uint8_t buf[4096];
	size_t len, off = 0, i = 0;
	struct blk_event ev;
	FILE *f;

	assert_int_equal(rundir_trace_path(path, sizeof(path), tmpdir, "loop7", cpu), 0);
	f = fopen(path, "rb");
	assert_non_null(f);
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	while (off < len) {
		long r = bt_decode(buf + off, len - off, &ev, NULL);

		assert_true(r > 0);
		off += (size_t)r;
		if (blk_is_notify(&ev) && ev.action == BLK_N_TIMESTAMP)
			continue;
		assert_true(i < n);
		assert_int_equal(ev.cpu, cpu);
		assert_int_equal(ev.time, T0 + w[i].t);
		if (w[i].what == 'N') {
			assert_true(blk_is_notify(&ev) && ev.action == BLK_N_PROCESS);
			assert_string_equal((const char *)ev.pdu, w[i].comm);
		} else {
			assert_false(blk_is_notify(&ev));
			assert_int_equal(ev.sector, w[i].sector);
			assert_int_equal(ev.action, w[i].what == 'Q'   ? BLK_A_QUEUE
			                            : w[i].what == 'D' ? BLK_A_ISSUE
			                                               : BLK_A_COMPLETE);
			assert_int_equal(ev.pid, w[i].what == 'C' ? WORKER : FIO);
			assert_int_equal(ev.flags & BLK_F_COMPLETE,
			                 w[i].what == 'C' ? BLK_F_COMPLETE : 0);
		}
		i++;
	}
	assert_int_equal(i, n);
}

/*
 * IOs out of order: B completes first but A was queued and issued before it (A's Q and D go
 * back before B's); C completes on another CPU before A but its record arrives after A's (an
 * interrupt overtook); G's Q and D tie with B's D (arrival order: after it); H's Q and D go
 * in around B's D and G's; then, after the oldest went out, E, whose Q and D are older than
 * what went out (a Q2C longer than the hold): counted late, still written, and the hold grows.
 */
static void test_io_order(void **state)
{
	struct cap_dev dev = {.name = "loop7", .kdev = DEV};
	struct cap_backend_state *s = calloc(1, sizeof(*s));
	const uint64_t ms = 1000000;
	const struct want cpu0[] = {
	    {'N', 900, 0, "fio"},
	    {'Q', 900, 900, NULL},
	    {'D', 950, 900, NULL},
	    {'Q', 1000, 1000, NULL},
	    {'Q', 1050, 1050, NULL},
	    {'D', 1100, 1000, NULL},
	    {'Q', 1100, 1100, NULL},
	    {'D', 1100, 1100, NULL},
	    {'D', 1150, 1050, NULL},
	    {'C', 3200, 2000, NULL},
	    {'Q', 200 * ms, 200 * ms, NULL},
	    {'D', 200 * ms + 100, 200 * ms, NULL},
	    {'C', 200 * ms + 200, 200 * ms, NULL},
	};
	const struct want cpu1[] = {
	    {'Q', 2000, 2000, NULL},     {'D', 2100, 2000, NULL}, {'N', 3000, 0, "kworker/1:1"},
	    {'C', 3000, 1000, NULL},     {'C', 3500, 900, NULL},  {'C', 3600, 1100, NULL},
	    {'C', 3700, 1050, NULL},     {'Q', 2400, 2400, NULL}, {'D', 2500, 2400, NULL},
	    {'C', 300 * ms, 2400, NULL},
	};
	struct iot_err e;

	(void)state;
	assert_non_null(s);
	assert_non_null(s->names = bt_comm_table_new());
	assert_int_equal(cap_sink_new(&s->sink, tmpdir, &dev, 1, "", &e), 0);
	s->detail = CAP_DETAIL_IO;
	s->hold = HOLD_IO_MIN_NS;

	name(s, FIO, "fio");
	io(s, 1000, 1100, 3000, 0, 1, 1); /* B */
	io(s, 900, 950, 3500, 0, 1, 0);   /* A */
	io(s, 2000, 2100, 3200, 1, 0, 0); /* C */
	io(s, 1100, 1100, 3600, 0, 1, 0); /* G: queued and issued at B's issue time, after it */
	io(s, 1050, 1150, 3700, 0, 1, 0); /* H: B's and G's D between its Q and D */
	assert_int_equal(capbpf_flush(s, 0), 0);
	assert_int_equal(s->last_out, 0);                         /* all within the hold */
	io(s, 200 * ms, 200 * ms + 100, 200 * ms + 200, 0, 0, 0); /* F */
	assert_int_equal(capbpf_flush(s, 0), 0);
	assert_int_equal(s->last_out, T0 + 3700); /* A, B, C, G, H out; F waits */
	assert_int_equal(s->late, 0);
	io(s, 2400, 2500, 300 * ms, 1, 1, 0); /* E */
	assert_int_equal(s->late, 2);
	assert_int_equal(s->hold, 2 * (300 * ms - 2400));
	assert_int_equal(capbpf_flush(s, 1), 0);
	assert_int_equal(s->err, 0);
	assert_int_equal(cap_sink_close(s->sink, &e), 0);
	check_cpu(0, cpu0, sizeof(cpu0) / sizeof(cpu0[0]));
	check_cpu(1, cpu1, sizeof(cpu1) / sizeof(cpu1[0]));
	capbpf_order_free(s);
	bt_comm_table_free(s->names);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_io_order, tmpdir_setup, tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void)
{
	fprintf(stderr, "skipped: iotape was built without the bpf backend\n");
	return 77;
}

#endif
