/* SPDX-License-Identifier: MIT */
/* The bpf backend's state and its parts' calls, shared by capture/bpf*.c and no other file. */
#ifndef IOTAPE_CAPTURE_BPF_INT_H
#define IOTAPE_CAPTURE_BPF_INT_H

#include "capture/cap_int.h"

#ifdef IOTAPE_HAVE_BPF

#include <bpf/bpf.h>
#include <jansson.h>
#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/bpf/blk_rec.h"
#include "formats/blktrace.h"

/*
 * How it works (docs/capture.md "bpf"): capture/bpf/blk.bpf.c is attached to the block
 * tracepoints the blk tracer uses, as tp_btf programs through BPF links (bpf.c: loading,
 * attaching, the device table). The links live only in this process's file descriptors
 * (nothing is pinned), so however iotape ends, SIGKILL and crashes included, the kernel
 * detaches the programs when the descriptors close: there is no state to restore, nothing
 * global to take, and any number of captures run at once.
 *
 * The programs write records into one BPF ring buffer without waking anyone (a wakeup per
 * record would cost the traced IO an irq_work each); they force a wakeup when it is a quarter
 * full, and the capture's reader thread drains it every FN_POLL_MS otherwise (reader.c). At the
 * events and io levels it only copies them into a backlog that an idle-priority encoder thread
 * empties (bpf_spool.c); the summary level's few records the reader takes itself. The
 * records become blktrace events (bpf_records.c). They come out in the order they were
 * reserved, not quite in time order across CPUs (an interrupt's record can overtake the
 * task's it interrupted), and at the io level each IO's queue and issue records are written
 * only at its completion. The per-CPU blktrace files must be in time order, so records wait
 * in order until they are older than the newest seen by a hold time (bpf_order.c; an IO's
 * Q, D and C wait as one body, its completion's record encoded once, and the sink makes them
 * into records straight in the files' buffers as they go out: struct cap_io): 10 ms for
 * events, at the io level twice the longest queue-to-completion time seen (at least 100 ms).
 * A record that arrives later than that still goes out, counted as late. The summary level
 * writes no records: its maps are read into summary.json (bpf_summary.c).
 */

#define HOLD_EVENTS_NS 10000000ull
#define HOLD_IO_MIN_NS 100000000ull
#define HOLD_IO_MAX_NS 10000000000ull
#define PEND_MAX (1u << 18) /* records held at most (about 30 MiB) */
#define INFLIGHT_MAX (1u << 16)
#define SLOTS_MAX (1u << 18) /* in-flight slots of all request-based disks (32 bytes each) */
#define IOT_BPF_FAST_DEVS 1  /* as capture/bpf/blk.bpf.c */

/* one record waiting for its turn, or one IO's three: the event (the IO's completion) encoded
 * once, with what its Q and D have of their own (the sink writes them from it) */
struct pend {
	struct cap_io io;
	uint32_t left; /* keys still to go out */
};
_Static_assert(IOT_BPF_PDU_MAX <= CAP_IO_PDU_MAX, "a record's PDU fits an IO's body");

/* a record's place in time order: its body, and which of the body's records it is */
struct pkey {
	uint64_t time;
	uint32_t slot;
	uint32_t part;
};

/* the summary level's figures of one device, as read from the maps */
struct sum_dev {
	char name[64];
	uint32_t kdev;
	int bio_based;
	struct iot_sum_bin *snap; /* [IOT_SUM_RING * ncpu]: the last read of each ring slot */
	uint64_t (*bins)[5]; /* finished bins: ios, write_ios, read_bytes, write_bytes, seeks */
	size_t nbins;
	uint64_t (*gaps)[2];
	size_t ngaps, capgaps;
};

struct iotape_blk;
struct ring_buffer;

