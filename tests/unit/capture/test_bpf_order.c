/* SPDX-License-Identifier: MIT */
/* Unit tests: the bpf backend's io records become Q, D and C in time order in each CPU's file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef IOTAPE_HAVE_BPF

#include "capture/bpf_int.h"
#include "formats/blktrace.h"
#include "formats/rundir.h"
#include "../tmpdir.h"
#include "cpu_file.h"

#define T0 1000000000ull /* the records' clock: 1 s */
#define FIO 100u
#define WORKER 200u
#define DEV BLK_MKDEV(7, 7)

static void name(struct cap_backend_state *s, uint32_t pid, const char *comm)
{
	struct iot_bpf_name n = {.pid = pid, .kind = IOT_REC_NAME};

	memcpy(n.comm, comm, strnlen(comm, sizeof(n.comm) - 1));
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
	struct blk_event evs[32];
	char pdu[32][32];
	size_t got = cpu_file_events(tmpdir, "loop7", cpu, evs, pdu, 32);

	assert_int_equal(got, n);
	for (size_t i = 0; i < n; i++) {
		const struct blk_event *ev = &evs[i];

		assert_int_equal(ev->cpu, cpu);
		assert_int_equal(ev->time, T0 + w[i].t);
		if (w[i].what == 'N') {
			assert_true(blk_is_notify(ev) && ev->action == BLK_N_PROCESS);
			assert_string_equal(pdu[i], w[i].comm);
		} else {
			assert_false(blk_is_notify(ev));
			assert_int_equal(ev->sector, w[i].sector);
			assert_int_equal(ev->action, w[i].what == 'Q'   ? BLK_A_QUEUE
			                             : w[i].what == 'D' ? BLK_A_ISSUE
			                                                : BLK_A_COMPLETE);
			assert_int_equal(ev->pid, w[i].what == 'C' ? WORKER : FIO);
			assert_int_equal(ev->flags & BLK_F_COMPLETE,
			                 w[i].what == 'C' ? BLK_F_COMPLETE : 0);
		}
	}
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
	cap_sink_names(s->sink, s->names);
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

/* ---- the io level's files, byte for byte those of the records made one by one ---------- */

/* a fixed pseudo-random sequence (the same files every run) */
static uint32_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*x >> 33);
}

#define NIO 3000u
#define NCPU 3u

/* one IO of the fixture: its ring buffer record, and the same as the events it stands for */
struct fio {
	struct iot_bpf_io r;
	struct blk_event ev[3];  /* Q, D (time 0: none), C */
	char comm[IOT_BPF_COMM]; /* the completing task's name, sent before the record */
};

/* the events the blk tracer writes for an IO (docs/capture.md "bpf"): Q and D of the issuing
 * task and CPU with the completion's categories (Q without FS and PC), no error */
static void fio_events(struct fio *f)
{
	const struct iot_bpf_io *r = &f->r;
	struct blk_event c = {0};
	uint32_t cats = (r->action >> 16) & ~(uint32_t)BLK_F_COMPLETE;

	c.time = r->time;
	c.sector = r->sector;
	c.bytes = r->bytes;
	c.flags = r->action >> 16;
	c.action = (uint16_t)(r->action & 0xff);
	c.pid = r->pid;
	c.dev = r->dev;
	c.cpu = r->cpu;
	c.error = r->error;
	if (r->cgroup) {
		c.cgroup = r->cgroup;
		c.flags |= BLK_F_CGROUP;
	}
	f->ev[2] = c;
	for (int i = 0; i < 2; i++) {
		struct blk_event *x = &f->ev[i];

		*x = c;
		x->time = i ? f->r.t_issue : f->r.t_queue;
		x->pid = f->r.issue_pid;
		x->cpu = f->r.issue_cpu;
		x->error = 0;
		x->action = i ? BLK_A_ISSUE : BLK_A_QUEUE;
		x->flags = (i ? cats | BLK_F_ISSUE
		              : (cats & ~(uint32_t)(BLK_F_FS | BLK_F_PC)) | BLK_F_QUEUE) |
		           (c.flags & BLK_F_CGROUP);
	}
}

