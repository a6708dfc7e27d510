/* SPDX-License-Identifier: MIT */
/* The bpf backend's records between the ring buffer and the blktrace files: a backlog the
 * reader thread fills and an idle-priority encoder thread empties. */
#include "capture/bpf_int.h"

#ifdef IOTAPE_HAVE_BPF

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * Why: making blktrace records of the ring buffer's records (bpf_records.c, bpf_order.c,
 * blk_sink.c) costs a few hundred ns per IO, and on a machine whose CPUs the traced workload
 * fills, whatever CPU the capture takes is taken from the workload. Moving a record off the
 * ring buffer costs a copy. So the reader thread only copies records into chunks, and one
 * encoder thread at SCHED_IDLE (it runs only on a CPU nothing else wants) makes them into
 * blktrace records, in the order they came: the files are byte for byte what the reader thread
 * would have written itself.
 *
 * Bounded: the chunks waiting (and the one being filled and the one being encoded) hold at
 * most `cap` bytes before the encoder is given back the reader's scheduling policy (the
 * workload then pays for encoding, as it did before) until it is down to half; at twice the
 * cap the reader waits for it (the ring buffer fills, and what the kernel cannot put in it is
 * counted as lost, as always). When the capture stops, the encoder runs at the reader's
 * policy until the backlog is empty: the time that takes is in the manifest.
 */

#define CHUNK_BYTES (512u << 10)
#define FREE_MAX 4 /* empty chunks kept for reuse */
#define REC_ALIGN 8

struct chunk {
	struct chunk *next;
	size_t used;
	uint8_t data[];
};
#define CHUNK_DATA (CHUNK_BYTES - offsetof(struct chunk, data))

