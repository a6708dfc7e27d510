/* SPDX-License-Identifier: MIT */
/* Unit tests: records through the encoder thread's backlog give the files the reader's own
 * encoding gives, byte for byte, with the backlog over its cap (the encoder boosted, the reader
 * waiting) and without. */
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

#define T0 1000000000ull
#define DEV BLK_MKDEV(7, 7)
#define NIO                                                                                        \
	40000u /* ~3 MiB of records (80 bytes each in the backlog): three times the smallest cap   \
	        */

union rec {
	struct iot_bpf_io io;
	struct iot_bpf_name name;
};

static struct cap_backend_state *state_new(const char *dir)
{
	struct cap_dev dev = {.name = "loop7", .kdev = DEV};
	struct cap_backend_state *s = calloc(1, sizeof(*s));
	struct iot_err e;

	assert_non_null(s);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_non_null(s->names = bt_comm_table_new());
	assert_int_equal(cap_sink_new(&s->sink, dir, &dev, 1, "", &e), 0);
	cap_sink_names(s->sink, s->names); /* as bpf_start() */
	s->detail = CAP_DETAIL_IO;
	s->hold = HOLD_IO_MIN_NS;
	return s;
}

static void state_free(struct cap_backend_state *s)
{
	struct iot_err e;

	assert_int_equal(s->err, 0);
	assert_int_equal(cap_sink_close(s->sink, &e), 0);
	capbpf_spool_free(s);
	capbpf_order_free(s);
	bt_comm_table_free(s->names);
	free(s);
}

/* record i of a fixed stream: IOs of 8 issuing tasks on 2 CPUs completing out of order, each
 * task's name sent before its first IO */
static size_t record(unsigned i, union rec *r)
{
	uint32_t x = i * 2654435761u;
	uint64_t c = 4000ull * i + (x >> 20), q2c = 20000 + (x >> 18) % 200000;

	memset(r, 0, sizeof(*r));
	if (i % 5000 < 8) {
		r->name.pid = 100 + i % 5000;
		snprintf(r->name.comm, sizeof(r->name.comm), "task%u", i % 5000);
		r->name.kind = IOT_REC_NAME;
		return sizeof(r->name);
	}
	r->io.time = T0 + c;
	r->io.sector = (uint64_t)(x % 1000000) * 8;
	r->io.bytes = 4096u << (x % 3);
	r->io.action = BLK_A_COMPLETE |
	               (uint32_t)((x & 1 ? BLK_F_WRITE : BLK_F_READ) | BLK_F_COMPLETE | BLK_F_FS)
	                   << 16;
	r->io.pid = 100 + x % 2; /* named */
	r->io.dev = DEV;
	r->io.cpu = x % 2;
	r->io.cgroup = 1 + x % 3;
	r->io.kind = IOT_REC_IO;
	r->io.t_queue = T0 + c - q2c;
	r->io.t_issue = T0 + c - q2c / 2;
	r->io.issue_pid = 100 + (x >> 8) % 8;
	r->io.issue_cpu = (uint16_t)((x >> 9) % 2);
	r->io.nbio = 1;
	return sizeof(r->io);
}

static void *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void same_files(const char *a, const char *b)
{
	for (unsigned cpu = 0; cpu < 2; cpu++) {
		char pa[256], pb[256];
		size_t la, lb;
		void *fa, *fb;

		assert_int_equal(rundir_trace_path(pa, sizeof(pa), a, "loop7", cpu), 0);
		assert_int_equal(rundir_trace_path(pb, sizeof(pb), b, "loop7", cpu), 0);
		fa = slurp(pa, &la);
		fb = slurp(pb, &lb);
		assert_true(la > 100000);
		assert_int_equal(la, lb);
		assert_memory_equal(fa, fb, la);
		free(fa);
		free(fb);
	}
}

/* the stream encoded by the reader (drained every 512 records), and through the backlog */
static void run(uint64_t cap, int check_boosted)
{
	struct cap_backend_state *a, *b;
	struct iot_err e = {""};
	char da[128], db[128];
	union rec r;
	json_t *j;

	snprintf(da, sizeof(da), "%s/reader-%llu", tmpdir, (unsigned long long)cap);
	snprintf(db, sizeof(db), "%s/encoder-%llu", tmpdir, (unsigned long long)cap);
	a = state_new(da);
	b = state_new(db);
	assert_int_equal(capbpf_spool_new(b, cap, &e), 0);
	/* over the cap: the encoder takes nothing until the reader has filled 1.5 MiB (the
	 * encoder boosted at 1 MiB), then catches up while the reader goes on (and waits at 2) */
	if (check_boosted)
		capbpf_spool_pause(b, 1);
	for (unsigned i = 0; i < NIO; i++) {
		size_t len = record(i, &r);

		if (check_boosted && i == (3u << 19) / 80)
			capbpf_spool_pause(b, 0);

		assert_int_equal(capbpf_on_record(a, &r, len), 0);
		assert_int_equal(capbpf_spool_add(b, &r, len), 0);
		if (i % 512 == 511) {
			assert_int_equal(capbpf_flush(a, 0), 0);
			assert_int_equal(capbpf_spool_poll(b, 0, &e), 0);
		}
	}
	assert_int_equal(capbpf_flush(a, 1), 0);
	assert_int_equal(capbpf_spool_poll(b, 1, &e), 0);
	assert_int_equal(capbpf_flush(b, 1), 0);
	assert_int_equal(a->records, b->records);
	assert_int_equal(a->late, 0);
	assert_int_equal(b->late, 0);
	j = capbpf_spool_json(b);
	assert_string_equal(json_string_value(json_object_get(j, "thread")), "idle");
	if (check_boosted)
		assert_true(json_integer_value(json_object_get(j, "boosts")) > 0);
	assert_true(json_integer_value(json_object_get(j, "backlog_peak_bytes")) <=
	            (json_int_t)(2 * (cap > (1u << 20) ? cap : (1u << 20))));
	json_decref(j);
	state_free(a);
	state_free(b);
	same_files(da, db);
}

static void test_same_files(void **state)
{
	(void)state;
	run(256u << 20, 0);
}

static void test_same_files_over_cap(void **state)
{
	(void)state;
	/* the smallest cap, two chunks: the encoder is boosted and the reader waits */
	run(0, 1);
}

/* a capture that fails before its final drain: what waits is dropped, nothing leaks */
static void test_free_unfinished(void **state)
{
	struct cap_backend_state *s;
	struct iot_err e = {""};
	char d[128];
	union rec r;

	(void)state;
	snprintf(d, sizeof(d), "%s/unfinished", tmpdir);
	s = state_new(d);
	assert_int_equal(capbpf_spool_new(s, 0, &e), 0);
	for (unsigned i = 0; i < 20000; i++)
		assert_int_equal(capbpf_spool_add(s, &r, record(i, &r)), 0);
	capbpf_spool_free(s);
	assert_null(s->spool);
	state_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same_files),
	    cmocka_unit_test(test_same_files_over_cap),
	    cmocka_unit_test(test_free_unfinished),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown));
}

#else

int main(void)
{
	fprintf(stderr, "skipped: iotape was built without the bpf backend\n");
	return 77;
}

#endif
