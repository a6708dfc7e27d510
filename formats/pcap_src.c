/* SPDX-License-Identifier: MIT */
/* Offline capture reading through libpcap, from an input stream (gzip, zstd, pipes). */
#include "formats/pcap_src.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

#include "common/cursor.h"
#include "formats/instream.h"

struct pcap_src {
	pcap_t *p;
	uint64_t records;           /* records read */
	uint64_t off;               /* pcap (not pcapng): the file offset of the next record */
	const struct in_stream *in; /* owned by p's FILE: for the stream's own errors */
	int dlt;
	int gzip;
};

int pcap_src_open_stream(struct pcap_src **out, struct in_stream *in, struct iot_err *e)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	const char *name = in_stream_name(in);
	struct pcap_src *s;
	FILE *f;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	f = s ? in_stream_fopen(in) : NULL;
	if (!f) {
		iot_err_set(e, -ENOMEM, "'%s': out of memory", name);
		in_stream_close(in);
		free(s);
		return -ENOMEM;
	}
	s->gzip = in_stream_sniff(in)->codec == IN_GZIP;
	s->p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!s->p) {
		iot_err_set(e, -EINVAL, "'%s': not a packet capture (%s)", name, errbuf);
		fclose(f); /* closes in */
		free(s);
		return -EINVAL;
	}
	s->dlt = pcap_datalink(s->p);
	s->in = in;
	s->off = in_stream_sniff(in)->format == IN_FMT_PCAP ? 24 : 0; /* pcap-savefile(5) */
	*out = s;
	return 0;
}

int pcap_src_open(struct pcap_src **out, const char *path, struct iot_err *e)
{
	struct in_stream *in;
	int ret = in_stream_open(&in, path, e);

	*out = NULL;
	return ret ? ret : pcap_src_open_stream(out, in, e);
}

int pcap_src_next(struct pcap_src *s, const uint8_t **frame, uint32_t *caplen, uint64_t *ts_ns,
                  struct iot_err *e)
{
	struct pcap_pkthdr *h;
	const u_char *d;
	int r = pcap_next_ex(s->p, &h, &d);

	if (r == 1) {
		*frame = d;
		*caplen = h->caplen;
		*ts_ns = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec;
		s->records++;
		if (s->off)
			s->off += 16 + (uint64_t)h->caplen; /* a record header, then its bytes */
		return 1;
	}
	if (r == PCAP_ERROR_BREAK)
		return 0;
	/* bad compressed data, a read error: the stream says what and where */
	if (in_stream_status(s->in))
		return iot_err_set(e, in_stream_status(s->in), "%s", in_stream_error(s->in));
	/* libpcap reports a record cut short at the end of the file as an error: the capture was
	 * truncated (tcpdump killed, copy cut off). The frames before it are good. */
	if (strstr(pcap_geterr(s->p), "truncated") || strstr(pcap_geterr(s->p), "short"))
		return iot_err_set(e, -ENODATA, "%s", pcap_geterr(s->p));
	/* anything else libpcap says is about the bytes (a record length of 4 GiB, a bad block):
	 * an input error, with the place (pcapng block sizes are libpcap's: no offset there) */
	if (s->off)
		return iot_err_set(e, -EINVAL, "%s at offset %llu (record %llu)", pcap_geterr(s->p),
		                   (unsigned long long)s->off, (unsigned long long)s->records + 1);
	return iot_err_set(e, -EINVAL, "%s (record %llu)", pcap_geterr(s->p),
	                   (unsigned long long)s->records + 1);
}

int pcap_src_dlt(const struct pcap_src *s)
{
	return s->dlt;
}

int pcap_src_gzip(const struct pcap_src *s)
{
	return s->gzip;
}

void pcap_src_free(struct pcap_src *s)
{
	if (!s)
		return;
	pcap_close(s->p);
	free(s);
}

/* --- link, network and transport headers --- */

/* Link types by their libpcap DLT value (pcap/dlt.h, https://www.tcpdump.org/linktypes.html). */
#define DLT_NULL_ 0
#define DLT_EN10MB_ 1
#define DLT_RAW_A 12
#define DLT_RAW_B 14
#define DLT_LOOP_ 108
#define DLT_LINUX_SLL_ 113
#define DLT_RAW_C 101
#define DLT_IPV4_ 228
#define DLT_IPV6_ 229
#define DLT_LINUX_SLL2_ 276

#define ETH_IP 0x0800
#define ETH_IPV6 0x86dd

static enum pkt_skip decode_l4(struct cur *c, uint8_t proto, struct pkt *p, uint32_t l4len)
{
	struct cur h = *c;

	p->proto = proto;
	if (proto == 6) { /* RFC 9293 section 3.1 */
		uint8_t off;

		p->sport = cur_be16(&h);
		p->dport = cur_be16(&h);
		p->seq = cur_be32(&h);
		p->ack = cur_be32(&h);
		off = (uint8_t)(cur_u8(&h) >> 4);
		p->tcp_flags = cur_u8(&h);
		if (h.err || off < 5 || (uint32_t)off * 4 > l4len)
			return PKT_SHORT;
		if (!cur_skip(c, (size_t)off * 4))
			return PKT_SHORT;
		p->len = l4len - (uint32_t)off * 4;
	} else if (proto == 17) { /* RFC 768 */
		uint16_t ulen;

		p->sport = cur_be16(&h);
		p->dport = cur_be16(&h);
		ulen = cur_be16(&h);
		if (h.err || ulen < 8 || !cur_skip(c, 8))
			return PKT_SHORT;
		if (ulen < l4len)
			l4len = ulen;
		p->len = l4len - 8;
	} else {
		return PKT_NOT_L4;
	}
	p->payload = c->pos;
	p->caplen = (uint32_t)cur_left(c);
	if (p->caplen > p->len)
		p->caplen = p->len; /* Ethernet padding */
	return PKT_OK;
}

