/* SPDX-License-Identifier: MIT */
/* Unit tests: fio iolog lines (versions 2 and 3), the reader's events, the writer round trip. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include "formats/blktrace.h"
#include "formats/iolog.h"

static int parse(unsigned v, const char *line, struct iolog_rec *rec)
{
	struct iot_err e;

	return iolog_parse_line(v, line, strlen(line), rec, &e);
}

static void test_sniff(void **state)
{
	(void)state;
	assert_int_equal(iolog_sniff("fio version 3 iolog\n", 20), 3);
	assert_int_equal(iolog_sniff("fio version 2 iolog", 19), 2);
	assert_int_equal(iolog_sniff("fio version 2 iolo", 18), 0);
	assert_int_equal(iolog_sniff("fio version 1 iolog", 19), 0);
	assert_int_equal(iolog_sniff("\x00\x74\x61\x65", 4), 0);
}

static void test_parse_v3(void **state)
{
	struct iolog_rec r;

	(void)state;
	assert_int_equal(parse(3, "1234 /dev/loop0 write 8192 4096", &r), 1);
	assert_int_equal(r.op, IOLOG_WRITE);
	assert_int_equal(r.time_us, 1234);
	assert_int_equal(r.offset, 8192);
	assert_int_equal(r.len, 4096);
	assert_int_equal(r.file_len, 10);
	assert_memory_equal(r.file, "/dev/loop0", 10);
	assert_int_equal(parse(3, "0\t/tmp/f  add \r", &r), 1);
	assert_int_equal(r.op, IOLOG_ADD);
	assert_int_equal(r.file_len, 6);
	assert_int_equal(parse(3, "7 f trim 0 1048576", &r), 1);
	assert_int_equal(r.op, IOLOG_TRIM);
	assert_int_equal(parse(3, "7 f datasync 0 0", &r), 1);
	assert_int_equal(r.op, IOLOG_DATASYNC);
	assert_int_equal(parse(3, "   ", &r), 0);
	assert_int_equal(parse(3, "", &r), 0);
	/* wrong field counts, numbers, words */
	assert_int_equal(parse(3, "f read 0 4096", &r), -EINVAL);
	assert_int_equal(parse(3, "1 f read 0", &r), -EINVAL);
	assert_int_equal(parse(3, "1 f read 0 4096 9", &r), -EINVAL);
	assert_int_equal(parse(3, "x f read 0 4096", &r), -EINVAL);
	assert_int_equal(parse(3, "1 f read -1 4096", &r), -EINVAL);
	assert_int_equal(parse(3, "1 f reed 0 4096", &r), -EINVAL);
	assert_int_equal(parse(3, "1 f open 0 4096", &r), -EINVAL); /* a file action has no size */
	assert_int_equal(parse(3, "1 f read", &r), -EINVAL);        /* an op needs one */
	assert_int_equal(parse(3, "1 f read 18446744073709551616 1", &r), -EINVAL);
	assert_int_equal(parse(3, "1 f read 18446744073709551615 1", &r), 1);
	assert_int_equal(parse(3, "1 f read 0 4294967296", &r), -EINVAL);
	assert_int_equal(parse(4, "1 f read 0 1", &r), -EINVAL);
}

static void test_parse_v2(void **state)
{
	struct iolog_rec r;
	char longname[400];

	(void)state;
	assert_int_equal(parse(2, "/dev/sdb read 4096 512", &r), 1);
	assert_int_equal(r.op, IOLOG_READ);
	assert_int_equal(r.time_us, 0);
	assert_int_equal(r.offset, 4096);
	assert_int_equal(parse(2, "/dev/sdb wait 250 0", &r), 1);
	assert_int_equal(r.op, IOLOG_WAIT);
	assert_int_equal(r.offset, 250);
	assert_int_equal(parse(2, "/dev/sdb close", &r), 1);
	assert_int_equal(r.op, IOLOG_CLOSE);
	assert_int_equal(parse(2, "1 /dev/sdb read 4096 512", &r), -EINVAL);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	memcpy(longname + 300, " add", 4);
	assert_int_equal(parse(2, longname, &r), -EINVAL);
	/* a NUL byte in a line (fio's %s would end the name there): refused */
	{
		struct iot_err e;

		assert_int_equal(iolog_parse_line(2, "/t\0x read 0 4096", 17, &r, &e), -EINVAL);
		assert_non_null(strstr(e.msg, "NUL"));
	}
}

