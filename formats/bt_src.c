/* SPDX-License-Identifier: MIT */
/* One file of a blktrace set: opened (mapped, or read through a buffer), closed, and its
 * records decoded one at a time with their sequence numbers checked (the general path). */
#include <stdlib.h>
#include <string.h>

#include "common/cursor.h"
#include "formats/bt_decode.h"
#include "formats/bt_reader_int.h"
#include "formats/instream.h"
#include "formats/iolog.h"
#include "formats/rundir.h"

#define BUF_SIZE (1u << 20) /* per file; a record is at most 64 + 65535 bytes */

/* The mapped window (formats/mapwin.h): a record with its PDU is under 128 KiB. */
#define MAP_STEP (2u << 20)
#define MAP_KEEP (128u << 10)
#define MAP_FILL (4u << 20)

/* Take the opened stream in (owned from here on): map a plain regular file, else read it. */
int bt_src_attach(struct bt_src *s, struct in_stream *in, struct iot_err *e)
{
	const struct in_sniff *sn = in_stream_sniff(in);
	uint64_t size;
	int fd;

	s->in = in;
	s->path = strdup(in_stream_name(in));
	s->st.path = s->path;
	if (s->path) {
		const char *base = strrchr(s->path, '/'), *n;

		base = base ? base + 1 : s->path;
		if (rundir_is_trace_file(base) && (n = strstr(base, RUNDIR_SET_INFIX))) {
			unsigned long cpu = strtoul(n + strlen(RUNDIR_SET_INFIX), NULL, 10);

			s->src_cpu = cpu < UINT16_MAX ? (uint16_t)(cpu + 1) : 0;
		}
	}
	s->st.gzip = sn->codec == IN_GZIP;
	s->st.compression = in_codec_name(sn->codec);
	s->st.format = "blktrace";
	if (!s->path)
		return iot_err_set(e, -ENOMEM, "out of memory");
	switch (sn->format) {
	case IN_FMT_IOLOG: {
		/* its lines become events (bt_src_next); seq_last stays NULL: no fast path */
		int ret;

		s->in = NULL;
		ret = iolog_reader_open_stream(&s->iolog, in, e);
		if (!ret) {
			s->st.format = "fio iolog";
			s->st.iolog_version = iolog_reader_stats(s->iolog)->version;
		}
		return ret;
	}
	case IN_FMT_PCAP:
	case IN_FMT_PCAPNG:
	case IN_FMT_JSON:
		return iot_err_set(e, -EINVAL, "'%s': %s, not a blktrace trace", s->path,
		                   in_format_what(sn->format));
	default:
		break; /* a trace, or bytes the decoder will name (bad magic at offset 0) */
	}
	fd = in_stream_mappable(in, &size);
	/* read in place from the page cache: no copy into a buffer */
	if (fd >= 0 && mapwin_open(&s->map, fd, size, MAP_STEP, MAP_KEEP, MAP_FILL) == 0) {
		s->buf = s->map.base;
		s->len = s->map.len;
		s->eof = 1;
		return 0;
	}
	s->buf = malloc(BUF_SIZE);
	if (!s->buf)
		return iot_err_set(e, -ENOMEM, "out of memory");
	return 0;
}

int bt_src_open(struct bt_src *s, const char *path, struct iot_err *e)
{
	struct in_stream *in;
	int ret = in_stream_open(&in, path, e);

	return ret ? ret : bt_src_attach(s, in, e);
}

void bt_src_close(struct bt_src *s)
{
	iolog_reader_free(s->iolog);
	in_stream_close(s->in);
	if (s->map.len)
		mapwin_close(&s->map);
	else
		free(s->buf);
	free(s->path);
	free(s->seq);
}

/* Make room and read more bytes; returns bytes added, 0 at EOF, or -errno. */
static int src_fill(struct bt_src *s, struct iot_err *e)
{
	ssize_t n;

	if (s->eof)
		return 0; /* also a mapped file: all of it is in buf */
	if (s->pos) {
		memmove(s->buf, s->buf + s->pos, s->len - s->pos);
		s->off += s->pos;
		s->len -= s->pos;
		s->pos = 0;
	}
	n = in_stream_read(s->in, s->buf + s->len, BUF_SIZE - s->len, e);
	if (n < 0)
		return (int)n;
	if (n == 0)
		s->eof = 1;
	s->len += (size_t)n;
	return (int)n;
}

