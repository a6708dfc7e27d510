/* SPDX-License-Identifier: MIT */
/* Input streams: one open per input, compression and format sniffed on the stream itself. */
#include "formats/instream.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define RAW_SIZE (256u * 1024) /* compressed bytes read at a time */
#define HEAD_CAP 4096u         /* bytes kept from the start for sniffing */
#define SNIFF_MIN 64u          /* read at least this much (or to the end) before deciding */

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
	int member_end; /* gzip: a member ended; another may follow */
	ZSTD_DStream *zs;
	int frame_open; /* zstd: inside a frame */
	/* decompressed bytes read for the sniff, handed out before anything else */
	uint8_t head[HEAD_CAP];
	size_t head_pos, head_len;
	uint64_t out_off;
	int eof;
	int truncated; /* the compressed stream ended inside a member or frame */
	int err;       /* sticky: returned once the bytes before it are handed out */
	struct iot_err last;
};

/* ---- sniffing ---------------------------------------------------------------------- */

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

/* ---- the raw bytes ----------------------------------------------------------------- */

static int fail(struct in_stream *s, struct iot_err *e, int code, const char *what)
{
	return iot_err_set(e, code, "'%s': %s at offset %llu", s->name, what,
	                   (unsigned long long)(s->raw_base + s->raw_pos));
}

/* Read more raw bytes behind the unconsumed ones: >0 added, 0 at the end, -errno. */
static ssize_t fill_raw(struct in_stream *s, struct iot_err *e)
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
	s->err = (int)err;
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

