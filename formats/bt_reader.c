/* SPDX-License-Identifier: MIT */
/* Streaming blktrace reader: a set of per-CPU files (or one stream) opened, its merged events
 * handed out one by one or in batches, decoded ahead by a thread of its own. The merge and
 * its fast path are in bt_merge.c, a file's general path in bt_src.c. */
#include "formats/blktrace.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/bt_reader_int.h"
#include "formats/instream.h"
#include "formats/rundir.h"

/*
 * Prefetch: a thread reads, decodes and merges into batches while the caller analyses the
 * previous ones, so the two halves of a pass run on two cores. PDUs are copied into the
 * batch, so an event stays valid while its batch is current (longer than the API promises).
 */
#define PF_NBATCH 8
#define PF_SPINS 256
#define SB_BATCH 512 /* without a thread: small, so the events are still in L1 when used */

enum { PF_PROD, PF_CONS };

struct prefetch {
	pthread_t thread;
	int joined;
	pthread_mutex_t mu;
	pthread_cond_t cond[2]; /* one per side: PF_PROD, PF_CONS */
	atomic_int waiting[2];  /* that side sleeps (or is about to) on its cond */
	struct pf_batch *b;     /* ring of PF_NBATCH */
	/* batches filled, released: monotonic, batch k lives in b[k % PF_NBATCH] */
	atomic_uint produced, consumed;
	atomic_int stop;
	unsigned spins; /* spin this long before sleeping: 0 on one CPU */
	unsigned pos;   /* consumer: next event in its batch */
	int have;       /* consumer: its batch is ready */
	bt_tap_fn tap;  /* run by the reader thread on each batch it fills */
	void *tap_arg;
};

static void stats_sync(struct bt_reader *r)
{
	r->st.skips = 0;
	for (unsigned i = 0; i < r->nsrc; i++) {
		r->fstats[i] = r->src[i].st;
		r->st.skips += r->src[i].st.skips;
	}
}

/* A reader over n files by path, or over one opened stream (paths NULL). */
static int reader_open(struct bt_reader **out, char *const *paths, struct in_stream *in, unsigned n,
                       struct iot_err *e)
{
	struct bt_reader *r;
	int ret, any = 0;

