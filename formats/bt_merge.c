/* SPDX-License-Identifier: MIT */
/* The blktrace reader's hot path: per-CPU files merged by time into batches, the usual record
 * decoded by the fast path straight from a file's buffer. */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "common/cursor.h"
#include "formats/bt_decode.h"
#include "formats/bt_reader_int.h"

/*
 * The fast path of the merge. Nearly every record of a trace is a native-order version 7
 * record, not a notify, without a cgroup id, on the (device, CPU) of the record before it:
 * such a record is decoded straight into the output (its PDU, if any, copied into the
 * batch's arena), its sequence checked in place. Anything else (and the end of the buffer,
 * and the window's mark) goes to the general path, bt_src_next().
 *
 * A run works on a copy of a source's position and sequence state in locals (struct run),
 * so that the stores of the events it writes do not make the compiler reload them, and
 * writes them back once at its end (run_end(): the records and bytes moved over, the
 * sequence, the window).
 */
struct run {
	const uint8_t *p;    /* the next record */
	const uint8_t *stop; /* a record from here on goes to the general path */
	const uint8_t *end;  /* the end of the bytes in the buffer */
	const uint8_t *from; /* p when the run began */
	uint64_t key;        /* the device and CPU words of the fast records (offset 36) */
	uint64_t pdub;       /* PDU bytes stepped over */
	uint64_t t;          /* the time of the record at p, once run_peek() said yes */
	uint64_t next;       /* the last sequence number of that (device, CPU), plus 1 */
};

static inline void run_begin(const struct bt_src *s, struct run *rs)
{
	size_t stop = s->len >= BT_REC7_SIZE ? s->len - BT_REC7_SIZE + 1 : 0;
	uint32_t kw[2] = {(uint32_t)(s->seq_raw >> 32), (uint32_t)s->seq_raw};

	/* a record from the window's mark on goes to the general path; run_end() moves it */
	if (s->map.len && s->map.mark < stop)
		stop = s->map.mark;
	if (!s->seq_last || stop < s->pos)
		stop = s->pos; /* a new (device, CPU): the general path looks it up */
	rs->p = rs->from = s->buf + s->pos;
	rs->stop = s->buf + stop;
	rs->end = s->buf + s->len;
	memcpy(&rs->key, kw, sizeof(kw));
	rs->pdub = 0;
	rs->t = 0;
	rs->next = (uint64_t)(s->seq_last ? *s->seq_last : 0) + 1;
}

static inline void run_end(struct bt_src *s, const struct run *rs)
{
	size_t moved = (size_t)(rs->p - rs->from);

	if (!moved)
		return;
	s->pos += moved;
	s->st.bytes += moved;
	s->st.records += (moved - rs->pdub) / BT_REC7_SIZE;
	*s->seq_last = (uint32_t)(rs->next - 1);
	if (s->map.len && s->pos >= s->map.mark)
		mapwin_move(&s->map, s->pos);
}

/* A PDU the fast path can take: not a notify, no cgroup id (either form), inside the buffer. */
static int run_pdu_ok(const struct run *rs, uint32_t action)
{
	size_t left = (size_t)(rs->end - rs->p) - BT_REC7_SIZE;
	unsigned pdu_len = load_u16(rs->p + BT7_PDU_LEN);

	return !((action >> BT_TC_SHIFT) & BLK_F_NOTIFY) && !(action & BT_TA_CGROUP) &&
	       (left < BT_PDU_MAX ? left : BT_PDU_MAX) >= pdu_len &&
	       (pdu_len != 8 || !bt_pdu_is_cgroup(action, 8));
}

/* The sequence slot of a (device, CPU) the file has met before, or NULL. */
static uint32_t *seq_find(const struct bt_src *s, uint64_t key)
{
	size_t i = seq_hash(key, s->seq_cap);

	while (s->seq[i].key && s->seq[i].key != key)
		i = (i + 1) & (s->seq_cap - 1);
	return s->seq[i].key ? &s->seq[i].last : NULL;
}

/*
 * The record at rs->p is on another (device, CPU) than the run's (a file with several
 * devices): the run goes on with that one's sequence if the file has met it before; a new
 * one goes to the general path, which adds it.
 */