struct capbpf_spool {
	struct cap_backend_state *s;
	pthread_mutex_t mu;
	pthread_cond_t more, room;
	pthread_t thread;
	int started;
	struct chunk *head, *tail; /* waiting for the encoder, oldest first */
	struct chunk *fill;        /* the reader's, not yet handed over */
	struct chunk *spare;       /* empty ones */
	unsigned nspare;
	size_t held, cap, peak; /* bytes of chunks in use: waiting, filled, being encoded */
	int policy;             /* the reader's scheduling policy and priority: the boost */
	struct sched_param param;
	int waiting; /* the encoder waits for a chunk */
	int paused;  /* capbpf_spool_pause(): the encoder takes none */
	int boosted, final, discard, err;
	struct iot_err e;
	uint64_t boosts, stalls, finish_ns;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* the encoder at the reader's policy (under mu) */
static void boost(struct capbpf_spool *sp)
{
	if (sp->boosted)
		return;
	sp->boosted = 1;
	sp->boosts += !sp->final;
	pthread_setschedparam(sp->thread, sp->policy, &sp->param);
}

/* Every record of c to the sink's order (bpf_records.c), then what is old enough out. */
static int encode(struct capbpf_spool *sp, const struct chunk *c)
{
	struct cap_backend_state *s = sp->s;
	size_t at = 0;
	int ret;

	while (at + REC_ALIGN <= c->used) {
		uint64_t size;

		memcpy(&size, c->data + at, sizeof(size));
		if ((ret = capbpf_on_record(s, (void *)(c->data + at + REC_ALIGN), (size_t)size)))
			return ret;
		at += REC_ALIGN + ((size + REC_ALIGN - 1) & ~(uint64_t)(REC_ALIGN - 1));
	}
	return capbpf_flush(s, 0);
}

static void *encoder_main(void *arg)
{
	struct capbpf_spool *sp = arg;
	struct sched_param idle = {0};
	struct chunk *c;
	int ret, skip;

	pthread_mutex_lock(&sp->mu);
	if (!sp->boosted)
		pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
	for (;;) {
		while ((!sp->head || sp->paused) && !sp->final) {
			sp->waiting = !sp->head;
			pthread_cond_wait(&sp->more, &sp->mu);
			sp->waiting = 0;
		}
		if (!(c = sp->head))
			break;
		if (!(sp->head = c->next))
			sp->tail = NULL;
		skip = sp->err || sp->discard;
		pthread_mutex_unlock(&sp->mu);
		ret = skip ? 0 : encode(sp, c);
		pthread_mutex_lock(&sp->mu);
		if (ret && !sp->err) {
			sp->err = ret;
			sp->e = sp->s->e;
		}
		sp->held -= CHUNK_BYTES;
		if (sp->nspare < FREE_MAX) {
			c->next = sp->spare;
			sp->spare = c;
			sp->nspare++;
		} else {
			free(c);
		}
		if (sp->boosted && !sp->final && sp->held <= sp->cap / 2) {
			sp->boosted = 0;
			pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
		}
		pthread_cond_broadcast(&sp->room);
	}
	pthread_mutex_unlock(&sp->mu);
	return NULL;
}

int capbpf_spool_new(struct cap_backend_state *s, uint64_t cap, struct iot_err *e)
{
	struct capbpf_spool *sp = calloc(1, sizeof(*sp));
	int ret;

	if (!sp)
		return iot_err_set(e, -ENOMEM, "out of memory");
	sp->s = s;
	sp->cap = cap < 2 * CHUNK_BYTES ? 2 * CHUNK_BYTES : (size_t)cap;
	pthread_mutex_init(&sp->mu, NULL);
	pthread_cond_init(&sp->more, NULL);
	pthread_cond_init(&sp->room, NULL);
	if ((ret = pthread_getschedparam(pthread_self(), &sp->policy, &sp->param))) {
		sp->policy = SCHED_OTHER;
		memset(&sp->param, 0, sizeof(sp->param));
	}
	s->spool = sp;
	if ((ret = pthread_create(&sp->thread, NULL, encoder_main, sp)))
		return iot_err_set(e, -ret, "bpf: cannot start the encoder thread: %s",
		                   strerror(ret));
	sp->started = 1;
	pthread_setname_np(sp->thread, "iotape-encode"); /* for top -H and perf */
	return 0;
}

/* The reader's chunk to the encoder (under mu). */
static void hand_over(struct capbpf_spool *sp)
{
	struct chunk *c = sp->fill;

	sp->fill = NULL;
	c->next = NULL;
	if (sp->tail)
		sp->tail->next = c;
	else
		sp->head = c;
	sp->tail = c;
	/* until it has run and waits again (at SCHED_IDLE that can take a while): no more
	 * partial chunks, each of which counts whole against the cap */
	sp->waiting = 0;
	pthread_cond_signal(&sp->more);
}

/* A chunk for the reader to fill, the full one handed over: waits while twice the cap is
 * held (the encoder boosted). */
static int next_chunk(struct capbpf_spool *sp)
{
	struct chunk *c;

	pthread_mutex_lock(&sp->mu);
	if (sp->fill)
		hand_over(sp);
	if (sp->held + CHUNK_BYTES > sp->cap)
		boost(sp);
	if (sp->held + CHUNK_BYTES > 2 * sp->cap && !sp->err) {
		sp->stalls++;
		while (sp->held + CHUNK_BYTES > 2 * sp->cap && !sp->err)
			pthread_cond_wait(&sp->room, &sp->mu);
	}
	if ((c = sp->spare)) {
		sp->spare = c->next;
		sp->nspare--;
	}
	sp->held += CHUNK_BYTES;
	if (sp->held > sp->peak)
		sp->peak = sp->held;
	pthread_mutex_unlock(&sp->mu);
	if (!c && !(c = malloc(CHUNK_BYTES))) {
		pthread_mutex_lock(&sp->mu);
		sp->held -= CHUNK_BYTES;
		if (!sp->err)
			sp->err = iot_err_set(&sp->e, -ENOMEM, "bpf: out of memory");
		pthread_mutex_unlock(&sp->mu);
		return -ENOMEM;
	}
	c->used = 0;
	sp->fill = c;
	return 0;
}

int capbpf_spool_add(void *ctx, void *data, size_t size)
{
	struct capbpf_spool *sp = ((struct cap_backend_state *)ctx)->spool;
	size_t need = REC_ALIGN + ((size + REC_ALIGN - 1) & ~(size_t)(REC_ALIGN - 1));
	uint64_t sz = size;
	uint8_t *p;
	int ret;

	if (need > CHUNK_DATA)
		return 0; /* no record of ours is this long */
	if ((!sp->fill || sp->fill->used + need > CHUNK_DATA) && (ret = next_chunk(sp)))
		return ret;
	p = sp->fill->data + sp->fill->used;
	memcpy(p, &sz, sizeof(sz));
	memcpy(p + REC_ALIGN, data, size);
	sp->fill->used += need;
	return 0;
}

int capbpf_spool_poll(struct cap_backend_state *s, int final, struct iot_err *e)
{
	struct capbpf_spool *sp = s->spool;
	uint64_t t0;
	int err;

	pthread_mutex_lock(&sp->mu);
	/* an encoder with nothing to do takes what there is; a busy one, full chunks */
	if (sp->fill && sp->fill->used && (sp->waiting || final))
		hand_over(sp);
	if (final && sp->started) {
		sp->final = 1; /* before the boost: not counted */
		boost(sp);
		pthread_cond_signal(&sp->more);
	}
	err = sp->err;
	if (err)
		*e = sp->e;
	pthread_mutex_unlock(&sp->mu);
	if (!final || !sp->started)
		return err;
	t0 = now_ns();
	pthread_join(sp->thread, NULL);
	sp->started = 0;
	sp->finish_ns = now_ns() - t0;
	if (!err && (err = sp->err))
		*e = sp->e;
	return err;
}

void capbpf_spool_pause(struct cap_backend_state *s, int pause)
{
	struct capbpf_spool *sp = s->spool;

	pthread_mutex_lock(&sp->mu);
	sp->paused = pause;
	pthread_cond_signal(&sp->more);
	pthread_mutex_unlock(&sp->mu);
}

json_t *capbpf_spool_json(const struct cap_backend_state *s)
{
	const struct capbpf_spool *sp = s->spool;

	if (!sp)
		return json_pack("{s:s}", "thread", "reader");
	return json_pack("{s:s, s:I, s:I, s:I, s:I, s:f}", "thread", "idle", "backlog_cap_bytes",
	                 (json_int_t)sp->cap, "backlog_peak_bytes", (json_int_t)sp->peak, "boosts",
	                 (json_int_t)sp->boosts, "reader_stalls", (json_int_t)sp->stalls,
	                 "finish_s", sp->finish_ns / 1e9);
}

void capbpf_spool_end(struct cap_backend_state *s)
{
	struct capbpf_spool *sp = s->spool;

	if (sp && sp->started) {
		/* not finished by a final poll (an error): what waits is dropped */
		pthread_mutex_lock(&sp->mu);
		sp->final = sp->discard = 1;
		boost(sp);
		pthread_cond_signal(&sp->more);
		pthread_mutex_unlock(&sp->mu);
		pthread_join(sp->thread, NULL);
		sp->started = 0;
	}
}

void capbpf_spool_free(struct cap_backend_state *s)
{
	struct capbpf_spool *sp = s->spool;
	struct chunk *c;

	if (!sp)
		return;
	capbpf_spool_end(s);
	free(sp->fill);
	while ((c = sp->head)) {
		sp->head = c->next;
		free(c);
	}
	while ((c = sp->spare)) {
		sp->spare = c->next;
		free(c);
	}
	pthread_mutex_destroy(&sp->mu);
	pthread_cond_destroy(&sp->more);
	pthread_cond_destroy(&sp->room);
	free(sp);
	s->spool = NULL;
}

#else

typedef int capbpf_not_built; /* not an empty translation unit */

#endif
