/* SPDX-License-Identifier: MIT */
/* Latency sink: bios tracked from queue to completion through merges, in bounded memory. */
#include "analyze/blk_latency.h"

#include <stdlib.h>
#include <string.h>

/*
 * The matching rules are btt's (blktrace 1.2, btt/trace_*.c and dip_rb.c), so that the means
 * agree even on odd traces:
 *  - a Q with data starts tracking a bio [sector, sector + bytes/512) on its device; Q2Q is
 *    the time since the previous Q of the device. A bio already tracked at that start sector
 *    takes the new one's place and is forgotten (it never completes);
 *  - G, I and M (back or front merge) find the tracked bio holding their sector and stamp it
 *    (Q2G, G2I when G was seen, Q2M);
 *  - a D closes the queue phase of every tracked bio inside its range: I2D if the bio was
 *    inserted, else M2D if it was merged; the bio remembers the issue time (a re-issue after a
 *    requeue stamps it again, as btt does);
 *  - a C ends every tracked bio inside its range: Q2C, and D2C and Q2D when it was issued;
 *  - intervals are btt's: a zero or negative difference counts as 1 ns. Passthrough (PC)
 *    records and records without data are not matched.
 *
 * btt keeps a device's bios in a red-black tree ordered by start sector, and when bios in
 * flight overlap (two processes reading the same blocks, say) which one a lookup finds, and
 * which ones a range visit reaches, depends on the tree's shape: the walk for a sector stops
 * at the first node on its path that holds it, and the range visit does not descend where the
 * node it stands on says nothing further can fit. To give btt's numbers there too, the bios
 * live in the same kind of tree, built by the same insert and erase rebalancing (the classic
 * red-black algorithm of the Linux kernel's rbtree, which btt uses), and are looked up and
 * visited the same way. With n bios in flight on a device, a lookup costs O(log n).
 *
 * Requests (one D, one C) are tracked too, by start sector in a hash, for the per-request
 * D2C.
 *
 * Memory: one pool of max_inflight nodes per table. When it is full the oldest node is
 * dropped and counted (a bio whose completion was lost must not pin memory forever).
 */

#define NIL UINT32_MAX
#define NONE UINT64_MAX

const char *const blk_lat_names[BLK_LAT_N] = {
    [BLK_LAT_Q2D] = "q2d", [BLK_LAT_D2C] = "d2c",
    [BLK_LAT_Q2C] = "q2c", [BLK_LAT_Q2G] = "q2g",
    [BLK_LAT_G2I] = "g2i", [BLK_LAT_Q2M] = "q2m",
    [BLK_LAT_I2D] = "i2d", [BLK_LAT_M2D] = "m2d",
    [BLK_LAT_Q2Q] = "q2q", [BLK_LAT_D2C_REQ] = "d2c_request",
};

struct lnode {
	uint64_t start, end;    /* sectors */
	uint64_t q, g, i, m, d; /* times, NONE when not seen */
	uint32_t dev;
	uint32_t older, newer;        /* age list */
	uint32_t hnext;               /* request hash chain; free list */
	uint32_t left, right, parent; /* bio tree */
	uint8_t red;
};

/* A pool of nodes with an age list (oldest first), and for requests a hash on the start. */
struct lpool {
	struct lnode *n;
	uint32_t cap, used, free;
	uint32_t oldest, newest;
	uint32_t *bucket; /* requests only */
	uint32_t mask;
};

struct blk_latency {
	struct lpool bio, rq;
	struct blk_latency_dev **dev;
	unsigned ndev;
	uint32_t *found; /* scratch: the bios a range visit collected */
	uint32_t nfound, capfound;
	int finished;
};

/* ------------------------------------------------------------------------------------- */
/* node pools                                                                            */

static int pool_init(struct lpool *p, uint32_t cap, int hashed)
{
	p->n = malloc((size_t)cap * sizeof(*p->n));
	if (!p->n)
		return -1;
	p->cap = cap;
	p->used = 0;
	for (uint32_t i = 0; i < cap; i++)
		p->n[i].hnext = i + 1 < cap ? i + 1 : NIL;
	p->free = 0;
	p->oldest = p->newest = NIL;
	if (hashed) {
		uint32_t nb = 64;

		/* a quarter of the pool: chains stay short when full, the buckets in cache */
		while (nb < cap / 4)
			nb <<= 1;
		p->bucket = malloc((size_t)nb * sizeof(*p->bucket));
		if (!p->bucket)
			return -1;
		memset(p->bucket, 0xff, (size_t)nb * sizeof(*p->bucket));
		p->mask = nb - 1;
	}
	return 0;
}

