/* SPDX-License-Identifier: MIT */
/* blkparse's default text, byte for byte: the pass (its merge order and counters). */
/*
 * What blkparse 1.2 (blktrace's blkparse.c and blkparse_fmt.c, default options, per-CPU
 * files given with -i) does, as far as its output shows, restated here:
 *
 * - Each per-CPU file is a stream read in batches of 512 records (notifies other than
 *   messages take no place). Reading a batch handles its PROCESS notifies at once (a pid
 *   keeps the first name it is given; an event whose pid has no name yet prints "(null)"),
 *   drops records whose CPU field is not the file's, and keeps the others, messages
 *   included. A batch that keeps nothing ends the stream.
 * - Streams are kept in a list ordered by the time of their next record. The head's record
 *   is handled; then, if the head's next record is later than the second stream's, the head
 *   is taken out and put back before the first stream (after the new head) whose record is
 *   not earlier. A new stream goes to the front if it is strictly the earliest, else after
 *   the head and every stream earlier than it. Times print relative to the first record of
 *   the list's head at the start.
 * - Each record handled counts for its file's CPU; a record with any category bit is
 *   "dumped": a line (bp_lines.c), the device's event count, and per-CPU counters
 *   (queued, dispatched, completed, merged, requeued, with the kernel's passthrough (PC)
 *   requests apart, and unplugs) and per-device depth.
 * - At the end, for each device: per CPU (with records) the counters, then a total if more
 *   than one CPU had records, the throughput, the event count and the skips (always 0 here:
 *   blkparse checks sequences only when reading from a pipe). Numbers in the summaries use
 *   the en_US locale's thousands separators when that locale is installed.
 * - "Input file NAME added" lines and the notice about driver data go through stdout's own
 *   buffer, flushed at exit: after everything else.
 *
 * Here the pass (this thread) reads each file's batches in place from its reader (asking for
 * exactly the records a batch still needs, so a batch is one piece of the reader's unless
 * notifies lengthen it), keeps the counters and hands each line to the printers as a job:
 * the event and what the pass knew of it (its time, the pid's name at that moment).
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "export/bp_pass_int.h"
#include "formats/blktrace.h"

/* v7's action word: categories above bit 16, the action below (and __BLK_TA_CGROUP). */
#define TC_NOTIFY (1u << 10)
#define TC_PC (1u << 9)
#define TA_CGROUP (1u << 8)
#define TN_MESSAGE ((TC_NOTIFY << 16) | BLK_N_MESSAGE)
#define TN_PROCESS ((TC_NOTIFY << 16) | BLK_N_PROCESS)

/* ---- names --------------------------------------------------------------------------- */

static size_t name_hash(uint32_t pid, size_t cap)
{
	return (pid * 2654435761u) & (cap - 1);
}

static int names_grow(struct bp *b)
{
	size_t cap = b->hcap ? b->hcap * 2 : 256;
	struct bp_name **h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < b->hcap; i++) {
		size_t k;

		if (!b->hash[i])
			continue;
		for (k = name_hash(b->hash[i]->pid, cap); h[k]; k = (k + 1) & (cap - 1))
			;
		h[k] = b->hash[i];
	}
	free(b->hash);
	b->hash = h;
	b->hcap = cap;
	return 0;
}

static struct bp_name **name_slot(const struct bp *b, uint32_t pid)
{
	size_t k;

	for (k = name_hash(pid, b->hcap); b->hash[k]; k = (k + 1) & (b->hcap - 1))
		if (b->hash[k]->pid == pid)
			break;
	return &b->hash[k];
}

/* A PROCESS note: a pid keeps the first name it is given (blkparse's add_ppm_hash). */
static int name_add(struct bp *b, uint32_t pid, const uint8_t *pdu, unsigned len)
{
	struct bp_name **slot, *n;

	if ((b->nnames + 1) * 2 > b->hcap && names_grow(b))
		return -ENOMEM;
	slot = name_slot(b, pid);
	if (*slot)
		return 0;
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->pid = pid;
	/* strncpy of 16 bytes, then the 16th cleared; a short PDU ends the name */
	for (unsigned i = 0; i < 15 && i < len && pdu[i]; i++)
		n->comm[n->len++] = (char)pdu[i];
	*slot = n;
	b->nnames++;
	if (pid == b->cached_pid)
		b->have_cached = false;
	return 0;
}

