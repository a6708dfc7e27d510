/* SPDX-License-Identifier: MIT */
/* The NFS replay's input: a capture's calls, named through the handle map, in call order
 * (their paths made by nfs_path.c). */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/instream.h"
#include "replay/nfs_source_int.h"

/* ---- the procedure table ---- */

unsigned nr_proc_index(struct nfs_replay_stats *st, unsigned vers, unsigned op)
{
	struct nr_proc *p;

	for (unsigned i = 0; i < st->nprocs; i++)
		if (st->procs[i].vers == vers && st->procs[i].op == op)
			return i;
	p = realloc(st->procs, (st->nprocs + 1) * sizeof(*p));
	if (!p)
		return UINT32_MAX;
	st->procs = p;
	p += st->nprocs;
	/* the counts cleared; the two histograms (nearly all of the struct) once, by hist_init */
	static_assert(offsetof(struct nr_proc, srt) + sizeof(p->srt) == sizeof(*p),
	              "the histograms end struct nr_proc: what follows them would not be cleared");
	memset(p, 0, offsetof(struct nr_proc, lat));
	p->vers = (uint8_t)vers;
	p->op = (uint16_t)op;
	p->name = vers == 3 ? nfs3_proc_name(op) : op == 0 ? "NULL" : nfs4_op_name(op);
	if (!p->name)
		p->name = "?";
	hist_init(&p->lat);
	hist_init(&p->srt);
	return st->nprocs++;
}
/* nr_proc_index() through the source's table of the procedures seen. */
static unsigned proc_of(struct nr_source *s, unsigned vers, unsigned op)
{
	uint32_t *ix = op < NR_PROC_IX ? &s->proc_ix[vers == 4][op] : NULL;
	unsigned i;

	if (ix && *ix)
		return *ix - 1;
	i = nr_proc_index(s->st, vers, op);
	if (ix && i != UINT32_MAX)
		*ix = i + 1;
	return i;
}

/* ---- one transaction ---- */

static uint8_t act_v3(const struct rpc_txn *t)
{
	static const uint8_t a[NFS3_NPROCS] = {
	    NR_SKIP,   NR_GETATTR, NR_SETATTR, NR_GETATTR, NR_GETATTR, NR_READLINK,
	    NR_READ,   NR_WRITE,   NR_CREATE,  NR_MKDIR,   NR_SYMLINK, NR_MKNOD,
	    NR_REMOVE, NR_RMDIR,   NR_RENAME,  NR_LINK,    NR_READDIR, NR_READDIR,
	    NR_FSSTAT, NR_FSSTAT,  NR_FSSTAT,  NR_COMMIT,
	};
	return t->proc < NFS3_NPROCS ? a[t->proc] : NR_SKIP;
}

static uint8_t act_v4(const struct rpc_txn *t)
{
	switch (t->call.op) {
	case OP4_ACCESS:
	case OP4_GETATTR:
	case OP4_LOOKUP:
	case OP4_LOOKUPP:
	case OP4_VERIFY:
	case OP4_NVERIFY:
		return NR_GETATTR;
	case OP4_SETATTR:
		return NR_SETATTR;
	case OP4_READLINK:
		return NR_READLINK;
	case OP4_READ:
	case OP4_READ_PLUS:
		return NR_READ;
	case OP4_WRITE:
		return NR_WRITE;
	case OP4_COMMIT:
		return NR_COMMIT;
	case OP4_OPEN:
		return t->call.creates ? NR_CREATE : NR_OPEN;
	case OP4_CREATE:
		return t->call.ftype == NFS_FT_DIR                                   ? NR_MKDIR
		       : t->call.ftype == NFS_FT_LNK                                 ? NR_SYMLINK
		       : t->call.ftype >= NFS_FT_BLK && t->call.ftype <= NFS_FT_FIFO ? NR_MKNOD
		                                                                     : NR_SKIP;
	case OP4_REMOVE:
		return NR_REMOVE;
	case OP4_RENAME:
		return NR_RENAME;
	case OP4_LINK:
		return NR_LINK;
	case OP4_READDIR:
		return NR_READDIR;
	case OP4_ALLOCATE:
		return NR_ALLOCATE;
	case OP4_DEALLOCATE:
		return NR_DEALLOCATE;
	default:
		return NR_SKIP; /* CLOSE, SEQUENCE, EXCHANGE_ID, locks, delegations: state */
	}
}

