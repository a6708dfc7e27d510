/* SPDX-License-Identifier: MIT */
/* ONC RPC messages (RFC 5531), credentials (RFC 2203 RPCSEC_GSS), call/reply matching. */
#include "formats/rpc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/xdr.h"

#define NBUCKETS (1u << 15)
#define MAX_AUTH 400 /* RFC 5531: opaque_auth body<400> */
#define CB_PROGS 16
#define MAX_MACHINES 1024    /* distinct AUTH_SYS machine names kept */
#define NAMES_MEM (2u << 20) /* bytes of names held by outstanding calls */

struct pend {
	struct pend *hnext;
	struct pend *prev, *next; /* age order, oldest first */
	int dir;
	struct rpc_txn t;
};

struct rpc_dec {
	struct rpc_dec_cfg cfg;
	rpc_txn_fn fn;
	void *arg;
	struct pend *buckets[NBUCKETS];
	struct pend *oldest, *newest;
	struct pend *free_list;
	uint32_t npend, nalloc;
	uint32_t cb_progs[CB_PROGS];
	unsigned ncb;
	char *machines[MAX_MACHINES];
	unsigned nmachines;
	size_t names_mem, machines_mem, data_mem;
	uint8_t names_buf[NFS_NAMES_BUF];
	struct rpc_counters n;
};

static unsigned hash_key(uint64_t conn, int dir, uint32_t xid)
{
	uint64_t h = (conn * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)xid * 0xff51afd7ed558ccdull) ^
	             (uint64_t)dir;

	return (unsigned)(h ^ h >> 32) & (NBUCKETS - 1);
}

static struct pend **find(struct rpc_dec *d, uint64_t conn, int dir, uint32_t xid)
{
	struct pend **pp = &d->buckets[hash_key(conn, dir, xid)];

	for (; *pp; pp = &(*pp)->hnext)
		if ((*pp)->t.xid == xid && (*pp)->t.conn_id == conn && (*pp)->dir == dir)
			return pp;
	return pp;
}

static void unlink_age(struct rpc_dec *d, struct pend *p)
{
	if (p->prev)
		p->prev->next = p->next;
	else
		d->oldest = p->next;
	if (p->next)
		p->next->prev = p->prev;
	else
		d->newest = p->prev;
}

static void release(struct rpc_dec *d, struct pend **pp)
{
	struct pend *p = *pp;

	if (p->t.call.names) {
		d->names_mem -= p->t.call.names_len;
		free(p->t.call.names);
		p->t.call.names = NULL;
	}
	if (p->t.call.data_len) {
		d->data_mem -= p->t.call.data_len;
		free((void *)p->t.call.data);
		p->t.call.data = NULL;
		p->t.call.data_len = 0;
	}

	*pp = p->hnext;
	unlink_age(d, p);
	p->hnext = d->free_list;
	d->free_list = p;
	d->npend--;
}

static void evict_oldest(struct rpc_dec *d)
{
	struct pend *p = d->oldest;
	struct pend **pp = find(d, p->t.conn_id, p->dir, p->t.xid);

	d->n.unmatched_calls++;
	d->n.evicted++;
	d->fn(d->arg, &p->t);
	release(d, pp);
}

const char *rpc_prog_name(uint32_t prog)
{
	switch (prog) {
	case RPC_PROG_NFS:
		return "NFS";
	case RPC_PROG_MOUNT:
		return "MOUNT";
	case RPC_PROG_PORTMAP:
		return "PORTMAP";
	default:
		return NULL;
	}
}

static const char *const mount_names[] = {"NULL", "MNT", "DUMP", "UMNT", "UMNTALL", "EXPORT"};
static const char *const pmap2_names[] = {"NULL", "SET", "UNSET", "GETPORT", "DUMP", "CALLIT"};
static const char *const rpcb_names[] = {
    "NULL",        "SET",         "UNSET",       "GETADDR",  "DUMP",        "CALLIT",  "GETTIME",
    "UADDR2TADDR", "TADDR2UADDR", "GETVERSADDR", "INDIRECT", "GETADDRLIST", "GETSTAT",
};
#define N_(a) (sizeof(a) / sizeof((a)[0]))