static inline const struct bp_name *name_of(struct bp *b, uint32_t pid)
{
	if (!b->have_cached || pid != b->cached_pid) {
		b->cached = *name_slot(b, pid);
		b->cached_pid = pid;
		b->have_cached = true;
	}
	return b->cached;
}

/* ---- streams ------------------------------------------------------------------------- */

static uint32_t action_word(const struct blk_event *ev)
{
	uint32_t a = (ev->flags & 0xffffu) << 16 | ev->action;

	if (ev->flags & BLK_F_CGROUP)
		a |= TA_CGROUP;
	return a;
}

/* What blkparse's read_events() does with a record of the stream's file. */
enum rec_kind {
	REC_KEPT,  /* kept for handling (a message too) */
	REC_OTHER, /* another CPU's: dropped, but it took its place in the batch */
	REC_NOTE,  /* a notify: handled at once, no place in the batch */
};

static inline enum rec_kind rec_kind(const struct bp_stream *s, const struct blk_event *ev)
{
	if (ev->cpu != s->cpu)
		return REC_OTHER;
	if (blk_is_notify(ev) && action_word(ev) != TN_MESSAGE)
		return REC_NOTE;
	return REC_KEPT;
}

/* A record read: its place in the window (1 or 0), and a process name learnt. */
static inline int rec_read(struct bp *b, struct bp_stream *s, const struct blk_event *ev,
                           enum rec_kind *kind)
{
	b->st->events++;
	*kind = rec_kind(s, ev);
	if (*kind == REC_NOTE && action_word(ev) == TN_PROCESS &&
	    name_add(b, ev->pid, ev->pdu, ev->pdu_len))
		return -ENOMEM;
	return *kind != REC_NOTE;
}

/* Copy a kept record (and its PDU, placed later: the arena may move) into the batch. */
static int copy_kept(struct bp_stream *s, const struct blk_event *ev, size_t *used, size_t *pdu_off)
{
	if (ev->pdu_len && *used + ev->pdu_len > s->arena_cap) {
		size_t cap = (*used + ev->pdu_len) * 2;
		uint8_t *a = realloc(s->arena, cap);

		if (!a)
			return -ENOMEM;
		s->arena = a;
		s->arena_cap = cap;
	}
	s->batch[s->n] = *ev;
	pdu_off[s->n] = *used;
	if (ev->pdu_len) {
		memcpy(s->arena + *used, ev->pdu, ev->pdu_len);
		*used += ev->pdu_len;
	}
	s->keep[s->n] = (uint16_t)s->n;
	s->n++;
	return 0;
}

/* The rest of a window the reader's batch ended in: the part read so far is copied, then
 * records come from the reader's next batches. */
static int prime_copy(struct bp *b, struct bp_stream *s, const struct blk_event *w, unsigned slots,
                      struct iot_err *e)
{
	size_t used = 0, pdu_off[BP_BATCH];
	unsigned kept = s->n;

	s->n = 0;
	for (unsigned k = 0; k < kept; k++)
		if (copy_kept(s, &w[s->keep[k]], &used, pdu_off))
			return iot_err_set(e, -ENOMEM, "out of memory");
	while (slots < BP_BATCH) {
		const struct blk_event *ev;
		enum rec_kind kind;
		int ret;

		if (s->rb_pos == s->rb_n) {
			ret = bt_reader_next_batch_max(s->r, BP_BATCH - slots, &s->rb, &s->rb_n, e);
			if (ret < 0)
				return ret;
			if (!ret) {
				s->done = true;
				break;
			}
			s->rb_pos = 0;
		}
		ev = &s->rb[s->rb_pos++];
		ret = rec_read(b, s, ev, &kind);
		if (ret < 0)
			return iot_err_set(e, ret, "out of memory");
		slots += (unsigned)ret;
		if (kind == REC_KEPT && copy_kept(s, ev, &used, pdu_off))
			return iot_err_set(e, -ENOMEM, "out of memory");
	}
	for (unsigned i = 0; i < s->n; i++)
		if (s->batch[i].pdu_len)
			s->batch[i].pdu = s->arena + pdu_off[i];
	s->win = s->batch;
	return 0;
}

