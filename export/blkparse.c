/* SPDX-License-Identifier: MIT */
/* blkparse's default text, byte for byte: the pass (its merge order and counters). */
/*
 * What blkparse 1.2 (blktrace's blkparse.c and blkparse_fmt.c, default options, per-CPU
 * files given with -i) does, as far as its output shows, restated here:
 *
 * - Each per-CPU file is a stream read in batches of 512 records. Reading a batch handles
 *   its PROCESS notifies at once (a pid keeps the first name it is given; an event whose pid
 *   has no name yet prints "(null)"), drops records whose CPU field is not the file's, and
 *   keeps the others, messages included. A batch that keeps nothing ends the stream.
 * - Streams are kept in a list ordered by the time of their next record. The head's record
 *   is handled; then, if the head's next record is later than the second stream's, the head
 *   is taken out and put back before the first stream (after the new head) whose record is
 *   not earlier. A new stream goes to the front if it is strictly the earliest, else after
 *   the head and every stream earlier than it. Times print relative to the first record of
 *   the list's head at the start.
 * - Each record handled counts for its file's CPU; a record with any category bit is
 *   "dumped": a line (bp_lines.c), the device's event count, and per-CPU counters
 *   (queued, dispatched, completed, merged, requeued, with the kernel's passthrough (PC)
 *   requests apart, and unplugs) and per-device depth.
 * - At the end, for each device: per CPU (with records) the counters, then a total if more
 *   than one CPU had records, the throughput, the event count and the skips (always 0 here:
 *   blkparse checks sequences only when reading from a pipe). Numbers in the summaries use
 *   the en_US locale's thousands separators when that locale is installed.
 * - "Input file NAME added" lines and the notice about driver data go through stdout's own
 *   buffer, flushed at exit: after everything else.
 */
#include "export/bp_int.h"

#include <errno.h>
#include <libgen.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/blktrace.h"
#include "formats/instream.h"
#include "formats/rundir.h"

#define BP_BATCH 512 /* blkparse's rb_batch: records read from a file at a time */
#define NRING                                                                                      \
	16 /* chunks between the pass and the printer thread: room for either to be descheduled */

/* v7's action word: categories above bit 16, the action below (and __BLK_TA_CGROUP). */
#define TC_NOTIFY (1u << 10)
#define TC_PC (1u << 9)
#define TA_CGROUP (1u << 8)
#define TN_MESSAGE ((TC_NOTIFY << 16) | BLK_N_MESSAGE)
#define TN_PROCESS ((TC_NOTIFY << 16) | BLK_N_PROCESS)

struct bp_stream {
	struct bt_reader *r;
	struct bp_dev *dev;
	unsigned cpu;
	bool done;
	struct blk_event batch[BP_BATCH];
	unsigned n, pos;
	uint8_t *arena; /* the batch's PDUs */
	size_t arena_cap;
	/* the reader's current batch, taken from by prime() */
	const struct blk_event *rb;
	unsigned rb_n, rb_pos;
};

struct bp {
	struct bp_dev *devs;
	unsigned ndevs;
	struct bp_stream **streams;
	unsigned nstreams;
	unsigned *order; /* the list: stream indices, head first */
	unsigned norder;
	uint64_t genesis;
	/* pid -> name: a hash of pointers to names that never move */
	struct bp_name **hash;
	size_t hcap, nnames;
	struct bp_name *cached; /* the name of cached_pid (NULL: none yet) */
	uint32_t cached_pid;
	bool have_cached;
	bool drv_data;
	char **inputs; /* "Input file ... added" paths, in order */
	unsigned ninputs;
	struct export_stats *st;
	/* the lines go to a printer thread, a chunk at a time */
	struct bp_out *out;
	struct bp_lines *lines;
	struct bp_chunk *ring[NRING];
	struct bp_chunk *cur;
	uint64_t produced, consumed;
	int werr; /* the printer's first write error, seen under mu */
	bool finished, have_thread;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

/* ---- names --------------------------------------------------------------------------- */

static size_t name_hash(uint32_t pid, size_t cap)
{
	return (pid * 2654435761u) & (cap - 1);
}

static int names_grow(struct bp *b)
{
	size_t cap = b->hcap ? b->hcap * 2 : 256;
	struct bp_name **h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < b->hcap; i++) {
		size_t k;