struct cap_backend_state {
	struct iotape_blk *skel;
	struct ring_buffer *rb;
	struct cap_sink *sink;
	enum cap_detail detail;
	size_t rb_bytes;
	/* records waiting, in time order: keys[head, nkeys) sorted, bodies in a slab */
	struct pkey *keys;
	size_t head, nkeys, capkeys;
	struct pend *slab;
	uint32_t *free_slots;
	size_t nslab, nfree;
	uint64_t newest, last_out, hold, late, forced, records;
	/* pid -> name: the programs send a task's name only when the reader may not have it */
	struct bt_comm_table *names;
	/* the device table (one device in the program, several in a map) */
	uint32_t devkeys[IOT_BPF_MAX_DEVS];
	struct iot_bpf_dev devtab[IOT_BPF_MAX_DEVS];
	unsigned ndevtab;
	int err;
	struct iot_err e;
	json_t *attached;
	/* summary level */
	char *rundir;
	struct sum_dev *sd;
	unsigned nsd, ncpu;
	uint64_t interval_ns, idle_ns, last_read, last_write;
	uint64_t read_every;          /* capbpf_sum_tick()'s period */
	struct iot_sum_bin *bins_buf; /* one map read: ncpu values */
	/* events and io levels: the records' way to the encoder thread (NULL: the reader
	 * encodes them itself) */
	struct capbpf_spool *spool;
};

/* bpf_order.c: ev into the records waiting for time order (an error also into s->err), or an
 * IO's records: its completion c, Q at t_queue and D at t_issue (0: none) of the issuing task
 * and CPU; the ones older than the newest by the hold time (all: every one) out to the sink.
 * 0 or -errno (s->e says why). */
int capbpf_push(struct cap_backend_state *s, const struct blk_event *ev);
int capbpf_push_io(struct cap_backend_state *s, const struct blk_event *c, uint64_t t_queue,
                   uint64_t t_issue, uint32_t issue_pid, uint32_t issue_cpu);
int capbpf_flush(struct cap_backend_state *s, int all);
void capbpf_order_free(struct cap_backend_state *s);

/* bpf_records.c: one ring buffer record (libbpf's ring_buffer_sample_fn); an error stops
 * ring_buffer__consume() and stays in s->err. */
int capbpf_on_record(void *ctx, void *data, size_t size);

/* bpf_spool.c: the encoder thread for s, at most cap bytes waiting before it is boosted;
 * a ring buffer record into the backlog (libbpf's ring_buffer_sample_fn, ctx s); after a
 * drain, the partial chunk to an idle encoder and its error if any (final: everything
 * encoded, the thread ended); the manifest's "encoder" object; the thread ended without
 * encoding what waits (a capture that failed); the thread and its chunks gone. 0 or -errno (e says
 * why). */
int capbpf_spool_new(struct cap_backend_state *s, uint64_t cap, struct iot_err *e);
int capbpf_spool_add(void *ctx, void *data, size_t size);
int capbpf_spool_poll(struct cap_backend_state *s, int final, struct iot_err *e);
json_t *capbpf_spool_json(const struct cap_backend_state *s);
void capbpf_spool_end(struct cap_backend_state *s); /* the thread ended, what waits dropped */
void capbpf_spool_pause(struct cap_backend_state *s, int pause); /* tests: takes no chunk */
void capbpf_spool_free(struct cap_backend_state *s);

/* bpf_summary.c: the summary level's buffers for n devices (before load), its maps' initial
 * state (after load), an idle gap record, the periodic (and final) read of the maps and write
 * of summary.json, and the buffers freed. 0 or -errno (e or s->e says why). */
int capbpf_sum_init(struct cap_backend_state *s, unsigned n, const char *rundir, struct iot_err *e);
int capbpf_sum_maps(struct cap_backend_state *s, struct iot_err *e);
int capbpf_sum_add_gap(struct cap_backend_state *s, const struct iot_bpf_gap *g);
int capbpf_sum_tick(struct cap_backend_state *s, int final);
void capbpf_sum_free(struct cap_backend_state *s);

#endif /* IOTAPE_HAVE_BPF */

#endif
