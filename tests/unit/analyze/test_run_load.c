/* SPDX-License-Identifier: MIT */
/* Unit tests: a run's block trace and packets through a feed (analyze/run_load.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <string.h>

#include "analyze/run_load.h"
#include "formats/blktrace.h"
#include "formats/instream.h"
#include "formats/manifest.h"
#include "formats/pcap_src.h"
#include "test_blk_events.h"
#include "../tmpdir.h"

/* What the feed saw, and what it answers. */
struct seen {
	int blocks, packets;
	const struct manifest *block_m, *clock;
	bool clock_has_pairs, block_m_has_pairs;
	int block_ret, packets_ret;
	int summaries;
	const char *summary_path;
};

static int feed_summary(void *ctx, const char *path, struct iot_err *e)
{
	struct seen *s = ctx;

	(void)e;
	s->summaries++;
	s->summary_path = path;
	return 0;
}

static int feed_block(void *ctx, struct bt_reader *rd, const struct manifest *m, struct iot_err *e)
{
	struct seen *s = ctx;

	(void)rd;
	s->blocks++;
	s->block_m = m;
	s->block_m_has_pairs = m && m->have_clock;
	if (s->block_ret > 0)
		iot_err_set(e, -EINVAL, "bad bytes at 7");
	return s->block_ret;
}

static int feed_packets(void *ctx, struct pcap_src *src, const struct manifest *clock,
                        struct iot_err *e)
{
	struct seen *s = ctx;
	const uint8_t *frame;
	uint32_t caplen;
	uint64_t ts;
	struct iot_err ignored;

	/* every frame read, as the NFS pipeline reads them (a cut capture says so at its end) */
	while (pcap_src_next(src, &frame, &caplen, &ts, &ignored) > 0)
		;
	s->packets++;
	s->clock = clock;
	s->clock_has_pairs = clock && clock->have_clock;
	if (s->packets_ret)
		iot_err_set(e, -EIO, "bad frame");
	return s->packets_ret;
}

/* An empty pcap (global header only, Ethernet); cut: a record header cut short after it. */
static struct in_stream *capture(bool cut)
{
	static const uint8_t pcap[24 + 8] = {0xd4, 0xc3, 0xb2, 0xa1, 2,    0,    4, 0, 0, 0, 0, 0,
	                                     0,    0,    0,    0,    0xff, 0xff, 0, 0, 1, 0, 0, 0};
	struct in_stream *in;
	struct iot_err e;

	assert_int_equal(in_stream_open_mem(&in, pcap, cut ? sizeof(pcap) : 24, "net.pcap", &e), 0);
	return in;
}

static struct bt_reader *trace(void)
{
	struct bt_writer *w;
	struct bt_reader *rd;
	struct iot_err e;
	struct blk_event ev = EV_D(1000, 0, 8, R);

	assert_int_equal(bt_writer_open(&w, tpath("t.blktrace.0"), &e), 0);
	assert_int_equal(bt_writer_write(w, &ev, &e), 0);
	assert_int_equal(bt_writer_close(w, &e), 0);
	assert_int_equal(bt_reader_open(&rd, tpath("t.blktrace.0"), &e), 0);
	return rd;
}

static const char *manifest_file(void)
{
	static const char m[] = "{\"format\": \"iotape-run\", \"format_version\": 1, \"clock\": {"
	                        "\"start\": {\"realtime_ns\": 5000000000, \"trace_ns\": 1000}}}";
	FILE *f = fopen(tpath("manifest.json"), "w");

	assert_non_null(f);
	fputs(m, f);
	fclose(f);
	return tpath("manifest.json");
}

/* Block and packets: the manifest to both, as the packets' clock too; the capture taken. */
static void test_both(void **st)
{
	struct seen s = {0};
	struct run_feed f = {feed_block, feed_packets, &s, NULL};
	struct run_src src = {trace(), manifest_file(), capture(false), NULL};
	struct run_load_notes n;
	struct iot_err e;

	(void)st;
	assert_int_equal(run_load(&src, &f, &n, &e), 0);
	assert_int_equal(s.blocks, 1);
	assert_int_equal(s.packets, 1);
	assert_true(s.block_m_has_pairs);
	assert_true(s.clock_has_pairs);
	assert_ptr_equal(s.clock, s.block_m);
	assert_null(src.capture);
	assert_true(n.block_read);
	assert_false(n.block_partial || n.capture_partial || n.capture_truncated);
	assert_string_equal(n.capture_name, "net.pcap");
	bt_reader_free(src.block);
}

/* Packets alone: no clock (nothing to lay them over); a cut capture is said so. */
static void test_packets_alone(void **st)
{
	struct seen s = {0};
	struct run_feed f = {feed_block, feed_packets, &s, NULL};
	struct run_src src = {NULL, manifest_file(), capture(true), NULL};
	struct run_load_notes n;
	struct iot_err e;

	(void)st;
	assert_int_equal(run_load(&src, &f, &n, &e), 0);
	assert_int_equal(s.blocks, 0);
	assert_int_equal(s.packets, 1);
	assert_null(s.clock);
	assert_false(n.block_read);
	assert_true(n.capture_truncated);
}

