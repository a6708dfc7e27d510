/* SPDX-License-Identifier: MIT */
/* Input streams: open a path, '-' or a FIFO once, sniff compression and format, read on. */
#ifndef IOTAPE_FORMATS_INSTREAM_H
#define IOTAPE_FORMATS_INSTREAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/err.h"

/*
 * Every input is opened once. The first bytes are read (and, for gzip or zstd, inflated)
 * into a head that is kept and handed out first, so that a pipe, a FIFO, a process
 * substitution or standard input loses nothing to the sniffing: the reader that takes the
 * stream sees it from byte 0.
 */

enum in_format {
	IN_FMT_UNKNOWN = 0,
	IN_FMT_EMPTY,    /* no bytes at all */
	IN_FMT_BLKTRACE, /* a blktrace record: version 7 or 8, either byte order */
	IN_FMT_PCAP,     /* a pcap file header: either byte order, us or ns timestamps */
	IN_FMT_PCAPNG,   /* a pcapng section header block */
	IN_FMT_JSON,     /* an object or array (an analyze summary, a manifest) */
	IN_FMT_IOLOG,    /* a fio iolog, version 2 or 3 */
};

enum in_codec {
	IN_PLAIN = 0,
	IN_GZIP,
	IN_ZSTD,
};

struct in_sniff {
	enum in_format format;
	enum in_codec codec;
	unsigned version; /* blktrace 7 or 8; iolog 2 or 3 */
	int swapped;      /* blktrace, pcap: the other byte order than this host's */
	int nsec;         /* pcap: nanosecond timestamps */
};

/* What the first len bytes of a (decompressed) stream are. A pure function, for tests. */
void in_sniff_bytes(const uint8_t *p, size_t len, struct in_sniff *s);
/* The codec of raw bytes (gzip 1f 8b, zstd 28 b5 2f fd), IN_PLAIN otherwise. */
enum in_codec in_sniff_codec(const uint8_t *p, size_t len);
/* "blktrace", "pcap", "pcapng", "JSON", "fio iolog", "empty", "unknown" */
const char *in_format_name(enum in_format f);
/* For messages: "a JSON document", "a pcap packet capture", ... */
const char *in_format_what(enum in_format f);
/* "gzip", "zstd", "none" */
const char *in_codec_name(enum in_codec c);

struct in_stream;

/*
 * Open path ("-": standard input, which is dup'ed and left open) and sniff it. A directory
 * is -EISDIR. Returns 0 or -errno with e naming the path.
 */
int in_stream_open(struct in_stream **out, const char *path, struct iot_err *e);
/* The same over an open descriptor, which the stream then owns; name is for messages. */
int in_stream_open_fd(struct in_stream **out, int fd, const char *name, struct iot_err *e);
/* Over bytes in memory (not copied: they must outlive the stream); for fuzzing and tests. */
int in_stream_open_mem(struct in_stream **out, const void *p, size_t len, const char *name,
                       struct iot_err *e);

const struct in_sniff *in_stream_sniff(const struct in_stream *s);
const char *in_stream_name(const struct in_stream *s);

/*
 * Up to len decompressed bytes, from the start of the stream: the number read (less than
 * len only at the end, or from a pipe), 0 at the end, or -errno with e naming the path and
 * the offset (bad compressed data: -EINVAL). Bytes read before an error come first.
 */
ssize_t in_stream_read(struct in_stream *s, void *buf, size_t len, struct iot_err *e);
/*
 * The next bytes in place, for readers of records that handle them where they lie: the keep
 * bytes at tail (the unread end of the last piece this returned, or nothing) are put in front
 * of the new bytes and *p points at the whole, keep + the new ones, which is returned. A
 * compressed file's bytes are not copied (its thread inflates them into chunks with room in
 * front for the kept bytes); others are read into a buffer of the stream's. The piece is
 * valid until the next call or the close. 0 at the end, *p then pointing at the kept bytes
 * (which may have moved); -errno as in_stream_read(). Do not mix with in_stream_read() on one
 * stream.
 */
ssize_t in_stream_next(struct in_stream *s, const uint8_t *tail, size_t keep, const uint8_t **p,
                       struct iot_err *e);
/* 1 once the end was read inside a gzip member or zstd frame: the file was cut short (a
 * reader's warning, as for a record cut short), not bad bytes. 0 for s NULL. */
int in_stream_truncated(const struct in_stream *s);
/* Decompressed bytes handed out so far (the offset of the next byte read). */
uint64_t in_stream_offset(const struct in_stream *s);

/*
 * A plain (uncompressed) regular file can be mapped instead of read: its descriptor (owned
 * by the stream) and *size, or -1 for anything else. A caller that maps it does not read.
 */
int in_stream_mappable(const struct in_stream *s, uint64_t *size);

/*
 * A stdio stream over s (for libraries that read a FILE, such as libpcap). The FILE owns s:
 * fclose() closes both. After a read error, in_stream_status() and in_stream_error() of s
 * say what it was.
 */
FILE *in_stream_fopen(struct in_stream *s);
/* The error that stopped s (a negative errno, 0 if none) and what it was, without the
 * stream's name ("gzip: invalid block type at offset 1234"; "" if none). */
int in_stream_status(const struct in_stream *s);
const char *in_stream_error(const struct in_stream *s);

void in_stream_close(struct in_stream *s);

#endif
