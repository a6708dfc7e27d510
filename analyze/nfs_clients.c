/* SPDX-License-Identifier: MIT */
/* NFS clients: per address, per connection, per AUTH_SYS uid/gid and machine name. */
#include <stdlib.h>
#include <string.h>

#include "analyze/nfs_stats.h"

/* Entries per table: past them, transactions go to the table's "other" (counted). */
static const unsigned client_max[NFS_CLIENT_KINDS] = {
    [NFS_BY_ADDRESS] = 256,
    [NFS_BY_CONNECTION] = 512,
    [NFS_BY_UID] = 256,
    [NFS_BY_MACHINE] = 128,
};

static void client_init(struct nfs_client *c)
{
	memset(c, 0, sizeof(*c));
	nfs_sketch_init(&c->srt);
	nfs_sketch_init(&c->other.srt);
	c->other.row = UINT32_MAX;
}

void nfs_clients_init(struct nfs_stats *s)
{
	for (unsigned k = 0; k < NFS_CLIENT_KINDS; k++) {
		s->clients[k].max = client_max[k];
		client_init(&s->clients[k].other);
	}
}

void nfs_clients_release(struct nfs_stats *s)
{
	for (unsigned k = 0; k < NFS_CLIENT_KINDS; k++) {
		struct nfs_client_table *tb = &s->clients[k];

		for (unsigned i = 0; i < tb->n; i++)
			free(tb->c[i].machine);
		free(tb->c);
		free(tb->idx);
	}
}

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

/* The key of t in table k (machine borrowed from t: copied when an entry is made). */
static void key_of(enum nfs_client_kind k, const struct rpc_txn *t, struct nfs_client *key)
{
	key->proto = k == NFS_BY_CONNECTION ? t->proto : 0;
	key->client = t->client;
	key->server = t->server;
	key->uid = t->uid;
	key->gid = t->gid;
	key->machine = (char *)t->machine;
}

static uint64_t key_hash(enum nfs_client_kind k, const struct nfs_client *c)
{
	uint64_t h = 1469598103934665603ull ^ k;

	switch (k) {
	case NFS_BY_CONNECTION:
		h = net_addr_fnv(h, &c->server.addr);
		h = mix(h, &c->client.port, 2);
		h = mix(h, &c->server.port, 2);
		h = mix(h, &c->proto, 1);
		/* fall through */
	case NFS_BY_ADDRESS:
		h = mix(h, &c->client.addr.family, 1);
		h = net_addr_fnv(h, &c->client.addr);
		break;
	case NFS_BY_UID:
		h = mix(h, &c->uid, 4);
		h = mix(h, &c->gid, 4);
		break;
	default:
		h = mix(h, c->machine, strlen(c->machine));
		break;
	}
	return h ^ h >> 31;
}

static bool key_eq(enum nfs_client_kind k, const struct nfs_client *a, const struct nfs_client *b)
{
	switch (k) {
	case NFS_BY_ADDRESS:
		return net_addr_eq(&a->client.addr, &b->client.addr);
	case NFS_BY_CONNECTION:
		return a->proto == b->proto && net_endpoint_eq(&a->client, &b->client) &&
		       net_endpoint_eq(&a->server, &b->server);
	case NFS_BY_UID:
		return a->uid == b->uid && a->gid == b->gid;
	default:
		return !strcmp(a->machine, b->machine);
	}
}

static void idx_put(struct nfs_client_table *tb, enum nfs_client_kind k, unsigned j)
{
	unsigned i;

	for (i = (unsigned)key_hash(k, &tb->c[j]) & tb->mask; tb->idx[i]; i = (i + 1) & tb->mask)
		;
	tb->idx[i] = j + 1;
}

/* Room for one more entry: the array doubles, the index stays at most half full. */
static bool grow(struct nfs_client_table *tb, enum nfs_client_kind k)
{
	unsigned nc = tb->cap ? tb->cap * 2 : 8, size = 16, j;
	struct nfs_client *p;
	uint32_t *idx;

	if (nc > tb->max)
		nc = tb->max;
	p = realloc(tb->c, (size_t)nc * sizeof(*p));
	if (!p)
		return false;
	tb->c = p;
	tb->cap = nc;
	while (size < 2 * nc)
		size *= 2;
	if (tb->idx && size - 1 == tb->mask)
		return true;
	idx = calloc(size, sizeof(*idx));
	if (!idx)
		return false;
	free(tb->idx);
	tb->idx = idx;
	tb->mask = size - 1;
	for (j = 0; j < tb->n; j++)
		idx_put(tb, k, j);
	return true;
}

