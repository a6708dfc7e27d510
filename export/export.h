/* SPDX-License-Identifier: MIT */
/* Exports of a block trace: blkparse's text, fio iologs with their job file, CSV. */
#ifndef IOTAPE_EXPORT_EXPORT_H
#define IOTAPE_EXPORT_EXPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/blk_sink.h"
#include "common/err.h"
#include "formats/iolog.h"

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

/* ---- fio iologs (docs/export.md) ----------------------------------------------------- */

enum export_writes {
	EXPORT_WRITES,          /* as the trace has them */
	EXPORT_WRITES_SKIP,     /* writes and trims left out (counted) */
	EXPORT_WRITES_AS_READS, /* writes read instead, trims left out */
};

/* Where a device of the trace goes: its job file, and the path fio replays it onto. */
struct export_target {
	uint32_t dev;       /* the trace's device (kernel dev_t) */
	const char *target; /* replay_redirect=, or NULL for a ${IOTAPE_TARGET_NAME} placeholder */
	unsigned job;       /* which job file */
};

struct export_iolog_opts {
	const char *dir;  /* the iologs and job files go here (created if needed) */
	unsigned version; /* 3 (times in microseconds) or 2 (no times) */
	bool from_queue;  /* Q events (what was asked for) instead of D (what was issued) */
	const struct export_target *targets;
	unsigned ntargets;
	bool only_targets; /* leave out the devices no target names (else: job 0) */
	unsigned njobs;    /* job files DIR/NAME.fio, NAME from job_names; 0: "replay" */
	const char *const *job_names;
	const char *job_dir;  /* read_iolog= paths start with this; NULL: dir, made absolute */
	const char *ioengine; /* NULL: libaio */
	const char *run;      /* named in the job files' comment */
	/* for a replay through fio (fioclient/): what the local replay's options say */
	enum export_writes writes; /* writes, discards (trims): kept, left out, read instead */
	uint64_t offset;           /* bytes added to every IO's position */
	unsigned max_iodepth;      /* the jobs' iodepth at most this (0: 256) */
	unsigned time_scale;       /* replay_time_scale= (percent; 0: left out, fio's 100) */
	bool no_stall;             /* replay_no_stall=1: as fast as iodepth allows */
	bool buffered;             /* direct=0 */
};

/* One device of the trace, and what its iolog holds. */
struct export_iolog_dev {
	uint32_t dev;
	char name[64];  /* from the run's manifest, else devMAJ_MIN; the iolog is NAME.iolog */
	char iolog[80]; /* the iolog's file name in dir ("" when it got no IO) */
	unsigned job;
	const char *target;  /* as given, or NULL */
	uint64_t ios, bytes; /* IO lines and their bytes */
	uint64_t ops[IOLOG_OP_N];
	uint64_t skipped;           /* events fio cannot replay: passthrough, write-zeroes, empty */
	uint64_t skipped_writes;    /* writes and trims left out (EXPORT_WRITES_SKIP, AS_READS) */
	uint64_t writes_as_reads;   /* writes read instead (EXPORT_WRITES_AS_READS) */
	uint64_t left_out;          /* IOs of a device no target names (only_targets) */
	uint64_t first_ns, last_ns; /* trace times of the first and last IO written */
	unsigned max_depth;         /* the trace's (issued, not completed), from the depth sink */
	unsigned iodepth;           /* the job's: max_depth in [1, max_iodepth] */
};

struct export_iolog_result {
	struct export_iolog_dev *devs;
	unsigned ndevs;
	uint64_t t0; /* trace time of the first IO written: time 1 us in every log */
	struct export_stats st;
};

/*
 * Write DIR/NAME.iolog for each device of the trace RUN (anything the blktrace reader
 * opens) with IOs, from its D (or Q) events, and the job files that replay them. Version 3
 * times are microseconds since the first IO of any device, plus one, so that jobs started
 * together keep the devices' IOs in step.
 */
int export_fio_iolog(const char *run, const struct export_iolog_opts *o,
                     struct export_iolog_result *res, struct iot_err *e);
void export_iolog_result_release(struct export_iolog_result *r);

/* ---- CSV (docs/export.md) -------------------------------------------------------------- */

struct export_csv_opts {
	bool timeline;       /* rows per device and interval (the timeline sink's bins) */
	struct blk_opts blk; /* the timeline's interval and idle threshold */
};

/*
 * RUN (anything the blktrace reader opens) as CSV on fd: a header row, then one row per
 * event (notes left out: time_ns since the first event, device MAJ:MIN, cpu, sequence, pid,
 * action, rwbs, sector, bytes, error, process), or with timeline one row per device and
 * interval with the figures of the analyze JSON's timeline bins.
 */
int export_csv(const char *run, const struct export_csv_opts *o, int fd, struct export_stats *st,
               struct iot_err *e);

#endif
