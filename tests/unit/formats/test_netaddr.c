/* SPDX-License-Identifier: MIT */
/* Unit tests: the network address type, its comparisons, hashes and text (formats/netaddr.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "formats/netaddr.h"

static const struct net_addr V4 = {4, {10, 0, 0, 1}};
static const struct net_addr V6 = {6, {0xfe, 0x80, [15] = 1}};
/* ::ffff:10.0.0.1, IPv4-mapped: another address than 10.0.0.1, as on the wire */
static const struct net_addr MAPPED = {6, {[10] = 0xff, [11] = 0xff, 10, 0, 0, 1}};

static void test_text(void **state)
{
	char buf[NET_ENDPOINT_STRLEN], small[4];
	struct net_addr none = V4;

	(void)state;
	none.family = 0;
	assert_string_equal(net_addr_str(&V4, buf, sizeof(buf)), "10.0.0.1");
	assert_string_equal(net_addr_str(&V6, buf, sizeof(buf)), "fe80::1");
	assert_string_equal(net_addr_str(&MAPPED, buf, sizeof(buf)), "::ffff:10.0.0.1");
	assert_string_equal(net_addr_str(&none, buf, sizeof(buf)), "?");
	assert_string_equal(net_addr_str(&V4, small, sizeof(small)), "?"); /* no room */
	assert_string_equal(net_endpoint_str(&(struct net_endpoint){V4, 2049}, buf, sizeof(buf)),
	                    "10.0.0.1:2049");
	assert_string_equal(net_endpoint_str(&(struct net_endpoint){V6, 111}, buf, sizeof(buf)),
	                    "[fe80::1]:111");
	assert_string_equal(net_endpoint_str(&(struct net_endpoint){MAPPED, 0}, buf, sizeof(buf)),
	                    "[::ffff:10.0.0.1]:0");
	memset(buf, 0, sizeof(buf));
	{
		struct net_endpoint all = {{6, {0}}, 65535};

		memset(all.addr.bytes, 0xff, 16);
		net_endpoint_str(&all, buf, sizeof(buf));
		assert_string_equal(buf, "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535");
	}
}

static void test_equal(void **state)
{
	struct net_addr a = V4, b;
	struct net_endpoint e = {V4, 2049}, f;

	(void)state;
	/* whatever the padding holds, equal fields are equal */
	memset(&b, 0xa5, sizeof(b));
	b.family = 4;
	memset(b.bytes, 0, 16);
	b.bytes[0] = 10, b.bytes[3] = 1;
	assert_true(net_addr_eq(&a, &b));
	assert_int_equal(net_addr_cmp(&a, &b), 0);
	memset(&f, 0x5a, sizeof(f));
	f.addr = b;
	f.port = 2049;
	assert_true(net_endpoint_eq(&e, &f));
	assert_int_equal(net_endpoint_cmp(&e, &f), 0);
	/* the port, the last byte, the family each make another endpoint */
	f.port = 2050;
	assert_false(net_endpoint_eq(&e, &f));
	assert_true(net_endpoint_cmp(&e, &f) < 0 && net_endpoint_cmp(&f, &e) > 0);
	f.port = 2049;
	f.addr.bytes[15] = 1;
	assert_false(net_endpoint_eq(&e, &f));
	assert_false(net_addr_eq(&e.addr, &f.addr));
	/* the same 16 bytes in the other family: not the same address */
	b = V4;
	b.family = 6;
	assert_false(net_addr_eq(&V4, &b));
	assert_true(net_addr_cmp(&V4, &b) < 0);
	assert_false(net_addr_eq(&V4, &MAPPED));
	/* order: family first, then the bytes as unsigned, then the port */
	assert_true(net_addr_cmp(&V4, &V6) < 0);
	a = V4, b = V4;
	b.bytes[0] = 0x80; /* 128.0.0.1: above 10.0.0.1 unsigned, below as signed char */
	assert_true(net_addr_cmp(&a, &b) < 0);
	assert_true(
	    net_endpoint_cmp(&(struct net_endpoint){a, 65535}, &(struct net_endpoint){b, 1}) < 0);
}