		if (!b->hash[i])
			continue;
		for (k = name_hash(b->hash[i]->pid, cap); h[k]; k = (k + 1) & (cap - 1))
			;
		h[k] = b->hash[i];
	}
	free(b->hash);
	b->hash = h;
	b->hcap = cap;
	return 0;
}

static struct bp_name **name_slot(const struct bp *b, uint32_t pid)
{
	size_t k;

	for (k = name_hash(pid, b->hcap); b->hash[k]; k = (k + 1) & (b->hcap - 1))
		if (b->hash[k]->pid == pid)
			break;
	return &b->hash[k];
}

/* A PROCESS note: a pid keeps the first name it is given (blkparse's add_ppm_hash). */
static int name_add(struct bp *b, uint32_t pid, const uint8_t *pdu, unsigned len)
{
	struct bp_name **slot, *n;

	if ((b->nnames + 1) * 2 > b->hcap && names_grow(b))
		return -ENOMEM;
	slot = name_slot(b, pid);
	if (*slot)
		return 0;
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->pid = pid;
	/* strncpy of 16 bytes, then the 16th cleared; a short PDU ends the name */
	for (unsigned i = 0; i < 15 && i < len && pdu[i]; i++)
		n->comm[n->len++] = (char)pdu[i];
	*slot = n;
	b->nnames++;
	if (pid == b->cached_pid)
		b->have_cached = false;
	return 0;
}

static inline const struct bp_name *name_of(struct bp *b, uint32_t pid)
{
	if (!b->have_cached || pid != b->cached_pid) {
		b->cached = *name_slot(b, pid);
		b->cached_pid = pid;
		b->have_cached = true;
	}
	return b->cached;
}

/* ---- streams ------------------------------------------------------------------------- */

static uint32_t action_word(const struct blk_event *ev)
{
	uint32_t a = (ev->flags & 0xffffu) << 16 | ev->action;

	if (ev->flags & BLK_F_CGROUP)
		a |= TA_CGROUP;
	return a;
}

/* Read the stream's next batch: 1 if it kept records, 0 if the stream ends, -errno. */
static int prime(struct bp *b, struct bp_stream *s, struct iot_err *e)
{
	const struct blk_event *ev;
	size_t used = 0;
	unsigned slots = 0;
	size_t pdu_off[BP_BATCH];

	s->n = s->pos = 0;
	while (!s->done && slots < BP_BATCH) {
		if (s->rb_pos == s->rb_n) {
			int ret = bt_reader_next_batch(s->r, &s->rb, &s->rb_n, e);

			if (ret < 0)
				return ret;
			if (!ret) {
				s->done = true;
				break;
			}
			s->rb_pos = 0;
		}
		ev = &s->rb[s->rb_pos++];
		b->st->events++;
		if (ev->cpu != s->cpu) {
			slots++; /* dropped, but it took its place in the batch */
			continue;
		}
		if (blk_is_notify(ev) && action_word(ev) != TN_MESSAGE) {
			if (action_word(ev) == TN_PROCESS &&
			    name_add(b, ev->pid, ev->pdu, ev->pdu_len))
				return iot_err_set(e, -ENOMEM, "out of memory");
			continue;
		}
		s->batch[s->n] = *ev;
		pdu_off[s->n] = used;
		if (ev->pdu_len) {
			if (used + ev->pdu_len > s->arena_cap) {
				size_t cap = (used + ev->pdu_len) * 2;
				uint8_t *a = realloc(s->arena, cap);

				if (!a)
					return iot_err_set(e, -ENOMEM, "out of memory");
				s->arena = a;
				s->arena_cap = cap;
			}
			memcpy(s->arena + used, ev->pdu, ev->pdu_len);
			used += ev->pdu_len;
		}
		s->n++;
		slots++;
	}
	for (unsigned i = 0; i < s->n; i++)
		if (s->batch[i].pdu_len)
			s->batch[i].pdu = s->arena + pdu_off[i];
	if (!s->n)
		s->done = true;
	return s->n > 0;
}

