/* SPDX-License-Identifier: MIT */
/* The bpf capture backend's kernel side: block tracepoints to blktrace actions, IOs, summaries. */
/* (Past 800 lines: one BPF object, one skeleton: every program of a capture and the maps they
 * share are in it.) */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "blk_rec.h"

/*
 * Each handler mirrors the blk tracer's probe for the same tracepoint (kernel/trace/blktrace.c:
 * blk_add_trace_rq(), blk_add_trace_bio(), __blk_add_trace()): the same action code, sector,
 * bytes, categories from the request's or bio's op and flags, error, pid and CPU, and the
 * cgroup id of the IO's blkcg (bio_blkcg_css(), what the tracer's blk_cgroup option writes).
 * They are tp_btf programs (BTF-typed raw tracepoints): the arguments are read directly,
 * without the perf record a classic tracepoint program gets, and the kernel structs through
 * them by plain loads (BTF-typed pointers, CO-RE relocated), not BPF_CORE_READ()'s
 * bpf_probe_read_kernel() calls: a dozen of those cost an event about 200 ns (bpf_stats).
 *
 * Set by the loader before load (read-only afterwards, so the verifier prunes the levels not
 * taken).
 */
const volatile __u32 level = IOT_BPF_EVENTS;
const volatile __u32 act_mask = 0xffff;    /* blktrace categories recorded (events level) */
const volatile __u64 wake_bytes = 1 << 22; /* wake the reader when this much is waiting */
/* summary level: the timeline's bin width and the shortest idle gap, and whether to write the
 * io level's records as well (IOTAPE_BPF_SUMMARY_WITH_IO: the tests compare the two) */
const volatile __u64 interval_ns = 1000000000;
const volatile __u64 idle_ns = 10000000;
const volatile __u32 also_io = 0;

/* the summary's clock origin: the first IO's queue (or allocation) time */
__u64 origin_ns = 0;

/* the traced devices: every block event of the machine is checked against them. One device
 * is set before load (a compare costs less than a hash lookup); several go in the devs hash
 * (a chain of compares returning pointers to different entries would make the verifier walk
 * the rest of each program once per entry: seconds per capture) */
#define IOT_BPF_FAST_DEVS 1
const volatile __u32 ndevs = 0;
const volatile __u32 dev_keys[IOT_BPF_FAST_DEVS] = {}; /* the whole disk's dev_t */
const volatile struct iot_bpf_dev dev_tab[IOT_BPF_FAST_DEVS] = {};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IOT_BPF_MAX_DEVS);
	__type(key, __u32);
	__type(value, struct iot_bpf_dev);
} devs SEC(".maps");

/* per CPU: the pid of its last record, whose name the reader has (records of another pid
 * carry the name) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} last_pid SEC(".maps");

/* io level (and summary with also_io), per CPU: the last pids whose names the reader has, a
 * record carrying each reserved on this CPU before (a name record at the issue, the IO record
 * at the completion). Several, because issue and completion run in different tasks on the same
 * CPU (the submitter, the driver's worker or an interrupt): one would make them take turns. */
#define IO_NAMED 4
struct io_named {
	__u32 pid[IO_NAMED];
	__u32 next; /* the entry replaced next */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct io_named);
} io_named SEC(".maps");

/* size set by the loader (--buffer per CPU) */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} records SEC(".maps");

/* what the completion needs of the issue: its time and task, and the device's dev and idx
 * (io_record() and sum_complete() take them from here) */
struct inflight {
	__u64 t;   /* 0 in a slot: none in flight there */
	__u64 key; /* in a slot: the request's address (a flush request borrows a tag) */
	__u32 pid, cpu;
	__u32 dev, idx; /* iot_bpf_dev's */
};

/* io and summary levels: requests (or bio-based bios) between issue (queue) and completion,
 * keyed by their address */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1 << 16);
	__type(key, __u64);
	__type(value, struct inflight);
} inflight SEC(".maps");

/* io and summary levels, request-based disks: a request's entry at its place in its queue's
 * tags (struct iot_bpf_dev's slot_*, sized by the loader from sysfs): an array element, written
 * at the issue and cleared at the completion, instead of a hash insert and delete */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct inflight);
} slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, IOT_CNT_N);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, IOT_BPF_MAX_DEVS);
	__type(key, __u32);
	__type(value, struct iot_sum_hist);
} sum_hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, IOT_BPF_MAX_DEVS *IOT_SUM_RING);
	__type(key, __u32);
	__type(value, struct iot_sum_bin);
} sum_bins SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, IOT_BPF_MAX_DEVS);
	__type(key, __u32);
	__type(value, struct iot_sum_dev);
} sum_devs SEC(".maps");

