/* SPDX-License-Identifier: MIT */
/* Input streams: one open per input, compression and format sniffed on the stream itself. */
/* (Past 800 lines: the sniff, the decoders and their thread share the stream's state, and a
 * split into two files made them call each other, a file cycle.) */
#include "formats/instream.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#ifdef IOTAPE_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#define RAW_SIZE (256u * 1024) /* compressed bytes read at a time */
/* a compressed file is inflated on a thread of its own, NCHUNK chunks ahead of the reader */
#define NCHUNK 4
#define CHUNK_SIZE (1u << 20)
/* room before each chunk for the unread end of the one before (in_stream_next()) */
#define SLACK (256u << 10)
#define JOIN_READ (1u << 20) /* bytes read at a time into the join buffer */

/*
 * The decompression thread: it fills chunks in turn while the reader (a decoder of packets
 * or trace records) works on the ones before. It owns the decoder's state (raw bytes, the
 * inflater, eof, truncated, dec_err) from its start; the reader touches only what is here,
 * under mu.
 */
struct worker {
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv; /* a chunk filled, a chunk handed back, or stop */
	uint8_t *chunk[NCHUNK];
	size_t clen[NCHUNK];
	uint64_t filled, used; /* chunks the thread filled, chunks the reader handed back */
	size_t pos;            /* the reader's offset in chunk[used % NCHUNK] */
	int done;              /* the thread filled its last chunk: then err (0: the end) */
	int err;
	struct iot_err last; /* what err was */
	int stop;            /* the reader closes the stream */
	int held;            /* in_stream_next() handed out chunk[used % NCHUNK] whole */
};
#define HEAD_CAP 4096u /* bytes kept from the start for sniffing */
#define SNIFF_MIN 64u  /* read at least this much (or to the end) before deciding */

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
			if ((r = fill_raw(s, e)) < 0)
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
			if ((r = fill_raw(s, e)) < 0)
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

/* ---- the decompression thread ------------------------------------------------------ */

static void *work(void *arg)
{
	struct in_stream *s = arg;
	struct worker *w = s->w;

	for (;;) {
		unsigned k;
		ssize_t n;

		pthread_mutex_lock(&w->mu);
		while (w->filled - w->used == NCHUNK && !w->stop)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->stop) {
			pthread_mutex_unlock(&w->mu);
			return NULL;
		}
		k = (unsigned)(w->filled % NCHUNK);
		pthread_mutex_unlock(&w->mu);
		n = produce(s, w->chunk[k] + SLACK, CHUNK_SIZE, &w->last);
		pthread_mutex_lock(&w->mu);
		if (n > 0) {
			w->clen[k] = (size_t)n;
			w->filled++;
		} else {
			w->done = 1;
			w->err = (int)n;
		}
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		if (n <= 0)
			return NULL;
	}
}

static void worker_free(struct worker *w)
{
	for (unsigned i = 0; i < NCHUNK; i++)
		free(w->chunk[i]);
	free(w);
}

/* A compressed file's bytes are inflated on a thread: 0, or -1 to inflate here instead. */
static int worker_start(struct in_stream *s)
{
	struct worker *w = calloc(1, sizeof(*w));

	if (!w)
		return -1;
	for (unsigned i = 0; i < NCHUNK; i++)
		if (!(w->chunk[i] = malloc(SLACK + CHUNK_SIZE))) {
			worker_free(w);
			return -1;
		}
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	s->w = w;
	if (pthread_create(&w->tid, NULL, work, s)) {
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		worker_free(w);
		s->w = NULL;
		return -1;
	}
	return 0;
}

static void worker_stop(struct in_stream *s)
{
	struct worker *w = s->w;

	pthread_mutex_lock(&w->mu);
	w->stop = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->tid, NULL);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	worker_free(w);
	s->w = NULL;
}

/* Up to len bytes from the thread's chunks, as produce() says them: >= 0 or -errno (e). */
static ssize_t take(struct in_stream *s, uint8_t *buf, size_t len, struct iot_err *e)
{
	struct worker *w = s->w;
	size_t done = 0;

	while (done < len) {
		size_t n, clen;
		unsigned k;

		pthread_mutex_lock(&w->mu);
		while (w->used == w->filled && !w->done)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->used == w->filled) {
			int err = w->err;

			pthread_mutex_unlock(&w->mu);
			if (done || !err)
				break;
			*e = w->last;
			return err;
		}
		k = (unsigned)(w->used % NCHUNK);
		clen = w->clen[k];
		pthread_mutex_unlock(&w->mu);
		n = clen - w->pos < len - done ? clen - w->pos : len - done;
		memcpy(buf + done, w->chunk[k] + SLACK + w->pos, n);
		w->pos += n;
		done += n;
		if (w->pos == clen) {
			pthread_mutex_lock(&w->mu);
			w->used++;
			w->pos = 0;
			pthread_cond_broadcast(&w->cv);
			pthread_mutex_unlock(&w->mu);
		}
	}
	return (ssize_t)done;
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
	if (!s->w && s->eof)
		return 0;
	/* a compressed regular file is inflated on a thread from the first read after the sniffed
	 * head: not a pipe, where the thread could block in read() for ever and never be stopped
	 * by a close, nor bytes in memory (the fuzzers' input) */
	if (!s->w && s->sn.codec != IN_PLAIN && s->regular && !s->dec_err)
		worker_start(s);
	n = s->w ? take(s, (uint8_t *)buf, len, &s->last)
	         : produce(s, (uint8_t *)buf, len, &s->last);
	if (n < 0) {
		s->err = (int)n;
		if (e && e != &s->last)
			*e = s->last;
		return n;
	}
	s->out_off += (uint64_t)n;
	return n;
}

