/* SPDX-License-Identifier: MIT */
/* Unit tests: the movie's axes from a first pass (span, devices sorted, sector ranges, no events)
 * and from a run's manifest. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/blktrace.h"
#include "formats/manifest.h"
#include "movie/movie.h"

static char path[64];

static struct blk_event ev(unsigned act, uint64_t t, uint32_t dev, uint64_t sector, uint32_t bytes)
{
	struct blk_event e;

	memset(&e, 0, sizeof(e));
	e.action = (uint16_t)act;
	e.time = t;
	e.dev = dev;
	e.sector = sector;
	e.bytes = bytes;
	e.flags = BLK_F_WRITE;
	return e;
}

static void write_trace(const struct blk_event *e, size_t n)
{
	struct bt_writer *w;
	struct iot_err err;
	int fd;

	strcpy(path, "/tmp/iotape-ut-movie-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(bt_writer_open(&w, path, &err), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(bt_writer_write(w, &e[i], &err), 0);
	assert_int_equal(bt_writer_close(w, &err), 0);
}

static int probe(struct movie_probe *p, struct iot_err *e)
{
	struct bt_reader *rd;
	int ret;

	assert_int_equal(bt_reader_open(&rd, path, e), 0);
	ret = movie_probe_read(p, rd, e);
	bt_reader_free(rd);
	unlink(path);
	return ret;
}

static void test_span_and_devices(void **s)
{
	uint8_t name[] = "fio";
	struct blk_event e[] = {
	    ev(BLK_A_QUEUE, 100, BLK_MKDEV(8, 16), 5000, 4096),
	    ev(BLK_A_ISSUE, 110, BLK_MKDEV(8, 16), 5000, 4096),
	    ev(BLK_A_ISSUE, 120, BLK_MKDEV(8, 0), 64, 512),
	    ev(BLK_A_ISSUE, 130, BLK_MKDEV(8, 16), 100, 8192),
	    ev(BLK_A_ISSUE, 140, BLK_MKDEV(8, 16), 200, 0), /* a flush: no position */
	    ev(BLK_A_QUEUE, 150, BLK_MKDEV(9, 1), 7, 4096), /* queued only */
	    ev(BLK_A_COMPLETE, 900, BLK_MKDEV(8, 16), 5000, 4096),
	    ev(BLK_N_PROCESS, 5000, 0, 0, 0),
	};
	struct movie_probe p;
	struct iot_err err;

	(void)s;
	e[7].flags = BLK_F_NOTIFY; /* notifies say nothing of the span */
	e[7].pdu = name;
	e[7].pdu_len = sizeof(name);
	write_trace(e, sizeof(e) / sizeof(e[0]));
	assert_int_equal(probe(&p, &err), 0);
	assert_true(p.span == 800);
	assert_false(p.from_manifest);
	assert_int_equal(p.ndev, 3);
	assert_int_equal(p.dev[0].dev, BLK_MKDEV(8, 0));
	assert_true(p.dev[0].lo == 64 && p.dev[0].hi == 65 && p.dev[0].issues == 1);
	assert_int_equal(p.dev[1].dev, BLK_MKDEV(8, 16));
	assert_true(p.dev[1].lo == 100 && p.dev[1].hi == 5008 && p.dev[1].issues == 2);
	assert_int_equal(p.dev[2].dev, BLK_MKDEV(9, 1));
	assert_true(p.dev[2].lo == 0 && p.dev[2].hi == 1 && p.dev[2].issues == 0);
	movie_probe_release(&p);
}

static void test_ends_of_the_axis(void **s)
{
	struct blk_event e[] = {
	    ev(BLK_A_ISSUE, UINT64_MAX - 10, BLK_MKDEV(8, 0), UINT64_MAX, 4096),
	    ev(BLK_A_ISSUE, UINT64_MAX, BLK_MKDEV(8, 0), UINT64_MAX, 4096),
	};
	struct movie_probe p;
	struct iot_err err;

	(void)s;
	write_trace(e, 2);
	assert_int_equal(probe(&p, &err), 0);
	assert_true(p.span == 10);
	assert_true(p.dev[0].lo < p.dev[0].hi && p.dev[0].hi == UINT64_MAX);
	movie_probe_release(&p);
}