static void test_hash(void **state)
{
	struct net_addr a = V4, b;
	uint64_t h = NET_FNV_BASIS;

	(void)state;
	/* FNV-1a over the 16 bytes, as the flow and connection tables hashed before the type */
	for (int i = 0; i < 16; i++)
		h = (h ^ a.bytes[i]) * NET_FNV_PRIME;
	assert_true(net_addr_fnv(NET_FNV_BASIS, &a) == h);
	h = NET_FNV_BASIS ^ 4;
	for (int i = 0; i < 16; i++)
		h = (h ^ a.bytes[i]) * NET_FNV_PRIME;
	assert_true(net_addr_hash(&a) == h);
	assert_true(net_endpoint_hash(&(struct net_endpoint){a, 2049}) ==
	            ((h ^ 2049) * NET_FNV_PRIME));
	/* equal addresses hash alike whatever the padding; the family and the port count */
	memset(&b, 0xa5, sizeof(b));
	b.family = 4;
	memcpy(b.bytes, a.bytes, 16);
	assert_true(net_addr_hash(&a) == net_addr_hash(&b));
	assert_true(net_endpoint_hash(&(struct net_endpoint){a, 1}) ==
	            net_endpoint_hash(&(struct net_endpoint){b, 1}));
	assert_true(net_endpoint_hash(&(struct net_endpoint){a, 1}) !=
	            net_endpoint_hash(&(struct net_endpoint){a, 2}));
	b.family = 6;
	assert_true(net_addr_hash(&a) != net_addr_hash(&b));
	assert_true(net_addr_fnv(NET_FNV_BASIS, &a) == net_addr_fnv(NET_FNV_BASIS, &b));
	assert_true(net_addr_hash(&V4) != net_addr_hash(&MAPPED));
}

/* Text back into an address: what net_addr_str() writes, and what the manifest holds. */
static void test_parse(void **state)
{
	static const struct net_addr v4_0 = {4, {0}};
	struct net_addr a;
	char buf[NET_ENDPOINT_STRLEN];

	(void)state;
	assert_int_equal(net_addr_parse("10.0.0.1", &a), 0);
	assert_true(net_addr_eq(&a, &V4));
	assert_int_equal(net_addr_parse("fe80::1", &a), 0);
	assert_true(net_addr_eq(&a, &V6));
	assert_int_equal(net_addr_parse("::ffff:10.0.0.1", &a), 0);
	assert_true(net_addr_eq(&a, &MAPPED));
	assert_int_equal(net_addr_parse("0.0.0.0", &a), 0);
	assert_true(net_addr_eq(&a, &v4_0));
	assert_int_equal(net_addr_parse(net_addr_str(&V6, buf, sizeof(buf)), &a), 0);
	assert_true(net_addr_eq(&a, &V6));
	/* not addresses: zeroed, family 0 */
	static const char *const bad[] = {"", "10.0.0", "10.0.0.1:2049", "[fe80::1]", "host", "?"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&a, 0xa5, sizeof(a));
		assert_int_equal(net_addr_parse(bad[i], &a), -EINVAL);
		assert_true(net_addr_eq(&a, &(struct net_addr){0, {0}}));
	}
	assert_int_equal(net_addr_parse(NULL, &a), -EINVAL);
}

static void test_sockaddr(void **state)
{
	struct sockaddr_in in = {.sin_family = AF_INET, .sin_port = htons(2049)};
	struct sockaddr_in6 in6 = {.sin6_family = AF_INET6, .sin6_port = htons(2049)};
	struct sockaddr other = {.sa_family = AF_UNIX};
	struct net_addr a;

	(void)state;
	memcpy(&in.sin_addr, V4.bytes, 4);
	assert_int_equal(net_addr_from_sockaddr((const struct sockaddr *)&in, &a), 0);
	assert_true(net_addr_eq(&a, &V4)); /* the rest of the 16 bytes zero */
	memcpy(&in6.sin6_addr, MAPPED.bytes, 16);
	assert_int_equal(net_addr_from_sockaddr((const struct sockaddr *)&in6, &a), 0);
	assert_true(net_addr_eq(&a, &MAPPED));
	assert_int_equal(net_addr_from_sockaddr(&other, &a), -EAFNOSUPPORT);
	assert_int_equal(a.family, 0);
	assert_int_equal(net_addr_from_sockaddr(NULL, &a), -EAFNOSUPPORT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_text),     cmocka_unit_test(test_equal),
	    cmocka_unit_test(test_hash),     cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_sockaddr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
