/* SPDX-License-Identifier: MIT */
/* blktrace files: streaming reader (v7/v8, both byte orders, gzip/zstd, per-CPU merge), writer. */
#ifndef IOTAPE_FORMATS_BLKTRACE_H
#define IOTAPE_FORMATS_BLKTRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"
#include "formats/blkevent.h"

/* On-disk constants (include/uapi/linux/blktrace_api.h). */
#define BT_MAGIC 0x65617400u
#define BT_VERSION7 0x07
#define BT_VERSION8 0x08
#define BT_REC7_SIZE 48
#define BT_REC8_SIZE 64

/*
 * Where each field of a record lies, from include/uapi/linux/blktrace_api.h (Linux 6.19):
 * version 7 is struct blk_io_trace, version 8 struct blk_io_trace2 (the pid moved before a
 * 64-bit action, 12 bytes of padding at the end). A PDU of pdu_len bytes follows the record.
 * Every reader and writer of records names its fields by these, never by number; the
 * asserts below hold them to the kernel's structs.
 */
enum bt_rec7_field {
	BT7_MAGIC = 0,    /* u32: BT_MAGIC | version */
	BT7_SEQUENCE = 4, /* u32: per (device, CPU) */
	BT7_TIME = 8,     /* u64: ns */
	BT7_SECTOR = 16,  /* u64 */
	BT7_BYTES = 24,   /* u32 */
	BT7_ACTION = 28,  /* u32: code in the low 16 bits, categories from bit 16 */
	BT7_PID = 32,     /* u32 */
	BT7_DEVICE = 36,  /* u32: the kernel's dev_t, major << 20 | minor */
	BT7_CPU = 40,     /* u32 */
	BT7_ERROR = 44,   /* u16 */
	BT7_PDU_LEN = 46, /* u16 */
};

enum bt_rec8_field {
	BT8_MAGIC = 0,
	BT8_SEQUENCE = 4,
	BT8_TIME = 8,
	BT8_SECTOR = 16,
	BT8_BYTES = 24,
	BT8_PID = 28,    /* u32 */
	BT8_ACTION = 32, /* u64 */
	BT8_DEVICE = 40,
	BT8_CPU = 44,
	BT8_ERROR = 48,
	BT8_PDU_LEN = 50, /* then 12 bytes of padding */
};

/* The kernel's structs, field for field, for the asserts only (records are read by offset:
 * they are packed in files at any alignment, in either byte order). */
struct bt_rec7_layout {
	uint32_t magic, sequence;
	uint64_t time, sector;
	uint32_t bytes, action, pid, device, cpu;
	uint16_t error, pdu_len;
};
struct bt_rec8_layout {
	uint32_t magic, sequence;
	uint64_t time, sector;
	uint32_t bytes, pid;
	uint64_t action;
	uint32_t device, cpu;
	uint16_t error, pdu_len;
	uint8_t pad[12];
};
#define BT_FIELD_AT(v, s, f, off) _Static_assert(offsetof(s, f) == (off), "v" #v " " #f)
BT_FIELD_AT(7, struct bt_rec7_layout, magic, BT7_MAGIC);
BT_FIELD_AT(7, struct bt_rec7_layout, sequence, BT7_SEQUENCE);
BT_FIELD_AT(7, struct bt_rec7_layout, time, BT7_TIME);
BT_FIELD_AT(7, struct bt_rec7_layout, sector, BT7_SECTOR);
BT_FIELD_AT(7, struct bt_rec7_layout, bytes, BT7_BYTES);
BT_FIELD_AT(7, struct bt_rec7_layout, action, BT7_ACTION);
BT_FIELD_AT(7, struct bt_rec7_layout, pid, BT7_PID);
BT_FIELD_AT(7, struct bt_rec7_layout, device, BT7_DEVICE);
BT_FIELD_AT(7, struct bt_rec7_layout, cpu, BT7_CPU);
BT_FIELD_AT(7, struct bt_rec7_layout, error, BT7_ERROR);
BT_FIELD_AT(7, struct bt_rec7_layout, pdu_len, BT7_PDU_LEN);
BT_FIELD_AT(8, struct bt_rec8_layout, magic, BT8_MAGIC);
BT_FIELD_AT(8, struct bt_rec8_layout, sequence, BT8_SEQUENCE);
BT_FIELD_AT(8, struct bt_rec8_layout, time, BT8_TIME);
BT_FIELD_AT(8, struct bt_rec8_layout, sector, BT8_SECTOR);
BT_FIELD_AT(8, struct bt_rec8_layout, bytes, BT8_BYTES);
BT_FIELD_AT(8, struct bt_rec8_layout, pid, BT8_PID);
BT_FIELD_AT(8, struct bt_rec8_layout, action, BT8_ACTION);
BT_FIELD_AT(8, struct bt_rec8_layout, device, BT8_DEVICE);
BT_FIELD_AT(8, struct bt_rec8_layout, cpu, BT8_CPU);
BT_FIELD_AT(8, struct bt_rec8_layout, error, BT8_ERROR);
BT_FIELD_AT(8, struct bt_rec8_layout, pdu_len, BT8_PDU_LEN);
#undef BT_FIELD_AT
_Static_assert((int)BT7_SEQUENCE == (int)BT8_SEQUENCE && (int)BT7_TIME == (int)BT8_TIME &&
                   (int)BT7_SECTOR == (int)BT8_SECTOR && (int)BT7_BYTES == (int)BT8_BYTES,
               "v7 and v8 share their first fields (readers use the v7 names for both)");
