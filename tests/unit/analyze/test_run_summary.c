/* SPDX-License-Identifier: MIT */
/* Unit tests: the parts every command wires the same way (analyze/run_summary.h): one clock
 * rule for the gaps' explanation, one set of options for the NFS statistics. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analyze/idle_explain.h"
#include "analyze/run_summary.h"
#include "formats/blktrace.h"
#include "formats/manifest.h"
#include "formats/pcap_src.h"

#define MS 1000000ull

static const char with_pairs[] =
    "{\"format\": \"iotape-run\", \"format_version\": 1, \"clock\": {"
    "\"start\": {\"realtime_ns\": 5000000000, \"trace_ns\": 1000},"
    "\"end\": {\"realtime_ns\": 6000000000, \"trace_ns\": 1000001000}}}";
static const char without_pairs[] = "{\"format\": \"iotape-run\", \"format_version\": 1}";

/* The explanation of one pass on the clock run_explain_*() choose for manifest m (NULL: none)
 * and a trace whose TIMESTAMP is st's. */
static struct ie_clock clock_of(const struct manifest *m, const struct bt_stats *st,
                                struct ie_clock *before_done)
{
	struct blk_analysis *a;
	struct idle_explain *x;
	struct blk_opts o;
	struct ie_clock c;

	blk_opts_init(&o);
	assert_int_equal(blk_analysis_new(&a, &o), 0);
	assert_int_equal(run_explain_new(&x, a, &o, m), 0);
	*before_done = x->host[0].clk;
	blk_analysis_finish(a);
	run_explain_block_done(x, m, st);
	c = x->host[0].clk;
	idle_explain_free(x);
	blk_analysis_free(a);
	return c;
}

/* Clock pairs win over the trace's TIMESTAMP; without them the TIMESTAMP places the trace;
 * with neither, no realtime clock. */
static void test_explain_clock(void **s)
{
	struct manifest pairs, none;
	struct iot_err e;
	struct bt_stats st;
	struct ie_clock c, before;

	(void)s;
	memset(&st, 0, sizeof(st));
	st.have_wallclock = 1;
	st.wall_sec = 7;
	st.wall_nsec = 11;
	assert_int_equal(manifest_parse(with_pairs, sizeof(with_pairs) - 1, &pairs, &e), 0);
	assert_int_equal(manifest_parse(without_pairs, sizeof(without_pairs) - 1, &none, &e), 0);
	assert_true(pairs.have_clock);
	assert_false(none.have_clock);

	c = clock_of(&pairs, &st, &before);
	assert_ptr_equal(before.m, &pairs);
	assert_ptr_equal(c.m, &pairs);
	assert_false(c.have_wall);

	c = clock_of(&none, &st, &before);
	assert_null(before.m);
	assert_null(c.m);
	assert_true(c.have_wall);
	assert_int_equal(c.wall_ns, 7000000011ll);

	c = clock_of(NULL, &st, &before);
	assert_null(c.m);
	assert_true(c.have_wall);

	c = clock_of(NULL, NULL, &before);
	assert_null(c.m);
	assert_false(c.have_wall);
	manifest_release(&pairs);
	manifest_release(&none);
}

/* The NFS statistics take the run's options: its top, its interval unless one is given. */
static void test_nfs_options(void **s)
{
	struct blk_opts o;
	struct run_nfs n;
	json_t *j, *in;
	struct iot_err stop = {"bad bytes at 42"};

	(void)s;
	blk_opts_init(&o);
	o.top = 3;
	o.interval_ns = 250 * MS;
	assert_int_equal(run_nfs_init(&n, &o, 0, NULL, 0), 0);
	assert_int_equal(n.s.cfg.top, 3);
	assert_int_equal(n.s.cfg.interval_ns, 250 * MS);
	j = run_nfs_finish(&n, NULL);
	assert_non_null(j);
	in = json_object_get(j, "input");
	assert_true(json_is_false(json_object_get(in, "partial")));
	assert_null(json_object_get(in, "error"));
	json_decref(j);
	run_nfs_release(&n);

	assert_int_equal(run_nfs_init(&n, &o, 5 * MS, NULL, 0), 0);
	assert_int_equal(n.s.cfg.top, 3);
	assert_int_equal(n.s.cfg.interval_ns, 5 * MS);
	j = run_nfs_finish(&n, &stop);
	in = json_object_get(j, "input");
	assert_true(json_is_true(json_object_get(in, "partial")));
	assert_string_equal(json_string_value(json_object_get(in, "error")), "bad bytes at 42");
	json_decref(j);
	run_nfs_release(&n);
}