static char *write_tmp(const char *text, int gz)
{
	static char path[64];
	int fd;

	strcpy(path, "/tmp/iotape-test-iolog-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	if (gz) {
		gzFile g = gzdopen(fd, "wb");
		assert_non_null(g);
		assert_int_equal(gzwrite(g, text, (unsigned)strlen(text)), (int)strlen(text));
		assert_int_equal(gzclose(g), Z_OK);
	} else {
		assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
		close(fd);
	}
	return path;
}

static const char v3log[] = "fio version 3 iolog\n"
                            "0 /dev/loop0 add\n"
                            "1 /dev/loop1 add\n"
                            "2 /dev/loop0 open\n"
                            "100 /dev/loop0 read 4096 8192\n"
                            "150 /dev/loop1 write 1000 512\n"
                            "90 /dev/loop0 sync 0 0\n"
                            "\n"
                            "200 /dev/loop0 trim 1048576 65536\n"
                            "210 /dev/loop0 wait 5 0\n"
                            "300 /dev/loop0 close\n";

static void check_v3(const char *path)
{
	struct iolog_reader *r;
	struct blk_event ev;
	struct iot_err e;
	const struct iolog_stats *st;

	assert_int_equal(iolog_reader_open(&r, path, &e), 0);
	assert_int_equal(iolog_reader_next(r, &ev, &e), 1);
	assert_int_equal(ev.time, 100000);
	assert_int_equal(ev.dev, BLK_MKDEV(0, 1));
	assert_int_equal(ev.action, BLK_A_ISSUE);
	assert_int_equal(ev.sector, 8);
	assert_int_equal(ev.bytes, 8192);
	assert_int_equal(ev.flags, BLK_F_ISSUE | BLK_F_READ);
	assert_int_equal(iolog_reader_next(r, &ev, &e), 1);
	assert_int_equal(ev.dev, BLK_MKDEV(0, 2));
	assert_int_equal(ev.sector, 1);
	assert_int_equal(ev.flags, BLK_F_ISSUE | BLK_F_WRITE);
	assert_int_equal(iolog_reader_next(r, &ev, &e), 1);
	assert_int_equal(ev.time, 90000);
	assert_int_equal(ev.bytes, 0);
	assert_int_equal(ev.flags, BLK_F_ISSUE | BLK_F_WRITE | BLK_F_FLUSH);
	assert_int_equal(iolog_reader_next(r, &ev, &e), 1);
	assert_int_equal(ev.flags, BLK_F_ISSUE | BLK_F_WRITE | BLK_F_DISCARD);
	assert_int_equal(ev.bytes, 65536);
	assert_int_equal(ev.seq, 4);
	assert_int_equal(iolog_reader_next(r, &ev, &e), 0);
	st = iolog_reader_stats(r);
	assert_int_equal(st->version, 3);
	assert_int_equal(st->ios, 4);
	assert_int_equal(st->bytes, 8192 + 512 + 65536);
	assert_int_equal(st->unaligned, 1);
	assert_int_equal(st->ignored, 1); /* the v3 wait */
	assert_int_equal(st->backwards, 1);
	assert_int_equal(st->ops[IOLOG_ADD], 2);
	assert_int_equal(st->lines, 11);
	assert_int_equal(iolog_reader_nfiles(r), 2);
	assert_string_equal(iolog_reader_file(r, 2), "/dev/loop1");
	assert_null(iolog_reader_file(r, 3));
	iolog_reader_free(r);
}

