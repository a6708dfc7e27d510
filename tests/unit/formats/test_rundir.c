/* SPDX-License-Identifier: MIT */
/* Unit tests: the run directory's layout, per-CPU sets and what an INPUT argument names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/rundir.h"
#include "../tmpdir.h"

static void touch(const char *name)
{
	FILE *f = fopen(tpath(name), "w");

	assert_non_null(f);
	fputs("x", f);
	fclose(f);
}

static void test_names(void **state)
{
	char buf[64];

	(void)state;
	assert_true(rundir_is_trace_file("sda.blktrace.0"));
	assert_true(rundir_is_trace_file("sda.blktrace.12.gz"));
	assert_true(rundir_is_trace_file("sda.blktrace.3.zst"));
	assert_true(rundir_is_trace_file("a.blktrace.x.blktrace.3"));
	assert_false(rundir_is_trace_file("sda.blktrace."));
	assert_false(rundir_is_trace_file("sda.blktrace.0.bz2"));
	assert_false(rundir_is_trace_file("sda.blktrace.0x"));
	assert_false(rundir_is_trace_file(".blktrace.0"));
	assert_false(rundir_is_trace_file("sda.blktrace"));
	assert_true(rundir_is_capture_file("net.pcap"));
	assert_true(rundir_is_capture_file("net.pcapng.zst"));
	assert_false(rundir_is_capture_file("net.pcap.bak"));
	assert_true(rundir_is_run_file("manifest.json"));
	assert_true(rundir_is_run_file("net.pcap.partial"));
	assert_true(rundir_is_run_file("loop0.blktrace.1"));
	assert_false(rundir_is_run_file("notes.txt"));
	assert_int_equal(rundir_trace_path(buf, sizeof(buf), "run", "loop0", 3), 0);
	assert_string_equal(buf, "run/loop0.blktrace.3");
	assert_int_equal(rundir_trace_path(buf, 8, "run", "loop0", 3), -ENAMETOOLONG);
}

static void test_scan(void **state)
{
	struct rundir rd;
	struct iot_err e;

	(void)state;
	assert_int_equal(mkdir(tpath("run"), 0755), 0);
	touch("run/sdb.blktrace.0");
	touch("run/sda.blktrace.10");
	touch("run/sda.blktrace.2");
	touch("run/sda.blktrace.0.gz");
	touch("run/net.pcapng");
	touch("run/net.pcap.gz");
	touch("run/notes.txt");
	assert_int_equal(rundir_scan(&rd, tpath("run"), &e), 0);
	assert_int_equal(rd.ntraces, 4);
	/* by set, then CPU by number (blkparse's order) */
	assert_string_equal(rd.traces[0], tpath("run/sda.blktrace.0.gz"));
	assert_string_equal(rd.traces[1], tpath("run/sda.blktrace.2"));
	assert_string_equal(rd.traces[2], tpath("run/sda.blktrace.10"));
	assert_string_equal(rd.traces[3], tpath("run/sdb.blktrace.0"));
	assert_int_equal(rd.ncaptures, 2);
	assert_string_equal(rd.captures[0], tpath("run/net.pcapng"));
	assert_null(rd.manifest);
	rundir_release(&rd);
	touch("run/net.pcap");
	touch("run/manifest.json");
	assert_int_equal(rundir_scan(&rd, tpath("run"), &e), 0);
	assert_string_equal(rd.captures[0], tpath("run/net.pcap"));
	assert_string_equal(rd.manifest, tpath("run/manifest.json"));
	rundir_release(&rd);
	assert_int_equal(rundir_scan(&rd, tpath("none"), &e), -ENOENT);
}

static void test_inputs(void **state)
{
	struct run_input ri;
	struct iot_err e;

	(void)state;
	assert_int_equal(mkdir(tpath("in"), 0755), 0);
	touch("in/t.blktrace.1");
	touch("in/t.blktrace.0");
	touch("in/tt.blktrace.0");
	touch("in/t.x.blktrace.0");
	touch("in/file.bin");
	assert_int_equal(run_input_open(&ri, tpath("in/t"), &e), 0);
	assert_int_equal(ri.kind, RUN_INPUT_SET);
	assert_int_equal(ri.nset, 2);
	assert_string_equal(ri.set[0], tpath("in/t.blktrace.0"));
	assert_string_equal(ri.set[1], tpath("in/t.blktrace.1"));
	run_input_release(&ri);
	assert_int_equal(run_input_open(&ri, tpath("in"), &e), 0);
	assert_int_equal(ri.kind, RUN_INPUT_DIR);
	assert_int_equal(ri.rd.ntraces, 4);
	run_input_release(&ri);
	assert_int_equal(run_input_open(&ri, tpath("in/file.bin"), &e), 0);
	assert_int_equal(ri.kind, RUN_INPUT_STREAM);
	assert_non_null(ri.in);
	run_input_release(&ri);
	assert_int_equal(run_input_open(&ri, tpath("in/u"), &e), -ENOENT);
	assert_non_null(strstr(e.msg, "no such file, directory or trace set"));
	/* a link loop and a dangling link are named as such, not as a missing set */
	assert_int_equal(symlink("loop", tpath("in/loop")), 0);
	assert_int_equal(run_input_open(&ri, tpath("in/loop"), &e), -ELOOP);
	assert_non_null(strstr(e.msg, "symbolic link loop"));
	assert_int_equal(symlink("gone", tpath("in/dangling")), 0);
	assert_int_equal(run_input_open(&ri, tpath("in/dangling"), &e), -ENOENT);
	assert_non_null(strstr(e.msg, "dangling symbolic link"));
	/* a set by a bare name, in the current directory: its files named without "./" */
	assert_int_equal(chdir(tpath("in")), 0);
	assert_int_equal(run_input_open(&ri, "t", &e), 0);
	assert_string_equal(ri.set[0], "t.blktrace.0");
	run_input_release(&ri);
	assert_int_equal(chdir("/"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_scan),
	    cmocka_unit_test(test_inputs),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown));
}