const char *rpc_proc_name(enum rpc_kind kind, uint32_t vers, uint32_t proc)
{
	switch (kind) {
	case RPC_KIND_NFS:
		if (vers == 3)
			return nfs3_proc_name(proc);
		return proc == 0 ? "NULL" : proc == 1 ? "COMPOUND" : NULL;
	case RPC_KIND_NFS_CB:
		return proc == 0 ? "CB_NULL" : proc == 1 ? "CB_COMPOUND" : NULL;
	case RPC_KIND_MOUNT:
		return proc < N_(mount_names) ? mount_names[proc] : NULL;
	case RPC_KIND_PORTMAP:
		if (vers == 2)
			return proc < N_(pmap2_names) ? pmap2_names[proc] : NULL;
		return proc < N_(rpcb_names) ? rpcb_names[proc] : NULL;
	default:
		return NULL;
	}
}

static enum rpc_kind classify(struct rpc_dec *d, uint32_t prog, uint32_t vers)
{
	unsigned i;

	if (prog == RPC_PROG_NFS)
		return RPC_KIND_NFS;
	if (prog == RPC_PROG_MOUNT)
		return RPC_KIND_MOUNT;
	if (prog == RPC_PROG_PORTMAP)
		return RPC_KIND_PORTMAP;
	if (vers == 1) {
		if (prog == NFS_CB_PROGRAM_LINUX)
			return RPC_KIND_NFS_CB;
		for (i = 0; i < d->ncb; i++)
			if (d->cb_progs[i] == prog)
				return RPC_KIND_NFS_CB;
	}
	return RPC_KIND_OTHER;
}

static void note_cb_program(struct rpc_dec *d, uint32_t prog)
{
	unsigned i;

	if (!prog || prog == RPC_PROG_NFS || prog == RPC_PROG_MOUNT || prog == RPC_PROG_PORTMAP)
		return;
	for (i = 0; i < d->ncb; i++)
		if (d->cb_progs[i] == prog)
			return;
	if (d->ncb < CB_PROGS)
		d->cb_progs[d->ncb++] = prog;
	else
		d->cb_progs[prog % CB_PROGS] = prog;
}

/*
 * The procedure arguments or results, unwrapped from RPCSEC_GSS integrity
 * (rpc_gss_integ_data: opaque databody_integ<> holding seq_num and the body). Privacy
 * (encrypted) bodies cannot be read: returns false.
 */
static bool gss_body(struct cur *c, uint32_t service, struct cur *body)
{
	if (service == 3)
		return false;
	if (service == 2) {
		uint32_t len = xdr_u32(c);

		if (c->err || len < 4 || len > cur_left(c)) {
			/* the body may run past the kept head: read what is there */
			if (c->err || len < 4)
				return false;
			len = (uint32_t)cur_left(c);
		}
		*body = cur_sub(c, len);
		cur_skip(body, 4); /* seq_num */
		return !body->err;
	}
	*body = *c;
	return true;
}

/* A machine name, printable (other bytes as \xNN), from the table (added if new). */
static const char *machine_name(struct rpc_dec *d, const uint8_t *p, uint32_t n)
{
	char buf[4 * 255 + 1];
	size_t o = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\')
			buf[o++] = (char)p[i];
		else
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "\\x%02x", p[i]);
	}
	buf[o] = 0;
	for (i = 0; i < d->nmachines; i++)
		if (!strcmp(d->machines[i], buf))
			return d->machines[i];
	if (d->nmachines >= MAX_MACHINES || !(d->machines[d->nmachines] = strdup(buf))) {
		d->n.machines_untracked++;
		return NULL;
	}
	d->machines_mem += o + 1;
	return d->machines[d->nmachines++];
}

/* authsys_parms (RFC 5531 appendix A): stamp, machinename<255>, uid, gid, gids<16> */
static void auth_sys(struct rpc_dec *d, struct rpc_txn *t, const uint8_t *cred, uint32_t n)
{
	struct cur c = cur_make(cred, n);
	uint32_t ml;
	const uint8_t *m;

	cur_skip(&c, 4);
	m = xdr_opaque(&c, 255, &ml);
	t->uid = xdr_u32(&c);
	t->gid = xdr_u32(&c);
	if (c.err)
		return;
	t->has_unix = true;
	t->machine = machine_name(d, m, ml);
}

/* Keep a WRITE's payload (in the record's bytes, gone by its reply) with the outstanding call,
 * when asked to; else forget it. */
