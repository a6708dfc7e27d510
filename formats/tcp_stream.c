/* SPDX-License-Identifier: MIT */
/* TCP reassembly with RPC record marking: bounded memory, resynchronisation after gaps. */
#include "formats/tcp_stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cursor.h"

/*
 * Each direction of a connection is a byte stream cut into RPC records by 4-byte markers
 * (RFC 5531 section 11: high bit = last fragment, low 31 bits = fragment length). Only the
 * first head_cap bytes of a record are kept: the decoders need the RPC and NFS headers, never
 * the READ/WRITE data, so memory per connection does not grow with the record size. The NFS
 * replay asks for whole calls (call_cap), for the WRITE payloads: a direction's buffer grows
 * for them, within call_total over all connections.
 * Segments ahead of a gap wait in a small queue; when the queue is full, or the capture ends,
 * the gap is declared lost and the marker parser resynchronises at the next plausible record.
 *
 * A direction counts what it lost (bytes, bad markers, resyncs) against the capture once it
 * has shown the start of an RPC record (a marker and the call or reply header after it, as
 * resynchronisation looks for). Before that it may be another protocol on the same host (a
 * Ceph messenger beside an NFS server): what it would have lost is held, counted at its first
 * RPC record (a connection joined mid-record), or, when the direction ends without one, its
 * bytes are traffic that is not RPC (non_rpc_bytes), not loss.
 */

enum mode { M_MARK, M_FRAG, M_RESYNC };

#define RS_WIN 64
#define RS_NEED 24 /* marker, xid, msg_type and three words of the call or reply header */

struct seg {
	struct seg *next;
	uint32_t seq;
	uint32_t len;    /* sequence space covered */
	uint32_t caplen; /* bytes present */
	uint64_t ts;
	uint8_t data[];
};

struct dir {
	bool have_seq;
	bool have_isn;
	uint32_t isn;
	bool fin;
	uint32_t next_seq;
	enum mode mode;
	uint8_t mark[4];
	unsigned mark_len;
	uint32_t frag_left;
	bool last_frag;
	bool in_record;
	bool incomplete;
	uint8_t *head;
	uint32_t head_len;
	uint32_t head_room; /* bytes at head: head_cap, or more for a call kept whole */
	uint64_t rec_len;
	uint8_t rs[RS_WIN];
	unsigned rs_len;
	struct seg *ooo, *ooo_tail; /* segments ahead of a hole, by sequence number */
	uint64_t ooo_bytes;         /* what they cost: payload and struct */
	bool rpc;                   /* the start of an RPC record was seen */
	bool rec_checked;           /* the current record's start was checked for RPC */
	uint8_t rec_mark[4];        /* the current record's first marker */
	uint64_t stream_bytes;      /* sequence space covered: seen, cut or given up */
	uint64_t held_lost, held_bad, held_resyncs; /* before the first record */
};

struct conn {
	struct conn *hnext;
	struct conn *lprev, *lnext;
	struct net_endpoint end[2]; /* in canonical order (endpoint_swap()) */
	uint64_t id;
	unsigned bucket;
	uint8_t proto;
	bool non_rpc_counted;
	struct dir d[2];
};

#define NBUCKETS 8192u

struct tcp_table {
	struct tcp_cfg cfg;
	rpc_record_fn fn;
	void *arg;
	struct conn *buckets[NBUCKETS];
	struct conn *lru_head, *lru_tail; /* head = most recently used */
	uint32_t nconns;
	uint64_t next_id;
	uint64_t ooo_total;
	size_t mem;
	struct tcp_counters n;
	uint64_t last_ts;  /* time of the latest packet, for records completed at the end */
	uint64_t call_mem; /* bytes of head buffers grown past head_cap (call_cap) */
};

bool rpc_record_plausible(const uint8_t *p, size_t n, uint32_t max_record)
{
	struct cur c = cur_make(p, n);
	uint32_t mark = cur_be32(&c), mtype, v, w1, w2;

	cur_skip(&c, 4); /* xid */
	mtype = cur_be32(&c);
	v = cur_be32(&c);
	w1 = cur_be32(&c);
	w2 = cur_be32(&c);
	if (c.err)
		return false;
	mark &= 0x7fffffffu;
	if (mark < 12 || mark > max_record)
		return false;
	if (mtype == 0) /* CALL: rpcvers 2, program, version (RFC 5531 9) */
		return v == 2 && mark >= 40 && w1 != 0 && w2 < 256;
	if (mtype != 1)
		return false;
	if (v == 0) /* MSG_ACCEPTED: verifier flavor and length */
		return w1 < 16 && w2 <= 400;
	if (v == 1) /* MSG_DENIED: RPC_MISMATCH (low, high) or AUTH_ERROR (auth_stat) */
		return (w1 == 0 && w2 < 16) || (w1 == 1 && w2 < 64);
	return false;
}