/* include/uapi/linux/blktrace_api.h */
#define TC_SHIFT 16
#define TC_READ (1u << 0)
#define TC_WRITE (1u << 1)
#define TC_FLUSH (1u << 2)
#define TC_SYNC (1u << 3)
#define TC_QUEUE (1u << 4)
#define TC_REQUEUE (1u << 5)
#define TC_ISSUE (1u << 6)
#define TC_COMPLETE (1u << 7)
#define TC_FS (1u << 8)
#define TC_PC (1u << 9)
#define TC_AHEAD (1u << 11)
#define TC_META (1u << 12)
#define TC_DISCARD (1u << 13)
#define TC_FUA (1u << 15)
#define ACT(code, cat) ((code) | ((cat) << TC_SHIFT))
#define TA_QUEUE ACT(1, TC_QUEUE)
#define TA_BACKMERGE ACT(2, TC_QUEUE)
#define TA_FRONTMERGE ACT(3, TC_QUEUE)
#define TA_GETRQ ACT(4, TC_QUEUE)
#define TA_REQUEUE ACT(6, TC_REQUEUE)
#define TA_ISSUE ACT(7, TC_ISSUE)
#define TA_COMPLETE ACT(8, TC_COMPLETE)
#define TA_PLUG ACT(9, TC_QUEUE)
#define TA_UNPLUG_IO ACT(10, TC_QUEUE)
#define TA_UNPLUG_TIMER ACT(11, TC_QUEUE)
#define TA_INSERT ACT(12, TC_QUEUE)
#define TA_SPLIT 13
#define TA_REMAP ACT(15, TC_QUEUE)

#define OP_MASK 0xffu

static __always_inline void count(__u32 which, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &which);

	if (c)
		*c += n;
}

static __always_inline __u32 disk_key(struct gendisk *disk)
{
	if (!disk)
		return 0;
	return ((__u32)(disk->major) << 20) | (__u32)(disk->first_minor);
}

/* The device entry of a queue's disk, NULL when it is not traced. */
static __always_inline const volatile struct iot_bpf_dev *dev_of_disk(struct gendisk *disk)
{
	__u32 key = disk_key(disk);

	/* one device (the usual capture): a compare, and one pointer the verifier follows */
	if (ndevs == 1)
		return dev_keys[0] == key ? &dev_tab[0] : NULL;
	return bpf_map_lookup_elem(&devs, &key);
}

/* Whether a record of pid must carry its name: not when this CPU's last record was pid's. */
static __always_inline int need_comm(__u32 pid)
{
	__u32 zero = 0, *last = bpf_map_lookup_elem(&last_pid, &zero);

	if (last && *last == pid)
		return 0;
	if (last)
		*last = pid;
	return 1;
}

/* act_log_check(): outside a partition's sectors is not its event (sector 0: no sector) */
static __always_inline int out_of_range(const volatile struct iot_bpf_dev *d, __u64 sector)
{
	return d->end && sector && (sector < d->start || sector > d->end);
}

/* __blk_add_trace(): the categories an op and its flags give */
static __always_inline __u32 op_categories(__u32 opf)
{
	__u32 op = opf & OP_MASK, c = (op & 1) ? TC_WRITE : TC_READ;

	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_SYNC)))
		c |= TC_SYNC;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_RAHEAD)))
		c |= TC_AHEAD;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_META)))
		c |= TC_META;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH)))
		c |= TC_FLUSH;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_FUA)))
		c |= TC_FUA;
	if (op == REQ_OP_DISCARD || op == REQ_OP_SECURE_ERASE)
		c |= TC_DISCARD;
	if (op == REQ_OP_FLUSH)
		c |= TC_FLUSH;
	return c;
}

static __always_inline int is_passthrough(__u32 opf)
{
	__u32 op = opf & OP_MASK;

	return op == REQ_OP_DRV_IN || op == REQ_OP_DRV_OUT;
}

/* blk_status_to_errno() for the statuses a completion carries (block/blk-core.c blk_errors);
 * the record's error is the negative errno's low 16 bits, as the tracer's u16 field keeps it */