static inline uint64_t head_time(const struct bp *b, unsigned i)
{
	const struct bp_stream *s = b->streams[i];

	return s->batch[s->pos].time;
}

/* blkparse's ms_sort: into the list, by the time of the stream's next record. */
static void list_insert(struct bp *b, unsigned si)
{
	uint64_t t = head_time(b, si);
	unsigned at;

	if (!b->norder || t < head_time(b, b->order[0])) {
		at = 0;
	} else {
		at = 1;
		while (at < b->norder && head_time(b, b->order[at]) < t)
			at++;
	}
	memmove(b->order + at + 1, b->order + at, (b->norder - at) * sizeof(*b->order));
	b->order[at] = si;
	b->norder++;
}

/* ---- the printer thread ------------------------------------------------------------- */

static void *printer(void *arg)
{
	struct bp *b = arg;

	pthread_mutex_lock(&b->mu);
	for (;;) {
		struct bp_chunk *c;

		while (b->consumed == b->produced && !b->finished)
			pthread_cond_wait(&b->cv, &b->mu);
		if (b->consumed == b->produced)
			break;
		c = b->ring[b->consumed % NRING];
		pthread_mutex_unlock(&b->mu);
		bp_lines_print(b->lines, c);
		pthread_mutex_lock(&b->mu);
		b->consumed++;
		b->werr = b->out->err;
		pthread_cond_broadcast(&b->cv);
	}
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

/* Hand the chunk being filled to the printer; wait for a free one. false once a write
 * failed. */
static bool chunk_send(struct bp *b)
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
	while (b->produced - b->consumed == NRING)
		pthread_cond_wait(&b->cv, &b->mu);
	werr = b->werr;
	pthread_mutex_unlock(&b->mu);
	b->cur = b->ring[b->produced % NRING];
	b->cur->n = 0;
	b->cur->used = 0;
	return !werr;
}

static void printer_stop(struct bp *b)
{
	if (!b->have_thread)
		return;
	pthread_mutex_lock(&b->mu);
	b->finished = true;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
	pthread_join(b->thread, NULL);
	b->have_thread = false;
}

/* A line for ev; its PDU goes with it when the line shows it. Returns false when out of
 * memory or once a write failed. */
static inline bool job(struct bp *b, const struct blk_event *ev, uint64_t t, unsigned cpu,
                       unsigned act, bool pc, bool pdu)
{
	struct bp_chunk *c = b->cur;
	struct bp_job *j;

	if (c->n == BP_CHUNK) {
		if (!chunk_send(b))
			return false;
		c = b->cur;
	}
	j = &c->job[c->n];
	j->ev = *ev;
	j->t = t;
	j->cpu = cpu;
	j->act = (uint8_t)act;
	j->pc = pc;
	j->name = act == BP_MSG ? NULL : name_of(b, ev->pid);
	if (!pdu || !ev->pdu_len) {
		j->ev.pdu_len = 0;
	} else {
		if (c->used + ev->pdu_len > c->cap) {
			size_t cap = (c->used + ev->pdu_len) * 2;
			uint8_t *a = realloc(c->arena, cap);

			if (!a)
				return false;
			c->arena = a;
			c->cap = cap;
		}
		memcpy(c->arena + c->used, ev->pdu, ev->pdu_len);
		c->used += ev->pdu_len;
	}
	c->n++;
	return true;
}

/* ---- one record ---------------------------------------------------------------------- */

static void count_bytes(uint64_t *n, uint64_t *kb, uint64_t *rest, uint32_t bytes)
{
	(*n)++;
	*kb += bytes >> 10;
	*rest += bytes & 1023;
}

static void depth_up(struct bp_dev *d, int w)
{
	if (++d->depth[w] > d->max_depth[w])
		d->max_depth[w] = d->depth[w];
}

