/* SPDX-License-Identifier: MIT */
/* export_fio_iolog(): a device's iolog (versions 3 and 2, D or Q events) and the job file. */
#include "test_export.h"

#include "export/export.h"

#include <sys/stat.h>

#define DEV_8_32 ((8u << 20) | 32u)

static void trace(void)
{
	static const uint8_t cdb[10] = {0x28};
	struct file f;

	file_open(&f, "io", 0);
	put(&f, 1000, BLK_A_QUEUE, BLK_F_WRITE | BLK_F_QUEUE, 2048, 8192, 1, 0, NULL, 0);
	put(&f, 1500, BLK_A_ISSUE, BLK_F_WRITE | BLK_F_ISSUE, 2048, 8192, 1, 0, NULL, 0);
	put(&f, 1002000, BLK_A_QUEUE, BLK_F_READ | BLK_F_QUEUE, 4096, 65536, 1, 0, NULL, 0);
	put(&f, 1003000, BLK_A_ISSUE, BLK_F_READ | BLK_F_ISSUE, 4096, 65536, 1, 0, NULL, 0);
	put(&f, 1004000, BLK_A_COMPLETE, BLK_F_WRITE | BLK_F_COMPLETE, 2048, 8192, 0, 0, NULL, 0);
	put(&f, 2002000, BLK_A_ISSUE, BLK_F_WRITE | BLK_F_FLUSH | BLK_F_ISSUE, 0, 0, 1, 0, NULL, 0);
	put(&f, 3002999, BLK_A_ISSUE, BLK_F_WRITE | BLK_F_DISCARD | BLK_F_ISSUE, 8192, 1048576, 1,
	    0, NULL, 0);
	put(&f, 3003000, BLK_A_ISSUE, BLK_F_PC | BLK_F_READ | BLK_F_ISSUE, 0, 512, 1, 0, cdb, 10);
	f.dev = DEV_8_32;
	put(&f, 2500000, BLK_A_ISSUE, BLK_F_READ | BLK_F_ISSUE, 16, 512, 1, 0, NULL, 0);
	file_close(&f);
}

static void test_v3(void **s)
{
	struct export_iolog_opts o;
	struct export_iolog_result res;
	struct export_target t = {DEV_8_32, "/dev/loop7", 0};
	struct iot_err e;
	char *log, *job;

	(void)s;
	trace();
	memset(&o, 0, sizeof(o));
	o.dir = tpath("out3");
	o.version = 3;
	o.targets = &t;
	o.ntargets = 1;
	assert_int_equal(export_fio_iolog(tpath("io"), &o, &res, &e), 0);
	assert_int_equal(res.ndevs, 2);
	assert_int_equal(res.devs[0].dev, DEV_8_16);
	assert_string_equal(res.devs[0].iolog, "dev8_16.iolog");
	assert_int_equal(res.devs[0].ios, 4);
	assert_int_equal(res.devs[0].skipped, 1); /* the passthrough request */
	assert_int_equal(res.devs[0].max_depth,
	                 4); /* the depth sink counts every D not completed */
	assert_int_equal(res.devs[0].iodepth, 4);
	assert_int_equal(res.devs[1].ios, 1);
	/* microseconds since the first IO of any device, plus one; the flush as datasync, the
	 * discard as trim, the passthrough request left out */
	log = slurp(tpath("out3/dev8_16.iolog"));
	assert_string_equal(log, "fio version 3 iolog\n"
	                         "1 /dev/dev8_16 add\n"
	                         "1 /dev/dev8_16 open\n"
	                         "1 /dev/dev8_16 write 1048576 8192\n"
	                         "1002 /dev/dev8_16 read 2097152 65536\n"
	                         "2001 /dev/dev8_16 datasync 0 0\n"
	                         "3002 /dev/dev8_16 trim 4194304 1048576\n"
	                         "3002 /dev/dev8_16 close\n");
	free(log);
	log = slurp(tpath("out3/dev8_32.iolog"));
	assert_string_equal(log, "fio version 3 iolog\n"
	                         "1 /dev/dev8_32 add\n"
	                         "1 /dev/dev8_32 open\n"
	                         "2499 /dev/dev8_32 read 8192 512\n"
	                         "2499 /dev/dev8_32 close\n");
	free(log);
	job = slurp(tpath("out3/replay.fio"));
	assert_non_null(strstr(job, "[global]\nioengine=libaio\ndirect=1\nthread\n"));
	assert_non_null(strstr(job, "\n[dev8_16]\nread_iolog="));
	assert_non_null(strstr(job,
	                       "/out3/dev8_16.iolog\nreplay_redirect=${IOTAPE_TARGET_dev8_16}\n"
	                       "iodepth=4\n"));
	assert_non_null(
	    strstr(job, "/out3/dev8_32.iolog\nreplay_redirect=/dev/loop7\niodepth=1\n"));
	free(job);
	export_iolog_result_release(&res);
}

/* Version 2 (no times), from the Q events. */
static void test_v2_queue(void **s)
{
	struct export_iolog_opts o;
	struct export_iolog_result res;
	struct iot_err e;
	char *log;

	(void)s;
	trace();
	memset(&o, 0, sizeof(o));
	o.dir = tpath("out2");
	o.version = 2;
	o.from_queue = true;
	o.ioengine = "psync";
	assert_int_equal(export_fio_iolog(tpath("io"), &o, &res, &e), 0);
	assert_int_equal(res.ndevs, 2);
	assert_int_equal(res.devs[0].ios, 2);
	assert_string_equal(res.devs[1].iolog, ""); /* no Q event: no log */
	log = slurp(tpath("out2/dev8_16.iolog"));
	assert_string_equal(log, "fio version 2 iolog\n"
	                         "/dev/dev8_16 add\n"
	                         "/dev/dev8_16 open\n"
	                         "/dev/dev8_16 write 1048576 8192\n"
	                         "/dev/dev8_16 read 2097152 65536\n"
	                         "/dev/dev8_16 close\n");
	free(log);
	log = slurp(tpath("out2/replay.fio"));
	assert_non_null(strstr(log, "ioengine=psync\n"));
	assert_null(strstr(log, "[dev8_32]"));
	free(log);
	export_iolog_result_release(&res);
}

