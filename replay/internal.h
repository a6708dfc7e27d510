/* SPDX-License-Identifier: MIT */
/* What the replay files share and nothing outside replay/ needs: targets and the recorder. */
#ifndef IOTAPE_REPLAY_INTERNAL_H
#define IOTAPE_REPLAY_INTERNAL_H

#include "formats/blktrace.h"
#include "replay/replay.h"

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
	uint32_t max_bytes[RP_OP_N]; /* the largest request per operation (block devices), or 0 */
	uint64_t part_start;         /* a partition's first sector on its disk, else 0 */
	uint32_t disk_dev;           /* the disk (the device itself when it is no partition) */
	bool no_discard;             /* EOPNOTSUPP seen: skip the rest */
	bool no_wzero;
	/* recording */
	struct bt_set_writer *rec;
	uint64_t rec_last; /* keep each recorded file in time order */
	uint32_t rec_seq;
};

int rp_target_open(struct rp_target *t, const char *path, const struct replay_opts *o,
                   struct iot_err *e);
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
