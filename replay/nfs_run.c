/* SPDX-License-Identifier: MIT */
/* The NFS replay's scheduler: calls in call order, on the capture's clock, under the dependency
 * rule, onto a target; a stream (thread) per client connection when calls overlap. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "replay/clock.h"
#include "replay/engine.h"
#include "replay/nfs_int.h"

struct stream {
	struct run *r;
	uint64_t conn;
	pthread_t th;
	bool started;
	void *ctx;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct nr_op *head, *tail;
	bool quit;
};

struct run {
	const struct nfs_replay_opts *o;
	struct nfs_replay_stats *st;
	struct iot_err *e;
	const struct nr_target_ops *t;
	void *tgt, *ctx; /* the target; the dispatcher's own context (inline calls) */
	struct stream streams[NR_MAX_STREAMS];
	unsigned nstreams;
	struct nr_op **inflight;
	unsigned ninflight, depth;
	pthread_mutex_t done_mu;
	pthread_cond_t done_cv;
	struct rp_clock clk;
	struct nr_record *rec;
	uint64_t spin_ns, first_call, last_cap;
	bool started;
	int err;
};

/* ---- accounting ---- */

static void diverged(struct run *r, const struct nr_op *op)
{
	struct nfs_replay_stats *st = r->st;
	unsigned i;

	for (i = 0; i < st->ndivs; i++)
		if (st->divs[i].proc == op->proc && st->divs[i].cap_status == op->cap_status &&
		    st->divs[i].rep_status == op->rep_status)
			break;
	if (i == st->ndivs) {
		struct nr_div *d = st->ndivs < 256 ? realloc(st->divs, (i + 1) * sizeof(*d)) : NULL;

		if (!d) {
			st->divs_other++;
			goto shown;
		}
		st->divs = d;
		d[i] = (struct nr_div){
		    .proc = op->proc, .cap_status = op->cap_status, .rep_status = op->rep_status};
		st->ndivs++;
	}
	st->divs[i].n++;
shown:
	if (st->nshown < NR_DIVERGENCES_SHOWN) {
		struct nr_div_shown *s = &st->shown[st->nshown++];

		s->seq = op->seq;
		s->proc = op->proc;
		s->cap_status = op->cap_status;
		s->rep_status = op->rep_status;
		snprintf(s->path, sizeof(s->path), "%s%s%s", op->path, op->path2 ? " -> " : "",
		         op->path2 ? op->path2 : "");
	}
}

/* The capture's side of a call: counted whether or not it is replayed. */
static void account_capture(struct run *r, const struct nr_op *op)
{
	struct nfs_replay_stats *st = r->st;
	struct nr_proc *p = &st->procs[op->proc];
	uint64_t end = op->reply_ns > op->call_ns ? op->reply_ns : op->call_ns;

	p->captured++;
	if (!r->first_call || op->call_ns < r->first_call)
		r->first_call = op->call_ns;
	if (end > r->last_cap)
		r->last_cap = end;
	if (op->answered && op->reply_ns >= op->call_ns)
		hist_add(&p->srt, op->reply_ns - op->call_ns);
	if (op->answered && !op->cap_status && (op->act == NR_READ || op->act == NR_WRITE)) {
		p->capture_bytes += op->cap_count;
		if (op->act == NR_READ)
			st->cap_bytes_read += op->cap_count;
		else
			st->cap_bytes_written += op->cap_count;
	}
}

