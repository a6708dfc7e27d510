/* SPDX-License-Identifier: MIT */
/* The bpf backend's records wait here, sorted by time, until the hold time has passed. */
#include "capture/bpf_int.h"

#ifdef IOTAPE_HAVE_BPF

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- records waiting for time order ---------------------------------------------------- */

/*
 * Nearly every record arrives in time order, so a sorted array of small keys, inserted into
 * from its end, costs a comparison per record; the io level's Q and D records go back by the
 * IOs completed meanwhile (tens of keys to move). The bodies stay where they are, in a slab:
 * one per IO at the io level, its Q, D and C keys pointing to it (what part each is), so that
 * an IO is copied once and the records waiting take a third of the memory (and of the cache
 * misses when they go out, 100 ms later).
 */

/* part of an IO a key is (PART_EVENT: the body's event itself, the IO's completion) */
enum { PART_EVENT = CAP_IO_C, PART_QUEUE = CAP_IO_Q, PART_ISSUE = CAP_IO_D };

/* The first key's record to the sink: an IO's Q or D is its completion's with the issuing
 * task and CPU, the categories of the completion without its own, no error, as the blk
 * tracer writes them (cap_sink_io_put()); the name of a pid new to the sink from s->names
 * (cap_sink_names()). */
static int emit_first(struct cap_backend_state *s)
{
	struct pkey k = s->keys[s->head++];
	struct pend *p = &s->slab[k.slot];

	if (k.time > s->last_out)
		s->last_out = k.time;
	/* the body stays readable until the next push */
	if (!--p->left)
		s->free_slots[s->nfree++] = k.slot;
	return cap_sink_io_put(s->sink, &p->io, k.part, k.time, &s->e);
}

/* room for n more keys, when key_room() has not */
static int key_room_more(struct cap_backend_state *s, size_t n)
{
	int moved = 0, ret;

	if (s->head && s->nkeys + n > s->capkeys) {
		/* the emitted front goes: keys move down */
		memmove(s->keys, s->keys + s->head, (s->nkeys - s->head) * sizeof(*s->keys));
		s->nkeys -= s->head;
		s->head = 0;
		moved = 1;
	}
	while (s->nkeys - s->head + n > PEND_MAX) {
		/* bounded memory: the oldest goes out now */
		s->forced++;
		if ((ret = emit_first(s)))
			return ret;
	}
	/* more than half full after a move: more room (up to what PEND_MAX keys take anyway),
	 * or the keys waiting (a hold's worth) would move again after the few pushes that fill
	 * it, each time */
	if (s->nkeys + n > s->capkeys ||
	    (moved && s->nkeys + n > s->capkeys / 2 && s->capkeys < 2 * PEND_MAX)) {
		size_t cap = s->capkeys ? 2 * s->capkeys : 4096;
		struct pkey *k = realloc(s->keys, cap * sizeof(*k));

		if (!k)
			return iot_err_set(&s->e, -ENOMEM, "bpf: out of memory");
		s->keys = k;
		s->capkeys = cap;
	}
	return 0;
}

/* room for n more keys: nearly always there, with no key to force out (a call less) */
static inline int key_room(struct cap_backend_state *s, size_t n)
{
	if (s->nkeys + n <= s->capkeys && s->nkeys - s->head + n <= PEND_MAX)
		return 0;
	return key_room_more(s, n);
}

/* more bodies, all free */
static int body_more(struct cap_backend_state *s)
{
	size_t cap = s->nslab ? 2 * s->nslab : 4096;
	struct pend *sl = realloc(s->slab, cap * sizeof(*sl));
	uint32_t *fr;

	if (!sl)
		return iot_err_set(&s->e, -ENOMEM, "bpf: out of memory");
	s->slab = sl;
	fr = realloc(s->free_slots, cap * sizeof(*fr));
	if (!fr)
		return iot_err_set(&s->e, -ENOMEM, "bpf: out of memory");
	s->free_slots = fr;
	for (size_t i = s->nslab; i < cap; i++)
		s->free_slots[s->nfree++] = (uint32_t)(cap - 1 - (i - s->nslab));
	s->nslab = cap;
	return 0;
}

/* a free body */
static inline int body_room(struct cap_backend_state *s)
{
	return s->nfree ? 0 : body_more(s);
}

