/* SPDX-License-Identifier: MIT */
/* Streaming blktrace reader: per-CPU sets merged by time in bounded memory. */
#include "formats/blktrace.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cursor.h"
#include "formats/bt_decode.h"
#include "formats/instream.h"
#include "formats/iolog.h"
#include "formats/mapwin.h"
#include "formats/rundir.h"

#define BUF_SIZE (1u << 20) /* per file; a record is at most 64 + 65535 bytes */

struct seq_slot {
	uint64_t key; /* dev << 32 | cpu (0 in a per-CPU file), +1 so that 0 means empty */
	uint32_t last;
};

/* The mapped window (formats/mapwin.h): a record with its PDU is under 128 KiB. */
#define MAP_STEP (2u << 20)
#define MAP_KEEP (128u << 10)
#define MAP_FILL (4u << 20)

struct bt_src {
	struct bt_file_stats st;
	char *path;
	struct in_stream *in;
	uint8_t *buf;
	size_t pos, len;   /* unread bytes are buf[pos, len) */
	struct mapwin map; /* map.len: buf is the whole file mapped (else a buffer of BUF_SIZE) */
	uint64_t off;      /* file offset of buf[0] (uncompressed) */
	int eof;
	int have_head;
	struct blk_event head;
	struct seq_slot *seq;
	size_t seq_cap, seq_used;
	uint64_t seq_key; /* the last key looked up (a per-CPU file has one or two) */
	/* the (device, CPU) words the fast path takes records of: the last record's, its CPU the
	 * file's in a per-CPU file (a record of another CPU goes to the general path) */
	uint64_t seq_raw;
	uint32_t *seq_last; /* its slot; NULL after the table grows */
	/* a per-CPU file NAME.blktrace.N: 1 + N (blk_event.src), and sequences keyed by device
	 * alone, as blkparse keys them: a record whose CPU field is not N is in the file's
	 * series. 0 for anything else (a merged dump, a stream): keyed by (device, CPU). */
	uint16_t src_cpu;
	struct iolog_reader *iolog; /* a fio iolog: events from it, not from buf */
};

/*
 * Prefetch: a thread reads, decodes and merges into batches while the caller analyses the
 * previous ones, so the two halves of a pass run on two cores. PDUs are copied into the
 * batch, so an event stays valid while its batch is current (longer than the API promises).
 */
#define PF_BATCH 4096
#define PF_NBATCH 8
#define PF_SPINS 256
#define SB_BATCH 512 /* without a thread: small, so the events are still in L1 when used */
#define PF_ARENA (256u * 1024)
#define PF_PDU_MAX BT_PDU_MAX

struct pf_batch {
	/* on cache-line boundaries (batches come from aligned_alloc): an event is one line */
	_Alignas(64) struct blk_event ev[PF_BATCH];
	unsigned n;
	unsigned notifies; /* how many of ev are notify events */
	int end;           /* 0: more batches follow; 1: end of trace; <0: error (err holds it) */
	struct iot_err err;
	size_t used;
	uint8_t arena[PF_ARENA];
};

enum { PF_PROD, PF_CONS };

struct prefetch {
	pthread_t thread;
	int joined;
	pthread_mutex_t mu;
	pthread_cond_t cond[2]; /* one per side: PF_PROD, PF_CONS */
	atomic_int waiting[2];  /* that side sleeps (or is about to) on its cond */
	struct pf_batch *b;     /* ring of PF_NBATCH */
	/* batches filled, released: monotonic, batch k lives in b[k % PF_NBATCH] */
	atomic_uint produced, consumed;
	atomic_int stop;
	unsigned spins; /* spin this long before sleeping: 0 on one CPU */
	unsigned pos;   /* consumer: next event in its batch */
	int have;       /* consumer: its batch is ready */
	bt_tap_fn tap;  /* run by the reader thread on each batch it fills */
	void *tap_arg;
};

struct bt_reader {
	struct prefetch *pf;
	struct pf_batch *sb; /* without prefetch, bt_reader_next_batch()'s batch */
	unsigned sb_pos;
	struct bt_src *src;
	unsigned nsrc;
	unsigned *heap; /* indexes into src, ordered by head time */
	unsigned nheap;
	struct bt_file_stats *fstats;
	struct bt_stats st;
	struct bt_comm_table *comms;
	int last;      /* source of the event handed out last, or -1 */
	uint32_t keep; /* actions the caller looks at (bt_reader_keep_actions()); ~0u: all */
};

/* Take the opened stream in (owned from here on): map a plain regular file, else read it. */
static int src_attach(struct bt_src *s, struct in_stream *in, struct iot_err *e)
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
		/* its lines become events (src_next); seq_last stays NULL: never the fast path */
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

static int src_open(struct bt_src *s, const char *path, struct iot_err *e)
{
	struct in_stream *in;
	int ret = in_stream_open(&in, path, e);

	return ret ? ret : src_attach(s, in, e);
}

static void src_close(struct bt_src *s)
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