/*
 * IOs of four issuing tasks and a few completing ones (named by name records and by the IO
 * records, one never: the sink looks it up), of two devices and one that is not traced, on
 * three CPUs, some with a cgroup, an error, no Q or a Q at the D's time, ties of times;
 * completed out of order within 20 us, Q2C up to 2 ms over 190 ms: nothing late under the
 * 100 ms hold, which the records go out after as more come.
 */
static struct fio *fixture(void)
{
	static const uint32_t cats[] = {BLK_F_READ | BLK_F_FS, BLK_F_WRITE | BLK_F_SYNC | BLK_F_FS,
	                                BLK_F_READ | BLK_F_META | BLK_F_FS, BLK_F_WRITE | BLK_F_PC,
	                                BLK_F_WRITE | BLK_F_FUA | BLK_F_FLUSH | BLK_F_FS};
	static const uint32_t devs[] = {DEV, BLK_MKDEV(7, 8), BLK_MKDEV(7, 9)};
	struct fio *f = calloc(NIO, sizeof(*f));
	uint64_t x = 29, t = T0;

	assert_non_null(f);
	for (unsigned i = 0; i < NIO; i++) {
		struct iot_bpf_io *r = &f[i].r;
		uint32_t v = lcg(&x);

		/* 190 ms in all, longer than the hold: keys go out and move while others come */
		t += (v % 4) * 500 + (i % 8 ? 0 : 500000);
		r->time = t + lcg(&x) % 20 * 1000; /* in us: ties */
		r->sector = lcg(&x) % 100000 * 8;
		r->bytes = (1 + lcg(&x) % 32) * 4096;
		r->action = BLK_A_COMPLETE | (cats[lcg(&x) % 5] | (uint32_t)BLK_F_COMPLETE) << 16;
		r->pid = lcg(&x) % 3 ? 0 : WORKER + lcg(&x) % 2;
		r->dev = devs[lcg(&x) % 20 ? lcg(&x) % 2 : 2];
		r->cpu = lcg(&x) % NCPU;
		r->error = lcg(&x) % 50 ? 0 : 5;
		r->cgroup = lcg(&x) % 3 ? 0 : 1000 + lcg(&x) % 3;
		r->kind = IOT_REC_IO;
		if (r->pid == WORKER && !(lcg(&x) % 8))
			memcpy(f[i].comm, "kworker/0:2", 12);
		r->t_issue = r->time - (1 + lcg(&x) % 1000) * 1000;
		v = lcg(&x) % 10;
		r->t_queue = v == 0 ? 0 : v == 1 ? r->t_issue : r->t_issue - lcg(&x) % 1000 * 1000;
		r->issue_pid = FIO + lcg(&x) % 4; /* FIO + 3: never named */
		r->issue_cpu = lcg(&x) % NCPU;
		r->nbio = 1;
		fio_events(&f[i]);
	}
	return f;
}

/* a key of the events one by one: time, then arrival (Q, D, C of each IO in turn) */
struct ref {
	const struct blk_event *ev;
	unsigned at;
};

static int ref_cmp(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->ev->time != y->ev->time)
		return x->ev->time < y->ev->time ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

static void same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	static uint8_t ba[1 << 20], bb[1 << 20];
	size_t na, nb;

	assert_non_null(fa);
	assert_non_null(fb);
	na = fread(ba, 1, sizeof(ba), fa);
	nb = fread(bb, 1, sizeof(bb), fb);
	fclose(fa);
	fclose(fb);
	assert_true(na > 0 && na < sizeof(ba));
	assert_int_equal(na, nb);
	assert_memory_equal(ba, bb, na);
}