static void heap_push(struct nr_source *s, struct nr_op *op)
{
	unsigned i;

	if (s->nheap == s->cap) {
		unsigned nc = s->cap ? s->cap * 2 : 1024;
		struct nr_op **h = realloc(s->heap, nc * sizeof(*h));

		if (!h) {
			free(op);
			s->err = -ENOMEM;
			return;
		}
		s->heap = h;
		s->cap = nc;
	}
	op->seq = s->arrival++; /* the tie-break until it is released */
	i = s->nheap++;
	while (i) {
		unsigned up = (i - 1) / 2;
		struct nr_op *u = s->heap[up];

		if (u->call_ns < op->call_ns || (u->call_ns == op->call_ns && u->seq < op->seq))
			break;
		s->heap[i] = u;
		i = up;
	}
	s->heap[i] = op;
}

static struct nr_op *heap_pop(struct nr_source *s)
{
	struct nr_op *top = s->heap[0], *last = s->heap[--s->nheap];
	unsigned i = 0;

	for (;;) {
		unsigned l = 2 * i + 1, m = i;
		struct nr_op *best = last;

		if (l < s->nheap) {
			struct nr_op *c = s->heap[l];

			if (c->call_ns < best->call_ns ||
			    (c->call_ns == best->call_ns && c->seq < best->seq))
				m = l, best = c;
			if (l + 1 < s->nheap) {
				struct nr_op *d = s->heap[l + 1];

				if (d->call_ns < best->call_ns ||
				    (d->call_ns == best->call_ns && d->seq < best->seq))
					m = l + 1, best = d;
			}
		}
		if (m == i)
			break;
		s->heap[i] = s->heap[m];
		i = m;
	}
	if (s->nheap)
		s->heap[i] = last;
	return top;
}

static struct nr_op *op_new(const struct pbuf *path, const struct pbuf *path2, const uint8_t *data,
                            unsigned dlen, const uint8_t *wdata, uint32_t wlen)
{
	size_t l1 = path->len + 1, l2 = path2 ? path2->len + 1 : 0, l3 = data ? dlen + 1u : 0;
	struct nr_op *op = malloc(sizeof(*op) + wlen + l1 + l2 + l3);
	uint8_t *m;

	if (!op)
		return NULL;
	/* The fields cleared, not what follows them: every byte of mem[] is copied in below, and
	 * clearing a WRITE's payload first (calloc) cost as much as the copy, ~1 instruction a
	 * byte, most of a 64 KiB WRITE's transaction. */
	memset(op, 0, sizeof(*op));
	m = op->mem;
	if (wlen) {
		memcpy(m, wdata, wlen);
		op->wdata = m;
		op->wlen = wlen;
		m += wlen;
	}
	memcpy(m, path->b, l1);
	op->path = (const char *)m;
	m += l1;
	if (path2) {
		memcpy(m, path2->b, l2);
		op->path2 = (const char *)m;
		m += l2;
	}
	if (data) {
		memcpy(m, data, dlen);
		m[dlen] = 0;
		op->data = (const char *)m;
	}
	return op;
}

/* Does the action work on a directory (the object its handle names is one)? */
static bool is_dir_op(const struct rpc_txn *t, uint8_t act)
{
	if (t->vers == 3 && t->proc == 3)
		return true; /* LOOKUP */
	return act == NR_CREATE || act == NR_OPEN || act == NR_MKDIR || act == NR_SYMLINK ||
	       act == NR_MKNOD || act == NR_REMOVE || act == NR_RMDIR || act == NR_RENAME ||
	       act == NR_LINK || act == NR_READDIR ||
	       act == NR_FSSTAT; /* FSINFO, FSSTAT, PATHCONF: asked of the mount's root */
}

/* The paths the call works on (w->obj, and w->to for RENAME and LINK) from its names, before
 * the map learns from the reply; then the map fed. Under the export (v4) and --root-path;
 * one outside the root is counted and marked unknown (refused). */
static void call_paths(struct nr_source *s, const struct rpc_txn *t, uint8_t act, struct walk *w)
{
	bool dir_op = is_dir_op(t, act);

	w->obj.len = 0;
	w->obj.b[0] = 0;
	w->obj.known = true;
	w->obj.hostile = w->obj.placeholder = w->obj.v4 = false;
	w->have_to = false;
	w->data = NULL;
	w->data_len = 0;
	if (act != NR_SKIP) {
		nr_walk_names(s, t, dir_op, w);
		/* no names recorded (cut by the snaplen, over the names memory): the handle */
		if (!t->call.names_len && !w->have_obj && t->call.fh_len) {
			uint32_t id =
			    nfs_names_handle(s->names, t, t->call.fh, t->call.fh_len, true);

			nr_path_of(s, id, t->call.fh, t->call.fh_len, dir_op, &w->obj);
		}
	}
	nfs_names_txn(s->names, t);
	if (!s->v4_mapped && !s->o->root_path && t->vers == 4 && s->root_seen)
		nr_find_v4_root(s);
	if (s->v4_mapped) {
		nr_v4_to_export(s, &w->obj);
		if (w->have_to)
			nr_v4_to_export(s, &w->to);
	}
	if (act != NR_SKIP && s->o->root_path &&
	    (!nr_under_root(s->o->root_path, &w->obj) ||
	     (w->have_to && !nr_under_root(s->o->root_path, &w->to)))) {
		s->st->outside_root++;
		w->obj.known = false; /* refused below */
	}
}

