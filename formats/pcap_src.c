/* SPDX-License-Identifier: MIT */
/* Packet captures read in place: pcap and pcapng from a mapped file or an input stream. */
#include "formats/pcap_src.h"

#include <errno.h>
#include <pcap/pcap.h> /* pcap_datalink_val_to_name(): libpcap names the link types */
#include <stdlib.h>
#include <string.h>

#include "common/cursor.h"
#include "formats/instream.h"
#include "formats/mapwin.h"

/*
 * pcap-savefile(5) and pcapng (draft-ietf-opsawg-pcapng) are read here rather than through
 * libpcap's offline reader, which copies every frame twice (the kernel's read into stdio's
 * buffer, then into its own) with two stdio calls per frame: on a 448 MB capture of large
 * WRITEs that copying was a third of the whole analysis. A plain file is mapped and frames
 * are handed out where they lie; so are a compressed file's, in the chunks the input stream's
 * thread inflates them into (in_stream_next()); pipes and standard input go through a buffer
 * the input stream fills. Every length comes from the file and is checked against the
 * bytes there before use (common/cursor.h).
 */

#define MAX_RECORD (16u << 20) /* a record or block past this is bad bytes */
#define MAX_IFACES 256
/* the mapped window (formats/mapwin.h): a frame is used before the next is asked for, so
 * little is kept behind; a few MiB resident whatever the file's size */
#define MAP_STEP (1u << 20)
#define MAP_KEEP (256u << 10)
#define MAP_FILL (2u << 20)

enum { F_PCAP, F_PCAPNG };

struct iface {
	int dlt;
	uint32_t snaplen;
	int exp10;        /* timestamp units 10^-exp10 s, or */
	int exp2;         /* 2^-exp2 s when exp10 < 0 */
	int64_t offset_s; /* if_tsoffset */
};

struct pcap_src {
	struct in_stream *in;
	const char *name;
	/* bytes: the whole mapped file, or the stream's last piece [0, len) (in_stream_next()) */
	const uint8_t *buf;
	size_t len, pos;
	struct mapwin map; /* map.len: buf is the mapped file */
	uint64_t base;     /* stream offset of buf[0] */
	int eof;           /* nothing more will come into buf */
	int format, swapped, nsec;
	int dlt;       /* the first interface's, for pcap_src_dlt() */
	int frame_dlt; /* the last frame's */
	uint32_t snaplen;
	struct iface *ifs;
	unsigned nifs;
	uint64_t records;
	int truncated; /* the file ends inside a record (or its compressed stream is cut) */
	int gzip;
};

static uint32_t rd32(const struct pcap_src *s, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return s->swapped ? __builtin_bswap32(v) : v;
}

static uint16_t rd16(const struct pcap_src *s, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return s->swapped ? __builtin_bswap16(v) : v;
}

/* libpcap's DLT for a LINKTYPE_ value (the ones pkt_decode knows differ only for raw IP). */
static int dlt_of(uint32_t linktype)
{
	linktype &= 0x03ffffffu; /* LT_LINKTYPE(): the high bits say FCS lengths */
	return linktype == 101 ? 12 : (int)linktype;
}

/*
 * At least n bytes at buf + pos (fewer only at the end of the capture): 1 when there are, 0
 * when the capture ends first (check len - pos), -errno on a read error (e filled).
 */
static int need(struct pcap_src *s, size_t n, struct iot_err *e)
{
	while (s->len - s->pos < n) {
		const uint8_t *p;
		ssize_t r;

		if (s->eof)
			return 0;
		/* the unread bytes kept in front of the stream's next piece, which is used in place
		 * (a compressed capture's chunks are not copied again) */
		r = in_stream_next(s->in, s->buf ? s->buf + s->pos : NULL, s->len - s->pos, &p, e);
		if (r < 0) {
			/* the stream names itself: the caller puts the name in front */
			size_t k = strlen(s->name);

			if (e->msg[0] == '\'' && !strncmp(e->msg + 1, s->name, k) &&
			    !strncmp(e->msg + 1 + k, "': ", 3))
				memmove(e->msg, e->msg + k + 4, strlen(e->msg + k + 4) + 1);
			return (int)r;
		}
		if (r == 0) {
			s->eof = 1;
			return 0;
		}
		s->base += s->pos;
		s->buf = p;
		s->len = (size_t)r;
		s->pos = 0;
	}
	return 1;
}

static uint64_t offset(const struct pcap_src *s)
{
	return s->base + s->pos;
}

