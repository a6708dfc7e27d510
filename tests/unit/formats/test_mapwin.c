/* SPDX-License-Identifier: MIT */
/* Unit tests: the mapped window reads a file's bytes and keeps few of its pages resident. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/mapwin.h"

#define MIB (1u << 20)
#define FILE_SIZE (24 * MIB + 12345) /* not a whole number of pages */

/* a temporary file of n bytes, byte i = (i * 7 + i / 4096) & 0xff; unlinked at once */
static int make_file(size_t n)
{
	char path[] = "/tmp/iotape-ut-mapwin-XXXXXX";
	int fd = mkstemp(path);
	uint8_t *b = malloc(n);

	assert_true(fd >= 0);
	assert_non_null(b);
	unlink(path);
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 7 + i / 4096);
	assert_int_equal(write(fd, b, n), (ssize_t)n);
	free(b);
	return fd;
}

/* Resident bytes of the mapping that starts at base (its Rss: line in /proc/self/smaps). */
static size_t rss_of(const void *base)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512], want[32];
	int in = 0;
	size_t kib = SIZE_MAX;

	assert_non_null(f);
	snprintf(want, sizeof(want), "%lx-", (unsigned long)(uintptr_t)base);
	while (fgets(line, sizeof(line), f)) {
		if (strchr("0123456789abcdef",
		           line[0])) /* a mapping's header; fields are Capitalised */
			in = !strncmp(line, want, strlen(want));
		if (in && sscanf(line, "Rss: %zu kB", &kib) == 1)
			break;
	}
	fclose(f);
	assert_true(kib != SIZE_MAX);
	return kib << 10;
}

static void test_reads_and_bounds(void **state)
{
	struct mapwin w;
	int fd = make_file(FILE_SIZE);
	size_t peak = 0, moves = 0;
	uint64_t bad = 0;

	(void)state;
	assert_int_equal(mapwin_open(&w, fd, FILE_SIZE, MIB, 256u << 10, 2 * MIB), 0);
	assert_int_equal(w.len, FILE_SIZE);
	assert_int_equal(w.mark, MIB);
	for (size_t pos = 0; pos < w.len; pos += 512) {
		if (pos >= w.mark) {
			size_t r;

			mapwin_move(&w, pos);
			moves++;
			assert_int_equal(w.mark, pos + MIB);
			/* pages 256 KiB behind (rounded down to a MiB) are handed back */
			assert_int_equal(w.dropped, pos > (256u << 10)
			                                ? (pos - (256u << 10)) & ~(size_t)(MIB - 1)
			                                : 0);
			r = rss_of(w.base);
			if (r > peak)
				peak = r;
		}
		bad += w.base[pos] != (uint8_t)(pos * 7 + pos / 4096);
	}
	/* the last byte, and bytes of pages handed back read again (from the page cache) */
	bad += w.base[w.len - 1] != (uint8_t)((w.len - 1) * 7 + (w.len - 1) / 4096);
	bad += w.base[4096] != (uint8_t)(4096 * 7 + 1);
	assert_int_equal(bad, 0);
	assert_true(moves >= 23);
	/* keep + step + fill, each rounded to a MiB, and a MiB of slack: not the file's 24 MiB */
	assert_true(peak > 0);
	assert_true(peak <= 6 * MIB);
	mapwin_close(&w);
	assert_null(w.base);
	assert_int_equal(w.len, 0);
	close(fd);
}

static void test_refuses(void **state)
{
	struct mapwin w;
	int fd = make_file(0);

	(void)state;
	/* an empty file maps nothing (the reader then reads it through a buffer) */
	assert_int_equal(mapwin_open(&w, fd, 0, MIB, MIB, MIB), -EINVAL);
	assert_int_equal(w.len, 0);
	close(fd);
	assert_int_equal(mapwin_open(&w, -1, 4096, MIB, MIB, MIB), -EINVAL);
	/* a descriptor that cannot be mapped (a pipe): -errno, nothing mapped */
	int p[2];

	assert_int_equal(pipe(p), 0);
	assert_true(mapwin_open(&w, p[0], 4096, MIB, MIB, MIB) < 0);
	assert_int_equal(w.len, 0);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reads_and_bounds),
	    cmocka_unit_test(test_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