static size_t seq_hash(uint64_t key, size_t cap)
{
	return (key * 0x9e3779b97f4a7c15ull >> 32) & (cap - 1);
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

/* Decode the next record of s into s->head. 1: have one, 0: end of file, <0: error. */
static int src_next(struct bt_src *s, struct iot_err *e)
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

/*
 * The fast path of the merge. Nearly every record of a trace is a native-order version 7
 * record, not a notify, without a cgroup id, on the (device, CPU) of the record before it:
 * such a record is decoded straight into the output (its PDU, if any, copied into the
 * batch's arena), its sequence checked in place. Anything else (and the end of the buffer,
 * and the window's mark) goes to the general path, src_next().
 *
 * A run works on a copy of a source's position and sequence state in locals (struct run),
 * so that the stores of the events it writes do not make the compiler reload them, and
 * writes them back once at its end (run_end(): the records and bytes moved over, the
 * sequence, the window).
 */
struct run {
	const uint8_t *p;    /* the next record */
	const uint8_t *stop; /* a record from here on goes to the general path */
	const uint8_t *end;  /* the end of the bytes in the buffer */
	const uint8_t *from; /* p when the run began */
	uint64_t key;        /* the device and CPU words of the fast records (offset 36) */
	uint64_t pdub;       /* PDU bytes stepped over */
	uint64_t t;          /* the time of the record at p, once run_peek() said yes */
	uint64_t next;       /* the last sequence number of that (device, CPU), plus 1 */
};

static inline void run_begin(const struct bt_src *s, struct run *rs)
{
	size_t stop = s->len >= BT_REC7_SIZE ? s->len - BT_REC7_SIZE + 1 : 0;
	uint32_t kw[2] = {(uint32_t)(s->seq_raw >> 32), (uint32_t)s->seq_raw};

	/* a record from the window's mark on goes to the general path; run_end() moves it */
	if (s->map.len && s->map.mark < stop)
		stop = s->map.mark;
	if (!s->seq_last || stop < s->pos)
		stop = s->pos; /* a new (device, CPU): the general path looks it up */
	rs->p = rs->from = s->buf + s->pos;
	rs->stop = s->buf + stop;
	rs->end = s->buf + s->len;
	memcpy(&rs->key, kw, sizeof(kw));
	rs->pdub = 0;
	rs->t = 0;
	rs->next = (uint64_t)(s->seq_last ? *s->seq_last : 0) + 1;
}

static inline void run_end(struct bt_src *s, const struct run *rs)
{
	size_t moved = (size_t)(rs->p - rs->from);

	if (!moved)
		return;
	s->pos += moved;
	s->st.bytes += moved;
	s->st.records += (moved - rs->pdub) / BT_REC7_SIZE;
	*s->seq_last = (uint32_t)(rs->next - 1);
	if (s->map.len && s->pos >= s->map.mark)
		mapwin_move(&s->map, s->pos);
}

/* A PDU the fast path can take: not a notify, no cgroup id (either form), inside the buffer. */
static int run_pdu_ok(const struct run *rs, uint32_t action)
{
	size_t left = (size_t)(rs->end - rs->p) - BT_REC7_SIZE;
	unsigned pdu_len = load_u16(rs->p + BT7_PDU_LEN);

	return !((action >> BT_TC_SHIFT) & BLK_F_NOTIFY) && !(action & BT_TA_CGROUP) &&
	       (left < BT_PDU_MAX ? left : BT_PDU_MAX) >= pdu_len &&
	       (pdu_len != 8 || !bt_pdu_is_cgroup(action, 8));
}

/* The sequence slot of a (device, CPU) the file has met before, or NULL. */
static uint32_t *seq_find(const struct bt_src *s, uint64_t key)
{
	size_t i = seq_hash(key, s->seq_cap);

	while (s->seq[i].key && s->seq[i].key != key)
		i = (i + 1) & (s->seq_cap - 1);
	return s->seq[i].key ? &s->seq[i].last : NULL;
}

/*
 * The record at rs->p is on another (device, CPU) than the run's (a file with several
 * devices): the run goes on with that one's sequence if the file has met it before; a new
 * one goes to the general path, which adds it.
 */
static inline int run_rekey(struct bt_src *s, struct run *rs)
{
	uint32_t dev = load_u32(rs->p + BT7_DEVICE), cpu = load_u32(rs->p + BT7_CPU);
	uint64_t key = ((uint64_t)dev << 32 | (s->src_cpu ? 0 : cpu)) + 1;
	uint32_t *slot;

	/* a record of another CPU than its file's goes to the general path, which marks it (src) */
	if (s->src_cpu && cpu != (uint32_t)s->src_cpu - 1)
		return 0;
	if (!(slot = seq_find(s, key)))
		return 0;
	*s->seq_last = (uint32_t)(rs->next - 1);
	s->seq_key = key;
	s->seq_raw = (uint64_t)dev << 32 | cpu;
	s->seq_last = slot;
	rs->key = load_u64(rs->p + BT7_DEVICE);
	rs->next = (uint64_t)*slot + 1;
	return 1;
}

/* run_peek() of a record with a PDU, a notify, or of another (device, CPU) than the run's */
static __attribute__((noinline)) int run_peek_other(struct bt_src *s, struct run *rs)
{
	const uint8_t *p = rs->p;
	uint32_t action = load_u32(p + BT7_ACTION);

	if ((load_u16(p + BT7_PDU_LEN) || ((action >> BT_TC_SHIFT) & BLK_F_NOTIFY)) &&
	    !run_pdu_ok(rs, action))
		return 0;
	if (load_u64(p + BT7_DEVICE) != rs->key && !run_rekey(s, rs))
		return 0;
	rs->t = load_u64(p + BT7_TIME);
	return 1;
}

/* Can the record at rs->p take the fast path? Then its time is in rs->t. Inline in the merge
 * loops (the usual record: no PDU, no notify, the run's device and CPU), so that their runs
 * stay in registers: a call took their state to memory (bench/README.md, the replay's hot
 * path in instructions). */
static inline __attribute__((always_inline)) int run_peek(struct bt_src *s, struct run *rs)
{
	const uint8_t *p = rs->p;

	if (p >= rs->stop || load_u32(p) != (BT_MAGIC | BT_VERSION7))
		return 0;
	if (__builtin_expect(load_u16(p + BT7_PDU_LEN) ||
	                         ((load_u32(p + BT7_ACTION) >> BT_TC_SHIFT) & BLK_F_NOTIFY) ||
	                         load_u64(p + BT7_DEVICE) != rs->key,
	                     0))
		return run_peek_other(s, rs);
	rs->t = load_u64(p + BT7_TIME);
	return 1;
}

/* A sequence number other than the next one: count the records lost (as track_seq()). */
static void run_seq_jump(struct bt_src *s, struct run *rs, uint32_t seq)
{
	uint32_t last = (uint32_t)(rs->next - 1);

	if (seq > last + 1)
		s->st.skips += seq - last - 1;
	if (seq > last)
		last = seq;
	rs->next = (uint64_t)last + 1;
}

/*
 * Decode the record run_peek() accepted into ev and step over it. Its PDU is copied to
 * arena + *used when arena is given (0 when there is no room for it: nothing taken), else ev
 * points into the buffer (a head).
 */
static inline __attribute__((always_inline)) int
run_take(struct bt_src *s, struct run *rs, struct blk_event *ev, uint8_t *arena, size_t *used)
{
	const uint8_t *p = rs->p;
	uint32_t action = load_u32(p + BT7_ACTION), seq = load_u32(p + BT7_SEQUENCE);
	unsigned pdu_len = load_u16(p + BT7_PDU_LEN);
	const uint8_t *pdu = NULL;
	uint64_t dp;

	if (__builtin_expect(pdu_len != 0, 0)) {
		pdu = p + BT_REC7_SIZE;
		if (arena) {
			if (PF_ARENA - *used < pdu_len)
				return 0;
			memcpy(arena + *used, pdu, pdu_len);
			pdu = arena + *used;
			*used += pdu_len;
		}
		rs->pdub += pdu_len;
	}
	if (__builtin_expect(rs->next != seq, 0))
		run_seq_jump(s, rs, seq);
	else
		rs->next = (uint64_t)seq + 1;
	ev->time = rs->t;
	ev->sector = load_u64(p + BT7_SECTOR);
	ev->cgroup = 0;
	ev->flags = action >> BT_TC_SHIFT;
	ev->bytes = load_u32(p + BT7_BYTES);
	/* (dev, pid) is the record's (pid, dev), halves swapped (in either byte order) */
	dp = load_u64(p + BT7_PID);
	dp = dp >> 32 | dp << 32;
	memcpy(&ev->dev, &dp, sizeof(dp));
	ev->cpu = load_u32(p + BT7_CPU);
	ev->seq = seq;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* error and pdu_len follow each other as in the record, 16 bits above the action; src
	 * above them is 0: the fast path takes only records of their file's CPU */
	dp = (action & 0xff) | (uint64_t)load_u32(p + BT7_ERROR) << 16;
	memcpy(&ev->action, &dp, sizeof(dp));
#else
	ev->action = (uint16_t)(action & 0xff);
	ev->error = load_u16(p + BT7_ERROR);
	ev->pdu_len = (uint16_t)pdu_len;
	ev->src = 0;
#endif
	ev->pdu = pdu;
	rs->p = p + BT_REC7_SIZE + pdu_len;
	return 1;
}

/* run_take() writes (dev, pid) and (action, error, pdu_len, src) as whole words */
_Static_assert(offsetof(struct blk_event, pid) == offsetof(struct blk_event, dev) + 4 &&
                   offsetof(struct blk_event, dev) % 8 == 0,
               "dev and pid form one word");
/* ... read from the record as whole words: (pid, device), (device, cpu), (error, pdu_len) */
_Static_assert(BT7_DEVICE == BT7_PID + 4 && BT7_CPU == BT7_DEVICE + 4 &&
                   BT7_PDU_LEN == BT7_ERROR + 2,
               "the record's pid, device and cpu, and its error and pdu_len, follow each other");
_Static_assert(offsetof(struct blk_event, error) == offsetof(struct blk_event, action) + 2 &&
                   offsetof(struct blk_event, pdu_len) == offsetof(struct blk_event, action) + 4 &&
                   offsetof(struct blk_event, src) == offsetof(struct blk_event, action) + 6,
               "action, error, pdu_len and src form one word");

/* Whether the caller may look at records of this raw action word (bt_reader_keep_actions()):
 * an action past the mask's 32 bits is not one it keeps, so its bit is taken modulo 32 (kept or
 * left out, either is allowed) */
static inline bool run_keeps(uint32_t keep, uint32_t action)
{
	return keep >> (action & 31) & 1;
}

/* Step over the record run_peek() accepted without decoding it (the caller does not look at
 * its action): its sequence and PDU bytes counted as run_take() counts them. */
static inline __attribute__((always_inline)) void run_skip(struct bt_src *s, struct run *rs)
{
	const uint8_t *p = rs->p;
	uint32_t seq = load_u32(p + BT7_SEQUENCE);
	unsigned pdu_len = load_u16(p + BT7_PDU_LEN);

	rs->pdub += pdu_len;
	if (__builtin_expect(rs->next != seq, 0))
		run_seq_jump(s, rs, seq);
	else
		rs->next = (uint64_t)seq + 1;
	rs->p = p + BT_REC7_SIZE + pdu_len;
}

/* A source's decoded head into the batch at ev, its PDU copied into the arena; false, and
 * nothing written, when it must take the general path: a notify, or no room for its PDU. */
static inline bool head_out(struct pf_batch *b, struct blk_event *ev, const struct blk_event *head)
{
	if (blk_is_notify(head) || PF_ARENA - b->used < head->pdu_len)
		return false;
	*ev = *head;
	if (head->pdu_len) {
		memcpy(b->arena + b->used, head->pdu, head->pdu_len);
		ev->pdu = b->arena + b->used;
		b->used += head->pdu_len;
	}
	return true;
}

/* Might the next record of s take the fast path? A cheap look before a run is set up. */
static inline int src_fast_next(const struct bt_src *s)
{
	return s->seq_last && s->len - s->pos >= BT_REC7_SIZE &&
	       load_u32(s->buf + s->pos) == (BT_MAGIC | BT_VERSION7);
}

/* The next record of s into its head by the fast path; 0 if it cannot take it. */
static int src_fast_head(struct bt_src *s)
{
	struct run rs;
	int ok;

	if (!src_fast_next(s))
		return 0;
	run_begin(s, &rs);
	ok = run_peek(s, &rs);
	if (ok)
		run_take(s, &rs, &s->head, NULL, NULL);
	run_end(s, &rs);
	return ok;
}

/* Fast records of s earlier than limit into out (those of the actions in keep, the others
 * stepped over), at most max; how many. */
static __attribute__((noinline)) unsigned src_run(struct bt_src *s, struct blk_event *out,
                                                  unsigned max, uint64_t limit, uint8_t *arena,
                                                  size_t *used, uint32_t keep)
{
	struct run rs;
	unsigned n = 0;

	if (!src_fast_next(s))
		return 0;
	run_begin(s, &rs);
	while (n < max && run_peek(s, &rs) && rs.t < limit) {
		if (keep != ~0u && !run_keeps(keep, load_u32(rs.p + BT7_ACTION))) {
			run_skip(s, &rs);
			continue;
		}
		if (!run_take(s, &rs, &out[n], arena, used))
			break;
		n++;
	}
	run_end(s, &rs);
	return n;
}

static int heap_less(const struct bt_reader *r, unsigned a, unsigned b)
{
	const struct blk_event *x = &r->src[a].head, *y = &r->src[b].head;

	if (x->time != y->time)
		return x->time < y->time;
	return a < b; /* stable: ties keep file order */
}

static void heap_down(struct bt_reader *r, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, m = i, t;

		if (l < r->nheap && heap_less(r, r->heap[l], r->heap[m]))
			m = l;
		if (l + 1 < r->nheap && heap_less(r, r->heap[l + 1], r->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		t = r->heap[i];
		r->heap[i] = r->heap[m];
		r->heap[m] = t;
		i = m;
	}
}

static void stats_sync(struct bt_reader *r)
{
	r->st.skips = 0;
	for (unsigned i = 0; i < r->nsrc; i++) {
		r->fstats[i] = r->src[i].st;
		r->st.skips += r->src[i].st.skips;
	}
}

/* A reader over n files by path, or over one opened stream (paths NULL). */
static int reader_open(struct bt_reader **out, char *const *paths, struct in_stream *in, unsigned n,
                       struct iot_err *e)
{
	struct bt_reader *r;
	int ret, any = 0;

	*out = NULL;
	if (!n)
		return iot_err_set(e, -ENOENT, "no trace files");
	r = calloc(1, sizeof(*r));
	if (r) {
		r->src = calloc(n, sizeof(*r->src));
		r->heap = calloc(n, sizeof(*r->heap));
		r->fstats = calloc(n, sizeof(*r->fstats));
		r->comms = bt_comm_table_new();
		r->last = -1;
		r->keep = ~0u;
		r->nsrc = n;
	}
	if (!r || !r->src || !r->heap || !r->fstats || !r->comms) {
		in_stream_close(in);
		bt_reader_free(r);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	for (unsigned i = 0; i < n; i++) {
		ret = paths ? src_open(&r->src[i], paths[i], e) : src_attach(&r->src[i], in, e);
		if (ret)
			goto fail;
		ret = src_next(&r->src[i], e);
		if (ret < 0)
			goto fail;
		if (ret > 0) {
			r->src[i].have_head = 1;
			r->heap[r->nheap++] = i;
			any = 1;
		}
	}
	if (!any && n == 1 && in_stream_truncated(r->src[0].in)) {
		ret = iot_err_set(e, -EINVAL,
		                  "'%s': the compressed file is cut short before its first record",
		                  r->src[0].path);
		goto fail;
	}
	if (!any) {
		ret = n == 1 ? iot_err_set(e, -EINVAL, "'%s': empty trace file", r->src[0].path)
		             : iot_err_set(e, -EINVAL,
		                           "empty trace set: all %u files of '%s'... "
		                           "hold no records",
		                           n, r->src[0].path);
		goto fail;
	}
	for (unsigned i = r->nheap / 2 + 1; i-- > 0;)
		heap_down(r, i);
	r->st.nfiles = n;
	r->st.files = r->fstats;
	stats_sync(r);
	*out = r;
	return 0;
fail:
	bt_reader_free(r);
	return ret;
}

int bt_reader_open_files(struct bt_reader **out, char *const *paths, unsigned n, struct iot_err *e)
{
	return reader_open(out, paths, NULL, n, e);
}

int bt_reader_open_stream(struct bt_reader **out, struct in_stream *in, struct iot_err *e)
{
	return reader_open(out, NULL, in, 1, e);
}

int bt_reader_open(struct bt_reader **out, const char *path, struct iot_err *e)
{
	struct run_input ri;
	int ret = run_input_open(&ri, path, e);

	*out = NULL;
	if (ret)
		return ret;
	switch (ri.kind) {
	case RUN_INPUT_STREAM:
		ret = bt_reader_open_stream(out, ri.in, e);
		ri.in = NULL;
		break;
	case RUN_INPUT_DIR:
		ret = ri.rd.ntraces ? bt_reader_open_files(out, ri.rd.traces, ri.rd.ntraces, e)
		                    : iot_err_set(e, -ENOENT,
		                                  "'%s': no blktrace files (NAME.blktrace.N) in "
		                                  "directory",
		                                  path);
		break;
	case RUN_INPUT_SET:
		ret = bt_reader_open_files(out, ri.set, ri.nset, e);
		break;
	}
	run_input_release(&ri);
	return ret;
}

/* The two 32-bit words of a TIMESTAMP PDU (seconds, nanoseconds) in host order; they are in
 * the record's byte order on disk. */
static void timestamp_words(const uint8_t *pdu, int swapped, uint32_t w[2])
{
	memcpy(w, pdu, 8);
	if (swapped) {
		w[0] = __builtin_bswap32(w[0]);
		w[1] = __builtin_bswap32(w[1]);
	}
}

static void handle_notify(struct bt_reader *r, const struct blk_event *ev, int swapped)
{
	r->st.notifies++;
	switch (ev->action) {
	case BLK_N_PROCESS:
		if (ev->pdu_len)
			bt_comm_table_set(r->comms, ev->pid, (const char *)ev->pdu, ev->pdu_len);
		break;
	case BLK_N_TIMESTAMP:
		if (!r->st.have_wallclock && ev->pdu_len >= 8) {
			uint32_t w[2];

			timestamp_words(ev->pdu, swapped, w);
			r->st.have_wallclock = 1;
			r->st.wall_sec = w[0];
			r->st.wall_nsec = w[1];
		}
		break;
	case BLK_N_MESSAGE:
		r->st.messages++;
		break;
	default:
		break;
	}
}

/* The merge step: the next event in time order, in its source (its PDU in the source's
 * buffer), valid until the next call. */
static int merge_next(struct bt_reader *r, const struct blk_event **ev, int *swapped,
                      struct iot_err *e)
{
	struct bt_src *s;
	int ret;

	if (r->last >= 0) {
		/* advance the source whose event the caller has now finished with */
		s = &r->src[r->last];
		ret = src_fast_head(s) ? 1 : src_next(s, e);
		if (ret < 0)
			return ret;
		if (ret == 0) {
			r->heap[0] = r->heap[--r->nheap];
			s->have_head = 0;
		}
		if (r->nheap > 1)
			heap_down(r, 0);
		r->last = -1;
	}
	if (!r->nheap)
		return 0;
	s = &r->src[r->heap[0]];
	*ev = &s->head;
	*swapped = s->st.swapped;
	r->last = (int)r->heap[0];
	return 1;
}

/*
 * merge_run() with three to MK_MAX files: the same merge, over k files. A file is either
 * waiting with its head decoded (as the heap left it) or read from its buffer, its next record
 * peeked; its time (t) is that of the one or the other. The earliest file (ties: the file
 * opened first) gives records while they come before every other file's time; a head goes
 * out copied, and its file is then read from its buffer. On leaving, as in merge_run().
 */
#define MK_MAX 16

static unsigned merge_k(struct bt_reader *r, struct pf_batch *b, unsigned max)
{
	struct blk_event *out = &b->ev[b->n], *ev = out, *end = &b->ev[max];
	struct run rs[MK_MAX];
	uint64_t t[MK_MAX];
	unsigned id[MK_MAX], k = r->nheap, last = 0, m, c;
	int raw[MK_MAX];

	/* slots in file order, so that ties go to the lower slot */
	for (unsigned i = 0; i < k; i++) {
		unsigned v = r->heap[i], j = i;

		for (; j > 0 && id[j - 1] > v; j--)
			id[j] = id[j - 1];
		id[j] = v;
	}
	for (unsigned i = 0; i < k; i++) {
		raw[i] = id[i] == (unsigned)r->last;
		t[i] = r->src[id[i]].head.time;
		if (raw[i]) {
			last = i;
			run_begin(&r->src[id[i]], &rs[i]);
			if (!run_peek(&r->src[id[i]], &rs[i]))
				return 0;
			t[i] = rs[i].t;
		}
	}
	for (;;) {
		uint64_t lt = UINT64_MAX;
		unsigned ls = MK_MAX;
		struct bt_src *sm;

		/* the earliest file (m) and the next earliest (time lt, slot ls) */
		m = 0;
		for (unsigned i = 1; i < k; i++)
			if (t[i] < t[m])
				m = i;
		for (unsigned i = 0; i < k; i++)
			if (i != m && t[i] < lt) {
				lt = t[i];
				ls = i;
			}
		sm = &r->src[id[m]];
		if (raw[m]) {
			do {
				if (ev == end || !run_take(sm, &rs[m], ev, b->arena, &b->used))
					goto done;
				ev++;
				last = m;
				if (!run_peek(sm, &rs[m]))
					goto done;
			} while (rs[m].t < lt || (rs[m].t == lt && m < ls));
			t[m] = rs[m].t;
			continue;
		}
		/* its head goes out, its PDU copied; a notify goes through the general path */
		if (ev == end || !head_out(b, ev, &sm->head))
			goto done;
		ev++;
		last = m;
		if (!src_fast_next(sm))
			goto done;
		raw[m] = 1;
		run_begin(sm, &rs[m]);
		if (!run_peek(sm, &rs[m]))
			goto done;
		t[m] = rs[m].t;
	}
done:
	/* the file that gave the last event has no head; the others read from their buffers take
	 * their next record (peeked) as their head */
	for (unsigned i = 0; i < k; i++) {
		struct bt_src *si = &r->src[id[i]];

		if (!raw[i])
			continue;
		if (i != last)
			run_take(si, &rs[i], &si->head, NULL, NULL);
		run_end(si, &rs[i]);
	}
	/* the heap: that file at the root, the others in order of their heads (sorted is a heap) */
	r->heap[0] = id[last];
	c = 1;
	for (unsigned i = 0; i < k; i++) {
		unsigned j;

		if (i == last)
			continue;
		for (j = c++; j > 1 && heap_less(r, id[i], r->heap[j - 1]); j--)
			r->heap[j] = r->heap[j - 1];
		r->heap[j] = id[i];
	}
	r->last = (int)id[last];
	return (unsigned)(ev - out);
}

/*
 * After merge_next() handed out the head of r->last (its next record passed
 * src_fast_next()): more events, by the fast path, into b from b->n, until a record needs the
 * general path, the arena has no room for a PDU or max are written. With two files in the heap (the
 * usual per-CPU pair) this is a merge of its own. The source handed out last ("l") has no head, the
 * other ("o") has its head decoded and waiting: l's records go straight out while they come first
 * (ties: the file opened first); then o's head goes out, and from there the two files are merged
 * record by record from their buffers, without heads. On leaving, the source that gave the last
 * event has no head and the other has its next record decoded as its head (it was known to take the
 * fast path), so the heap and r->last say the same as merge_next() would have, and errors
 * come at the same point of the stream. With three to MK_MAX files, merge_k(); with more,
 * one file's run up to the earliest other head.
 */
static inline __attribute__((always_inline)) unsigned
merge_run_as(struct bt_reader *r, struct pf_batch *b, unsigned max, bool filter)
{
	struct blk_event *out = &b->ev[b->n], *ev = out, *end = &b->ev[max];
	uint64_t limit = UINT64_MAX, ht;
	unsigned l, o, ia, ib;
	struct bt_src *sl, *so, *sa, *sb;
	struct run rl, ro, ra, rb;
	int last_a;

	if (r->last < 0)
		return 0;
	if (r->nheap > 2 && r->nheap <= MK_MAX)
		return merge_k(r, b, max);
	if (r->nheap != 2) {
		/* the heap's root is that source; the earliest other head is one of its children */
		for (unsigned c = 1; c <= 2 && c < r->nheap; c++)
			if (r->src[r->heap[c]].head.time < limit)
				limit = r->src[r->heap[c]].head.time;
		return src_run(&r->src[r->last], out, max - b->n, limit, b->arena, &b->used,
		               r->keep);
	}
	l = r->heap[0];
	o = r->heap[1];
	sl = &r->src[l];
	so = &r->src[o];
	ht = so->head.time;
	/* l's records before o's head */
	run_begin(sl, &rl);
	for (;;) {
		if (ev == end || !run_peek(sl, &rl))
			goto keep;
		if (!(rl.t < ht || (rl.t == ht && l < o)))
			break;
		if (filter && !run_keeps(r->keep, load_u32(rl.p + BT7_ACTION))) {
			run_skip(sl, &rl);
			continue;
		}
		if (!run_take(sl, &rl, ev, b->arena, &b->used))
			goto keep;
		ev++;
	}
	/* o's head goes out, its PDU copied; a notify goes through the general path (counted, a
	 * TIMESTAMP put in host order) */
	if (ev == end)
		goto keep;
	if (!filter || blk_is_notify(&so->head) || run_keeps(r->keep, so->head.action)) {
		if (!head_out(b, ev, &so->head))
			goto keep;
		ev++;
	}
	if (!src_fast_next(so) || (run_begin(so, &ro), !run_peek(so, &ro))) {
		/* o gave the last event; l's next record (peeked) becomes its head (o's run, if
		 * it began, moved over nothing) */
		run_take(sl, &rl, &sl->head, NULL, NULL);
		run_end(sl, &rl);
		r->heap[0] = o;
		r->heap[1] = l;
		r->last = (int)o;
		return (unsigned)(ev - out);
	}
	/* both files from their buffers: a, the file opened first, wins ties */
	if (l < o) {
		ra = rl, rb = ro, ia = l, ib = o, sa = sl, sb = so;
		last_a = 0;
	} else {
		ra = ro, rb = rl, ia = o, ib = l, sa = so, sb = sl;
		last_a = 1;
	}
	for (;;) {
		if (ra.t <= rb.t) {
			if (filter && ev != end &&
			    !run_keeps(r->keep, load_u32(ra.p + BT7_ACTION))) {
				run_skip(sa, &ra);
			} else {
				if (ev == end || !run_take(sa, &ra, ev, b->arena, &b->used))
					break;
				ev++;
			}
			last_a = 1;
			if (!run_peek(sa, &ra))
				break;
		} else {
			if (filter && ev != end &&
			    !run_keeps(r->keep, load_u32(rb.p + BT7_ACTION))) {
				run_skip(sb, &rb);
			} else {
				if (ev == end || !run_take(sb, &rb, ev, b->arena, &b->used))
					break;
				ev++;
			}
			last_a = 0;
			if (!run_peek(sb, &rb))
				break;
		}
	}
	/* the file that gave the last event has no head; the other's next record is its head */
	if (last_a)
		run_take(sb, &rb, &sb->head, NULL, NULL);
	else
		run_take(sa, &ra, &sa->head, NULL, NULL);
	run_end(sa, &ra);
	run_end(sb, &rb);
	r->heap[0] = last_a ? ia : ib;
	r->heap[1] = last_a ? ib : ia;
	r->last = (int)r->heap[0];
	return (unsigned)(ev - out);
keep:
	run_end(sl, &rl);
	return (unsigned)(ev - out);
}

/* The common case of two files from their buffers, and the same for a reader whose batches
 * leave out actions (bt_reader_keep_actions()): functions of their own, so that the test is not
 * in the first's loop */
static __attribute__((noinline)) unsigned merge_run(struct bt_reader *r, struct pf_batch *b,
                                                    unsigned max)
{
	return merge_run_as(r, b, max, false);
}

static __attribute__((noinline)) unsigned merge_run_keep(struct bt_reader *r, struct pf_batch *b,
                                                         unsigned max)
{
	return merge_run_as(r, b, max, true);
}

/*
 * Decode, merge and copy PDUs into b until it is full or the trace ends: the work of the
 * reader thread, or of bt_reader_next_batch() without one. Returns b->end.
 */
static int fill_batch(struct bt_reader *r, struct pf_batch *b, unsigned max)
{
	int ret = 1, swapped;

	b->n = 0;
	b->notifies = 0;
	b->used = 0;
	b->end = 0;
	while (b->n < max && PF_ARENA - b->used >= PF_PDU_MAX) {
		struct blk_event *ev = &b->ev[b->n];
		const struct blk_event *src;

		ret = merge_next(r, &src, &swapped, &b->err);
		if (ret <= 0)
			break;
		*ev = *src;
		if (ev->pdu_len) {
			uint8_t *dst = b->arena + b->used;

			memcpy(dst, ev->pdu, ev->pdu_len);
			/* the TIMESTAMP words are in the record's order: make them host order */
			if (swapped && blk_is_notify(ev) && ev->action == BLK_N_TIMESTAMP &&
			    ev->pdu_len >= 8) {
				uint32_t w[2];

				timestamp_words(dst, 1, w);
				memcpy(dst, w, 8);
			}
			ev->pdu = dst;
			b->used += ev->pdu_len;
		}
		b->notifies += blk_is_notify(ev);
		b->n++;
		/* a look first: with byte-swapped or version 8 files, nothing would be done */
		if (r->last >= 0 && src_fast_next(&r->src[r->last]))
			b->n += r->keep == ~0u ? merge_run(r, b, max) : merge_run_keep(r, b, max);
	}
	if (ret <= 0)
		b->end = ret == 0 ? 1 : ret;
	return b->end;
}

/*
 * Hand-over between the reader thread and the caller: two monotonic counts of batches,
 * read without a lock. A side that finds nothing to do spins a little when there is a CPU
 * for each (a batch takes a few hundred microseconds), then sleeps on its condition
 * variable; the other side signals only when the sleeper's flag is set. Sequentially
 * consistent order on (count, flag) makes that safe: the sleeper sets its flag before it
 * looks at the count again, the waker changes the count before it looks at the flag, so at
 * least one of them sees the other.
 */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

/*
 * What a waiting side waits for. The reader, finding the ring full, waits until it is half
 * empty, so that it is woken once per PF_NBATCH / 2 batches rather than once per batch (a
 * futex wake costs the caller about 5 % of a pass otherwise).
 */
static int pf_ok(struct prefetch *pf, int who)
{
	if (who == PF_PROD)
		return atomic_load(&pf->produced) - atomic_load(&pf->consumed) <= PF_NBATCH / 2 ||
		       atomic_load(&pf->stop);
	return atomic_load(&pf->consumed) != atomic_load(&pf->produced);
}

static void pf_wait(struct prefetch *pf, int who)
{
	for (unsigned i = 0; i < pf->spins; i++) {
		if (pf_ok(pf, who))
			return;
		cpu_relax();
	}
	pthread_mutex_lock(&pf->mu);
	atomic_store(&pf->waiting[who], 1);
	while (!pf_ok(pf, who))
		pthread_cond_wait(&pf->cond[who], &pf->mu);
	atomic_store(&pf->waiting[who], 0);
	pthread_mutex_unlock(&pf->mu);
}

static void pf_wake(struct prefetch *pf, int who)
{
	if (!atomic_load(&pf->waiting[who]) || !pf_ok(pf, who))
		return;
	pthread_mutex_lock(&pf->mu);
	pthread_cond_signal(&pf->cond[who]);
	pthread_mutex_unlock(&pf->mu);
}

static void *pf_main(void *arg)
{
	struct bt_reader *r = arg;
	struct prefetch *pf = r->pf;

	for (;;) {
		struct pf_batch *b;
		int end;

		if (atomic_load(&pf->produced) - atomic_load(&pf->consumed) == PF_NBATCH)
			pf_wait(pf, PF_PROD);
		if (atomic_load(&pf->stop))
			return NULL;
		b = &pf->b[atomic_load(&pf->produced) % PF_NBATCH];
		end = fill_batch(r, b, PF_BATCH);
		if (pf->tap && b->n)
			pf->tap(pf->tap_arg, b->ev, b->n);
		atomic_fetch_add(&pf->produced, 1);
		pf_wake(pf, PF_CONS);
		if (end)
			return NULL;
	}
}

static void pf_stop(struct bt_reader *r)
{
	struct prefetch *pf = r->pf;

	if (pf->joined)
		return;
	atomic_store(&pf->stop, 1);
	pthread_mutex_lock(&pf->mu);
	pthread_cond_signal(&pf->cond[PF_PROD]);
	pthread_mutex_unlock(&pf->mu);
	pthread_join(pf->thread, NULL);
	pf->joined = 1;
}

static void pf_free(struct prefetch *pf)
{
	pthread_mutex_destroy(&pf->mu);
	for (int i = 0; i < 2; i++)
		pthread_cond_destroy(&pf->cond[i]);
	free(pf->b);
	free(pf);
}

int bt_reader_prefetch(struct bt_reader *r, struct iot_err *e)
{
	if (r->pf)
		return 0;
	return bt_reader_prefetch_tap(r, NULL, NULL, e);
}

int bt_reader_prefetch_tap(struct bt_reader *r, bt_tap_fn tap, void *arg, struct iot_err *e)
{
	struct prefetch *pf;
	int ret;

	if (r->pf)
		return iot_err_set(e, -EBUSY, "the reader thread is already running");
	if (r->sb)
		return iot_err_set(e, -EBUSY, "prefetch must start before the first batch");
	pf = calloc(1, sizeof(*pf));
	if (!pf || !(pf->b = aligned_alloc(64, PF_NBATCH * sizeof(*pf->b)))) {
		free(pf);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	pthread_mutex_init(&pf->mu, NULL);
	for (int i = 0; i < 2; i++)
		pthread_cond_init(&pf->cond[i], NULL);
	pf->spins = sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? PF_SPINS : 0;
	pf->tap = tap;
	pf->tap_arg = arg;
	r->pf = pf;
	ret = pthread_create(&pf->thread, NULL, pf_main, r);
	if (ret) {
		r->pf = NULL;
		pf_free(pf);
		return iot_err_set(e, -ret, "cannot start the reader thread: %s", strerror(ret));
	}
	return 0;
}

/* The caller's current batch: the prefetched one, or (without prefetch) the one filled here
 * with up to fill events, refilled once used up. NULL with *ret set at the end of the trace or
 * on error. */
static struct pf_batch *cur_batch(struct bt_reader *r, unsigned fill, unsigned **pos, int *ret,
                                  struct iot_err *e)
{
	struct prefetch *pf = r->pf;
	struct pf_batch *b;

	if (!pf) {
		b = r->sb;
		*pos = &r->sb_pos;
		if (r->sb_pos < b->n)
			return b;
		if (b->end || (fill_batch(r, b, fill), r->sb_pos = 0, !b->n))
			goto end;
		return b;
	}
	*pos = &pf->pos;
	for (;;) {
		if (!pf->have) {
			/* the count's ordering makes the reader's writes to the batch visible */
			if (!pf_ok(pf, PF_CONS))
				pf_wait(pf, PF_CONS);
			pf->have = 1;
		}
		b = &pf->b[atomic_load(&pf->consumed) % PF_NBATCH];
		if (pf->pos < b->n)
			return b;
		if (b->end) {
			/* the thread has returned: join it so that its counters are visible */
			pf_stop(r);
			goto end;
		}
		pf->pos = 0;
		pf->have = 0;
		atomic_fetch_add(&pf->consumed, 1);
		pf_wake(pf, PF_PROD);
	}
end:
	/* the batch that ended the trace: 0, or its error */
	if (b->end < 0 && e)
		*e = b->err;
	*ret = b->end < 0 ? b->end : 0;
	return NULL;
}

int bt_reader_next_ref(struct bt_reader *r, const struct blk_event **ev, struct iot_err *e)
{
	int swapped = 0, ret = 1;

	if (r->pf || r->sb) {
		/* batches: PDUs were made host order when they were copied */
		unsigned *pos;
		struct pf_batch *b = cur_batch(r, SB_BATCH, &pos, &ret, e);

		if (!b)
			return ret;
		*ev = &b->ev[(*pos)++];
	} else {
		ret = merge_next(r, ev, &swapped, e);
		if (ret <= 0)
			return ret;
	}
	r->st.events++;
	if (blk_is_notify(*ev))
		handle_notify(r, *ev, swapped);
	return 1;
}

int bt_reader_next_batch(struct bt_reader *r, const struct blk_event **ev, unsigned *n,
                         struct iot_err *e)
{
	return bt_reader_next_batch_max(r, PF_BATCH, ev, n, e);
}

void bt_reader_keep_actions(struct bt_reader *r, uint32_t keep)
{
	r->keep = keep;
}

int bt_reader_next_batch_max(struct bt_reader *r, unsigned max, const struct blk_event **ev,
                             unsigned *n, struct iot_err *e)
{
	struct pf_batch *b;
	unsigned *pos;
	int ret = 1;

	if (!r->pf && !r->sb) {
		/* the first batch without prefetch: from here on, events come by batches */
		r->sb = aligned_alloc(64, sizeof(*r->sb));
		if (!r->sb)
			return iot_err_set(e, -ENOMEM, "out of memory");
		r->sb->n = 0;
		r->sb->end = 0;
		r->sb_pos = 0;
	}
	if (!max)
		max = 1;
	b = cur_batch(r, max < SB_BATCH ? max : SB_BATCH, &pos, &ret, e);
	if (!b)
		return ret;
	*ev = &b->ev[*pos];
	*n = b->n - *pos < max ? b->n - *pos : max;
	*pos += *n;
	r->st.events += *n;
	for (unsigned i = 0, left = b->notifies; left && i < *n; i++)
		if (blk_is_notify(&(*ev)[i])) {
			handle_notify(r, &(*ev)[i], 0);
			left--;
		}
	return 1;
}

int bt_reader_next(struct bt_reader *r, struct blk_event *ev, struct iot_err *e)
{
	const struct blk_event *p =
	    NULL; /* set whenever ret > 0 (gcc -O3 in a Release build cannot tell) */
	int ret = bt_reader_next_ref(r, &p, e);

	if (ret > 0)
		*ev = *p;
	return ret;
}

const struct bt_stats *bt_reader_stats(const struct bt_reader *r)
{
	/* per-file counters live in the sources; gather them on demand, not per event */
	stats_sync((struct bt_reader *)r);
	return &r->st;
}

const char *bt_reader_comm(const struct bt_reader *r, uint32_t pid)
{
	return bt_comm_table_get(r->comms, pid);
}

const struct bt_comm_table *bt_reader_comms(const struct bt_reader *r)
{
	return r->comms;
}

void bt_reader_free(struct bt_reader *r)
{
	if (!r)
		return;
	if (r->pf) {
		pf_stop(r);
		pf_free(r->pf);
	}
	free(r->sb);
	for (unsigned i = 0; i < r->nsrc; i++)
		src_close(&r->src[i]);
	free(r->src);
	free(r->heap);
	free(r->fstats);
	bt_comm_table_free(r->comms);
	free(r);
}
