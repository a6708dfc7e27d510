/* SPDX-License-Identifier: MIT */
/* Unit tests: the block pass maps devices, keeps the span and writes the documented JSON keys. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analyze/blk_analysis.h"
#include "test_blk_events.h"

static void test_document(void **s)
{
	struct blk_event ev[] = {
	    EV_Q(500, 0, 8, R),  EV_Q(1000, 8, 8, W), EV_D(1100, 8, 8, W),
	    EV_D(1200, 0, 8, R), EV_C(2100, 8, 8, W), EV_C(3200, 0, 8, R),
	};
	struct blk_event notify = EV_Q(0, 0, 0, R);
	struct blk_analysis *a;
	struct blk_opts o;
	json_t *root = json_object(), *devs, *d, *lat;
	static const char *const keys[] = {"dev",     "events",   "reads",      "writes",
	                                   "actions", "blkparse", "latency_ns", "matching",
	                                   "depth",   "idle",     "seeks",      "timeline"};

	(void)s;
	/* the read is on 8,16, the write on 8,0; 8,16 shows up first */
	ev[0].dev = ev[3].dev = ev[5].dev = BLK_MKDEV(8, 16);
	notify.flags = BLK_F_NOTIFY;
	notify.dev = BLK_MKDEV(9, 0);
	blk_opts_init(&o);
	assert_int_equal(blk_analysis_new(&a, &o), 0);
	blk_analysis_feed(a, &notify); /* ignored: no device, no time */
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		blk_analysis_feed(a, &ev[i]);
	blk_analysis_finish(a);
	assert_int_equal(blk_analysis_ndevices(a), 2);
	assert_int_equal(blk_analysis_device(a, 0), BLK_MKDEV(8, 16));
	assert_int_equal(blk_analysis_start(a), 500);
	assert_int_equal(blk_analysis_end(a), 3200);
	assert_int_equal(blk_analysis_to_json(a, root, 1), 0);
	assert_int_equal(json_integer_value(json_object_get(root, "span_ns")), 2700);
	assert_non_null(json_object_get(json_object_get(root, "timeline"), "interval_ns"));
	devs = json_object_get(root, "devices");
	assert_int_equal(json_array_size(devs), 2);
	d = json_array_get(devs, 0);
	assert_string_equal(json_string_value(json_object_get(d, "dev")), "8,0");
	assert_string_equal(json_string_value(json_object_get(json_array_get(devs, 1), "dev")),
	                    "8,16");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		assert_non_null(json_object_get(d, keys[i]));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(d, "writes"), "bytes")),
	                 4096);
	lat = json_object_get(json_object_get(d, "latency_ns"), "q2c");
	assert_int_equal(json_integer_value(json_object_get(lat, "count")), 1);
	assert_true(json_real_value(json_object_get(lat, "mean")) == 1100.0);
	assert_int_equal(json_integer_value(json_object_get(lat, "p50")), 1100);
	lat = json_object_get(json_object_get(json_array_get(devs, 1), "latency_ns"), "d2c");
	assert_int_equal(json_integer_value(json_object_get(lat, "max")), 2000);
	json_decref(root);
	blk_analysis_free(a);
}

static void test_empty(void **s)
{
	struct blk_analysis *a;
	struct blk_opts o;
	json_t *root = json_object();

	(void)s;
	blk_opts_init(&o);
	assert_int_equal(blk_analysis_new(&a, &o), 0);
	assert_int_equal(blk_analysis_to_json(a, root, 1), 0);
	assert_int_equal(json_array_size(json_object_get(root, "devices")), 0);
	assert_int_equal(json_integer_value(json_object_get(root, "span_ns")), 0);
	json_decref(root);
	blk_analysis_free(a);
}

/* Garbage in: random actions (known and not), devices, sectors near the top of the range,
 * sizes, flags and times that sometimes go backwards. Nothing may crash or grow without
 * bound (run under the sanitizers), and the document must still be written. */