/* RFC 791 */
static enum pkt_skip decode_ipv4(struct cur *c, struct pkt *p)
{
	struct cur h = *c;
	uint8_t vihl = cur_u8(&h);
	uint16_t tot, frag;
	uint8_t proto;
	const uint8_t *a;
	size_t ihl = (size_t)(vihl & 15) * 4;

	cur_skip(&h, 1);
	tot = cur_be16(&h);
	cur_skip(&h, 2);
	frag = cur_be16(&h);
	cur_skip(&h, 1);
	proto = cur_u8(&h);
	cur_skip(&h, 2);
	if (h.err || vihl >> 4 != 4 || ihl < 20 || tot < ihl)
		return PKT_SHORT;
	if (frag & 0x1fff)
		return PKT_FRAGMENT;
	a = c->pos + 12;
	if (!cur_need(c, ihl))
		return PKT_SHORT;
	p->family = 4;
	memset(p->src, 0, 32);
	memcpy(p->src, a, 4);
	memcpy(p->dst, a + 4, 4);
	cur_skip(c, ihl);
	/* tot == 0 with TSO on some captures: trust the captured length. */
	return decode_l4(c, proto, p, tot ? (uint32_t)(tot - ihl) : (uint32_t)cur_left(c));
}

/* RFC 8200 */
static enum pkt_skip decode_ipv6(struct cur *c, struct pkt *p)
{
	struct cur h = *c;
	uint32_t vtf = cur_be32(&h);
	uint32_t plen = cur_be16(&h);
	uint8_t nh = cur_u8(&h);
	const uint8_t *a;
	unsigned hops = 0;

	cur_skip(&h, 1);
	a = h.pos;
	if (!cur_skip(&h, 32) || vtf >> 28 != 6)
		return PKT_SHORT;
	p->family = 6;
	memcpy(p->src, a, 16);
	memcpy(p->dst, a + 16, 16);
	*c = h;
	/* extension headers: hop-by-hop, routing, fragment, destination options */
	while ((nh == 0 || nh == 43 || nh == 44 || nh == 60) && hops++ < 8) {
		uint8_t next = cur_u8(c);
		uint8_t l = cur_u8(c);
		size_t hl = nh == 44 ? 8 : ((size_t)l + 1) * 8;

		if (nh == 44) {
			uint16_t off = cur_be16(c);

			if (off & 0xfff8)
				return PKT_FRAGMENT;
			cur_skip(c, 4);
		} else {
			cur_skip(c, hl - 2);
		}
		if (c->err || plen < hl)
			return PKT_SHORT;
		plen -= (uint32_t)hl;
		nh = next;
	}
	return decode_l4(c, nh, p, plen ? plen : (uint32_t)cur_left(c));
}

static enum pkt_skip decode_ethertype(struct cur *c, uint16_t type, struct pkt *p)
{
	unsigned tags = 0;

	while ((type == 0x8100 || type == 0x88a8 || type == 0x9100) && tags++ < 4) {
		cur_skip(c, 2); /* IEEE 802.1Q TCI */
		type = cur_be16(c);
	}
	if (c->err)
		return PKT_SHORT;
	if (type == ETH_IP)
		return decode_ipv4(c, p);
	if (type == ETH_IPV6)
		return decode_ipv6(c, p);
	return PKT_NOT_IP;
}

static enum pkt_skip decode_ip_version(struct cur *c, struct pkt *p)
{
	if (!cur_need(c, 1))
		return PKT_SHORT;
	if (*c->pos >> 4 == 4)
		return decode_ipv4(c, p);
	if (*c->pos >> 4 == 6)
		return decode_ipv6(c, p);
	return PKT_NOT_IP;
}

enum pkt_skip pkt_decode(int dlt, const uint8_t *frame, uint32_t caplen, uint64_t ts_ns,
                         struct pkt *p)
{
	struct cur c = cur_make(frame, caplen);
	uint32_t af;
	uint16_t type;

	memset(p, 0, sizeof(*p));
	p->ts_ns = ts_ns;
	switch (dlt) {
	case DLT_EN10MB_:
		cur_skip(&c, 12);
		type = cur_be16(&c);
		return c.err ? PKT_SHORT : decode_ethertype(&c, type, p);
	case DLT_LINUX_SLL_: /* pcap/sll.h: 16-byte header, protocol last */
		cur_skip(&c, 14);
		type = cur_be16(&c);
		return c.err ? PKT_SHORT : decode_ethertype(&c, type, p);
	case DLT_LINUX_SLL2_: /* pcap/sll.h: protocol first, 20-byte header */
		type = cur_be16(&c);
		cur_skip(&c, 18);
		return c.err ? PKT_SHORT : decode_ethertype(&c, type, p);
	case DLT_RAW_A:
	case DLT_RAW_B:
	case DLT_RAW_C:
	case DLT_IPV4_:
	case DLT_IPV6_:
		return decode_ip_version(&c, p);
	case DLT_NULL_:
	case DLT_LOOP_:
		/* 4-byte address family: host order for NULL, network order for LOOP; accept both
		 */
		af = cur_be32(&c);
		if (c.err)
			return PKT_SHORT;
		if (af > 0xffff)
			af = __builtin_bswap32(af);
		if (af == 2)
			return decode_ipv4(&c, p);
		if (af == 10 || af == 24 || af == 28 || af == 30)
			return decode_ipv6(&c, p);
		return PKT_NOT_IP;
	default:
		return PKT_LINKTYPE;
	}
}
