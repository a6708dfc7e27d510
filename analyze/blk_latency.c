/* SPDX-License-Identifier: MIT */
/* Latency sink: bios tracked from queue to completion through merges, in bounded memory (the
 * per-event matching; the sink made, read and written in blk_latency_sink.c). */
#include "analyze/blk_latency_int.h"

#include <stddef.h>
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
 * Memory: a pool of max_inflight nodes for bios and one for requests, each with its age list
 * (oldest first), and room for max_inflight hits of one C. When a pool is full its oldest node
 * is dropped, a bio counted as evicted (a bio whose completion was lost must not pin memory
 * forever).
 */

#define NONE UINT64_MAX

/* A node off the free list, else one never used; NULL when every one is in use. */
static inline struct lat_bio *bio_take(struct blk_latency *l)
{
	struct lat_bio *x = l->bio_free;

	if (x) {
		l->bio_free = x->left;
		return x;
	}
	return l->bio_fresh < l->cap ? &l->bio[l->bio_fresh++] : NULL;
}

static inline struct lat_rq *rq_take(struct blk_latency *l)
{
	struct lat_rq *r = l->rq_free;

	if (r) {
		l->rq_free = r->hnext;
		return r;
	}
	return l->rq_fresh < l->cap ? &l->rq[l->rq_fresh++] : NULL;
}

static inline void age_link(struct age *head, struct age *a)
{
	a->newer = head;
	a->older = head->older;
	head->older->newer = a;
	head->older = a;
}

static inline void age_unlink(struct age *a)
{
	a->older->newer = a->newer;
	a->newer->older = a->older;
}

/* The bio or request an age list entry belongs to. */
static inline struct lat_bio *bio_of(struct age *a)
{
	return (struct lat_bio *)((char *)a - offsetof(struct lat_bio, age));
}

static inline struct lat_rq *rq_of(struct age *a)
{
	return (struct lat_rq *)((char *)a - offsetof(struct lat_rq, age));
}

/* ------------------------------------------------------------------------------------- */
/* requests                                                                              */

/* Neighbouring sectors of a device get neighbouring buckets: sequential IO stays in cache. */
static inline struct lat_rq **rq_bucket(const struct blk_latency *l, uint32_t dev, uint64_t start)
{
	return &l->bucket[((uint32_t)start ^ (uint32_t)(start >> 32) ^ (dev * 0x9e3779b1u)) &
	                  l->mask];
}

/* The link that points at the request (dev, start), or at the NULL ending its chain. */
static inline struct lat_rq **rq_link(struct blk_latency *l, uint32_t dev, uint64_t start)
{
	struct lat_rq **pp = rq_bucket(l, dev, start);

	while (*pp && ((*pp)->start != start || (*pp)->dev != dev))
		pp = &(*pp)->hnext;
	return pp;
}

/* Unlink the request *pp points at; back to the free list. */
static inline void rq_remove(struct blk_latency *l, struct lat_rq **pp)
{
	struct lat_rq *r = *pp;

	*pp = r->hnext;
	age_unlink(&r->age);
	r->hnext = l->rq_free;
	l->rq_free = r;
}

/* Start tracking request (dev, start), issued at t; pp is its rq_link(), where it is absent.
 * When the pool is full the oldest request is dropped. */
static void rq_add(struct blk_latency *l, struct lat_rq **pp, uint32_t dev, uint64_t start,
                   uint64_t t)
{
	struct lat_rq *r = rq_take(l);

	if (__builtin_expect(!r, 0)) {
		struct lat_rq *old = rq_of(l->rq_age.newer);
		struct lat_rq **op = rq_bucket(l, old->dev, old->start);

		while (*op != old)
			op = &(*op)->hnext;
		if (pp == &old->hnext) /* our chain ended right after the one dropped */
			pp = op;
		rq_remove(l, op);
		r = rq_take(l);
	}
	r->start = start;
	r->d = t;
	r->dev = dev;
	r->hnext = NULL;
	*pp = r;
	age_link(&l->rq_age, &r->age);
}

