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
 * IOs completed meanwhile (tens of keys to move). The bodies stay where they are, in a slab.
 */
static int emit_first(struct cap_backend_state *s)
{
	struct pkey k = s->keys[s->head++];
	struct pend *p = &s->slab[k.slot];

	if (k.time > s->last_out)
		s->last_out = k.time;
	if (p->ev.pdu_len)
		p->ev.pdu = p->pdu;
	s->free_slots[s->nfree++] = k.slot;
	return cap_sink_event(s->sink, &p->ev, bt_comm_table_get(s->names, p->ev.pid), &s->e);
}

static int make_room(struct cap_backend_state *s)
{
	int ret;

	if (s->head && s->nkeys == s->capkeys) {
		/* the emitted front goes: keys move down */
		memmove(s->keys, s->keys + s->head, (s->nkeys - s->head) * sizeof(*s->keys));
		s->nkeys -= s->head;
		s->head = 0;
	}
	if (s->nkeys - s->head >= PEND_MAX) {
		/* bounded memory: the oldest goes out now */
		s->forced++;
		if ((ret = emit_first(s)))
			return ret;
	}
	if (s->nkeys == s->capkeys) {
		size_t cap = s->capkeys ? 2 * s->capkeys : 4096;
		struct pkey *k = realloc(s->keys, cap * sizeof(*k));

		if (!k)
			return iot_err_set(&s->e, -ENOMEM, "bpf: out of memory");
		s->keys = k;
		s->capkeys = cap;
	}
	if (!s->nfree) {
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
	}
	return 0;
}

int capbpf_push(struct cap_backend_state *s, const struct blk_event *ev)
{
	struct pend *p;
	size_t at;
	uint32_t slot;
	int ret;

	if ((ret = make_room(s)))
		return s->err = ret;
	slot = s->free_slots[--s->nfree];
	p = &s->slab[slot];
	p->ev = *ev;
	p->ev.pdu = NULL;
	if (ev->pdu_len)
		memcpy(p->pdu, ev->pdu, ev->pdu_len);
	if (ev->time < s->last_out)
		s->late++;
	if (ev->time > s->newest)
		s->newest = ev->time;
	/* after every key of the same time or earlier: ties keep their arrival order */
	for (at = s->nkeys; at > s->head && s->keys[at - 1].time > ev->time; at--)
		;
	if (at < s->nkeys)
		memmove(s->keys + at + 1, s->keys + at, (s->nkeys - at) * sizeof(*s->keys));
	s->keys[at] = (struct pkey){ev->time, slot, 0};
	s->nkeys++;
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
