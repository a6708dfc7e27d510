/* SPDX-License-Identifier: MIT */
/* Why was the disk idle: a capture's packets and NFS calls laid over each device's gaps. */
#include "analyze/idle_explain.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/manifest.h"

#define ADDR_SLOTS 2048u /* addresses counted to infer the local ones (power of two) */

/* ------------------------------------------------------------------------------------- */
/* Flows                                                                                   */

/* The family is left out (flow_is() checks it); the slots' order shows in the ties of the
 * flows listed, so the hash is kept as it was. */
static uint64_t flow_hash(uint8_t proto, const struct net_endpoint *src,
                          const struct net_endpoint *dst)
{
	uint64_t h = net_addr_fnv(net_addr_fnv(NET_FNV_BASIS, &src->addr), &dst->addr);

	h = (h ^ src->port) * NET_FNV_PRIME;
	h = (h ^ dst->port) * NET_FNV_PRIME;
	return (h ^ proto) * NET_FNV_PRIME;
}

static bool flow_is(const struct ie_flow *f, uint8_t proto, const struct net_endpoint *src,
                    const struct net_endpoint *dst)
{
	return f->proto == proto && net_endpoint_eq(&f->src, src) && net_endpoint_eq(&f->dst, dst);
}

static struct ie_flow *flow_slot(struct ie_flow *tab, unsigned cap, uint8_t proto,
                                 const struct net_endpoint *src, const struct net_endpoint *dst)
{
	unsigned i = (unsigned)flow_hash(proto, src, dst) & (cap - 1);

	while (tab[i].used && !flow_is(&tab[i], proto, src, dst))
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static int flows_grow(struct ie_flows *t)
{
	unsigned cap = t->cap ? 2 * t->cap : 16;
	struct ie_flow *n = calloc(cap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (unsigned i = 0; i < t->cap; i++) {
		const struct ie_flow *f = &t->f[i];

		if (f->used)
			*flow_slot(n, cap, f->proto, &f->src, &f->dst) = *f;
	}
	free(t->f);
	t->f = n;
	t->cap = cap;
	return 0;
}

int ie_flows_add(struct ie_flows *t, const struct pkt *p)
{
	struct ie_flow *f;

	/* at most half full; past IE_FLOW_CAP flows, new ones are counted without a direction */
	if (2 * (t->n + 1) > t->cap && (t->n >= IE_FLOW_CAP || flows_grow(t))) {
		f = t->cap ? flow_slot(t->f, t->cap, p->proto, &p->src, &p->dst) : NULL;
		if (!f || !f->used) {
			t->over_packets++;
			t->over_bytes += p->len;
			return 0;
		}
	} else {
		f = flow_slot(t->f, t->cap, p->proto, &p->src, &p->dst);
	}
	if (!f->used) {
		f->used = 1;
		f->proto = p->proto;
		f->src = p->src;
		f->dst = p->dst;
		t->n++;
	}
	f->packets++;
	f->bytes += p->len;
	return 0;
}

/* ------------------------------------------------------------------------------------- */
/* Local addresses: the manifest's, else the address in the most packets                  */

static void add_local(struct ie_host *hs, const struct net_addr *a)
{
	if (hs->nlocal < IE_MAX_ADDRS && !ie_is_local(hs, a))
		hs->local[hs->nlocal++] = *a;
}

static void manifest_addresses(struct ie_host *hs)
{
	const json_t *list =
	    hs->clk.m ? json_object_get(json_object_get(hs->clk.m->root, "network"), "addresses")
	              : NULL;
	const json_t *v;
	size_t i;

	json_array_foreach(list, i, v)
	{
		struct net_addr a;

		if (!net_addr_parse(json_string_value(v), &a))
			add_local(hs, &a);
	}
}

static void count_addr(struct idle_explain *x, const struct net_addr *a)
{
	unsigned i;

	if (!x->addrs && !(x->addrs = calloc(ADDR_SLOTS, sizeof(*x->addrs))))
		return;
	for (i = (unsigned)net_addr_hash(a) & (ADDR_SLOTS - 1);; i = (i + 1) & (ADDR_SLOTS - 1)) {
		struct ie_addr_count *c = &x->addrs[i];

		if (c->n && net_addr_eq(&c->a, a)) {
			c->n++;
			return;
		}
		if (!c->n) {
			if (2 * x->naddrs >= ADDR_SLOTS)
				return; /* full: the local address is among the first ones anyway */
			c->a = *a;
			c->n = 1;
			x->naddrs++;
			return;
		}
	}
}

/* Per family, the address in the most packets, when it is in at least half of them: on a
 * host's own capture, its address is in every packet it sent or received. */
static void infer_local(struct idle_explain *x, struct ie_host *hs)
{
	for (int fam = 0; fam < 2 && x->addrs; fam++) {
		const struct ie_addr_count *best = NULL;

		for (unsigned i = 0; i < ADDR_SLOTS; i++) {
			const struct ie_addr_count *c = &x->addrs[i];

			if (c->n && c->a.family == (fam ? 6 : 4) && (!best || c->n > best->n))
				best = c;
		}
		if (best && 2 * best->n >= x->addr_packets[fam]) {
			add_local(hs, &best->a);
			hs->local_inferred = true;
		}
	}
}

/* ------------------------------------------------------------------------------------- */
/* Laying a capture over the gaps                                                          */

void idle_explain_capture_begin(struct idle_explain *x, unsigned h)
{
	struct ie_host *hs = &x->host[h];

	x->cap = (int)h;
	x->cap_mapped = x->nhosts && (x->host[0].clk.m || x->host[0].clk.have_wall);
	x->now = 0;
	x->outstanding = 0;
	free(x->addrs);
	x->addrs = NULL;
	x->naddrs = 0;
	x->addr_packets[0] = x->addr_packets[1] = 0;
	hs->have_capture = true;
	hs->cap_mapped = x->cap_mapped;
	hs->nlocal = 0;
	hs->local_inferred = false;
	manifest_addresses(hs);
	for (unsigned k = 0; k < x->ndevs; k++) {
		struct ie_dev *d = x->devs[k];

		d->cur_all = d->cur_top = d->ncur_all = d->ncur_top = 0;
		if (!d->net_tot) {
			d->net_tot = calloc(x->nhosts, sizeof(*d->net_tot));
			d->nfs_tot = calloc(x->nhosts, sizeof(*d->nfs_tot));
		}
		for (unsigned i = 0; i < d->ntop; i++) {
			struct ie_gap *g = d->timed[i];

			if (!g->net) {
				g->net = calloc(x->nhosts, sizeof(*g->net));
				g->nfs = calloc(x->nhosts, sizeof(*g->nfs));
			}
		}
	}
}

bool idle_explain_capture_mapped(const struct idle_explain *x)
{
	return x->cap >= 0 && x->cap_mapped;
}

/* The gap of the list holding common time c, moving cursor *k forward; -1 when none. */
static long span_at(const struct ie_span *a, size_t n, size_t *k, uint64_t c)
{
	while (*k < n && a[*k].ce <= c)
		++*k;
	return *k < n && a[*k].cs <= c ? (long)*k : -1;
}

static long top_at(struct ie_gap *const *a, size_t n, size_t *k, uint64_t c)
{
	while (*k < n && a[*k]->ce <= c)
		++*k;
	return *k < n && a[*k]->cs <= c ? (long)*k : -1;
}

/* A frame during a gap (or the gaps): a packet and its flow, or a frame of another kind. */
static void net_add(struct ie_net *n, const struct pkt *p)
{
	if (!p) {
		n->frames_other++;
		return;
	}
	n->packets++;
	n->bytes += p->len;
	ie_flows_add(&n->flows, p);
}

void idle_explain_frame(void *arg, const struct pkt *p, uint64_t ts_ns)
{
	struct idle_explain *x = arg;
	struct ie_host *hs;
	unsigned h;
	uint64_t c;

	if (x->cap < 0 || !x->cap_mapped || !ie_real_to_common(x, (int64_t)ts_ns, &c))
		return;
	h = (unsigned)x->cap;
	hs = &x->host[h];
	if (!hs->cap_packets++)
		hs->cap_first = c;
	hs->cap_last = c;
	if (p)
		hs->cap_bytes += p->len;
	if (p && !hs->nlocal) {
		/* no addresses from the manifest: counted, to infer the host's at the end */
		x->addr_packets[p->src.addr.family == 6]++;
		count_addr(x, &p->src.addr);
		if (!net_addr_eq(&p->src.addr, &p->dst.addr))
			count_addr(x, &p->dst.addr);
	}
	for (unsigned k = 0; k < x->ndevs; k++) {
		struct ie_dev *d = x->devs[k];
		long i;

		if (d->net_tot && span_at(d->all, d->nall, &d->cur_all, c) >= 0)
			net_add(&d->net_tot[h], p);
		i = top_at(d->timed, d->ntop, &d->cur_top, c);
		if (i >= 0 && d->timed[i]->net)
			net_add(&d->timed[i]->net[h], p);
	}
}

/* The part of [from, to) inside [cs, ce). */
static uint64_t overlap(uint64_t from, uint64_t to, uint64_t cs, uint64_t ce)
{
	uint64_t a = from > cs ? from : cs, b = to < ce ? to : ce;

	return b > a ? b - a : 0;
}

static void nfs_add(struct ie_nfs *n, unsigned count, uint64_t ov)
{
	if (!ov)
		return;
	n->area += (double)count * (double)ov;
	n->busy_ns += ov;
	if (count > n->max)
		n->max = count;
}

/* The NFS sweep reaches common time c: [now, c) had x->outstanding calls. */
static void advance(struct idle_explain *x, uint64_t c)
{
	unsigned h = (unsigned)x->cap;

	if (c <= x->now)
		return;
	for (unsigned k = 0; x->outstanding && k < x->ndevs; k++) {
		struct ie_dev *d = x->devs[k];
		size_t i;

		if (!d->nfs_tot)
			continue;
		span_at(d->all, d->nall, &d->ncur_all, x->now);
		for (i = d->ncur_all; i < d->nall && d->all[i].cs < c; i++)
			nfs_add(&d->nfs_tot[h], x->outstanding,
			        overlap(x->now, c, d->all[i].cs, d->all[i].ce));
		top_at(d->timed, d->ntop, &d->ncur_top, x->now);
		for (i = d->ncur_top; i < d->ntop && d->timed[i]->cs < c; i++)
			if (d->timed[i]->nfs)
				nfs_add(&d->timed[i]->nfs[h], x->outstanding,
				        overlap(x->now, c, d->timed[i]->cs, d->timed[i]->ce));
	}
	x->now = c;
}

void idle_explain_call(void *arg, const struct rpc_txn *t)
{
	struct idle_explain *x = arg;
	unsigned h = (unsigned)x->cap;
	uint64_t c;

	if (x->cap < 0 || !x->cap_mapped || t->kind != RPC_KIND_NFS ||
	    !ie_real_to_common(x, (int64_t)t->call_ns, &c))
		return;
	advance(x, c);
	x->outstanding++;
	for (unsigned k = 0; k < x->ndevs; k++) {
		struct ie_dev *d = x->devs[k];
		long i;

		if (d->nfs_tot && span_at(d->all, d->nall, &d->ncur_all, x->now) >= 0) {
			d->nfs_tot[h].arrivals++;
			if (x->outstanding > d->nfs_tot[h].max)
				d->nfs_tot[h].max = x->outstanding;
		}
		i = top_at(d->timed, d->ntop, &d->ncur_top, x->now);
		if (i >= 0 && d->timed[i]->nfs) {
			struct ie_nfs *n = &d->timed[i]->nfs[h];

			n->arrivals++;
			if (x->outstanding > n->max)
				n->max = x->outstanding;
		}
	}
}

void idle_explain_txn(void *arg, const struct rpc_txn *t)
{
	struct idle_explain *x = arg;
	uint64_t c;

	if (x->cap < 0 || !x->cap_mapped || t->kind != RPC_KIND_NFS)
		return;
	/* unanswered: outstanding until now (the end of the capture, or its eviction) */
	if (t->replied && ie_real_to_common(x, (int64_t)t->reply_ns, &c))
		advance(x, c);
	else if (!t->replied)
		advance(x, x->host[x->cap].cap_last);
	if (x->outstanding)
		x->outstanding--;
}

void idle_explain_capture_end(struct idle_explain *x)
{
	struct ie_host *hs;

	if (x->cap < 0)
		return;
	hs = &x->host[x->cap];
	if (!hs->nlocal)
		infer_local(x, hs);
	free(x->addrs);
	x->addrs = NULL;
	x->cap = -1;
	for (unsigned k = 0; k < x->ndevs; k++)
		ie_causes(x, x->devs[k]);
}