static void account_done(struct run *r, struct nr_op *op)
{
	struct nfs_replay_stats *st = r->st;
	struct nr_proc *p = &st->procs[op->proc];

	if (op->rep_status == NR_NOTDONE) {
		p->skipped++;
		st->skipped++;
		return;
	}
	if (op->rep_status == NR_ESCAPE || op->rep_status == NR_SPECIAL ||
	    op->rep_status == NR_LINKED) {
		p->refused++;
		st->refused++;
		st->escapes += op->rep_status == NR_ESCAPE;
		st->special += op->rep_status == NR_SPECIAL;
		st->linked += op->rep_status == NR_LINKED;
		return;
	}
	if (r->rec && !r->err)
		r->err = nr_record_call(r->rec, st, op, op->stream, r->e);

	p->replayed++;
	st->replayed++;
	st->attrs_skipped += op->attrs_skipped;
	if (op->t_done > op->t_issue)
		hist_add(&p->lat, op->t_done - op->t_issue);
	if (op->act == NR_READ) {
		st->bytes_read += op->rep_bytes;
		p->bytes += op->rep_bytes;
	} else if (op->act == NR_WRITE) {
		st->bytes_written += op->rep_bytes;
		p->bytes += op->rep_bytes;
	}
	if (op->rep_status)
		st->errors++;
	if (!op->answered) {
		p->unanswered++;
		st->unanswered++;
	} else if (op->cap_status == op->rep_status) {
		if (op->rep_status)
			p->same_err++;
		else
			p->same_ok++;
		st->same++;
	} else {
		p->diverged++;
		st->diverged++;
		diverged(r, op);
	}
	if (op->t_done > r->clk.t0 && op->t_done - r->clk.t0 > st->replay_span_ns)
		st->replay_span_ns = op->t_done - r->clk.t0;
}

/* ---- streams ---- */

static void *stream_main(void *arg)
{
	struct stream *s = arg;
	struct run *r = s->r;

	prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0);
	for (;;) {
		struct nr_op *op;

		pthread_mutex_lock(&s->mu);
		while (!s->head && !s->quit)
			pthread_cond_wait(&s->cv, &s->mu);
		op = s->head;
		if (op) {
			s->head = op->next;
			if (!s->head)
				s->tail = NULL;
		}
		pthread_mutex_unlock(&s->mu);
		if (!op)
			return NULL;
		op->t_issue = iot_now_ns();
		r->t->exec(s->ctx, op);
		op->t_done = iot_now_ns();
		pthread_mutex_lock(&r->done_mu);
		atomic_store(&op->done, 1);
		pthread_cond_signal(&r->done_cv);
		pthread_mutex_unlock(&r->done_mu);
	}
}

static struct stream *stream_for(struct run *r, uint64_t conn)
{
	struct stream *s;
	unsigned i;

	for (i = 0; i < r->nstreams; i++)
		if (r->streams[i].conn == conn)
			return &r->streams[i];
	if (r->nstreams == NR_MAX_STREAMS)
		return &r->streams[conn % NR_MAX_STREAMS]; /* more connections share */
	s = &r->streams[r->nstreams];
	memset(s, 0, sizeof(*s));
	s->r = r;
	s->conn = conn;
	r->nstreams++;
	r->st->streams = r->nstreams;
	return s;
}

static int stream_start(struct run *r, struct stream *s)
{
	int ret;

	if (s->started)
		return 0;
	if ((ret = r->t->ctx_new(r->tgt, &s->ctx, r->e)))
		return ret;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	if (pthread_create(&s->th, NULL, stream_main, s)) {
		r->t->ctx_free(s->ctx);
		return iot_err_set(r->e, -EAGAIN, "cannot start a stream's thread");
	}
	s->started = true;
	return 0;
}

static void stream_push(struct stream *s, struct nr_op *op)
{
	op->next = NULL;
	pthread_mutex_lock(&s->mu);
	if (s->tail)
		s->tail->next = op;
	else
		s->head = op;
	s->tail = op;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

static void streams_stop(struct run *r)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];

		if (!s->started)
			continue;
		pthread_mutex_lock(&s->mu);
		s->quit = true;
		pthread_cond_signal(&s->cv);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->th, NULL);
		r->t->ctx_free(s->ctx);
		pthread_mutex_destroy(&s->mu);
		pthread_cond_destroy(&s->cv);
	}
}

/* ---- the dispatcher ---- */

