/* SPDX-License-Identifier: MIT */
/* The blkparse export's printer threads: chunks of lines formatted at once, written in order. */
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "export/bp_pass_int.h"

/*
 * Each printer takes the next chunk handed over, formats it into its own buffer and, once
 * every chunk before it is written, writes it: the text comes out in order while two or more
 * chunks are formatted at once (on a 2-CPU machine the pass and two printers share the work
 * more evenly than the pass and one printer: formatting is the larger half).
 */

/* bp_out's turn hook: wait until every chunk before this printer's is written. */
static void printer_turn(void *arg)
{
	struct bp_printer *p = arg;
	struct bp *b = p->b;

	pthread_mutex_lock(&b->mu);
	while (b->written != p->chunk)
		pthread_cond_wait(&b->cv, &b->mu);
	pthread_mutex_unlock(&b->mu);
}

static void *printer(void *arg)
{
	struct bp_printer *p = arg;
	struct bp *b = p->b;

	pthread_mutex_lock(&b->mu);
	for (;;) {
		while (b->taken == b->produced && !b->finished)
			pthread_cond_wait(&b->cv, &b->mu);
		if (b->taken == b->produced)
			break;
		p->chunk = b->taken++;
		pthread_mutex_unlock(&b->mu);
		bp_lines_print(p->lines, b->ring[p->chunk % NRING]);
		bp_out_flush(p->out); /* after printer_turn() */
		pthread_mutex_lock(&b->mu);
		b->written = p->chunk + 1;
		if (p->out->err && !b->werr)
			b->werr = p->out->err;
		pthread_cond_broadcast(&b->cv);
	}
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

bool chunk_send(struct bp *b)
{
	int werr;
	struct bp_chunk *c = b->cur;
	size_t off = 0;

	/* the PDUs' places in the arena, now that it no longer moves */
	for (unsigned i = 0; i < c->n; i++)
		if (c->job[i].ev.pdu_len) {
			c->job[i].ev.pdu = c->arena + off;
			off += c->job[i].ev.pdu_len;
		}
	pthread_mutex_lock(&b->mu);
	b->produced++;
	pthread_cond_broadcast(&b->cv);
	while (b->produced - b->written == NRING)
		pthread_cond_wait(&b->cv, &b->mu);
	werr = b->werr;
	pthread_mutex_unlock(&b->mu);
	b->cur = b->ring[b->produced % NRING];
	b->cur->n = 0;
	b->cur->used = 0;
	return !werr;
}

void printers_stop(struct bp *b)
{
	pthread_mutex_lock(&b->mu);
	b->finished = true;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
	for (unsigned i = 0; i < b->nprinters; i++)
		if (b->printer[i].started) {
			pthread_join(b->printer[i].thread, NULL);
			b->printer[i].started = false;
		}
}

/* As many printers as CPUs this process may run on, from one to NPRINTER_MAX. */
static unsigned printers_wanted(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 2;
	n = CPU_COUNT(&set);
	return n < 1 ? 1 : n > NPRINTER_MAX ? NPRINTER_MAX : (unsigned)n;
}

struct bp_out *out_new(int fd)
{
	struct bp_out *o = malloc(sizeof(*o));

	if (o) {
		memset(o, 0, offsetof(struct bp_out, buf));
		o->fd = fd;
	}
	return o;
}

int printers_start(struct bp *b, int fd, struct iot_err *e)
{
	unsigned n = printers_wanted();

	for (unsigned i = 0; i < n; i++) {
		struct bp_printer *p = &b->printer[i];
		int ret;

		p->b = b;
		p->out = out_new(fd);
		p->lines = p->out ? bp_lines_new(p->out) : NULL;
		b->nprinters = i + 1;
		if (!p->lines)
			return iot_err_set(e, -ENOMEM, "out of memory");
		p->out->turn = printer_turn;
		p->out->ctx = p;
		if ((ret = pthread_create(&p->thread, NULL, printer, p)))
			return iot_err_set(e, -ret, "cannot start a thread: %s", strerror(ret));
		p->started = true;
	}
	return 0;
}
