/* SPDX-License-Identifier: MIT */
/* Exports of a block trace: blkparse's text, fio iologs with their job file, CSV. */
#ifndef IOTAPE_EXPORT_EXPORT_H
#define IOTAPE_EXPORT_EXPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"

/* What an export wrote (for the command's summary). */
struct export_stats {
	uint64_t events; /* trace events read, notifies included */
	uint64_t lines;  /* lines (or rows) written */
	uint64_t ios;    /* IOs written (iolog, csv rows of IOs) */
	uint64_t bytes;  /* bytes of output */
	unsigned files;  /* output files written */
	unsigned devices;
};

/* ---- blkparse (docs/export.md) ------------------------------------------------------- */

/*
 * The per-CPU sets `blkparse -i` reads for RUN, in its argument's terms, as `blkparse`
 * would be given them: a run directory DIR gives "DIR/NAME" for each NAME.blktrace.N set in
 * it (sorted by name); a set NAME or one of its files (NAME.blktrace.N[.gz]) gives NAME.
 * *sets is a malloc'ed array of malloc'ed strings (export_free_sets).
 */
int export_find_sets(const char *run, char ***sets, unsigned *n, struct iot_err *e);
void export_free_sets(char **sets, unsigned n);

/*
 * Write to fd exactly what `blkparse -i SET1 -i SET2 ...` (blktrace 1.2, default options)
 * writes to a file or pipe: one line per event in its merge order, the per-CPU and
 * per-device summaries, then its "Input file ... added" lines (which blkparse writes through
 * a second, block-buffered stdio stream, so that they come last). Files may be gzip
 * compressed (read as if they were not).
 */
int export_blkparse(char *const *sets, unsigned nsets, int fd, struct export_stats *st,
                    struct iot_err *e);

#endif