static void pool_release(struct lpool *p)
{
	free(p->n);
	free(p->bucket);
}

/* A node off the free list, newest in age; the caller made sure one is free. */
static uint32_t pool_get(struct lpool *p, uint32_t dev, uint64_t start, uint64_t end)
{
	uint32_t i = p->free;
	struct lnode *x = &p->n[i];

	p->free = x->hnext;
	p->used++;
	x->start = start;
	x->end = end;
	x->q = x->g = x->i = x->m = x->d = NONE;
	x->dev = dev;
	x->left = x->right = x->parent = NIL;
	x->red = 0;
	x->older = p->newest;
	x->newer = NIL;
	if (p->newest != NIL)
		p->n[p->newest].newer = i;
	else
		p->oldest = i;
	p->newest = i;
	return i;
}

/* Back to the free list (the caller unlinked it from its tree or hash). */
static void pool_put(struct lpool *p, uint32_t i)
{
	struct lnode *x = &p->n[i];

	if (x->older != NIL)
		p->n[x->older].newer = x->newer;
	else
		p->oldest = x->newer;
	if (x->newer != NIL)
		p->n[x->newer].older = x->older;
	else
		p->newest = x->older;
	x->hnext = p->free;
	p->free = i;
	p->used--;
}

/* Neighbouring sectors of a device get neighbouring buckets: sequential IO stays in cache. */
static inline uint32_t rq_hash(const struct lpool *p, uint32_t dev, uint64_t start)
{
	return ((uint32_t)start ^ (uint32_t)(start >> 32) ^ (dev * 0x9e3779b1u)) & p->mask;
}

static uint32_t rq_find(const struct lpool *p, uint32_t dev, uint64_t start)
{
	uint32_t i = p->bucket[rq_hash(p, dev, start)];

	while (i != NIL && (p->n[i].start != start || p->n[i].dev != dev))
		i = p->n[i].hnext;
	return i;
}

static void rq_remove(struct lpool *p, uint32_t i)
{
	uint32_t *pp = &p->bucket[rq_hash(p, p->n[i].dev, p->n[i].start)];

	while (*pp != i)
		pp = &p->n[*pp].hnext;
	*pp = p->n[i].hnext;
	pool_put(p, i);
}

static uint32_t rq_insert(struct lpool *p, uint32_t dev, uint64_t start)
{
	uint32_t i, h;

	if (p->free == NIL)
		rq_remove(p, p->oldest);
	i = pool_get(p, dev, start, start);
	h = rq_hash(p, dev, start);
	p->n[i].hnext = p->bucket[h];
	p->bucket[h] = i;
	return i;
}

/* ------------------------------------------------------------------------------------- */
/* the bio tree of a device: a red-black tree on the start sector, shaped as btt's        */

#define N(i) (b->n[i])

static void set_child(struct lpool *b, uint32_t *root, uint32_t parent, uint32_t old, uint32_t new)
{
	if (parent == NIL)
		*root = new;
	else if (N(parent).left == old)
		N(parent).left = new;
	else
		N(parent).right = new;
}

static void rotate_left(struct lpool *b, uint32_t *root, uint32_t x)
{
	uint32_t y = N(x).right;

	N(x).right = N(y).left;
	if (N(y).left != NIL)
		N(N(y).left).parent = x;
	N(y).left = x;
	N(y).parent = N(x).parent;
	set_child(b, root, N(x).parent, x, y);
	N(x).parent = y;
}

static void rotate_right(struct lpool *b, uint32_t *root, uint32_t x)
{
	uint32_t y = N(x).left;

	N(x).left = N(y).right;
	if (N(y).right != NIL)
		N(N(y).right).parent = x;
	N(y).right = x;
	N(y).parent = N(x).parent;
	set_child(b, root, N(x).parent, x, y);
	N(x).parent = y;
}

static inline int is_red(const struct lpool *b, uint32_t i)
{
	return i != NIL && b->n[i].red;
}

