/* SPDX-License-Identifier: MIT */
/* A network address as text. */
#include "formats/netaddr.h"

#include <arpa/inet.h>
#include <stdio.h>

const char *net_addr_str_bytes(uint8_t family, const uint8_t *a, char *buf, size_t len)
{
	if (family != 4 && family != 6) {
		snprintf(buf, len, "?");
		return buf;
	}
	if (!inet_ntop(family == 6 ? AF_INET6 : AF_INET, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

const char *net_endpoint_str_bytes(uint8_t family, const uint8_t *a, uint16_t port, char *buf,
                                   size_t len)
{
	char s[48];

	net_addr_str_bytes(family, a, s, sizeof(s));
	snprintf(buf, len, family == 6 ? "[%s]:%u" : "%s:%u", s, port);
	return buf;
}

const char *net_addr_str(const struct net_addr *a, char *buf, size_t len)
{
	return net_addr_str_bytes(a->family, a->bytes, buf, len);
}

const char *net_endpoint_str(const struct net_endpoint *e, char *buf, size_t len)
{
	return net_endpoint_str_bytes(e->addr.family, e->addr.bytes, e->port, buf, len);
}