static void test_no_events(void **s)
{
	uint8_t name[] = "fio";
	struct blk_event e = ev(BLK_N_PROCESS, 5, 0, 0, 0);
	struct movie_probe p;
	struct iot_err err;

	(void)s;
	e.flags = BLK_F_NOTIFY;
	e.pdu = name;
	e.pdu_len = sizeof(name);
	write_trace(&e, 1);
	assert_int_equal(probe(&p, &err), -ENODATA);
	assert_non_null(strstr(err.msg, "no block events"));
	assert_null(p.dev);
}

static int from_manifest(const char *devices, struct movie_probe *p, struct iot_err *e)
{
	char doc[2048];
	struct manifest mf;
	int ret;

	snprintf(doc, sizeof(doc),
	         "{\"format\": \"iotape-run\", \"format_version\": 1, "
	         "\"devices\": [%s]}",
	         devices);
	assert_int_equal(manifest_parse(doc, strlen(doc), &mf, e), 0);
	ret = movie_probe_from_manifest(p, &mf, NULL, e);
	manifest_release(&mf);
	return ret;
}

/* The axes without reading the trace: the sectors issued, sorted, the span of all devices. */
static void test_manifest(void **s)
{
	struct movie_probe p;
	struct iot_err err;

	(void)s;
	assert_int_equal(
	    from_manifest(
	        "{\"name\": \"sdb\", \"major\": 8, \"minor\": 16, \"events\": 500, "
	        "\"first_event_ns\": 2000, \"last_event_ns\": 9000, \"issued\": {\"ios\": "
	        "100, \"lo_sector\": 64, \"end_sector\": 5008}}, "
	        "{\"name\": \"sda\", \"major\": 8, \"minor\": 0, \"events\": 3, "
	        "\"first_event_ns\": 1500, \"last_event_ns\": 1600, \"issued\": {\"ios\": "
	        "0}}",
	        &p, &err),
	    0);
	assert_true(p.from_manifest);
	assert_true(p.span == 7500);
	assert_int_equal(p.ndev, 2);
	/* as the first pass gives them: a device without IO gets the axis [0, 1) */
	assert_int_equal(p.dev[0].dev, BLK_MKDEV(8, 0));
	assert_true(p.dev[0].lo == 0 && p.dev[0].hi == 1 && p.dev[0].issues == 0);
	assert_int_equal(p.dev[1].dev, BLK_MKDEV(8, 16));
	assert_true(p.dev[1].lo == 64 && p.dev[1].hi == 5008 && p.dev[1].issues == 100);
	movie_probe_release(&p);
	/* the end of the u64 axis: written as signed JSON integers, read back */
	assert_int_equal(
	    from_manifest(
	        "{\"name\": \"sdb\", \"major\": 8, \"minor\": 16, \"first_event_ns\": -20, "
	        "\"last_event_ns\": -1, \"issued\": {\"ios\": 1, \"lo_sector\": -8, "
	        "\"end_sector\": -1}}",
	        &p, &err),
	    0);
	assert_true(p.span == 19);
	assert_true(p.dev[0].lo == UINT64_MAX - 7 && p.dev[0].hi == UINT64_MAX);
	movie_probe_release(&p);
	/* a run captured before iotape recorded them: the movie makes a first pass */
	assert_int_equal(from_manifest("{\"name\": \"sdb\", \"major\": 8, \"minor\": 16, "
	                               "\"events\": 5}",
	                               &p, &err),
	                 -ENODATA);
	assert_non_null(strstr(err.msg, "no span for sdb"));
	assert_int_equal(from_manifest("{\"name\": \"sdb\", \"major\": 8, \"minor\": 16, "
	                               "\"first_event_ns\": 1, \"last_event_ns\": 2}",
	                               &p, &err),
	                 -ENODATA);
	/* an end before the start is no span */
	assert_int_equal(from_manifest("{\"name\": \"sdb\", \"major\": 8, \"minor\": 16, "
	                               "\"first_event_ns\": 5, \"last_event_ns\": 2, \"issued\": "
	                               "{\"ios\": 0}}",
	                               &p, &err),
	                 -ENODATA);
	assert_int_equal(from_manifest("", &p, &err), -ENODATA);
	assert_null(p.dev);
}

