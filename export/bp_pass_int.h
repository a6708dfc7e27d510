/* SPDX-License-Identifier: MIT */
/* The blkparse export's pass state, shared by blkparse.c (the pass), bp_setup.c (its inputs)
 * and bp_printers.c (the printer threads) only. */
#ifndef IOTAPE_EXPORT_BP_PASS_INT_H
#define IOTAPE_EXPORT_BP_PASS_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "export/bp_int.h"
#include "formats/blktrace.h"

#define BP_BATCH 512 /* blkparse's rb_batch: records read from a file at a time */
/* chunks between the pass and the printers: room for any of them to be descheduled */
#define NRING 16
#define NPRINTER_MAX 4

/*
 * A per-CPU file. Its window (blkparse's batch) is read in place from the reader's batch when
 * that holds all of it, else copied (a window across two of the reader's batches).
 */
struct bp_stream {
	struct bt_reader *r;
	struct bp_dev *dev;
	unsigned cpu;
	bool done;
	const struct blk_event *win;  /* the window: in the reader's batch, or batch */
	uint16_t keep[BP_BATCH];      /* win's records that are handled, in order */
	unsigned n, pos;              /* how many; the next */
	const struct blk_event *head; /* win[keep[pos]] */
	struct blk_event batch[BP_BATCH];
	uint8_t *arena; /* the copied window's PDUs */
	size_t arena_cap;
	/* the reader's current batch, taken from by prime() */
	const struct blk_event *rb;
	unsigned rb_n, rb_pos;
};

struct bp;

/* A printer thread: formats whole chunks into its own buffer, written in the chunks' order. */
struct bp_printer {
	struct bp *b;
	struct bp_lines *lines;
	struct bp_out *out;
	uint64_t chunk; /* the chunk being formatted */
	pthread_t thread;
	bool started;
};

struct bp {
	struct bp_dev *devs;
	unsigned ndevs;
	struct bp_stream **streams;
	unsigned nstreams;
	unsigned *order; /* the list: stream indices, head first */
	unsigned norder;
	uint64_t genesis;
	/* pid -> name: a hash of pointers to names that never move */
	struct bp_name **hash;
	size_t hcap, nnames;
	struct bp_name *cached; /* the name of cached_pid (NULL: none yet) */
	uint32_t cached_pid;
	bool have_cached;
	bool drv_data;
	char **inputs; /* "Input file ... added" paths, in order */
	unsigned ninputs;
	struct export_stats *st;
	/* the lines go to the printers a chunk at a time; the summaries go to out */
	struct bp_out *out;
	struct bp_printer printer[NPRINTER_MAX];
	unsigned nprinters;
	struct bp_chunk *ring[NRING];
	struct bp_chunk *cur;
	/* chunks handed over, taken by a printer, and written (in order: a slot is free again) */
	uint64_t produced, taken, written;
	int werr; /* the printers' first write error, seen under mu */
	bool finished;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

/* bp_printers.c */
struct bp_out *out_new(int fd);
int printers_start(struct bp *b, int fd, struct iot_err *e);
/* Hand the chunk being filled to the printers; wait for a free one. false once a write
 * failed. */
bool chunk_send(struct bp *b);
void printers_stop(struct bp *b);

/* bp_setup.c */
/* One -i argument: its device, its files from CPU 0 up to the first missing one. */
int setup_dev(struct bp *b, const char *arg, char **input_dir, struct iot_err *e);
/* Everything the pass holds freed, its printers stopped first. */
void bp_release(struct bp *b);

#endif