/* Rebalance after linking the red leaf x. */
static void tree_insert_color(struct lpool *b, uint32_t *root, uint32_t x)
{
	uint32_t p, g, u;

	while ((p = N(x).parent) != NIL && N(p).red) {
		g = N(p).parent;
		if (p == N(g).left) {
			u = N(g).right;
			if (is_red(b, u)) {
				N(u).red = 0;
				N(p).red = 0;
				N(g).red = 1;
				x = g;
				continue;
			}
			if (N(p).right == x) {
				rotate_left(b, root, p);
				u = p; /* the old parent is now below x */
				p = x;
				x = u;
			}
			N(p).red = 0;
			N(g).red = 1;
			rotate_right(b, root, g);
		} else {
			u = N(g).left;
			if (is_red(b, u)) {
				N(u).red = 0;
				N(p).red = 0;
				N(g).red = 1;
				x = g;
				continue;
			}
			if (N(p).left == x) {
				rotate_right(b, root, p);
				u = p;
				p = x;
				x = u;
			}
			N(p).red = 0;
			N(g).red = 1;
			rotate_left(b, root, g);
		}
	}
	N(*root).red = 0;
}

/* Rebalance after removing a black node: x (maybe NIL) took its place under parent p. */
static void tree_erase_color(struct lpool *b, uint32_t *root, uint32_t x, uint32_t p)
{
	uint32_t o;

	while (!is_red(b, x) && x != *root) {
		if (N(p).left == x) {
			o = N(p).right;
			if (N(o).red) {
				N(o).red = 0;
				N(p).red = 1;
				rotate_left(b, root, p);
				o = N(p).right;
			}
			if (!is_red(b, N(o).left) && !is_red(b, N(o).right)) {
				N(o).red = 1;
				x = p;
				p = N(x).parent;
				continue;
			}
			if (!is_red(b, N(o).right)) {
				N(N(o).left).red = 0;
				N(o).red = 1;
				rotate_right(b, root, o);
				o = N(p).right;
			}
			N(o).red = N(p).red;
			N(p).red = 0;
			if (N(o).right != NIL)
				N(N(o).right).red = 0;
			rotate_left(b, root, p);
			x = *root;
			break;
		}
		o = N(p).left;
		if (N(o).red) {
			N(o).red = 0;
			N(p).red = 1;
			rotate_right(b, root, p);
			o = N(p).left;
		}
		if (!is_red(b, N(o).left) && !is_red(b, N(o).right)) {
			N(o).red = 1;
			x = p;
			p = N(x).parent;
			continue;
		}
		if (!is_red(b, N(o).left)) {
			N(N(o).right).red = 0;
			N(o).red = 1;
			rotate_left(b, root, o);
			o = N(p).left;
		}
		N(o).red = N(p).red;
		N(p).red = 0;
		if (N(o).left != NIL)
			N(N(o).left).red = 0;
		rotate_right(b, root, p);
		x = *root;
		break;
	}
	if (x != NIL)
		N(x).red = 0;
}

/* Unlink z; a node with two children is replaced by its successor (the leftmost node of its
 * right subtree), which takes z's place and colour. */
static void tree_erase(struct lpool *b, uint32_t *root, uint32_t z)
{
	uint32_t child, parent;
	int red;

	if (N(z).left == NIL || N(z).right == NIL) {
		child = N(z).left != NIL ? N(z).left : N(z).right;
		parent = N(z).parent;
		red = N(z).red;
		if (child != NIL)
			N(child).parent = parent;
		set_child(b, root, parent, z, child);
	} else {
		uint32_t y = N(z).right;

		while (N(y).left != NIL)
			y = N(y).left;
		child = N(y).right;
		parent = N(y).parent;
		red = N(y).red;
		if (child != NIL)
			N(child).parent = parent;
		set_child(b, root, parent, y, child);
		if (parent == z)
			parent = y;
		N(y).parent = N(z).parent;
		N(y).red = N(z).red;
		N(y).left = N(z).left;
		N(y).right = N(z).right;
		set_child(b, root, N(z).parent, z, y);
		N(N(z).left).parent = y;
		if (N(z).right != NIL)
			N(N(z).right).parent = y;
	}
	if (!red)
		tree_erase_color(b, root, child, parent);
}

/* Link x by its start; a node with the same start is replaced in place by x and returned
 * (btt's tree keeps one bio per start sector: the newest). */