static int bad(struct pcap_src *s, struct iot_err *e, const char *what, uint64_t v)
{
	return iot_err_set(e, -EINVAL, "%s %llu at offset %llu (record %llu)", what,
	                   (unsigned long long)v, (unsigned long long)offset(s),
	                   (unsigned long long)s->records + 1);
}

/* --- pcap --- */

static int pcap_header(struct pcap_src *s, struct iot_err *e)
{
	const uint8_t *h = s->buf + s->pos;
	uint32_t magic;

	memcpy(&magic, h, 4);
	s->swapped = magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u;
	magic = rd32(s, h);
	if (magic != 0xa1b2c3d4u && magic != 0xa1b23c4du)
		return iot_err_set(e, -EINVAL, "'%s': not a packet capture (pcap magic 0x%08x)",
		                   s->name, magic);
	s->nsec = magic == 0xa1b23c4du;
	s->snaplen = rd32(s, h + 16);
	s->dlt = s->frame_dlt = dlt_of(rd32(s, h + 20));
	s->pos += 24;
	return 0;
}

static int pcap_next_rec(struct pcap_src *s, const uint8_t **frame, uint32_t *caplen, uint64_t *ts,
                         struct iot_err *e)
{
	const uint8_t *h;
	uint32_t incl, sub;
	int r = need(s, 16, e);

	if (r < 0)
		return r;
	if (!r) {
		if (s->len == s->pos)
			return 0;
		return iot_err_set(e, -ENODATA, "truncated record header at offset %llu",
		                   (unsigned long long)offset(s));
	}
	h = s->buf + s->pos;
	incl = rd32(s, h + 8);
	sub = rd32(s, h + 4);
	if (incl > MAX_RECORD)
		return bad(s, e, "bad record length", incl);
	if ((r = need(s, 16 + (size_t)incl, e)) < 0)
		return r;
	if (!r)
		return iot_err_set(e, -ENODATA, "truncated record at offset %llu (record %llu)",
		                   (unsigned long long)offset(s),
		                   (unsigned long long)s->records + 1);
	h = s->buf + s->pos;
	*ts = (uint64_t)rd32(s, h) * 1000000000u + (uint64_t)sub * (s->nsec ? 1 : 1000);
	*frame = h + 16;
	*caplen = incl;
	s->pos += 16 + (size_t)incl;
	s->records++;
	return 1;
}

/* --- pcapng --- */

/* if_tsresol (option 9) and if_tsoffset (14) of an interface description block */
static void idb_options(struct pcap_src *s, struct cur *c, struct iface *f)
{
	while (cur_left(c) >= 4) {
		uint16_t code = rd16(s, c->pos), len = rd16(s, c->pos + 2);
		const uint8_t *v;

		cur_skip(c, 4);
		if (code == 0 || !(v = cur_bytes(c, len)))
			return;
		cur_skip(c, (4 - len % 4) % 4);
		if (code == 9 && len >= 1) {
			if (v[0] & 0x80) {
				f->exp10 = -1;
				f->exp2 = v[0] & 0x7f;
			} else {
				f->exp10 = v[0];
			}
		} else if (code == 14 && len >= 8) {
			uint64_t o;

			memcpy(&o, v, 8);
			f->offset_s = (int64_t)(s->swapped ? __builtin_bswap64(o) : o);
		}
	}
}

static uint64_t ts_ns(const struct iface *f, uint64_t t)
{
	uint64_t ns;

	if (f->exp10 < 0) { /* 2^-exp2 s: seconds and fraction apart, no overflow */
		unsigned k = f->exp2 < 63 ? (unsigned)f->exp2 : 63;

		ns = (t >> k) * 1000000000u +
		     (uint64_t)(((unsigned __int128)(t & ((1ull << k) - 1)) * 1000000000u) >> k);
	} else if (f->exp10 <= 9) {
		static const uint64_t p10[10] = {1000000000, 100000000, 10000000, 1000000, 100000,
		                                 10000,      1000,      100,      10,      1};

		ns = t * p10[f->exp10];
	} else {
		uint64_t d = 1;

		for (int i = 9; i < f->exp10 && i < 28; i++)
			d *= 10;
		ns = t / d;
	}
	return ns + (uint64_t)(f->offset_s * 1000000000);
}