/* a key at time t for part of the body in slot, in time order */
static int push_key(struct cap_backend_state *s, uint64_t t, uint32_t slot, uint32_t part)
{
	size_t at;
	int ret;

	if ((ret = key_room(s, 1)))
		return ret;
	if (t < s->last_out)
		s->late++;
	if (t > s->newest)
		s->newest = t;
	/* after every key of the same time or earlier: ties keep their arrival order */
	for (at = s->nkeys; at > s->head && s->keys[at - 1].time > t; at--)
		;
	if (at < s->nkeys)
		memmove(s->keys + at + 1, s->keys + at, (s->nkeys - at) * sizeof(*s->keys));
	s->keys[at] = (struct pkey){t, slot, part};
	s->nkeys++;
	return 0;
}

/* a body for ev (encoded), with n keys to come, its Q and D (if any) of issue_pid on
 * issue_cpu */
static int new_body(struct cap_backend_state *s, const struct blk_event *ev, uint32_t n,
                    uint32_t issue_pid, uint32_t issue_cpu, uint32_t *slot)
{
	struct pend *p;
	int ret;

	if ((ret = body_room(s)))
		return ret;
	*slot = s->free_slots[--s->nfree];
	p = &s->slab[*slot];
	cap_sink_io_init(s->sink, &p->io, ev, issue_pid, issue_cpu);
	p->left = n;
	return 0;
}

/*
 * A request's Q at tq and D at td (tq <= td) in one walk back and one move of the keys after
 * them: where push_key() for Q and then D would put them (Q after the keys of tq or earlier, D
 * after those of td or earlier and Q), for half the keys moved.
 */
static int push_queue_issue(struct cap_backend_state *s, uint64_t tq, uint64_t td, uint32_t slot)
{
	size_t ad, aq;
	int ret;

	if ((ret = key_room(s, 2)))
		return ret;
	s->late += (tq < s->last_out) + (td < s->last_out);
	if (td > s->newest)
		s->newest = td;
	for (ad = s->nkeys; ad > s->head && s->keys[ad - 1].time > td; ad--)
		;
	for (aq = ad; aq > s->head && s->keys[aq - 1].time > tq; aq--)
		;
	if (ad < s->nkeys)
		memmove(s->keys + ad + 2, s->keys + ad, (s->nkeys - ad) * sizeof(*s->keys));
	if (aq < ad)
		memmove(s->keys + aq + 1, s->keys + aq, (ad - aq) * sizeof(*s->keys));
	s->keys[aq] = (struct pkey){tq, slot, PART_QUEUE};
	s->keys[ad + 1] = (struct pkey){td, slot, PART_ISSUE};
	s->nkeys += 2;
	return 0;
}

int capbpf_push(struct cap_backend_state *s, const struct blk_event *ev)
{
	uint32_t slot;
	int ret;

	if ((ret = new_body(s, ev, 1, 0, 0, &slot)) ||
	    (ret = push_key(s, ev->time, slot, PART_EVENT)))
		return s->err = ret;
	return 0;
}

int capbpf_push_io(struct cap_backend_state *s, const struct blk_event *c, uint64_t t_queue,
                   uint64_t t_issue, uint32_t issue_pid, uint32_t issue_cpu)
{
	uint32_t slot;
	int ret = 0;

	if ((ret = new_body(s, c, 1 + !!t_queue + !!t_issue, issue_pid, issue_cpu, &slot)))
		return s->err = ret;
	if (t_queue && t_issue && t_queue <= t_issue) {
		ret = push_queue_issue(s, t_queue, t_issue, slot);
	} else {
		if (t_queue)
			ret = push_key(s, t_queue, slot, PART_QUEUE);
		if (!ret && t_issue)
			ret = push_key(s, t_issue, slot, PART_ISSUE);
	}
	/* C after them: their arrival order, for ties */
	if (ret || (ret = push_key(s, c->time, slot, PART_EVENT)))
		return s->err = ret;
	return 0;
}

int capbpf_flush(struct cap_backend_state *s, int all)
{
	uint64_t mark = s->newest > s->hold ? s->newest - s->hold : 0;
	int ret;

	while (s->head < s->nkeys && (all || s->keys[s->head].time < mark))
		if ((ret = emit_first(s)))
			return ret;
	if (s->head == s->nkeys)
		s->head = s->nkeys = 0;
	return 0;
}

void capbpf_order_free(struct cap_backend_state *s)
{
	free(s->keys);
	free(s->slab);
	free(s->free_slots);
}

#else

typedef int capbpf_not_built; /* not an empty translation unit */

#endif