static void depth_down(struct bp_dev *d, int w)
{
	if (d->depth[w])
		d->depth[w]--;
}

/* blkparse's dump_trace_pc(): a passthrough request's counters and line. */
static bool dump_pc(struct bp *b, struct bp_stream *s, struct bp_ios *c, const struct blk_event *ev,
                    uint64_t t, unsigned act)
{
	int w = (ev->flags & BLK_F_WRITE) != 0;

	switch (act) {
	case BLK_A_QUEUE:
		/* blkparse adds a PC read's KiB to the non-PC queued reads */
		count_bytes(&c->pc_q[w], w ? &c->pc_q_kb[1] : &c->q_kb[0], &c->pc_q_b[w],
		            ev->bytes);
		return job(b, ev, t, s->cpu, BP_Q, true, false);
	case BLK_A_GETRQ:
		return job(b, ev, t, s->cpu, BP_G, true, false);
	case BLK_A_SLEEPRQ:
		return job(b, ev, t, s->cpu, BP_S, true, false);
	case BLK_A_REQUEUE:
		depth_down(s->dev, w);
		c->pc_rq[w]++;
		c->pc_i_kb[w] -= ev->bytes >> 10;
		c->pc_i_b[w] -= ev->bytes & 1023;
		return job(b, ev, t, s->cpu, BP_R, true, false);
	case BLK_A_ISSUE:
		count_bytes(&c->pc_i[w], &c->pc_i_kb[w], &c->pc_i_b[w], ev->bytes);
		depth_up(s->dev, w);
		return job(b, ev, t, s->cpu, BP_D, true, true);
	case BLK_A_COMPLETE:
		depth_down(s->dev, w);
		c->pc_c[w]++;
		return job(b, ev, t, s->cpu, BP_C, true, true);
	case BLK_A_INSERT:
		return job(b, ev, t, s->cpu, BP_I, true, true);
	}
	return true; /* blkparse: "Bad pc action" on stderr */
}

/* blkparse's dump_trace_fs(): a request's or bio's counters and line. */
static bool dump_fs(struct bp *b, struct bp_stream *s, struct bp_ios *c, const struct blk_event *ev,
                    uint64_t t, unsigned act)
{
	int w = (ev->flags & BLK_F_WRITE) != 0;

	switch (act) {
	case BLK_A_QUEUE:
		count_bytes(&c->q[w], &c->q_kb[w], &c->q_b[w], ev->bytes);
		return job(b, ev, t, s->cpu, BP_Q, false, false);
	case BLK_A_INSERT:
		return job(b, ev, t, s->cpu, BP_I, false, false);
	case BLK_A_BACKMERGE:
	case BLK_A_FRONTMERGE:
		count_bytes(&c->m[w], &c->m_kb[w], &c->m_b[w], ev->bytes);
		return job(b, ev, t, s->cpu, act == BLK_A_BACKMERGE ? BP_M : BP_F, false, false);
	case BLK_A_GETRQ:
		return job(b, ev, t, s->cpu, BP_G, false, false);
	case BLK_A_SLEEPRQ:
		return job(b, ev, t, s->cpu, BP_S, false, false);
	case BLK_A_REQUEUE:
		depth_down(s->dev, w);
		c->rq[w]++;
		c->i_kb[w] -= ev->bytes >> 10;
		c->i_b[w] -= ev->bytes & 1023;
		return job(b, ev, t, s->cpu, BP_R, false, false);
	case BLK_A_ISSUE:
		count_bytes(&c->i[w], &c->i_kb[w], &c->i_b[w], ev->bytes);
		depth_up(s->dev, w);
		return job(b, ev, t, s->cpu, BP_D, false, false);
	case BLK_A_COMPLETE:
		depth_down(s->dev, w);
		count_bytes(&c->c[w], &c->c_kb[w], &c->c_b[w], ev->bytes);
		return job(b, ev, t, s->cpu, BP_C, false, false);
	case BLK_A_PLUG:
		return job(b, ev, t, s->cpu, BP_P, false, false);
	case BLK_A_UNPLUG_IO:
		c->io_unplugs++;
		return job(b, ev, t, s->cpu, BP_U, false, true);
	case BLK_A_UNPLUG_TIMER:
		c->timer_unplugs++;
		return job(b, ev, t, s->cpu, BP_UT, false, true);
	case BLK_A_SPLIT:
		return job(b, ev, t, s->cpu, BP_X, false, true);
	case BLK_A_BOUNCE:
		return job(b, ev, t, s->cpu, BP_B, false, false);
	case BLK_A_REMAP:
		return job(b, ev, t, s->cpu, BP_A, false, true);
	case BLK_A_DRV_DATA:
		b->drv_data = true; /* in binary dumps only */
		return true;
	}
	return true; /* blkparse: "Bad fs action" on stderr */
}

