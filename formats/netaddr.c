/* SPDX-License-Identifier: MIT */
/* A network address as text, from text and from a socket address. */
#include "formats/netaddr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>

const char *net_addr_str(const struct net_addr *a, char *buf, size_t len)
{
	if (a->family != 4 && a->family != 6) {
		snprintf(buf, len, "?");
		return buf;
	}
	if (!inet_ntop(a->family == 6 ? AF_INET6 : AF_INET, a->bytes, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

const char *net_endpoint_str(const struct net_endpoint *e, char *buf, size_t len)
{
	char s[48];

	net_addr_str(&e->addr, s, sizeof(s));
	snprintf(buf, len, e->addr.family == 6 ? "[%s]:%u" : "%s:%u", s, e->port);
	return buf;
}

int net_addr_parse(const char *s, struct net_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (s && inet_pton(AF_INET, s, a->bytes) == 1)
		a->family = 4;
	else if (s && inet_pton(AF_INET6, s, a->bytes) == 1)
		a->family = 6;
	if (!a->family) {
		memset(a, 0, sizeof(*a)); /* whatever a failed inet_pton() left */
		return -EINVAL;
	}
	return 0;
}

int net_addr_from_sockaddr(const struct sockaddr *sa, struct net_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (sa && sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;

		a->family = 4;
		memcpy(a->bytes, &in->sin_addr, 4);
	} else if (sa && sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)sa;

		a->family = 6;
		memcpy(a->bytes, &in6->sin6_addr, 16);
	} else {
		return -EAFNOSUPPORT;
	}
	return 0;
}
