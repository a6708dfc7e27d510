/* SPDX-License-Identifier: MIT */
/* Target safety: signatures through libblkid, the replay's own inputs, symlinks, and what each
 * risk needs from the options (rp_target_judge). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/replay.h"

static uint8_t buf[1 << 20];
static char path[] = "/tmp/iotape-ut-safety.XXXXXX";

static void write_image(void)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, sizeof(buf), f), sizeof(buf));
	assert_int_equal(fclose(f), 0);
}

/* a swap header as mkswap writes it: version 1 and the last page at 1024, the magic at the
 * end of the first 4 KiB page (include/linux/swap.h union swap_header) */
static void swap_header(void)
{
	memset(buf, 0, sizeof(buf));
	buf[1024] = 1;
	buf[1028] = 255;
	memcpy(buf + 4096 - 10, "SWAPSPACE2", 10);
}

static void test_signature(void **state)
{
	char sig[64];
	int fd;

	(void)state;
	memset(buf, 0xa5, sizeof(buf));
	write_image();
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(rp_signature(fd, sig, sizeof(sig)), 0);
	close(fd);
	swap_header();
	write_image();
	fd = open(path, O_RDONLY);
	assert_int_equal(rp_signature(fd, sig, sizeof(sig)), 1);
	assert_string_equal(sig, "swap");
	close(fd);
}

static void test_target_check(void **state)
{
	struct replay_opts o = {0};
	struct iot_err e = {{0}};
	char link[64];

	(void)state;
	memset(buf, 0xa5, sizeof(buf));
	write_image();
	assert_int_equal(rp_target_check(path, &o, &e), 0);
	swap_header();
	write_image();
	assert_int_equal(rp_target_check(path, &o, &e), -EBUSY);
	assert_non_null(strstr(e.msg, "carries a signature (swap)"));
	assert_non_null(strstr(e.msg, "--force"));
	o.force = true;
	assert_int_equal(rp_target_check(path, &o, &e), 0);
	/* never through a symlink, even with --force */
	snprintf(link, sizeof(link), "%s.link", path);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(rp_target_check(link, &o, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "symbolic link"));
	unlink(link);
	unlink(path);
	assert_int_equal(rp_target_check(path, &o, &e), -ENOENT);
	assert_int_equal(rp_target_check("/dev/null", &o, &e), -EINVAL); /* a character device */
	assert_int_equal(rp_target_check("/tmp", &o, &e), -EINVAL);
}

static void test_own_input(void **state)
{
	struct replay_opts o = {.force = true, .allow_mounted = true, .allow_writes = true};
	struct iot_err e = {{0}};
	struct rp_file_id id;
	struct stat st;

	(void)state;
	memset(buf, 0, sizeof(buf));
	write_image();
	assert_int_equal(stat(path, &st), 0);
	id.dev = st.st_dev;
	id.ino = st.st_ino;
	o.inputs = &id;
	o.ninputs = 1;
	assert_int_equal(rp_target_check(path, &o, &e), -EBUSY);
	assert_non_null(strstr(e.msg, "is one of the replay's input files"));
	unlink(path);
}

/* pages of fd's first len bytes in the page cache */
static size_t resident(int fd, size_t len)
{
	unsigned char vec[(sizeof(buf) + 4095) / 4096];
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	size_t n = 0;

	assert_true(p != MAP_FAILED);
	assert_int_equal(mincore(p, len, vec), 0);
	for (size_t i = 0; i < (len + 4095) / 4096; i++)
		n += vec[i] & 1;
	munmap(p, len);
	return n;
}

/* The check's probe leaves no pages of the target in the page cache: with pages there, every
 * O_DIRECT IO of the replay writes back and invalidates its range. On the build tree's
 * filesystem (a disk's: /tmp may be tmpfs, whose pages are its storage). */
static void test_probe_leaves_no_cache(void **state)
{
	struct replay_opts o = {0};
	struct iot_err e = {{0}};
	char img[] = "iotape-ut-safety-cache.XXXXXX";
	int fd = mkstemp(img);

	(void)state;
	assert_true(fd >= 0);
	memset(buf, 0xa5, sizeof(buf));
	assert_int_equal(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	assert_int_equal(fsync(fd), 0);
	assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	if (resident(fd, sizeof(buf))) {
		unlink(img);
		fail_msg("the filesystem of '.' keeps clean pages after POSIX_FADV_DONTNEED");
	}
	assert_int_equal(rp_target_check(img, &o, &e), 0);
	assert_int_equal(resident(fd, sizeof(buf)), 0);
	close(fd);
	unlink(img);
}

/* what each risk needs, and what the messages say */
static void test_judge(void **state)
{
	struct replay_opts o = {0};
	struct iot_err e = {{0}};
	char warn[256];

	(void)state;
	assert_int_equal(rp_target_judge("t", RP_RISK_NONE, "", &o, warn, sizeof(warn), &e), 0);
	/* formatted: --force */
	assert_int_equal(
	    rp_target_judge("t", RP_RISK_FORMATTED, "carries x", &o, warn, sizeof(warn), &e),
	    -EBUSY);
	o.force = true;
	assert_int_equal(
	    rp_target_judge("t", RP_RISK_FORMATTED, "carries x", &o, warn, sizeof(warn), &e), 0);
	/* mounted: reads with --force, writes never with --force alone */
	o.force = false;
	assert_int_equal(
	    rp_target_judge("t", RP_RISK_LIVE, "is mounted on /m", &o, warn, sizeof(warn), &e),
	    -EBUSY);
	o.force = true;
	assert_int_equal(
	    rp_target_judge("t", RP_RISK_LIVE, "is mounted on /m", &o, warn, sizeof(warn), &e), 0);
	o.allow_writes = true;
	assert_int_equal(
	    rp_target_judge("t", RP_RISK_LIVE, "is mounted on /m", &o, warn, sizeof(warn), &e),
	    -EBUSY);
	assert_non_null(strstr(e.msg, "refused even with --force"));
	assert_non_null(strstr(e.msg, "--allow-mounted"));
	o.allow_mounted = true;
	assert_int_equal(
	    rp_target_judge("t", RP_RISK_LIVE, "is mounted on /m", &o, warn, sizeof(warn), &e), 0);
	assert_non_null(strstr(warn, "will be corrupted"));
	/* the replay's input: nothing allows it */
	assert_int_equal(
	    rp_target_judge("t", RP_RISK_INPUT, "is an input", &o, warn, sizeof(warn), &e), -EBUSY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_signature), cmocka_unit_test(test_target_check),
	    cmocka_unit_test(test_own_input), cmocka_unit_test(test_probe_leaves_no_cache),
	    cmocka_unit_test(test_judge),
	};
	int fd = mkstemp(path);

	if (fd < 0)
		return 1;
	close(fd);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