static void test_random_events(void **s)
{
	struct blk_analysis *a;
	struct blk_opts o;
	uint64_t x = 0x9e3779b97f4a7c15ull, t = 1000;
	json_t *root = json_object();

	(void)s;
	blk_opts_init(&o);
	o.max_inflight = 256;
	o.max_bins = 64;
	o.interval_ns = 1000;
	assert_int_equal(blk_analysis_new(&a, &o), 0);
	for (unsigned i = 0; i < 200000; i++) {
		struct blk_event e;
		uint64_t r;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		r = x;
		memset(&e, 0, sizeof(e));
		t += (r & 7) == 0 ? (uint64_t) - (int64_t)(r >> 60) : (r >> 40) & 0xfff;
		e.time = t;
		e.action = (uint16_t)((r >> 8) % 24);
		e.dev = BLK_MKDEV(8, (r >> 16) % 6);
		e.sector = (r >> 20) & 1 ? UINT64_MAX - ((r >> 24) & 0xff) : (r >> 24) & 0x3fff;
		e.bytes = (uint32_t)(((r >> 40) % 64) * 512 + (((r >> 50) & 3) == 0 ? 100 : 0));
		e.flags = ((r >> 52) & 1 ? BLK_F_WRITE : BLK_F_READ) |
		          ((r >> 53) % 16 == 0 ? BLK_F_PC : BLK_F_FS) |
		          ((r >> 57) % 64 == 0 ? BLK_F_NOTIFY : 0);
		e.cpu = (uint32_t)((r >> 58) % 4);
		e.seq = i;
		blk_analysis_feed(a, &e);
	}
	blk_analysis_finish(a);
	assert_true(blk_analysis_ndevices(a) <= 6);
	assert_int_equal(blk_analysis_to_json(a, root, 1), 0);
	assert_true(json_array_size(json_object_get(root, "devices")) >= 1);
	assert_true(
	    json_integer_value(json_object_get(json_object_get(root, "timeline"), "bins")) <= 64);
	json_decref(root);
	blk_analysis_free(a);
}

/* Random but plausible events on a few devices: Q, G, I, M, D, C, requeues, notifies. */
static void random_events(struct blk_event *ev, unsigned n)
{
	uint64_t x = 0x243f6a8885a308d3ull, t = 5000;

	for (unsigned i = 0; i < n; i++) {
		struct blk_event *e = &ev[i];
		static const uint16_t acts[] = {BLK_A_QUEUE,      BLK_A_GETRQ,    BLK_A_INSERT,
		                                BLK_A_ISSUE,      BLK_A_COMPLETE, BLK_A_BACKMERGE,
		                                BLK_A_FRONTMERGE, BLK_A_REQUEUE,  BLK_A_PLUG};
		uint64_t r;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		r = x;
		memset(e, 0, sizeof(*e));
		t += (r >> 40) % 50000;
		e->time = t;
		e->action = acts[(r >> 8) % 9];
		e->dev = BLK_MKDEV(8, (r >> 16) % 3);
		e->sector = ((r >> 24) % 512) * 8;
		e->bytes = (uint32_t)(((r >> 33) % 4 + 1) * 4096);
		e->flags = ((r >> 52) & 1 ? BLK_F_WRITE : BLK_F_READ) |
		           ((r >> 57) % 128 == 0 ? BLK_F_NOTIFY : 0);
		e->cpu = (uint32_t)((r >> 58) % 2);
		e->seq = i;
		e->pid = 100 + (uint32_t)((r >> 60) % 3);
	}
}

static char *pass_json(const struct blk_event *ev, unsigned n, int split, unsigned chunk)
{
	struct blk_analysis *a;
	struct blk_opts o;
	json_t *root = json_object();
	char *text;

	blk_opts_init(&o);
	o.interval_ns = 100000000;
	o.idle_threshold_ns = 100000;
	assert_int_equal(blk_analysis_new(&a, &o), 0);
	if (split)
		blk_analysis_split(a);
	for (unsigned i = 0; i < n; i += chunk) {
		unsigned k = n - i < chunk ? n - i : chunk;

		if (split)
			blk_analysis_feed_side(a, ev + i, k);
		if (chunk == 1)
			blk_analysis_feed(a, ev + i);
		else
			blk_analysis_feed_batch(a, ev + i, k);
	}
	blk_analysis_finish(a);
	assert_int_equal(blk_analysis_to_json(a, root, 1), 0);
	text = json_dumps(root, JSON_SORT_KEYS | JSON_COMPACT);
	assert_non_null(text);
	json_decref(root);
	blk_analysis_free(a);
	return text;
}

/* Events fed in batches, or split over the two feeders, give the document of events fed one
 * by one, byte for byte. */
static void test_batches_equal_single(void **s)
{
	enum { N = 60000 };
	struct blk_event *ev = malloc(N * sizeof(*ev));
	char *one, *batch, *odd, *split;

	(void)s;
	assert_non_null(ev);
	random_events(ev, N);
	one = pass_json(ev, N, 0, 1);
	batch = pass_json(ev, N, 0, 4096);
	odd = pass_json(ev, N, 0, 333);
	split = pass_json(ev, N, 1, 777);
	assert_non_null(strstr(one, "\"q2c\""));
	assert_string_equal(one, batch);
	assert_string_equal(one, odd);
	assert_string_equal(one, split);
	free(split);
	free(one);
	free(batch);
	free(odd);
	free(ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_document),
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_random_events),
	    cmocka_unit_test(test_batches_equal_single),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
