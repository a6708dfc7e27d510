/* SPDX-License-Identifier: MIT */
/* Block trace replay: a stream of trace events turned into IO against targets, with fidelity. */
#ifndef IOTAPE_REPLAY_REPLAY_H
#define IOTAPE_REPLAY_REPLAY_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/err.h"
#include "common/hist.h"
#include "formats/blkevent.h"

enum rp_timing {
	RP_TIMING_ORIGINAL, /* each IO at its trace time (divided by speed) after the start */
	RP_TIMING_AFAP,     /* as fast as the dependency rule and the depth allow */
};

enum rp_from {
	RP_FROM_ISSUE, /* D events: what reached the device (default) */
	RP_FROM_QUEUE, /* Q events: what the application asked for */
};

enum rp_op {
	RP_OP_READ,
	RP_OP_WRITE,
	RP_OP_FLUSH,   /* fdatasync */
	RP_OP_DISCARD, /* BLKDISCARD on block devices, FALLOC_FL_PUNCH_HOLE on files */
	RP_OP_WZERO,   /* FALLOC_FL_ZERO_RANGE */
	RP_OP_N,
};

struct rp_target;

/* One IO in flight: filled by the scheduler, executed by an engine (replay/engine.h). */
struct rp_io {
	/* what to do */
	unsigned op; /* enum rp_op */
	int fd;
	bool is_blk;  /* the target is a block device (discard goes through BLKDISCARD) */
	bool punt;    /* the target cannot take non-blocking IO (bio-based device) */
	int rw_flags; /* RWF_DSYNC for FUA */
	uint64_t off; /* bytes on the target */
	uint32_t len; /* bytes */
	void *buf;
	int buf_index; /* registered buffer index, or -1 */
	/* result, filled by the engine (what an engine touches fits the first 64 bytes) */
	int64_t res;      /* bytes done or -errno */
	uint64_t t_done;  /* CLOCK_MONOTONIC ns when the completion was seen */
	uint64_t t_issue; /* CLOCK_MONOTONIC ns when handed to the engine */
	/* bookkeeping, scheduler only */
	uint64_t seq;        /* index of the IO in the replayed stream, from 0 */
	uint64_t trace_time; /* ns since the first replayed trace event */
	uint64_t intended;   /* CLOCK_MONOTONIC ns it was due (timed modes), else 0 */
	uint64_t trace_flags;
	uint32_t trace_dev;
	uint64_t trace_sector;
	struct rp_target *tgt;
	long pend;         /* index into the trace-pending window, or -1 */
	bool trace_done;   /* the trace had completed it while the replay had not */
	bool done_inline;  /* done in the scheduler's thread (engine run()), not queued */
	uint32_t buf_unit; /* buf is physically contiguous in pieces this long, or 0: unknown */
};

/* --map SRCDEV=PATH */
struct rp_map {
	uint32_t srcdev; /* kernel dev_t (BLK_MKDEV) */
	const char *path;
};

/* Where the events come from: a blktrace reader (rp_source_reader()) or, in tests, an array. */
struct rp_source {
	int (*next)(void *arg, struct blk_event *ev, struct iot_err *e); /* 1, 0 at end, -errno */
	void *arg;
	/* or, when set, several at once: ev[0..*n) (*n >= 1 when 1 is returned), valid until the
	 * next call */
	int (*batch)(void *arg, const struct blk_event **ev, unsigned *n, struct iot_err *e);
	/* optional, called before the first event: the actions (bits 1u << BLK_A_*) the replay
	 * looks at; the source may leave out the others (never a notify) */
	void (*keep)(void *arg, uint32_t actions);
};

struct bt_reader;
/* A source reading rd (formats/blktrace.h) in batches; rd stays the caller's. */
struct rp_source rp_source_reader(struct bt_reader *rd);

struct replay_stats;

/* A file by device and inode (the replay's inputs, which a target must not be). */
struct rp_file_id {
	dev_t dev;
	ino_t ino;
};