_Static_assert(sizeof(struct bt_rec7_layout) == BT_REC7_SIZE, "v7 record size");
_Static_assert(sizeof(struct bt_rec8_layout) == BT_REC8_SIZE, "v8 record size");
/* The largest PDU a record may declare: more than the kernel writes (a message is at most
 * 128 bytes, BLK_TN_MAX_MSG; a SCSI CDB at most 260; a cgroup id 8), so a larger pdu_len is
 * bad bytes, not a record cut short. */
#define BT_PDU_MAX 1024

struct bt_reader;

/* Per input file counters, for messages and the JSON "input" section. */
struct bt_file_stats {
	const char *path;
	const char *format;      /* "blktrace", or "fio iolog" (formats/iolog.h: issue events) */
	unsigned version;        /* 7 or 8; 0 before the first record */
	int swapped;             /* records are in the other byte order */
	int gzip;                /* file was gzip-compressed */
	const char *compression; /* "none", "gzip" or "zstd" */
	uint64_t records;        /* records read, notify records included */
	uint64_t bytes;          /* uncompressed bytes consumed */
	uint64_t skips;          /* sequence numbers missing (blkparse "skips") */
	int truncated;           /* the file ended inside a record (warning, not error) */
	uint64_t trunc_at;       /* byte offset of that partial record */
	unsigned iolog_version;  /* a fio iolog: 2 or 3 (version is 0); else 0 */
	uint64_t backwards;      /* a v3 iolog: lines whose time is before the line's before */
};

struct bt_stats {
	unsigned nfiles;
	const struct bt_file_stats *files;
	uint64_t events; /* events returned, notify included */
	uint64_t notifies;
	uint64_t messages;
	uint64_t skips;     /* sum over files */
	int have_wallclock; /* a TIMESTAMP notify was seen */
	int64_t wall_sec;   /* wall clock at trace time 0 (from TIMESTAMP) */
	int64_t wall_nsec;
};

/*
 * Open a trace. path may be:
 *   "-"                  one stream on stdin (merged or single per-CPU file)
 *   a regular file       one file (a blkparse -d dump, or one per-CPU file)
 *   a directory          every NAME.blktrace.N[.gz] in it, all devices, merged by time
 *   NAME                 the set NAME.blktrace.0, NAME.blktrace.1, ... merged by time
 * Files may be gzip- or zstd-compressed (sniffed, whatever the name). Returns 0 or -errno with e
 * describing the problem.
 */
int bt_reader_open(struct bt_reader **out, const char *path, struct iot_err *e);
/* Open an explicit list of files (merged by time). */
int bt_reader_open_files(struct bt_reader **out, char *const *paths, unsigned n, struct iot_err *e);
/* Read one stream already opened and sniffed (a pipe, standard input); the reader owns it,
 * also when this fails. A fio iolog (version 2 or 3) is read too: its IOs as issue events
 * (formats/iolog.h says how), its version in the file's stats as iolog_version. */
struct in_stream;
int bt_reader_open_stream(struct bt_reader **out, struct in_stream *in, struct iot_err *e);

/*
 * Next event in time order. Returns 1 with *ev filled, 0 at the end of the trace, or -errno
 * (e filled: file and byte offset) on bad input. A truncated final record is not an error:
 * the file's stats say so (warning) and reading continues with the other files.
 */
int bt_reader_next(struct bt_reader *r, struct blk_event *ev, struct iot_err *e);
/* The same without the copy: *ev points into the reader and stays valid until the next call. */
int bt_reader_next_ref(struct bt_reader *r, const struct blk_event **ev, struct iot_err *e);
/* Several at once: ev[0..*n) in time order (*n >= 1 when 1 is returned), valid until the next
 * call; batches of up to 4096, from the reader thread with prefetch on. Once called, later
 * bt_reader_next() calls take their events from the batches too. */
int bt_reader_next_batch(struct bt_reader *r, const struct blk_event **ev, unsigned *n,
                         struct iot_err *e);
/* The same, at most max events (at least 1); without prefetch, a batch read anew holds at most
 * max: a caller that takes fixed windows of the trace gets each in one piece. */
int bt_reader_next_batch_max(struct bt_reader *r, unsigned max, const struct blk_event **ev,
                             unsigned *n, struct iot_err *e);

/*
 * A hint for a caller that looks only at some actions (the replay: D and C, or Q and C): the
 * batches may leave out events of an action whose bit (1u << BLK_A_*) is not in keep, never a
 * notify; the caller still skips what it does not want (an event the fast path does not decode
 * comes anyway). events in the stats counts what was handed out. Before the first read.
 */
