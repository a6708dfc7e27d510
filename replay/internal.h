/* SPDX-License-Identifier: MIT */
/* What the replay files share and nothing outside replay/ needs: targets and the recorder. */
#ifndef IOTAPE_REPLAY_INTERNAL_H
#define IOTAPE_REPLAY_INTERNAL_H

#include "formats/blktrace.h"
#include "replay/replay.h"

/* How a target's device splits the replay's reads and writes (replay/split.c) */
enum rp_split {
	RP_SPLIT_NONE,   /* no device (a file), or a bio-based RAM device: an IO goes whole */
	RP_SPLIT_LIMITS, /* a request-based (blk-mq) queue: by its limits, exactly */
	RP_SPLIT_GUESS,  /* device-mapper, md: by the queue's limits, an estimate */
};

struct rp_target {
	char *path;
	char name[64]; /* set name when recording: the device's name, or "file" */
	int fd;        /* O_DIRECT unless --buffered */
	int fd_buf;    /* page-cache descriptor for IOs O_DIRECT cannot do, opened on need */
	bool is_blk;
	bool bio_based; /* no blk-mq queue: io_uring cannot try it without blocking */
	bool ram;       /* a RAM device (zram, brd, pmem): IO is CPU work in the caller */
	bool direct;
	uint64_t size;               /* bytes */
	unsigned lbs;                /* O_DIRECT alignment */
	uint32_t dev;                /* kernel dev_t written in recorded events */
	uint32_t max_bytes[RP_OP_N]; /* the largest discard, write-zeroes (block devices), or 0 */
	/* the queue's limits for reads and writes (0: none known) */
	enum rp_split split;
	uint32_t max_io;     /* max_sectors_kb, bytes */
	uint32_t max_segs;   /* max_segments */
	uint32_t seg_bytes;  /* max_segment_size */
	uint32_t chunk;      /* chunk_sectors, bytes: no request crosses a multiple */
	uint32_t page;       /* the page size: the smallest segment */
	uint32_t whole;      /* the longest IO that goes whole whatever its buffer (but chunk) */
	uint64_t part_start; /* a partition's first sector on its disk, else 0 */
	uint32_t disk_dev;   /* the disk (the device itself when it is no partition) */
	bool no_discard;     /* EOPNOTSUPP seen: skip the rest */
	bool no_wzero;
	/* recording */
	struct bt_set_writer *rec;
	uint64_t rec_last; /* keep each recorded file in time order */
	uint32_t rec_seq;
};

int rp_target_open(struct rp_target *t, const char *path, const struct replay_opts *o,
                   struct iot_err *e);

/* Buffers of IOs larger than a slot (replay/bufs.c): a power of two of bytes, physically
 * contiguous in pieces of unit bytes (huge pages) or of unknown layout (unit 0) */
struct rp_buf {
	uint8_t *p;
	size_t cap;
	uint32_t unit;
};
struct rp_map_rec {
	void *p;
	size_t len;
};
struct rp_bufs {
	size_t huge; /* the huge page size, 0 when there are none */
	struct rp_map_rec *maps;
	unsigned nmaps, capmaps;
	struct rp_buf *free; /* buffers given back, for the next of their size */
	unsigned nfree, capfree;
};
void rp_bufs_init(struct rp_bufs *b);
/* A buffer of at least len bytes: 0 or -ENOMEM. */
int rp_bufs_get(struct rp_bufs *b, size_t len, struct rp_buf *out);
/* Give back a buffer no IO uses any more (NULL p: nothing): 0 or -ENOMEM. */
int rp_bufs_put(struct rp_bufs *b, const struct rp_buf *buf);
void rp_bufs_free(struct rp_bufs *b);

/* The requests the kernel makes of a read or write of len bytes at off on t from a buffer that
 * is physically contiguous in pieces of unit bytes (huge pages, aligned), or of unknown layout
 * (unit 0): at least *lo, at most *hi; *lo == *hi when that decides (replay/split.c). */
void rp_split_predict(const struct rp_target *t, uint64_t off, uint32_t len, uint32_t unit,
                      uint32_t *lo, uint32_t *hi);
/* The longest read or write that goes to t whole from any buffer (crossing no chunk). */
uint32_t rp_split_whole(const struct rp_target *t);
int rp_target_buffered_fd(struct rp_target *t, const struct replay_opts *o);
void rp_target_close(struct rp_target *t);

/* --record: one set per target (NAME.blktrace.0) in dir, plus manifest.json at the end */
int rp_record_open(const char *dir, struct rp_target *t, unsigned n, struct iot_err *e);
int rp_record_io(struct rp_target *t, const struct rp_io *io, bool done, uint64_t t0,
                 struct iot_err *e);
int rp_record_close(const char *dir, struct rp_target *t, unsigned n, const struct replay_opts *o,
                    const struct replay_stats *st, struct iot_err *e);

/* The head of every replay's manifest: host, kernel, command line, clock (record.c) */
struct json_t *rp_manifest_new(int argc, const char *const *argv, int64_t start_real_ns);

/* A histogram as {"count", "min_ns", "mean_ns", "p50_ns" ... "max_ns"} (json.c) */
struct json_t;
struct json_t *rp_hist_json(const struct hist *h);

#endif