struct replay_opts {
	enum rp_timing timing;
	double speed; /* original timing only; 1.0 when 0 */
	enum rp_from from;
	unsigned depth;     /* cap on IOs in flight; 0 means RP_DEFAULT_DEPTH */
	const char *engine; /* "io_uring", "psync", "null"; NULL chooses io_uring, else psync */
	bool buffered;      /* no O_DIRECT */
	bool allow_writes;
	bool writes_as_reads;
	bool force;         /* replay onto formatted targets, and read from mounted ones */
	bool allow_mounted; /* replay (writes too) onto mounted or held targets */
	const struct rp_file_id *inputs; /* the trace's files: never a target */
	unsigned ninputs;
	bool wrap;
	bool skip_discard; /* count discards as skipped instead of replaying them */
	bool skip_write_zeroes;
	uint64_t offset;    /* bytes added to every IO's position on its target */
	const char *target; /* the target for devices no --map names, or NULL */
	const struct rp_map *maps;
	unsigned nmaps;
	uint64_t null_lat_ns; /* null engine: each IO completes this long after issue */
	uint64_t spin_ns;     /* spin this long before each deadline; 0: 250 us, 80 us if RT */
	/* original timing: the longest wait between two IOs the trace may ask for (a longer leap
	 * is refused as a corrupt timestamp); 0: RP_DEFAULT_MAX_GAP_NS, UINT64_MAX: none */
	uint64_t max_gap_ns;
	/* --record RUNDIR: the replay's own D and C events as blktrace sets, plus manifest.json */
	const char *record_dir;
	const char *const *argv; /* for the manifest */
	int argc;
	/* called at issue (done = false) and completion (done = true) of every IO; for tests */
	void (*observe)(void *arg, const struct rp_io *io, bool done);
	void *observe_arg;
	/* called about once a second with the running totals (the CLI draws a progress line) */
	void (*progress)(void *arg, const struct replay_stats *st, uint64_t elapsed_ns);
	void *progress_arg;
	/* one-line warnings for the user (e.g. what --allow-mounted is about to do); may be NULL */
	void (*notice)(void *arg, const char *msg);
	void *notice_arg;
	/* --capture: every IO issued to a block device is handed to this comparison, or NULL */
	struct rp_fid *fid;
	volatile sig_atomic_t *stop; /* set by a signal handler: stop issuing, drain, report */
	bool no_completions; /* the source has no C events (a fio iolog): no dependency rule,
	                      * no trace depth */
};

#define RP_DEFAULT_DEPTH 256u
#define RP_DEFAULT_MAX_GAP_NS (24ull * 3600 * 1000000000) /* a day of idleness */
#define RP_SLOT_BYTES (128u << 10) /* registered buffer per slot; larger IOs get their own */
#define RP_PEND_MAX 65536u         /* trace IOs awaiting their C event (the look-ahead window) */

struct replay_stats {
	const char *engine;
	/* the trace (replayed events only): IOs of every kind, bytes of data (reads and writes:
	 * what MB/s is made of) */
	uint64_t trace_ios, trace_bytes;
	uint64_t trace_ops[RP_OP_N], trace_op_bytes[RP_OP_N]; /* by operation; bytes covered */
	uint64_t trace_span_ns; /* first replayed event to the last D/Q or C seen */
	unsigned trace_max_depth;
	/* the replay */
	uint64_t ios, bytes;        /* IOs issued and bytes of data moved (reads and writes) */
	uint64_t ops[RP_OP_N];      /* issued, by operation */
	uint64_t op_bytes[RP_OP_N]; /* done, by operation (discards: the bytes covered) */
	/* IOs longer than the target takes in one request (its queue's limits: replay/split.c),
	 * which the kernel splits, and the requests they became: IOs split for certain and their
	 * fewest requests, and at most so many IOs in so many requests (equal to the first two
	 * unless the layout of the buffers in memory decides: an estimate) */
	uint64_t split_ios, split_requests;
	uint64_t split_ios_max, split_requests_max;
	bool split_estimate;     /* the two pairs differ */
	uint64_t replay_span_ns; /* start to the last completion */
	uint64_t errors;         /* IOs that completed with an error */
	int first_error;         /* its -errno */
	uint64_t first_error_seq;
	uint64_t skipped_writes; /* writes (and discards, write-zeroes) without --allow-writes */
	uint64_t writes_as_reads;
	uint64_t skipped_discard; /* discards the target cannot do, or --skip-discard */
	uint64_t skipped_wzero;
	uint64_t skipped_unmapped; /* events for devices with no target */
	uint64_t skipped_range;    /* past the end of the target without --wrap */
	uint64_t skipped_other;    /* zero-length non-flush, passthrough (PC) requests */
	uint64_t wrapped;
	uint64_t unaligned_buffered; /* not aligned for O_DIRECT: done through the page cache */
	uint64_t dep_waits;          /* IOs that waited for the dependency rule */
	uint64_t depth_waits;        /* IOs that waited for the --depth cap */
	/* IOs done in the scheduler's own thread: the next IO depended on them and nothing else
	 * was in flight, so no hand-off to an engine's thread and back */
	uint64_t inline_ios;
	uint64_t pend_evicted; /* trace IOs whose C never came within the window */
	unsigned max_inflight;
	bool stopped; /* interrupted */
	/* set by the caller after comparing with a capture (--capture), for the JSON; or NULL */
	const struct rp_fid_result *fidelity;
	int64_t start_real_ns; /* CLOCK_REALTIME at the first issue */
	struct hist lag;       /* issue lag ns (timed modes) */
	struct hist lat;       /* completion latency ns */
};

/* Run a replay. Returns 0 (even when some IOs failed: see stats) or -errno with e filled. */
int replay_run(const struct replay_opts *o, const struct rp_source *src, struct replay_stats *st,
               struct iot_err *e);

/* No output is ever an input (formats/outcheck.h): --record and --capture (capture_dir, may be
 * NULL) against the trace INPUT and the targets (--target, every --map PATH), before anything
 * is opened for writing. 0, or -EINVAL with e naming both. */
int replay_check_outputs(const struct replay_opts *o, const char *input, const char *capture_dir,
                         struct iot_err *e);

