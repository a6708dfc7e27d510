/* SPDX-License-Identifier: MIT */
/* Unit tests: a packet's address and endpoint as text (formats/netaddr.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "formats/netaddr.h"

static void test_addr(void **state)
{
	const uint8_t v4[16] = {10, 0, 0, 1};
	const uint8_t v6[16] = {0xfe, 0x80, [15] = 1};
	char buf[NET_ENDPOINT_STRLEN], small[4];

	(void)state;
	assert_string_equal(net_addr_str(4, v4, buf, sizeof(buf)), "10.0.0.1");
	assert_string_equal(net_addr_str(6, v6, buf, sizeof(buf)), "fe80::1");
	assert_string_equal(net_addr_str(0, v4, buf, sizeof(buf)), "?");
	assert_string_equal(net_addr_str(4, v4, small, sizeof(small)), "?"); /* no room */
	assert_string_equal(net_endpoint_str(4, v4, 2049, buf, sizeof(buf)), "10.0.0.1:2049");
	assert_string_equal(net_endpoint_str(6, v6, 111, buf, sizeof(buf)), "[fe80::1]:111");
	memset(buf, 0, sizeof(buf));
	{
		const uint8_t all[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		                         0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

		net_endpoint_str(6, all, 65535, buf, sizeof(buf));
		assert_string_equal(buf, "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_addr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
