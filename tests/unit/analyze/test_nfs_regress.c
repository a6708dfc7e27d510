/* SPDX-License-Identifier: MIT */
/* Replays tests/regress/nfs/ (fuzzer finds and seeds) through the fuzz target's path. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "../../fuzz/fuzz_nfs.c"

static void test_replay(void **state)
{
	char dir[4096];
	DIR *d;
	struct dirent *de;
	unsigned n = 0;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/nfs", IOTAPE_REGRESS);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		char path[8192];
		FILE *f;
		uint8_t *buf;
		long len;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "README.md"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "rb");
		assert_non_null(f);
		fseek(f, 0, SEEK_END);
		len = ftell(f);
		rewind(f);
		buf = malloc(len ? (size_t)len : 1);
		assert_non_null(buf);
		assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, (size_t)len);
		free(buf);
		n++;
	}
	closedir(d);
	assert_true(n > 0);
}

/* Hand-made hostile inputs (issue 4 "bad input"), next to the files. */
static void test_hostile(void **state)
{
	static uint8_t buf[1 << 16];
	size_t i;

	(void)state;
	/* empty, one byte, a pcap header alone */
	LLVMFuzzerTestOneInput(buf, 0);
	LLVMFuzzerTestOneInput((const uint8_t *)"\xd4\xc3\xb2\xa1", 4);
	/* a record marker of 0x7fffffff followed by junk, over and over */
	for (i = 0; i + 7 < sizeof(buf); i += 7) {
		buf[i] = 0;
		buf[i + 1] = 0;
		buf[i + 2] = 4;
		memcpy(buf + i + 3, "\xff\xff\xff\xff", 4);
	}
	LLVMFuzzerTestOneInput(buf, sizeof(buf));
	/* random garbage */
	srand(1);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rand();
	LLVMFuzzerTestOneInput(buf, sizeof(buf));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_replay),
	    cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
