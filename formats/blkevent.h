/* SPDX-License-Identifier: MIT */
/* The block event: one host-order record per blktrace action, whatever the on-disk version. */
#ifndef IOTAPE_FORMATS_BLKEVENT_H
#define IOTAPE_FORMATS_BLKEVENT_H

#include <stdbool.h>
#include <stdint.h>

/* Action codes: the low byte of the kernel's action (include/uapi/linux/blktrace_api.h,
 * enum blktrace_act). Notify records carry BLK_F_NOTIFY and a BLK_N_* code instead. */
enum blk_action {
	BLK_A_NONE = 0,
	BLK_A_QUEUE = 1,
	BLK_A_BACKMERGE = 2,
	BLK_A_FRONTMERGE = 3,
	BLK_A_GETRQ = 4,
	BLK_A_SLEEPRQ = 5,
	BLK_A_REQUEUE = 6,
	BLK_A_ISSUE = 7,
	BLK_A_COMPLETE = 8,
	BLK_A_PLUG = 9,
	BLK_A_UNPLUG_IO = 10,
	BLK_A_UNPLUG_TIMER = 11,
	BLK_A_INSERT = 12,
	BLK_A_SPLIT = 13,
	BLK_A_BOUNCE = 14,
	BLK_A_REMAP = 15,
	BLK_A_ABORT = 16,
	BLK_A_DRV_DATA = 17,
	BLK_A_ZONE_PLUG = 18,
	BLK_A_ZONE_UNPLUG = 19,
	BLK_A_MAX = 20,
};

enum blk_notify {
	BLK_N_PROCESS = 0,
	BLK_N_TIMESTAMP = 1,
	BLK_N_MESSAGE = 2,
};

/* Flags: the kernel's category bits (enum blktrace_cat, v2 width), host order. */
enum blk_flag {
	BLK_F_READ = 1ull << 0,
	BLK_F_WRITE = 1ull << 1,
	BLK_F_FLUSH = 1ull << 2,
	BLK_F_SYNC = 1ull << 3,
	BLK_F_QUEUE = 1ull << 4,
	BLK_F_REQUEUE = 1ull << 5,
	BLK_F_ISSUE = 1ull << 6,
	BLK_F_COMPLETE = 1ull << 7,
	BLK_F_FS = 1ull << 8,
	BLK_F_PC = 1ull << 9,
	BLK_F_NOTIFY = 1ull << 10,
	BLK_F_AHEAD = 1ull << 11,
	BLK_F_META = 1ull << 12,
	BLK_F_DISCARD = 1ull << 13,
	BLK_F_DRV_DATA = 1ull << 14,
	BLK_F_FUA = 1ull << 15,
	BLK_F_ZONE_APPEND = 1ull << 16,
	BLK_F_ZONE_RESET = 1ull << 17,
	BLK_F_ZONE_RESET_ALL = 1ull << 18,
	BLK_F_ZONE_FINISH = 1ull << 19,
	BLK_F_ZONE_OPEN = 1ull << 20,
	BLK_F_ZONE_CLOSE = 1ull << 21,
	BLK_F_WRITE_ZEROES = 1ull << 22,
	/* not a kernel category: the record carried a cgroup id (cgroup field is valid) */
	BLK_F_CGROUP = 1ull << 31,
};

#define BLK_DEV_MAJOR(d) ((unsigned)((d) >> 20))
#define BLK_DEV_MINOR(d) ((unsigned)((d)&0xfffff))
#define BLK_MKDEV(ma, mi) ((uint32_t)(((uint32_t)(ma) << 20) | ((uint32_t)(mi)&0xfffff)))

/*
 * 64 bytes, one cache line: a pass moves millions of these between threads. The remap source
 * of a BLK_A_REMAP event stays in its PDU (blk_event_remap() reads it).
 */