/* The table's entry for t, added if new; the table's "other" when it is full. */
static struct nfs_client *client_get(struct nfs_client_table *tb, enum nfs_client_kind k,
                                     const struct rpc_txn *t)
{
	struct nfs_client key;
	unsigned i;

	key_of(k, t, &key);
	if (tb->idx) {
		for (i = (unsigned)key_hash(k, &key) & tb->mask; tb->idx[i]; i = (i + 1) & tb->mask)
			if (key_eq(k, &tb->c[tb->idx[i] - 1], &key))
				return &tb->c[tb->idx[i] - 1];
	}
	if (tb->n >= tb->max || (tb->n == tb->cap && !grow(tb, k))) {
		tb->folded++;
		return &tb->other;
	}
	client_init(&tb->c[tb->n]);
	key_of(k, t, &tb->c[tb->n]);
	tb->c[tb->n].machine = NULL;
	if (k == NFS_BY_MACHINE && !(tb->c[tb->n].machine = strdup(t->machine))) {
		tb->folded++;
		return &tb->other;
	}
	idx_put(tb, k, tb->n);
	return &tb->c[tb->n++];
}

static void proc_add(struct nfs_client_proc *p, uint64_t srt, bool replied, uint32_t st,
                     uint64_t bytes)
{
	p->calls++;
	p->bytes += bytes;
	if (replied) {
		p->errors += st != 0;
		nfs_sketch_add(&p->srt, srt);
	}
}

static void client_add(struct nfs_client *c, const struct rpc_txn *t, unsigned row, uint64_t srt,
                       uint32_t st, uint64_t rd, uint64_t wr)
{
	struct nfs_client_proc *p = NULL;
	unsigned i;

	c->calls++;
	c->read_bytes += rd;
	c->write_bytes += wr;
	c->retransmits += t->retransmits;
	if (t->replied) {
		c->replies++;
		c->errors += st != 0;
		c->wait_ns += srt;
		nfs_sketch_add(&c->srt, srt);
	}
	for (i = 0; i < c->nprocs; i++)
		if (c->proc[i].row == row)
			p = &c->proc[i];
	if (!p && c->nprocs < NFS_CLIENT_PROCS && row != UINT32_MAX) {
		p = &c->proc[c->nprocs++];
		memset(p, 0, sizeof(*p));
		nfs_sketch_init(&p->srt);
		p->row = row;
	}
	proc_add(p ? p : &c->other, srt, t->replied, st, rd + wr);
}

void nfs_clients_txn(struct nfs_stats *s, const struct rpc_txn *t, unsigned row, uint64_t srt,
                     uint32_t st, uint64_t rd, uint64_t wr)
{
	for (unsigned k = 0; k < NFS_CLIENT_KINDS; k++) {
		if ((k == NFS_BY_UID && !t->has_unix) || (k == NFS_BY_MACHINE && !t->machine))
			continue;
		client_add(client_get(&s->clients[k], (enum nfs_client_kind)k, t), t, row, srt, st,
		           rd, wr);
	}
}

struct rank_ctx {
	const struct nfs_client_table *tb;
	enum nfs_rank by;
};

static uint64_t rank_key(const void *ctx, unsigned i)
{
	const struct rank_ctx *r = ctx;
	const struct nfs_client *c = &r->tb->c[i];

	return r->by == NFS_RANK_WAIT    ? c->wait_ns
	       : r->by == NFS_RANK_BYTES ? c->read_bytes + c->write_bytes
	                                 : c->calls;
}

unsigned nfs_stats_top_clients(const struct nfs_stats *s, enum nfs_client_kind k, enum nfs_rank by,
                               unsigned *idx, unsigned n)
{
	struct rank_ctx r = {&s->clients[k], by};

	return nfs_rank_top(&r, r.tb->n, rank_key, false, idx, n);
}
