/* SPDX-License-Identifier: MIT */
/* The trace-pending window: trace IOs issued whose completion (C) the trace has not shown yet,
 * and which replay IO is doing each, for the dependency rule (docs/replay.md). */
#include "replay/sched.h"

static struct pend *pend_at(struct rp *r, uint64_t i)
{
	return &r->pend[i % RP_PEND_MAX];
}

static uint32_t pend_bucket(uint32_t dev, uint64_t sector)
{
	return (uint32_t)(((sector ^ ((uint64_t)dev << 40)) * 0x9e3779b97f4a7c15ull) >> 50);
}

static inline void chain_add(struct rp *r, uint32_t idx)
{
	struct pend *p = &r->pend[idx];
	uint32_t b = pend_bucket(p->dev, p->sector);

	p->next = PEND_NIL;
	if (r->bucket_tail[b] == PEND_NIL)
		r->bucket_head[b] = idx;
	else
		r->pend[r->bucket_tail[b]].next = idx;
	r->bucket_tail[b] = idx;
}

static void chain_remove(struct rp *r, uint32_t idx)
{
	struct pend *p = &r->pend[idx];
	uint32_t b = pend_bucket(p->dev, p->sector), prev = PEND_NIL;

	for (uint32_t i = r->bucket_head[b]; i != idx; i = r->pend[i].next)
		prev = i;
	if (prev == PEND_NIL)
		r->bucket_head[b] = p->next;
	else
		r->pend[prev].next = p->next;
	if (r->bucket_tail[b] == idx)
		r->bucket_tail[b] = prev;
}

/*
 * A live entry alone in the window stays out of the chains (r->lone) until a second one comes:
 * a trace of dependent IOs never touches the buckets, whose line for a new sector is a cache
 * miss each time (the device's work in between has evicted them): 70 ns an IO on zram.
 */
static void hash_add(struct rp *r, uint32_t idx)
{
	if (!r->pend_live) {
		r->lone = idx;
		return;
	}
	if (r->lone != PEND_NIL) {
		chain_add(r, r->lone);
		r->lone = PEND_NIL;
	}
	chain_add(r, idx);
}

static void hash_remove(struct rp *r, uint32_t idx)
{
	if (r->lone == idx)
		r->lone = PEND_NIL;
	else
		chain_remove(r, idx);
}

/* the oldest live IO of the device at the sector, or NULL */
static inline struct pend *chain_find(struct rp *r, uint32_t dev, uint64_t sector)
{
	if (r->lone != PEND_NIL) {
		struct pend *p = &r->pend[r->lone];

		return p->sector == sector && p->dev == dev ? p : NULL;
	}
	for (uint32_t i = r->bucket_head[pend_bucket(dev, sector)]; i != PEND_NIL;
	     i = r->pend[i].next)
		if (r->pend[i].sector == sector && r->pend[i].dev == dev)
			return &r->pend[i];
	return NULL;
}

static void pend_trim(struct rp *r)
{
	while (r->pend_head < r->pend_tail && !pend_at(r, r->pend_head)->live)
		r->pend_head++;
	/* empty: start again at the ring's first entry, which a trace of dependent IOs then keeps
	 * in the cache instead of walking 2 MiB of it (no IO refers to a dead entry) */
	if (r->pend_head == r->pend_tail)
		r->pend_head = r->pend_tail = 0;
}

long rp_pend_add(struct rp *r, uint32_t dev, uint64_t sector, uint32_t bytes, long slot)
{
	struct pend *p;

	if (r->o->no_completions)
		return -1; /* nothing completes in the trace: nothing to wait for or count */

	if (r->pend_tail - r->pend_head == RP_PEND_MAX) {
		/* its C never came (lost events): it no longer holds anything back */
		p = pend_at(r, r->pend_head);
		if (p->live) {
			if (r->bucket_head)
				hash_remove(r, (uint32_t)(p - r->pend));
			p->live = false;
			r->pend_live--;
			r->st->pend_evicted++;
			if (p->slot >= 0)
				r->slots[p->slot].io.pend = -1;
		}
		r->pend_head++;
		pend_trim(r);
	}
	p = pend_at(r, r->pend_tail);
	p->sector = sector;
	p->dev = dev;
	p->bytes = bytes;
	p->slot = slot;
	p->live = true;
	if (r->bucket_head)
		hash_add(r, (uint32_t)(p - r->pend));
	r->pend_live++;
	if (r->pend_live > r->st->trace_max_depth)
		r->st->trace_max_depth = (unsigned)r->pend_live;
	return (long)(r->pend_tail++ % RP_PEND_MAX);
}

static void pend_complete(struct rp *r, struct pend *p)
{
	if (r->bucket_head)
		hash_remove(r, (uint32_t)(p - r->pend));
	p->live = false;
	r->pend_live--;
	if (p->slot >= 0) {
		struct rp_io *io = &r->slots[p->slot].io;

		io->trace_done = true;
		io->pend = -1;
		r->outstanding++;
	}
}

/* A C event: which trace IOs it completes. Issue mode matches the request exactly (device
 * and sector, as blkparse does); queue mode completes every queued IO inside the request's
 * range, since the block layer may have merged several into it. */
void rp_pend_on_complete(struct rp *r, const struct blk_event *ev)
{
	uint64_t end = ev->sector + ev->bytes / 512;
	bool any = false;

	if (r->bucket_head) {
		struct pend *p = chain_find(r, ev->dev, ev->sector);

		if (p) {
			pend_complete(r, p);
			any = true;
		}
	}
	for (uint64_t i = r->pend_head; !r->bucket_head && i < r->pend_tail; i++) {
		struct pend *p = pend_at(r, i);

		if (!p->live || p->dev != ev->dev)
			continue;
		if (r->o->from == RP_FROM_ISSUE || ev->bytes == 0) {
			if (p->sector != ev->sector)
				continue;
			pend_complete(r, p);
			any = true;
			break;
		}
		if (p->sector >= ev->sector && p->sector < end) {
			pend_complete(r, p);
			any = true;
		}
	}
	if (any) {
		if (ev->time > r->trace_last)
			r->trace_last = ev->time;
		pend_trim(r);
	}
}

bool rp_pend_completes(struct rp *r, long idx, const struct blk_event *ev)
{
	const struct pend *p = &r->pend[idx];

	if (!p->live || p->dev != ev->dev)
		return false;
	if (r->bucket_head) /* issue mode: the oldest live IO at the sector */
		return p->sector == ev->sector && chain_find(r, ev->dev, ev->sector) == p;
	if (ev->bytes == 0)
		return p->sector == ev->sector;
	return p->sector >= ev->sector && p->sector < ev->sector + ev->bytes / 512;
}