static void count_lost(struct tcp_table *t, struct dir *d, uint64_t n)
{
	if (d->rpc)
		t->n.lost_bytes += n;
	else
		d->held_lost += n;
}

static void count_bad_record(struct tcp_table *t, struct dir *d)
{
	if (d->rpc)
		t->n.bad_records++;
	else
		d->held_bad++;
}

/* A stream of RPC records after all: what it lost before this one is lost. */
static void mark_rpc(struct tcp_table *t, struct dir *d)
{
	if (d->rpc)
		return;
	d->rpc = true;
	t->n.lost_bytes += d->held_lost;
	t->n.bad_records += d->held_bad;
	t->n.resyncs += d->held_resyncs;
	d->held_lost = d->held_bad = d->held_resyncs = 0;
}

/* Once a record's head holds the call or reply header: is it RPC? */
static void check_rpc(struct tcp_table *t, struct dir *d)
{
	uint8_t w[RS_NEED];

	if (d->rpc || d->rec_checked || d->head_len < RS_NEED - 4)
		return;
	d->rec_checked = true;
	memcpy(w, d->rec_mark, 4);
	memcpy(w + 4, d->head, RS_NEED - 4);
	if (rpc_record_plausible(w, RS_NEED, t->cfg.max_record))
		mark_rpc(t, d);
}

static void deliver(struct tcp_table *t, struct conn *c, int dir, uint64_t ts)
{
	struct dir *d = &c->d[dir];
	struct rpc_record r = {
	    .head = d->head,
	    .head_len = d->head_len,
	    .len = d->rec_len,
	    .incomplete = d->incomplete,
	    .ts_ns = ts,
	    .conn_id = c->id,
	    .dir = dir,
	    .proto = c->proto,
	    .src = &c->end[dir],
	    .dst = &c->end[!dir],
	};

	t->n.records++;
	d->in_record = false;
	t->fn(t->arg, &r);
}

/* Look for a record start. lost_sync: record marking was lost (else: a stream joined in the
 * middle, where searching is how it starts). */
static void to_resync(struct tcp_table *t, struct dir *d, bool lost_sync)
{
	d->mode = M_RESYNC;
	d->rs_len = 0;
	d->in_record = false;
	d->mark_len = 0;
	if (lost_sync && d->rpc)
		t->n.resyncs++;
	else if (lost_sync)
		d->held_resyncs++;
}

/* A connection's directions that ended without an RPC record carried another protocol. */
static void conn_settle(struct tcp_table *t, struct conn *c)
{
	bool other = false;

	for (int i = 0; i < 2; i++) {
		struct dir *d = &c->d[i];

		if (!d->rpc && d->stream_bytes) {
			t->n.non_rpc_bytes += d->stream_bytes;
			other = true;
		}
		d->stream_bytes = 0;
		d->held_lost = d->held_bad = d->held_resyncs = 0;
	}
	if (other && !c->d[0].rpc && !c->d[1].rpc && !c->non_rpc_counted) {
		c->non_rpc_counted = true;
		t->n.non_rpc_conns++;
	}
}

static void stream_data(struct tcp_table *t, struct conn *c, int dir, const uint8_t *p, size_t n,
                        uint64_t ts);

/* Resynchronisation: look for a plausible record start, carrying a small window across
 * segments; bytes skipped are lost. */
