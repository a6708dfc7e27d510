/* SPDX-License-Identifier: MIT */
/* An input stream's decoders: its raw bytes read, then handed out as they are, or inflated
 * (gzip: ISA-L's igzip, else zlib) or decompressed (zstd); each started and ended. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef IOTAPE_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#include "formats/instream_int.h"

/* ---- the raw bytes ----------------------------------------------------------------- */

static int fail(struct in_stream *s, struct iot_err *e, int code, const char *what)
{
	return iot_err_set(e, code, "'%s': %s at offset %llu", s->name, what,
	                   (unsigned long long)(s->raw_base + s->raw_pos));
}

ssize_t in_dec_fill_raw(struct in_stream *s, struct iot_err *e)
{
	ssize_t n;

	if (s->raw_eof || s->fd < 0) {
		s->raw_eof = 1;
		return 0;
	}
	if (s->raw_pos) {
		memmove(s->raw, s->raw + s->raw_pos, s->raw_len - s->raw_pos);
		s->raw_base += s->raw_pos;
		s->raw_len -= s->raw_pos;
		s->raw_pos = 0;
	}
	do
		n = read(s->fd, s->raw + s->raw_len, s->raw_cap - s->raw_len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return iot_err_set(e, -errno, "'%s': %s", s->name, strerror(errno));
	if (!n)
		s->raw_eof = 1;
	s->raw_len += (size_t)n;
	return n;
}

/* ---- decoders: up to len bytes into buf, >= 0 bytes or -errno ---------------------------- */

/*
 * An error after done bytes were produced: those bytes are handed out first, the error (in
 * s->last, where every decoder call writes) on the next read.
 */
static ssize_t stop(struct in_stream *s, size_t done, ssize_t err)
{
	if (!done)
		return err;
	s->dec_err = (int)err;
	return (ssize_t)done;
}

static ssize_t plain_read(struct in_stream *s, uint8_t *buf, size_t len, struct iot_err *e)
{
	size_t n = s->raw_len - s->raw_pos;
	ssize_t r;

	if (n) {
		n = n < len ? n : len;
		memcpy(buf, s->raw + s->raw_pos, n);
		s->raw_pos += n;
		return (ssize_t)n;
	}
	if (s->raw_eof || s->fd < 0) {
		s->eof = 1;
		return 0;
	}
	do
		r = read(s->fd, buf, len);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return iot_err_set(e, -errno, "'%s': %s", s->name, strerror(errno));
	if (!r)
		s->eof = 1;
	s->raw_base += (uint64_t)r; /* raw_pos == raw_len: the offset moves on with the reads */
	return r;
}

#ifdef IOTAPE_HAVE_ISAL
static const char *isal_what(int rc)
{
	switch (rc) {
	case ISAL_INVALID_BLOCK:
		return "invalid block";
	case ISAL_INVALID_SYMBOL:
		return "invalid code";
	case ISAL_INVALID_LOOKBACK:
		return "invalid distance too far back";
	case ISAL_INVALID_WRAPPER:
		return "incorrect header";
	case ISAL_UNSUPPORTED_METHOD:
		return "unknown compression method";
	case ISAL_INCORRECT_CHECKSUM:
		return "incorrect data check";
	default:
		return "bad compressed data";
	}
}
#endif

static void gz_member_start(struct in_stream *s)
{
#ifdef IOTAPE_HAVE_ISAL
	if (s->isal) {
		isal_inflate_reset(s->isal);
		s->isal->crc_flag = ISAL_GZIP; /* the header parsed, the trailer's CRC checked */
		return;
	}
#endif
	inflateReset(&s->z);
}

/*
 * One inflate call: raw bytes from raw_pos into out[0, len). *used and *made say how many
 * bytes went in and came out; 1 at a member's end, 0 going on, -EINVAL or -ENOMEM with what.
 */
static int gz_step(struct in_stream *s, uint8_t *out, size_t len, size_t *used, size_t *made,
                   const char **what)
{
	size_t left = s->raw_len - s->raw_pos;
	uint32_t in = (uint32_t)(left < UINT32_MAX ? left : UINT32_MAX);
	uint32_t room = (uint32_t)(len < UINT32_MAX ? len : UINT32_MAX);
	int rc;

#ifdef IOTAPE_HAVE_ISAL
	if (s->isal) {
		struct inflate_state *st = s->isal;

		st->next_in = s->raw + s->raw_pos;
		st->avail_in = in;
		st->next_out = out;
		st->avail_out = room;
		rc = isal_inflate(st);
		*used = in - st->avail_in;
		*made = room - st->avail_out;
		if (rc < 0) {
			*what = isal_what(rc);
			return -EINVAL;
		}
		return st->block_state == ISAL_BLOCK_FINISH;
	}
#endif
	s->z.next_in = s->raw + s->raw_pos;
	s->z.avail_in = in;
	s->z.next_out = out;
	s->z.avail_out = room;
	rc = inflate(&s->z, Z_NO_FLUSH);
	*used = in - s->z.avail_in;
	*made = room - s->z.avail_out;
	if (rc == Z_STREAM_END)
		return 1;
	if (rc == Z_OK || rc == Z_BUF_ERROR) /* Z_BUF_ERROR: no progress possible, not an error */
		return 0;
	*what = s->z.msg ? s->z.msg : "bad compressed data";
	return rc == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
}

static ssize_t gz_read(struct in_stream *s, uint8_t *buf, size_t len, struct iot_err *e)
{
	size_t done = 0;

	while (done < len && !s->eof) {
		size_t left = s->raw_len - s->raw_pos, used, made;
		const char *what = NULL;
		char msg[160];
		ssize_t r;
		int rc;

		if ((s->member_end ? left < 2 : !left) && !s->raw_eof) {
			if ((r = in_dec_fill_raw(s, e)) < 0)
				return stop(s, done, r);
			continue;
		}
		if (s->member_end) {
			/* concatenated members go on (gzip(1)); anything else after one is ignored
			 */
			if (left >= 2 && s->raw[s->raw_pos] == 0x1f &&
			    s->raw[s->raw_pos + 1] == 0x8b) {
				gz_member_start(s);
				s->member_end = 0;
				continue;
			}
			s->eof = 1;
			break;
		}
		rc = gz_step(s, buf + done, len - done, &used, &made, &what);
		s->raw_pos += used;
		done += made;
		if (rc == -ENOMEM)
			return stop(s, done,
			            iot_err_set(e, -ENOMEM, "'%s': gzip: out of memory", s->name));
		if (rc < 0) {
			snprintf(msg, sizeof(msg), "gzip: %s", what);
			return stop(s, done, fail(s, e, -EINVAL, msg));
		}
		if (rc == 1) {
			s->member_end = 1;
		} else if (!used && !made) {
			/* the inflater wants more than there is: the end inside a member (the file
			 * was cut short), or more to read */
			if (s->raw_eof) {
				s->truncated = 1;
				s->eof = 1;
				break;
			}
			if ((r = in_dec_fill_raw(s, e)) < 0)
				return stop(s, done, r);
		}
	}
	return (ssize_t)done;
}

static ssize_t zstd_read(struct in_stream *s, uint8_t *buf, size_t len, struct iot_err *e)
{
	size_t done = 0;

	while (done < len && !s->eof) {
		ZSTD_inBuffer in = {s->raw + s->raw_pos, s->raw_len - s->raw_pos, 0};
		ZSTD_outBuffer out = {buf + done, len - done, 0};
		size_t rc;
		ssize_t r;

		if (!in.size) {
			if (!s->raw_eof) {
				if ((r = in_dec_fill_raw(s, e)) < 0)
					return stop(s, done, r);
				continue;
			}
			s->truncated = s->frame_open; /* the end inside a frame: cut short */
			s->eof = 1;
			break;
		}
		rc = ZSTD_decompressStream(s->zs, &out, &in);
		s->raw_pos += in.pos;
		done += out.pos;
		if (ZSTD_isError(rc)) {
			char what[160];

			snprintf(what, sizeof(what), "zstd: %s", ZSTD_getErrorName(rc));
			return stop(s, done, fail(s, e, -EINVAL, what));
		}
		s->frame_open = rc != 0; /* 0: a frame ended and everything is flushed */
	}
	return (ssize_t)done;
}

ssize_t in_dec_produce(struct in_stream *s, uint8_t *buf, size_t len, struct iot_err *e)
{
	if (s->dec_err)
		return s->dec_err; /* e (s->last, or the thread's) still says what */
	switch (s->sn.codec) {
	case IN_GZIP:
		return gz_read(s, buf, len, e);
	case IN_ZSTD:
		return zstd_read(s, buf, len, e);
	default:
		return plain_read(s, buf, len, e);
	}
}

int in_dec_start(struct in_stream *s, struct iot_err *e)
{
	if (s->sn.codec != IN_PLAIN && s->raw_owned) {
		/* a plain stream reads into the caller's buffers; a decoder wants its input in big
		 * pieces */
		uint8_t *p = realloc(s->raw, RAW_SIZE);

		if (!p)
			return iot_err_set(e, -ENOMEM, "out of memory");
		s->raw = p;
		s->raw_cap = RAW_SIZE;
	}
	if (s->sn.codec == IN_GZIP) {
#ifdef IOTAPE_HAVE_ISAL
		s->isal = malloc(sizeof(*s->isal));
		if (!s->isal)
			return iot_err_set(e, -ENOMEM, "out of memory");
		isal_inflate_init(s->isal);
		s->isal->crc_flag = ISAL_GZIP;
#else
		/* 15 + 16: a gzip header and trailer around deflate data, a 32 KiB window */
		if (inflateInit2(&s->z, 15 + 16) != Z_OK)
			return iot_err_set(e, -ENOMEM, "'%s': cannot start gzip stream", s->name);
		s->z_init = 1;
#endif
	} else if (s->sn.codec == IN_ZSTD) {
		s->zs = ZSTD_createDStream();
		if (!s->zs || ZSTD_isError(ZSTD_initDStream(s->zs)))
			return iot_err_set(e, -ENOMEM, "'%s': cannot start zstd stream", s->name);
		s->frame_open = 1;
	}
	return 0;
}

void in_dec_end(struct in_stream *s)
{
	if (s->z_init)
		inflateEnd(&s->z);
#ifdef IOTAPE_HAVE_ISAL
	free(s->isal);
#endif
	ZSTD_freeDStream(s->zs);
}
