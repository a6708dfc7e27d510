/* SPDX-License-Identifier: MIT */
/* Unit tests: a run set's hosts on one time axis in the report (report/report_axis.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <string.h>

#include "analyze/blk_analysis.h"
#include "formats/blkevent.h"
#include "report/report_axis.h"
#include "report/report_html.h"
#include "report/report_run.h"

/* A block pass that saw one device. */
static struct blk_analysis *one_device(void)
{
	struct blk_analysis *a;
	struct blk_event ev;
	struct blk_opts o;

	blk_opts_init(&o);
	assert_int_equal(blk_analysis_new(&a, &o), 0);
	memset(&ev, 0, sizeof(ev));
	ev.action = BLK_A_QUEUE;
	ev.time = 1000;
	ev.bytes = 4096;
	ev.flags = BLK_F_READ | BLK_F_FS;
	ev.dev = BLK_MKDEV(8, 0);
	blk_analysis_feed(a, &ev);
	assert_int_equal(blk_analysis_ndevices(a), 1);
	return a;
}

static void note_unplaced(void *ctx, size_t i)
{
	unsigned *mask = ctx;

	*mask |= 1u << i;
}

/* The earliest of every host's first event and NFS origin is 0; each host's graphs start at
 * its own; a host that cannot be placed is said and starts at 0; each host's offset on the
 * page is its pass's. */
static void test_axis(void **s)
{
	struct report_run runs[4];
	struct report_input in[4];
	unsigned mask = 0;

	(void)s;
	memset(runs, 0, sizeof(runs));
	memset(in, 0, sizeof(in));
	for (int i = 0; i < 3; i++) {
		runs[i].s.has_block = true;
		runs[i].s.blk = one_device();
	}
	runs[0].s.have_real_start = true;
	runs[0].s.real_start_ns = 10000000000ll;
	runs[1].s.have_real_start = true;
	runs[1].s.real_start_ns = 10500000000ll;
	/* host 1's calls, on their capture's realtime clock, 1 s behind the set's: the earliest */
	runs[1].s.real_off_ns = 1000000000;
	runs[1].nfs.txns = 1;
	runs[1].nfs.clock.origin = 10800000000ull;
	/* host 2: neither clock pairs nor a TIMESTAMP; host 3: no block devices at all */
	runs[3].s.has_block = false;

	report_runset_axis(in, runs, 4, note_unplaced, &mask);
	assert_int_equal(mask, 1u << 2);
	assert_true(in[0].t0_s == 0.2);
	assert_true(in[1].t0_s == 0.7);
	assert_true(in[2].t0_s == 0.0);
	assert_true(in[3].t0_s == 0.0);
	assert_true(runs[1].nfs.shift_s == 0.0);
	assert_true(runs[0].nfs.shift_s == 0.0);
	/* the offset the page shows is the one the pass applied */
	assert_int_equal(in[1].offset_ns, 1000000000);
	assert_int_equal(in[0].offset_ns, 0);

	/* without the NFS calls, host 0 is the earliest */
	runs[1].nfs.txns = 0;
	mask = 0;
	report_runset_axis(in, runs, 3, NULL, NULL);
	assert_true(in[0].t0_s == 0.0);
	assert_true(in[1].t0_s == 0.5);
	for (int i = 0; i < 3; i++)
		blk_analysis_free(runs[i].s.blk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_axis),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