struct blk_event {
	uint64_t time;   /* ns, trace clock (relative to the kernel's trace start) */
	uint64_t sector; /* 512-byte sectors */
	uint64_t cgroup; /* cgroup id when BLK_F_CGROUP */
	uint32_t flags;  /* BLK_F_* (the kernel's categories use bits 0-22) */
	uint32_t bytes;
	uint32_t dev; /* kernel dev_t: major << 20 | minor */
	uint32_t pid;
	uint32_t cpu;
	uint32_t seq;    /* per-CPU sequence number */
	uint16_t action; /* enum blk_action, or enum blk_notify when BLK_F_NOTIFY */
	uint16_t error;
	/* payload after the record (process name, message, driver data, remap source), cgroup id
	 * removed; valid until the next call into the reader */
	uint16_t pdu_len;
	/* 1 + the CPU of the per-CPU file (NAME.blktrace.N: N) the record came from when that is
	 * not its cpu field, else 0 (a record of its file's CPU, a merged dump, a stream): sequence
	 * numbers count per per-CPU file, as blkparse keys them (blk_seq_cpu()) */
	uint16_t src;
	const uint8_t *pdu;
};
_Static_assert(sizeof(struct blk_event) <= 64, "a block event fits a cache line");

/* The CPU whose sequence numbers e's seq counts in: its per-CPU file's, else its own. */
static inline uint32_t blk_seq_cpu(const struct blk_event *e)
{
	return e->src ? (uint32_t)e->src - 1 : e->cpu;
}

static inline bool blk_is_notify(const struct blk_event *e)
{
	return (e->flags & BLK_F_NOTIFY) != 0;
}

static inline bool blk_is_write(const struct blk_event *e)
{
	return (e->flags & BLK_F_WRITE) != 0;
}

/*
 * The sectors a device's issued requests with data covered, [lo, hi) over ios requests: what a
 * movie's offset axis spans (the capture records it in the manifest, the movie's first pass
 * over a bare trace computes it).
 */
struct blk_extent {
	uint64_t ios, lo, hi;
};

static inline void blk_extent_add(struct blk_extent *x, const struct blk_event *e)
{
	uint64_t end;

	if (blk_is_notify(e) || e->action != BLK_A_ISSUE || !(e->bytes >> 9))
		return;
	end = e->sector + (e->bytes >> 9);
	if (end < e->sector) /* an IO at the end of the u64 axis */
		end = UINT64_MAX;
	if (!x->ios++) {
		x->lo = e->sector;
		x->hi = end;
	}
	if (e->sector < x->lo)
		x->lo = e->sector;
	if (end > x->hi)
		x->hi = end;
}

/*
 * What a capture's manifest says of a device's trace (docs/capture.md): the trace-clock times
 * of its first and last event, notifies aside (records arrive from the CPUs interleaved, not
 * in time order), and the sectors issued. any is false before the first event.
 */
struct blk_span {
	bool any;
	uint64_t first, last;
	struct blk_extent issued;
};

static inline void blk_span_add(struct blk_span *s, const struct blk_event *e)
{
	if (blk_is_notify(e))
		return;
	if (!s->any || e->time < s->first)
		s->first = e->time;
	if (!s->any || e->time > s->last)
		s->last = e->time;
	s->any = true;
	blk_extent_add(&s->issued, e);
}

/* A BLK_A_REMAP event's source device and sector, from its PDU (struct blk_io_trace_remap,
 * big-endian whatever the record's order). false when the PDU is too short. */
static inline bool blk_event_remap(const struct blk_event *e, uint32_t *dev, uint64_t *sector)
{
	const uint8_t *p = e->pdu;
	uint64_t s = 0;

	if (e->action != BLK_A_REMAP || (e->flags & BLK_F_NOTIFY) || e->pdu_len < 16 || !p)
		return false;
	*dev = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	for (int i = 8; i < 16; i++)
		s = s << 8 | p[i];
	*sector = s;
	return true;
}

/* Single-letter action as blkparse prints it ("Q", "M", "F", "G", "S", "R", "D", "C", "P",
 * "U", "UT", "I", "X", "B", "A", "X"...), and a long lowercase name for JSON. */
const char *blk_action_letter(unsigned action);
const char *blk_action_name(unsigned action);
/* blkparse's RWBS string (e.g. "WS", "RA", "FWFS") into buf of at least 8 bytes. */
const char *blk_rwbs(uint64_t flags, uint32_t bytes, char *buf);

#endif