/* The op with its paths and data: a WRITE's payload as far as the capture holds it (the rest,
 * cut by the snaplen or a gap, counted). NULL when out of memory. */
static struct nr_op *op_make(struct nr_source *s, const struct rpc_txn *t, uint8_t act,
                             const struct walk *w)
{
	uint32_t wl = act != NR_WRITE                    ? 0
	              : t->call.data_len < t->call.count ? t->call.data_len
	                                                 : (uint32_t)t->call.count;

	if (act == NR_WRITE && wl < t->call.count) {
		s->st->payload_cut++;
		s->st->payload_cut_bytes += t->call.count - wl;
	}
	return op_new(&w->obj, w->have_to ? &w->to : NULL, w->data, w->data_len, t->call.data, wl);
}

/* What the call asks (times, attributes, range) and what its reply said. */
static void op_fill(struct nr_op *op, const struct rpc_txn *t)
{
	op->call_ns = t->call_ns;
	op->reply_ns = t->replied ? t->reply_ns : 0;
	op->conn = t->conn_id;
	op->vers = (uint8_t)t->vers;
	op->set = t->call.set;
	op->ftype = t->call.ftype;
	op->exclusive = t->call.exclusive;
	op->mode = t->call.set_mode;
	op->size = t->call.set_size;
	op->uid = t->call.set_uid;
	op->gid = t->call.set_gid;
	op->atime_s = t->call.set_atime_s;
	op->atime_ns = t->call.set_atime_ns;
	op->mtime_s = t->call.set_mtime_s;
	op->mtime_ns = t->call.set_mtime_ns;
	op->spec1 = t->call.spec1;
	op->spec2 = t->call.spec2;
	op->attrs_skipped = t->call.owner_named;
	op->off = t->call.offset;
	op->count = t->call.count;
	op->stable = t->call.stable != 0;
	op->answered = t->replied && t->reply_stat == 0 && t->accept_stat == 0 && t->rep.has_status;
	/* v4: the COMPOUND's status, that of the op it stopped at: the replay does the whole of it
	 * as one action (a LOOKUP chain that fails at its last name fails) */
	op->cap_status = op->answered ? t->rep.status : 0;
	op->cap_count = t->rep.count;
	op->attr_size = t->rep.size;
	op->has_size = t->rep.has_size;
}

/* Refused: a hostile or unknown path, a RENAME or LINK without its second name, a SYMLINK
 * without its target. */
static void op_refuse(struct nr_op *op, const struct walk *w)
{
	op->hostile = w->obj.hostile || (w->have_to && w->to.hostile);
	op->placeholder = w->obj.placeholder || (w->have_to && w->to.placeholder);
	op->refused =
	    op->act != NR_SKIP && (op->hostile || !w->obj.known || (w->have_to && !w->to.known));
	if ((op->act == NR_RENAME || op->act == NR_LINK) && !w->have_to)
		op->refused = true;
	if (op->act == NR_SYMLINK && !w->data)
		op->refused = true;
}

static void on_txn(void *arg, const struct rpc_txn *t)
{
	struct nr_source *s = arg;
	struct nfs_replay_stats *st = s->st;
	struct walk w;
	struct nr_op *op;
	unsigned vers = t->vers, opno;
	uint8_t act;

	if (s->err)
		return;
	if (t->kind != RPC_KIND_NFS || (vers != 3 && vers != 4)) {
		st->other_rpc++;
		nfs_names_txn(s->names, t); /* MOUNT names the export's root */
		return;
	}
	st->calls++;
	opno = vers == 3 ? t->proc : t->proc == 0 ? 0 : t->call.op;
	act = t->proc == 0 ? NR_SKIP : vers == 3 ? act_v3(t) : act_v4(t);
	call_paths(s, t, act, &w);
	if (!(op = op_make(s, t, act, &w))) {
		s->err = -ENOMEM;
		return;
	}
	op_fill(op, t);
	op->proc = proc_of(s, vers, opno);
	if (op->proc == UINT32_MAX) {
		free(op);
		s->err = -ENOMEM;
		return;
	}
	op->act = act;
	op_refuse(op, &w);
	op->file_key = nr_hash(op->path, strlen(op->path), NR_HASH0);
	op->mem_bytes = sizeof(*op) + 64 + op->wlen;
	s->heap_bytes += op->mem_bytes;
	heap_push(s, op);
}