/* ------------------------------------------------------------------------------------- */
/* the bio tree of a device: a red-black tree on the start sector, shaped as btt's        */

static inline void set_child(struct lat_bio **root, struct lat_bio *parent, struct lat_bio *old,
                             struct lat_bio *new)
{
	if (!parent)
		*root = new;
	else if (parent->left == old)
		parent->left = new;
	else
		parent->right = new;
}

/*
 * The rebalancing's cases are written once, for a side dir (0 left, 1 right), and the other
 * side is their mirror image. dir is a constant wherever these are called and they are
 * inlined, so the compiler still makes the two mirrored copies the classic code spells out
 * (a side held in a variable costs the hot path about 1 % more instructions).
 */

/* Rotate at x: its child on side !dir takes its place, x goes down on side dir (dir 0 is a
 * left rotation, 1 a right one). */
static inline __attribute__((always_inline)) void rotate(struct lat_bio **root, struct lat_bio *x,
                                                         const int dir)
{
	struct lat_bio *y = x->child[!dir];

	x->child[!dir] = y->child[dir];
	if (y->child[dir])
		y->child[dir]->parent = x;
	y->child[dir] = x;
	y->parent = x->parent;
	set_child(root, x->parent, x, y);
	x->parent = y;
}

static inline int is_red(const struct lat_bio *x)
{
	return x && x->red;
}

/* One step of the rebalancing after an insert, at the red x under the red p, which is on side
 * dir of its parent g: where to go on from (the loop ends when its parent is black). */
static inline __attribute__((always_inline)) struct lat_bio *
insert_step(struct lat_bio **root, struct lat_bio *x, struct lat_bio *p, struct lat_bio *g,
            const int dir)
{
	struct lat_bio *u = g->child[!dir];

	if (is_red(u)) {
		u->red = 0;
		p->red = 0;
		g->red = 1;
		return g;
	}
	if (p->child[!dir] == x) {
		rotate(root, p, dir);
		u = p; /* the old parent is now below x */
		p = x;
		x = u;
	}
	p->red = 0;
	g->red = 1;
	rotate(root, g, !dir);
	return x;
}

/* Rebalance after linking the red leaf x. */
static void tree_insert_color(struct lat_bio **root, struct lat_bio *x)
{
	struct lat_bio *p, *g;

	while ((p = x->parent) && p->red) {
		g = p->parent;
		x = p == g->left ? insert_step(root, x, p, g, 0) : insert_step(root, x, p, g, 1);
	}
	(*root)->red = 0;
}

/* One step of the rebalancing after an erase, at *x (maybe NULL) on side dir of its parent
 * *p: 1 to go on from the new *x and *p, 0 when done (the root is then to be made black). */
static inline __attribute__((always_inline)) int
erase_step(struct lat_bio **root, struct lat_bio **x, struct lat_bio **p, const int dir)
{
	struct lat_bio *o = (*p)->child[!dir];

	if (o->red) {
		o->red = 0;
		(*p)->red = 1;
		rotate(root, *p, dir);
		o = (*p)->child[!dir];
	}
	if (!is_red(o->left) && !is_red(o->right)) {
		o->red = 1;
		*x = *p;
		*p = (*x)->parent;
		return 1;
	}
	if (!is_red(o->child[!dir])) {
		o->child[dir]->red = 0;
		o->red = 1;
		rotate(root, o, !dir);
		o = (*p)->child[!dir];
	}
	o->red = (*p)->red;
	(*p)->red = 0;
	if (o->child[!dir])
		o->child[!dir]->red = 0;
	rotate(root, *p, dir);
	return 0;
}

/* Rebalance after removing a black node: x (maybe NULL) took its place under parent p. */
static void tree_erase_color(struct lat_bio **root, struct lat_bio *x, struct lat_bio *p)
{
	while (!is_red(x) && x != *root) {
		if (!(p->left == x ? erase_step(root, &x, &p, 0) : erase_step(root, &x, &p, 1))) {
			x = *root;
			break;
		}
	}
	if (x)
		x->red = 0;
}