/* The run summary keeps the options it was made with, for both of its passes. */
static void test_summary_options(void **s)
{
	struct run_summary r;
	struct blk_opts o, d;

	(void)s;
	blk_opts_init(&d);
	assert_int_equal(run_summary_init(&r, NULL), 0);
	assert_int_equal(r.o.top, d.top);
	assert_int_equal(r.o.interval_ns, d.interval_ns);
	assert_int_equal(r.o.idle_threshold_ns, d.idle_threshold_ns);
	run_summary_release(&r);

	o = d;
	o.top = 2;
	o.idle_threshold_ns = 3 * MS;
	assert_int_equal(run_summary_init(&r, &o), 0);
	assert_int_equal(r.o.top, 2);
	assert_int_equal(r.o.idle_threshold_ns, 3 * MS);
	run_summary_release(&r);
}

/* A capture through the run's NFS pipeline: the "nfs" object where the caller asks, the run's
 * top, the pipeline kept for a text view; bad bytes after good frames are partial results, the
 * error named after its capture. */
static void test_captures(void **s)
{
	static const char pcap[] = IOTAPE_SRCDIR "/samples/nfs/run/net.pcap";
	char path[] = "/tmp/iotape-captures-XXXXXX";
	struct nfs_pipe_file files[1] = {{.name = "net.pcap"}};
	struct pcap_src *src;
	struct run_summary r;
	struct run_captures c = {.src = &src, .files = files, .n = 1};
	struct blk_opts o;
	struct iot_err e;
	unsigned bad;
	json_t *into, *in;
	unsigned char buf[4096];
	FILE *f, *g;
	size_t len;
	int fd;

	(void)s;
	blk_opts_init(&o);
	o.top = 2;
	assert_int_equal(run_summary_init(&r, &o), 0);
	into = c.into = json_object();
	assert_int_equal(pcap_src_open(&src, pcap, &e), 0);
	assert_int_equal(run_summary_captures(&r, &c, &e, &bad), 0);
	pcap_src_free(src);
	assert_non_null(r.nfs);
	assert_int_equal(r.nfs->s.cfg.top, 2);
	assert_true(r.nfs->p.n.frames > 0);
	assert_non_null(json_object_get(into, "nfs"));
	assert_null(json_object_get(r.doc, "nfs"));
	assert_true(json_array_size(json_object_get(json_object_get(into, "nfs"), "slowest")) <= 2);

	/* the capture's first 4 KiB and a record header no capture has: partial */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	f = fopen(pcap, "rb");
	g = fopen(path, "wb");
	assert_non_null(f);
	assert_non_null(g);
	len = fread(buf, 1, sizeof(buf), f);
	assert_int_equal(len, sizeof(buf));
	fclose(f);
	/* whole records only: walk them (a pcap's 24-byte header, 16 bytes before each) */
	for (size_t off = 24;;) {
		uint32_t incl;

		memcpy(&incl, buf + off + 8, 4);
		if (off + 16 + incl > len) {
			len = off;
			break;
		}
		off += 16 + incl;
	}
	memset(buf + len, 0x7f, 16);
	assert_int_equal(fwrite(buf, 1, len + 16, g), len + 16);
	assert_int_equal(fclose(g), 0);
	json_decref(into);
	into = c.into = json_object();
	assert_int_equal(pcap_src_open(&src, path, &e), 0);
	assert_int_equal(run_summary_captures(&r, &c, &e, &bad), 1);
	pcap_src_free(src);
	assert_int_equal(bad, 0);
	assert_int_equal(strncmp(e.msg, "'net.pcap': ", 12), 0);
	in = json_object_get(json_object_get(into, "nfs"), "input");
	assert_true(json_is_true(json_object_get(in, "partial")));
	assert_string_equal(json_string_value(json_object_get(in, "error")), e.msg);
	json_decref(into);
	run_summary_release(&r);
	assert_int_equal(unlink(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_explain_clock),
	    cmocka_unit_test(test_nfs_options),
	    cmocka_unit_test(test_summary_options),
	    cmocka_unit_test(test_captures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
