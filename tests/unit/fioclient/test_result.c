/* SPDX-License-Identifier: MIT */
/* Unit tests: fio's client JSON output (after its notes) read into results; the combination. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fioclient/fioclient.h"

int fc_parse_output(const char *path, struct fc_result *res, struct iot_err *e);

/* What fio 3.33's client writes with --output-format=json --output=FILE (shortened). */
static const char fio_out[] =
    "<vm> a: (g=0): rw=read, bs=(R) 4096B-4096B, ioengine=libaio, iodepth=2\n"
    "<vm> Starting 1 thread\n"
    "<vm> \n"
    "\n"
    "{\n"
    "  \"fio version\" : \"fio-3.33\",\n"
    "  \"client_stats\" : [\n"
    "    {\"jobname\" : \"sdb\", \"error\" : 0, \"job_runtime\" : 250,\n"
    "     \"read\" : {\"io_bytes\" : 8192, \"total_ios\" : 2,\n"
    "       \"clat_ns\" : {\"min\" : 100, \"max\" : 900, \"mean\" : 500.0, \"N\" : 2,\n"
    "         \"percentile\" : {\"50.000000\" : 100, \"90.000000\" : 900, \"99.000000\" : 900,\n"
    "                         \"99.900000\" : 900}}},\n"
    "     \"write\" : {\"io_bytes\" : 4096, \"total_ios\" : 1,\n"
    "       \"clat_ns\" : {\"max\" : 50, \"mean\" : 50.0, \"N\" : 1}},\n"
    "     \"trim\" : {\"io_bytes\" : 0, \"total_ios\" : 0},\n"
    "     \"sync\" : {\"total_ios\" : 0, \"lat_ns\" : {\"N\" : 0}},\n"
    "     \"hostname\" : \"127.0.0.1\", \"port\" : 8765},\n"
    "    {\"jobname\" : \"sdc\", \"error\" : 5, \"job_runtime\" : 400,\n"
    "     \"read\" : {\"io_bytes\" : 4096, \"total_ios\" : 1,\n"
    "       \"clat_ns\" : {\"max\" : 300, \"mean\" : 300.0, \"N\" : 1,\n"
    "         \"percentile\" : {\"50.000000\" : 300}}},\n"
    "     \"hostname\" : \"127.0.0.1\", \"port\" : 8766},\n"
    "    {\"jobname\" : \"All clients\", \"job_runtime\" : 650,\n"
    "     \"read\" : {\"total_ios\" : 3, \"io_bytes\" : 12288}}\n"
    "  ]\n"
    "}\n"
    "<vm> trailing note\n";