static inline int run_rekey(struct bt_src *s, struct run *rs)
{
	uint32_t dev = load_u32(rs->p + BT7_DEVICE), cpu = load_u32(rs->p + BT7_CPU);
	uint64_t key = ((uint64_t)dev << 32 | (s->src_cpu ? 0 : cpu)) + 1;
	uint32_t *slot;

	/* a record of another CPU than its file's goes to the general path, which marks it (src) */
	if (s->src_cpu && cpu != (uint32_t)s->src_cpu - 1)
		return 0;
	if (!(slot = seq_find(s, key)))
		return 0;
	*s->seq_last = (uint32_t)(rs->next - 1);
	s->seq_key = key;
	s->seq_raw = (uint64_t)dev << 32 | cpu;
	s->seq_last = slot;
	rs->key = load_u64(rs->p + BT7_DEVICE);
	rs->next = (uint64_t)*slot + 1;
	return 1;
}

/* run_peek() of a record with a PDU, a notify, or of another (device, CPU) than the run's */
static __attribute__((noinline)) int run_peek_other(struct bt_src *s, struct run *rs)
{
	const uint8_t *p = rs->p;
	uint32_t action = load_u32(p + BT7_ACTION);

	if ((load_u16(p + BT7_PDU_LEN) || ((action >> BT_TC_SHIFT) & BLK_F_NOTIFY)) &&
	    !run_pdu_ok(rs, action))
		return 0;
	if (load_u64(p + BT7_DEVICE) != rs->key && !run_rekey(s, rs))
		return 0;
	rs->t = load_u64(p + BT7_TIME);
	return 1;
}

/* Can the record at rs->p take the fast path? Then its time is in rs->t. Inline in the merge
 * loops (the usual record: no PDU, no notify, the run's device and CPU), so that their runs
 * stay in registers: a call took their state to memory (bench/README.md, the replay's hot
 * path in instructions). */
static inline __attribute__((always_inline)) int run_peek(struct bt_src *s, struct run *rs)
{
	const uint8_t *p = rs->p;

	if (p >= rs->stop || load_u32(p) != (BT_MAGIC | BT_VERSION7))
		return 0;
	if (__builtin_expect(load_u16(p + BT7_PDU_LEN) ||
	                         ((load_u32(p + BT7_ACTION) >> BT_TC_SHIFT) & BLK_F_NOTIFY) ||
	                         load_u64(p + BT7_DEVICE) != rs->key,
	                     0))
		return run_peek_other(s, rs);
	rs->t = load_u64(p + BT7_TIME);
	return 1;
}

/* A sequence number other than the next one: count the records lost (as track_seq()). */
static void run_seq_jump(struct bt_src *s, struct run *rs, uint32_t seq)
{
	uint32_t last = (uint32_t)(rs->next - 1);

	if (seq > last + 1)
		s->st.skips += seq - last - 1;
	if (seq > last)
		last = seq;
	rs->next = (uint64_t)last + 1;
}

/*
 * Decode the record run_peek() accepted into ev and step over it. Its PDU is copied to
 * arena + *used when arena is given (0 when there is no room for it: nothing taken), else ev
 * points into the buffer (a head).
 */
static inline __attribute__((always_inline)) int
run_take(struct bt_src *s, struct run *rs, struct blk_event *ev, uint8_t *arena, size_t *used)
{
	const uint8_t *p = rs->p;
	uint32_t action = load_u32(p + BT7_ACTION), seq = load_u32(p + BT7_SEQUENCE);
	unsigned pdu_len = load_u16(p + BT7_PDU_LEN);
	const uint8_t *pdu = NULL;
	uint64_t dp;

	if (__builtin_expect(pdu_len != 0, 0)) {
		pdu = p + BT_REC7_SIZE;
		if (arena) {
			if (PF_ARENA - *used < pdu_len)
				return 0;
			memcpy(arena + *used, pdu, pdu_len);
			pdu = arena + *used;
			*used += pdu_len;
		}
		rs->pdub += pdu_len;
	}
	if (__builtin_expect(rs->next != seq, 0))
		run_seq_jump(s, rs, seq);
	else
		rs->next = (uint64_t)seq + 1;
	ev->time = rs->t;
	ev->sector = load_u64(p + BT7_SECTOR);
	ev->cgroup = 0;
	ev->flags = action >> BT_TC_SHIFT;
	ev->bytes = load_u32(p + BT7_BYTES);
	/* (dev, pid) is the record's (pid, dev), halves swapped (in either byte order) */
	dp = load_u64(p + BT7_PID);
	dp = dp >> 32 | dp << 32;
	memcpy(&ev->dev, &dp, sizeof(dp));
	ev->cpu = load_u32(p + BT7_CPU);
	ev->seq = seq;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* error and pdu_len follow each other as in the record, 16 bits above the action; src
	 * above them is 0: the fast path takes only records of their file's CPU */
	dp = (action & 0xff) | (uint64_t)load_u32(p + BT7_ERROR) << 16;
	memcpy(&ev->action, &dp, sizeof(dp));
#else
	ev->action = (uint16_t)(action & 0xff);
	ev->error = load_u16(p + BT7_ERROR);
	ev->pdu_len = (uint16_t)pdu_len;
	ev->src = 0;
#endif
	ev->pdu = pdu;
	rs->p = p + BT_REC7_SIZE + pdu_len;
	return 1;
}