static void resync_data(struct tcp_table *t, struct conn *c, int dir, const uint8_t *p, size_t n,
                        uint64_t ts)
{
	struct dir *d = &c->d[dir];

	while (n > 0) {
		size_t take = RS_WIN - d->rs_len, i;

		if (take > n)
			take = n;
		memcpy(d->rs + d->rs_len, p, take);
		d->rs_len += (unsigned)take;
		p += take;
		n -= take;
		for (i = 0; i + RS_NEED <= d->rs_len; i++) {
			if (rpc_record_plausible(d->rs + i, RS_NEED, t->cfg.max_record)) {
				uint8_t w[RS_WIN];
				size_t wl = d->rs_len - i;

				mark_rpc(t, d);
				count_lost(t, d, i);
				memcpy(w, d->rs + i, wl);
				d->rs_len = 0;
				d->mode = M_MARK;
				d->mark_len = 0;
				d->in_record = false;
				stream_data(t, c, dir, w, wl, ts);
				stream_data(t, c, dir, p, n, ts);
				return;
			}
		}
		if (d->rs_len >= RS_NEED) {
			size_t keep = RS_NEED - 1, drop = d->rs_len - keep;

			count_lost(t, d, drop);
			memmove(d->rs, d->rs + drop, keep);
			d->rs_len = (unsigned)keep;
		}
	}
}

static int head_alloc(struct tcp_table *t, struct dir *d)
{
	if (d->head)
		return 0;
	d->head = malloc(t->cfg.head_cap);
	if (!d->head)
		return -ENOMEM;
	d->head_room = t->cfg.head_cap;
	t->mem += t->cfg.head_cap;
	return 0;
}

/* Is the record at head an RPC CALL (its message type, after the xid, is 0)? */
static bool head_is_call(const struct dir *d)
{
	return d->head_len >= 8 && !(d->head[4] | d->head[5] | d->head[6] | d->head[7]);
}

/* What of the current record is kept: head_cap, or call_cap for a call when asked. */
static uint32_t keep_cap(const struct tcp_table *t, const struct dir *d)
{
	return t->cfg.call_cap > t->cfg.head_cap && head_is_call(d) ? t->cfg.call_cap
	                                                            : t->cfg.head_cap;
}

/* The head cannot take the n bytes at p: room for them if the record is a call kept whole
 * (call_cap), within call_total. Only while the head holds the whole record so far. */
static void head_grow(struct tcp_table *t, struct dir *d, const uint8_t *p, size_t n)
{
	uint32_t want = t->cfg.call_cap, room;
	uint8_t *h;

	if (d->head_len != d->rec_len)
		return; /* bytes were skipped: what follows would not be where it belongs */
	for (unsigned k = 4; k < 8; k++) /* the message type, after the xid: CALL is 0 */
		if (k < d->head_len ? d->head[k] : k - d->head_len < n ? p[k - d->head_len] : 1)
			return;
	room = d->head_room * 2;
	if (room < d->head_len + n)
		room = d->head_len + n > want ? want : (uint32_t)(d->head_len + n);
	if (room > want)
		room = want;
	if (t->call_mem + (room - d->head_room) > t->cfg.call_total) /* as much as is left */
		room = d->head_room + (uint32_t)(t->cfg.call_total - t->call_mem);
	if (room <= d->head_room || !(h = realloc(d->head, room)))
		return;
	t->call_mem += room - d->head_room;
	t->mem += room - d->head_room;
	d->head = h;
	d->head_room = room;
}

static void stream_data(struct tcp_table *t, struct conn *c, int dir, const uint8_t *p, size_t n,
                        uint64_t ts)
{
	struct dir *d = &c->d[dir];

	while (n > 0) {
		if (d->mode == M_RESYNC) {
			resync_data(t, c, dir, p, n, ts);
			return;
		}
		if (d->mode == M_MARK) {
			size_t take = 4 - d->mark_len;
			uint32_t m, flen;

			if (take > n)
				take = n;
			memcpy(d->mark + d->mark_len, p, take);
			d->mark_len += (unsigned)take;
			p += take;
			n -= take;
			if (d->mark_len < 4)
				return;
			d->mark_len = 0;
			m = (uint32_t)d->mark[0] << 24 | (uint32_t)d->mark[1] << 16 |
			    (uint32_t)d->mark[2] << 8 | d->mark[3];
			flen = m & 0x7fffffffu;
			if (!d->in_record) {
				d->in_record = true;
				d->head_len = 0;
				d->rec_len = 0;
				d->incomplete = false;
				d->rec_checked = false;
				memcpy(d->rec_mark, d->mark, 4);
			}
			if (flen > t->cfg.max_record || d->rec_len + flen > t->cfg.max_record ||
			    (flen == 0 && d->rec_len == 0) || head_alloc(t, d)) {
				count_bad_record(t, d);
				count_lost(t, d, 4);
				to_resync(t, d, true);
				continue;
			}
			d->frag_left = flen;
			d->last_frag = m >> 31;
			d->mode = M_FRAG;
		}
		/* M_FRAG */
		{
			size_t take = d->frag_left < n ? d->frag_left : n;

			if (t->cfg.call_cap > d->head_room && d->head_len + take > d->head_room &&
			    !d->incomplete)
				head_grow(t, d, p, take); /* a call kept whole */
			if (!d->incomplete && d->head_len < d->head_room) {
				size_t h = d->head_room - d->head_len;

				if (h > take)
					h = take;
				memcpy(d->head + d->head_len, p, h);
				d->head_len += (uint32_t)h;
				check_rpc(t, d);
			}
			d->rec_len += take;
			d->frag_left -= (uint32_t)take;
			p += take;
			n -= take;
			if (d->frag_left == 0) {
				d->mode = M_MARK;
				if (d->last_frag)
					deliver(t, c, dir, ts);
			}
		}
	}
}