static __always_inline __u16 status_errno(__u8 st)
{
	int e;

	switch (st) {
	case 0:
		return 0;
	case 1:
		e = 95;
		break; /* NOTSUPP: EOPNOTSUPP */
	case 2:
		e = 110;
		break; /* TIMEOUT: ETIMEDOUT */
	case 3:
		e = 28;
		break; /* NOSPC */
	case 4:
		e = 67;
		break; /* TRANSPORT: ENOLINK */
	case 5:
		e = 121;
		break; /* TARGET: EREMOTEIO */
	case 6:
		e = 52;
		break; /* RESV_CONFLICT: EBADE */
	case 7:
		e = 61;
		break; /* MEDIUM: ENODATA */
	case 8:
		e = 84;
		break; /* PROTECTION: EILSEQ */
	case 9:
		e = 12;
		break; /* RESOURCE: ENOMEM */
	case 11:
		e = 78;
		break; /* DM_REQUEUE: EREMCHG */
	case 12:
		e = 11;
		break; /* AGAIN */
	case 13:
		e = 16;
		break; /* DEV_RESOURCE: EBUSY */
	case 16:
		e = 19;
		break; /* OFFLINE: ENODEV */
	default:
		e = 5;
		break; /* IOERR and the rest: EIO */
	}
	return (__u16)-e;
}

/* cgroup_id(bio_blkcg_css(bio)->cgroup): the kernfs id of the blkcg's cgroup */
static __always_inline __u64 bio_cgroup(struct bio *bio)
{
	struct blkcg_gq *blkg;

	if (!bio)
		return 0;
	blkg = (bio->bi_blkg);
	if (!blkg)
		return 0;
	return (blkg->blkcg->css.cgroup->kn->id);
}

static __always_inline struct iot_bpf_ev *ev_reserve(const volatile struct iot_bpf_dev *d,
                                                     __u32 action, __u64 sector, __u32 bytes,
                                                     __u16 error, __u64 cgroup)
{
	struct iot_bpf_ev *r;
	__u32 pid;
	int named;

	/* with the default mask (all) the check is gone at load: it would make the verifier walk
	 * every combination of categories separately (0.7 s per program) */
	if (act_mask != 0xffff && !(act_mask & (action >> TC_SHIFT)))
		return NULL;
	pid = (__u32)bpf_get_current_pid_tgid();
	/* the name only when the reader may not have it (comm[0] 0: none); one size either way,
	 * or the verifier would walk the rest of the program twice */
	named = need_comm(pid);
	r = bpf_ringbuf_reserve(&records, sizeof(*r), 0);
	if (!r) {
		count(IOT_CNT_LOST, 1);
		return NULL;
	}
	r->time = bpf_ktime_get_ns();
	r->sector = sector;
	r->cgroup = cgroup;
	r->bytes = bytes;
	r->action = action;
	r->pid = pid;
	r->dev = d->dev;
	r->cpu = bpf_get_smp_processor_id();
	r->error = error;
	r->kind = IOT_REC_EVENT;
	r->pdu_len = 0;
	r->pad16 = 0;
	r->pad32 = 0;
	__builtin_memset(r->pdu, 0, sizeof(r->pdu));
	if (named)
		bpf_get_current_comm(r->comm, sizeof(r->comm));
	else
		r->comm[0] = '\0';
	return r;
}

/* The wakeup is left to the reader, which drains on a timer (a wakeup per record would cost
 * the traced IO an irq_work each), unless the ring buffer is filling up */
static __always_inline __u64 wake_flag(void)
{
	return bpf_ringbuf_query(&records, BPF_RB_AVAIL_DATA) > wake_bytes ? BPF_RB_FORCE_WAKEUP
	                                                                   : BPF_RB_NO_WAKEUP;
}

static __always_inline void ev_submit(struct iot_bpf_ev *r)
{
	bpf_ringbuf_submit(r, wake_flag());
}

/* ---- events: request actions (blk_add_trace_rq) ----------------------------------------- */

static __always_inline void rq_event(struct request *rq, __u32 what, __u32 bytes, __u16 error)
{
	const volatile struct iot_bpf_dev *d = dev_of_disk((rq->q->disk));
	struct iot_bpf_ev *r;
	__u32 opf;
	__u64 sector;

	if (!d)
		return;
	opf = (rq->cmd_flags);
	sector = (rq->__sector);
	/* blk_rq_trace_sector(): none for passthrough or an unset position */
	if (is_passthrough(opf) || sector == (__u64)-1)
		sector = 0;
	if (out_of_range(d, sector))
		return;
	what |= (op_categories(opf) | (is_passthrough(opf) ? TC_PC : TC_FS)) << TC_SHIFT;
	r = ev_reserve(d, what, sector, bytes, error, bio_cgroup((rq->bio)));
	if (r)
		ev_submit(r);
}