static void keep_data(struct rpc_dec *d, struct nfs_call *call)
{
	uint8_t *p = NULL;

	if (!call->data_len) {
		call->data = NULL;
		return;
	}
	if (!d->cfg.keep_data) {
		call->data = NULL;
		call->data_len = 0;
		return;
	}
	if (d->data_mem + call->data_len <= d->cfg.data_total)
		p = malloc(call->data_len);
	if (p) {
		memcpy(p, call->data, call->data_len);
		d->data_mem += call->data_len;
	} else {
		d->n.data_dropped++;
		call->data_len = 0;
	}
	call->data = p;
}

/* Keep the names the decoder wrote (in the shared buffer) with the outstanding call. */
static void keep_names(struct rpc_dec *d, struct nfs_call *call)
{
	uint8_t *p = NULL;

	if (call->names_len && d->names_mem + call->names_len <= NAMES_MEM)
		p = malloc(call->names_len);
	if (p) {
		memcpy(p, call->names, call->names_len);
		d->names_mem += call->names_len;
	} else if (call->names_len) {
		d->n.names_dropped++;
		call->names_len = 0;
	}
	call->names = p;
	call->names_cap = 0;
}

/* A call's credentials (RFC 5531 opaque_auth), and for RPCSEC_GSS (flavor 6) the procedure and
 * service of its credential body (RFC 2203 rpc_gss_cred_vers_1_t: version, proc, seq, service,
 * handle). */
struct call_cred {
	uint32_t flavor, n, gss_proc, service;
	const uint8_t *body; /* n bytes, or NULL when cut */
};

/* The credentials and the verifier read; false (counted) when the call is malformed. */
static bool call_cred(struct rpc_dec *d, const struct rpc_record *r, struct cur *c,
                      struct call_cred *cr)
{
	bool cut = r->head_len < r->len; /* the record is longer than the bytes we hold */

	cr->flavor = xdr_u32(c);
	cr->body = xdr_opaque(c, MAX_AUTH, &cr->n);
	cur_skip(c, 4); /* verifier flavor */
	xdr_skip_opaque(c, MAX_AUTH);
	cr->gss_proc = cr->service = 0;
	if (c->err && !cut) {
		d->n.bad_calls++;
		return false;
	}
	/* Cut inside the credentials (a small snaplen): the call still counts, as in tshark,
	 * its body is not decoded. */
	if (cr->flavor == 6 && cr->body) {
		struct cur g = cur_make(cr->body, cr->n);

		cur_skip(&g, 4);
		cr->gss_proc = xdr_u32(&g);
		cur_skip(&g, 4);
		cr->service = xdr_u32(&g);
	}
	return true;
}

/* A call already outstanding (same connection, direction and XID) sent again: counted on it,
 * and told to the event callback. */
static void call_again(struct rpc_dec *d, const struct rpc_record *r, struct pend *p, uint32_t xid)
{
	d->n.retransmits++;
	p->t.retransmits++;
	if (d->cfg.event) {
		struct net_event ev = {
		    .type = NET_EV_RETRANSMIT,
		    .ts_ns = r->ts_ns,
		    .conn_id = r->conn_id,
		    .proto = r->proto,
		    .src = r->src,
		    .dst = r->dst,
		    .xid = xid,
		};

		d->cfg.event(d->cfg.event_arg, &ev);
	}
}

/* An entry for a new outstanding call, zeroed: a released one, else a new one (NULL when out
 * of memory). */
static struct pend *pend_get(struct rpc_dec *d)
{
	struct pend *p = d->free_list;

	if (p) {
		d->free_list = p->hnext;
	} else {
		p = malloc(sizeof(*p));
		if (!p)
			return NULL;
		d->nalloc++;
	}
	memset(p, 0, sizeof(*p));
	return p;
}

/* p into its hash chain at pp, and at the tail (newest) of the age list. */
static void pend_insert(struct rpc_dec *d, struct pend **pp, struct pend *p)
{
	p->hnext = *pp;
	*pp = p;
	p->next = NULL;
	p->prev = d->newest;
	if (d->newest)
		d->newest->next = p;
	else
		d->oldest = p;
	d->newest = p;
	d->npend++;
}