/* n stream bytes that will never be seen (a gap given up on, or cut by the snaplen). */
static void stream_missing(struct tcp_table *t, struct conn *c, int dir, uint64_t n, uint64_t ts,
                           bool gap)
{
	struct dir *d = &c->d[dir];

	count_lost(t, d, n);
	if (gap)
		d->stream_bytes += n;
	/* a hole in a stream not (yet) known to carry RPC is not an RPC capture's gap */
	if (gap && n && d->rpc && t->cfg.event) {
		struct net_event ev = {
		    .type = NET_EV_GAP,
		    .ts_ns = ts,
		    .conn_id = c->id,
		    .proto = c->proto,
		    .src = &c->end[dir],
		    .dst = &c->end[!dir],
		    .bytes = n,
		};

		t->cfg.event(t->cfg.event_arg, &ev);
	}
	while (n > 0) {
		if (d->mode == M_FRAG) {
			uint64_t take = d->frag_left < n ? d->frag_left : n;

			if (d->head_len < keep_cap(t, d))
				d->incomplete = true;
			d->rec_len += take;
			d->frag_left -= (uint32_t)take;
			n -= take;
			if (d->frag_left == 0) {
				d->mode = M_MARK;
				if (d->last_frag)
					deliver(t, c, dir, ts);
			}
			continue;
		}
		/* a marker (or the search for one) falls into the hole: start searching afresh;
		 * the partial marker or search window before the hole is lost too */
		count_lost(t, d, d->mode == M_MARK ? d->mark_len : d->rs_len);
		if (d->mode == M_MARK)
			to_resync(t, d, true);
		d->rs_len = 0;
		return;
	}
}

static void seg_free_all(struct tcp_table *t, struct dir *d)
{
	while (d->ooo) {
		struct seg *s = d->ooo;

		d->ooo = s->next;
		t->mem -= sizeof(*s) + s->caplen;
		t->ooo_total -= sizeof(*s) + s->caplen;
		free(s);
	}
	d->ooo_tail = NULL;
	d->ooo_bytes = 0;
}

/* Apply a segment that starts at or before next_seq. */
static void apply(struct tcp_table *t, struct conn *c, int dir, uint32_t seq, const uint8_t *data,
                  uint32_t caplen, uint32_t len, uint64_t ts)
{
	struct dir *d = &c->d[dir];
	uint32_t skip = d->next_seq - seq; /* >= 0: checked by the caller */

	if (skip >= len) {
		t->n.retransmits++;
		return;
	}
	if (skip)
		t->n.retransmits++;
	d->stream_bytes += len - skip;
	if (skip < caplen)
		stream_data(t, c, dir, data + skip, caplen - skip, ts);
	if (caplen < len)
		stream_missing(t, c, dir, len - (skip > caplen ? skip : caplen), ts, false);
	d->next_seq = seq + len;
}