static char *write_tmp(const char *text)
{
	static char path[64];
	FILE *f;
	int fd;

	strcpy(path, "/tmp/iotape-test-fiojson-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_parse(void **state)
{
	struct fc_dev devs[3];
	struct fc_result res;
	struct iot_err e;
	char *p = write_tmp(fio_out);

	(void)state;
	memset(&res, 0, sizeof(res));
	memset(devs, 0, sizeof(devs));
	strcpy(devs[0].x.name, "sdc");
	strcpy(devs[1].x.name, "sdb");
	strcpy(devs[2].x.name, "sdd"); /* fio never heard of it */
	res.devs = devs;
	res.ndevs = 3;
	assert_int_equal(fc_parse_output(p, &res, &e), 0);
	assert_true(devs[1].fio.have);
	assert_int_equal(devs[1].fio.ios[FC_READ], 2);
	assert_int_equal(devs[1].fio.ios[FC_WRITE], 1);
	assert_int_equal(devs[1].fio.bytes[FC_READ], 8192);
	assert_int_equal(devs[1].fio.runtime_ns, 250000000);
	assert_int_equal(devs[1].fio.lat[FC_READ].n, 2);
	assert_true(devs[1].fio.lat[FC_READ].p[1] == 900);
	assert_true(devs[1].fio.lat[FC_READ].mean == 500.0);
	assert_int_equal(devs[0].fio.error, 5);
	assert_false(devs[2].fio.have);
	/* combined: sums, the longest runtime, the mean over all, no percentiles of reads (two
	 * devices read), those of writes (one device wrote) */
	assert_true(res.all.have);
	assert_int_equal(res.all.ios[FC_READ], 3);
	assert_int_equal(res.all.runtime_ns, 400000000);
	assert_int_equal(res.all.error, 5);
	assert_int_equal(res.all.lat[FC_READ].n, 3);
	assert_true(fabs(res.all.lat[FC_READ].mean - 1300.0 / 3) < 1e-9);
	assert_int_equal(res.all.lat[FC_READ].max, 900);
	assert_true(res.all.lat[FC_READ].p[0] < 0);
	assert_true(res.all.lat[FC_WRITE].mean == 50.0);
	unlink(p);
}

static void test_parse_bad(void **state)
{
	struct fc_dev dev;
	struct fc_result res;
	struct iot_err e;
	char *p;

	(void)state;
	memset(&res, 0, sizeof(res));
	memset(&dev, 0, sizeof(dev));
	strcpy(dev.x.name, "sdb");
	res.devs = &dev;
	res.ndevs = 1;
	p = write_tmp("fio: failed to connect to 127.0.0.1:8765\n");
	assert_int_equal(fc_parse_output(p, &res, &e), -EINVAL);
	unlink(p);
	p = write_tmp("{\"client_stats\": [{\"jobname\": \"other\"}]}\n");
	assert_int_equal(fc_parse_output(p, &res, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "none of the jobs"));
	unlink(p);
	p = write_tmp("{\"client_stats\": [");
	assert_int_equal(fc_parse_output(p, &res, &e), -EINVAL);
	unlink(p);
	assert_int_equal(fc_parse_output("/nonexistent/fio.json", &res, &e), -ENOENT);
}

/* Hostile numbers (issue #25 item 10): 1e300 as a count was converted to an integer
 * (undefined behaviour), a job_runtime near 2^64 ms wrapped into a wrong ratio, and sums
 * wrapped; now counts saturate at UINT64_MAX, negatives and NaN are 0, and the JSON of the
 * result holds no negative number. */
static void test_parse_hostile(void **state)
{
	static const char doc[] =
	    "{\"client_stats\": [\n"
	    " {\"jobname\": \"sdb\", \"error\": 1e300, \"job_runtime\": 1.8446744073709e19,\n"
	    "  \"read\": {\"io_bytes\": 1e300, \"total_ios\": -5,\n"
	    "           \"clat_ns\": {\"N\": 1e19, \"max\": 1.8446744073709552e19,"
	    " \"mean\": 1.0}}},\n"
	    " {\"jobname\": \"sdc\", \"job_runtime\": 9223372036854775807,\n"
	    "  \"read\": {\"io_bytes\": 9223372036854775807, \"total_ios\": 3,\n"
	    "           \"clat_ns\": {\"N\": 9223372036854775807, \"mean\": 2.0}}}]}\n";
	struct fc_dev devs[2];
	struct fc_result res;
	struct fc_opts o;
	struct iot_err e;
	char *p = write_tmp(doc), *text;
	json_t *j;

	(void)state;
	memset(&res, 0, sizeof(res));
	memset(devs, 0, sizeof(devs));
	memset(&o, 0, sizeof(o));
	strcpy(devs[0].x.name, "sdb");
	strcpy(devs[1].x.name, "sdc");
	res.devs = devs;
	res.ndevs = 2;
	assert_int_equal(fc_parse_output(p, &res, &e), 0);
	unlink(p);
	assert_true(devs[0].fio.bytes[FC_READ] == UINT64_MAX);
	assert_true(devs[0].fio.ios[FC_READ] == 0);
	assert_true(devs[0].fio.error > 0);
	assert_true(devs[0].fio.runtime_ns == UINT64_MAX);
	assert_true(devs[0].fio.lat[FC_READ].n == 10000000000000000000ull);
	assert_true(devs[0].fio.lat[FC_READ].max == UINT64_MAX);
	assert_true(devs[1].fio.runtime_ns == UINT64_MAX);
	/* the sums saturate instead of wrapping */
	assert_true(res.all.bytes[FC_READ] == UINT64_MAX);
	assert_true(res.all.runtime_ns == UINT64_MAX);
	assert_true(res.all.lat[FC_READ].n == UINT64_MAX);
	o.run = "t";
	o.dir = "d";
	o.slots = &(struct fc_slot){.host = "h", .port = 1, .target = "x"};
	o.nslots = 1;
	j = fc_result_json(&o, &res);
	text = json_dumps(j, JSON_COMPACT);
	assert_non_null(text);
	assert_null(strstr(text, ":-"));
	assert_non_null(strstr(text, "\"duration_ns\":\"18446744073709551615\""));
	free(text);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_parse_bad),
	    cmocka_unit_test(test_parse_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