/* The procedure's arguments, decoded by the program's decoder where there is one. */
static void call_args(struct rpc_dec *d, struct rpc_txn *t, struct cur *c,
                      const struct call_cred *cr)
{
	struct cur body;

	if (cr->gss_proc != 0) {
		t->call.op = t->proc; /* context creation: the body is a GSS token */
	} else if (c->err || !gss_body(c, cr->service, &body)) {
		d->n.undecoded++;
		/* a COMPOUND cut before its ops: the reply may still list them */
		t->call.cut = c->err && t->kind == RPC_KIND_NFS && t->vers == 4 && t->proc == 1;
	} else if (t->kind == RPC_KIND_NFS) {
		if (t->vers == 3)
			nfs3_call(&body, t->proc, &t->call);
		else if (t->vers == 4 && t->proc == 1)
			nfs4_call(&body, &t->call);
		else if (t->vers == 4 && t->proc == 0)
			t->call.decoded = true;
		if (!t->call.decoded)
			d->n.undecoded++;
		note_cb_program(d, t->call.cb_program);
	} else if (t->kind == RPC_KIND_NFS_CB && t->proc == 1) {
		nfs4_cb_call(&body, &t->call);
	} else if (t->kind == RPC_KIND_MOUNT && t->proc == 1) {
		nfs_mnt_call(&body, &t->call);
	}
}

static void on_call(struct rpc_dec *d, const struct rpc_record *r, struct cur *c, uint32_t xid)
{
	uint32_t rpcvers = xdr_u32(c), prog = xdr_u32(c), vers = xdr_u32(c), proc = xdr_u32(c);
	struct call_cred cr;
	struct pend **pp, *p;
	struct rpc_txn *t;

	if (c->err || rpcvers != 2) {
		d->n.bad_calls++;
		return;
	}
	if (!call_cred(d, r, c, &cr))
		return;
	d->n.calls++;
	pp = find(d, r->conn_id, r->dir, xid);
	if (*pp) {
		call_again(d, r, *pp, xid);
		return;
	}
	if (d->npend >= d->cfg.max_pending)
		evict_oldest(d), pp = find(d, r->conn_id, r->dir, xid);
	if (!(p = pend_get(d)))
		return;
	p->dir = r->dir;
	t = &p->t;
	t->conn_id = r->conn_id;
	t->proto = r->proto;
	t->client = *r->src;
	t->server = *r->dst;
	t->xid = xid;
	t->prog = prog;
	t->vers = vers;
	t->proc = proc;
	t->kind = classify(d, prog, vers);
	t->call_ns = r->ts_ns;
	t->call_len = r->len;
	t->cred_flavor = cr.flavor;
	t->gss_service = cr.flavor == 6 ? cr.service : 0;
	if (cr.flavor == 1 && cr.body)
		auth_sys(d, t, cr.body, cr.n);
	t->call_cut = r->incomplete;
	d->n.cut_calls += t->call_cut;
	t->call.names = d->names_buf;
	t->call.names_cap = sizeof(d->names_buf);
	call_args(d, t, c, &cr);
	keep_names(d, &t->call);
	keep_data(d, &t->call);
	pend_insert(d, pp, p);
	if (d->cfg.call)
		d->cfg.call(d->cfg.call_arg, t);
}

/*
 * A COMPOUND call cut before its main op could be known (snaplen): the reply lists the ops
 * too (up to the one that failed); with more of them than the call showed, the main op comes
 * from the reply's list. Otherwise the call stays cut (counted, and reported on its own row).
 */
static void main_from_reply(struct rpc_dec *d, struct rpc_txn *t)
{
	unsigned n = t->rep.nops < NFS_OPS_MAX ? t->rep.nops : NFS_OPS_MAX;
	int idx;

	if (t->rep.nops > t->call.nops && (idx = nfs4_main_op(t->rep.ops, n)) >= 0) {
		t->call.op = t->rep.ops[idx];
		t->call.main_idx = (uint16_t)idx;
		memcpy(t->call.ops, t->rep.ops, n * sizeof(t->rep.ops[0]));
		t->call.nops = t->rep.nops;
	}
	/* known when the reply listed every op, or a data op (the highest class) was seen */
	t->call.cut = !t->rep.ops_all && (!t->call.op || nfs4_op_class(t->call.op) < 4);
	d->n.cut_compounds += t->call.cut;
}