static int idb(struct pcap_src *s, const uint8_t *b, uint32_t len)
{
	struct iface *f;
	struct cur c = cur_make(b + 16, len - 16 - 4);

	if (s->nifs >= MAX_IFACES)
		return 0; /* the frames of such interfaces are skipped: too many to keep */
	if (!s->ifs && !(s->ifs = calloc(MAX_IFACES, sizeof(*s->ifs))))
		return -ENOMEM;
	f = &s->ifs[s->nifs++];
	memset(f, 0, sizeof(*f));
	f->dlt = dlt_of(rd16(s, b + 8));
	f->snaplen = rd32(s, b + 12);
	f->exp10 = 6;
	idb_options(s, &c, f);
	if (s->nifs == 1 && !s->records)
		s->dlt = f->dlt;
	return 0;
}

/* The block at pos, not consumed: 1 (b, type, len filled), 0 at the end, or -errno. */
static int peek_block(struct pcap_src *s, const uint8_t **b, uint32_t *type, uint32_t *len,
                      struct iot_err *e)
{
	int r = need(s, 12, e);

	if (r <= 0) {
		if (r == 0 && s->len != s->pos)
			return iot_err_set(e, -ENODATA, "truncated block header at offset %llu",
			                   (unsigned long long)offset(s));
		return r;
	}
	*type = rd32(s, s->buf + s->pos);
	if (*type == 0x0a0d0d0au) { /* a section header: its own byte order */
		uint32_t bom;

		memcpy(&bom, s->buf + s->pos + 8, 4);
		if (bom != 0x1a2b3c4du && bom != 0x4d3c2b1au)
			return bad(s, e, "bad pcapng byte-order magic", bom);
		s->swapped = bom == 0x4d3c2b1au;
	}
	*len = rd32(s, s->buf + s->pos + 4);
	if (*len < 12 || *len % 4 || *len > MAX_RECORD)
		return bad(s, e, "bad block length", *len);
	if ((r = need(s, *len, e)) < 0)
		return r;
	if (!r)
		return iot_err_set(e, -ENODATA, "truncated block at offset %llu",
		                   (unsigned long long)offset(s));
	*b = s->buf + s->pos;
	if (rd32(s, *b + *len - 4) != *len)
		return bad(s, e, "block lengths differ: trailer", rd32(s, *b + *len - 4));
	return 1;
}

/* A section header or interface description block; other non-packet blocks are skipped. */
static int meta_block(struct pcap_src *s, const uint8_t *b, uint32_t type, uint32_t len,
                      struct iot_err *e)
{
	if (type == 0x0a0d0d0au) {
		if (len < 28)
			return bad(s, e, "bad section header length", len);
		s->nifs = 0; /* a new section: its interfaces start again */
	} else if (type == 1) {
		if (len < 20)
			return bad(s, e, "bad interface block length", len);
		if (idb(s, b, len))
			return iot_err_set(e, -ENOMEM, "out of memory");
	}
	return 0;
}

static bool is_packet_block(uint32_t type)
{
	return type == 6 || type == 2 || type == 3;
}

/* Blocks before the first packet, up to the first interface (its link type for the file). */
static int pcapng_preamble(struct pcap_src *s, struct iot_err *e)
{
	const uint8_t *b;
	uint32_t type, len;
	int r;

	while (!s->nifs && (r = peek_block(s, &b, &type, &len, e)) == 1 && !is_packet_block(type)) {
		if ((r = meta_block(s, b, type, len, e)))
			return r;
		s->pos += len;
	}
	return r < 0 ? r : 0;
}

static int pcapng_next_rec(struct pcap_src *s, const uint8_t **frame, uint32_t *caplen,
                           uint64_t *ts, struct iot_err *e)
{
	for (;;) {
		const uint8_t *b;
		uint32_t type, len, cap, iface = 0;
		uint64_t t = 0;
		int r = peek_block(s, &b, &type, &len, e);

		if (r <= 0)
			return r;
		s->pos += len;
		switch (type) {
		case 6: /* enhanced packet block */
		case 2: /* obsolete packet block */
			if (len < 32)
				return bad(s, e, "bad packet block length", len);
			iface = type == 6 ? rd32(s, b + 8) : rd16(s, b + 8);
			t = (uint64_t)rd32(s, b + 12) << 32 | rd32(s, b + 16);
			cap = rd32(s, b + 20);
			if (cap > len - 32)
				return bad(s, e, "bad captured length", cap);
			*frame = b + 28;
			break;
		case 3: /* simple packet block: interface 0, no time */
			if (len < 16)
				return bad(s, e, "bad packet block length", len);
			cap = rd32(s, b + 8);
			if (s->nifs && s->ifs[0].snaplen && cap > s->ifs[0].snaplen)
				cap = s->ifs[0].snaplen;
			if (cap > len - 16)
				cap = len - 16;
			*frame = b + 12;
			break;
		default: /* section, interface; name resolution, statistics, custom: skipped */
			if ((r = meta_block(s, b, type, len, e)))
				return r;
			continue;
		}
		if (iface >= s->nifs) {
			if (!s->nifs)
				return bad(s, e, "a packet before any interface block: interface",
				           iface);
			continue; /* an interface past MAX_IFACES: skipped */
		}
		*caplen = cap;
		*ts = type == 3 ? 0 : ts_ns(&s->ifs[iface], t);
		s->frame_dlt = s->ifs[iface].dlt;
		s->records++;
		return 1;
	}
}

