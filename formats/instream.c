/* SPDX-License-Identifier: MIT */
/* Input streams: one open per input, compression and format sniffed on the stream itself,
 * a compressed one decoded (in_decode.c) on a thread of its own. */
#include "formats/instream.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/instream_int.h"

/* a compressed file is inflated on a thread of its own, NCHUNK chunks ahead of the reader */
#define NCHUNK 4
#define CHUNK_SIZE (1u << 20)
/* room before each chunk for the unread end of the one before (in_stream_next()) */
#define SLACK (256u << 10)
#define JOIN_READ (1u << 20) /* bytes read at a time into the join buffer */
#define SNIFF_MIN 64u        /* read at least this much (or to the end) before deciding */

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

/* ---- opening ----------------------------------------------------------------------- */

static bool all_blank(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\n' && p[i] != '\r')
			return false;
	return true;
}

/* Sniff: the raw magic, then the first decompressed bytes, kept in head. */
static int sniff(struct in_stream *s, struct iot_err *e)
{
	ssize_t n;
	int ret;

	while (s->raw_len < 4 && !s->raw_eof)
		if ((n = in_dec_fill_raw(s, e)) < 0)
			return (int)n;
	s->sn.codec = in_sniff_codec(s->raw, s->raw_len);
	if ((ret = in_dec_start(s, e)))
		return ret;
	while (!s->eof && !s->err &&
	       (s->head_len < SNIFF_MIN ||
	        (s->head_len < HEAD_CAP && all_blank(s->head, s->head_len)))) {
		n = in_dec_produce(s, s->head + s->head_len, HEAD_CAP - s->head_len, &s->last);
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
		n = in_dec_produce(s, w->chunk[k] + SLACK, CHUNK_SIZE, &w->last);
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

/* Up to len bytes from the thread's chunks, as in_dec_produce() says them: >= 0 or -errno (e). */
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
	         : in_dec_produce(s, (uint8_t *)buf, len, &s->last);
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
	in_dec_end(s);
	if (s->fd >= 0)
		close(s->fd);
	if (s->raw_owned)
		free(s->raw);
	free(s->join);
	free(s->name);
	free(s);
}