static void on_reply(struct rpc_dec *d, const struct rpc_record *r, struct cur *c, uint32_t xid)
{
	uint32_t stat = xdr_u32(c);
	struct pend **pp;
	struct rpc_txn *t;
	struct cur body;

	if (c->err || stat > 1) {
		d->n.bad_replies++;
		return;
	}
	d->n.replies++;
	pp = find(d, r->conn_id, !r->dir, xid);
	if (!*pp) {
		d->n.unmatched_replies++;
		return;
	}
	t = &(*pp)->t;
	t->replied = true;
	t->reply_ns = r->ts_ns;
	t->reply_len = r->len;
	t->reply_stat = (int)stat;
	t->reply_cut = r->incomplete;
	d->n.cut_replies += t->reply_cut;
	if (stat == 0) {
		cur_skip(c, 4);
		xdr_skip_opaque(c, MAX_AUTH);
		t->accept_stat = xdr_u32(c);
		if (c->err) {
			/* cut inside the verifier: matched, status unknown */
			t->accept_stat = 0;
			if (r->head_len < r->len)
				d->n.undecoded++;
			else
				d->n.bad_replies++;
		} else if (t->accept_stat == 0 &&
		           (t->kind == RPC_KIND_NFS || t->kind == RPC_KIND_MOUNT)) {
			if (!gss_body(c, t->gss_service, &body)) {
				d->n.undecoded++;
			} else {
				t->rbody = body.pos;
				t->rbody_len = (uint32_t)cur_left(&body);
				if (t->kind == RPC_KIND_MOUNT)
					t->rep.decoded = t->rep.has_status = true;
				else if (t->vers == 3)
					nfs3_reply(&body, t->proc, &t->rep);
				else if (t->vers == 4 && t->proc == 1)
					nfs4_reply(&body, &t->call, &t->rep);
				else
					t->rep.decoded = t->rep.has_status = true;
			}
		}
	} else {
		t->reject_stat = xdr_u32(c);
	}
	if (t->kind == RPC_KIND_NFS && t->vers == 4 && t->proc == 1 && t->call.cut)
		main_from_reply(d, t);
	d->n.matched++;
	d->fn(d->arg, t);
	t->rbody = NULL;
	release(d, pp);
}

void rpc_dec_record(void *arg, const struct rpc_record *r)
{
	struct rpc_dec *d = arg;
	struct cur c = cur_make(r->head, r->head_len);
	uint32_t xid = xdr_u32(&c), mtype = xdr_u32(&c);

	if (c.err || mtype > 1) {
		d->n.not_rpc++;
		return;
	}
	if (mtype == 0)
		on_call(d, r, &c, xid);
	else
		on_reply(d, r, &c, xid);
}

void rpc_dec_finish(struct rpc_dec *d)
{
	while (d->oldest) {
		struct pend *p = d->oldest;

		d->n.unmatched_calls++;
		d->fn(d->arg, &p->t);
		release(d, find(d, p->t.conn_id, p->dir, p->t.xid));
	}
}

int rpc_dec_new(struct rpc_dec **out, const struct rpc_dec_cfg *cfg, rpc_txn_fn fn, void *arg)
{
	struct rpc_dec *d = calloc(1, sizeof(*d));

	*out = NULL;
	if (!d)
		return -ENOMEM;
	d->cfg.max_pending = cfg && cfg->max_pending ? cfg->max_pending : 16384;
	if (cfg) {
		d->cfg.event = cfg->event;
		d->cfg.event_arg = cfg->event_arg;
		d->cfg.call = cfg->call;
		d->cfg.call_arg = cfg->call_arg;
		d->cfg.keep_data = cfg->keep_data;
		d->cfg.data_total = cfg->data_total ? cfg->data_total : 64u << 20;
	}
	d->fn = fn;
	d->arg = arg;
	*out = d;
	return 0;
}

const struct rpc_counters *rpc_dec_counters(const struct rpc_dec *d)
{
	return &d->n;
}

uint64_t rpc_dec_oldest_call(const struct rpc_dec *d)
{
	return d->oldest ? d->oldest->t.call_ns : UINT64_MAX;
}

size_t rpc_dec_mem(const struct rpc_dec *d)
{
	return sizeof(*d) + (size_t)d->nalloc * sizeof(struct pend) + d->names_mem +
	       d->machines_mem + d->data_mem;
}

void rpc_dec_free(struct rpc_dec *d)
{
	unsigned i;

	if (!d)
		return;
	for (i = 0; i < NBUCKETS; i++) {
		while (d->buckets[i]) {
			struct pend *p = d->buckets[i];

			d->buckets[i] = p->hnext;
			free(p->t.call.names);
			if (p->t.call.data_len)
				free((void *)p->t.call.data);
			free(p);
		}
	}
	while (d->free_list) {
		struct pend *p = d->free_list;

		d->free_list = p->hnext;
		free(p);
	}
	for (i = 0; i < d->nmachines; i++)
		free(d->machines[i]);
	free(d);
}