/* Read the stream's next window: 1 if it kept records, 0 if the stream ends, -errno. */
static int prime(struct bp *b, struct bp_stream *s, struct iot_err *e)
{
	const struct blk_event *w;
	unsigned slots = 0, i, avail;

	s->n = s->pos = 0;
	if (s->done)
		return 0;
	if (s->rb_pos == s->rb_n) {
		int ret = bt_reader_next_batch_max(s->r, BP_BATCH, &s->rb, &s->rb_n, e);

		if (ret <= 0) {
			s->done = true;
			return ret;
		}
		s->rb_pos = 0;
	}
	w = s->rb + s->rb_pos;
	avail = s->rb_n - s->rb_pos;
	for (i = 0; i < avail && slots < BP_BATCH; i++) {
		enum rec_kind kind;
		int ret = rec_read(b, s, &w[i], &kind);

		if (ret < 0)
			return iot_err_set(e, ret, "out of memory");
		slots += (unsigned)ret;
		if (kind == REC_KEPT)
			s->keep[s->n++] = (uint16_t)i;
	}
	s->rb_pos += i;
	s->win = w;
	if (slots < BP_BATCH) {
		int ret = prime_copy(b, s, w, slots, e);

		if (ret)
			return ret;
	}
	if (!s->n) {
		s->done = true; /* a batch that keeps nothing ends the stream */
		return 0;
	}
	s->head = &s->win[s->keep[0]];
	return 1;
}

/* The stream's next record in its window: false when the window is done. */
static inline bool advance(struct bp_stream *s)
{
	if (++s->pos == s->n)
		return false;
	s->head = &s->win[s->keep[s->pos]];
	return true;
}

static inline uint64_t head_time(const struct bp *b, unsigned i)
{
	return b->streams[i]->head->time;
}

/* blkparse's ms_sort: into the list, by the time of the stream's next record. */
static void list_insert(struct bp *b, unsigned si)
{
	uint64_t t = head_time(b, si);
	unsigned at;

	if (!b->norder || t < head_time(b, b->order[0])) {
		at = 0;
	} else {
		at = 1;
		while (at < b->norder && head_time(b, b->order[at]) < t)
			at++;
	}
	memmove(b->order + at + 1, b->order + at, (b->norder - at) * sizeof(*b->order));
	b->order[at] = si;
	b->norder++;
}
/* A line for ev; its PDU goes with it when the line shows it. Returns false when out of
 * memory or once a write failed. */
static inline bool job(struct bp *b, const struct blk_event *ev, uint64_t t, unsigned cpu,
                       unsigned act, bool pc, bool pdu)
{
	struct bp_chunk *c = b->cur;
	struct bp_job *j;

	if (c->n == BP_CHUNK) {
		if (!chunk_send(b))
			return false;
		c = b->cur;
	}
	j = &c->job[c->n];
	j->ev = *ev;
	j->t = t;
	j->cpu = cpu;
	j->act = (uint8_t)act;
	j->pc = pc;
	j->name = act == BP_MSG ? NULL : name_of(b, ev->pid);
	if (!pdu || !ev->pdu_len) {
		j->ev.pdu_len = 0;
	} else {
		if (c->used + ev->pdu_len > c->cap) {
			size_t cap = (c->used + ev->pdu_len) * 2;
			uint8_t *a = realloc(c->arena, cap);

			if (!a)
				return false;
			c->arena = a;
			c->cap = cap;
		}
		memcpy(c->arena + c->used, ev->pdu, ev->pdu_len);
		c->used += ev->pdu_len;
	}
	c->n++;
	return true;
}

/* ---- one record ---------------------------------------------------------------------- */

static void count_bytes(uint64_t *n, uint64_t *kb, uint64_t *rest, uint32_t bytes)
{
	(*n)++;
	*kb += bytes >> 10;
	*rest += bytes & 1023;
}

static void depth_up(struct bp_dev *d, int w)
{
	if (++d->depth[w] > d->max_depth[w])
		d->max_depth[w] = d->depth[w];
}

static void depth_down(struct bp_dev *d, int w)
{
	if (d->depth[w])
		d->depth[w]--;
}

/* A requeue, PC or not: out of the queue's depth, and its bytes taken off the issued ones as
 * blkparse takes them. */
static void requeue(struct bp_dev *d, int w, uint64_t *rq, uint64_t *kb, uint64_t *rest,
                    uint32_t bytes)
{
	depth_down(d, w);
	(*rq)++;
	*kb -= bytes >> 10;
	*rest -= bytes & 1023;
}

/* What a record prints: a line of an action (enum bp_act), its PDU with it, or none. */
#define LINE_PDU 0x100
#define LINE_NONE (-1)