/* --- the source --- */

int pcap_src_open_stream(struct pcap_src **out, struct in_stream *in, struct iot_err *e)
{
	const struct in_sniff *sn = in_stream_sniff(in);
	struct pcap_src *s = calloc(1, sizeof(*s));
	uint64_t size;
	int fd, ret;

	*out = NULL;
	if (!s) {
		in_stream_close(in);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	s->in = in;
	s->name = in_stream_name(in);
	s->gzip = sn->codec == IN_GZIP;
	if (sn->format != IN_FMT_PCAP && sn->format != IN_FMT_PCAPNG) {
		ret = iot_err_set(e, -EINVAL, "'%s': not a packet capture (%s)", s->name,
		                  in_format_what(sn->format));
		goto fail;
	}
	s->format = sn->format == IN_FMT_PCAP ? F_PCAP : F_PCAPNG;
	fd = in_stream_mappable(in, &size);
	if (fd >= 0 && mapwin_open(&s->map, fd, size, MAP_STEP, MAP_KEEP, MAP_FILL) == 0) {
		s->buf = s->map.base;
		s->len = s->map.len;
		s->eof = 1;
	}
	if (s->format == F_PCAP) {
		ret = need(s, 24, e);
		if (ret == 0)
			ret = iot_err_set(e, -EINVAL, "'%s': not a packet capture (%llu bytes)",
			                  s->name, (unsigned long long)(s->len - s->pos));
		if (ret < 0 || (ret = pcap_header(s, e)))
			goto fail;
	} else if ((ret = pcapng_preamble(s, e))) {
		goto fail;
	} else if (!s->nifs && s->len == s->pos) {
		ret = iot_err_set(e, -EINVAL, "'%s': a pcapng capture without interfaces", s->name);
		goto fail;
	}
	*out = s;
	return 0;
fail:
	pcap_src_free(s);
	return ret;
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
	int ret;

	if (s->map.len && s->pos >= s->map.mark)
		mapwin_move(&s->map, s->pos);
	ret = s->format == F_PCAP ? pcap_next_rec(s, frame, caplen, ts_ns, e)
	                          : pcapng_next_rec(s, frame, caplen, ts_ns, e);
	/* a compressed capture cut at a record's end is cut short all the same */
	if (!ret && in_stream_truncated(s->in))
		ret = iot_err_set(e, -ENODATA, "the compressed stream ends early");
	if (ret == -ENODATA)
		s->truncated = 1;
	return ret;
}

int pcap_src_dlt(const struct pcap_src *s)
{
	return s->dlt;
}

int pcap_src_frame_dlt(const struct pcap_src *s)
{
	return s->frame_dlt;
}

const char *pcap_src_dlt_name(int dlt)
{
	const char *n = pcap_datalink_val_to_name(dlt);

	return n ? n : "unknown";
}

int pcap_src_truncated(const struct pcap_src *s)
{
	return s->truncated;
}

int pcap_src_gzip(const struct pcap_src *s)
{
	return s->gzip;
}

void pcap_src_free(struct pcap_src *s)
{
	if (!s)
		return;
	if (s->map.len)
		mapwin_close(&s->map);
	free(s->ifs);
	in_stream_close(s->in);
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

		p->src.port = cur_be16(&h);
		p->dst.port = cur_be16(&h);
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

		p->src.port = cur_be16(&h);
		p->dst.port = cur_be16(&h);
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
	p->src.addr.family = p->dst.addr.family = 4;
	memset(p->src.addr.bytes, 0, 16);
	memset(p->dst.addr.bytes, 0, 16);
	memcpy(p->src.addr.bytes, a, 4);
	memcpy(p->dst.addr.bytes, a + 4, 4);
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
	p->src.addr.family = p->dst.addr.family = 6;
	memcpy(p->src.addr.bytes, a, 16);
	memcpy(p->dst.addr.bytes, a + 16, 16);
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