/* Unlink z; a node with two children is replaced by its successor (the leftmost node of its
 * right subtree), which takes z's place and colour. Inline: once per completed bio, where the
 * call costs more than the unlinking of a leaf. */
static inline __attribute__((always_inline)) void tree_erase(struct lat_bio **root,
                                                             struct lat_bio *z)
{
	struct lat_bio *child, *parent;
	int red;

	if (!z->left || !z->right) {
		child = z->left ? z->left : z->right;
		parent = z->parent;
		red = z->red;
		if (child)
			child->parent = parent;
		set_child(root, parent, z, child);
	} else {
		struct lat_bio *y = z->right;

		while (y->left)
			y = y->left;
		child = y->right;
		parent = y->parent;
		red = y->red;
		if (child)
			child->parent = parent;
		set_child(root, parent, y, child);
		if (parent == z)
			parent = y;
		y->parent = z->parent;
		y->red = z->red;
		y->left = z->left;
		y->right = z->right;
		set_child(root, z->parent, z, y);
		z->left->parent = y;
		if (z->right)
			z->right->parent = y;
	}
	if (!red)
		tree_erase_color(root, child, parent);
}

/* Link x by its start; a node with the same start is replaced in place by x and returned
 * (btt's tree keeps one bio per start sector: the newest). */
static struct lat_bio *tree_insert(struct lat_bio **root, struct lat_bio *x)
{
	struct lat_bio **link = root, *parent = NULL;
	uint64_t s = x->start;

	while (*link) {
		parent = *link;
		if (s < parent->start) {
			link = &parent->left;
		} else if (s > parent->start) {
			link = &parent->right;
		} else {
			struct lat_bio *old = parent;

			x->left = old->left;
			x->right = old->right;
			x->parent = old->parent;
			x->red = old->red;
			if (x->left)
				x->left->parent = x;
			if (x->right)
				x->right->parent = x;
			set_child(root, old->parent, old, x);
			return old;
		}
	}
	x->parent = parent;
	x->left = x->right = NULL;
	x->red = 1;
	*link = x;
	tree_insert_color(root, x);
	return NULL;
}

/* The walk for a sector: the first node on the path from the root that holds it. */
static inline struct lat_bio *tree_find(struct lat_bio *x, uint64_t sector)
{
	while (x) {
		if (sector < x->start)
			x = x->left;
		else if (sector >= x->end)
			x = x->right;
		else
			return x;
	}
	return NULL;
}

/* ------------------------------------------------------------------------------------- */

static void histc_add_to(void *dst, const void *src)
{
	histc_merge(dst, src);
}

/* A wider interval (bins_place()): every device's bins follow. */
void blk_lat_bins_moved(void *ctx, const struct bins_move *m)
{
	struct blk_latency *l = ctx;

	for (unsigned i = 0; i < l->nbinned; i++)
		if (l->bins[i])
			bins_move_array(m, l->bins[i], l->nbins[i], sizeof(**l->bins),
			                histc_add_to);
}

/* The D2C v of a bio of dev completed at t, into its interval (memory allowing). */
static __attribute__((noinline)) void lat_bin_add(struct blk_latency *l, unsigned dev, uint64_t t,
                                                  uint64_t v)
{
	uint64_t k = bins_place(&l->clock, t, blk_lat_bins_moved, l);

	if (!bins_reserve((void **)&l->bins[dev], &l->nbins[dev], k, sizeof(**l->bins),
	                  l->clock.max))
		histc_add(&l->bins[dev][k], v);
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
	d->last_q = NONE;
	d->root = NULL;
	l->dev[dev] = d;
	return d;
}

static inline void lat_add(struct blk_latency_dev *d, enum blk_lat k, uint64_t v)
{
	hist_few_add_fast(&d->h[k], &d->sum[k], v);
}

static void lat_fold(struct blk_latency_dev *d)
{
	for (unsigned k = 0; k < BLK_LAT_N; k++)
		hist_few_settle(&d->h[k], &d->sum[k]);
}