/* ---- io and summary: one IO from issue (queue) to completion ------------------------------ */

/*
 * A request's slot: by its scheduler tag (internal_tag, from its allocation to its end, kept
 * through a requeue), else its driver tag (without a scheduler: kept through a requeue, held
 * from before the issue until after the completion), on its hardware queue. NULL when the
 * disk has no slots or the place is outside them (the scheduler's depth raised during the
 * capture): the request goes in the hash then, at its issue and its completion alike.
 */
static __always_inline struct inflight *rq_slot(const volatile struct iot_bpf_dev *d,
                                                struct request *rq)
{
	int tag = (rq->internal_tag);
	__u32 hw, i;

	if (!d->slot_depth)
		return NULL;
	if (tag < 0)
		tag = (rq->tag);
	hw = (rq->mq_hctx->queue_num);
	if (tag < 0 || (__u32)tag >= d->slot_depth || hw >= d->slot_nhw)
		return NULL;
	i = d->slot_base + hw * d->slot_depth + (__u32)tag;
	return bpf_map_lookup_elem(&slots, &i);
}

/* This CPU's entry to remember pid in when the reader may not have its name (io records), NULL
 * when it has it. The caller writes pid there once a record with the name is reserved. */
static __always_inline __u32 *io_name_needed(__u32 pid)
{
	__u32 zero = 0;
	struct io_named *n = bpf_map_lookup_elem(&io_named, &zero);

	if (!n || n->pid[0] == pid || n->pid[1] == pid || n->pid[2] == pid || n->pid[3] == pid)
		return NULL;
	return &n->pid[n->next++ & (IO_NAMED - 1)];
}

/* At an issue or a completion of the io level: the task's name, in a record of its own when the
 * reader may not have it (the IO's record carries no name, and comes only at its completion,
 * maybe after records of the same task that leave the name out) */
static __always_inline void io_name(__u32 pid)
{
	struct iot_bpf_name *r;
	__u32 *named;

	if (level != IOT_BPF_IO && !also_io)
		return;
	if (!(named = io_name_needed(pid)))
		return;
	r = bpf_ringbuf_reserve(&records, sizeof(*r), 0);
	if (!r) {
		count(IOT_CNT_LOST, 1);
		return;
	}
	r->pid = pid;
	r->pad = 0;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	__builtin_memset(r->pad2, 0, sizeof(r->pad2));
	r->pad16 = 0;
	r->kind = IOT_REC_NAME;
	*named = pid;
	bpf_ringbuf_submit(r, wake_flag());
}

static __always_inline void inflight_start(const volatile struct iot_bpf_dev *d, __u64 key,
                                           __u64 now)
{
	struct inflight v = {.t = now,
	                     .pid = (__u32)bpf_get_current_pid_tgid(),
	                     .cpu = bpf_get_smp_processor_id(),
	                     .dev = d->dev,
	                     .idx = d->idx};

	io_name(v.pid);
	if (bpf_map_update_elem(&inflight, &key, &v, BPF_ANY))
		count(IOT_CNT_TABLE_FULL, 1);
}

/* the issue of request key into its slot sl (what inflight_start() puts in the hash) */
static __always_inline void slot_start(struct inflight *sl, const volatile struct iot_bpf_dev *d,
                                       __u64 key, __u64 now)
{
	sl->key = key;
	sl->pid = (__u32)bpf_get_current_pid_tgid();
	sl->cpu = bpf_get_smp_processor_id();
	sl->dev = d->dev;
	sl->idx = d->idx;
	io_name(sl->pid);
	sl->t = now;
}

