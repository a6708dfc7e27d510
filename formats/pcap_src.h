/* SPDX-License-Identifier: MIT */
/* Packet captures: pcap/pcapng (optionally compressed) through libpcap; link/IP/TCP/UDP decoding.
 */
#ifndef IOTAPE_FORMATS_PCAP_SRC_H
#define IOTAPE_FORMATS_PCAP_SRC_H

#include <stdint.h>
#include <stdio.h>

#include "common/err.h"
#include "formats/netaddr.h"

/* One decoded TCP or UDP packet. Both endpoints have the same family, 4 or 6. */
struct pkt {
	uint64_t ts_ns;
	uint8_t proto; /* 6 TCP, 17 UDP */
	uint8_t tcp_flags;
	struct net_endpoint src, dst;
	uint32_t seq;
	uint32_t ack; /* with TCPF_ACK */
	const uint8_t *payload;
	uint32_t caplen; /* payload bytes present in the capture */
	uint32_t len;    /* payload bytes on the wire (from the IP length); caplen <= len */
};

#define TCPF_FIN 0x01
#define TCPF_SYN 0x02
#define TCPF_RST 0x04
#define TCPF_ACK 0x10

/* Why a frame was not turned into a struct pkt (counted by the caller). */
enum pkt_skip {
	PKT_OK = 0,
	PKT_SHORT,    /* headers cut short by snaplen or a bad length field */
	PKT_NOT_IP,   /* another ethertype or address family */
	PKT_NOT_L4,   /* an IP protocol other than TCP/UDP */
	PKT_FRAGMENT, /* a non-first IP fragment (not reassembled) */
	PKT_LINKTYPE, /* unsupported link type */
	PKT_SKIP_MAX
};

/*
 * Decode a frame of the given libpcap DLT (Ethernet, Linux SLL/SLL2, raw IP, null/loop; VLAN
 * tags; IPv4/IPv6 with extension headers). Returns PKT_OK with *p filled, or the reason.
 */
enum pkt_skip pkt_decode(int dlt, const uint8_t *frame, uint32_t caplen, uint64_t ts_ns,
                         struct pkt *p);

struct pcap_src;

/* Open a pcap or pcapng file (or '-'), compressed or not, with nanosecond timestamps. */
int pcap_src_open(struct pcap_src **out, const char *path, struct iot_err *e);
/* The same over an input stream already opened and sniffed; the source owns it, also when
 * this fails. */
struct in_stream;
int pcap_src_open_stream(struct pcap_src **out, struct in_stream *in, struct iot_err *e);
/* Next frame: 1 with frame/caplen/ts filled (frame valid until the next call), 0 at the end,
 * -ENODATA when the file ends inside a record (the frames before it are good), -EINVAL for
 * bad bytes (e says what, at which offset and record), another -errno on a read error. */
int pcap_src_next(struct pcap_src *s, const uint8_t **frame, uint32_t *caplen, uint64_t *ts_ns,
                  struct iot_err *e);
/* The link type (libpcap DLT) of the file's first interface, and of the last frame read (a
 * pcapng capture may have interfaces of several types). */
int pcap_src_dlt(const struct pcap_src *s);
int pcap_src_frame_dlt(const struct pcap_src *s);
/* libpcap's name of a link type ("EN10MB", "USER0"), or "unknown". */
const char *pcap_src_dlt_name(int dlt);
int pcap_src_gzip(const struct pcap_src *s);
/* 1 once pcap_src_next() said the file ends inside a record (-ENODATA). */
int pcap_src_truncated(const struct pcap_src *s);
void pcap_src_free(struct pcap_src *s);

#endif