/* Drop bio x: out of its device's tree, back to the pool. */
static inline void bio_drop(struct blk_latency *l, struct lat_bio **root, struct lat_bio *x)
{
	tree_erase(root, x);
	age_unlink(&x->age);
	x->left = l->bio_free;
	l->bio_free = x;
	l->bio_used--;
}

/*
 * The bios of a device inside [s, e) are visited in btt's order (rb_foreach: the node, then
 * its left subtree if the range starts before the node, then its right subtree if the node
 * ends before the range does); VISIT(x) runs for each, and nothing in the tree may change
 * meanwhile. Iterative: the pending right subtrees wait on a stack, one per level at most,
 * and a red-black tree of fewer than 2^32 nodes is at most 64 levels deep.
 */
#define RANGE_VISIT(root, s, e, VISIT)                                                             \
	do {                                                                                       \
		struct lat_bio *stack_[64], *x_ = (root), *r_;                                     \
		unsigned sp_ = 0;                                                                  \
                                                                                                   \
		while (x_) {                                                                       \
			if ((s) <= x_->start && x_->end <= (e)) {                                  \
				struct lat_bio *const x = x_;                                      \
				VISIT;                                                             \
			}                                                                          \
			r_ = x_->end < (e) ? x_->right : NULL;                                     \
			if ((s) < x_->start && x_->left) {                                         \
				if (r_)                                                            \
					stack_[sp_++] = r_;                                        \
				x_ = x_->left;                                                     \
			} else {                                                                   \
				x_ = r_ ? r_ : sp_ ? stack_[--sp_] : NULL;                         \
			}                                                                          \
		}                                                                                  \
	} while (0)

static __attribute__((noinline)) void on_queue(struct blk_latency *l, struct blk_latency_dev *d,
                                               uint32_t dev, uint64_t s, uint64_t e, uint64_t t)
{
	struct lat_bio *x = bio_take(l), *old;

	if (__builtin_expect(!x, 0)) {
		old = bio_of(l->bio_age.newer);
		l->dev[old->dev]->evicted++;
		bio_drop(l, &l->dev[old->dev]->root, old);
		x = bio_take(l);
	}
	l->bio_used++;
	x->start = s;
	x->end = e;
	x->q = t;
	x->g = x->i = x->m = x->d = NONE;
	x->dev = dev;
	age_link(&l->bio_age, &x->age);
	old = tree_insert(&d->root, x);
	if (old) {
		d->duplicates++;
		age_unlink(&old->age);
		old->left = l->bio_free;
		l->bio_free = old;
		l->bio_used--;
	}
	if (d->last_q != NONE)
		lat_add(d, BLK_LAT_Q2Q, blk_tdelta(d->last_q, t));
	d->last_q = t;
}

static __attribute__((noinline)) void on_issue(struct blk_latency *l, struct blk_latency_dev *d,
                                               uint32_t dev, uint64_t s, uint64_t e, uint64_t t)
{
	struct lat_rq **pp;

	RANGE_VISIT(d->root, s, e, {
		if (x->i != NONE)
			lat_add(d, BLK_LAT_I2D, blk_tdelta(x->i, t));
		else if (x->m != NONE)
			lat_add(d, BLK_LAT_M2D, blk_tdelta(x->m, t));
		x->d = t;
	});
	pp = rq_link(l, dev, s);
	if (*pp)
		(*pp)->d = t; /* a re-issue */
	else
		rq_add(l, pp, dev, s, t);
}

