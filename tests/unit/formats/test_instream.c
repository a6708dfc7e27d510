/* SPDX-License-Identifier: MIT */
/* Unit tests: input streams (one open, the sniff on the stream, gzip, zstd, pipes, stdin). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "formats/instream.h"
#include "../tmpdir.h"

static int setup(void **state)
{
	signal(SIGPIPE, SIG_IGN);
	return tmpdir_setup(state);
}

static void write_file(const char *name, const void *b, size_t n)
{
	FILE *f = fopen(tpath(name), "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* Some bytes that look like a native-order blktrace v7 stream, then a pattern. */
static uint8_t *trace_bytes(size_t n)
{
	uint8_t *b = malloc(n);
	uint32_t magic = 0x65617407;

	assert_non_null(b);
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 7 + i / 251);
	memcpy(b, &magic, 4);
	return b;
}

static uint8_t *read_all(struct in_stream *s, size_t *len, int *err)
{
	size_t cap = 1 << 16, n = 0;
	uint8_t *b = malloc(cap);
	struct iot_err e;
	ssize_t r;

	*err = 0;
	for (;;) {
		if (n == cap)
			b = realloc(b, cap *= 2);
		r = in_stream_read(s, b + n, cap - n > 70000 ? 70000 : cap - n, &e);
		if (r <= 0) {
			*err = (int)r;
			break;
		}
		n += (size_t)r;
	}
	assert_int_equal((uint64_t)n, in_stream_offset(s));
	*len = n;
	return b;
}

static void test_sniff_bytes(void **state)
{
	static const struct {
		const char *bytes;
		size_t len;
		enum in_format f;
		unsigned version;
		int nsec;
	} cases[] = {
	    {"\x07\x74\x61\x65", 4, IN_FMT_BLKTRACE, 7, 0},
	    {"\x65\x61\x74\x08", 4, IN_FMT_BLKTRACE, 8, 0},
	    {"\x09\x74\x61\x65", 4, IN_FMT_UNKNOWN, 0, 0},
	    {"\xd4\xc3\xb2\xa1", 4, IN_FMT_PCAP, 0, 0},
	    {"\xa1\xb2\xc3\xd4", 4, IN_FMT_PCAP, 0, 0},
	    {"\x4d\x3c\xb2\xa1", 4, IN_FMT_PCAP, 0, 1},
	    {"\xa1\xb2\x3c\x4d", 4, IN_FMT_PCAP, 0, 1},
	    {"\x0a\x0d\x0d\x0a", 4, IN_FMT_PCAPNG, 0, 0},
	    {"  \n\t{\"a\": 1}", 12, IN_FMT_JSON, 0, 0},
	    {"[1]", 3, IN_FMT_JSON, 0, 0},
	    {"fio version 2 iolog\n/dev/sda add\n", 33, IN_FMT_IOLOG, 2, 0},
	    {"fio version 3 iolog\n", 20, IN_FMT_IOLOG, 3, 0},
	    {"fio version 3 iolog", 19, IN_FMT_IOLOG, 3, 0},
	    {"fio version 4 iolog\n", 20, IN_FMT_UNKNOWN, 0, 0},
	    {"fio version 2 iologx", 20, IN_FMT_UNKNOWN, 0, 0},
	    {"", 0, IN_FMT_EMPTY, 0, 0},
	    {"\x00\x00\x00\x00", 4, IN_FMT_UNKNOWN, 0, 0},
	    {"ab", 2, IN_FMT_UNKNOWN, 0, 0},
	};
	struct in_sniff s;
	uint32_t one = 1;
	int le = *(uint8_t *)&one;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		in_sniff_bytes((const uint8_t *)cases[i].bytes, cases[i].len, &s);
		assert_int_equal(s.format, cases[i].f);
		assert_int_equal(s.version, cases[i].version);
		assert_int_equal(s.nsec, cases[i].nsec);
	}
	/* byte order: records in little-endian order are native here when the host is */
	in_sniff_bytes((const uint8_t *)"\x07\x74\x61\x65", 4, &s);
	assert_int_equal(s.swapped, !le);
	in_sniff_bytes((const uint8_t *)"\x65\x61\x74\x07", 4, &s);
	assert_int_equal(s.swapped, le);
	in_sniff_bytes((const uint8_t *)"\xd4\xc3\xb2\xa1", 4, &s); /* little-endian writer */
	assert_int_equal(s.swapped, !le);
	assert_int_equal(in_sniff_codec((const uint8_t *)"\x1f\x8b\x08", 3), IN_GZIP);
	assert_int_equal(in_sniff_codec((const uint8_t *)"\x28\xb5\x2f\xfd", 4), IN_ZSTD);
	assert_int_equal(in_sniff_codec((const uint8_t *)"\x28\xb5", 2), IN_PLAIN);
	assert_string_equal(in_format_name(IN_FMT_PCAPNG), "pcapng");
	assert_string_equal(in_codec_name(IN_ZSTD), "zstd");
}