/* run_take() writes (dev, pid) and (action, error, pdu_len, src) as whole words */
_Static_assert(offsetof(struct blk_event, pid) == offsetof(struct blk_event, dev) + 4 &&
                   offsetof(struct blk_event, dev) % 8 == 0,
               "dev and pid form one word");
/* ... read from the record as whole words: (pid, device), (device, cpu), (error, pdu_len) */
_Static_assert(BT7_DEVICE == BT7_PID + 4 && BT7_CPU == BT7_DEVICE + 4 &&
                   BT7_PDU_LEN == BT7_ERROR + 2,
               "the record's pid, device and cpu, and its error and pdu_len, follow each other");
_Static_assert(offsetof(struct blk_event, error) == offsetof(struct blk_event, action) + 2 &&
                   offsetof(struct blk_event, pdu_len) == offsetof(struct blk_event, action) + 4 &&
                   offsetof(struct blk_event, src) == offsetof(struct blk_event, action) + 6,
               "action, error, pdu_len and src form one word");

/* Whether the caller may look at records of this raw action word (bt_reader_keep_actions()):
 * an action past the mask's 32 bits is not one it keeps, so its bit is taken modulo 32 (kept or
 * left out, either is allowed) */
static inline bool run_keeps(uint32_t keep, uint32_t action)
{
	return keep >> (action & 31) & 1;
}

/* Step over the record run_peek() accepted without decoding it (the caller does not look at
 * its action): its sequence and PDU bytes counted as run_take() counts them. */
static inline __attribute__((always_inline)) void run_skip(struct bt_src *s, struct run *rs)
{
	const uint8_t *p = rs->p;
	uint32_t seq = load_u32(p + BT7_SEQUENCE);
	unsigned pdu_len = load_u16(p + BT7_PDU_LEN);

	rs->pdub += pdu_len;
	if (__builtin_expect(rs->next != seq, 0))
		run_seq_jump(s, rs, seq);
	else
		rs->next = (uint64_t)seq + 1;
	rs->p = p + BT_REC7_SIZE + pdu_len;
}

/* A source's decoded head into the batch at ev, its PDU copied into the arena; false, and
 * nothing written, when it must take the general path: a notify, or no room for its PDU. */
static inline bool head_out(struct pf_batch *b, struct blk_event *ev, const struct blk_event *head)
{
	if (blk_is_notify(head) || PF_ARENA - b->used < head->pdu_len)
		return false;
	*ev = *head;
	if (head->pdu_len) {
		memcpy(b->arena + b->used, head->pdu, head->pdu_len);
		ev->pdu = b->arena + b->used;
		b->used += head->pdu_len;
	}
	return true;
}

/* Might the next record of s take the fast path? A cheap look before a run is set up. */
static inline int src_fast_next(const struct bt_src *s)
{
	return s->seq_last && s->len - s->pos >= BT_REC7_SIZE &&
	       load_u32(s->buf + s->pos) == (BT_MAGIC | BT_VERSION7);
}

/* The next record of s into its head by the fast path; 0 if it cannot take it. */
static int src_fast_head(struct bt_src *s)
{
	struct run rs;
	int ok;

	if (!src_fast_next(s))
		return 0;
	run_begin(s, &rs);
	ok = run_peek(s, &rs);
	if (ok)
		run_take(s, &rs, &s->head, NULL, NULL);
	run_end(s, &rs);
	return ok;
}

/* Fast records of s earlier than limit into out (those of the actions in keep, the others
 * stepped over), at most max; how many. */