static void drain(struct tcp_table *t, struct conn *c, int dir, uint64_t ts, bool force)
{
	struct dir *d = &c->d[dir];

	while (d->ooo) {
		struct seg *s = d->ooo;
		int32_t diff = (int32_t)(s->seq - d->next_seq);

		if (diff > 0) {
			if (!force)
				return;
			stream_missing(t, c, dir, (uint32_t)diff, ts, true);
			d->next_seq = s->seq;
		}
		d->ooo = s->next;
		if (!d->ooo)
			d->ooo_tail = NULL;
		d->ooo_bytes -= sizeof(*s) + s->caplen;
		t->ooo_total -= sizeof(*s) + s->caplen;
		t->mem -= sizeof(*s) + s->caplen;
		/* A hole filled now completes records at this packet's time (as tshark's
		 * reassembly); past a hole given up, segments keep the time they were seen. */
		apply(t, c, dir, s->seq, s->data, s->caplen, s->len,
		      force || s->ts > ts ? s->ts : ts);
		free(s);
	}
}

/*
 * A segment ahead of a hole waits for it. The bytes held are bounded over all connections
 * (ooo_total, 8 MiB) and, if asked, per direction (ooo_cap); by default one direction may use
 * the whole budget, since a retransmission can arrive a whole receive window late (Linux
 * grows windows to 6 MiB). When there is no room the hole is given up (counted: it may be a
 * false loss) and what follows it is read at once.
 */
static void enqueue(struct tcp_table *t, struct conn *c, int dir, const struct pkt *p, uint32_t seq)
{
	struct dir *d = &c->d[dir];
	struct seg *s, **pp;
	uint64_t cost = sizeof(*s) + p->caplen;

	/* captured twice while waiting (a spurious retransmission): keep one copy */
	if (d->ooo_tail && d->ooo_tail->seq == seq && d->ooo_tail->len >= p->len) {
		t->n.retransmits++;
		return;
	}
	if ((t->cfg.ooo_cap && d->ooo_bytes + cost > t->cfg.ooo_cap) ||
	    t->ooo_total + cost > t->cfg.ooo_total || !(s = malloc(sizeof(*s) + p->caplen))) {
		/* no room: the gap is lost */
		t->n.ooo_given_up++;
		drain(t, c, dir, p->ts_ns, true);
		int32_t diff = (int32_t)(seq - d->next_seq);

		if (diff > 0) {
			stream_missing(t, c, dir, (uint32_t)diff, p->ts_ns, true);
			d->next_seq = seq;
		}
		if ((int32_t)(seq - d->next_seq) <= 0)
			apply(t, c, dir, seq, p->payload, p->caplen, p->len, p->ts_ns);
		return;
	}
	s->seq = seq;
	s->len = p->len;
	s->caplen = p->caplen;
	s->ts = p->ts_ns;
	memcpy(s->data, p->payload, p->caplen);
	if (d->ooo_tail && (int32_t)(seq - d->ooo_tail->seq) > 0) {
		/* the usual case: later than everything waiting */
		s->next = NULL;
		d->ooo_tail->next = s;
		d->ooo_tail = s;
	} else {
		for (pp = &d->ooo; *pp && (int32_t)((*pp)->seq - seq) <= 0; pp = &(*pp)->next)
			;
		s->next = *pp;
		*pp = s;
		if (!s->next)
			d->ooo_tail = s;
	}
	d->ooo_bytes += cost;
	t->ooo_total += cost;
	if (t->ooo_total > t->n.ooo_peak)
		t->n.ooo_peak = t->ooo_total;
	t->mem += sizeof(*s) + p->caplen;
	t->n.out_of_order++;
}

static void tcp_segment(struct tcp_table *t, struct conn *c, int dir, const struct pkt *p)
{
	struct dir *d = &c->d[dir];
	uint32_t seq = p->seq;
	int32_t diff;

	if ((p->tcp_flags & TCPF_SYN) && d->have_seq) {
		/* a retransmitted SYN: its data (if any) starts after the ISN */
		seq = p->seq + 1;
	} else if (p->tcp_flags & TCPF_SYN) {
		seg_free_all(t, d);
		d->have_isn = true;
		d->isn = p->seq;
		d->have_seq = true;
		d->next_seq = p->seq + 1;
		d->mode = M_MARK;
		d->mark_len = 0;
		d->in_record = false;
		seq = p->seq + 1;
	}
	if (p->tcp_flags & TCPF_FIN)
		d->fin = true;
	if (p->len == 0)
		return;
	if (!d->have_seq) {
		/* capture started mid-stream: look for the first plausible record */
		d->have_seq = true;
		d->next_seq = seq;
		to_resync(t, d, false);
	}
	diff = (int32_t)(seq - d->next_seq);
	if (diff > 0) {
		enqueue(t, c, dir, p, seq);
		return;
	}
	apply(t, c, dir, seq, p->payload, p->caplen, p->len, p->ts_ns);
	drain(t, c, dir, p->ts_ns, false);
}