static ssize_t gz_read(struct in_stream *s, uint8_t *buf, size_t len, struct iot_err *e)
{
	size_t done = 0;

	while (done < len && !s->eof) {
		size_t left = s->raw_len - s->raw_pos, in, out;
		ssize_t r;
		int rc;

		if ((s->member_end ? left < 2 : !left) && !s->raw_eof) {
			if ((r = fill_raw(s, e)) < 0)
				return stop(s, done, r);
			continue;
		}
		if (s->member_end) {
			/* concatenated members go on (gzip(1)); anything else after one is ignored
			 */
			if (left >= 2 && s->raw[s->raw_pos] == 0x1f &&
			    s->raw[s->raw_pos + 1] == 0x8b) {
				inflateReset(&s->z);
				s->member_end = 0;
				continue;
			}
			s->eof = 1;
			break;
		}
		if (!left) { /* the end inside a member: the file was cut short */
			s->truncated = 1;
			s->eof = 1;
			break;
		}
		s->z.next_in = s->raw + s->raw_pos;
		s->z.avail_in = (uInt)(left < UINT32_MAX ? left : UINT32_MAX);
		s->z.next_out = buf + done;
		s->z.avail_out = (uInt)(len - done < UINT32_MAX ? len - done : UINT32_MAX);
		in = s->z.avail_in;
		out = s->z.avail_out;
		rc = inflate(&s->z, Z_NO_FLUSH);
		s->raw_pos += in - s->z.avail_in;
		done += out - s->z.avail_out;
		if (rc == Z_STREAM_END) {
			s->member_end = 1;
		} else if (rc == Z_NEED_DICT || rc == Z_DATA_ERROR || rc == Z_MEM_ERROR ||
		           rc == Z_STREAM_ERROR) {
			char what[160];

			if (rc == Z_MEM_ERROR)
				return stop(
				    s, done,
				    iot_err_set(e, -ENOMEM, "'%s': gzip: out of memory", s->name));
			snprintf(what, sizeof(what), "gzip: %s",
			         s->z.msg ? s->z.msg : "bad compressed data");
			return stop(s, done, fail(s, e, -EINVAL, what));
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
				if ((r = fill_raw(s, e)) < 0)
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

static ssize_t produce(struct in_stream *s, uint8_t *buf, size_t len, struct iot_err *e)
{
	if (s->err)
		return s->err; /* e is s->last: it still says what */
	switch (s->sn.codec) {
	case IN_GZIP:
		return gz_read(s, buf, len, e);
	case IN_ZSTD:
		return zstd_read(s, buf, len, e);
	default:
		return plain_read(s, buf, len, e);
	}
}

/* ---- opening ----------------------------------------------------------------------- */

static bool all_blank(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\n' && p[i] != '\r')
			return false;
	return true;
}

static int start_codec(struct in_stream *s, struct iot_err *e)
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
		/* 15 + 16: a gzip header and trailer around deflate data, a 32 KiB window */
		if (inflateInit2(&s->z, 15 + 16) != Z_OK)
			return iot_err_set(e, -ENOMEM, "'%s': cannot start gzip stream", s->name);
		s->z_init = 1;
	} else if (s->sn.codec == IN_ZSTD) {
		s->zs = ZSTD_createDStream();
		if (!s->zs || ZSTD_isError(ZSTD_initDStream(s->zs)))
			return iot_err_set(e, -ENOMEM, "'%s': cannot start zstd stream", s->name);
		s->frame_open = 1;
	}
	return 0;
}

/* Sniff: the raw magic, then the first decompressed bytes, kept in head. */
static int sniff(struct in_stream *s, struct iot_err *e)
{
	ssize_t n;
	int ret;

	while (s->raw_len < 4 && !s->raw_eof)
		if ((n = fill_raw(s, e)) < 0)
			return (int)n;
	s->sn.codec = in_sniff_codec(s->raw, s->raw_len);
	if ((ret = start_codec(s, e)))
		return ret;
	while (!s->eof && !s->err &&
	       (s->head_len < SNIFF_MIN ||
	        (s->head_len < HEAD_CAP && all_blank(s->head, s->head_len)))) {
		n = produce(s, s->head + s->head_len, HEAD_CAP - s->head_len, &s->last);
		if (n < 0) {
			/* bad bytes early on: hand out what came before them, then the error */
			s->err = (int)n;
			break;
		}
		s->head_len += (size_t)n;
	}
	in_sniff_bytes(s->head, s->head_len, &s->sn);
	if (s->sn.format == IN_FMT_EMPTY && s->err)
		s->sn.format = IN_FMT_UNKNOWN; /* not empty: unreadable */
	return 0;
}

static struct in_stream *stream_new(const char *name)
{
	struct in_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->fd = -1;
	s->name = strdup(name);
	if (!s->name) {
		free(s);
		return NULL;
	}
	return s;
}

static int finish_open(struct in_stream **out, struct in_stream *s, struct iot_err *e)
{
	int ret = sniff(s, e);

	if (ret) {
		in_stream_close(s);
		return ret;
	}
	*out = s;
	return 0;
}

int in_stream_open_fd(struct in_stream **out, int fd, const char *name, struct iot_err *e)
{
	struct in_stream *s;
	struct stat st;

	*out = NULL;
	if (fstat(fd, &st)) {
		int err = errno;

		close(fd);
		return iot_err_set(e, -err, "'%s': %s", name, strerror(err));
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return iot_err_set(e, -EISDIR, "'%s': is a directory", name);
	}
	s = stream_new(name);
	if (s)
		s->raw = malloc(HEAD_CAP);
	if (!s || !s->raw) {
		close(fd);
		if (s)
			free(s->name);
		free(s);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	s->raw_owned = 1;
	s->raw_cap = HEAD_CAP;
	s->fd = fd;
	if (S_ISREG(st.st_mode)) {
		s->regular = 1;
		s->size = (uint64_t)st.st_size;
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	}
	return finish_open(out, s, e);
}

int in_stream_open(struct in_stream **out, const char *path, struct iot_err *e)
{
	int fd;

	*out = NULL;
	if (!strcmp(path, "-")) {
		fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			return iot_err_set(e, -errno, "standard input: %s", strerror(errno));
		return in_stream_open_fd(out, fd, "-", e);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		if (err == ELOOP)
			return iot_err_set(e, -ELOOP, "'%s': a symbolic link loop", path);
		return iot_err_set(e, -err, "'%s': %s", path, strerror(err));
	}
	return in_stream_open_fd(out, fd, path, e);
}

int in_stream_open_mem(struct in_stream **out, const void *p, size_t len, const char *name,
                       struct iot_err *e)
{
	struct in_stream *s = stream_new(name);

	*out = NULL;
	if (!s)
		return iot_err_set(e, -ENOMEM, "out of memory");
	s->raw = (uint8_t *)p;
	s->raw_len = s->raw_cap = len;
	s->raw_eof = 1;
	return finish_open(out, s, e);
}

const struct in_sniff *in_stream_sniff(const struct in_stream *s)
{
	return &s->sn;
}

const char *in_stream_name(const struct in_stream *s)
{
	return s->name;
}

ssize_t in_stream_read(struct in_stream *s, void *buf, size_t len, struct iot_err *e)
{
	size_t done = 0;
	ssize_t n;

	if (s->head_pos < s->head_len) {
		done = s->head_len - s->head_pos < len ? s->head_len - s->head_pos : len;
		memcpy(buf, s->head + s->head_pos, done);
		s->head_pos += done;
		s->out_off += done;
		if (done == len)
			return (ssize_t)done;
	}
	if (done)
		return (ssize_t)done; /* the head first, alone: a short read is allowed */
	if (s->err) {
		if (e && e != &s->last)
			*e = s->last;
		return s->err;
	}
	if (s->eof)
		return 0;
	n = produce(s, (uint8_t *)buf, len, &s->last);
	if (n < 0) {
		s->err = (int)n;
		if (e && e != &s->last)
			*e = s->last;
		return n;
	}
	s->out_off += (uint64_t)n;
	return n;
}

uint64_t in_stream_offset(const struct in_stream *s)
{
	return s->out_off;
}

int in_stream_mappable(const struct in_stream *s, uint64_t *size)
{
	if (s->fd < 0 || !s->regular || s->sn.codec != IN_PLAIN || !s->size)
		return -1;
	*size = s->size;
	return s->fd;
}

/* ---- stdio ------------------------------------------------------------------------- */

static ssize_t cookie_read(void *cookie, char *buf, size_t size)
{
	struct in_stream *s = cookie;
	ssize_t n = in_stream_read(s, buf, size, &s->last);

	if (n < 0) {
		errno = (int)-n;
		return -1;
	}
	return n;
}

static int cookie_close(void *cookie)
{
	in_stream_close(cookie);
	return 0;
}

FILE *in_stream_fopen(struct in_stream *s)
{
	cookie_io_functions_t io = {.read = cookie_read, .close = cookie_close};
	FILE *f = fopencookie(s, "rb", io);

	if (f)
		setvbuf(f, NULL, _IOFBF, 1u << 20);
	return f;
}

const char *in_stream_error(const struct in_stream *s)
{
	size_t n = strlen(s->name);
	const char *m = s->last.msg;

	if (!s->err)
		return "";
	/* the message without its "'NAME': " */
	if (m[0] == '\'' && !strncmp(m + 1, s->name, n) && !strncmp(m + 1 + n, "': ", 3))
		return m + n + 4;
	return m;
}

int in_stream_truncated(const struct in_stream *s)
{
	return s && s->truncated;
}

int in_stream_status(const struct in_stream *s)
{
	return s->err;
}

void in_stream_close(struct in_stream *s)
{
	if (!s)
		return;
	if (s->z_init)
		inflateEnd(&s->z);
	ZSTD_freeDStream(s->zs);
	if (s->fd >= 0)
		close(s->fd);
	if (s->raw_owned)
		free(s->raw);
	free(s->name);
	free(s);
}