	*out = NULL;
	if (!n)
		return iot_err_set(e, -ENOENT, "no trace files");
	r = calloc(1, sizeof(*r));
	if (r) {
		r->src = calloc(n, sizeof(*r->src));
		r->heap = calloc(n, sizeof(*r->heap));
		r->fstats = calloc(n, sizeof(*r->fstats));
		r->comms = bt_comm_table_new();
		r->last = -1;
		r->keep = ~0u;
		r->nsrc = n;
	}
	if (!r || !r->src || !r->heap || !r->fstats || !r->comms) {
		in_stream_close(in);
		bt_reader_free(r);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	for (unsigned i = 0; i < n; i++) {
		ret =
		    paths ? bt_src_open(&r->src[i], paths[i], e) : bt_src_attach(&r->src[i], in, e);
		if (ret)
			goto fail;
		ret = bt_src_next(&r->src[i], e);
		if (ret < 0)
			goto fail;
		if (ret > 0) {
			r->src[i].have_head = 1;
			r->heap[r->nheap++] = i;
			any = 1;
		}
	}
	if (!any && n == 1 && in_stream_truncated(r->src[0].in)) {
		ret = iot_err_set(e, -EINVAL,
		                  "'%s': the compressed file is cut short before its first record",
		                  r->src[0].path);
		goto fail;
	}
	if (!any) {
		ret = n == 1 ? iot_err_set(e, -EINVAL, "'%s': empty trace file", r->src[0].path)
		             : iot_err_set(e, -EINVAL,
		                           "empty trace set: all %u files of '%s'... "
		                           "hold no records",
		                           n, r->src[0].path);
		goto fail;
	}
	bt_heap_build(r);
	r->st.nfiles = n;
	r->st.files = r->fstats;
	stats_sync(r);
	*out = r;
	return 0;
fail:
	bt_reader_free(r);
	return ret;
}

int bt_reader_open_files(struct bt_reader **out, char *const *paths, unsigned n, struct iot_err *e)
{
	return reader_open(out, paths, NULL, n, e);
}

int bt_reader_open_stream(struct bt_reader **out, struct in_stream *in, struct iot_err *e)
{
	return reader_open(out, NULL, in, 1, e);
}

int bt_reader_open(struct bt_reader **out, const char *path, struct iot_err *e)
{
	struct run_input ri;
	int ret = run_input_open(&ri, path, e);

	*out = NULL;
	if (ret)
		return ret;
	switch (ri.kind) {
	case RUN_INPUT_STREAM:
		ret = bt_reader_open_stream(out, ri.in, e);
		ri.in = NULL;
		break;
	case RUN_INPUT_DIR:
		ret = ri.rd.ntraces ? bt_reader_open_files(out, ri.rd.traces, ri.rd.ntraces, e)
		                    : iot_err_set(e, -ENOENT,
		                                  "'%s': no blktrace files (NAME.blktrace.N) in "
		                                  "directory",
		                                  path);
		break;
	case RUN_INPUT_SET:
		ret = bt_reader_open_files(out, ri.set, ri.nset, e);
		break;
	}
	run_input_release(&ri);
	return ret;
}

static void handle_notify(struct bt_reader *r, const struct blk_event *ev, int swapped)
{
	r->st.notifies++;
	switch (ev->action) {
	case BLK_N_PROCESS:
		if (ev->pdu_len)
			bt_comm_table_set(r->comms, ev->pid, (const char *)ev->pdu, ev->pdu_len);
		break;
	case BLK_N_TIMESTAMP:
		if (!r->st.have_wallclock && ev->pdu_len >= 8) {
			uint32_t w[2];

			timestamp_words(ev->pdu, swapped, w);
			r->st.have_wallclock = 1;
			r->st.wall_sec = w[0];
			r->st.wall_nsec = w[1];
		}
		break;
	case BLK_N_MESSAGE:
		r->st.messages++;
		break;
	default:
		break;
	}
}

/*
 * Hand-over between the reader thread and the caller: two monotonic counts of batches,
 * read without a lock. A side that finds nothing to do spins a little when there is a CPU
 * for each (a batch takes a few hundred microseconds), then sleeps on its condition
 * variable; the other side signals only when the sleeper's flag is set. Sequentially
 * consistent order on (count, flag) makes that safe: the sleeper sets its flag before it
 * looks at the count again, the waker changes the count before it looks at the flag, so at
 * least one of them sees the other.
 */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

/*
 * What a waiting side waits for. The reader, finding the ring full, waits until it is half
 * empty, so that it is woken once per PF_NBATCH / 2 batches rather than once per batch (a
 * futex wake costs the caller about 5 % of a pass otherwise).
 */
static int pf_ok(struct prefetch *pf, int who)
{
	if (who == PF_PROD)
		return atomic_load(&pf->produced) - atomic_load(&pf->consumed) <= PF_NBATCH / 2 ||
		       atomic_load(&pf->stop);
	return atomic_load(&pf->consumed) != atomic_load(&pf->produced);
}

static void pf_wait(struct prefetch *pf, int who)
{
	for (unsigned i = 0; i < pf->spins; i++) {
		if (pf_ok(pf, who))
			return;
		cpu_relax();
	}
	pthread_mutex_lock(&pf->mu);
	atomic_store(&pf->waiting[who], 1);
	while (!pf_ok(pf, who))
		pthread_cond_wait(&pf->cond[who], &pf->mu);
	atomic_store(&pf->waiting[who], 0);
	pthread_mutex_unlock(&pf->mu);
}

static void pf_wake(struct prefetch *pf, int who)
{
	if (!atomic_load(&pf->waiting[who]) || !pf_ok(pf, who))
		return;
	pthread_mutex_lock(&pf->mu);
	pthread_cond_signal(&pf->cond[who]);
	pthread_mutex_unlock(&pf->mu);
}

static void *pf_main(void *arg)
{
	struct bt_reader *r = arg;
	struct prefetch *pf = r->pf;

	for (;;) {
		struct pf_batch *b;
		int end;

		if (atomic_load(&pf->produced) - atomic_load(&pf->consumed) == PF_NBATCH)
			pf_wait(pf, PF_PROD);
		if (atomic_load(&pf->stop))
			return NULL;
		b = &pf->b[atomic_load(&pf->produced) % PF_NBATCH];
		end = bt_fill_batch(r, b, PF_BATCH);
		if (pf->tap && b->n)
			pf->tap(pf->tap_arg, b->ev, b->n);
		atomic_fetch_add(&pf->produced, 1);
		pf_wake(pf, PF_CONS);
		if (end)
			return NULL;
	}
}

static void pf_stop(struct bt_reader *r)
{
	struct prefetch *pf = r->pf;

	if (pf->joined)
		return;
	atomic_store(&pf->stop, 1);
	pthread_mutex_lock(&pf->mu);
	pthread_cond_signal(&pf->cond[PF_PROD]);
	pthread_mutex_unlock(&pf->mu);
	pthread_join(pf->thread, NULL);
	pf->joined = 1;
}

static void pf_free(struct prefetch *pf)
{
	pthread_mutex_destroy(&pf->mu);
	for (int i = 0; i < 2; i++)
		pthread_cond_destroy(&pf->cond[i]);
	free(pf->b);
	free(pf);
}

int bt_reader_prefetch(struct bt_reader *r, struct iot_err *e)
{
	if (r->pf)
		return 0;
	return bt_reader_prefetch_tap(r, NULL, NULL, e);
}

int bt_reader_prefetch_tap(struct bt_reader *r, bt_tap_fn tap, void *arg, struct iot_err *e)
{
	struct prefetch *pf;
	int ret;

	if (r->pf)
		return iot_err_set(e, -EBUSY, "the reader thread is already running");
	if (r->sb)
		return iot_err_set(e, -EBUSY, "prefetch must start before the first batch");
	pf = calloc(1, sizeof(*pf));
	if (!pf || !(pf->b = aligned_alloc(64, PF_NBATCH * sizeof(*pf->b)))) {
		free(pf);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	pthread_mutex_init(&pf->mu, NULL);
	for (int i = 0; i < 2; i++)
		pthread_cond_init(&pf->cond[i], NULL);
	pf->spins = sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? PF_SPINS : 0;
	pf->tap = tap;
	pf->tap_arg = arg;
	r->pf = pf;
	ret = pthread_create(&pf->thread, NULL, pf_main, r);
	if (ret) {
		r->pf = NULL;
		pf_free(pf);
		return iot_err_set(e, -ret, "cannot start the reader thread: %s", strerror(ret));
	}
	return 0;
}

/* The caller's current batch: the prefetched one, or (without prefetch) the one filled here
 * with up to fill events, refilled once used up. NULL with *ret set at the end of the trace or
 * on error. */
static struct pf_batch *cur_batch(struct bt_reader *r, unsigned fill, unsigned **pos, int *ret,
                                  struct iot_err *e)
{
	struct prefetch *pf = r->pf;
	struct pf_batch *b;

	if (!pf) {
		b = r->sb;
		*pos = &r->sb_pos;
		if (r->sb_pos < b->n)
			return b;
		if (b->end || (bt_fill_batch(r, b, fill), r->sb_pos = 0, !b->n))
			goto end;
		return b;
	}
	*pos = &pf->pos;
	for (;;) {
		if (!pf->have) {
			/* the count's ordering makes the reader's writes to the batch visible */
			if (!pf_ok(pf, PF_CONS))
				pf_wait(pf, PF_CONS);
			pf->have = 1;
		}
		b = &pf->b[atomic_load(&pf->consumed) % PF_NBATCH];
		if (pf->pos < b->n)
			return b;
		if (b->end) {
			/* the thread has returned: join it so that its counters are visible */
			pf_stop(r);
			goto end;
		}
		pf->pos = 0;
		pf->have = 0;
		atomic_fetch_add(&pf->consumed, 1);
		pf_wake(pf, PF_PROD);
	}
end:
	/* the batch that ended the trace: 0, or its error */
	if (b->end < 0 && e)
		*e = b->err;
	*ret = b->end < 0 ? b->end : 0;
	return NULL;
}

int bt_reader_next_ref(struct bt_reader *r, const struct blk_event **ev, struct iot_err *e)
{
	int swapped = 0, ret = 1;

	if (r->pf || r->sb) {
		/* batches: PDUs were made host order when they were copied */
		unsigned *pos;
		struct pf_batch *b = cur_batch(r, SB_BATCH, &pos, &ret, e);

		if (!b)
			return ret;
		*ev = &b->ev[(*pos)++];
	} else {
		ret = bt_merge_next(r, ev, &swapped, e);
		if (ret <= 0)
			return ret;
	}
	r->st.events++;
	if (blk_is_notify(*ev))
		handle_notify(r, *ev, swapped);
	return 1;
}

int bt_reader_next_batch(struct bt_reader *r, const struct blk_event **ev, unsigned *n,
                         struct iot_err *e)
{
	return bt_reader_next_batch_max(r, PF_BATCH, ev, n, e);
}

void bt_reader_keep_actions(struct bt_reader *r, uint32_t keep)
{
	r->keep = keep;
}

int bt_reader_next_batch_max(struct bt_reader *r, unsigned max, const struct blk_event **ev,
                             unsigned *n, struct iot_err *e)
{
	struct pf_batch *b;
	unsigned *pos;
	int ret = 1;

	if (!r->pf && !r->sb) {
		/* the first batch without prefetch: from here on, events come by batches */
		r->sb = aligned_alloc(64, sizeof(*r->sb));
		if (!r->sb)
			return iot_err_set(e, -ENOMEM, "out of memory");
		r->sb->n = 0;
		r->sb->end = 0;
		r->sb_pos = 0;
	}
	if (!max)
		max = 1;
	b = cur_batch(r, max < SB_BATCH ? max : SB_BATCH, &pos, &ret, e);
	if (!b)
		return ret;
	*ev = &b->ev[*pos];
	*n = b->n - *pos < max ? b->n - *pos : max;
	*pos += *n;
	r->st.events += *n;
	for (unsigned i = 0, left = b->notifies; left && i < *n; i++)
		if (blk_is_notify(&(*ev)[i])) {
			handle_notify(r, &(*ev)[i], 0);
			left--;
		}
	return 1;
}

int bt_reader_next(struct bt_reader *r, struct blk_event *ev, struct iot_err *e)
{
	const struct blk_event *p =
	    NULL; /* set whenever ret > 0 (gcc -O3 in a Release build cannot tell) */
	int ret = bt_reader_next_ref(r, &p, e);

	if (ret > 0)
		*ev = *p;
	return ret;
}

const struct bt_stats *bt_reader_stats(const struct bt_reader *r)
{
	/* per-file counters live in the sources; gather them on demand, not per event */
	stats_sync((struct bt_reader *)r);
	return &r->st;
}

const char *bt_reader_comm(const struct bt_reader *r, uint32_t pid)
{
	return bt_comm_table_get(r->comms, pid);
}

const struct bt_comm_table *bt_reader_comms(const struct bt_reader *r)
{
	return r->comms;
}

void bt_reader_free(struct bt_reader *r)
{
	if (!r)
		return;
	if (r->pf) {
		pf_stop(r);
		pf_free(r->pf);
	}
	free(r->sb);
	for (unsigned i = 0; i < r->nsrc; i++)
		bt_src_close(&r->src[i]);
	free(r->src);
	free(r->heap);
	free(r->fstats);
	bt_comm_table_free(r->comms);
	free(r);
}