/* ---- the stream ---- */

int nr_source_open(struct nr_source **out, const struct nfs_replay_opts *o,
                   struct nfs_replay_stats *st, struct iot_err *e)
{
	struct nr_source *s = calloc(1, sizeof(*s));
	struct nfs_names_cfg nc = {.max_nodes = o->max_nodes ? o->max_nodes : 1u << 20};
	struct in_stream *in = NULL;
	/* whole calls, for the WRITE payloads */
	struct tcp_cfg tcfg = {.call_cap = NR_CALL_MAX};
	struct rpc_dec_cfg rcfg = {.keep_data = true, .data_total = NR_DATA_HELD};
	int ret;

	*out = NULL;
	if (!s)
		return iot_err_set(e, -ENOMEM, "out of memory");
	s->o = o;
	s->st = st;
	s->e = e;
	s->root_id = NFS_NAME_NONE;
	if (o->root_fh_len) {
		memcpy(s->root_fh, o->root_fh, o->root_fh_len);
		s->root_fh_len = o->root_fh_len;
		s->root_seen = true;
	}
	if (st->v4_root[0] && !o->root_path) /* the prepare pass found it */
		nr_set_v4_root(s, st->v4_root);
	if ((ret = o->open(o->open_arg, &in, e)))
		goto fail;
	if ((ret = pcap_src_open_stream(&s->src, in, e))) /* takes in */
		goto fail;
	s->dlt = pcap_src_dlt(s->src);
	if ((ret = nfs_names_new(&s->names, &nc))) {
		iot_err_set(e, ret, "out of memory");
		goto fail;
	}
	if ((ret = nfs_pipe_init(&s->pipe, &tcfg, &rcfg, on_txn, s))) {
		iot_err_set(e, ret, "out of memory");
		goto fail;
	}
	s->pipe_ok = true;
	*out = s;
	return 0;
fail:
	nr_source_free(s);
	return ret;
}

static bool releasable(const struct nr_source *s)
{
	const struct nr_op *m = s->heap[0];

	/* no call still unanswered was made before it: nothing earlier can come */
	return s->ended || m->call_ns < rpc_dec_oldest_call(s->pipe.rpc) || s->nheap > NR_WINDOW ||
	       s->heap_bytes > NR_WINDOW_BYTES || m->call_ns + NR_HORIZON_NS <= s->last_ts;
}

struct nr_op *nr_source_next(struct nr_source *s, int *err, struct iot_err *e)
{
	struct nr_op *op;

	*err = 0;
	while (!s->err && (!s->nheap || !releasable(s))) {
		const uint8_t *frame;
		uint32_t caplen;
		uint64_t ts;
		int ret;

		if (s->ended)
			return NULL;
		ret = pcap_src_next(s->src, &frame, &caplen, &ts, e);
		if (ret < 0) {
			*err = ret;
			return NULL;
		}
		if (ret == 0) {
			nfs_pipe_finish(&s->pipe);
			s->ended = true;
			continue;
		}
		if (ts > s->last_ts)
			s->last_ts = ts;
		nfs_pipe_frame(&s->pipe, s->dlt, frame, caplen, ts);
		{
			size_t m = nr_source_mem(s);

			if (m > s->peak)
				s->peak = m;
		}
	}
	if (s->err) {
		*err = iot_err_set(e, s->err, "out of memory");
		return NULL;
	}
	op = heap_pop(s);
	s->heap_bytes -= op->mem_bytes;
	if (s->next_seq && op->call_ns < s->last_call)
		s->st->late++;
	else
		s->last_call = op->call_ns;
	op->seq = s->next_seq++;
	return op;
}

size_t nr_source_mem(const struct nr_source *s)
{
	return (s->pipe_ok ? nfs_pipe_mem(&s->pipe) : 0) +
	       (s->names ? nfs_names_mem(s->names) : 0) + s->heap_bytes + s->cap * sizeof(*s->heap);
}

void nr_source_free(struct nr_source *s)
{
	if (!s)
		return;
	if (s->names) {
		const struct nfs_names_counters *c = nfs_names_counters(s->names);

		s->st->nodes = c->nodes;
		s->st->untracked = c->untracked;
	}
	if (s->peak > s->st->peak_mem)
		s->st->peak_mem = s->peak;
	while (s->nheap)
		free(heap_pop(s));
	free(s->heap);
	if (s->pipe_ok)
		nfs_pipe_release(&s->pipe);
	nfs_names_free(s->names);
	pcap_src_free(s->src);
	free(s);
}