/* A manifest whose issued sectors make no range is refused when it is read. */
static void test_manifest_bad_issued(void **s)
{
	/* the issued objects of device sdb (8,16) */
	const char *bad[] = {
	    "{\"ios\": 3}",
	    "{\"ios\": 3, \"lo_sector\": 9, \"end_sector\": 8}",
	    "{\"ios\": -1}",
	    "[1]",
	};

	(void)s;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char doc[512];
		struct manifest mf;
		struct iot_err err;

		snprintf(doc, sizeof(doc),
		         "{\"format\": \"iotape-run\", \"format_version\": 1, \"devices\": "
		         "[{\"name\": \"sdb\", \"major\": 8, \"minor\": 16, \"issued\": %s}]}",
		         bad[i]);
		assert_int_equal(manifest_parse(doc, strlen(doc), &mf, &err), -EINVAL);
		assert_non_null(strstr(err.msg, "devices[0].issued"));
	}
}

/* A manifest that does not describe the trace's files (issue #25 item 15: devices it named
 * but the trace lacked drew empty panels, the trace's own device went undrawn, a range of one
 * sector put every IO at the edge, all without a word): -ESTALE, and the movie makes the
 * first pass. */
static void test_manifest_against_files(void **s)
{
	static const char sdb[] = "{\"name\": \"sdb\", \"major\": 8, \"minor\": 16, "
	                          "\"events\": 500, \"first_event_ns\": 2000, "
	                          "\"last_event_ns\": 9000, \"issued\": {\"ios\": 100, "
	                          "\"lo_sector\": 64, \"end_sector\": 5008}}";
	static const char sdc[] = "{\"name\": \"sdc\", \"major\": 8, \"minor\": 32, "
	                          "\"events\": 7, \"first_event_ns\": 2000, "
	                          "\"last_event_ns\": 3000, \"issued\": {\"ios\": 0}}";
	static const char narrow[] = "{\"name\": \"sdb\", \"major\": 8, \"minor\": 16, "
	                             "\"events\": 500, \"first_event_ns\": 2000, "
	                             "\"last_event_ns\": 9000, \"issued\": {\"ios\": 100, "
	                             "\"lo_sector\": 64, \"end_sector\": 65}}";
	struct bt_file_stats files[2] = {{.path = "/run/sdb.blktrace.0"},
	                                 {.path = "/run/sdb.blktrace.1"}};
	struct bt_stats st = {.nfiles = 2, .files = files};
	const struct {
		const char *devices;
		int want;
		const char *says;
	} cases[] = {
	    {sdb, 0, NULL},
	    {"", -ENODATA, "names no device"},
	    {narrow, -ESTALE, "one sector for 100 IOs"},
	};
	struct movie_probe p;

	(void)s;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char doc[2048];
		struct manifest mf;
		struct iot_err err = {""};

		snprintf(doc, sizeof(doc),
		         "{\"format\": \"iotape-run\", \"format_version\": 1, \"devices\": [%s]}",
		         cases[i].devices);
		assert_int_equal(manifest_parse(doc, strlen(doc), &mf, &err), 0);
		assert_int_equal(movie_probe_from_manifest(&p, &mf, &st, &err), cases[i].want);
		if (cases[i].says)
			assert_non_null(strstr(err.msg, cases[i].says));
		movie_probe_release(&p);
		manifest_release(&mf);
	}
	{
		char doc[2048];
		struct manifest mf;
		struct iot_err err = {""};

		/* a device of the manifest with events and no file of the trace */
		snprintf(
		    doc, sizeof(doc),
		    "{\"format\": \"iotape-run\", \"format_version\": 1, \"devices\": [%s, %s]}",
		    sdb, sdc);
		assert_int_equal(manifest_parse(doc, strlen(doc), &mf, &err), 0);
		assert_int_equal(movie_probe_from_manifest(&p, &mf, &st, &err), -ESTALE);
		assert_non_null(strstr(err.msg, "device 'sdc' of the manifest (7 events)"));
		/* a file of the trace the manifest does not name */
		files[1].path = "/run/sdd.blktrace.0";
		mf.ndevs = 1;
		assert_int_equal(movie_probe_from_manifest(&p, &mf, &st, &err), -ESTALE);
		assert_non_null(strstr(err.msg, "does not name the trace's set 'sdd.blktrace'"));
		mf.ndevs = 2;
		manifest_release(&mf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_span_and_devices),
	    cmocka_unit_test(test_ends_of_the_axis),
	    cmocka_unit_test(test_no_events),
	    cmocka_unit_test(test_manifest),
	    cmocka_unit_test(test_manifest_bad_issued),
	    cmocka_unit_test(test_manifest_against_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