/* blkparse's dump_trace_pc(): a passthrough request's counters; its line. */
static int dump_pc(struct bp_dev *d, struct bp_ios *c, const struct blk_event *ev, unsigned act)
{
	int w = (ev->flags & BLK_F_WRITE) != 0;

	switch (act) {
	case BLK_A_QUEUE:
		/* blkparse adds a PC read's KiB to the non-PC queued reads */
		count_bytes(&c->pc_q[w], w ? &c->pc_q_kb[1] : &c->q_kb[0], &c->pc_q_b[w],
		            ev->bytes);
		return BP_Q;
	case BLK_A_GETRQ:
		return BP_G;
	case BLK_A_SLEEPRQ:
		return BP_S;
	case BLK_A_REQUEUE:
		requeue(d, w, &c->pc_rq[w], &c->pc_i_kb[w], &c->pc_i_b[w], ev->bytes);
		return BP_R;
	case BLK_A_ISSUE:
		count_bytes(&c->pc_i[w], &c->pc_i_kb[w], &c->pc_i_b[w], ev->bytes);
		depth_up(d, w);
		return BP_D | LINE_PDU;
	case BLK_A_COMPLETE:
		depth_down(d, w);
		c->pc_c[w]++;
		return BP_C | LINE_PDU;
	case BLK_A_INSERT:
		return BP_I | LINE_PDU;
	}
	return LINE_NONE; /* blkparse: "Bad pc action" on stderr */
}

/* blkparse's dump_trace_fs(): a request's or bio's counters; its line. */
static inline int dump_fs(struct bp *b, struct bp_dev *d, struct bp_ios *c,
                          const struct blk_event *ev, unsigned act)
{
	int w = (ev->flags & BLK_F_WRITE) != 0;

	switch (act) {
	case BLK_A_QUEUE:
		count_bytes(&c->q[w], &c->q_kb[w], &c->q_b[w], ev->bytes);
		return BP_Q;
	case BLK_A_INSERT:
		return BP_I;
	case BLK_A_BACKMERGE:
	case BLK_A_FRONTMERGE:
		count_bytes(&c->m[w], &c->m_kb[w], &c->m_b[w], ev->bytes);
		return act == BLK_A_BACKMERGE ? BP_M : BP_F;
	case BLK_A_GETRQ:
		return BP_G;
	case BLK_A_SLEEPRQ:
		return BP_S;
	case BLK_A_REQUEUE:
		requeue(d, w, &c->rq[w], &c->i_kb[w], &c->i_b[w], ev->bytes);
		return BP_R;
	case BLK_A_ISSUE:
		count_bytes(&c->i[w], &c->i_kb[w], &c->i_b[w], ev->bytes);
		depth_up(d, w);
		return BP_D;
	case BLK_A_COMPLETE:
		depth_down(d, w);
		count_bytes(&c->c[w], &c->c_kb[w], &c->c_b[w], ev->bytes);
		return BP_C;
	case BLK_A_PLUG:
		return BP_P;
	case BLK_A_UNPLUG_IO:
		c->io_unplugs++;
		return BP_U | LINE_PDU;
	case BLK_A_UNPLUG_TIMER:
		c->timer_unplugs++;
		return BP_UT | LINE_PDU;
	case BLK_A_SPLIT:
		return BP_X | LINE_PDU;
	case BLK_A_BOUNCE:
		return BP_B;
	case BLK_A_REMAP:
		return BP_A | LINE_PDU;
	case BLK_A_DRV_DATA:
		b->drv_data = true; /* in binary dumps only */
		return LINE_NONE;
	}
	return LINE_NONE; /* blkparse: "Bad fs action" on stderr */
}