static uint32_t tree_insert(struct lpool *b, uint32_t *root, uint32_t x)
{
	uint32_t *link = root, parent = NIL;
	uint64_t s = N(x).start;

	while (*link != NIL) {
		parent = *link;
		if (s < N(parent).start) {
			link = &N(parent).left;
		} else if (s > N(parent).start) {
			link = &N(parent).right;
		} else {
			uint32_t old = parent;

			N(x).left = N(old).left;
			N(x).right = N(old).right;
			N(x).parent = N(old).parent;
			N(x).red = N(old).red;
			if (N(x).left != NIL)
				N(N(x).left).parent = x;
			if (N(x).right != NIL)
				N(N(x).right).parent = x;
			set_child(b, root, N(old).parent, old, x);
			return old;
		}
	}
	N(x).parent = parent;
	N(x).left = N(x).right = NIL;
	N(x).red = 1;
	*link = x;
	tree_insert_color(b, root, x);
	return NIL;
}

/* The walk for a sector: the first node on the path from the root that holds it. */
static uint32_t tree_find(const struct lpool *b, uint32_t root, uint64_t sector)
{
	uint32_t i = root;

	while (i != NIL) {
		if (sector < N(i).start)
			i = N(i).left;
		else if (sector >= N(i).end)
			i = N(i).right;
		else
			return i;
	}
	return NIL;
}

#undef N

/* ------------------------------------------------------------------------------------- */

struct blk_latency *blk_latency_new(const struct blk_opts *o)
{
	struct blk_latency *l = blk_zalloc(sizeof(*l));
	uint32_t cap = o && o->max_inflight ? o->max_inflight : BLK_DEFAULT_MAX_INFLIGHT;

	if (!l)
		return NULL;
	l->capfound = 64;
	l->found = malloc(l->capfound * sizeof(*l->found));
	if (!l->found || pool_init(&l->bio, cap, 0) || pool_init(&l->rq, cap, 1)) {
		blk_latency_free(l);
		return NULL;
	}
	return l;
}

void blk_latency_free(struct blk_latency *l)
{
	if (!l)
		return;
	pool_release(&l->bio);
	pool_release(&l->rq);
	for (unsigned i = 0; i < l->ndev; i++)
		free(l->dev[i]);
	free(l->dev);
	free(l->found);
	free(l);
}

/* A device's state on its first event: off the hot path. */
static __attribute__((noinline, cold)) struct blk_latency_dev *new_dev(struct blk_latency *l,
                                                                    unsigned dev)
{
	struct blk_latency_dev *d;

	if (blk_grow((void ***)&l->dev, &l->ndev, dev))
		return NULL;
	d = blk_zalloc(sizeof(*d));
	if (!d)
		return NULL;
	memset(d, 0, sizeof(*d));
	for (unsigned k = 0; k < BLK_LAT_N; k++)
		hist_init(&d->h[k]);
	d->last_q = NONE;
	d->root = NIL;
	l->dev[dev] = d;
	return d;
}

static inline struct blk_latency_dev *get_dev(struct blk_latency *l, unsigned dev)
{
	return dev < l->ndev && l->dev[dev] ? l->dev[dev] : new_dev(l, dev);
}

/*
 * hist_add() without its long double: the sum is kept in a u64 beside the histogram and
 * folded into it at the end (or when it would overflow). Two thirds of hist_add()'s time on
 * a 6 M-record trace was the x87 conversion and add.
 */
static inline void lat_add(struct blk_latency_dev *d, enum blk_lat k, uint64_t v)
{
	struct hist *h = &d->h[k];

	h->b[hist_bucket(v)]++; /* the count is the buckets' sum, taken in lat_fold() */
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	if (__builtin_add_overflow(d->sum[k], v, &d->sum[k])) {
		h->sum += (long double)d->sum[k] + 18446744073709551616.0L;
		d->sum[k] = 0;
	}
}

static void lat_fold(struct blk_latency_dev *d)
{
	for (unsigned k = 0; k < BLK_LAT_N; k++) {
		uint64_t n = 0;

		for (unsigned b = 0; b < HIST_BUCKETS; b++)
			n += d->h[k].b[b];
		d->h[k].count = n;
		d->h[k].sum += (long double)d->sum[k];
		d->sum[k] = 0;
	}
}