/* Run directory run with manifest mf, and one 4 KiB read (at sector 8 * i, time 1000 * (i + 1)
 * ns) on each of n devices 8:16, 8:32, ..., exported as version 3 iologs into out. */
static void export_named(const char *run, const char *mf, unsigned n, const char *out,
                         struct export_iolog_result *res)
{
	char path[64];
	struct export_iolog_opts o;
	struct iot_err e;
	struct file f;
	FILE *m;

	assert_int_equal(mkdir(tpath(run), 0755), 0);
	snprintf(path, sizeof(path), "%s/manifest.json", run);
	m = fopen(tpath(path), "w");
	assert_non_null(m);
	fputs(mf, m);
	assert_int_equal(fclose(m), 0);
	snprintf(path, sizeof(path), "%s/io", run);
	file_open(&f, path, 0);
	for (unsigned i = 0; i < n; i++) {
		f.dev = (8u << 20) | (16u * (i + 1));
		put(&f, 1000 * (i + 1), BLK_A_ISSUE, BLK_F_READ | BLK_F_ISSUE, 8 * i, 4096, 1, 0,
		    NULL, 0);
	}
	file_close(&f);
	memset(&o, 0, sizeof(o));
	o.dir = tpath(out);
	o.version = 3;
	assert_int_equal(export_fio_iolog(tpath(run), &o, res, &e), 0);
}

/* Device names that the file-name rule maps to one name (and one cut at 63 bytes) get logs of
 * their own: the second gets _MAJOR_MINOR added, never the first's file. */
static void test_name_clash(void **s)
{
	static const char *mf =
	    "{\"format\": \"iotape-run\", \"format_version\": 1, \"devices\": ["
	    "{\"name\": \"osd 0\", \"major\": 8, \"minor\": 16, \"files\": \"io.blktrace\"},"
	    "{\"name\": \"osd/0\", \"major\": 8, \"minor\": 32, \"files\": \"io.blktrace\"}]}";
	struct export_iolog_result res;
	char *log;

	(void)s;
	export_named("run", mf, 2, "outc", &res);
	assert_int_equal(res.ndevs, 2);
	assert_string_equal(res.devs[0].iolog, "osd_0.iolog");
	assert_string_equal(res.devs[1].iolog, "osd_0_8_32.iolog");
	log = slurp(tpath("outc/osd_0.iolog"));
	assert_non_null(strstr(log, "/dev/osd_0 read 0 4096\n"));
	assert_null(strstr(log, "4096 4096"));
	free(log);
	log = slurp(tpath("outc/osd_0_8_32.iolog"));
	assert_non_null(strstr(log, "/dev/osd_0_8_32 read 4096 4096\n"));
	free(log);
	log = slurp(tpath("outc/replay.fio"));
	assert_non_null(strstr(log, "[osd_0]"));
	assert_non_null(strstr(log, "[osd_0_8_32]"));
	free(log);
	export_iolog_result_release(&res);
}

/* A placeholder's variable is one a shell can set: '-' and '.' of a device's name as '_'
 * (IOTAPE_TARGET_dm_0 for dm-0), and names that would share one made apart as clashing file
 * names are (dm_0 after dm-0 gets _MAJOR_MINOR). */
static void test_env_names(void **s)
{
	static const char *mf =
	    "{\"format\": \"iotape-run\", \"format_version\": 1, \"devices\": ["
	    "{\"name\": \"dm-0\", \"major\": 8, \"minor\": 16, \"files\": \"io.blktrace\"},"
	    "{\"name\": \"dm_0\", \"major\": 8, \"minor\": 32, \"files\": \"io.blktrace\"},"
	    "{\"name\": \"a.b\", \"major\": 8, \"minor\": 48, \"files\": \"io.blktrace\"}]}";
	struct export_iolog_result res;
	char *job;

	(void)s;
	export_named("runv", mf, 3, "outv", &res);
	assert_int_equal(res.ndevs, 3);
	assert_string_equal(res.devs[0].iolog, "dm-0.iolog");
	assert_string_equal(res.devs[1].iolog, "dm_0_8_32.iolog");
	assert_string_equal(res.devs[2].iolog, "a.b.iolog");
	job = slurp(tpath("outv/replay.fio"));
	assert_non_null(strstr(job, "\n[dm-0]\n"));
	assert_non_null(strstr(job, "/outv/dm-0.iolog\nreplay_redirect=${IOTAPE_TARGET_dm_0}\n"));
	assert_non_null(
	    strstr(job, "/outv/dm_0_8_32.iolog\nreplay_redirect=${IOTAPE_TARGET_dm_0_8_32}\n"));
	assert_non_null(strstr(job, "/outv/a.b.iolog\nreplay_redirect=${IOTAPE_TARGET_a_b}\n"));
	free(job);
	export_iolog_result_release(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_v3),
	    cmocka_unit_test(test_v2_queue),
	    cmocka_unit_test(test_name_clash),
	    cmocka_unit_test(test_env_names),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown));
}