/* blkparse's handle(): the list head's next record. */
static bool handle(struct bp *b, struct bp_stream *s)
{
	const struct blk_event *ev = &s->batch[s->pos];
	struct bp_dev *d = s->dev;
	struct bp_cpu *c = &d->cpus[s->cpu];
	uint32_t aw = action_word(ev);
	uint64_t t = ev->time - b->genesis;
	bool ok = true;

	c->nelems++;
	d->last_time = t;
	if (!(aw & 0xffff0000u))
		return true; /* no category: outside blkparse's default action mask */
	if (aw == TN_MESSAGE) {
		if (ev->pdu_len)
			ok = job(b, ev, t, ev->cpu, BP_MSG, false, true);
	} else if (aw & (TC_PC << 16)) {
		ok = dump_pc(b, s, &c->ios, ev, t, aw & 0xffff);
	} else {
		ok = dump_fs(b, s, &c->ios, ev, t, aw & 0xffff);
	}
	if (!d->events)
		d->first_time = t;
	d->events++;
	return ok;
}

/* ---- setup --------------------------------------------------------------------------- */

/* blkparse's setup_file(): the path of CPU cpu's file for -i arg, and whether it exists and
 * holds anything (gzip: once decompressed). 1 yes, 0 empty (skipped), -1 missing. */
static int cpu_file(const char *dir, const char *name, unsigned cpu, char **path, char **shown)
{
	static const char *const suffix[] = {"", ".gz", ".zst"}; /* as formats/rundir.h names */
	struct stat st;

	*path = *shown = NULL;
	if (asprintf(shown, "%s%s%s" RUNDIR_SET_INFIX "%u", dir ? dir : "", dir ? "/" : "", name,
	             cpu) < 0) {
		*shown = NULL;
		return -ENOMEM;
	}
	for (unsigned i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		struct in_stream *in;
		struct iot_err e;
		bool empty;

		if (asprintf(path, "%s%s", *shown, suffix[i]) < 0) {
			free(*shown);
			*path = *shown = NULL;
			return -ENOMEM;
		}
		if (stat(*path, &st) == 0) {
			if (!i)
				return st.st_size ? 1 : 0;
			/* compressed: empty once inflated? (a bad file is the reader's to name) */
			if (in_stream_open(&in, *path, &e))
				return 1;
			empty = in_stream_sniff(in)->format == IN_FMT_EMPTY;
			in_stream_close(in);
			return empty ? 0 : 1;
		}
		free(*path);
		*path = NULL;
	}
	free(*shown);
	*shown = NULL;
	return -1;
}

static int add_input(struct bp *b, char *shown)
{
	char **in = realloc(b->inputs, (b->ninputs + 1) * sizeof(*in));

	if (!in)
		return -ENOMEM;
	b->inputs = in;
	b->inputs[b->ninputs++] = shown;
	return 0;
}