/* Drop bio i: out of its device's tree, back to the pool. */
static void bio_drop(struct blk_latency *l, uint32_t i)
{
	struct blk_latency_dev *d = l->dev[l->bio.n[i].dev];

	tree_erase(&l->bio, &d->root, i);
	pool_put(&l->bio, i);
}

/*
 * Collect the bios of d inside [s, e) in btt's order (rb_foreach: the node, then its left
 * subtree if the range starts before the node, then its right subtree if the node ends before
 * the range does). Iterative, with the pending right subtrees on a small stack.
 */
static int collect(struct blk_latency *l, const struct blk_latency_dev *d, uint64_t s, uint64_t e)
{
	const struct lpool *b = &l->bio;
	uint32_t stack[128]; /* the tree is at most 2 log2(cap) deep */
	unsigned sp = 0;
	uint32_t i = d->root;

	l->nfound = 0;
	while (i != NIL || sp) {
		const struct lnode *x;

		if (i == NIL)
			i = stack[--sp];
		x = &b->n[i];
		if (s <= x->start && x->end <= e) {
			if (l->nfound == l->capfound) {
				uint32_t *p = realloc(l->found, 2 * l->capfound * sizeof(*p));

				if (!p)
					return -1;
				l->found = p;
				l->capfound *= 2;
			}
			l->found[l->nfound++] = i;
		}
		if (x->end < e && x->right != NIL && sp < sizeof(stack) / sizeof(stack[0]))
			stack[sp++] = x->right;
		i = s < x->start ? x->left : NIL;
	}
	return 0;
}

void blk_latency_feed(struct blk_latency *l, unsigned dev, const struct blk_event *ev)
{
	struct blk_latency_dev *d;
	uint64_t s = ev->sector, e = ev->sector + (ev->bytes >> 9), t = ev->time;
	struct lnode *x;
	uint32_t i;

	/* the actions matched (Q G M F I D C), data only, no passthrough or notify */
	if (ev->action >= 16 ||
	    !((1u << BLK_A_QUEUE | 1u << BLK_A_GETRQ | 1u << BLK_A_BACKMERGE |
	       1u << BLK_A_FRONTMERGE | 1u << BLK_A_INSERT | 1u << BLK_A_ISSUE |
	       1u << BLK_A_COMPLETE) >> ev->action & 1) ||
	    (ev->flags & (BLK_F_PC | BLK_F_NOTIFY)) || !(ev->bytes >> 9))
		return;
	d = get_dev(l, dev);
	if (!d)
		return;
	switch (ev->action) {
	case BLK_A_QUEUE:
		if (l->bio.free == NIL) {
			l->dev[l->bio.n[l->bio.oldest].dev]->evicted++;
			bio_drop(l, l->bio.oldest);
		}
		i = pool_get(&l->bio, dev, s, e);
		l->bio.n[i].q = t;
		{
			uint32_t old = tree_insert(&l->bio, &d->root, i);

			if (old != NIL) {
				d->duplicates++;
				pool_put(&l->bio, old);
			}
		}
		if (d->last_q != NONE)
			lat_add(d, BLK_LAT_Q2Q, blk_tdelta(d->last_q, t));
		d->last_q = t;
		break;
	case BLK_A_GETRQ:
		i = tree_find(&l->bio, d->root, s);
		if (i != NIL) {
			l->bio.n[i].g = t;
			lat_add(d, BLK_LAT_Q2G, blk_tdelta(l->bio.n[i].q, t));
		}
		break;
	case BLK_A_INSERT:
		i = tree_find(&l->bio, d->root, s);
		if (i != NIL) {
			x = &l->bio.n[i];
			x->i = t;
			if (x->g != NONE)
				lat_add(d, BLK_LAT_G2I, blk_tdelta(x->g, t));
		}
		break;
	case BLK_A_BACKMERGE:
	case BLK_A_FRONTMERGE:
		i = tree_find(&l->bio, d->root, s);
		if (i != NIL) {
			l->bio.n[i].m = t;
			lat_add(d, BLK_LAT_Q2M, blk_tdelta(l->bio.n[i].q, t));
		}
		break;
	case BLK_A_ISSUE:
		if (d->root != NIL && !collect(l, d, s, e)) {
			for (uint32_t k = 0; k < l->nfound; k++) {
				x = &l->bio.n[l->found[k]];
				if (x->i != NONE)
					lat_add(d, BLK_LAT_I2D, blk_tdelta(x->i, t));
				else if (x->m != NONE)
					lat_add(d, BLK_LAT_M2D, blk_tdelta(x->m, t));
				x->d = t;
			}
		}
		i = rq_find(&l->rq, dev, s);
		if (i == NIL)
			i = rq_insert(&l->rq, dev, s);
		l->rq.n[i].d = t;
		break;
	case BLK_A_COMPLETE:
		l->nfound = 0;
		if (d->root != NIL && !collect(l, d, s, e)) {
			for (uint32_t k = 0; k < l->nfound; k++) {
				x = &l->bio.n[l->found[k]];
				lat_add(d, BLK_LAT_Q2C, blk_tdelta(x->q, t));
				if (x->d != NONE) {
					lat_add(d, BLK_LAT_D2C, blk_tdelta(x->d, t));
					lat_add(d, BLK_LAT_Q2D, blk_tdelta(x->q, x->d));
				}
			}
			/* in the order found, as btt releases them: the tree's shape follows */
			for (uint32_t k = 0; k < l->nfound; k++)
				bio_drop(l, l->found[k]);
		}
		if (!l->nfound)
			d->unmatched_c++;
		i = rq_find(&l->rq, dev, s);
		if (i != NIL) {
			lat_add(d, BLK_LAT_D2C_REQ, blk_tdelta(l->rq.n[i].d, t));
			rq_remove(&l->rq, i);
		}
		break;
	}
}