void bt_reader_keep_actions(struct bt_reader *r, uint32_t keep);

/*
 * Read ahead in a second thread: reading, decoding and merging then overlap with the
 * caller's work. Events and their PDUs stay valid until the next call, as without it. With
 * prefetch on, call bt_reader_stats() only once bt_reader_next() has returned 0 or an error.
 */
int bt_reader_prefetch(struct bt_reader *r, struct iot_err *e);

/*
 * Prefetch with a tap: tap(arg, events, n) runs in the reader thread on every batch it fills
 * (in trace order, notifies included, PDUs valid), before the caller's bt_reader_next*() sees
 * those events, while they are still in that CPU's cache: part of a pass can run there.
 * Whatever the tap wrote is visible to the caller once bt_reader_next*() has returned 0 or
 * an error. The tap must not call the reader.
 */
typedef void (*bt_tap_fn)(void *arg, const struct blk_event *ev, unsigned n);
int bt_reader_prefetch_tap(struct bt_reader *r, bt_tap_fn tap, void *arg, struct iot_err *e);

const struct bt_stats *bt_reader_stats(const struct bt_reader *r);
/* Command name of pid from PROCESS notifies seen so far, or NULL. */
const char *bt_reader_comm(const struct bt_reader *r, uint32_t pid);
void bt_reader_free(struct bt_reader *r);

/* Pid to command-name table (also used by writers and sinks that print names). */
struct bt_comm_table;
struct bt_comm_table *bt_comm_table_new(void);
int bt_comm_table_set(struct bt_comm_table *t, uint32_t pid, const char *name, size_t len);
const char *bt_comm_table_get(const struct bt_comm_table *t, uint32_t pid);
void bt_comm_table_free(struct bt_comm_table *t);
const struct bt_comm_table *bt_reader_comms(const struct bt_reader *r);

/*
 * Decode one record from buf (len bytes available). Returns the record's total size (header
 * plus PDU) and fills ev, or 0 when more bytes are needed, or -EINVAL/-EPROTO for bad magic
 * or version (e filled, without file context). Exposed for fuzzing and for the tracefs
 * capture path, which sees records one by one.
 */
long bt_decode(const uint8_t *buf, size_t len, struct blk_event *ev, struct iot_err *e);

/* ------------------------------------------------------------------------------------- */
/* Writer: version 7 records, host byte order (what blkparse, btt and iowatcher read).    */

struct bt_writer;

/* One file (a merged dump, or one per-CPU file). */
int bt_writer_open(struct bt_writer **out, const char *path, struct iot_err *e);
/* Write one event; notify events are written with their PDU (process name, message). */
int bt_writer_write(struct bt_writer *w, const struct blk_event *ev, struct iot_err *e);
/* Write an already encoded record (e.g. straight from the kernel), len bytes. */
int bt_writer_write_raw(struct bt_writer *w, const void *rec, size_t len, struct iot_err *e);
/* Flush and close; returns the first write error seen, if any. */
int bt_writer_close(struct bt_writer *w, struct iot_err *e);

/* A per-CPU set DIR/NAME.blktrace.CPU, files opened on first use of each CPU. */
struct bt_set_writer;
int bt_set_writer_open(struct bt_set_writer **out, const char *dir, const char *name,
                       struct iot_err *e);
int bt_set_writer_write(struct bt_set_writer *w, const struct blk_event *ev, struct iot_err *e);
int bt_set_writer_write_raw(struct bt_set_writer *w, unsigned cpu, const void *rec, size_t len,
                            struct iot_err *e);
/* Room for len bytes (a record the caller stores there at once) at the end of CPU cpu's file:
 * where they go, written with the file's buffer; NULL on error (*ret, e). What
 * bt_set_writer_write_raw() does without the copy from the caller's buffer. */
uint8_t *bt_set_writer_room(struct bt_set_writer *w, unsigned cpu, size_t len, int *ret,
                            struct iot_err *e);
/* CPU cpu's file's buffer (the file made if new), for a writer that stores many records to
 * take room in it without a call: free bytes at buf[len, cap), where bt_wbuf_room() puts a
 * record; cap is 0 after a write error. When it gives no room, bt_set_writer_room() writes
 * the buffer out (or says why it cannot). Valid until bt_set_writer_close(); NULL on error
 * (*ret, e). */
struct bt_wbuf {
	uint8_t *buf;
	size_t len, cap;
};
struct bt_wbuf *bt_set_writer_buf(struct bt_set_writer *w, unsigned cpu, int *ret,
                                  struct iot_err *e);
static inline uint8_t *bt_wbuf_room(struct bt_wbuf *b, size_t len)
{
	uint8_t *p = b->buf + b->len;

	if (len > b->cap - b->len)
		return NULL;
	b->len += len;
	return p;
}
int bt_set_writer_close(struct bt_set_writer *w, struct iot_err *e);

/* Encode ev as a v7 record into buf (at least BT_REC7_SIZE + pdu bytes); returns its size. */
size_t bt_encode7(const struct blk_event *ev, uint8_t *buf, size_t cap);

#endif
