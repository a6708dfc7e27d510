/* SPDX-License-Identifier: MIT */
/* fio iologs, versions 2 and 3: line parser, streaming reader into block events, and writer. */
#include "formats/iolog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cursor.h"
#include "common/fs.h"
#include "common/numfmt.h"
#include "formats/instream.h"

static const char *const op_names[IOLOG_OP_N] = {
    [IOLOG_READ] = "read",         [IOLOG_WRITE] = "write", [IOLOG_SYNC] = "sync",
    [IOLOG_DATASYNC] = "datasync", [IOLOG_TRIM] = "trim",   [IOLOG_WAIT] = "wait",
    [IOLOG_ADD] = "add",           [IOLOG_OPEN] = "open",   [IOLOG_CLOSE] = "close",
};

const char *iolog_op_name(unsigned op)
{
	return op < IOLOG_OP_N ? op_names[op] : "?";
}

static bool is_io_op(unsigned op)
{
	return op <= IOLOG_WAIT;
}

unsigned iolog_sniff(const void *buf, size_t len)
{
	/* fio compares the first line's prefix only (strncmp over the header's length) */
	if (len >= strlen(IOLOG_V3_HEADER) &&
	    !memcmp(buf, IOLOG_V3_HEADER, strlen(IOLOG_V3_HEADER)))
		return 3;
	if (len >= strlen(IOLOG_V2_HEADER) &&
	    !memcmp(buf, IOLOG_V2_HEADER, strlen(IOLOG_V2_HEADER)))
		return 2;
	return 0;
}

/* ---- one line ------------------------------------------------------------------------ */

static bool is_blank(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

struct tok {
	const char *p;
	size_t len;
};

/* Split at blanks into at most max tokens; returns how many there were (max + 1 if more). */
static unsigned tokens(const char *line, size_t len, struct tok *t, unsigned max)
{
	struct cur c = cur_make(line, len);
	unsigned n = 0;

	while (cur_left(&c)) {
		const char *start;

		if (is_blank(*c.pos)) {
			cur_skip(&c, 1);
			continue;
		}
		if (n == max)
			return max + 1;
		start = (const char *)c.pos;
		while (cur_left(&c) && !is_blank(*c.pos))
			cur_skip(&c, 1);
		t[n].p = start;
		t[n].len = (size_t)((const char *)c.pos - start);
		n++;
	}
	return n;
}

static int number(const struct tok *t, const char *what, uint64_t *out, struct iot_err *e)
{
	uint64_t v = 0;

	if (!t->len)
		return iot_err_set(e, -EINVAL, "empty %s", what);
	for (size_t i = 0; i < t->len; i++) {
		unsigned d = (unsigned)(t->p[i] - '0');

		if (d > 9)
			return iot_err_set(e, -EINVAL, "%s '%.*s' is not a number", what,
			                   (int)(t->len > 40 ? 40 : t->len), t->p);
		if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, d, &v))
			return iot_err_set(e, -EINVAL, "%s '%.*s' is too large", what,
			                   (int)(t->len > 40 ? 40 : t->len), t->p);
	}
	*out = v;
	return 0;
}

static int op_of(const struct tok *t, bool io, unsigned version, struct iot_err *e)
{
	unsigned lo = io ? IOLOG_READ : IOLOG_ADD, hi = io ? IOLOG_WAIT : IOLOG_CLOSE;

	for (unsigned op = lo; op <= hi; op++)
		if (strlen(op_names[op]) == t->len && !memcmp(op_names[op], t->p, t->len))
			return (int)op;
	(void)version;
	return iot_err_set(e, -EINVAL, "unknown %s '%.*s'", io ? "operation" : "file action",
	                   (int)(t->len > 40 ? 40 : t->len), t->p);
}

int iolog_parse_line(unsigned version, const char *line, size_t len, struct iolog_rec *rec,
                     struct iot_err *e)
{
	struct tok t[5];
	unsigned n = tokens(line, len, t, 5), base = version == 3;
	int op, ret;