/* Account and free the calls in flight that are done. */
static void reap(struct run *r)
{
	unsigned k = 0;

	for (unsigned i = 0; i < r->ninflight; i++) {
		struct nr_op *op = r->inflight[i];

		if (atomic_load(&op->done)) {
			account_done(r, op);
			free(op);
		} else {
			r->inflight[k++] = op;
		}
	}
	r->ninflight = k;
}

/* Wait for a call in flight to be done (at most a stop-poll slice). */
static void wait_one(struct run *r)
{
	pthread_mutex_lock(&r->done_mu);
	for (unsigned i = 0; i < r->ninflight; i++)
		if (atomic_load(&r->inflight[i]->done))
			goto out;
	{
		/* done_cv is signalled under done_mu after each call: no wakeup is lost */
		struct timespec rt;

		clock_gettime(CLOCK_REALTIME, &rt);
		rt.tv_nsec += RP_STOP_POLL_NS;
		if (rt.tv_nsec >= 1000000000) {
			rt.tv_sec++;
			rt.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&r->done_cv, &r->done_mu, &rt);
	}
out:
	pthread_mutex_unlock(&r->done_mu);
	reap(r);
}

/*
 * The dependency rule: a call waits for every call in flight that the capture had answered
 * before it was called, and for the call in flight on the same file (per file, calls keep
 * their order). Returns true when it must wait; which wait, counted once per call.
 */
static bool must_wait(struct run *r, const struct nr_op *op, bool *dep, bool *file)
{
	for (unsigned i = 0; i < r->ninflight; i++) {
		const struct nr_op *j = r->inflight[i];

		if (j->reply_ns && j->reply_ns <= op->call_ns) {
			*dep = true;
			return true;
		}
		if (j->file_key == op->file_key) {
			*file = true;
			return true;
		}
	}
	return false;
}

static bool stop_asked(const struct run *r)
{
	return r->o->stop && *r->o->stop;
}

static int issue(struct run *r, struct nr_op *op)
{
	struct nfs_replay_stats *st = r->st;
	bool dep = false, file = false, depth = false;
	uint64_t now;
	int ret;

	if (!r->started) {
		struct timespec ts;

		r->started = true;
		r->clk.t0 = iot_now_ns();
		r->clk.trace_t0 = op->call_ns;
		st->t0_ns = r->clk.t0;
		clock_gettime(CLOCK_REALTIME, &ts);
		st->start_real_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	}
	if (r->o->timing == RP_TIMING_ORIGINAL) {
		if ((ret = rp_clock_due(&r->clk, op->call_ns, op->seq, &op->t_due, r->e)))
			return ret;
		if (rp_clock_sleep(op->t_due, r->spin_ns, r->o->stop))
			return 1;
	}
	reap(r);
	while (must_wait(r, op, &dep, &file) || (r->ninflight >= r->depth && (depth = true))) {
		if (stop_asked(r))
			return 1;
		wait_one(r);
	}
	op->stream = (uint32_t)(stream_for(r, op->conn) - r->streams);
	st->dep_waits += dep;
	st->file_waits += file;
	st->depth_waits += depth;
	now = iot_now_ns();
	if (op->t_due && now > op->t_due)
		hist_add(&st->lag, now - op->t_due);
	else if (op->t_due)
		hist_add(&st->lag, 0);
	if (!r->ninflight && !op->overlaps) {
		/* nothing overlaps it: done here, without a thread's wakeup */
		op->t_issue = now;
		r->t->exec(r->ctx, op);
		op->t_done = iot_now_ns();
		account_done(r, op);
		free(op);
		return 0;
	}
	{
		struct stream *s = stream_for(r, op->conn);

		if ((ret = stream_start(r, s)))
			return ret;
		r->inflight[r->ninflight++] = op;
		if (r->ninflight > st->max_inflight)
			st->max_inflight = r->ninflight;
		stream_push(s, op);
	}
	return 0;
}

/* The next call to replay: the capture's side of every call counted, skipped and refused
 * ones counted and dropped. NULL at the end (or on an error: *err). */