static void test_reader_v3(void **state)
{
	char *p;

	(void)state;
	p = write_tmp(v3log, 0);
	check_v3(p);
	unlink(p);
	p = write_tmp(v3log, 1);
	check_v3(p);
	unlink(p);
}

static void test_reader_v2_and_errors(void **state)
{
	struct iolog_reader *r;
	struct blk_event ev;
	struct iot_err e;
	char *p;

	(void)state;
	p = write_tmp("fio version 2 iolog\nf add\nf read 0 4096\nf wait 20 0\nf write 512 512\n"
	              "fio version 2 iolog\nf read 0 4",
	              0);
	assert_int_equal(iolog_reader_open(&r, p, &e), 0);
	assert_int_equal(iolog_reader_next(r, &ev, &e), 1);
	assert_int_equal(ev.time, 0);
	assert_int_equal(iolog_reader_next(r, &ev, &e), 1);
	assert_int_equal(ev.time, 20000000);
	assert_int_equal(ev.sector, 1);
	/* a last line without its newline is a line */
	assert_int_equal(iolog_reader_next(r, &ev, &e), 1);
	assert_int_equal(ev.bytes, 4);
	assert_int_equal(iolog_reader_next(r, &ev, &e), 0);
	assert_int_equal(iolog_reader_stats(r)->ignored, 1);
	assert_false(iolog_reader_stats(r)->truncated);
	iolog_reader_free(r);
	unlink(p);

	/* cut in mid-line: a warning */
	p = write_tmp("fio version 3 iolog\n1 f read 0 4096\n2 f wri", 0);
	assert_int_equal(iolog_reader_open(&r, p, &e), 0);
	assert_int_equal(iolog_reader_next(r, &ev, &e), 1);
	assert_int_equal(iolog_reader_next(r, &ev, &e), 0);
	assert_true(iolog_reader_stats(r)->truncated);
	iolog_reader_free(r);
	unlink(p);

	/* a bad line in the middle: the error names the line */
	p = write_tmp("fio version 3 iolog\n1 f read 0 4096\n2 f rread 0 1\n3 f read 0 1\n", 0);
	assert_int_equal(iolog_reader_open(&r, p, &e), 0);
	assert_int_equal(iolog_reader_next(r, &ev, &e), 1);
	assert_int_equal(iolog_reader_next(r, &ev, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "line 3"));
	assert_non_null(strstr(e.msg, "rread"));
	iolog_reader_free(r);
	unlink(p);

	p = write_tmp("fio version 1 iolog\n", 0);
	assert_int_equal(iolog_reader_open(&r, p, &e), -EINVAL);
	unlink(p);
	p = write_tmp("", 0);
	assert_int_equal(iolog_reader_open(&r, p, &e), -EINVAL);
	unlink(p);
	assert_int_equal(iolog_reader_open(&r, "/nonexistent/iolog", &e), -ENOENT);
}