static int open_stream(struct bp *b, struct bp_dev *d, unsigned cpu, char *path, struct iot_err *e)
{
	struct bp_stream *s = calloc(1, sizeof(*s));
	struct bp_stream **ss;
	int ret;

	if (!s)
		return iot_err_set(e, -ENOMEM, "out of memory");
	s->dev = d;
	s->cpu = cpu;
	ss = realloc(b->streams, (b->nstreams + 1) * sizeof(*ss));
	if (!ss) {
		free(s);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	b->streams = ss;
	b->streams[b->nstreams++] = s;
	ret = bt_reader_open_files(&s->r, &path, 1, e);
	if (ret == -EINVAL && strstr(e->msg, "empty trace file")) {
		s->done = true; /* records of no kind: nothing to read */
		return 0;
	}
	return ret;
}

/* One -i argument: its device, its files from CPU 0 up to the first missing one. */
static int setup_dev(struct bp *b, const char *arg, char **input_dir, struct iot_err *e)
{
	struct bp_dev *d;
	char *copy = strdup(arg), *copy2 = strdup(arg), *dir, *name;
	unsigned cpu;
	int ret = 0;

	if (!copy || !copy2) {
		ret = iot_err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	/* name_fixup(): NAME.blktrace.N means NAME */
	if ((name = strstr(copy, ".blktrace.")))
		*name = 0;
	if ((name = strstr(copy2, ".blktrace.")))
		*name = 0;
	d = &b->devs[b->ndevs];
	memset(d, 0, sizeof(*d));
	/* blkparse splits "DIR/NAME" once and keeps DIR for the devices after it */
	dir = dirname(copy);
	if (strcmp(dir, ".")) {
		free(*input_dir);
		*input_dir = strdup(dir);
		d->name = strdup(basename(copy2));
	} else {
		d->name = strdup(copy2);
	}
	if (!d->name || (strcmp(dir, ".") && !*input_dir)) {
		free(d->name);
		ret = iot_err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	b->ndevs++;
	for (cpu = 0;; cpu++) {
		char *path, *shown;
		int have = cpu_file(*input_dir, d->name, cpu, &path, &shown);
		struct bp_cpu *cpus;

		if (have == -ENOMEM) {
			ret = iot_err_set(e, -ENOMEM, "out of memory");
			goto out;
		}
		if (have < 0)
			break;
		cpus = realloc(d->cpus, (cpu + 1) * sizeof(*cpus));
		if (cpus)
			d->cpus = cpus;
		if (!cpus || (have && add_input(b, shown))) {
			free(shown);
			free(path);
			ret = iot_err_set(e, -ENOMEM, "out of memory");
			goto out;
		}
		memset(&d->cpus[cpu], 0, sizeof(d->cpus[cpu]));
		d->ncpus = cpu + 1;
		if (have)
			ret = open_stream(b, d, cpu, path, e);
		else
			free(shown);
		free(path);
		if (ret)
			goto out;
	}
	if (!cpu)
		ret = iot_err_set(e, -ENOENT, "'%s': no input files (%s.blktrace.0 ...)", arg, arg);
out:
	free(copy);
	free(copy2);
	return ret;
}

static void bp_release(struct bp *b)
{
	printer_stop(b);
	for (unsigned i = 0; i < b->nstreams; i++) {
		bt_reader_free(b->streams[i]->r);
		free(b->streams[i]->arena);
		free(b->streams[i]);
	}
	free(b->streams);
	for (unsigned i = 0; i < b->ndevs; i++) {
		free(b->devs[i].name);
		free(b->devs[i].cpus);
	}
	free(b->devs);
	for (unsigned i = 0; i < b->ninputs; i++)
		free(b->inputs[i]);
	free(b->inputs);
	free(b->order);
	for (size_t i = 0; i < b->hcap; i++)
		free(b->hash[i]);
	free(b->hash);
	for (unsigned i = 0; i < NRING; i++) {
		if (b->ring[i])
			free(b->ring[i]->arena);
		free(b->ring[i]);
	}
	bp_lines_free(b->lines);
	free(b->out);
	pthread_mutex_destroy(&b->mu);
	pthread_cond_destroy(&b->cv);
}

/* The merge: blkparse's do_file() loop over the stream list. */
static int pass(struct bp *b, struct iot_err *e)
{
	int ret;

	for (unsigned i = 0; i < b->nstreams; i++) {
		ret = prime(b, b->streams[i], e);
		if (ret < 0)
			return ret;
		if (ret)
			list_insert(b, i);
	}
	if (b->norder)
		b->genesis = head_time(b, b->order[0]);
	while (b->norder) {
		unsigned si = b->order[0];
		struct bp_stream *s = b->streams[si];

		if (!handle(b, s))
			return b->werr ? iot_err_set(e, b->werr, "write: %s", strerror(-b->werr))
			               : iot_err_set(e, -ENOMEM, "out of memory");
		if (++s->pos == s->n) {
			ret = prime(b, s, e);
			if (ret < 0)
				return ret;
			if (!ret) {
				memmove(b->order, b->order + 1, --b->norder * sizeof(*b->order));
				continue;
			}
		}
		if (b->norder > 1 && head_time(b, si) > head_time(b, b->order[1])) {
			memmove(b->order, b->order + 1, --b->norder * sizeof(*b->order));
			list_insert(b, si);
		}
	}
	chunk_send(b);
	return 0; /* a write error is seen once the printer is done */
}

static int run(struct bp *b, char *const *sets, unsigned nsets, int fd, struct iot_err *e)
{
	char *input_dir = NULL;
	int ret = 0;

	b->devs = calloc(nsets, sizeof(*b->devs));
	b->out = malloc(sizeof(*b->out));
	if (!b->devs || !b->out || names_grow(b))
		return iot_err_set(e, -ENOMEM, "out of memory");
	memset(b->out, 0, offsetof(struct bp_out, buf));
	b->out->fd = fd;
	b->lines = bp_lines_new(b->out);
	if (!b->lines)
		return iot_err_set(e, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < NRING; i++)
		if (!(b->ring[i] = calloc(1, sizeof(*b->ring[i]))))
			return iot_err_set(e, -ENOMEM, "out of memory");
	b->cur = b->ring[0];
	for (unsigned i = 0; i < nsets && !ret; i++)
		ret = setup_dev(b, sets[i], &input_dir, e);
	free(input_dir);
	if (ret)
		return ret;
	b->order = calloc(b->nstreams ? b->nstreams : 1, sizeof(*b->order));
	if (!b->order)
		return iot_err_set(e, -ENOMEM, "out of memory");
	if ((ret = pthread_create(&b->thread, NULL, printer, b)))
		return iot_err_set(e, -ret, "cannot start a thread: %s", strerror(ret));
	b->have_thread = true;
	ret = pass(b, e);
	printer_stop(b);
	if (ret)
		return ret;
	if (bp_stats_print(b->out, b->devs, b->ndevs))
		return iot_err_set(e, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < b->ninputs; i++) {
		bp_out_str(b->out, "Input file ");
		bp_out_str(b->out, b->inputs[i]);
		bp_out_str(b->out, " added\n");
	}
	if (b->drv_data)
		bp_out_str(b->out, "\ndiscarded traces containing low-level device driver specific "
		                   "data (only available in binary output)\n");
	bp_out_flush(b->out);
	b->st->bytes = b->out->bytes;
	b->st->lines = b->out->lines;
	b->st->devices = b->ndevs;
	if (b->out->err)
		return iot_err_set(e, b->out->err, "write: %s", strerror(-b->out->err));
	return 0;
}

int export_blkparse(char *const *sets, unsigned nsets, int fd, struct export_stats *st,
                    struct iot_err *e)
{
	struct bp b;
	struct export_stats dummy;
	int ret;

	memset(&b, 0, sizeof(b));
	b.st = st ? st : &dummy;
	memset(b.st, 0, sizeof(*b.st));
	if (!nsets)
		return iot_err_set(e, -EINVAL, "no trace sets");
	pthread_mutex_init(&b.mu, NULL);
	pthread_cond_init(&b.cv, NULL);
	ret = run(&b, sets, nsets, fd, e);
	bp_release(&b);
	return ret;
}
