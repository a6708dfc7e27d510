/* SPDX-License-Identifier: MIT */
/* XDR helpers: padding, lengths checked before rounding, arrays checked against bytes left. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "formats/xdr.h"

static void test_opaque(void **state)
{
	const uint8_t b[] = {0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o', 0, 0, 0, 0, 0, 0, 9};
	struct cur c = cur_make(b, sizeof(b));
	uint32_t n;
	const uint8_t *p = xdr_opaque(&c, 16, &n);

	(void)state;
	assert_non_null(p);
	assert_int_equal(n, 5);
	assert_memory_equal(p, "hello", 5);
	assert_int_equal(xdr_u32(&c), 9); /* padding skipped */
	assert_false(c.err);
	c = cur_make(b, sizeof(b));
	assert_null(xdr_opaque(&c, 4, &n)); /* over the limit */
	assert_true(c.err);
	assert_int_equal(cur_left(&c), 0);
}

static void test_huge_lengths(void **state)
{
	const uint8_t ff[] = {0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4};
	const uint8_t fd[] = {0xff, 0xff, 0xff, 0xfd, 1, 2, 3, 4};
	struct cur c = cur_make(ff, sizeof(ff));
	uint32_t n;

	(void)state;
	/* 0xffffffff rounded up must not wrap to 0 */
	assert_int_equal(xdr_pad(0xffffffffu), 0x100000000ull);
	assert_null(xdr_opaque(&c, UINT32_MAX, &n));
	assert_true(c.err);
	c = cur_make(fd, sizeof(fd));
	assert_false(xdr_skip_opaque(&c, UINT32_MAX));
	c = cur_make(fd, sizeof(fd));
	assert_false(xdr_skip_array(&c, 16, UINT32_MAX)); /* 0xfffffffd * 16 bytes */
	c = cur_make(ff, 4);
	assert_false(xdr_skip(&c, 0xffffffffu));
}

static void test_array_and_empty(void **state)
{
	const uint8_t b[] = {0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0};
	struct cur c = cur_make(b, sizeof(b));
	uint32_t n;

	(void)state;
	assert_true(xdr_skip_array(&c, 4, 8));
	assert_true(xdr_skip_opaque(&c, 0)); /* empty opaque */
	assert_int_equal(cur_left(&c), 0);
	c = cur_make(b, sizeof(b));
	assert_false(xdr_skip_array(&c, 4, 1)); /* more items than allowed */
	c = cur_make(b + 12, 4);
	assert_non_null(xdr_opaque(&c, 8, &n)); /* zero length is valid */
	assert_false(c.err);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_opaque),
	    cmocka_unit_test(test_huge_lengths),
	    cmocka_unit_test(test_array_and_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