/* --- the connection table --- */

/* a and b in canonical order (the family is left out: the endpoints' equality checks it) */
static unsigned hash_conn(const struct net_endpoint *a, const struct net_endpoint *b, uint8_t proto)
{
	uint64_t h = net_addr_fnv(net_addr_fnv(NET_FNV_BASIS, &a->addr), &b->addr);

	h = (h ^ ((uint32_t)a->port << 16 | b->port) ^ ((uint64_t)proto << 40)) * NET_FNV_PRIME;
	return (unsigned)(h ^ h >> 29) & (NBUCKETS - 1);
}

/* canonical order: endpoint A is the smaller (address, port); a packet's two have one family */
static int endpoint_swap(const struct pkt *p)
{
	return net_endpoint_cmp(&p->src, &p->dst) > 0;
}

static void lru_unlink(struct tcp_table *t, struct conn *c)
{
	if (c->lprev)
		c->lprev->lnext = c->lnext;
	else
		t->lru_head = c->lnext;
	if (c->lnext)
		c->lnext->lprev = c->lprev;
	else
		t->lru_tail = c->lprev;
	c->lprev = c->lnext = NULL;
}

static void lru_front(struct tcp_table *t, struct conn *c)
{
	c->lnext = t->lru_head;
	c->lprev = NULL;
	if (t->lru_head)
		t->lru_head->lprev = c;
	t->lru_head = c;
	if (!t->lru_tail)
		t->lru_tail = c;
}

static void conn_free(struct tcp_table *t, struct conn *c)
{
	struct conn **pp;
	int i;

	for (pp = &t->buckets[c->bucket]; *pp; pp = &(*pp)->hnext) {
		if (*pp == c) {
			*pp = c->hnext;
			break;
		}
	}
	lru_unlink(t, c);
	conn_settle(t, c);
	for (i = 0; i < 2; i++) {
		seg_free_all(t, &c->d[i]);
		if (c->d[i].head) {
			free(c->d[i].head);
			t->mem -= c->d[i].head_room;
			t->call_mem -= c->d[i].head_room - t->cfg.head_cap;
		}
	}
	t->mem -= sizeof(*c);
	t->nconns--;
	free(c);
}

/* Give up on a connection's gaps: deliver what lies after them. */
static void conn_flush(struct tcp_table *t, struct conn *c)
{
	int i;

	for (i = 0; i < 2; i++)
		if (c->d[i].ooo)
			drain(t, c, i, t->last_ts, true);
}

static struct conn *conn_get(struct tcp_table *t, const struct pkt *p, int *dir, bool create)
{
	int swap = endpoint_swap(p);
	const struct net_endpoint *a = swap ? &p->dst : &p->src, *z = swap ? &p->src : &p->dst;
	unsigned b = hash_conn(a, z, p->proto);
	struct conn *c;