void blk_latency_finish(struct blk_latency *l)
{
	if (l->finished)
		return;
	l->finished = 1;
	for (unsigned i = 0; i < l->ndev; i++)
		if (l->dev[i])
			lat_fold(l->dev[i]);
	for (uint32_t i = l->bio.oldest; i != NIL; i = l->bio.n[i].newer)
		l->dev[l->bio.n[i].dev]->outstanding++;
	for (uint32_t i = l->rq.oldest; i != NIL; i = l->rq.n[i].newer) {
		uint32_t dv = l->rq.n[i].dev;

		if (dv < l->ndev && l->dev[dv])
			l->dev[dv]->outstanding_rq++;
	}
}

const struct blk_latency_dev *blk_latency_dev(const struct blk_latency *l, unsigned dev)
{
	return dev < l->ndev ? l->dev[dev] : NULL;
}

unsigned blk_latency_tracked(const struct blk_latency *l)
{
	return l->bio.used;
}

int blk_latency_to_json(const struct blk_latency *l, unsigned dev, json_t *obj)
{
	const struct blk_latency_dev *d = blk_latency_dev(l, dev);
	json_t *lat = json_object();
	struct hist empty;

	hist_init(&empty);
	for (unsigned k = 0; k < BLK_LAT_N; k++)
		json_object_set_new(lat, blk_lat_names[k], blk_hist_json(d ? &d->h[k] : &empty, 0));
	json_object_set_new(obj, "latency_ns", lat);
	json_object_set_new(obj, "matching",
	                    json_pack("{sIsIsIsIsI}", "duplicates",
	                              (json_int_t)(d ? d->duplicates : 0), "unmatched_completions",
	                              (json_int_t)(d ? d->unmatched_c : 0), "outstanding_bios",
	                              (json_int_t)(d ? d->outstanding : 0), "outstanding_requests",
	                              (json_int_t)(d ? d->outstanding_rq : 0), "evicted",
	                              (json_int_t)(d ? d->evicted : 0)));
	return 0;
}

/* ------------------------------------------------------------------------------------- */

static void *ops_create(const struct blk_opts *o)
{
	return blk_latency_new(o);
}

static void ops_feed(void *s, unsigned dev, const struct blk_event *ev)
{
	blk_latency_feed(s, dev, ev);
}

static void ops_finish(void *s, uint64_t start, uint64_t end)
{
	(void)start;
	(void)end;
	blk_latency_finish(s);
}

static int ops_to_json(void *s, unsigned dev, json_t *obj, const struct blk_json_ctx *ctx)
{
	(void)ctx;
	return blk_latency_to_json(s, dev, obj);
}

static void ops_destroy(void *s)
{
	blk_latency_free(s);
}

const struct blk_sink_ops blk_latency_ops = {"latency",   ops_create,  ops_feed, ops_finish,
                                             ops_to_json, ops_destroy, NULL};