static struct nr_op *fetch(struct run *r, struct nr_source *src, int *err, struct iot_err *e)
{
	struct nfs_replay_stats *st = r->st;
	struct nr_op *op;

	if (*err)
		return NULL;
	while ((op = nr_source_next(src, err, e))) {
		struct nr_proc *p = &st->procs[op->proc];

		account_capture(r, op);
		if (op->act != NR_SKIP && !op->refused)
			return op;
		if (op->act == NR_SKIP) {
			p->skipped++;
			st->skipped++;
		} else {
			p->refused++;
			st->refused++;
			st->hostile += op->hostile;
		}
		free(op);
	}
	return NULL;
}

int nfs_replay_run(const struct nfs_replay_opts *o, struct nfs_replay_stats *st, struct iot_err *e)
{
	struct run r = {.o = o, .st = st, .e = e};
	struct nr_source *src = NULL;
	struct nr_op *op;
	int ret, err = 0, slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);

	memset(st, 0, sizeof(*st));
	hist_init(&st->lag);
	r.t = o->nfs_url ? &nr_target_libnfs : &nr_target_posix;
	st->target_kind = r.t->kind;
	r.depth = o->depth ? o->depth : NR_DEFAULT_DEPTH;
	r.spin_ns = rp_clock_spin(o->spin_ns);
	r.clk = (struct rp_clock){.speed = o->speed, .max_gap = o->max_gap_ns, .what = "call"};
	/* before anything is opened for writing */
	if (o->target_dir &&
	    (ret = nfs_replay_check_output("--record", o->record_dir, o->target_dir, e)))
		return ret;
	if (!(r.inflight = calloc(r.depth, sizeof(*r.inflight))))
		return iot_err_set(e, -ENOMEM, "out of memory");
	pthread_mutex_init(&r.done_mu, NULL);
	pthread_cond_init(&r.done_cv, NULL);
	if ((ret = r.t->open(&r.tgt, o, e)))
		goto out;
	if ((ret = r.t->ctx_new(r.tgt, &r.ctx, e)))
		goto out;
	if (o->prepare && (ret = nr_prepare(o, r.t, r.ctx, st, e)))
		goto out;
	if ((ret = nr_source_open(&src, o, st, e)))
		goto out;
	if (o->record_dir && (ret = nr_record_open(&r.rec, o->record_dir, e)))
		goto out;
	if (o->on_start && (ret = o->on_start(o->on_start_arg))) {
		iot_err_set(e, ret, "--capture did not start");
		goto out;
	}
	prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0);
	op = fetch(&r, src, &err, e);
	while (op) {
		struct nr_op *next = fetch(&r, src, &err, e);

		op->overlaps = next && (!op->reply_ns || next->call_ns < op->reply_ns);
		st->placeholders += op->placeholder;
		ret = stop_asked(&r) ? 1 : issue(&r, op);
		if (ret)
			free(op); /* not issued */
		else
			ret = r.err; /* --record could not write */
		if (ret) {
			free(next);
			if (ret == 1) {
				st->stopped = true;
				ret = 0;
			}
			break;
		}
		op = next;
	}
	if (!ret && err)
		ret = err;
	while (r.ninflight)
		wait_one(&r);
	st->capture_span_ns = r.last_cap > r.first_call ? r.last_cap - r.first_call : 0;
	if (!ret && r.err)
		ret = r.err;
	if (r.rec) {
		struct nr_record *rec = r.rec;

		r.rec = NULL;
		if (ret)
			nr_record_abort(rec);
		else
			ret = nr_record_close(rec, o, st, e);
	}
out:
	nr_record_abort(r.rec);
	if (slack > 0)
		prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
	streams_stop(&r);
	nr_source_free(src);
	if (r.ctx)
		r.t->ctx_free(r.ctx);
	if (r.tgt)
		r.t->close(r.tgt);
	free(r.inflight);
	pthread_mutex_destroy(&r.done_mu);
	pthread_cond_destroy(&r.done_cv);
	return ret;
}
