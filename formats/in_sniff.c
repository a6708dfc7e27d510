/* SPDX-License-Identifier: MIT */
/* Sniffing: an input's compression and format told from its first bytes, and their names. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "formats/instream.h"

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int host_is_le(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 1;
}

enum in_codec in_sniff_codec(const uint8_t *p, size_t len)
{
	if (len >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return IN_GZIP;
	if (len >= 4 && le32(p) == 0xfd2fb528u) /* ZSTD_MAGICNUMBER, little-endian on disk */
		return IN_ZSTD;
	return IN_PLAIN;
}

/* blktrace magic and version (include/uapi/linux/blktrace_api.h: BLK_IO_TRACE_MAGIC) */
static bool sniff_blktrace(uint32_t w, int le_on_disk, struct in_sniff *s)
{
	unsigned v = w & 0xff;

	if ((w & 0xffffff00u) != 0x65617400u || (v != 7 && v != 8))
		return false;
	s->format = IN_FMT_BLKTRACE;
	s->version = v;
	s->swapped = le_on_disk != host_is_le();
	return true;
}

/* "fio version 2 iolog" / "fio version 3 iolog" (fio's iolog.c), then a newline */
static bool sniff_iolog(const uint8_t *p, size_t len, struct in_sniff *s)
{
	static const char pre[] = "fio version ", post[] = " iolog";
	const size_t np = sizeof(pre) - 1, nq = sizeof(post) - 1;

	if (len < np + 1 + nq || memcmp(p, pre, np) || (p[np] != '2' && p[np] != '3') ||
	    memcmp(p + np + 1, post, nq))
		return false;
	if (len > np + 1 + nq && p[np + 1 + nq] != '\n' && p[np + 1 + nq] != '\r')
		return false;
	s->format = IN_FMT_IOLOG;
	s->version = (unsigned)(p[np] - '0');
	return true;
}

void in_sniff_bytes(const uint8_t *p, size_t len, struct in_sniff *s)
{
	size_t i = 0;

	s->format = IN_FMT_UNKNOWN;
	s->version = 0;
	s->swapped = s->nsec = 0;
	if (!len) {
		s->format = IN_FMT_EMPTY;
		return;
	}
	if (len >= 4) {
		uint32_t b = be32(p);

		if (sniff_blktrace(le32(p), 1, s) || sniff_blktrace(b, 0, s))
			return;
		/* pcap: the magic in the writer's byte order (pcap-savefile(5)) */
		if (b == 0xa1b2c3d4u || b == 0xd4c3b2a1u || b == 0xa1b23c4du || b == 0x4d3cb2a1u) {
			s->format = IN_FMT_PCAP;
			s->nsec = b == 0xa1b23c4du || b == 0x4d3cb2a1u;
			/* written big-endian when the bytes read a1 b2 in order */
			s->swapped = (b == 0xa1b2c3d4u || b == 0xa1b23c4du) == host_is_le();
			return;
		}
		if (b == 0x0a0d0d0au) { /* pcapng Section Header Block type */
			s->format = IN_FMT_PCAPNG;
			return;
		}
	}
	if (sniff_iolog(p, len, s))
		return;
	while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	if (i < len && (p[i] == '{' || p[i] == '['))
		s->format = IN_FMT_JSON;
}

const char *in_format_name(enum in_format f)
{
	static const char *const names[] = {
	    [IN_FMT_UNKNOWN] = "unknown",   [IN_FMT_EMPTY] = "empty",
	    [IN_FMT_BLKTRACE] = "blktrace", [IN_FMT_PCAP] = "pcap",
	    [IN_FMT_PCAPNG] = "pcapng",     [IN_FMT_JSON] = "JSON",
	    [IN_FMT_IOLOG] = "fio iolog",
	};

	return (unsigned)f < sizeof(names) / sizeof(names[0]) ? names[f] : "unknown";
}

const char *in_format_what(enum in_format f)
{
	switch (f) {
	case IN_FMT_EMPTY:
		return "an empty file";
	case IN_FMT_BLKTRACE:
		return "a blktrace trace";
	case IN_FMT_PCAP:
		return "a pcap packet capture";
	case IN_FMT_PCAPNG:
		return "a pcapng packet capture";
	case IN_FMT_JSON:
		return "a JSON document";
	case IN_FMT_IOLOG:
		return "a fio iolog";
	default:
		return "of an unknown format";
	}
}

const char *in_codec_name(enum in_codec c)
{
	return c == IN_GZIP ? "gzip" : c == IN_ZSTD ? "zstd" : "none";
}