/* The keep bytes at tail moved to the start of the join buffer, with room for more after. */
static int join_keep(struct in_stream *s, const uint8_t *tail, size_t keep, size_t more,
                     struct iot_err *e)
{
	uintptr_t t = (uintptr_t)tail, j = (uintptr_t)s->join;
	size_t in_join = SIZE_MAX; /* the tail's offset when it lies in the join buffer */
	uint8_t *p;

	if (keep && j && t >= j && t - j < s->join_cap)
		in_join = t - j;
	if (keep + more > s->join_cap) {
		if (!(p = realloc(s->join, keep + more)))
			return iot_err_set(e, -ENOMEM, "'%s': out of memory", s->name);
		s->join = p;
		s->join_cap = keep + more;
		if (in_join != SIZE_MAX)
			tail = p + in_join;
	}
	if (keep)
		memmove(s->join, tail, keep);
	return 0;
}

/* The kept bytes, then up to len bytes read after them, in the join buffer. */
static ssize_t next_joined(struct in_stream *s, const uint8_t *tail, size_t keep, size_t len,
                           const uint8_t **p, struct iot_err *e)
{
	ssize_t n;
	int ret;

	if ((ret = join_keep(s, tail, keep, len, e)))
		return ret;
	*p = s->join;
	if ((n = in_stream_read(s, s->join + keep, len, e)) <= 0)
		return n;
	return (ssize_t)keep + n;
}

ssize_t in_stream_next(struct in_stream *s, const uint8_t *tail, size_t keep, const uint8_t **p,
                       struct iot_err *e)
{
	struct worker *w;
	size_t clen;
	uint8_t *dst;
	unsigned k;
	int err;

	if (!keep && s->head_pos < s->head_len) { /* the sniffed head, where it lies */
		*p = s->head + s->head_pos;
		keep = s->head_len - s->head_pos;
		s->head_pos = s->head_len;
		s->out_off += keep;
		return (ssize_t)keep;
	}
	if (!s->w && !s->err && !s->eof && !s->dec_err && s->sn.codec != IN_PLAIN && s->regular)
		worker_start(s);
	if (!(w = s->w) || s->head_pos < s->head_len || (w->pos && !w->held))
		return next_joined(s, tail, keep, JOIN_READ, p, e);
	if (s->err) {
		if (e && e != &s->last)
			*e = s->last;
		return s->err;
	}
	/* the chunk after the one handed out last */
	pthread_mutex_lock(&w->mu);
	while (w->filled - w->used <= (uint64_t)w->held && !w->done)
		pthread_cond_wait(&w->cv, &w->mu);
	if (w->filled - w->used <= (uint64_t)w->held) {
		err = w->err;
		pthread_mutex_unlock(&w->mu);
		if (!err) {
			*p = tail; /* the end: the kept bytes stay where they are */
			return 0;
		}
		s->err = err;
		s->last = w->last;
		if (e && e != &s->last)
			*e = s->last;
		return err;
	}
	k = (unsigned)((w->used + (uint64_t)w->held) % NCHUNK);
	clen = w->clen[k];
	pthread_mutex_unlock(&w->mu);
	dst = w->chunk[k] + SLACK;
	if (keep <= SLACK) {
		/* the kept bytes into the room before the chunk: nothing else is copied */
		if (keep)
			memcpy(dst - keep, tail, keep);
		*p = dst - keep;
	} else {
		/* a record longer than the room: the kept bytes and the whole chunk joined */
		if ((err = join_keep(s, tail, keep, clen, e)))
			return err;
		memcpy(s->join + keep, dst, clen);
		*p = s->join;
	}
	pthread_mutex_lock(&w->mu);
	w->used += (uint64_t)w->held; /* the chunk before is the reader's no more */
	w->held = 1;
	if (keep > SLACK) { /* nor this one, copied whole */
		w->used++;
		w->held = 0;
	}
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	s->out_off += clen;
	return (ssize_t)(keep + clen);
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
	struct worker *w;
	int t;

	if (!s)
		return 0;
	if (!(w = s->w))
		return s->truncated;
	/* the thread's flag, once it is done with the stream */
	pthread_mutex_lock(&w->mu);
	t = w->done && s->truncated;
	pthread_mutex_unlock(&w->mu);
	return t;
}

int in_stream_status(const struct in_stream *s)
{
	return s->err;
}

void in_stream_close(struct in_stream *s)
{
	if (!s)
		return;
	if (s->w)
		worker_stop(s);
	if (s->z_init)
		inflateEnd(&s->z);
#ifdef IOTAPE_HAVE_ISAL
	free(s->isal);
#endif
	ZSTD_freeDStream(s->zs);
	if (s->fd >= 0)
		close(s->fd);
	if (s->raw_owned)
		free(s->raw);
	free(s->join);
	free(s->name);
	free(s);
}