/* blkparse's handle(): the list head's next record. */
static bool handle(struct bp *b, struct bp_stream *s)
{
	const struct blk_event *ev = s->head;
	struct bp_dev *d = s->dev;
	struct bp_cpu *c = &d->cpus[s->cpu];
	uint32_t aw = action_word(ev);
	uint64_t t = ev->time - b->genesis;
	bool pc = false;
	int line;

	c->nelems++;
	d->last_time = t;
	if (!(aw & 0xffff0000u))
		return true; /* no category: outside blkparse's default action mask */
	if (aw == TN_MESSAGE) {
		line = ev->pdu_len ? BP_MSG | LINE_PDU : LINE_NONE;
	} else if (aw & (TC_PC << 16)) {
		line = dump_pc(d, &c->ios, ev, aw & 0xffff);
		pc = true;
	} else {
		line = dump_fs(b, d, &c->ios, ev, aw & 0xffff);
	}
	if (!d->events)
		d->first_time = t;
	d->events++;
	if (line == LINE_NONE)
		return true;
	return job(b, ev, t, s->cpu, (unsigned)line & 0xff, pc, (line & LINE_PDU) != 0);
}
/* The merge: blkparse's do_file() loop over the stream list. */
static int pass(struct bp *b, struct iot_err *e)
{
	int ret;

	for (unsigned i = 0; i < b->nstreams; i++) {
		ret = prime(b, b->streams[i], e);
		if (ret < 0)
			return ret;
		if (ret)
			list_insert(b, i);
	}
	if (b->norder)
		b->genesis = head_time(b, b->order[0]);
	while (b->norder) {
		unsigned si = b->order[0];
		struct bp_stream *s = b->streams[si];

		if (!handle(b, s))
			return b->werr ? iot_err_set(e, b->werr, "write: %s", strerror(-b->werr))
			               : iot_err_set(e, -ENOMEM, "out of memory");
		if (!advance(s)) {
			ret = prime(b, s, e);
			if (ret < 0)
				return ret;
			if (!ret) {
				memmove(b->order, b->order + 1, --b->norder * sizeof(*b->order));
				continue;
			}
		}
		if (b->norder > 1 && head_time(b, si) > head_time(b, b->order[1])) {
			memmove(b->order, b->order + 1, --b->norder * sizeof(*b->order));
			list_insert(b, si);
		}
	}
	chunk_send(b);
	return 0; /* a write error is seen once the printer is done */
}

static int run(struct bp *b, char *const *sets, unsigned nsets, int fd, struct iot_err *e)
{
	char *input_dir = NULL;
	int ret = 0;

	b->devs = calloc(nsets, sizeof(*b->devs));
	b->out = out_new(fd);
	if (!b->devs || !b->out || names_grow(b))
		return iot_err_set(e, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < NRING; i++)
		if (!(b->ring[i] = calloc(1, sizeof(*b->ring[i]))))
			return iot_err_set(e, -ENOMEM, "out of memory");
	b->cur = b->ring[0];
	for (unsigned i = 0; i < nsets && !ret; i++)
		ret = setup_dev(b, sets[i], &input_dir, e);
	free(input_dir);
	if (ret)
		return ret;
	b->order = calloc(b->nstreams ? b->nstreams : 1, sizeof(*b->order));
	if (!b->order)
		return iot_err_set(e, -ENOMEM, "out of memory");
	if ((ret = printers_start(b, fd, e)))
		return ret;
	ret = pass(b, e);
	printers_stop(b);
	if (ret)
		return ret;
	if (b->werr)
		return iot_err_set(e, b->werr, "write: %s", strerror(-b->werr));
	if (bp_stats_print(b->out, b->devs, b->ndevs))
		return iot_err_set(e, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < b->ninputs; i++) {
		bp_out_str(b->out, "Input file ");
		bp_out_str(b->out, b->inputs[i]);
		bp_out_str(b->out, " added\n");
	}
	if (b->drv_data)
		bp_out_str(b->out, "\ndiscarded traces containing low-level device driver specific "
		                   "data (only available in binary output)\n");
	bp_out_flush(b->out);
	b->st->bytes = b->out->bytes;
	b->st->lines = b->out->lines;
	for (unsigned i = 0; i < b->nprinters; i++) {
		b->st->bytes += b->printer[i].out->bytes;
		b->st->lines += b->printer[i].out->lines;
	}
	b->st->devices = b->ndevs;
	if (b->out->err)
		return iot_err_set(e, b->out->err, "write: %s", strerror(-b->out->err));
	return 0;
}

int export_blkparse(char *const *sets, unsigned nsets, int fd, struct export_stats *st,
                    struct iot_err *e)
{
	struct bp b;
	struct export_stats dummy;
	int ret;

	memset(&b, 0, sizeof(b));
	b.st = st ? st : &dummy;
	memset(b.st, 0, sizeof(*b.st));
	if (!nsets)
		return iot_err_set(e, -EINVAL, "no trace sets");
	pthread_mutex_init(&b.mu, NULL);
	pthread_cond_init(&b.cv, NULL);
	ret = run(&b, sets, nsets, fd, e);
	bp_release(&b);
	return ret;
}