	memset(rec, 0, sizeof(*rec));
	if (version != 2 && version != 3)
		return iot_err_set(e, -EINVAL, "iolog version %u is not supported", version);
	/* fio's sscanf would end a field there; a name with one would not be this name */
	if (memchr(line, 0, len))
		return iot_err_set(e, -EINVAL, "a NUL byte in the line");
	if (!n)
		return 0;
	/* version 3: TIME FILE ACTION | TIME FILE OP OFFSET LENGTH; version 2 drops TIME */
	if (n != base + 2 && n != base + 4)
		return iot_err_set(e, -EINVAL, "%u fields (a version %u line has %u or %u)",
		                   n > 5 ? 5 : n, version, base + 2, base + 4);
	if (base && (ret = number(&t[0], "time", &rec->time_us, e)))
		return ret;
	if (t[base].len > IOLOG_MAX_NAME)
		return iot_err_set(e, -EINVAL, "file name longer than %d bytes", IOLOG_MAX_NAME);
	rec->file = t[base].p;
	rec->file_len = t[base].len;
	op = op_of(&t[base + 1], n == base + 4, version, e);
	if (op < 0)
		return op;
	rec->op = (unsigned)op;
	if (n == base + 4) {
		if ((ret = number(&t[base + 2], "offset", &rec->offset, e)) ||
		    (ret = number(&t[base + 3], "length", &rec->len, e)))
			return ret;
		/* fio reads the length with %u */
		if (rec->len > UINT32_MAX)
			return iot_err_set(e, -EINVAL, "length %llu is too large",
			                   (unsigned long long)rec->len);
	}
	return 1;
}

/* ---- reader -------------------------------------------------------------------------- */

#define RD_BUF (256u << 10)

struct iolog_reader {
	char *path;
	struct in_stream *in;
	char *buf;
	size_t pos, len; /* unconsumed bytes buf[pos..len) */
	int eof;
	uint64_t lineno;
	struct iolog_stats st;
	uint64_t now_ns; /* version 2: the last wait's time */
	uint64_t last_us;
	uint32_t seq;
	/* files: names in order of appearance (index + 1 = minor), and a hash for lookups */
	char **names;
	unsigned nnames, capnames;
	unsigned *hash; /* index + 1, 0 = empty */
	unsigned hcap;
};

static uint32_t name_hash(const char *p, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)p[i]) * 16777619u;
	return h;
}

static int hash_grow(struct iolog_reader *r)
{
	unsigned cap = r->hcap ? r->hcap * 2 : 64;
	unsigned *h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (unsigned i = 0; i < r->nnames; i++) {
		uint32_t k = name_hash(r->names[i], strlen(r->names[i])) & (cap - 1);

		while (h[k])
			k = (k + 1) & (cap - 1);
		h[k] = i + 1;
	}
	free(r->hash);
	r->hash = h;
	r->hcap = cap;
	return 0;
}

/* The file's number (1-based), registering it on first sight; 0 when out of memory or full. */
static unsigned file_index(struct iolog_reader *r, const char *p, size_t len)
{
	uint32_t k;
	char *name;

	if (!r->hcap && hash_grow(r))
		return 0;
	for (k = name_hash(p, len) & (r->hcap - 1); r->hash[k]; k = (k + 1) & (r->hcap - 1)) {
		const char *n = r->names[r->hash[k] - 1];

		if (!strncmp(n, p, len) && !n[len])
			return r->hash[k];
	}
	if (r->nnames >= 0xfffff) /* the minor number's width */
		return 0;
	if ((r->nnames + 1) * 2 > r->hcap) {
		if (hash_grow(r))
			return 0;
		return file_index(r, p, len);
	}
	if (r->nnames == r->capnames) {
		unsigned cap = r->capnames ? r->capnames * 2 : 16;
		char **nn = realloc(r->names, cap * sizeof(*nn));

		if (!nn)
			return 0;
		r->names = nn;
		r->capnames = cap;
	}
	name = strndup(p, len);
	if (!name)
		return 0;
	r->names[r->nnames++] = name;
	r->hash[k] = r->nnames;
	return r->nnames;
}

/* Next line into *line (without the newline); 1, 0 at the end, -errno. */
static int next_line(struct iolog_reader *r, const char **line, size_t *len, struct iot_err *e)
{
	for (;;) {
		char *nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);

		if (nl) {
			*line = r->buf + r->pos;
			*len = (size_t)(nl - (r->buf + r->pos));
			r->pos += *len + 1;
			r->lineno++;
			return 1;
		}
		if (r->len - r->pos > IOLOG_MAX_LINE)
			return iot_err_set(e, -EINVAL, "'%s': line %llu: longer than %d bytes",
			                   r->path, (unsigned long long)r->lineno + 1,
			                   IOLOG_MAX_LINE);
		if (r->eof) {
			if (r->pos == r->len)
				return 0;
			/* the last line has no newline: fio's fgets takes it whole; so do we, but a
			 * writer killed in mid-line leaves a partial one, so say so if it is bad */
			*line = r->buf + r->pos;
			*len = r->len - r->pos;
			r->pos = r->len;
			r->lineno++;
			return 2;
		}
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->pos = 0;
		{
			ssize_t n = in_stream_read(r->in, r->buf + r->len, RD_BUF - r->len, e);

			if (n < 0)
				return (int)n;
			if (n == 0)
				r->eof = 1;
			r->len += (size_t)n;
		}
	}
}

