/* SPDX-License-Identifier: MIT */
/* What the block BPF program and capture's reader share: records, device table, counters. */
#ifndef IOTAPE_CAPTURE_BPF_BLK_REC_H
#define IOTAPE_CAPTURE_BPF_BLK_REC_H

/*
 * Included by capture/bpf/blk.bpf.c (after vmlinux.h, which defines the __u64 family) and by
 * capture/bpf.c (after <linux/types.h>). Every struct is made of naturally aligned fields with
 * explicit padding, so both compilers lay it out alike.
 */

/* --detail: what the program records */
enum iot_bpf_level {
	IOT_BPF_EVENTS = 0,  /* a record per blktrace action, as the blk tracer writes it */
	IOT_BPF_IO = 1,      /* a record per request (or bio-based bio) at its completion */
	IOT_BPF_SUMMARY = 2, /* nothing per IO: maps only */
};

enum iot_bpf_kind {
	IOT_REC_EVENT = 1, /* struct iot_bpf_ev: one blktrace action */
	IOT_REC_IO = 2,    /* struct iot_bpf_io: one IO at its completion */
	IOT_REC_GAP = 3,   /* struct iot_bpf_gap: summary level, an idle gap that ended */
	IOT_REC_NAME = 4,  /* struct iot_bpf_name: io level, an issuing or completing task's name */
};

#define IOT_BPF_PDU_MAX 16
#define IOT_BPF_COMM 16
#define IOT_BPF_MAX_DEVS 64

/* One blktrace action, the fields of the v7 record the blk tracer would write. */
struct iot_bpf_ev {
	__u64 time;   /* CLOCK_MONOTONIC ns (bpf_ktime_get_ns, the tracefs "mono" clock) */
	__u64 sector; /* absolute on the disk, as the blk tracer records it */
	__u64 cgroup; /* the IO's blkcg cgroup id (0: none, e.g. plug and unplug) */
	__u32 bytes;
	__u32 action; /* v7 action word: code | categories << 16 (no cgroup bit) */
	__u32 pid;
	__u32 dev; /* the traced device's dev_t (major << 20 | minor) */
	__u32 cpu;
	__u16 error;
	__u16 kind; /* enum iot_bpf_kind */
	__u16 pdu_len;
	__u16 pad16;
	__u32 pad32;
	__u8 pdu[IOT_BPF_PDU_MAX]; /* unplug depth, split sector, remap source (big-endian) */
	char comm[IOT_BPF_COMM];   /* of pid */
};

/*
 * One IO at its completion (io level): the completion (C) in the first 48 bytes, laid out as
 * iot_bpf_ev's, then what its Q and D need. No PDU and no name: the completing task's name,
 * when the reader may not have it, comes in a name record before (72 bytes, not 120: with
 * the ring buffer's 8-byte header 80 bytes of cold ring per IO instead of 128, and fewer
 * stores).
 */
struct iot_bpf_io {
	__u64 time;   /* of the completion, as iot_bpf_ev's */
	__u64 sector; /* ... */
	__u64 cgroup;
	__u32 bytes;
	__u32 action;
	__u32 pid; /* the completing task */
	__u32 dev;
	__u32 cpu;
	__u16 error;
	__u16 kind;      /* IOT_REC_IO, at iot_bpf_ev's kind */
	__u64 t_queue;   /* Q (bio-based), the request's allocation (request-based), 0: unknown */
	__u64 t_issue;   /* D; 0 for bio-based devices, which issue no requests */
	__u32 issue_pid; /* the task that issued it (bio-based: queued it) */
	__u16 issue_cpu;
	__u16 nbio; /* bios in the request: 1 + the merges into it (at most 256) */
};

/* io level: the name of a task that issues or completes IO, sent before the first record that
 * needs it when the reader may not have it (the IO records carry no name) */