static void expect_stream(struct in_stream *s, const uint8_t *want, size_t n, enum in_codec codec,
                          enum in_format fmt)
{
	size_t len;
	int err;
	uint8_t *got;

	assert_int_equal(in_stream_sniff(s)->codec, codec);
	assert_int_equal(in_stream_sniff(s)->format, fmt);
	got = read_all(s, &len, &err);
	assert_int_equal(err, 0);
	assert_int_equal(len, n);
	assert_memory_equal(got, want, n);
	free(got);
}

static void test_plain_file(void **state)
{
	size_t n = 3 << 20;
	uint8_t *b = trace_bytes(n);
	struct in_stream *s;
	struct iot_err e;
	uint64_t size = 0;

	(void)state;
	write_file("plain.bin", b, n);
	assert_int_equal(in_stream_open(&s, tpath("plain.bin"), &e), 0);
	assert_true(in_stream_mappable(s, &size) >= 0);
	assert_int_equal(size, n);
	expect_stream(s, b, n, IN_PLAIN, IN_FMT_BLKTRACE);
	in_stream_close(s);
	/* a small file: the head holds all of it */
	write_file("small.bin", b, 10);
	assert_int_equal(in_stream_open(&s, tpath("small.bin"), &e), 0);
	expect_stream(s, b, 10, IN_PLAIN, IN_FMT_BLKTRACE);
	in_stream_close(s);
	write_file("empty.bin", b, 0);
	assert_int_equal(in_stream_open(&s, tpath("empty.bin"), &e), 0);
	assert_int_equal(in_stream_mappable(s, &size), -1);
	expect_stream(s, b, 0, IN_PLAIN, IN_FMT_EMPTY);
	in_stream_close(s);
	free(b);
}

/* A child writes b into a pipe (in small pieces, so reads come short); returns the read end. */
static int pipe_from(const uint8_t *b, size_t n, pid_t *pid)
{
	int fds[2];

	assert_int_equal(pipe(fds), 0);
	*pid = fork();
	assert_true(*pid >= 0);
	if (!*pid) {
		close(fds[0]);
		for (size_t off = 0; off < n;) {
			size_t k = n - off < 1000 ? n - off : 1000;
			ssize_t w = write(fds[1], b + off, k);

			if (w <= 0)
				_exit(1);
			off += (size_t)w;
		}
		_exit(0);
	}
	close(fds[1]);
	return fds[0];
}

static void reap(pid_t pid)
{
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
}

