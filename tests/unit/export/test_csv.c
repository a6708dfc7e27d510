/* SPDX-License-Identifier: MIT */
/* export_csv(): a row per event (process names as PROCESS notes give them), timeline rows. */
#include "test_export.h"

#include <fcntl.h>
#include <unistd.h>

#include "export/export.h"

/* The CSV of set NAME (malloc'ed); st filled. */
static char *csv_of(const char *set, bool timeline, struct export_stats *st)
{
	struct export_csv_opts o;
	struct iot_err e;
	char out[300], run[256];
	int fd;

	memset(&o, 0, sizeof(o));
	o.timeline = timeline;
	blk_opts_init(&o.blk);
	snprintf(run, sizeof(run), "%s", tpath(set));
	snprintf(out, sizeof(out), "%s.csv", run);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(export_csv(run, &o, fd, st, &e), 0);
	close(fd);
	return slurp(out);
}

static void test_events(void **s)
{
	struct file f0, f1;
	struct export_stats st;
	char *text;

	(void)s;
	file_open(&f0, "ev", 0);
	file_open(&f1, "ev", 1);
	put(&f0, 5000, BLK_A_QUEUE, BLK_F_WRITE | BLK_F_SYNC | BLK_F_QUEUE, 2048, 4096, 42, 0, NULL,
	    0);
	name(&f0, 5500, 42, 0, "a,b\"c");
	put(&f1, 6000, BLK_A_ISSUE, BLK_F_WRITE | BLK_F_SYNC | BLK_F_ISSUE, 2048, 4096, 42, 1, NULL,
	    0);
	put(&f0, 9000, BLK_A_COMPLETE, BLK_F_WRITE | BLK_F_SYNC | BLK_F_COMPLETE, 2048, 4096, 0, 0,
	    NULL, 0);
	put(&f1, 9500, BLK_A_QUEUE, BLK_F_FLUSH | BLK_F_WRITE | BLK_F_QUEUE, 0, 0, 7, 1, NULL, 0);
	file_close(&f0);
	file_close(&f1);
	text = csv_of("ev", false, &st);
	assert_string_equal(
	    text, "time_ns,device,cpu,sequence,pid,action,rwbs,sector,bytes,error,process\n"
	          "0,8:16,0,1,42,queue,WS,2048,4096,0,\n"
	          "1000,8:16,1,1,42,issue,WS,2048,4096,0,\"a,b\"\"c\"\n"
	          "4000,8:16,0,2,0,complete,WS,2048,4096,0,\n"
	          "4500,8:16,1,2,7,queue,FW,0,0,0,\n");
	assert_int_equal(st.events, 5); /* the note too */
	assert_int_equal(st.lines, 4);
	assert_int_equal(st.devices, 1);
	assert_int_equal(st.bytes, strlen(text));
	free(text);
}

/* --timeline: the timeline sink's bins, one row per device and interval. */
static void test_timeline(void **s)
{
	static const uint64_t at[] = {100000000, 500000000, 1500000000};
	struct file f;
	struct export_stats st;
	char *text;

	(void)s;
	file_open(&f, "tl", 0);
	for (unsigned i = 0; i < 3; i++) {
		put(&f, at[i], BLK_A_ISSUE, BLK_F_READ | BLK_F_ISSUE, i * 1000, 65536, 1, 0, NULL,
		    0);
		put(&f, at[i] + 1000000, BLK_A_COMPLETE, BLK_F_READ | BLK_F_COMPLETE, i * 1000,
		    65536, 0, 0, NULL, 0);
	}
	file_close(&f);
	text = csv_of("tl", true, &st);
	assert_string_equal(line(text, 0), "device,start_ns,width_ns,read_bytes,write_bytes,"
	                                   "read_mbps,write_mbps,ios,write_ios,iops,seeks,depth,"
	                                   "depth_max,idle_ns,idle_frac");
	/* from the first event (start_ns 0, as the event rows' time_ns): 0.1 s and 0.5 s in the
	 * first second, 1.5 s in the next */
	assert_string_equal(line(text, 1), "8:16,0,1000000000,131072,0,0.131072,0,2,0,2,1,"
	                                   "0.002,1,998000000,0.998");
	/* the last bin ends with the last event; the gap 0.501 s - 1.5 s is idle in both */
	assert_string_equal(line(text, 2), "8:16,1000000000,401000000,65536,0,0.163431421,0,1,0,"
	                                   "2.49376559,1,0.00249376559,1,400000000,0.997506234");
	assert_int_equal(count(text, "\n"), 3);
	assert_int_equal(st.lines, 2);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_events),
	    cmocka_unit_test(test_timeline),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown));
}
