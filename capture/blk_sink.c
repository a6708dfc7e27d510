/* SPDX-License-Identifier: MIT */
/* Captured records to DIR/DEV.blktrace.CPU: sequence numbers, PROCESS notifies, routing. */
#include "capture/cap_int.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/blktrace.h"
#include "formats/bt_decode.h"
#include "formats/rundir.h"

#define COMM_LEN 16 /* TASK_COMM_LEN: the PDU of a kernel PROCESS notify */
#define MAX_CPU 65536u

struct sink_dev {
	uint32_t kdev;
	char name[64];
	struct bt_set_writer *w;
	uint32_t *seq;       /* per CPU, last sequence number written */
	struct bt_wbuf **wb; /* per CPU, its file's buffer (w's; NULL: not yet asked for) */
	unsigned nseq;
	struct bt_comm_table *seen; /* pids that already have a PROCESS notify */
	uint64_t
	    recent[4]; /* a few pids of seen | SEEN_BIT, looked at first (records take turns) */
	unsigned next_recent;
	uint64_t events;
	struct blk_span span; /* of the records written */
};

/* A traced pid that is a thread of another process (its tgid): the process's command. */
struct sink_thread {
	uint32_t pid, tgid;
	char process[COMM_LEN];
};
#define MAX_THREADS 65536u

struct cap_sink {
	struct sink_dev *dev;
	unsigned ndev;
	struct bt_comm_table *thr_seen; /* pids whose process was looked up */
	struct sink_thread *thr;
	size_t nthr, capthr;
	char *dir;
	int keep_seq;   /* relay: the kernel numbered the records; gaps are its drops */
	char *cmdlines; /* tracefs saved_cmdlines path */
	/* written with __atomic by the one thread that writes records at a time (the session's
	 * before the reader starts, then the reader's: a relaxed load and store, no locked
	 * add, for events and bytes at every record), read from any thread */
	uint64_t events, bytes, foreign, bad;
	struct sink_dev *last; /* the device of the last record (the next one's, nearly always) */
	uint64_t *cgroups;     /* distinct cgroup ids seen (a handful: a linear search) */
	unsigned ncg, cgcap;
	uint64_t last_cg;
	const struct bt_comm_table *names; /* pid -> name, for new pids' PROCESS notifies */
};