static void test_pipe_and_stdin(void **state)
{
	size_t n = 300000;
	uint8_t *b = trace_bytes(n);
	struct in_stream *s;
	struct iot_err e;
	uint64_t size;
	pid_t pid;
	int fd, saved;

	(void)state;
	fd = pipe_from(b, n, &pid);
	assert_int_equal(in_stream_open_fd(&s, fd, "pipe", &e), 0);
	assert_int_equal(in_stream_mappable(s, &size), -1);
	expect_stream(s, b, n, IN_PLAIN, IN_FMT_BLKTRACE);
	in_stream_close(s);
	reap(pid);
	/* '-' is standard input, left open */
	fd = pipe_from(b, n, &pid);
	saved = dup(STDIN_FILENO);
	assert_int_equal(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	close(fd);
	assert_int_equal(in_stream_open(&s, "-", &e), 0);
	expect_stream(s, b, n, IN_PLAIN, IN_FMT_BLKTRACE);
	in_stream_close(s);
	assert_true(fcntl(STDIN_FILENO, F_GETFD) >= 0);
	assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	close(saved);
	reap(pid);
	free(b);
}

/* A FIFO by path, as process substitution gives one: opened once, nothing lost. */
static void test_fifo(void **state)
{
	size_t n = 100000;
	uint8_t *b = trace_bytes(n);
	struct in_stream *s;
	struct iot_err e;
	pid_t pid;

	(void)state;
	assert_int_equal(mkfifo(tpath("fifo"), 0600), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		int fd = open(tpath("fifo"), O_WRONLY);

		_exit(fd < 0 || write(fd, b, n) != (ssize_t)n);
	}
	assert_int_equal(in_stream_open(&s, tpath("fifo"), &e), 0);
	expect_stream(s, b, n, IN_PLAIN, IN_FMT_BLKTRACE);
	in_stream_close(s);
	reap(pid);
	free(b);
}

static size_t gz_bytes(const uint8_t *b, size_t n, uint8_t *out, size_t cap)
{
	z_stream z = {0};

	assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (uint8_t *)b;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	deflateEnd(&z);
	return z.total_out;
}

/* A stream cut short: fewer than max bytes, all of them right, a cut and no error; closed. */
static void expect_cut(struct in_stream *s, const uint8_t *want, size_t max)
{
	size_t len;
	int err;
	uint8_t *got = read_all(s, &len, &err);

	assert_int_equal(err, 0);
	assert_true(len > 0 && len < max);
	assert_memory_equal(got, want, len);
	assert_true(in_stream_truncated(s));
	assert_int_equal(in_stream_status(s), 0);
	free(got);
	in_stream_close(s);
}

static void test_gzip(void **state)
{
	size_t n = 2 << 20, cap = n + 4096, c1, c2;
	uint8_t *b = trace_bytes(n), *z = malloc(2 * cap), *got;
	struct in_stream *s;
	struct iot_err e;
	uint64_t size;
	size_t len;
	pid_t pid;
	int err, fd;

	(void)state;
	c1 = gz_bytes(b, n / 2, z, cap);
	c2 = gz_bytes(b + n / 2, n - n / 2, z + c1, 2 * cap - c1);
	/* two members, as `cat a.gz b.gz` makes, then trailing zeros (ignored, as by gzip -d) */
	memset(z + c1 + c2, 0, 16);
	write_file("t.gz", z, c1 + c2 + 16);
	assert_int_equal(in_stream_open(&s, tpath("t.gz"), &e), 0);
	assert_int_equal(in_stream_mappable(s, &size), -1);
	expect_stream(s, b, n, IN_GZIP, IN_FMT_BLKTRACE);
	in_stream_close(s);
	/* through a pipe: the gzip magic is sniffed on the stream and inflated from it */
	fd = pipe_from(z, c1 + c2, &pid);
	assert_int_equal(in_stream_open_fd(&s, fd, "pipe.gz", &e), 0);
	expect_stream(s, b, n, IN_GZIP, IN_FMT_BLKTRACE);
	in_stream_close(s);
	reap(pid);
	/* cut short: every byte before the cut, then the end, flagged as a cut */
	assert_int_equal(in_stream_open_mem(&s, z, c1 / 2, "cut.gz", &e), 0);
	expect_cut(s, b, n / 2);
	/* the same cut in a file, inflated on the stream's own thread */
	write_file("cut.gz", z, c1 / 2);
	assert_int_equal(in_stream_open(&s, tpath("cut.gz"), &e), 0);
	expect_cut(s, b, n / 2);
	/* closed after one read, the inflating thread still busy: stopped and joined */
	assert_int_equal(in_stream_open(&s, tpath("t.gz"), &e), 0);
	got = malloc(8192);
	assert_int_equal(in_stream_read(s, got, 8192, &e), 4096); /* the sniffed head alone */
	assert_int_equal(in_stream_read(s, got, 8192, &e), 8192);
	assert_memory_equal(got, b + 4096, 8192);
	free(got);
	in_stream_close(s);
	/* a second member that is no gzip member but starts like one: the first member's bytes,
	 * then the error */
	memset(z + c1 + 10, 0xff, 64);
	write_file("bad2.gz", z, c1 + c2);
	assert_int_equal(in_stream_open(&s, tpath("bad2.gz"), &e), 0);
	got = read_all(s, &len, &err);
	assert_int_equal(err, -EINVAL);
	assert_true(len >= n / 2);
	assert_memory_equal(got, b, n / 2);
	assert_true(!strncmp(in_stream_error(s), "gzip: ", 6));
	assert_non_null(strstr(in_stream_error(s), " at offset "));
	free(got);
	in_stream_close(s);
	/* corrupt deflate data */
	memset(z + 100, 0xff, 64);
	assert_int_equal(in_stream_open_mem(&s, z, c1, "bad.gz", &e), 0);
	got = read_all(s, &len, &err);
	assert_int_equal(err, -EINVAL);
	assert_true(!strncmp(in_stream_error(s), "gzip: ", 6));
	assert_non_null(strstr(in_stream_error(s), " at offset "));
	free(got);
	in_stream_close(s);
	write_file("bad.gz", z, c1);
	assert_int_equal(in_stream_open(&s, tpath("bad.gz"), &e), 0);
	got = read_all(s, &len, &err);
	assert_int_equal(err, -EINVAL);
	assert_int_equal(in_stream_status(s), -EINVAL);
	assert_true(!strncmp(in_stream_error(s), "gzip: ", 6));
	free(got);
	in_stream_close(s);
	free(z);
	free(b);
}

/*
 * Everything through in_stream_next(), keeping a different tail each time (none, a little,
 * more than the room in front of a chunk): the bytes taken are the stream's, in order.
 */
static void expect_pieces(struct in_stream *s, const uint8_t *want, size_t n)
{
	static const size_t keeps[] = {0, 100, 300u << 10, 5000, 700u << 10, 1};
	const uint8_t *p = NULL;
	size_t off = 0, len = 0, i = 0;
	struct iot_err e;
	ssize_t r;

	for (;;) {
		size_t keep = keeps[i++ % 6];

		keep = keep < len ? keep : len;
		/* what is not kept is taken */
		assert_true(off + len - keep <= n);
		if (len > keep)
			assert_memory_equal(p, want + off, len - keep);
		off += len - keep;
		r = in_stream_next(s, p + len - keep, keep, &p, &e);
		assert_true(r >= 0);
		if (!r) {
			/* the end: the kept bytes are the last ones, at *p */
			assert_int_equal(off + keep, n);
			assert_memory_equal(p, want + off, keep);
			break;
		}
		assert_true((size_t)r > keep);
		len = (size_t)r;
	}
	assert_int_equal(in_stream_offset(s), n);
}

static void test_next(void **state)
{
	size_t n = 5 << 20, cap = n + 4096, c;
	uint8_t *b = trace_bytes(n), *z = malloc(cap);
	struct in_stream *s;
	struct iot_err e;

	(void)state;
	c = gz_bytes(b, n, z, cap);
	write_file("next.gz", z, c);
	/* chunks of the decompression thread */
	assert_int_equal(in_stream_open(&s, tpath("next.gz"), &e), 0);
	expect_pieces(s, b, n);
	in_stream_close(s);
	/* bytes in memory: read into the stream's own buffer */
	assert_int_equal(in_stream_open_mem(&s, z, c, "next.gz", &e), 0);
	expect_pieces(s, b, n);
	in_stream_close(s);
	write_file("next", b, n);
	assert_int_equal(in_stream_open(&s, tpath("next"), &e), 0);
	expect_pieces(s, b, n);
	in_stream_close(s);
	free(z);
	free(b);
}

static void test_zstd(void **state)
{
	size_t n = 1 << 20, cap = ZSTD_compressBound(n), c1, c2, len;
	uint8_t *b = trace_bytes(n), *z = malloc(2 * cap), *got;
	struct in_stream *s;
	struct iot_err e;
	int err;

	(void)state;
	c1 = ZSTD_compress(z, cap, b, n / 2, 3);
	c2 = ZSTD_compress(z + c1, cap, b + n / 2, n - n / 2, 3);
	assert_false(ZSTD_isError(c1) || ZSTD_isError(c2));
	write_file("t.zst", z, c1 + c2);
	assert_int_equal(in_stream_open(&s, tpath("t.zst"), &e), 0);
	expect_stream(s, b, n, IN_ZSTD, IN_FMT_BLKTRACE);
	in_stream_close(s);
	assert_int_equal(in_stream_open_mem(&s, z, c1 - 10, "cut.zst", &e), 0);
	got = read_all(s, &len, &err);
	assert_int_equal(err, 0);
	assert_true(in_stream_truncated(s));
	assert_memory_equal(got, b, len);
	free(got);
	in_stream_close(s);
	/* a second frame that is no frame: the first frame's bytes, then the error */
	memset(z + c1, 0xa5, 4);
	assert_int_equal(in_stream_open_mem(&s, z, c1 + c2, "bad.zst", &e), 0);
	got = read_all(s, &len, &err);
	assert_int_equal(err, -EINVAL);
	assert_true(len >= n / 2);
	assert_memory_equal(got, b, n / 2);
	assert_true(!strncmp(in_stream_error(s), "zstd: ", 6));
	free(got);
	in_stream_close(s);
	free(z);
	free(b);
}

static void test_formats_and_stdio(void **state)
{
	char json[6000];
	uint8_t z[8192];
	struct in_stream *s;
	struct iot_err e;
	size_t c;
	FILE *f;

	(void)state;
	/* JSON after a long run of blanks (within the 4 KiB the sniff reads) */
	memset(json, ' ', sizeof(json));
	memcpy(json + 4000, "{\"a\": 1}", 8);
	assert_int_equal(in_stream_open_mem(&s, json, 4008, "j", &e), 0);
	expect_stream(s, (uint8_t *)json, 4008, IN_PLAIN, IN_FMT_JSON);
	in_stream_close(s);
	/* a gzip'ed pcap header read through stdio */
	c = gz_bytes((const uint8_t *)"\xd4\xc3\xb2\xa1\x02\x00\x04\x00", 8, z, sizeof(z));
	assert_int_equal(in_stream_open_mem(&s, z, c, "p.gz", &e), 0);
	assert_int_equal(in_stream_sniff(s)->format, IN_FMT_PCAP);
	f = in_stream_fopen(s);
	assert_non_null(f);
	assert_int_equal(fread(json, 1, sizeof(json), f), 8);
	assert_memory_equal(json, "\xd4\xc3\xb2\xa1\x02\x00\x04\x00", 8);
	assert_int_equal(fclose(f), 0);
	/* fio iologs, for the iolog reader */
	assert_int_equal(in_stream_open_mem(&s, "fio version 3 iolog\n", 20, "i", &e), 0);
	assert_int_equal(in_stream_sniff(s)->format, IN_FMT_IOLOG);
	assert_int_equal(in_stream_sniff(s)->version, 3);
	in_stream_close(s);
}

static void test_open_errors(void **state)
{
	struct in_stream *s;
	struct iot_err e;

	(void)state;
	assert_int_equal(in_stream_open(&s, tmpdir, &e), -EISDIR);
	assert_null(s);
	assert_int_equal(in_stream_open(&s, tpath("none"), &e), -ENOENT);
	assert_non_null(strstr(e.msg, "No such file"));
	assert_int_equal(symlink("loop-b", tpath("loop-a")), 0);
	assert_int_equal(symlink("loop-a", tpath("loop-b")), 0);
	assert_int_equal(in_stream_open(&s, tpath("loop-a"), &e), -ELOOP);
	assert_non_null(strstr(e.msg, "symbolic link loop"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sniff_bytes),    cmocka_unit_test(test_plain_file),
	    cmocka_unit_test(test_pipe_and_stdin), cmocka_unit_test(test_fifo),
	    cmocka_unit_test(test_gzip),           cmocka_unit_test(test_zstd),
	    cmocka_unit_test(test_next),           cmocka_unit_test(test_formats_and_stdio),
	    cmocka_unit_test(test_open_errors),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, setup, tmpdir_teardown));
}