static __always_inline void io_record(struct inflight *v, __u64 now, __u32 opf, __u32 extra,
                                      __u64 sector, __u32 bytes, __u16 error, __u64 cgroup,
                                      __u64 t_queue, __u32 nbio, int issued)
{
	__u32 pid = (__u32)bpf_get_current_pid_tgid();
	struct iot_bpf_io *r;

	/* the completing task's name first, when the reader may not have it */
	io_name(pid);
	r = bpf_ringbuf_reserve(&records, sizeof(*r), 0);
	if (!r) {
		count(IOT_CNT_LOST, 1);
		return;
	}
	r->time = now;
	r->sector = sector;
	r->cgroup = cgroup;
	r->bytes = bytes;
	r->action = TA_COMPLETE | (op_categories(opf) | extra) << TC_SHIFT;
	r->pid = pid;
	r->dev = v->dev;
	r->cpu = bpf_get_smp_processor_id();
	r->error = error;
	r->kind = IOT_REC_IO;
	r->t_queue = issued ? t_queue : v->t;
	r->t_issue = issued ? v->t : 0;
	r->issue_pid = v->pid;
	r->issue_cpu = (__u16)v->cpu;
	r->nbio = (__u16)nbio;
	bpf_ringbuf_submit(r, wake_flag());
}

/* ---- summary: the sinks' figures kept in maps ---------------------------------------------- */

/* hist_bucket() of common/hist.h: s = max(0, log2(v) - 6), bucket s * 64 + (v >> s) */
static __always_inline __u32 hist_bucket(__u64 v)
{
	__u64 x = v | (1ull << IOT_HIST_SUB_BITS);
	__u32 e = 0;

	if (x >> 32) {
		x >>= 32;
		e += 32;
	}
	if (x >> 16) {
		x >>= 16;
		e += 16;
	}
	if (x >> 8) {
		x >>= 8;
		e += 8;
	}
	if (x >> 4) {
		x >>= 4;
		e += 4;
	}
	if (x >> 2) {
		x >>= 2;
		e += 2;
	}
	if (x >> 1)
		e += 1;
	e -= IOT_HIST_SUB_BITS;
	return (e << IOT_HIST_SUB_BITS) + (__u32)(v >> e);
}

static __always_inline void note_origin(__u64 t)
{
	if (!origin_ns)
		__sync_val_compare_and_swap(&origin_ns, 0, t);
}

/* this CPU's counts of the bin that holds t, reset when the ring slot held an older bin */
static __always_inline struct iot_sum_bin *bin_at(__u32 idx, __u64 t)
{
	__u64 o = origin_ns, bin = t > o ? (t - o) / interval_ns : 0;
	__u32 key = idx * IOT_SUM_RING + (__u32)(bin % IOT_SUM_RING);
	struct iot_sum_bin *b = bpf_map_lookup_elem(&sum_bins, &key);

	if (b && b->bin != bin + 1) {
		__builtin_memset(b, 0, sizeof(*b));
		b->bin = bin + 1;
	}
	return b;
}

/* blk_timeline_account() and the idle and seek sinks at an issue */
static __always_inline void sum_issue(const volatile struct iot_bpf_dev *d, __u64 now, __u64 sector,
                                      __u32 bytes)
{
	__u32 idx = d->idx, n;
	struct iot_sum_dev *s = bpf_map_lookup_elem(&sum_devs, &idx);
	struct iot_bpf_gap *g;
	__u64 gap_start = 0, end = sector + (bytes >> 9), old, last;
	int seek = 0;

	if (!s)
		return;
	/* the depth from zero: an idle time ends, the one the last zero began (its completion
	 * wrote idle_at before counting it; none can come before this request completes) */
	old = __sync_fetch_and_add(&s->busy, 1);
	n = (__u32)(old >> 32);
	if (!(__u32)old && n) {
		__u64 *at = s->idle_at[n % IOT_SUM_IDLE];

		if (at[0] == n && now > at[1] && now - at[1] >= idle_ns)
			gap_start = at[1];
	}
	if (bytes >> 9) {
		/* the issues' order is the exchanges' */
		last = __sync_lock_test_and_set(&s->last_end, end);
		if (last != ~0ull) {
			struct iot_sum_hist *h = bpf_map_lookup_elem(&sum_hist, &idx);

			if (h) {
				h->transitions++;
				if (sector == last) {
					h->sequential++;
				} else {
					if (sector > last)
						h->forward++;
					else
						h->backward++;
					h->seeks++;
					/* BLK_SEEKWATCHER_SECTORS */
					if ((sector > last ? sector - last : last - sector) > 128)
						h->seekwatcher++;
				}
			}
			seek = sector != last;
		}
	}
	if (seek) {
		struct iot_sum_bin *b = bin_at(idx, now);

		if (b)
			b->seeks++;
	}
	if (gap_start) {
		g = bpf_ringbuf_reserve(&records, sizeof(*g), 0);
		if (!g) {
			count(IOT_CNT_LOST, 1);
			return;
		}
		__builtin_memset(g, 0, sizeof(*g));
		g->start = gap_start;
		g->end = now;
		g->idx = idx;
		g->kind = IOT_REC_GAP;
		bpf_ringbuf_submit(g, wake_flag());
	}
}