int iolog_reader_open_stream(struct iolog_reader **out, struct in_stream *in, struct iot_err *e)
{
	struct iolog_reader *r = calloc(1, sizeof(*r));
	const char *line;
	size_t len;
	int ret;

	*out = NULL;
	if (!r) {
		in_stream_close(in);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	r->in = in;
	r->path = strdup(in_stream_name(in));
	r->buf = malloc(RD_BUF);
	if (!r->path || !r->buf) {
		iolog_reader_free(r);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	ret = next_line(r, &line, &len, e);
	if (ret < 0) {
		iolog_reader_free(r);
		return ret;
	}
	r->st.version = ret ? iolog_sniff(line, len) : 0;
	if (!r->st.version) {
		ret = iot_err_set(e, -EINVAL, "'%s': not a fio iolog (version 2 or 3 header)",
		                  r->path);
		iolog_reader_free(r);
		return ret;
	}
	r->st.lines = 1;
	*out = r;
	return 0;
}

int iolog_reader_open(struct iolog_reader **out, const char *path, struct iot_err *e)
{
	struct in_stream *in;
	int ret = in_stream_open(&in, path, e);

	*out = NULL;
	return ret ? ret : iolog_reader_open_stream(out, in, e);
}

int iolog_reader_next(struct iolog_reader *r, struct blk_event *ev, struct iot_err *e)
{
	struct iolog_rec rec;
	const char *line;
	size_t len;
	unsigned f;
	int ret, last;

	for (;;) {
		ret = next_line(r, &line, &len, e);
		if (ret <= 0)
			return ret;
		last = ret == 2;
		r->st.lines++;
		if (iolog_sniff(line, len)) {
			/* several jobs appending to one log each write a header */
			r->st.ignored++;
			continue;
		}
		ret = iolog_parse_line(r->st.version, line, len, &rec, e);
		if (ret < 0) {
			if (last) {
				r->st.truncated = 1;
				return 0;
			}
			iot_err_prefix(e, "'%s': line %llu", r->path,
			               (unsigned long long)r->lineno);
			return ret;
		}
		if (!ret)
			continue;
		r->st.ops[rec.op]++;
		if (r->st.version == 3) {
			if (rec.time_us < r->last_us)
				r->st.backwards++;
			r->last_us = rec.time_us;
		}
		if (rec.op == IOLOG_WAIT) {
			if (r->st.version == 3) {
				r->st.ignored++;
				continue;
			}
			if (rec.offset > UINT64_MAX / 1000000)
				return iot_err_set(e, -EINVAL, "'%s': line %llu: wait too long",
				                   r->path, (unsigned long long)r->lineno);
			r->now_ns = rec.offset * 1000000;
			continue;
		}
		f = file_index(r, rec.file, rec.file_len);
		if (!f)
			return iot_err_set(e, -ENOMEM,
			                   "'%s': line %llu: too many files (or out of "
			                   "memory)",
			                   r->path, (unsigned long long)r->lineno);
		if (!is_io_op(rec.op))
			continue;
		memset(ev, 0, sizeof(*ev));
		if (r->st.version == 3) {
			if (rec.time_us > UINT64_MAX / 1000)
				return iot_err_set(e, -EINVAL, "'%s': line %llu: time too large",
				                   r->path, (unsigned long long)r->lineno);
			ev->time = rec.time_us * 1000;
		} else {
			ev->time = r->now_ns;
		}
		ev->dev = BLK_MKDEV(0, f);
		ev->action = BLK_A_ISSUE;
		ev->seq = ++r->seq;
		ev->sector = rec.offset >> 9;
		switch (rec.op) {
		case IOLOG_READ:
			ev->flags = BLK_F_ISSUE | BLK_F_READ;
			break;
		case IOLOG_WRITE:
			ev->flags = BLK_F_ISSUE | BLK_F_WRITE;
			break;
		case IOLOG_TRIM:
			ev->flags = BLK_F_ISSUE | BLK_F_WRITE | BLK_F_DISCARD;
			break;
		default: /* sync, datasync */
			ev->flags = BLK_F_ISSUE | BLK_F_WRITE | BLK_F_FLUSH;
			rec.len = 0;
			break;
		}
		ev->bytes = (uint32_t)rec.len;
		if ((rec.offset | rec.len) & 511)
			r->st.unaligned++;
		r->st.ios++;
		r->st.bytes += rec.len;
		return 1;
	}
}

const struct iolog_stats *iolog_reader_stats(const struct iolog_reader *r)
{
	return &r->st;
}

unsigned iolog_reader_nfiles(const struct iolog_reader *r)
{
	return r->nnames;
}

const char *iolog_reader_file(const struct iolog_reader *r, unsigned n)
{
	return n >= 1 && n <= r->nnames ? r->names[n - 1] : NULL;
}

void iolog_reader_free(struct iolog_reader *r)
{
	if (!r)
		return;
	in_stream_close(r->in);
	for (unsigned i = 0; i < r->nnames; i++)
		free(r->names[i]);
	free(r->names);
	free(r->hash);
	free(r->buf);
	free(r->path);
	free(r);
}

/* ---- writer -------------------------------------------------------------------------- */

#define WR_BUF (256u << 10)

struct iolog_writer {
	char *path;
	int fd;
	unsigned version;
	size_t len, last_len;
	int err; /* first write error, -errno */
	char buf[WR_BUF];
};

static void wr_flush(struct iolog_writer *w)
{
	if (!w->err)
		w->err = iot_write_all(w->fd, w->buf, w->len, NULL);
	w->len = 0;
}

static int writer_open(struct iolog_writer **out, int fd, const char *name, unsigned version,
                       struct iot_err *e)
{
	struct iolog_writer *w;

	*out = NULL;
	if (version != 2 && version != 3)
		return iot_err_set(e, -EINVAL, "iolog version %u is not supported", version);
	w = malloc(sizeof(*w));
	if (!w || !(w->path = strdup(name))) {
		free(w);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	w->fd = fd;
	w->version = version;
	w->err = 0;
	w->len = w->last_len = 0;
	*out = w;
	return 0;
}

int iolog_writer_open(struct iolog_writer **out, int fd, const char *name, unsigned version,
                      struct iot_err *e)
{
	int ret = writer_open(out, fd, name, version, e);

	if (!ret)
		(*out)->len = (size_t)sprintf((*out)->buf, "%s\n",
		                              version == 2 ? IOLOG_V2_HEADER : IOLOG_V3_HEADER);
	return ret;
}

int iolog_writer_append(struct iolog_writer **out, int fd, const char *name, unsigned version,
                        size_t drop, struct iot_err *e)
{
	struct stat st;
	int ret;

	*out = NULL;
	if (drop) {
		if (fstat(fd, &st))
			ret = -errno;
		else if ((uint64_t)st.st_size < drop)
			ret = -EINVAL;
		else if (ftruncate(fd, st.st_size - (off_t)drop))
			ret = -errno;
		else
			ret = 0;
		if (ret)
			return iot_err_set(e, ret, "'%s': cannot take back its last line: %s", name,
			                   strerror(-ret));
	}
	return writer_open(out, fd, name, version, e);
}

size_t iolog_writer_last_len(const struct iolog_writer *w)
{
	return w->last_len;
}

int iolog_writer_line(struct iolog_writer *w, uint64_t time_us, const char *file, unsigned op,
                      uint64_t offset, uint64_t len, struct iot_err *e)
{
	size_t flen = strlen(file);
	char *p;

	if (op >= IOLOG_OP_N || op == IOLOG_WAIT || !flen || flen > IOLOG_MAX_NAME ||
	    strpbrk(file, " \t\r\n\v\f"))
		return iot_err_set(e, -EINVAL, "'%s': cannot write op %u for file '%s'", w->path,
		                   op, file);
	if (w->len + flen + 128 > WR_BUF)
		wr_flush(w);
	if (w->err)
		return iot_err_set(e, w->err, "'%s': %s", w->path, strerror(-w->err));
	p = w->buf + w->len;
	if (w->version == 3) {
		p = numfmt_u64(p, time_us);
		*p++ = ' ';
	}
	memcpy(p, file, flen);
	p += flen;
	*p++ = ' ';
	memcpy(p, op_names[op], strlen(op_names[op]));
	p += strlen(op_names[op]);
	if (is_io_op(op)) {
		*p++ = ' ';
		p = numfmt_u64(p, offset);
		*p++ = ' ';
		p = numfmt_u64(p, len);
	}
	*p++ = '\n';
	w->last_len = (size_t)(p - (w->buf + w->len));
	w->len = (size_t)(p - w->buf);
	return 0;
}

int iolog_writer_close(struct iolog_writer *w, struct iot_err *e)
{
	int ret;

	if (!w)
		return 0;
	wr_flush(w);
	ret = w->err;
	if (ret)
		iot_err_set(e, ret, "'%s': %s", w->path, strerror(-ret));
	free(w->path);
	free(w);
	return ret;
}
