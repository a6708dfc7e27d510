/* SPDX-License-Identifier: MIT */
/* The blktrace reader's state, shared by bt_reader.c, bt_merge.c and bt_src.c only. */
#ifndef IOTAPE_FORMATS_BT_READER_INT_H
#define IOTAPE_FORMATS_BT_READER_INT_H

#include <stdint.h>
#include <string.h>

#include "formats/blktrace.h"
#include "formats/mapwin.h"

struct in_stream;
struct iolog_reader;
struct prefetch;

struct seq_slot {
	uint64_t key; /* dev << 32 | cpu (0 in a per-CPU file), +1 so that 0 means empty */
	uint32_t last;
};

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
 * A batch of decoded events, filled by bt_fill_batch() (in the reader thread with prefetch,
 * bt_reader.c), PDUs copied into its arena.
 */
#define PF_BATCH 4096
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

static inline size_t seq_hash(uint64_t key, size_t cap)
{
	return (key * 0x9e3779b97f4a7c15ull >> 32) & (cap - 1);
}

/* The two 32-bit words of a TIMESTAMP PDU (seconds, nanoseconds) in host order; they are in
 * the record's byte order on disk. */
static inline void timestamp_words(const uint8_t *pdu, int swapped, uint32_t w[2])
{
	memcpy(w, pdu, 8);
	if (swapped) {
		w[0] = __builtin_bswap32(w[0]);
		w[1] = __builtin_bswap32(w[1]);
	}
}

/* bt_src.c: one file of a set, opened and decoded record by record (the general path) */
int bt_src_attach(struct bt_src *s, struct in_stream *in, struct iot_err *e);
int bt_src_open(struct bt_src *s, const char *path, struct iot_err *e);
void bt_src_close(struct bt_src *s);
/* The next record of s into s->head. 1: have one, 0: end of file, <0: error. */
int bt_src_next(struct bt_src *s, struct iot_err *e);

/* bt_merge.c: the files merged by time, the fast path, batches */
/* Order r->heap by the sources' head times (once, after their first records). */
void bt_heap_build(struct bt_reader *r);
int bt_merge_next(struct bt_reader *r, const struct blk_event **ev, int *swapped,
                  struct iot_err *e);
int bt_fill_batch(struct bt_reader *r, struct pf_batch *b, unsigned max);

#endif