static __attribute__((noinline)) unsigned src_run(struct bt_src *s, struct blk_event *out,
                                                  unsigned max, uint64_t limit, uint8_t *arena,
                                                  size_t *used, uint32_t keep)
{
	struct run rs;
	unsigned n = 0;

	if (!src_fast_next(s))
		return 0;
	run_begin(s, &rs);
	while (n < max && run_peek(s, &rs) && rs.t < limit) {
		if (keep != ~0u && !run_keeps(keep, load_u32(rs.p + BT7_ACTION))) {
			run_skip(s, &rs);
			continue;
		}
		if (!run_take(s, &rs, &out[n], arena, used))
			break;
		n++;
	}
	run_end(s, &rs);
	return n;
}

static int heap_less(const struct bt_reader *r, unsigned a, unsigned b)
{
	const struct blk_event *x = &r->src[a].head, *y = &r->src[b].head;

	if (x->time != y->time)
		return x->time < y->time;
	return a < b; /* stable: ties keep file order */
}

static void heap_down(struct bt_reader *r, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, m = i, t;

		if (l < r->nheap && heap_less(r, r->heap[l], r->heap[m]))
			m = l;
		if (l + 1 < r->nheap && heap_less(r, r->heap[l + 1], r->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		t = r->heap[i];
		r->heap[i] = r->heap[m];
		r->heap[m] = t;
		i = m;
	}
}

void bt_heap_build(struct bt_reader *r)
{
	for (unsigned i = r->nheap / 2 + 1; i-- > 0;)
		heap_down(r, i);
}

/* The merge step: the next event in time order, in its source (its PDU in the source's
 * buffer), valid until the next call. */
int bt_merge_next(struct bt_reader *r, const struct blk_event **ev, int *swapped, struct iot_err *e)
{
	struct bt_src *s;
	int ret;

	if (r->last >= 0) {
		/* advance the source whose event the caller has now finished with */
		s = &r->src[r->last];
		ret = src_fast_head(s) ? 1 : bt_src_next(s, e);
		if (ret < 0)
			return ret;
		if (ret == 0) {
			r->heap[0] = r->heap[--r->nheap];
			s->have_head = 0;
		}
		if (r->nheap > 1)
			heap_down(r, 0);
		r->last = -1;
	}
	if (!r->nheap)
		return 0;
	s = &r->src[r->heap[0]];
	*ev = &s->head;
	*swapped = s->st.swapped;
	r->last = (int)r->heap[0];
	return 1;
}

/*
 * merge_run() with three to MK_MAX files: the same merge, over k files. A file is either
 * waiting with its head decoded (as the heap left it) or read from its buffer, its next record
 * peeked; its time (t) is that of the one or the other. The earliest file (ties: the file
 * opened first) gives records while they come before every other file's time; a head goes
 * out copied, and its file is then read from its buffer. On leaving, as in merge_run().
 */
#define MK_MAX 16

static unsigned merge_k(struct bt_reader *r, struct pf_batch *b, unsigned max)
{
	struct blk_event *out = &b->ev[b->n], *ev = out, *end = &b->ev[max];
	struct run rs[MK_MAX];
	uint64_t t[MK_MAX];
	unsigned id[MK_MAX], k = r->nheap, last = 0, m, c;
	int raw[MK_MAX];

	/* slots in file order, so that ties go to the lower slot */
	for (unsigned i = 0; i < k; i++) {
		unsigned v = r->heap[i], j = i;

		for (; j > 0 && id[j - 1] > v; j--)
			id[j] = id[j - 1];
		id[j] = v;
	}
	for (unsigned i = 0; i < k; i++) {
		raw[i] = id[i] == (unsigned)r->last;
		t[i] = r->src[id[i]].head.time;
		if (raw[i]) {
			last = i;
			run_begin(&r->src[id[i]], &rs[i]);
			if (!run_peek(&r->src[id[i]], &rs[i]))
				return 0;
			t[i] = rs[i].t;
		}
	}
	for (;;) {
		uint64_t lt = UINT64_MAX;
		unsigned ls = MK_MAX;
		struct bt_src *sm;

		/* the earliest file (m) and the next earliest (time lt, slot ls) */
		m = 0;
		for (unsigned i = 1; i < k; i++)
			if (t[i] < t[m])
				m = i;
		for (unsigned i = 0; i < k; i++)
			if (i != m && t[i] < lt) {
				lt = t[i];
				ls = i;
			}
		sm = &r->src[id[m]];
		if (raw[m]) {
			do {
				if (ev == end || !run_take(sm, &rs[m], ev, b->arena, &b->used))
					goto done;
				ev++;
				last = m;
				if (!run_peek(sm, &rs[m]))
					goto done;
			} while (rs[m].t < lt || (rs[m].t == lt && m < ls));
			t[m] = rs[m].t;
			continue;
		}
		/* its head goes out, its PDU copied; a notify goes through the general path */
		if (ev == end || !head_out(b, ev, &sm->head))
			goto done;
		ev++;
		last = m;
		if (!src_fast_next(sm))
			goto done;
		raw[m] = 1;
		run_begin(sm, &rs[m]);
		if (!run_peek(sm, &rs[m]))
			goto done;
		t[m] = rs[m].t;
	}
done:
	/* the file that gave the last event has no head; the others read from their buffers take
	 * their next record (peeked) as their head */
	for (unsigned i = 0; i < k; i++) {
		struct bt_src *si = &r->src[id[i]];

		if (!raw[i])
			continue;
		if (i != last)
			run_take(si, &rs[i], &si->head, NULL, NULL);
		run_end(si, &rs[i]);
	}
	/* the heap: that file at the root, the others in order of their heads (sorted is a heap) */
	r->heap[0] = id[last];
	c = 1;
	for (unsigned i = 0; i < k; i++) {
		unsigned j;

		if (i == last)
			continue;
		for (j = c++; j > 1 && heap_less(r, id[i], r->heap[j - 1]); j--)
			r->heap[j] = r->heap[j - 1];
		r->heap[j] = id[i];
	}
	r->last = (int)id[last];
	return (unsigned)(ev - out);
}

/*
 * After bt_merge_next() handed out the head of r->last (its next record passed
 * src_fast_next()): more events, by the fast path, into b from b->n, until a record needs the
 * general path, the arena has no room for a PDU or max are written. With two files in the heap (the
 * usual per-CPU pair) this is a merge of its own. The source handed out last ("l") has no head, the
 * other ("o") has its head decoded and waiting: l's records go straight out while they come first
 * (ties: the file opened first); then o's head goes out, and from there the two files are merged
 * record by record from their buffers, without heads. On leaving, the source that gave the last
 * event has no head and the other has its next record decoded as its head (it was known to take the
 * fast path), so the heap and r->last say the same as bt_merge_next() would have, and errors
 * come at the same point of the stream. With three to MK_MAX files, merge_k(); with more,
 * one file's run up to the earliest other head.
 */
static inline __attribute__((always_inline)) unsigned
merge_run_as(struct bt_reader *r, struct pf_batch *b, unsigned max, bool filter)
{
	struct blk_event *out = &b->ev[b->n], *ev = out, *end = &b->ev[max];
	uint64_t limit = UINT64_MAX, ht;
	unsigned l, o, ia, ib;
	struct bt_src *sl, *so, *sa, *sb;
	struct run rl, ro, ra, rb;
	int last_a;

	if (r->last < 0)
		return 0;
	if (r->nheap > 2 && r->nheap <= MK_MAX)
		return merge_k(r, b, max);
	if (r->nheap != 2) {
		/* the heap's root is that source; the earliest other head is one of its children */
		for (unsigned c = 1; c <= 2 && c < r->nheap; c++)
			if (r->src[r->heap[c]].head.time < limit)
				limit = r->src[r->heap[c]].head.time;
		return src_run(&r->src[r->last], out, max - b->n, limit, b->arena, &b->used,
		               r->keep);
	}
	l = r->heap[0];
	o = r->heap[1];
	sl = &r->src[l];
	so = &r->src[o];
	ht = so->head.time;
	/* l's records before o's head */
	run_begin(sl, &rl);
	for (;;) {
		if (ev == end || !run_peek(sl, &rl))
			goto keep;
		if (!(rl.t < ht || (rl.t == ht && l < o)))
			break;
		if (filter && !run_keeps(r->keep, load_u32(rl.p + BT7_ACTION))) {
			run_skip(sl, &rl);
			continue;
		}
		if (!run_take(sl, &rl, ev, b->arena, &b->used))
			goto keep;
		ev++;
	}
	/* o's head goes out, its PDU copied; a notify goes through the general path (counted, a
	 * TIMESTAMP put in host order) */
	if (ev == end)
		goto keep;
	if (!filter || blk_is_notify(&so->head) || run_keeps(r->keep, so->head.action)) {
		if (!head_out(b, ev, &so->head))
			goto keep;
		ev++;
	}
	if (!src_fast_next(so) || (run_begin(so, &ro), !run_peek(so, &ro))) {
		/* o gave the last event; l's next record (peeked) becomes its head (o's run, if
		 * it began, moved over nothing) */
		run_take(sl, &rl, &sl->head, NULL, NULL);
		run_end(sl, &rl);
		r->heap[0] = o;
		r->heap[1] = l;
		r->last = (int)o;
		return (unsigned)(ev - out);
	}
	/* both files from their buffers: a, the file opened first, wins ties */
	if (l < o) {
		ra = rl, rb = ro, ia = l, ib = o, sa = sl, sb = so;
		last_a = 0;
	} else {
		ra = ro, rb = rl, ia = o, ib = l, sa = so, sb = sl;
		last_a = 1;
	}
	for (;;) {
		if (ra.t <= rb.t) {
			if (filter && ev != end &&
			    !run_keeps(r->keep, load_u32(ra.p + BT7_ACTION))) {
				run_skip(sa, &ra);
			} else {
				if (ev == end || !run_take(sa, &ra, ev, b->arena, &b->used))
					break;
				ev++;
			}
			last_a = 1;
			if (!run_peek(sa, &ra))
				break;
		} else {
			if (filter && ev != end &&
			    !run_keeps(r->keep, load_u32(rb.p + BT7_ACTION))) {
				run_skip(sb, &rb);
			} else {
				if (ev == end || !run_take(sb, &rb, ev, b->arena, &b->used))
					break;
				ev++;
			}
			last_a = 0;
			if (!run_peek(sb, &rb))
				break;
		}
	}
	/* the file that gave the last event has no head; the other's next record is its head */
	if (last_a)
		run_take(sb, &rb, &sb->head, NULL, NULL);
	else
		run_take(sa, &ra, &sa->head, NULL, NULL);
	run_end(sa, &ra);
	run_end(sb, &rb);
	r->heap[0] = last_a ? ia : ib;
	r->heap[1] = last_a ? ib : ia;
	r->last = (int)r->heap[0];
	return (unsigned)(ev - out);
keep:
	run_end(sl, &rl);
	return (unsigned)(ev - out);
}

/* The common case of two files from their buffers, and the same for a reader whose batches
 * leave out actions (bt_reader_keep_actions()): functions of their own, so that the test is not
 * in the first's loop */
static __attribute__((noinline)) unsigned merge_run(struct bt_reader *r, struct pf_batch *b,
                                                    unsigned max)
{
	return merge_run_as(r, b, max, false);
}

static __attribute__((noinline)) unsigned merge_run_keep(struct bt_reader *r, struct pf_batch *b,
                                                         unsigned max)
{
	return merge_run_as(r, b, max, true);
}

/*
 * Decode, merge and copy PDUs into b until it is full or the trace ends: the work of the
 * reader thread, or of bt_reader_next_batch() without one. Returns b->end.
 */
int bt_fill_batch(struct bt_reader *r, struct pf_batch *b, unsigned max)
{
	int ret = 1, swapped;

	b->n = 0;
	b->notifies = 0;
	b->used = 0;
	b->end = 0;
	while (b->n < max && PF_ARENA - b->used >= PF_PDU_MAX) {
		struct blk_event *ev = &b->ev[b->n];
		const struct blk_event *src;

		ret = bt_merge_next(r, &src, &swapped, &b->err);
		if (ret <= 0)
			break;
		*ev = *src;
		if (ev->pdu_len) {
			uint8_t *dst = b->arena + b->used;

			memcpy(dst, ev->pdu, ev->pdu_len);
			/* the TIMESTAMP words are in the record's order: make them host order */
			if (swapped && blk_is_notify(ev) && ev->action == BLK_N_TIMESTAMP &&
			    ev->pdu_len >= 8) {
				uint32_t w[2];

				timestamp_words(dst, 1, w);
				memcpy(dst, w, 8);
			}
			ev->pdu = dst;
			b->used += ev->pdu_len;
		}
		b->notifies += blk_is_notify(ev);
		b->n++;
		/* a look first: with byte-swapped or version 8 files, nothing would be done */
		if (r->last >= 0 && src_fast_next(&r->src[r->last]))
			b->n += r->keep == ~0u ? merge_run(r, b, max) : merge_run_keep(r, b, max);
	}
	if (ret <= 0)
		b->end = ret == 0 ? 1 : ret;
	return b->end;
}