static void test_io_bytes(void **state)
{
	struct cap_dev devs[2] = {{.name = "loop7", .kdev = DEV},
	                          {.name = "loop8", .kdev = BLK_MKDEV(7, 8)}};
	struct cap_backend_state *s = calloc(1, sizeof(*s));
	struct fio *f = fixture();
	struct ref *refs = calloc(3 * NIO, sizeof(*refs));
	struct bt_comm_table *names = bt_comm_table_new();
	struct cap_sink *ref;
	struct iot_err e;
	unsigned n = 0, ncg[2];
	uint64_t ev[2], by[2];
	char a[256], b[256];
	const uint64_t *cg[2];

	(void)state;
	assert_non_null(s);
	assert_non_null(refs);
	assert_non_null(names);
	assert_non_null(s->names = bt_comm_table_new());
	assert_int_equal(mkdir(tpath("new"), 0755), 0);
	assert_int_equal(mkdir(tpath("ref"), 0755), 0);
	assert_int_equal(cap_sink_new(&s->sink, tpath("new"), devs, 2, "", &e), 0);
	cap_sink_names(s->sink, s->names);
	assert_int_equal(cap_sink_new(&ref, tpath("ref"), devs, 2, "", &e), 0);
	s->detail = CAP_DETAIL_IO;
	s->hold = HOLD_IO_MIN_NS;

	/* the new way: the ring buffer's records through the order and the sink */
	for (unsigned p = 0; p < 3; p++) {
		char comm[16];

		snprintf(comm, sizeof(comm), "fio-%u", p);
		name(s, FIO + p, comm);
		assert_int_equal(bt_comm_table_set(names, FIO + p, comm, strlen(comm)), 0);
	}
	for (unsigned i = 0; i < NIO; i++) {
		if (f[i].comm[0]) {
			name(s, f[i].r.pid, f[i].comm);
			assert_int_equal(
			    bt_comm_table_set(names, f[i].r.pid, f[i].comm, strlen(f[i].comm)), 0);
		}
		assert_int_equal(capbpf_on_record(s, &f[i].r, sizeof(f[i].r)), 0);
		if (i % 64 == 63)
			assert_int_equal(capbpf_flush(s, 0), 0);
	}
	assert_true(s->last_out > T0 + 50000000); /* some went out before the end */
	assert_int_equal(capbpf_flush(s, 1), 0);
	assert_int_equal(s->err, 0);
	assert_int_equal(s->late, 0);

	/* the events one by one, in time order, through cap_sink_event() */
	for (unsigned i = 0; i < NIO; i++)
		for (unsigned k = 0; k < 3; k++)
			if (f[i].ev[k].time) {
				refs[n].ev = &f[i].ev[k];
				refs[n].at = n;
				n++;
			}
	qsort(refs, n, sizeof(*refs), ref_cmp);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(
		    cap_sink_event(ref, refs[i].ev, bt_comm_table_get(names, refs[i].ev->pid), &e),
		    0);

	/* the same figures */
	cap_sink_counts(s->sink, &ev[0], &by[0]);
	cap_sink_counts(ref, &ev[1], &by[1]);
	assert_int_equal(ev[0], ev[1]);
	assert_int_equal(by[0], by[1]);
	assert_int_equal(cap_sink_foreign(s->sink), cap_sink_foreign(ref));
	assert_true(cap_sink_foreign(ref) > 0);
	cg[0] = cap_sink_cgroups(s->sink, &ncg[0]);
	cg[1] = cap_sink_cgroups(ref, &ncg[1]);
	assert_int_equal(ncg[0], 3);
	assert_int_equal(ncg[0], ncg[1]);
	assert_memory_equal(cg[0], cg[1], ncg[0] * sizeof(*cg[0]));
	for (unsigned d = 0; d < 2; d++) {
		struct blk_span x = cap_sink_dev_span(s->sink, d), y = cap_sink_dev_span(ref, d);

		assert_int_equal(cap_sink_dev_events(s->sink, d), cap_sink_dev_events(ref, d));
		assert_true(x.any && y.any);
		assert_int_equal(x.first, y.first);
		assert_int_equal(x.last, y.last);
		assert_int_equal(x.issued.ios, y.issued.ios);
		assert_int_equal(x.issued.lo, y.issued.lo);
		assert_int_equal(x.issued.hi, y.issued.hi);
	}
	assert_int_equal(cap_sink_close(s->sink, &e), 0);
	assert_int_equal(cap_sink_close(ref, &e), 0);

	/* the same files, byte for byte */
	for (unsigned d = 0; d < 2; d++)
		for (unsigned c = 0; c < NCPU; c++) {
			assert_int_equal(
			    rundir_trace_path(a, sizeof(a), tpath("new"), devs[d].name, c), 0);
			assert_int_equal(
			    rundir_trace_path(b, sizeof(b), tpath("ref"), devs[d].name, c), 0);
			same_file(a, b);
		}
	capbpf_order_free(s);
	bt_comm_table_free(s->names);
	bt_comm_table_free(names);
	free(s);
	free(refs);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_io_order, tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_io_bytes, tmpdir_setup, tmpdir_teardown),
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