static void test_writer_roundtrip(void **state)
{
	struct iolog_writer *w;
	struct iolog_reader *r;
	struct blk_event ev;
	struct iot_err e;
	char path[] = "/tmp/iotape-test-iolog-w-XXXXXX";
	FILE *f;
	char text[512];
	size_t n;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(iolog_writer_open(&w, fd, path, 3, &e), 0);
	assert_int_equal(iolog_writer_line(w, 1, "/dev/sdb", IOLOG_ADD, 0, 0, &e), 0);
	assert_int_equal(iolog_writer_line(w, 1, "/dev/sdb", IOLOG_OPEN, 0, 0, &e), 0);
	assert_int_equal(
	    iolog_writer_line(w, 18446744073709551ull, "/dev/sdb", IOLOG_WRITE, 0, 4096, &e), 0);
	assert_int_equal(iolog_writer_line(w, 5, "/dev/sdb", IOLOG_WAIT, 0, 0, &e), -EINVAL);
	assert_int_equal(iolog_writer_line(w, 5, "a b", IOLOG_READ, 0, 0, &e), -EINVAL);
	assert_int_equal(iolog_writer_line(w, 20, "/dev/sdb", IOLOG_CLOSE, 0, 0, &e), 0);
	assert_int_equal(iolog_writer_close(w, &e), 0);
	/* the descriptor is the caller's: still open, at the end of what was written */
	assert_int_equal(lseek(fd, 0, SEEK_CUR), 109);
	close(fd);
	f = fopen(path, "r");
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	assert_string_equal(text, "fio version 3 iolog\n1 /dev/sdb add\n1 /dev/sdb open\n"
	                          "18446744073709551 /dev/sdb write 0 4096\n20 /dev/sdb close\n");
	assert_int_equal(iolog_reader_open(&r, path, &e), 0);
	assert_int_equal(iolog_reader_next(r, &ev, &e), 1);
	assert_int_equal(ev.time, 18446744073709551000ull);
	assert_int_equal(iolog_reader_next(r, &ev, &e), 0);
	iolog_reader_free(r);

	/* appended to, its last line (the close) taken back first */
	fd = open(path, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(iolog_writer_append(&w, fd, path, 3, 200, &e), -EINVAL);
	assert_null(w);
	assert_int_equal(iolog_writer_append(&w, fd, path, 3, strlen("20 /dev/sdb close\n"), &e),
	                 0);
	assert_int_equal(iolog_writer_line(w, 30, "/dev/sdb", IOLOG_CLOSE, 0, 0, &e), 0);
	assert_int_equal(iolog_writer_close(w, &e), 0);
	close(fd);
	f = fopen(path, "r");
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	assert_string_equal(text, "fio version 3 iolog\n1 /dev/sdb add\n1 /dev/sdb open\n"
	                          "18446744073709551 /dev/sdb write 0 4096\n30 /dev/sdb close\n");

	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(iolog_writer_open(&w, fd, path, 2, &e), 0);
	assert_int_equal(iolog_writer_line(w, 77, "f", IOLOG_READ, 512, 1024, &e), 0);
	assert_int_equal(iolog_writer_close(w, &e), 0);
	close(fd);
	f = fopen(path, "r");
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	assert_string_equal(text, "fio version 2 iolog\nf read 512 1024\n");
	unlink(path);
	assert_int_equal(iolog_writer_open(&w, -1, path, 4, &e), -EINVAL);
}

/* The blktrace reader takes an iolog as it takes a trace: its IOs as issue events. */
static void test_bt_reader(void **state)
{
	struct bt_reader *r;
	struct blk_event ev;
	struct iot_err e;
	const struct bt_stats *st;
	char *p;
	int n = 0;

	(void)state;
	p = write_tmp(v3log, 1);
	assert_int_equal(bt_reader_open(&r, p, &e), 0);
	while (bt_reader_next(r, &ev, &e) > 0) {
		assert_int_equal(ev.action, BLK_A_ISSUE);
		n++;
	}
	assert_int_equal(n, 4);
	st = bt_reader_stats(r);
	assert_int_equal(st->nfiles, 1);
	assert_string_equal(st->files[0].format, "fio iolog");
	assert_int_equal(st->files[0].iolog_version, 3);
	assert_int_equal(st->files[0].version, 0);
	assert_int_equal(st->files[0].records, 4);
	assert_int_equal(st->events, 4);
	bt_reader_free(r);
	unlink(p);
	/* a bad line is the reader's error, naming the line */
	p = write_tmp("fio version 3 iolog\n1 f read 0 512\n2 f read x 512\n", 0);
	assert_int_equal(bt_reader_open(&r, p, &e), 0);
	assert_int_equal(bt_reader_next(r, &ev, &e), 1);
	assert_int_equal(bt_reader_next(r, &ev, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "line 3"));
	bt_reader_free(r);
	unlink(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sniff),
	    cmocka_unit_test(test_parse_v3),
	    cmocka_unit_test(test_parse_v2),
	    cmocka_unit_test(test_reader_v3),
	    cmocka_unit_test(test_reader_v2_and_errors),
	    cmocka_unit_test(test_writer_roundtrip),
	    cmocka_unit_test(test_bt_reader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
