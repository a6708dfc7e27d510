/* SPDX-License-Identifier: MIT */
/* --record: the replay's D and C events read back with the blktrace reader, and a manifest
 * that formats/manifest.c accepts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "formats/blktrace.h"
#include "formats/manifest.h"
#include "test_replay.h"

static size_t pos;

static int next(void *arg, struct blk_event *ev, struct iot_err *e)
{
	(void)arg;
	(void)e;
	if (pos == nev)
		return 0;
	*ev = evs[pos++];
	return 1;
}

static void test_record(void **state)
{
	char dir[] = "/tmp/iotape-ut-recdir.XXXXXX";
	struct replay_opts o = null_opts(NULL);
	struct replay_stats st;
	struct rp_source src = {.next = next};
	struct iot_err e = {{0}};
	struct bt_reader *r;
	struct blk_event ev;
	struct manifest m;
	char path[128], old[160], buf[16] = "";
	unsigned d = 0, c = 0;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	nev = pos = 0;
	add(BLK_A_ISSUE, 1000, 8, 4096, BLK_F_READ);
	add(BLK_A_COMPLETE, 2000, 8, 4096, BLK_F_READ);
	add(BLK_A_ISSUE, 3000, 16, 8192, BLK_F_WRITE | BLK_F_SYNC);
	add(BLK_A_ISSUE, 4000, 0, 0, BLK_F_WRITE | BLK_F_FLUSH);
	o.allow_writes = true;
	o.timing = RP_TIMING_AFAP;
	o.record_dir = dir;
	/* a manifest already there, hard-linked from elsewhere: replaced, never written into
	 * (manifest_save()'s rename; json_dump_file() wrote into it) */
	snprintf(old, sizeof(old), "%s.old", dir);
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	assert_non_null(f = fopen(old, "w"));
	fputs("old\n", f);
	fclose(f);
	assert_int_equal(link(old, path), 0);
	assert_int_equal(replay_run(&o, &src, &st, &e), 0);
	assert_non_null(f = fopen(old, "r"));
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "old\n");
	unlink(old);
	assert_int_equal(st.ios, 3);

	snprintf(path, sizeof(path), "%s/file", dir);
	assert_int_equal(bt_reader_open(&r, path, &e), 0);
	while (bt_reader_next(r, &ev, &e) > 0) {
		if (blk_is_notify(&ev))
			continue;
		if (ev.action == BLK_A_ISSUE) {
			static const uint64_t sectors[] = {8, 16, 0};
			static const uint32_t bytes[] = {4096, 8192, 0};

			assert_true(d < 3);
			assert_int_equal(ev.sector, sectors[d]);
			assert_int_equal(ev.bytes, bytes[d]);
			if (d == 1)
				assert_true(ev.flags & BLK_F_WRITE);
			if (d == 2)
				assert_true(ev.flags & BLK_F_FLUSH);
			d++;
		} else if (ev.action == BLK_A_COMPLETE) {
			c++;
		}
	}
	bt_reader_free(r);
	assert_int_equal(d, 3);
	assert_int_equal(c, 3);

	assert_int_equal(manifest_load(dir, &m, &e), 0);
	assert_int_equal(m.ndevs, 1);
	assert_string_equal(m.devs[0].name, "file");
	assert_int_equal(m.devs[0].events, 7); /* a PROCESS note, 3 D, 3 C */
	assert_true(m.have_clock);
	/* the one header (formats/manifest.h): the whole command line, the host with its kernel */
	assert_string_equal(json_string_value(json_object_get(m.root, "kind")), "replay");
	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(m.root, "iotape_argv"), 0)), "iotape");
	assert_non_null(json_object_get(json_object_get(m.root, "host"), "kernel"));
	manifest_release(&m);

	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_record),
	};

	return cmocka_run_group_tests(tests, target_setup, target_teardown);
}
