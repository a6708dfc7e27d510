/* SPDX-License-Identifier: MIT */
/* A network address and endpoint: the one type every packet, connection and table holds. */
#ifndef IOTAPE_FORMATS_NETADDR_H
#define IOTAPE_FORMATS_NETADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Room for any address net_endpoint_str() writes: "[" INET6_ADDRSTRLEN "]:65535". */
#define NET_ENDPOINT_STRLEN 56

/* An IP address as a decoded packet holds it: family 4 or 6 (0: none), the bytes in network
 * order, IPv4 in the first 4 and the rest zero. No mapping between the families: an IPv4-mapped
 * IPv6 address (::ffff:a.b.c.d) is family 6 and differs from a.b.c.d, as on the wire. */
struct net_addr {
	uint8_t family;
	uint8_t bytes[16];
};

/* An address and a TCP or UDP port (host order). */
struct net_endpoint {
	struct net_addr addr;
	uint16_t port;
};

/* Hashing: FNV-1a, byte by byte, as every address table here has hashed (a table's order of
 * slots shows in some outputs' ties, so the values are kept). */
#define NET_FNV_BASIS 1469598103934665603ull
#define NET_FNV_PRIME 1099511628211ull

static inline bool net_addr_eq(const struct net_addr *a, const struct net_addr *b)
{
	return a->family == b->family && !memcmp(a->bytes, b->bytes, 16);
}

static inline bool net_endpoint_eq(const struct net_endpoint *a, const struct net_endpoint *b)
{
	return a->port == b->port && net_addr_eq(&a->addr, &b->addr);
}

/* Order: family, then the bytes as unsigned (memcmp), then the port; <0, 0, >0. */
static inline int net_addr_cmp(const struct net_addr *a, const struct net_addr *b)
{
	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	return memcmp(a->bytes, b->bytes, 16);
}

static inline int net_endpoint_cmp(const struct net_endpoint *a, const struct net_endpoint *b)
{
	int r = net_addr_cmp(&a->addr, &b->addr);

	if (r)
		return r;
	return a->port < b->port ? -1 : a->port > b->port;
}

/* h continued over the address's 16 bytes (not its family: a caller whose key holds one
 * family for several addresses mixes it once, or not at all when equality tells them apart). */
static inline uint64_t net_addr_fnv(uint64_t h, const struct net_addr *a)
{
	for (int i = 0; i < 16; i++)
		h = (h ^ a->bytes[i]) * NET_FNV_PRIME;
	return h;
}

/* One address's hash: its family, then its bytes. */
static inline uint64_t net_addr_hash(const struct net_addr *a)
{
	return net_addr_fnv(NET_FNV_BASIS ^ a->family, a);
}

/* An endpoint's hash: the address's, then the port. */
static inline uint64_t net_endpoint_hash(const struct net_endpoint *e)
{
	return (net_addr_hash(&e->addr) ^ e->port) * NET_FNV_PRIME;
}

/* As text, "10.0.0.1" or "fe80::1"; "?" for another family or without room. Returns buf. */
const char *net_addr_str(const struct net_addr *a, char *buf, size_t len);
/* With its port: "10.0.0.1:2049", "[fe80::1]:2049". Returns buf. */
const char *net_endpoint_str(const struct net_endpoint *e, char *buf, size_t len);
/* The text net_addr_str() writes (and a manifest's "network.addresses" hold) back into *a:
 * 0, or -EINVAL (*a zeroed) when s is neither an IPv4 nor an IPv6 address. */
int net_addr_parse(const char *s, struct net_addr *a);
/* An interface's or a socket's address (AF_INET, AF_INET6) into *a: 0, or -EAFNOSUPPORT
 * (*a zeroed) for another family or no address. */
struct sockaddr;
int net_addr_from_sockaddr(const struct sockaddr *sa, struct net_addr *a);

#endif