/* an issued request leaves device idx (completed or requeued): the depth, and the idle time's
 * start when none is left (written before the zero is counted, so the issue that ends it finds
 * it; a failed attempt's write is overwritten by the one that counts that zero) */
static __always_inline void sum_leave(__u32 idx, __u64 now)
{
	struct iot_sum_dev *s = bpf_map_lookup_elem(&sum_devs, &idx);

	if (!s)
		return;
	for (int i = 0; i < 32; i++) {
		__u64 old = s->busy, new;
		__u32 n = (__u32)(old >> 32);

		if ((__u32)old > 1) {
			new = old - 1;
		} else {
			__u64 *at = s->idle_at[(n + 1) % IOT_SUM_IDLE];

			at[0] = n + 1;
			at[1] = now;
			new = (__u64)(n + 1) << 32;
		}
		if (__sync_val_compare_and_swap(&s->busy, old, new) == old)
			return;
	}
	count(IOT_CNT_SUM_MISSED, 1);
}

/* at a completion whose issue (or queue) was seen: latency, depth, the bin's counts */
static __always_inline void sum_complete(__u32 idx, __u64 start, __u64 now, __u32 opf, __u32 bytes,
                                         int issued)
{
	__u32 op = opf & OP_MASK, bk;
	__u64 lat = now > start ? now - start : 1; /* blk_tdelta() */
	struct iot_sum_hist *h = bpf_map_lookup_elem(&sum_hist, &idx);
	struct iot_sum_bin *b;

	if (h) {
		bk = hist_bucket(lat);
		if (bk < IOT_HIST_BUCKETS)
			h->b[bk]++;
		if (!h->count || lat < h->min)
			h->min = lat;
		if (lat > h->max)
			h->max = lat;
		h->count++;
		h->sum += lat;
	}
	if (issued)
		sum_leave(idx, now);
	/* completions with data, not discards nor write-zeroes (the timeline's ios) */
	if (!bytes || op == REQ_OP_DISCARD || op == REQ_OP_SECURE_ERASE ||
	    op == REQ_OP_WRITE_ZEROES)
		return;
	b = bin_at(idx, now);
	if (!b)
		return;
	b->ios++;
	if (op & 1) {
		b->write_ios++;
		b->write_bytes += bytes;
	} else {
		b->read_bytes += bytes;
	}
}

/* bios in a request: 1 + the merges into it (bounded walk) */
static __always_inline __u32 rq_nbio(struct request *rq)
{
	struct bio *b = (rq->bio);
	__u32 n = 0;

	for (int i = 0; i < 256 && b; i++) {
		n++;
		b = (b->bi_next);
	}
	return n;
}

/* ---- the tracepoints ---------------------------------------------------------------------- */

