/* SPDX-License-Identifier: MIT */
/* A packet's network address as text: the one formatter of every table, text and JSON. */
#ifndef IOTAPE_FORMATS_NETADDR_H
#define IOTAPE_FORMATS_NETADDR_H

#include <stddef.h>
#include <stdint.h>

/* Room for any address net_endpoint_str() writes: "[" INET6_ADDRSTRLEN "]:65535". */
#define NET_ENDPOINT_STRLEN 56

/* The 16 bytes a decoded packet holds an address in (formats/pcap_src.h: IPv4 in the first 4)
 * as text, "10.0.0.1" or "fe80::1" (family 4 or 6); "?" when it is neither. Returns buf. */
const char *net_addr_str(uint8_t family, const uint8_t *a, char *buf, size_t len);
/* With its port: "10.0.0.1:2049", "[fe80::1]:2049". Returns buf. */
const char *net_endpoint_str(uint8_t family, const uint8_t *a, uint16_t port, char *buf,
                             size_t len);

#endif