/* The stats (and options) as a JSON object string, malloc'ed; NULL when out of memory. */
char *replay_stats_json(const struct replay_opts *o, const struct replay_stats *st);
/* The same stats as the text a person reads (iotape replay without --json) into f
 * (replay/text.c): rates, a line per operation, and the lines of what was skipped, split,
 * wrapped or compared with a capture only when they count something. */
void replay_stats_text(FILE *f, const struct replay_stats *st);

/* ---- pieces exposed for tests and the CLI ----------------------------------------- */

/* Where an IO lands: trace position pos (bytes) + offset on a target of size bytes. Returns
 * 0 with *out set, 1 if it wrapped (*out set), -ERANGE when it does not fit and wrap is off
 * (or len > the target). Wrapped positions keep the IO's 4 KiB alignment. */
int rp_place(uint64_t pos, uint32_t len, uint64_t offset, uint64_t size, bool wrap, uint64_t *out);

/* "8,16", "8:16" or a block device name ("sdb", "loop0") into a kernel dev_t. */
int rp_parse_dev(const char *s, uint32_t *dev, struct iot_err *e);

/* ---- safety (replay/safety.c) ---- */

/* What a target is, from the least to the most dangerous to replay onto */
enum rp_risk {
	RP_RISK_NONE,
	RP_RISK_FORMATTED, /* carries a signature, or backs a loop device: needs --force */
	RP_RISK_LIVE,      /* mounted, held, swap: reads need --force, writes --allow-mounted */
	RP_RISK_INPUT,     /* one of the replay's input files: never */
};
/* Inspect an opened target: *risk, and what for messages ("is mounted on /mnt", "carries a
 * vfat signature", "backs /dev/loop0, which is mounted on /mnt"). 0 or -errno. */
int rp_target_inspect(int fd, const struct replay_opts *o, enum rp_risk *risk, char *what,
                      size_t cap);
/* What the options allow: 0 (warn filled when it deserves a warning), or -EBUSY with e saying
 * what the target is, what would happen and which option allows it. */
int rp_target_judge(const char *path, enum rp_risk risk, const char *what,
                    const struct replay_opts *o, char *warn, size_t wcap, struct iot_err *e);
struct stat;
/* Open path for inspection (O_RDONLY; a regular file never through a symlink), inspect and
 * judge it: the descriptor (st filled), or -errno with e filled. */
int rp_target_open_checked(const char *path, const struct replay_opts *o, struct stat *st,
                           char *warn, size_t wcap, struct iot_err *e);
/* The same, closing the descriptor: 0 when the options allow path as a target. */
int rp_target_check(const char *path, const struct replay_opts *o, struct iot_err *e);
/* The signature libblkid finds on fd (filesystem, RAID or LVM member, LUKS, swap, partition
 * table) into out: 1, 0 when none, -errno. */
int rp_signature(int fd, char *out, size_t cap);

/* ---- fidelity: the replay against the kernel's view of it (replay/fidelity.c) ---- */

struct rp_fid_result {
	uint64_t expected;       /* IOs the replay issued (reads, writes, discards, write-zeroes) */
	uint64_t observed;       /* requests the kernel issued to those devices meanwhile */
	uint64_t equal;          /* went to the device as one request of the same range and kind */
	uint64_t split;          /* went as several requests ... */
	uint64_t split_requests; /* ... this many */
	uint64_t merged;         /* went inside a request together with other IOs */
	uint64_t missing;        /* never (or not wholly) seen */
	uint64_t reordered;      /* seen out of the replay's order: the fewest IOs that moved */
	uint64_t extra;          /* requests the replay did not ask for (other processes' IO) */
	bool truncated;          /* more IOs than RP_FID_MAX_IOS: the first ones were compared */
	bool sequence_equal;     /* every IO as asked, in order, nothing else */
};
#define RP_FID_MAX_IOS (4u << 20) /* 24 bytes each */

struct rp_fid;
int rp_fid_new(struct rp_fid **out, size_t limit); /* limit 0: RP_FID_MAX_IOS */
void rp_fid_free(struct rp_fid *f);
/* An IO the replay issued: on the device the trace calls traced_dev (a partition, or the
 * disk), at sector of disk disk_dev, in issue order; t_issue on CLOCK_MONOTONIC (the capture's
 * trace clock), so requests before the replay's first are not counted as extra. */
void rp_fid_expect(struct rp_fid *f, uint32_t traced_dev, uint32_t disk_dev, uint64_t sector,
                   uint32_t bytes, unsigned op, uint64_t t_issue);
/* The captured events, in time order (only issue events of the expected devices count). */
int rp_fid_observe(struct rp_fid *f, const struct blk_event *ev);
void rp_fid_result(struct rp_fid *f, struct rp_fid_result *res);
/* --capture: the trace at path (the capture's run directory, or anything bt_reader_open()
 * opens) observed in time order, then the result into res: 0, or -errno with e filled (a
 * capture that cannot be read, or memory: no result, never one of part of the capture). */
int rp_fid_compare(struct rp_fid *f, const char *path, struct rp_fid_result *res,
                   struct iot_err *e);

/* Generated write data: the same bytes for the same (seed, position). */
void rp_pattern_fill(void *buf, size_t len, uint64_t seed);

#endif