	*dir = swap;
	for (c = t->buckets[b]; c; c = c->hnext) {
		if (c->proto == p->proto && net_endpoint_eq(&c->end[0], a) &&
		    net_endpoint_eq(&c->end[1], z)) {
			if (t->lru_head != c) {
				lru_unlink(t, c);
				lru_front(t, c);
			}
			return c;
		}
	}
	if (!create)
		return NULL;
	if (t->nconns >= t->cfg.max_conns && t->lru_tail) {
		conn_flush(t, t->lru_tail);
		conn_free(t, t->lru_tail);
		t->n.evicted++;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->proto = p->proto;
	c->end[0] = *a;
	c->end[1] = *z;
	c->id = ++t->next_id;
	c->bucket = b;
	c->hnext = t->buckets[b];
	t->buckets[b] = c;
	lru_front(t, c);
	t->nconns++;
	t->n.conns++;
	t->mem += sizeof(*c);
	return c;
}

void tcp_table_packet(struct tcp_table *t, const struct pkt *p)
{
	struct conn *c;
	int dir;

	if (p->proto != 6 && p->proto != 17)
		return;
	t->n.packets++;
	t->last_ts = p->ts_ns;
	if (p->proto == 17) {
		struct rpc_record r;

		if (p->caplen < 16)
			return;
		c = conn_get(t, p, &dir, true);
		if (!c)
			return;
		/* a datagram is at hand whole: a call kept whole (call_cap) costs nothing */
		uint32_t cap =
		    t->cfg.call_cap > t->cfg.head_cap && p->caplen >= 8 &&
		            !(p->payload[4] | p->payload[5] | p->payload[6] | p->payload[7])
		        ? t->cfg.call_cap
		        : t->cfg.head_cap;

		r = (struct rpc_record){
		    .head = p->payload,
		    .head_len = p->caplen < cap ? p->caplen : cap,
		    .len = p->len,
		    .incomplete = p->caplen < p->len && p->caplen < cap,
		    .ts_ns = p->ts_ns,
		    .conn_id = c->id,
		    .dir = dir,
		    .proto = 17,
		    .src = &p->src,
		    .dst = &p->dst,
		};
		if (p->caplen < p->len)
			t->n.lost_bytes += p->len - p->caplen;
		t->n.records++;
		t->fn(t->arg, &r);
		return;
	}
	c = conn_get(t, p, &dir,
	             (p->len > 0 || (p->tcp_flags & TCPF_SYN)) && !(p->tcp_flags & TCPF_RST));
	if (!c)
		return;
	if ((p->tcp_flags & TCPF_SYN) && c->d[dir].have_seq &&
	    !(c->d[dir].have_isn && c->d[dir].isn == p->seq)) {
		/* a SYN with another ISN: the 4-tuple is reused by a new connection (the same
		 * ISN again is a retransmitted SYN) */
		conn_flush(t, c);
		conn_free(t, c);
		c = conn_get(t, p, &dir, true);
		if (!c)
			return;
	}
	/* The peer acknowledges bytes we never saw: they were sent and received, so the capture
	 * missed them and waiting is pointless (tshark's "ACKed unseen segment"). The ACK is
	 * taken before this segment's data: a reply carried here was sent after the call it
	 * answers arrived, so the call, waiting behind the hole, must be delivered first. */
	if ((p->tcp_flags & TCPF_ACK) && c->d[!dir].ooo &&
	    (int32_t)(p->ack - c->d[!dir].next_seq) > 0)
		drain(t, c, !dir, p->ts_ns, true);
	tcp_segment(t, c, dir, p);
	if ((p->tcp_flags & TCPF_RST) || (c->d[0].fin && c->d[1].fin)) {
		conn_flush(t, c);
		conn_free(t, c);
	}
}

void tcp_table_finish(struct tcp_table *t)
{
	struct conn *c;

	for (c = t->lru_head; c; c = c->lnext) {
		conn_flush(t, c);
		conn_settle(t, c);
	}
}

int tcp_table_new(struct tcp_table **out, const struct tcp_cfg *cfg, rpc_record_fn fn, void *arg)
{
	struct tcp_table *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->cfg.head_cap = 2048;
	t->cfg.max_record = 16u << 20;
	t->cfg.ooo_cap = 0; /* the whole budget */
	t->cfg.ooo_total = 8u << 20;
	t->cfg.max_conns = 2048;
	if (cfg) {
		if (cfg->head_cap >= 64)
			t->cfg.head_cap = cfg->head_cap;
		if (cfg->max_record)
			t->cfg.max_record = cfg->max_record & 0x7fffffffu;
		if (cfg->ooo_cap)
			t->cfg.ooo_cap = cfg->ooo_cap;
		if (cfg->ooo_total)
			t->cfg.ooo_total = cfg->ooo_total;
		if (cfg->max_conns)
			t->cfg.max_conns = cfg->max_conns;
		t->cfg.event = cfg->event;
		t->cfg.event_arg = cfg->event_arg;
		t->cfg.call_cap = cfg->call_cap;
		t->cfg.call_total = cfg->call_total ? cfg->call_total : 64u << 20;
	}
	t->fn = fn;
	t->arg = arg;
	t->mem = sizeof(*t);
	*out = t;
	return 0;
}

const struct tcp_counters *tcp_table_counters(const struct tcp_table *t)
{
	return &t->n;
}

size_t tcp_table_mem(const struct tcp_table *t)
{
	return t->mem;
}

void tcp_table_free(struct tcp_table *t)
{
	if (!t)
		return;
	while (t->lru_head)
		conn_free(t, t->lru_head);
	free(t);
}