static __attribute__((noinline)) void on_complete(struct blk_latency *l, struct blk_latency_dev *d,
                                                  uint32_t dev, uint64_t s, uint64_t e, uint64_t t)
{
	struct lat_bio **found = l->found;
	struct lat_rq **pp;
	uint32_t n = 0;

	RANGE_VISIT(d->root, s, e, {
		lat_add(d, BLK_LAT_Q2C, blk_tdelta(x->q, t));
		if (x->d != NONE) {
			lat_add(d, BLK_LAT_D2C, blk_tdelta(x->d, t));
			lat_add(d, BLK_LAT_Q2D, blk_tdelta(x->q, x->d));
		}
		found[n++] = x;
	});
	/* in the order found, as btt releases them: the tree's shape follows */
	for (uint32_t k = 0; k < n; k++)
		bio_drop(l, &d->root, found[k]);
	if (!n)
		d->unmatched_c++;
	pp = rq_link(l, dev, s);
	if (*pp) {
		lat_add(d, BLK_LAT_D2C_REQ, blk_tdelta((*pp)->d, t));
		/* the report's per-interval D2C: per request, as compare's (a split bio's later
		 * pieces match no bio) */
		if (dev < l->nbinned)
			lat_bin_add(l, dev, t, blk_tdelta((*pp)->d, t));
		rq_remove(l, pp);
	}
}

/* The actions matched: Q G M F I D C. */
#define MATCHED                                                                                    \
	(1u << BLK_A_QUEUE | 1u << BLK_A_GETRQ | 1u << BLK_A_BACKMERGE | 1u << BLK_A_FRONTMERGE |  \
	 1u << BLK_A_INSERT | 1u << BLK_A_ISSUE | 1u << BLK_A_COMPLETE)

/* The first event with data of a device: its state if the action is matched, then the event. */
static __attribute__((noinline, cold)) void feed_new_dev(struct blk_latency *l, unsigned dev,
                                                         const struct blk_event *ev)
{
	if (ev->action < 32 && (MATCHED >> ev->action & 1) && new_dev(l, dev))
		blk_latency_feed(l, dev, ev);
}

/*
 * The dispatch, and G, I and M, which are short: Q, D and C are functions of their own, called
 * last, so that this one needs no registers saved (their prologues cost an event that only
 * stamps a bio more than the stamping).
 */
void blk_latency_feed(struct blk_latency *l, unsigned dev, const struct blk_event *ev)
{
	struct blk_latency_dev *d;
	uint64_t s = ev->sector, e = ev->sector + (ev->bytes >> 9), t = ev->time;
	struct lat_bio *x;

	/* data only, no passthrough or notify; the switch picks the actions matched */
	if ((ev->flags & (BLK_F_PC | BLK_F_NOTIFY)) || !(ev->bytes >> 9))
		return;
	if (__builtin_expect(dev >= l->ndev || !l->dev[dev], 0)) {
		feed_new_dev(l, dev, ev);
		return;
	}
	d = l->dev[dev];
	switch (ev->action) {
	case BLK_A_QUEUE:
		on_queue(l, d, dev, s, e, t);
		break;
	case BLK_A_GETRQ:
		x = tree_find(d->root, s);
		if (x) {
			x->g = t;
			lat_add(d, BLK_LAT_Q2G, blk_tdelta(x->q, t));
		}
		break;
	case BLK_A_INSERT:
		x = tree_find(d->root, s);
		if (x) {
			x->i = t;
			if (x->g != NONE)
				lat_add(d, BLK_LAT_G2I, blk_tdelta(x->g, t));
		}
		break;
	case BLK_A_BACKMERGE:
	case BLK_A_FRONTMERGE:
		x = tree_find(d->root, s);
		if (x) {
			x->m = t;
			lat_add(d, BLK_LAT_Q2M, blk_tdelta(x->q, t));
		}
		break;
	case BLK_A_ISSUE:
		on_issue(l, d, dev, s, e, t);
		break;
	case BLK_A_COMPLETE:
		on_complete(l, d, dev, s, e, t);
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
	for (struct age *a = l->bio_age.newer; a != &l->bio_age; a = a->newer)
		l->dev[bio_of(a)->dev]->outstanding++;
	for (struct age *a = l->rq_age.newer; a != &l->rq_age; a = a->newer) {
		uint32_t dv = rq_of(a)->dev;

		if (dv < l->ndev && l->dev[dv])
			l->dev[dv]->outstanding_rq++;
	}
}
