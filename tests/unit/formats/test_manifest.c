/* SPDX-License-Identifier: MIT */
/* Unit tests: manifest parsing (typed, validated), saving, and the clock mapping. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/manifest.h"

static const char good[] =
    "{\"format\": \"iotape-run\", \"format_version\": 1, \"iotape_version\": \"0.1.0\","
    " \"future_field\": [1, 2, 3],"
    " \"backend\": {\"name\": \"tracefs\", \"reader\": \"pipe\"},"
    " \"clock\": {\"trace_clock\": \"mono\","
    "   \"start\": {\"realtime_ns\": 1000000000000, \"trace_ns\": 5000},"
    "   \"end\": {\"realtime_ns\": 1000000010100, \"trace_ns\": 10005000}},"
    " \"command\": {\"argv\": [\"dd\"], \"exit_status\": 3},"
    " \"devices\": [{\"name\": \"loop0\", \"major\": 7, \"minor\": 0, \"files\": "
    "\"loop0.blktrace\","
    "   \"events\": 126, \"mounts\": [{\"fstype\": \"xfs\", \"mountpoint\": \"/mnt\"}],"
    "   \"key\": \"osd.0 data\", \"role\": \"osd.0 data\", \"group\": \"osd.0\"},"
    "   {\"name\": \"vda1\", \"major\": 253, \"minor\": 1, \"mounts\": []}],"
    " \"threads\": [{\"pid\": 42, \"tgid\": 40, \"process\": \"ceph-osd\"}],"
    " \"network\": {\"interface\": \"lo\", \"file\": \"net.pcap\"},"
    " \"counts\": {\"events\": 130, \"lost\": 2, \"packets\": 40, \"packet_drops\": 1}}";

static void test_parse_good(void **state)
{
	struct manifest m;
	struct iot_err e;

	(void)state;
	assert_int_equal(manifest_parse(good, strlen(good), &m, &e), 0);
	assert_int_equal(m.format_version, 1);
	assert_string_equal(m.iotape_version, "0.1.0");
	assert_string_equal(m.backend, "tracefs");
	assert_true(m.have_clock);
	assert_int_equal(m.start_trace_ns, 5000);
	assert_int_equal(m.end_real_ns, 1000000010100ll);
	assert_true(m.have_exit_status);
	assert_int_equal(m.exit_status, 3);
	assert_int_equal(m.ndevs, 2);
	assert_string_equal(m.devs[0].name, "loop0");
	assert_int_equal(m.devs[0].major, 7);
	assert_string_equal(m.devs[0].files, "loop0.blktrace");
	assert_int_equal(m.devs[0].events, 126);
	assert_int_equal(m.devs[0].nmounts, 1);
	assert_string_equal(m.devs[0].fstype, "xfs");
	assert_string_equal(m.devs[0].key, "osd.0 data");
	assert_string_equal(m.devs[0].role, "osd.0 data");
	assert_string_equal(m.devs[0].group, "osd.0");
	assert_int_equal(m.devs[1].minor, 1);
	assert_null(m.devs[1].fstype);
	assert_null(m.devs[1].role);
	assert_ptr_equal(manifest_dev_find(&m, 253, 1), &m.devs[1]);
	assert_null(manifest_dev_find(&m, 253, 2));
	assert_string_equal(manifest_thread_process(&m, 42), "ceph-osd");
	assert_null(manifest_thread_process(&m, 40));
	assert_string_equal(m.pcap_file, "net.pcap");
	assert_int_equal(m.events, 130);
	assert_int_equal(m.lost, 2);
	assert_int_equal(m.packets, 40);
	assert_int_equal(m.packet_drops, 1);
	manifest_release(&m);
}

static void test_clock_mapping(void **state)
{
	struct manifest m;

	(void)state;
	assert_int_equal(manifest_parse(good, strlen(good), &m, NULL), 0);
	/* offset 999999995000 at the start, 1000000005100 at the end (100 ns of slew over
	 * 10 ms of trace time): interpolated linearly, clamped outside the run */
	assert_int_equal(manifest_trace_to_real(&m, 5000), 1000000000000ll);
	assert_int_equal(manifest_trace_to_real(&m, 10005000), 1000000010100ll);
	assert_int_equal(manifest_trace_to_real(&m, 5005000), 1000000005050ll);
	assert_int_equal(manifest_trace_to_real(&m, 0), 999999995000ll);
	assert_int_equal(manifest_real_to_trace(&m, 1000000000000ll), 5000);
	assert_int_equal(manifest_real_to_trace(&m, 1000000010100ll), 10005000);
	manifest_release(&m);
	/* today's realtime clock (2^60 ns and more): exact to the nanosecond, which doubles
	 * (256 ns steps there) are not */
	memset(&m, 0, sizeof(m));
	m.have_clock = 1;
	m.start_trace_ns = 1000000007;
	m.start_real_ns = 1700000000123456789ll;
	m.end_trace_ns = 61000000007;
	m.end_real_ns = 1700000060123456791ll; /* 2 ns of slew over 60 s */
	assert_int_equal(manifest_trace_to_real(&m, 1000000008), 1700000000123456790ll);
	assert_int_equal(manifest_trace_to_real(&m, 31000000007), 1700000030123456790ll);
	assert_int_equal(manifest_real_to_trace(&m, 1700000000123456791ll), 1000000009);
	assert_int_equal(manifest_real_to_trace(&m, 1700000060123456791ll), 61000000007);
}

