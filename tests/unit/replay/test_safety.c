/* SPDX-License-Identifier: MIT */
/* Target safety: filesystem signatures at their offsets, and what rp_target_check refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/replay.h"

static uint8_t buf[65536 + 4096];

static void test_signatures(void **state)
{
	(void)state;
	memset(buf, 0, sizeof(buf));
	assert_null(rp_fs_signature(buf, sizeof(buf)));
	buf[1080] = 0x53;
	buf[1081] = 0xef;
	assert_string_equal(rp_fs_signature(buf, sizeof(buf)), "ext2/3/4");
	assert_null(rp_fs_signature(buf, 1081)); /* the magic is cut off: not seen */
	memset(buf, 0, sizeof(buf));
	memcpy(buf, "XFSB", 4);
	assert_string_equal(rp_fs_signature(buf, sizeof(buf)), "xfs");
	memset(buf, 0, sizeof(buf));
	memcpy(buf + 65536 + 64, "_BHRfS_M", 8);
	assert_string_equal(rp_fs_signature(buf, sizeof(buf)), "btrfs");
	assert_null(rp_fs_signature(buf, 65536 + 64 + 7));
	memset(buf, 0, sizeof(buf));
	memcpy(buf + 4086, "SWAPSPACE2", 10);
	assert_string_equal(rp_fs_signature(buf, sizeof(buf)), "swap");
	assert_null(rp_fs_signature(buf, 0));
}

static int write_file(const char *path, const uint8_t *data, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	if (fwrite(data, 1, len, f) != len) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

static void test_target_check(void **state)
{
	char path[] = "/tmp/iotape-ut-safety.XXXXXX";
	struct iot_err e = {{0}};
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	memset(buf, 0xa5, sizeof(buf));
	assert_int_equal(write_file(path, buf, sizeof(buf)), 0);
	assert_int_equal(rp_target_check(path, &e), 0);
	memcpy(buf, "XFSB", 4);
	assert_int_equal(write_file(path, buf, sizeof(buf)), 0);
	assert_int_equal(rp_target_check(path, &e), -EBUSY);
	assert_non_null(strstr(e.msg, "xfs"));
	assert_non_null(strstr(e.msg, "--force"));
	unlink(path);
	assert_int_equal(rp_target_check(path, &e), -ENOENT);
	assert_int_equal(rp_target_check("/dev/null", &e), -EINVAL); /* a character device */
	assert_int_equal(rp_target_check("/tmp", &e), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_signatures),
	    cmocka_unit_test(test_target_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
