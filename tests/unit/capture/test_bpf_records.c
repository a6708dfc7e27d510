/* SPDX-License-Identifier: MIT */
/* Unit tests: the bpf backend's records decoded, every field of an io and an event record. */
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
#include "cpu_file.h"

#define T0 5000000000ull
#define DEV BLK_MKDEV(7, 3)
#define CG 0x123456789aull
#define CATS (BLK_F_READ | BLK_F_SYNC | BLK_F_FS)

static size_t read_cpu(unsigned cpu, struct blk_event *out, char (*pdu)[32], size_t max)
{
	return cpu_file_events(tmpdir, "loop3", cpu, out, pdu, max);
}

static void check(const struct blk_event *ev, uint16_t action, uint64_t t, uint32_t pid,
                  uint32_t cpu, uint32_t flags, uint16_t error)
{
	assert_int_equal(ev->action, action);
	assert_int_equal(ev->time, t);
	assert_int_equal(ev->sector, 777216);
	assert_int_equal(ev->bytes, 8192);
	assert_int_equal(ev->dev, DEV);
	assert_int_equal(ev->pid, pid);
	assert_int_equal(ev->cpu, cpu);
	assert_int_equal(ev->flags, flags);
	assert_int_equal(ev->cgroup, CG);
	assert_int_equal(ev->error, error);
}

/*
 * An io record (72 bytes: the completion laid out as an event record's head, then the queue
 * and issue times, the issuing task and CPU, the bios): Q and D on the issuing CPU with the
 * issuing task, C on the completing one with its error; the completing task's name from the
 * name record before it. Then an event record (88 bytes, its name inside): every field.
 */
static void test_records(void **state)
{
	struct cap_dev dev = {.name = "loop3", .kdev = DEV};
	struct cap_backend_state *s = calloc(1, sizeof(*s));
	struct iot_bpf_name nm = {.pid = 4321, .kind = IOT_REC_NAME};
	struct iot_bpf_name nf = {.pid = 1234, .kind = IOT_REC_NAME};
	struct iot_bpf_io r = {0};
	struct iot_bpf_ev e = {0};
	struct blk_event ev[8];
	char pdu[8][32];
	struct iot_err err;
	size_t n;

	(void)state;
	assert_non_null(s);
	assert_int_equal(sizeof(r), 72);
	assert_non_null(s->names = bt_comm_table_new());
	assert_int_equal(cap_sink_new(&s->sink, tmpdir, &dev, 1, "", &err), 0);
	cap_sink_names(s->sink, s->names); /* as bpf_start() */
	s->detail = CAP_DETAIL_IO;
	s->hold = HOLD_IO_MIN_NS;

	strcpy(nf.comm, "fio");
	strcpy(nm.comm, "loop3");
	assert_int_equal(capbpf_on_record(s, &nf, sizeof(nf)), 0);
	assert_int_equal(capbpf_on_record(s, &nm, sizeof(nm)), 0);
	r.time = T0 + 900;
	r.sector = 777216;
	r.cgroup = CG;
	r.bytes = 8192;
	r.action = BLK_A_COMPLETE | (uint32_t)(CATS | BLK_F_COMPLETE) << 16;
	r.pid = 4321;
	r.dev = DEV;
	r.cpu = 1;
	r.error = (uint16_t)-5;
	r.kind = IOT_REC_IO;
	r.t_queue = T0 + 100;
	r.t_issue = T0 + 300;
	r.issue_pid = 1234;
	r.issue_cpu = 0;
	r.nbio = 2;
	assert_int_equal(capbpf_on_record(s, &r, sizeof(r)), 0);

	e.time = T0 + 1000;
	e.sector = 777216;
	e.cgroup = CG;
	e.bytes = 8192;
	e.action = BLK_A_COMPLETE | (uint32_t)(CATS | BLK_F_COMPLETE) << 16;
	e.pid = 99;
	e.dev = DEV;
	e.cpu = 1;
	e.error = 0;
	e.kind = IOT_REC_EVENT;
	strcpy(e.comm, "kworker/u4:2");
	assert_int_equal(capbpf_on_record(s, &e, sizeof(e)), 0);
	assert_int_equal(s->records, 2);

	assert_int_equal(capbpf_flush(s, 1), 0);
	assert_int_equal(s->err, 0);
	assert_int_equal(cap_sink_close(s->sink, &err), 0);

	/* CPU 0: fio's name, then its Q and D (no error, no completion category) */
	n = read_cpu(0, ev, pdu, 8);
	assert_int_equal(n, 3);
	assert_true(blk_is_notify(&ev[0]) && ev[0].action == BLK_N_PROCESS);
	assert_int_equal(ev[0].pid, 1234);
	assert_string_equal(pdu[0], "fio");
	check(&ev[1], BLK_A_QUEUE, T0 + 100, 1234, 0,
	      (CATS & ~BLK_F_FS) | BLK_F_QUEUE | BLK_F_CGROUP, 0);
	check(&ev[2], BLK_A_ISSUE, T0 + 300, 1234, 0, CATS | BLK_F_ISSUE | BLK_F_CGROUP, 0);
	/* CPU 1: the completing task's name and its C with the error; the event record's name
	 * and its C */
	n = read_cpu(1, ev, pdu, 8);
	assert_int_equal(n, 4);
	assert_true(blk_is_notify(&ev[0]) && ev[0].action == BLK_N_PROCESS);
	assert_int_equal(ev[0].pid, 4321);
	assert_string_equal(pdu[0], "loop3");
	check(&ev[1], BLK_A_COMPLETE, T0 + 900, 4321, 1, CATS | BLK_F_COMPLETE | BLK_F_CGROUP,
	      (uint16_t)-5);
	assert_true(blk_is_notify(&ev[2]) && ev[2].action == BLK_N_PROCESS);
	assert_int_equal(ev[2].pid, 99);
	assert_string_equal(pdu[2], "kworker/u4:2");
	check(&ev[3], BLK_A_COMPLETE, T0 + 1000, 99, 1, CATS | BLK_F_COMPLETE | BLK_F_CGROUP, 0);

	capbpf_order_free(s);
	bt_comm_table_free(s->names);
	free(s);
}

/* a record shorter than its kind's struct is dropped, not read past its end */
static void test_short(void **state)
{
	struct cap_backend_state *s = calloc(1, sizeof(*s));
	struct iot_bpf_io r = {.kind = IOT_REC_IO, .time = T0};

	(void)state;
	assert_non_null(s);
	assert_int_equal(capbpf_on_record(s, &r, sizeof(r) - 8), 0);
	assert_int_equal(s->records, 0);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_records, tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test(test_short),
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