/* A summary run (no records): its summary.json to the feed's summary, or named when the feed
 * takes none; with records beside it, the records go through and the summary does not. */
static void test_summary_run(void **st)
{
	struct seen s = {0};
	struct run_feed f = {feed_block, feed_packets, &s, feed_summary};
	struct run_src src = {NULL, manifest_file(), NULL, "/r/summary.json"};
	struct run_load_notes n;
	struct iot_err e;

	(void)st;
	assert_int_equal(run_load(&src, &f, &n, &e), 0);
	assert_int_equal(s.summaries, 1);
	assert_string_equal(s.summary_path, "/r/summary.json");
	assert_true(n.summary_read);
	assert_int_equal(s.blocks + s.packets, 0);

	f.summary = NULL;
	assert_int_equal(run_load(&src, &f, &n, &e), -EOPNOTSUPP);
	assert_non_null(strstr(e.msg, "summary run"));

	memset(&s, 0, sizeof(s));
	f.summary = feed_summary;
	src = (struct run_src){trace(), NULL, NULL, "/r/summary.json"};
	assert_int_equal(run_load(&src, &f, &n, &e), 0);
	assert_int_equal(s.blocks, 1);
	assert_int_equal(s.summaries, 0);
	bt_reader_free(src.block);
}

/* Partial results of each part are kept apart; a failing capture names itself. */
static void test_partial_and_errors(void **st)
{
	struct seen s = {.block_ret = 1, .packets_ret = 1};
	struct run_feed f = {feed_block, feed_packets, &s, NULL};
	struct run_src src = {trace(), NULL, capture(false), NULL};
	struct run_load_notes n;
	struct iot_err e;

	(void)st;
	assert_int_equal(run_load(&src, &f, &n, &e), 0);
	assert_null(s.block_m);
	assert_true(n.block_read);
	assert_int_equal(n.block_partial, 1);
	assert_string_equal(n.block_e.msg, "bad bytes at 7");
	assert_int_equal(n.capture_partial, 1);
	assert_string_equal(n.capture_e.msg, "'net.pcap': bad frame");
	bt_reader_free(src.block);

	memset(&s, 0, sizeof(s));
	s.packets_ret = -EIO;
	src = (struct run_src){trace(), NULL, capture(false), NULL};
	assert_int_equal(run_load(&src, &f, &n, &e), -EIO);
	assert_string_equal(e.msg, "'net.pcap': bad frame");
	assert_true(n.block_read);
	assert_null(src.capture);
	bt_reader_free(src.block);

	/* a block trace that fails: the packets are not read */
	memset(&s, 0, sizeof(s));
	s.block_ret = -EIO;
	src = (struct run_src){trace(), NULL, capture(false), NULL};
	assert_int_equal(run_load(&src, &f, &n, &e), -EIO);
	assert_int_equal(s.packets, 0);
	assert_false(n.block_read);
	in_stream_close(src.capture);
	bt_reader_free(src.block);
}

/* A saved summary is taken; a run's manifest is named as one, anything else as no summary;
 * a summary cut short by bad bytes, in its block or its NFS part, says so. */
static void test_summary_doc(void **st)
{
	json_t *sum = json_pack("{s:[], s:{s:b}}", "devices", "input", "partial", 0);
	json_t *nfs = json_pack("{s:{s:{s:b}}}", "nfs", "input", "partial", 1);
	json_t *man = json_pack("{s:s}", "format", "iotape-run");
	json_t *other = json_pack("{s:i}", "x", 1);
	struct iot_err e;

	(void)st;
	assert_int_equal(run_summary_doc_check("s.json", sum, &e), 0);
	assert_false(run_summary_doc_partial(sum));
	assert_int_equal(run_summary_doc_check("n.json", nfs, &e), 0);
	assert_true(run_summary_doc_partial(nfs));
	json_object_set_new(json_object_get(sum, "input"), "partial", json_true());
	assert_true(run_summary_doc_partial(sum));
	assert_int_equal(run_summary_doc_check("m.json", man, &e), -EINVAL);
	assert_string_equal(e.msg, "'m.json': a run's manifest.json, not an 'iotape analyze "
	                           "--json' summary: give its run directory");
	assert_int_equal(run_summary_doc_check("o.json", other, &e), -EINVAL);
	assert_string_equal(e.msg, "'o.json': not an 'iotape analyze --json' summary (no devices, "
	                           "no nfs)");
	assert_int_equal(run_summary_doc_check("a.json", json_array_get(NULL, 0), &e), -EINVAL);
	json_decref(sum);
	json_decref(nfs);
	json_decref(man);
	json_decref(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_both),        cmocka_unit_test(test_packets_alone),
	    cmocka_unit_test(test_summary_run), cmocka_unit_test(test_partial_and_errors),
	    cmocka_unit_test(test_summary_doc),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown));
}