static uint32_t *seq_slot(struct bt_src *s, uint64_t key, int *fresh)
{
	size_t i;

	if ((s->seq_used + 1) * 2 > s->seq_cap) {
		size_t ncap = s->seq_cap ? s->seq_cap * 2 : 16;
		struct seq_slot *n = calloc(ncap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t j = 0; j < s->seq_cap; j++) {
			if (!s->seq[j].key)
				continue;
			i = seq_hash(s->seq[j].key, ncap);
			while (n[i].key)
				i = (i + 1) & (ncap - 1);
			n[i] = s->seq[j];
		}
		free(s->seq);
		s->seq = n;
		s->seq_cap = ncap;
		s->seq_last = NULL; /* slots moved */
	}
	i = seq_hash(key, s->seq_cap);
	while (s->seq[i].key && s->seq[i].key != key)
		i = (i + 1) & (s->seq_cap - 1);
	*fresh = !s->seq[i].key;
	if (*fresh) {
		s->seq[i].key = key;
		s->seq_used++;
	}
	return &s->seq[i].last;
}

/*
 * Sequence numbers count per device and CPU in the kernel (blk_add_trace increments
 * bt->sequence per CPU); a jump forward means records were lost (blkparse: "skips").
 * Notify records do not take part.
 */
static int track_seq(struct bt_src *s, const struct blk_event *ev)
{
	int fresh;
	uint32_t *last;

	uint64_t key = ((uint64_t)ev->dev << 32 | (s->src_cpu ? 0 : ev->cpu)) + 1;

	if (blk_is_notify(ev))
		return 0;
	if (key == s->seq_key && s->seq_last) {
		last = s->seq_last;
		fresh = 0;
	} else {
		last = seq_slot(s, key, &fresh);
		if (!last)
			return -ENOMEM;
		s->seq_key = key;
		s->seq_last = last;
	}
	s->seq_raw = (uint64_t)ev->dev << 32 | (s->src_cpu ? (uint32_t)s->src_cpu - 1 : ev->cpu);
	if (!fresh && ev->seq > *last + 1)
		s->st.skips += ev->seq - *last - 1;
	if (fresh || ev->seq > *last)
		*last = ev->seq;
	return 0;
}

/* A fio iolog's next IO as s->head. */
static int src_next_iolog(struct bt_src *s, struct iot_err *e)
{
	const struct iolog_stats *st = iolog_reader_stats(s->iolog);
	int r = iolog_reader_next(s->iolog, &s->head, e);

	s->st.records = st->ios;
	s->st.truncated = st->truncated;
	s->st.backwards = st->backwards;
	return r;
}

int bt_src_next(struct bt_src *s, struct iot_err *e)
{
	long n;
	int r;

	if (s->iolog)
		return src_next_iolog(s, e);
	for (;;) {
		n = bt_decode_inline(s->buf + s->pos, s->len - s->pos, &s->head, e);
		if (n > 0)
			break;
		if (n < 0) {
			char what[sizeof(e->msg)];

			/* DESIGN.md: "'FILE': WHAT at offset N"; the record count helps find it */
			snprintf(what, sizeof(what), "%s", e->msg);
			return iot_err_set(e, (int)n, "'%s': %s at offset %llu (record %llu)",
			                   s->path, what, (unsigned long long)(s->off + s->pos),
			                   (unsigned long long)s->st.records + 1);
		}
		r = src_fill(s, e);
		if (r < 0)
			return r;
		if (r == 0 && s->eof) {
			size_t left = s->len - s->pos;

			if (!left) {
				/* a compressed file cut at a record's end: still a cut */
				if (in_stream_truncated(s->in) && s->st.records) {
					s->st.truncated = 1;
					s->st.trunc_at = s->off + s->pos;
				}
				return 0;
			}
			/* a partial record: a warning after good records, an error when it is all
			 */
			if (!s->st.records)
				return iot_err_set(
				    e, -EINVAL,
				    "'%s': truncated record at offset %llu (%zu bytes, "
				    "record or its pdu_len runs past the end)",
				    s->path, (unsigned long long)(s->off + s->pos), left);
			s->st.truncated = 1;
			s->st.trunc_at = s->off + s->pos;
			s->pos = s->len;
			return 0;
		}
	}
	if (!s->st.version) {
		uint32_t m = load_u32(s->buf + s->pos);

		s->st.swapped = (m & 0xffffff00u) != BT_MAGIC;
		s->st.version = s->st.swapped ? (m >> 24) : (m & 0xff);
	}
	s->pos += (size_t)n;
	if (s->map.len && s->pos >= s->map.mark)
		mapwin_move(&s->map, s->pos);
	s->st.records++;
	s->st.bytes += (uint64_t)n;
	/* a record whose CPU field is not its file's is in the file's series */
	s->head.src = s->src_cpu && s->head.cpu != (uint32_t)s->src_cpu - 1 ? s->src_cpu : 0;
	if (track_seq(s, &s->head))
		return iot_err_set(e, -ENOMEM, "out of memory");
	return 1;
}