struct iot_bpf_name {
	__u32 pid;
	__u32 pad;
	char comm[IOT_BPF_COMM];
	__u32 pad2[5];
	__u16 pad16;
	__u16 kind; /* IOT_REC_NAME, at iot_bpf_ev's kind */
};

/* ---- the summary level (capture/bpf.c reads these maps) ---- */

/* common/hist.h's buckets: HIST_SUB_BITS 6, (64 - 6 + 1) << 6 of them */
#define IOT_HIST_SUB_BITS 6
#define IOT_HIST_BUCKETS ((64 - IOT_HIST_SUB_BITS + 1) << IOT_HIST_SUB_BITS)
/* timeline bins kept per device in the kernel, a ring the reader empties every second */
#define IOT_SUM_RING 64

/* an idle gap at least the threshold long, ended by an issue (kind IOT_REC_GAP) */
struct iot_bpf_gap {
	__u64 start, end;
	__u32 idx; /* the device's position */
	__u32 pad[6];
	__u16 pad16;
	__u16 kind; /* IOT_REC_GAP, at iot_bpf_ev's kind */
};

/* per device and CPU: D2C (request-based) or Q2C (bio-based) in common/hist's buckets, and the
 * seek sink's counts of the issues on this CPU (summed by the reader) */
struct iot_sum_hist {
	__u64 count, sum, min, max;
	__u64 transitions, seeks, sequential, forward, backward, seekwatcher;
	__u64 b[IOT_HIST_BUCKETS];
};

/* per device and CPU, bin % IOT_SUM_RING: the timeline sink's counts of one bin */
struct iot_sum_bin {
	__u64 bin; /* the bin these counts are of, + 1 (0: never used) */
	__u64 ios, write_ios, read_bytes, write_bytes, seeks;
};

/* the idle starts kept, by their number (two would do: an issue reads the last one before its
 * own request can complete) */
#define IOT_SUM_IDLE 4

/*
 * per device, shared by the CPUs and changed by atomic operations only (a spin-locked section
 * at every issue and completion cost them 50 and 24 ns): the depth and the count of the times
 * it fell to zero in one word (an issue adds 1; a completion, by compare-and-swap, takes 1 or,
 * from 1, counts a zero after writing its time in idle_at), the end of the last issue
 */
struct iot_sum_dev {
	__u64 busy;     /* requests in flight (low 32 bits) | times the depth fell to 0 (high 32) */
	__u64 last_end; /* end sector of the last issue, ~0 before the first */
	/* [n % IOT_SUM_IDLE]: n, and the time the depth fell to zero the nth time */
	__u64 idle_at[IOT_SUM_IDLE][2];
};

/* The device table: key the whole disk's dev_t (the queue's), as the blk tracer keeps one
 * trace per queue limited to a partition's sectors. */
struct iot_bpf_dev {
	__u64 start, end; /* a partition's sectors [start, end]; end 0: the whole disk */
	__u32 dev;        /* dev_t written into records */
	__u32 idx;        /* position in the capture's device list */
	__u32 bio_based;  /* issues no requests: the io level pairs Q with C */
	/* io and summary levels: the disk's requests in flight in the slots map, one slot per
	 * hardware queue and tag, from slot_base: slot_nhw queues of slot_depth tags (0: none,
	 * its requests go in the in-flight hash) */
	__u32 slot_depth;
	__u32 slot_base;
	__u32 slot_nhw;
};

/* Counters, one set per CPU (a PERCPU_ARRAY of IOT_CNT_N). */
enum iot_bpf_counter {
	IOT_CNT_LOST = 0,   /* records the ring buffer had no room for */
	IOT_CNT_UNPAIRED,   /* io level: completions whose issue (or queue) was not seen */
	IOT_CNT_TABLE_FULL, /* io level: in-flight table full, the IO not tracked */
	IOT_CNT_MERGES,     /* io level: bios merged into requests */
	IOT_CNT_SUM_MISSED, /* summary: completions not counted out of the depth (retries spent) */
	IOT_CNT_N = 8,
};

#endif
