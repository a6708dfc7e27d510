/* SPDX-License-Identifier: MIT */
/* An input stream's state, shared by instream.c (opening, reading, the thread) and
 * in_decode.c (the decoders) only. */
#ifndef IOTAPE_FORMATS_INSTREAM_INT_H
#define IOTAPE_FORMATS_INSTREAM_INT_H

#include <stdint.h>
#include <sys/types.h>
#include <zlib.h>
#include <zstd.h>

#include "formats/instream.h"

#define RAW_SIZE (256u * 1024) /* compressed bytes read at a time */
#define HEAD_CAP 4096u         /* bytes kept from the start for sniffing */

struct worker;

struct in_stream {
	char *name;
	int fd;        /* -1 for a stream over memory */
	int regular;   /* a regular file */
	uint64_t size; /* of a regular file */
	struct in_sniff sn;
	/* raw bytes: what a decoder has not consumed yet (plain: the bytes read for the sniff) */
	uint8_t *raw;
	int raw_owned; /* raw is ours (not the caller's memory) */
	size_t raw_pos, raw_len, raw_cap;
	uint64_t raw_base; /* offset in the file of raw[0] */
	int raw_eof;
	z_stream z;
	int z_init;
#ifdef IOTAPE_HAVE_ISAL
	struct inflate_state *isal; /* ISA-L's igzip: 2-3x zlib's speed; zlib without it */
#endif
	int member_end; /* gzip: a member ended; another may follow */
	ZSTD_DStream *zs;
	int frame_open; /* zstd: inside a frame */
	/* decompressed bytes read for the sniff, handed out before anything else */
	uint8_t head[HEAD_CAP];
	size_t head_pos, head_len;
	uint64_t out_off;
	int eof;
	int truncated; /* the compressed stream ended inside a member or frame */
	int dec_err;   /* the decoder's: returned once the bytes before it are handed out */
	int err;       /* the reader's, sticky */
	struct iot_err last;
	struct worker *w; /* a compressed file's decompression thread, once started */
	uint8_t *join;    /* in_stream_next(): a piece's kept bytes and the new ones after them */
	size_t join_cap;
};

/* in_decode.c */
/* Read more raw bytes behind the unconsumed ones: >0 added, 0 at the end, -errno. */
ssize_t in_dec_fill_raw(struct in_stream *s, struct iot_err *e);
/* The codec s->sn.codec names, started (its buffer and decoder state). */
int in_dec_start(struct in_stream *s, struct iot_err *e);
/* Up to len decoded bytes into buf: >= 0 bytes (0: the end) or -errno. */
ssize_t in_dec_produce(struct in_stream *s, uint8_t *buf, size_t len, struct iot_err *e);
/* The decoder's state freed. */
void in_dec_end(struct in_stream *s);

#endif