static void expect_bad(const char *text, int code, const char *needle)
{
	struct manifest m;
	struct iot_err e;

	assert_int_equal(manifest_parse(text, strlen(text), &m, &e), code);
	if (!strstr(e.msg, needle))
		fail_msg("message '%s' does not mention '%s'", e.msg, needle);
	assert_null(m.root);
	assert_null(m.devs);
}

static void test_parse_bad(void **state)
{
	(void)state;
	expect_bad("not json", -EINVAL, "line 1");
	expect_bad("[1,2]", -EINVAL, "expected a JSON object");
	expect_bad("{\"format\": \"other\", \"format_version\": 1}", -EINVAL, "other");
	expect_bad("{\"format_version\": 1}", -EINVAL, "(missing)");
	expect_bad("{\"format\": \"iotape-run\", \"format_version\": 99}", -EPROTO, "99");
	expect_bad("{\"format\": \"iotape-run\"}", -EPROTO, "format_version");
	expect_bad("{\"format\": \"iotape-run\", \"format_version\": 1, \"format\": \"x\"}",
	           -EINVAL, "duplicate");
	expect_bad("{\"format\": \"iotape-run\", \"format_version\": 1, \"devices\": {}}", -EINVAL,
	           "devices");
	expect_bad("{\"format\": \"iotape-run\", \"format_version\": 1, \"devices\": [{}]}",
	           -EINVAL, "devices[0].name");
	expect_bad("{\"format\": \"iotape-run\", \"format_version\": 1, \"devices\": "
	           "[{\"name\": \"x\", \"major\": 4096}]}",
	           -EINVAL, "out of range");
	expect_bad("{\"format\": \"iotape-run\", \"format_version\": 1, \"devices\": "
	           "[{\"name\": 7}]}",
	           -EINVAL, "devices[0].name: expected a string");
	expect_bad("{\"format\": \"iotape-run\", \"format_version\": 1, \"clock\": "
	           "{\"start\": {\"realtime_ns\": \"soon\"}}}",
	           -EINVAL, "clock.start.realtime_ns");
	expect_bad("{\"format\": \"iotape-run\", \"format_version\": 1, \"counts\": "
	           "{\"events\": -1}}",
	           -EINVAL, "counts.events");
	expect_bad("{\"format\": \"iotape-run\", \"format_version\": 1, \"backend\": 3}", -EINVAL,
	           "backend");
	expect_bad("{\"format\": \"iotape-run\", \"format_version\": 1, \"devices\": "
	           "[{\"name\": \"x\", \"group\": 1}]}",
	           -EINVAL, "devices[0].group: expected a string");
	expect_bad("{\"format\": \"iotape-run\", \"format_version\": 1, \"threads\": {}}", -EINVAL,
	           "threads");
}

static void test_extreme_clock(void **state)
{
	static const char text[] =
	    "{\"format\": \"iotape-run\", \"format_version\": 1, \"clock\": {"
	    "\"start\": {\"realtime_ns\": 9223372036854775807, \"trace_ns\": "
	    "-9223372036854775808},"
	    "\"end\": {\"realtime_ns\": -9223372036854775808, \"trace_ns\": "
	    "9223372036854775807}}}";
	struct manifest m;

	(void)state;
	/* hostile values saturate, they do not overflow */
	assert_int_equal(manifest_parse(text, strlen(text), &m, NULL), 0);
	(void)manifest_trace_to_real(&m, INT64_MAX);
	(void)manifest_trace_to_real(&m, INT64_MIN);
	(void)manifest_real_to_trace(&m, INT64_MAX);
	(void)manifest_real_to_trace(&m, 0);
	manifest_release(&m);
}

static void test_save_load(void **state)
{
	char dir[] = "/tmp/iotape-ut-manifest-XXXXXX", cmd[128], file[128];
	struct manifest m;
	struct iot_err e;
	json_t *root;

	(void)state;
	assert_non_null(mkdtemp(dir));
	root = json_loads(good, 0, NULL);
	assert_non_null(root);
	assert_int_equal(manifest_save(dir, root, &e), 0);
	json_decref(root);
	assert_int_equal(manifest_load(dir, &m, &e), 0);
	assert_int_equal(m.ndevs, 2);
	manifest_release(&m);
	snprintf(file, sizeof(file), "%s/manifest.json", dir);
	assert_int_equal(manifest_load(file, &m, &e), 0);
	manifest_release(&m);
	/* no temporary left behind */
	snprintf(file, sizeof(file), "%s/.manifest.json.tmp", dir);
	assert_int_not_equal(access(file, F_OK), 0);
	assert_int_equal(manifest_load("/nonexistent-iotape", &m, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "/nonexistent-iotape"));
	root = json_object();
	assert_int_equal(manifest_save("/nonexistent-iotape", root, &e), -ENOENT);
	json_decref(root);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_good), cmocka_unit_test(test_clock_mapping),
	    cmocka_unit_test(test_parse_bad),  cmocka_unit_test(test_extreme_clock),
	    cmocka_unit_test(test_save_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
