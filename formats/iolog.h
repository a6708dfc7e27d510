/* SPDX-License-Identifier: MIT */
/* fio iologs, versions 2 and 3: line parser, streaming reader into block events, and writer. */
#ifndef IOTAPE_FORMATS_IOLOG_H
#define IOTAPE_FORMATS_IOLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "formats/blkevent.h"

/*
 * The format, as fio's iolog.c writes (write_iolog=) and reads (read_iolog=) it:
 *   line 1    "fio version 2 iolog" or "fio version 3 iolog"
 *   version 2 "FILE ACTION"  or  "FILE OP OFFSET LENGTH"
 *   version 3 "TIME FILE ACTION"  or  "TIME FILE OP OFFSET LENGTH"
 * ACTION is add, open or close; OP is read, write, sync, datasync, trim, or (version 2 only)
 * wait, whose OFFSET is a time in milliseconds since the start. TIME is microseconds since the
 * log started. Fields are separated by blanks; a file name has no blanks (fio reads it with
 * %s).
 */
#define IOLOG_V2_HEADER "fio version 2 iolog"
#define IOLOG_V3_HEADER "fio version 3 iolog"
#define IOLOG_MAX_LINE 4096 /* fio reads lines with fgets(4096) */
#define IOLOG_MAX_NAME 256  /* and file names with %256s */

enum iolog_op {
	IOLOG_READ,
	IOLOG_WRITE,
	IOLOG_SYNC,
	IOLOG_DATASYNC,
	IOLOG_TRIM,
	IOLOG_WAIT,
	IOLOG_ADD,
	IOLOG_OPEN,
	IOLOG_CLOSE,
	IOLOG_OP_N,
};

/* fio's word for op ("read", "add", ...). */
const char *iolog_op_name(unsigned op);

/* One parsed line; file points into the line. */
struct iolog_rec {
	unsigned op;      /* enum iolog_op */
	uint64_t time_us; /* version 3: the line's time; version 2: 0 */
	uint64_t offset;  /* bytes (wait: milliseconds) */
	uint64_t len;     /* bytes */
	const char *file;
	size_t file_len;
};

/* 2 or 3 when buf (the start of a file) begins with an iolog header line, else 0. */
unsigned iolog_sniff(const void *buf, size_t len);

/*
 * Parse one line of a version 2 or 3 log, without its newline. Returns 1 with *rec filled, 0
 * for a blank line, or -EINVAL with e saying what is wrong (no file context).
 */
int iolog_parse_line(unsigned version, const char *line, size_t len, struct iolog_rec *rec,
                     struct iot_err *e);

/* ------------------------------------------------------------------------------------- */
/* Reader: an iolog as a stream of block events.                                          */
/*
 * Each read, write, sync/datasync and trim line becomes one issue (D) event: time from the
 * line (version 3; version 2 logs take the time of the last wait, else 0), sector = offset /
 * 512 (rounded down: unaligned offsets are counted), bytes = length (0 for syncs), flags
 * BLK_F_ISSUE plus READ, WRITE, WRITE|FLUSH (sync) or WRITE|DISCARD (trim). Each file of the
 * log is a device of its own: dev = BLK_MKDEV(0, n) for the n-th file named (from 1), cpu 0,
 * pid 0, seq counting from 1. There are no completions: a log records what was submitted.
 */

struct iolog_reader;

struct iolog_stats {
	unsigned version;
	uint64_t lines;
	uint64_t ios, bytes; /* IO lines turned into events, their bytes */
	uint64_t ops[IOLOG_OP_N];
	uint64_t unaligned; /* offsets or lengths not a multiple of 512 */
	uint64_t ignored;   /* v3 "wait" lines (fio ignores them too), repeated headers */
	uint64_t backwards; /* v3 times smaller than the line before (kept as written) */
	int truncated;      /* the log ended inside a line (warning, not error) */
};

struct in_stream;

/* path: a file (plain, gzip or zstd) or "-" for stdin. Reads the header line. */
int iolog_reader_open(struct iolog_reader **out, const char *path, struct iot_err *e);
/* The same over an opened stream (formats/instream.h), which the reader then owns. */
int iolog_reader_open_stream(struct iolog_reader **out, struct in_stream *in, struct iot_err *e);
/* Next event: 1 with *ev filled, 0 at the end, or -errno with e naming file and line. */
int iolog_reader_next(struct iolog_reader *r, struct blk_event *ev, struct iot_err *e);
const struct iolog_stats *iolog_reader_stats(const struct iolog_reader *r);
/* Number of files seen so far, and the name of file n (1-based, = the minor of its dev). */
unsigned iolog_reader_nfiles(const struct iolog_reader *r);
const char *iolog_reader_file(const struct iolog_reader *r, unsigned n);
void iolog_reader_free(struct iolog_reader *r);

/* ------------------------------------------------------------------------------------- */
/* Writer: the lines fio reads back.                                                      */

struct iolog_writer;

/* A writer onto fd (the caller's: opened and closed by it; name says it in errors), version 2
 * or 3; writes the header line. */
int iolog_writer_open(struct iolog_writer **out, int fd, const char *name, unsigned version,
                      struct iot_err *e);
/* A log written before and left (iolog_writer_close()), written on at its end through fd
 * (opened to append), less its last drop bytes (a "close" line written when it was left for
 * room): a writer of many logs keeps a few open at a time, since a writer holds a descriptor
 * and a 256 KiB buffer. */
int iolog_writer_append(struct iolog_writer **out, int fd, const char *name, unsigned version,
                        size_t drop, struct iot_err *e);
/* The length of the last line iolog_writer_line() wrote, its newline included. */
size_t iolog_writer_last_len(const struct iolog_writer *w);
/* A file action (IOLOG_ADD, IOLOG_OPEN, IOLOG_CLOSE) or an IO (IOLOG_READ ... IOLOG_TRIM);
 * time_us is ignored by version 2. */
int iolog_writer_line(struct iolog_writer *w, uint64_t time_us, const char *file, unsigned op,
                      uint64_t offset, uint64_t len, struct iot_err *e);
/* Flush and free (the descriptor stays open); returns the first write error seen, if any. */
int iolog_writer_close(struct iolog_writer *w, struct iot_err *e);

#endif