SEC("tp_btf/block_rq_insert")
int BPF_PROG(rq_insert, struct request *rq)
{
	rq_event(rq, TA_INSERT, (rq->__data_len), 0);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(rq_issue, struct request *rq)
{
	const volatile struct iot_bpf_dev *d;
	struct inflight *sl;
	__u64 now, sector;

	if (level == IOT_BPF_EVENTS) {
		rq_event(rq, TA_ISSUE, (rq->__data_len), 0);
		return 0;
	}
	d = dev_of_disk((rq->q->disk));
	if (!d)
		return 0;
	/* another partition's request is none of this capture's: not in flight here, no seek,
	 * and its completion (dropped by rq_complete) must not find it counted in the depth */
	sector = (rq->__sector);
	if (is_passthrough((rq->cmd_flags)) || sector == (__u64)-1)
		sector = 0;
	if (out_of_range(d, sector))
		return 0;
	now = bpf_ktime_get_ns();
	sl = rq_slot(d, rq);
	if (sl)
		slot_start(sl, d, (__u64)rq, now);
	else
		inflight_start(d, (__u64)rq, now);
	if (level == IOT_BPF_SUMMARY) {
		__u64 alloc = (rq->start_time_ns);

		note_origin(also_io && alloc && alloc <= now ? alloc : now);
		sum_issue(d, now, sector, (rq->__data_len));
	}
	return 0;
}

SEC("tp_btf/block_rq_merge")
int BPF_PROG(rq_merge, struct request *rq)
{
	rq_event(rq, TA_BACKMERGE, (rq->__data_len), 0);
	return 0;
}

SEC("tp_btf/block_rq_requeue")
int BPF_PROG(rq_requeue, struct request *rq)
{
	const volatile struct iot_bpf_dev *d;
	struct inflight *sl;
	__u64 key = (__u64)rq;

	if (level == IOT_BPF_EVENTS) {
		rq_event(rq, TA_REQUEUE, (rq->__data_len), 0);
		return 0;
	}
	/* io and summary: it is issued again; at the summary level it leaves the device now.
	 * In flight here: its slot held it (cleared now), or the hash (the delete fails when
	 * it did not) */
	if (!(d = dev_of_disk((rq->q->disk))))
		return 0;
	sl = rq_slot(d, rq);
	if (sl) {
		if (sl->key != key || !sl->t)
			return 0;
		sl->t = 0;
	} else if (bpf_map_delete_elem(&inflight, &key)) {
		return 0;
	}
	if (level == IOT_BPF_SUMMARY)
		sum_leave(d->idx, bpf_ktime_get_ns());
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(rq_complete, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	const volatile struct iot_bpf_dev *d;
	struct inflight *v, *sl;
	__u32 opf, nbio;
	__u64 sector, now, key = (__u64)rq;

	if (level == IOT_BPF_EVENTS) {
		rq_event(rq, TA_COMPLETE, nr_bytes, status_errno(error));
		return 0;
	}
	if (!(d = dev_of_disk((rq->q->disk))))
		return 0;
	opf = (rq->cmd_flags);
	sector = (rq->__sector);
	if (is_passthrough(opf) || sector == (__u64)-1)
		sector = 0;
	/* in flight here: its issue found the device, within the partition's sectors */
	sl = rq_slot(d, rq);
	v = sl ? (sl->key == key && sl->t ? sl : NULL) : bpf_map_lookup_elem(&inflight, &key);
	if (!v) {
		/* another partition's, or issued before the capture began: only a traced
		 * request's is unpaired */
		if (!out_of_range(d, sector))
			count(IOT_CNT_UNPAIRED, 1);
		return 0;
	}
	now = bpf_ktime_get_ns();
	if (level == IOT_BPF_SUMMARY)
		sum_complete(v->idx, v->t, now, opf, nr_bytes, 1);
	if (level == IOT_BPF_IO || also_io) {
		nbio = rq_nbio(rq);
		if (nbio > 1)
			count(IOT_CNT_MERGES, nbio - 1);
		io_record(v, now, opf, is_passthrough(opf) ? TC_PC : TC_FS, sector, nr_bytes,
		          status_errno(error), bio_cgroup((rq->bio)), (rq->start_time_ns), nbio, 1);
	}
	if (sl)
		sl->t = 0;
	else
		bpf_map_delete_elem(&inflight, &key);
	return 0;
}

/* blk_add_trace_bio() */
static __always_inline void bio_event(struct bio *bio, __u32 what, __u16 error, __u32 pdu_len,
                                      const void *pdu)
{
	const volatile struct iot_bpf_dev *d = dev_of_disk((bio->bi_bdev->bd_disk));
	struct iot_bpf_ev *r;
	__u64 sector;
	__u32 opf;

	if (!d)
		return;
	sector = (bio->bi_iter.bi_sector);
	if (out_of_range(d, sector))
		return;
	opf = (bio->bi_opf);
	/* no cgroup where the action has a PDU of its own: the kernel's cgroup bit there would
	 * stop blkparse (formats/bt_decode.h) */
	r = ev_reserve(d, what | op_categories(opf) << TC_SHIFT, sector, (bio->bi_iter.bi_size),
	               error, pdu_len ? 0 : bio_cgroup(bio));
	if (!r)
		return;
	if (pdu_len == 8) {
		__builtin_memcpy(r->pdu, pdu, 8);
		r->pdu_len = 8;
	} else if (pdu_len == 16) {
		__builtin_memcpy(r->pdu, pdu, 16);
		r->pdu_len = 16;
	}
	ev_submit(r);
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(bio_queue, struct bio *bio)
{
	const volatile struct iot_bpf_dev *d;

	if (level == IOT_BPF_EVENTS) {
		bio_event(bio, TA_QUEUE, 0, 0, NULL);
		return 0;
	}
	d = dev_of_disk((bio->bi_bdev->bd_disk));
	if (d && d->bio_based && !out_of_range(d, (bio->bi_iter.bi_sector))) {
		__u64 now = bpf_ktime_get_ns();

		inflight_start(d, (__u64)bio, now);
		if (level == IOT_BPF_SUMMARY)
			note_origin(now);
	}
	return 0;
}

SEC("tp_btf/block_bio_complete")
int BPF_PROG(bio_complete, struct request_queue *q, struct bio *bio)
{
	const volatile struct iot_bpf_dev *d;
	struct inflight *v;
	__u64 sector, now, key = (__u64)bio;
	__u32 opf, bytes;

	if (level == IOT_BPF_EVENTS) {
		bio_event(bio, TA_COMPLETE, status_errno((bio->bi_status)), 0, NULL);
		return 0;
	}
	d = dev_of_disk((bio->bi_bdev->bd_disk));
	if (!d || !d->bio_based)
		return 0;
	sector = (bio->bi_iter.bi_sector);
	if (out_of_range(d, sector))
		return 0;
	v = bpf_map_lookup_elem(&inflight, &key);
	if (!v) {
		count(IOT_CNT_UNPAIRED, 1);
		return 0;
	}
	now = bpf_ktime_get_ns();
	opf = (bio->bi_opf);
	bytes = (bio->bi_iter.bi_size);
	if (level == IOT_BPF_SUMMARY)
		sum_complete(v->idx, v->t, now, opf, bytes, 0);
	if (level == IOT_BPF_IO || also_io)
		io_record(v, now, opf, 0, sector, bytes, status_errno((bio->bi_status)),
		          bio_cgroup(bio), 0, 1, 0);
	bpf_map_delete_elem(&inflight, &key);
	return 0;
}

SEC("tp_btf/block_bio_backmerge")
int BPF_PROG(bio_backmerge, struct bio *bio)
{
	bio_event(bio, TA_BACKMERGE, 0, 0, NULL);
	return 0;
}

SEC("tp_btf/block_bio_frontmerge")
int BPF_PROG(bio_frontmerge, struct bio *bio)
{
	bio_event(bio, TA_FRONTMERGE, 0, 0, NULL);
	return 0;
}

SEC("tp_btf/block_getrq")
int BPF_PROG(getrq, struct bio *bio)
{
	bio_event(bio, TA_GETRQ, 0, 0, NULL);
	return 0;
}

SEC("tp_btf/block_split")
int BPF_PROG(split, struct bio *bio, unsigned int new_sector)
{
	__u64 pdu = __builtin_bswap64((__u64)new_sector);

	bio_event(bio, TA_SPLIT, status_errno((bio->bi_status)), 8, &pdu);
	return 0;
}

SEC("tp_btf/block_bio_remap")
int BPF_PROG(bio_remap, struct bio *bio, dev_t from_dev, sector_t from)
{
	/* struct blk_io_trace_remap: device_from, device_to (be32), sector_from (be64) */
	__u32 pdu[4];
	__u64 be_from = __builtin_bswap64(from);

	pdu[0] = __builtin_bswap32(from_dev);
	pdu[1] = __builtin_bswap32((bio->bi_bdev->bd_dev));
	__builtin_memcpy(&pdu[2], &be_from, 8);
	bio_event(bio, TA_REMAP, status_errno((bio->bi_status)), 16, pdu);
	return 0;
}

/* blk_add_trace_plug() and _unplug(): no sector, no op (so the read category), no cgroup */
static __always_inline void queue_event(struct request_queue *q, __u32 what, int pdu_depth,
                                        __u32 depth)
{
	const volatile struct iot_bpf_dev *d = dev_of_disk((q->disk));
	struct iot_bpf_ev *r;

	if (!d)
		return;
	r = ev_reserve(d, what | TC_READ << TC_SHIFT, 0, 0, 0, 0);
	if (!r)
		return;
	if (pdu_depth) {
		__u64 be = __builtin_bswap64((__u64)depth);

		__builtin_memcpy(r->pdu, &be, 8);
		r->pdu_len = 8;
	}
	ev_submit(r);
}

SEC("tp_btf/block_plug")
int BPF_PROG(plug, struct request_queue *q)
{
	queue_event(q, TA_PLUG, 0, 0);
	return 0;
}

SEC("tp_btf/block_unplug")
int BPF_PROG(unplug, struct request_queue *q, unsigned int depth, bool explicit)
{
	queue_event(q, explicit ? TA_UNPLUG_IO : TA_UNPLUG_TIMER, 1, depth);
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