int cap_sink_new(struct cap_sink **out, const char *dir, const struct cap_dev *devs, unsigned n,
                 const char *sysroot, struct iot_err *e)
{
	struct cap_sink *s = calloc(1, sizeof(*s));
	int ret;

	*out = NULL;
	if (!s || !(s->dev = calloc(n ? n : 1, sizeof(*s->dev))) ||
	    asprintf(&s->cmdlines, "%s/sys/kernel/tracing/saved_cmdlines", sysroot) < 0) {
		if (s)
			free(s->dev);
		free(s);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	s->ndev = n;
	s->dir = strdup(dir);
	s->thr_seen = bt_comm_table_new();
	if (!s->dir || !s->thr_seen) {
		cap_sink_close(s, NULL);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	for (unsigned i = 0; i < n; i++) {
		struct sink_dev *d = &s->dev[i];

		d->kdev = devs[i].kdev;
		snprintf(d->name, sizeof(d->name), "%s", devs[i].name);
		d->seen = bt_comm_table_new();
		if (!d->seen) {
			cap_sink_close(s, NULL);
			return iot_err_set(e, -ENOMEM, "out of memory");
		}
		ret = bt_set_writer_open(&d->w, dir, d->name, e);
		if (ret) {
			cap_sink_close(s, NULL);
			return ret;
		}
	}
	*out = s;
	return 0;
}

static int rec_is_notify(const uint8_t *rec)
{
	uint32_t action;

	memcpy(&action, rec + BT7_ACTION, 4);
	return (action >> 16) & BLK_F_NOTIFY;
}

static int seq_room(struct sink_dev *d, unsigned cpu)
{
	unsigned n = cpu + 1;
	uint32_t *ns;
	struct bt_wbuf **nw;

	if (cpu >= MAX_CPU)
		return -EINVAL;
	if (cpu < d->nseq)
		return 0;
	ns = realloc(d->seq, n * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	d->seq = ns;
	nw = realloc(d->wb, n * sizeof(*nw));
	if (!nw)
		return -ENOMEM;
	d->wb = nw;
	memset(ns + d->nseq, 0, (n - d->nseq) * sizeof(*ns));
	memset(nw + d->nseq, 0, (n - d->nseq) * sizeof(*nw));
	d->nseq = n;
	return 0;
}

void cap_sink_keep_sequences(struct cap_sink *s, int keep)
{
	s->keep_seq = keep;
}

void cap_sink_lost(struct cap_sink *s, unsigned cpu, uint64_t n)
{
	if (s->ndev == 1 && !seq_room(&s->dev[0], cpu))
		s->dev[0].seq[cpu] += (uint32_t)n;
}

/* a record of len bytes written to d (s's totals: a relaxed load and store, no locked add) */
static inline void counted(struct cap_sink *s, struct sink_dev *d, size_t len)
{
	d->events++;
	__atomic_store_n(&s->events, __atomic_load_n(&s->events, __ATOMIC_RELAXED) + 1,
	                 __ATOMIC_RELAXED);
	__atomic_store_n(&s->bytes, __atomic_load_n(&s->bytes, __ATOMIC_RELAXED) + len,
	                 __ATOMIC_RELAXED);
}

static int write_rec(struct cap_sink *s, struct sink_dev *d, unsigned cpu, uint8_t *rec, size_t len,
                     struct iot_err *e)
{
	uint32_t seq;
	int ret = seq_room(d, cpu);

	if (ret)
		return iot_err_set(e, ret, "cpu %u: %s", cpu, strerror(-ret));
	/* the relay path numbers events from 1 per CPU (__blk_add_trace) and leaves notifies
	 * (trace_note) out of it; blkparse and our reader count gaps as skips */
	if (!s->keep_seq) {
		if (rec_is_notify(rec))
			seq = 0;
		else
			seq = ++d->seq[cpu];
		memcpy(rec + 4, &seq, 4);
	}
	ret = bt_set_writer_write_raw(d->w, cpu, rec, len, e);
	if (ret)
		return ret;
	counted(s, d, len);
	return 0;
}

/* The name of pid: /proc while it lives, else the tracer's saved_cmdlines (which the blk
 * tracer fills for every event through tracing_record_cmdline). */
static int comm_of(const struct cap_sink *s, uint32_t pid, char out[COMM_LEN])
{
	char path[64], buf[64];
	FILE *f;
	int found = 0;

	memset(out, 0, COMM_LEN);
	if (pid == 0) {
		memcpy(out, "swapper", 7);
		return 1;
	}
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	if (!cap_read_str(path, buf, sizeof(buf)) && buf[0]) {
		memcpy(out, buf, strnlen(buf, COMM_LEN - 1));
		return 1;
	}
	f = fopen(s->cmdlines, "re");
	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f)) {
		unsigned p;
		char name[COMM_LEN + 8];

		if (sscanf(buf, "%u %23s", &p, name) == 2 && p == pid) {
			memcpy(out, name, strnlen(name, COMM_LEN - 1));
			found = 1;
			break;
		}
	}
	fclose(f);
	return found;
}

/*
 * The kernel names a thread on its own (Ceph's filestore_sync, journal_write): the trace's
 * pid is the thread's. Which process it belongs to is read once, while it lives.
 */
static void thread_note(struct cap_sink *s, uint32_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long tgid;
	struct sink_thread *t;

	if (!pid || bt_comm_table_get(s->thr_seen, pid) || s->nthr == MAX_THREADS ||
	    bt_comm_table_set(s->thr_seen, pid, "", 0))
		return;
	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	if (cap_read_str(path, buf, sizeof(buf)) || !(p = strstr(buf, "\nTgid:")))
		return;
	tgid = strtoul(p + 6, NULL, 10);
	if (!tgid || tgid == pid || tgid > UINT32_MAX)
		return;
	if (s->nthr == s->capthr) {
		size_t n = s->capthr ? 2 * s->capthr : 64;

		if (!(t = realloc(s->thr, n * sizeof(*t))))
			return;
		s->thr = t;
		s->capthr = n;
	}
	t = &s->thr[s->nthr];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tgid = (uint32_t)tgid;
	snprintf(path, sizeof(path), "/proc/%lu/comm", tgid);
	if (cap_read_str(path, buf, sizeof(buf)) || !buf[0])
		return;
	memcpy(t->process, buf, strnlen(buf, COMM_LEN - 1));
	s->nthr++;
}

json_t *cap_sink_threads_json(const struct cap_sink *s)
{
	json_t *a = json_array();

	for (size_t i = 0; s && i < s->nthr; i++)
		json_array_append_new(a, json_pack("{s:i, s:i, s:s}", "pid", (int)s->thr[i].pid,
		                                   "tgid", (int)s->thr[i].tgid, "process",
		                                   s->thr[i].process));
	return a;
}

static int process_note(struct cap_sink *s, struct sink_dev *d, unsigned cpu, uint32_t pid,
                        uint64_t time, const char *known, struct iot_err *e)
{
	char comm[COMM_LEN];
	uint8_t rec[BT_REC7_SIZE + COMM_LEN];
	struct blk_event n = {0};
	int ret;

	/* remember the pid even when the name is unknown: one lookup per pid */
	ret = bt_comm_table_set(d->seen, pid, "", 0);
	if (ret)
		return iot_err_set(e, ret, "out of memory");
	if (!known && s->names)
		known = bt_comm_table_get(s->names, pid);
	if (known && known[0]) {
		memset(comm, 0, sizeof(comm));
		memcpy(comm, known, strnlen(known, COMM_LEN - 1));
	} else if (!comm_of(s, pid, comm)) {
		return 0;
	}
	thread_note(s, pid);
	n.time = time;
	n.flags = BLK_F_NOTIFY;
	n.action = BLK_N_PROCESS;
	n.pid = pid;
	n.dev = d->kdev;
	n.cpu = cpu;
	n.pdu = (const uint8_t *)comm;
	n.pdu_len = COMM_LEN;
	if (!bt_encode7(&n, rec, sizeof(rec)))
		return iot_err_set(e, -EINVAL, "cannot encode a notify");
	return write_rec(s, d, cpu, rec, sizeof(rec), e);
}

static void note_cgroup(struct cap_sink *s, uint64_t id)
{
	if (id == s->last_cg)
		return;
	s->last_cg = id;
	for (unsigned i = 0; i < s->ncg; i++)
		if (s->cgroups[i] == id)
			return;
	if (s->ncg == s->cgcap) {
		unsigned cap = s->cgcap ? 2 * s->cgcap : 16;
		uint64_t *n = cap <= 65536 ? realloc(s->cgroups, cap * sizeof(*n)) : NULL;

		if (!n)
			return; /* the path table lacks it; the records still carry it */
		s->cgroups = n;
		s->cgcap = cap;
	}
	s->cgroups[s->ncg++] = id;
}

void cap_sink_names(struct cap_sink *s, const struct bt_comm_table *names)
{
	if (s)
		s->names = names;
}

const uint64_t *cap_sink_cgroups(const struct cap_sink *s, unsigned *n)
{
	*n = s->ncg;
	return s->cgroups;
}

/* Whether pid is one of the few that d saw last (a table lookup less per record). */
#define SEEN_BIT (1ull << 32)
static bool seen_recently(const struct sink_dev *d, uint32_t pid)
{
	uint64_t k = pid | SEEN_BIT;

	return d->recent[0] == k || d->recent[1] == k || d->recent[2] == k || d->recent[3] == k;
}

/* A pid not seen_recently(): its PROCESS notify on d if new, before its first record (at
 * time, on cpu). */
static int pid_note(struct cap_sink *s, struct sink_dev *d, unsigned cpu, uint32_t pid,
                    uint64_t time, const char *comm, struct iot_err *e)
{
	int ret;

	if (!bt_comm_table_get(d->seen, pid) && (ret = process_note(s, d, cpu, pid, time, comm, e)))
		return ret;
	/* in d->seen now, for good */
	d->recent[d->next_recent++ % 4] = pid | SEEN_BIT;
	return 0;
}

/* A decoded record of ours (ev, its record rec) to its device's set. */
static int sink_put(struct cap_sink *s, unsigned cpu, const struct blk_event *ev, uint8_t *rec,
                    size_t len, const char *comm, struct iot_err *e)
{
	struct sink_dev *d = s->last;
	int ret;

	if (!d || d->kdev != ev->dev) {
		d = NULL;
		for (unsigned i = 0; i < s->ndev; i++)
			if (s->dev[i].kdev == ev->dev)
				d = &s->dev[i];
		if (!d) {
			/* the blk tracer is global: another device someone else enabled */
			__atomic_add_fetch(&s->foreign, 1, __ATOMIC_RELAXED);
			return 0;
		}
		s->last = d;
	}
	if (!blk_is_notify(ev) && !seen_recently(d, ev->pid) &&
	    (ret = pid_note(s, d, cpu, ev->pid, ev->time, comm, e)))
		return ret;
	ret = write_rec(s, d, cpu, rec, len, e);
	if (!ret)
		blk_span_add(&d->span, ev);
	if (ev->flags & BLK_F_CGROUP)
		note_cgroup(s, ev->cgroup);
	return ret;
}

int cap_sink_record(struct cap_sink *s, unsigned cpu, uint8_t *rec, size_t len, struct iot_err *e)
{
	struct blk_event ev;
	long n = bt_decode(rec, len, &ev, NULL);

	if (n <= 0 || (size_t)n != len) {
		__atomic_add_fetch(&s->bad, 1, __ATOMIC_RELAXED);
		return 0;
	}
	return sink_put(s, cpu, &ev, rec, len, NULL, e);
}

int cap_sink_event(struct cap_sink *s, const struct blk_event *ev, const char *comm,
                   struct iot_err *e)
{
	uint8_t rec[BT_REC7_SIZE + 8 + 64];
	size_t len = bt_encode7(ev, rec, sizeof(rec));

	if (!len) {
		__atomic_add_fetch(&s->bad, 1, __ATOMIC_RELAXED);
		return 0;
	}
	return sink_put(s, ev->cpu, ev, rec, len, comm, e);
}

void cap_sink_io_init(const struct cap_sink *s, struct cap_io *io, const struct blk_event *c,
                      uint32_t issue_pid, uint32_t issue_cpu)
{
	uint32_t cg = c->flags & BLK_F_CGROUP;
	uint32_t cats = c->flags & ~(uint32_t)(BLK_F_COMPLETE | BLK_F_CGROUP);
	uint32_t fq = (cats & ~(uint32_t)(BLK_F_FS | BLK_F_PC)) | BLK_F_QUEUE,
	         fd = cats | BLK_F_ISSUE;
	size_t len =
	    c->pdu_len <= CAP_IO_PDU_MAX ? bt_encode7_inline(c, io->rec, sizeof(io->rec)) : 0;

	io->len = (uint8_t)len;
	io->has_cg = cg != 0;
	io->dev = len ? CAP_IO_FOREIGN : CAP_IO_BAD;
	for (unsigned i = 0; len && i < s->ndev; i++)
		if (s->dev[i].kdev == c->dev)
			io->dev = (int16_t)i;
	/* as the blk tracer writes them: the completion's categories without its own, Q
	 * without FS and PC */
	io->act_q = bt_action7(fq | cg, BLK_A_QUEUE, c->pdu_len);
	io->act_d = bt_action7(fd | cg, BLK_A_ISSUE, c->pdu_len);
	io->issue_pid = issue_pid;
	io->issue_cpu = issue_cpu;
}

/* The span of d's records: one of action word act at t (io's sector and bytes) */
static inline void io_span(struct sink_dev *d, const struct cap_io *io, uint32_t act, uint64_t t)
{
	struct blk_event ev = {.time = t, .action = (uint16_t)(act & 0xff)}; /* as bt_decode() */

	memcpy(&ev.sector, io->rec + BT7_SECTOR, 8);
	memcpy(&ev.bytes, io->rec + BT7_BYTES, 4);
	blk_span_add(&d->span, &ev);
}

int cap_sink_io_put(struct cap_sink *s, const struct cap_io *io, unsigned part, uint64_t t,
                    struct iot_err *e)
{
	struct sink_dev *d;
	uint32_t pid, cpu, act, seq = 0;
	uint8_t *p;
	int ret;

	if (io->dev < 0) {
		__atomic_add_fetch(io->dev == CAP_IO_BAD ? &s->bad : &s->foreign, 1,
		                   __ATOMIC_RELAXED);
		return 0;
	}
	d = &s->dev[io->dev];
	if (part == CAP_IO_C) {
		memcpy(&act, io->rec + BT7_ACTION, 4);
		memcpy(&pid, io->rec + BT7_PID, 4);
		memcpy(&cpu, io->rec + BT7_CPU, 4);
	} else {
		act = part == CAP_IO_Q ? io->act_q : io->act_d;
		pid = io->issue_pid;
		cpu = io->issue_cpu;
	}
	if (!((act >> 16) & BLK_F_NOTIFY) && !seen_recently(d, pid) &&
	    (ret = pid_note(s, d, cpu, pid, t, NULL, e)))
		return ret;
	if (cpu >= d->nseq && (ret = seq_room(d, cpu)))
		return iot_err_set(e, ret, "cpu %u: %s", cpu, strerror(-ret));
	/* as write_rec() numbers them */
	if (!s->keep_seq && !((act >> 16) & BLK_F_NOTIFY))
		seq = ++d->seq[cpu];
	/* the CPU's buffer at hand; the writer's call only to open its file or write it out */
	if (!d->wb[cpu] && !(d->wb[cpu] = bt_set_writer_buf(d->w, cpu, &ret, e)))
		return ret;
	if (!(p = bt_wbuf_room(d->wb[cpu], io->len)) &&
	    !(p = bt_set_writer_room(d->w, cpu, io->len, &ret, e)))
		return ret;
	/* fixed sizes, copied inline: the record, and a cgroup id where it has one */
	memcpy(p, io->rec, BT_REC7_SIZE);
	if (io->len == BT_REC7_SIZE + 8)
		memcpy(p + BT_REC7_SIZE, io->rec + BT_REC7_SIZE, 8);
	else if (io->len > BT_REC7_SIZE)
		memcpy(p + BT_REC7_SIZE, io->rec + BT_REC7_SIZE, io->len - BT_REC7_SIZE);
	memcpy(p + BT7_SEQUENCE, &seq, 4);
	memcpy(p + BT7_TIME, &t, 8);
	if (part != CAP_IO_C) {
		uint16_t err = 0;

		memcpy(p + BT7_ACTION, &act, 4);
		memcpy(p + BT7_PID, &pid, 4);
		memcpy(p + BT7_CPU, &cpu, 4);
		memcpy(p + BT7_ERROR, &err, 2);
	}
	counted(s, d, io->len);
	if (!((act >> 16) & BLK_F_NOTIFY))
		io_span(d, io, act, t);
	if (io->has_cg) {
		uint64_t cg;

		memcpy(&cg, io->rec + BT_REC7_SIZE, 8);
		note_cgroup(s, cg);
	}
	return 0;
}

int cap_sink_timestamp(struct cap_sink *s, const struct cap_clock_pair *p, struct iot_err *e)
{
	/* what trace_note_time() writes at BLKTRACESTART: u32 seconds, u32 nanoseconds */
	uint32_t words[2] = {(uint32_t)(p->real_ns / 1000000000),
	                     (uint32_t)(p->real_ns % 1000000000)};
	uint8_t rec[BT_REC7_SIZE + sizeof(words)];
	int ret;

	for (unsigned i = 0; i < s->ndev; i++) {
		struct blk_event n = {0};

		n.time = (uint64_t)p->mono_ns;
		n.flags = BLK_F_NOTIFY;
		n.action = BLK_N_TIMESTAMP;
		n.dev = s->dev[i].kdev;
		n.pdu = (const uint8_t *)words;
		n.pdu_len = sizeof(words);
		if (!bt_encode7(&n, rec, sizeof(rec)))
			return iot_err_set(e, -EINVAL, "cannot encode a notify");
		ret = write_rec(s, &s->dev[i], 0, rec, sizeof(rec), e);
		if (ret)
			return ret;
	}
	return 0;
}

void cap_sink_counts(const struct cap_sink *s, uint64_t *events, uint64_t *bytes)
{
	*events = __atomic_load_n(&s->events, __ATOMIC_RELAXED);
	*bytes = __atomic_load_n(&s->bytes, __ATOMIC_RELAXED);
}

uint64_t cap_sink_dev_events(const struct cap_sink *s, unsigned i)
{
	return i < s->ndev ? s->dev[i].events : 0;
}

struct blk_span cap_sink_dev_span(const struct cap_sink *s, unsigned i)
{
	return i < s->ndev ? s->dev[i].span : (struct blk_span){0};
}

uint64_t cap_sink_foreign(const struct cap_sink *s)
{
	return __atomic_load_n(&s->foreign, __ATOMIC_RELAXED);
}

uint64_t cap_sink_bad(const struct cap_sink *s)
{
	return __atomic_load_n(&s->bad, __ATOMIC_RELAXED);
}

int cap_sink_close(struct cap_sink *s, struct iot_err *e)
{
	int ret = 0;

	if (!s)
		return 0;
	for (unsigned i = 0; i < s->ndev; i++) {
		int r = bt_set_writer_close(s->dev[i].w, e);
		long ncpu = sysconf(_SC_NPROCESSORS_CONF);

		if (r && !ret)
			ret = r;
		/* one file per CPU, as blktrace leaves them, even for CPUs that saw nothing */
		for (long c = 0; !r && s->dir && c < ncpu && c < (long)MAX_CPU; c++) {
			char path[4096];
			int fd;

			if (rundir_trace_path(path, sizeof(path), s->dir, s->dev[i].name,
			                      (unsigned)c))
				break;
			fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
			if (fd >= 0)
				close(fd);
		}
		free(s->dev[i].seq);
		free(s->dev[i].wb);
		bt_comm_table_free(s->dev[i].seen);
	}
	free(s->dev);
	free(s->cgroups);
	free(s->dir);
	free(s->cmdlines);
	bt_comm_table_free(s->thr_seen);
	free(s->thr);
	free(s);
	return ret;
}
