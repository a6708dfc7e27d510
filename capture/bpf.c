/* SPDX-License-Identifier: MIT */
/* The bpf backend: block tracepoints through a CO-RE program into the same blktrace files. */
/* (Past 800 lines: loading, the ring buffer's records, their time order and the summary
 * level's maps all work on one state, the skeleton's, which no other file should see.) */
#include "capture/cap_int.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef IOTAPE_HAVE_BPF

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>
#include <stdarg.h>
#include <stddef.h>
#include <time.h>

#include "capture/bpf/blk_rec.h"
#include "common/clock.h"
#include "common/fs.h"
#include "blk.skel.h" /* generated at build time by bpftool (CMakeLists.txt) */
#include "common/jsonint.h"
#include "formats/blktrace.h"
#include "formats/rundir.h"

/*
 * How it works (docs/capture.md "bpf"): capture/bpf/blk.bpf.c is attached to the block
 * tracepoints the blk tracer uses, as tp_btf programs through BPF links. The links live only
 * in this process's file descriptors (nothing is pinned), so however iotape ends, SIGKILL and
 * crashes included, the kernel detaches the programs when the descriptors close: there is no
 * state to restore, nothing global to take, and any number of captures run at once.
 *
 * The programs write records into one BPF ring buffer without waking anyone (a wakeup per
 * record would cost the traced IO an irq_work each); they force a wakeup when it is a quarter
 * full, and the capture's reader thread drains it every FN_POLL_MS otherwise (reader.c).
 * Records come out in the order they were reserved, not quite in time order across CPUs (an
 * interrupt's record can overtake the task's it interrupted), and at the io level each IO's
 * queue and issue records are written only at its completion. The per-CPU blktrace files must
 * be in time order, so records wait in order until they are older than the newest seen by a
 * hold time: 10 ms for events, at the io level twice the longest queue-to-completion time seen
 * (at least 100 ms). A record that arrives later than that still goes out, counted as late.
 */

#define HOLD_EVENTS_NS 10000000ull
#define HOLD_IO_MIN_NS 100000000ull
#define HOLD_IO_MAX_NS 10000000000ull
#define PEND_MAX (1u << 18) /* records held at most (about 30 MiB) */
#define REC_MAX (BT_REC7_SIZE + 8 + IOT_BPF_PDU_MAX)
#define INFLIGHT_MAX (1u << 16)
#define IOT_BPF_FAST_DEVS 1 /* as capture/bpf/blk.bpf.c */

/* one record waiting for its turn: the event and its PDU */
struct pend {
	struct blk_event ev; /* ev.pdu is set when it goes out */
	uint8_t pdu[IOT_BPF_PDU_MAX];
};

/* its place in time order */
struct pkey {
	uint64_t time;
	uint32_t slot;
	uint32_t pad;
};

/* the summary level's figures of one device, as read from the maps */
struct sum_dev {
	char name[64];
	uint32_t kdev;
	int bio_based;
	struct iot_sum_bin *snap; /* [IOT_SUM_RING * ncpu]: the last read of each ring slot */
	uint64_t (*bins)[5]; /* finished bins: ios, write_ios, read_bytes, write_bytes, seeks */
	size_t nbins;
	uint64_t (*gaps)[2];
	size_t ngaps, capgaps;
};

struct cap_backend_state {
	struct iotape_blk *skel;
	struct ring_buffer *rb;
	struct cap_sink *sink;
	enum cap_detail detail;
	size_t rb_bytes;
	/* records waiting, in time order: keys[head, nkeys) sorted, bodies in a slab */
	struct pkey *keys;
	size_t head, nkeys, capkeys;
	struct pend *slab;
	uint32_t *free_slots;
	size_t nslab, nfree;
	uint64_t newest, last_out, hold, late, forced, records;
	/* pid -> name: the programs send a task's name only when a CPU's records change task */
	struct bt_comm_table *names;
	/* the device table (one device in the program, several in a map) */
	uint32_t devkeys[IOT_BPF_MAX_DEVS];
	struct iot_bpf_dev devtab[IOT_BPF_MAX_DEVS];
	unsigned ndevtab;
	int err;
	struct iot_err e;
	json_t *attached;
	/* summary level */
	char *rundir;
	struct sum_dev *sd;
	unsigned nsd, ncpu;
	uint64_t interval_ns, idle_ns, last_read, last_write;
	uint64_t read_every;          /* summary_tick()'s period */
	struct iot_sum_bin *bins_buf; /* one map read: ncpu values */
};

_Static_assert(offsetof(struct iot_bpf_gap, kind) == offsetof(struct iot_bpf_ev, kind),
               "every record has its kind at one place");

/* libbpf's messages: the last warning is kept for the error message (libbpf has one print
 * callback per process; a capture runs one at a time in it) */
static __thread char libbpf_last[256];

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN) {
		size_t n;

		vsnprintf(libbpf_last, sizeof(libbpf_last), fmt, ap);
		n = strlen(libbpf_last);
		while (n && (libbpf_last[n - 1] == '\n' || libbpf_last[n - 1] == ' '))
			libbpf_last[--n] = '\0';
	}
	return 0;
}

/* ---- records waiting for time order ---------------------------------------------------- */

/*
 * Nearly every record arrives in time order, so a sorted array of small keys, inserted into
 * from its end, costs a comparison per record; the io level's Q and D records go back by the
 * IOs completed meanwhile (tens of keys to move). The bodies stay where they are, in a slab.
 */
static int emit_first(struct cap_backend_state *s)
{
	struct pkey k = s->keys[s->head++];
	struct pend *p = &s->slab[k.slot];

	if (k.time > s->last_out)
		s->last_out = k.time;
	if (p->ev.pdu_len)
		p->ev.pdu = p->pdu;
	s->free_slots[s->nfree++] = k.slot;
	return cap_sink_event(s->sink, &p->ev, bt_comm_table_get(s->names, p->ev.pid), &s->e);
}

static int make_room(struct cap_backend_state *s)
{
	int ret;

	if (s->head && s->nkeys == s->capkeys) {
		/* the emitted front goes: keys move down */
		memmove(s->keys, s->keys + s->head, (s->nkeys - s->head) * sizeof(*s->keys));
		s->nkeys -= s->head;
		s->head = 0;
	}
	if (s->nkeys - s->head >= PEND_MAX) {
		/* bounded memory: the oldest goes out now */
		s->forced++;
		if ((ret = emit_first(s)))
			return ret;
	}
	if (s->nkeys == s->capkeys) {
		size_t cap = s->capkeys ? 2 * s->capkeys : 4096;
		struct pkey *k = realloc(s->keys, cap * sizeof(*k));

		if (!k)
			return iot_err_set(&s->e, -ENOMEM, "bpf: out of memory");
		s->keys = k;
		s->capkeys = cap;
	}
	if (!s->nfree) {
		size_t cap = s->nslab ? 2 * s->nslab : 4096;
		struct pend *sl = realloc(s->slab, cap * sizeof(*sl));
		uint32_t *fr;

		if (!sl)
			return iot_err_set(&s->e, -ENOMEM, "bpf: out of memory");
		s->slab = sl;
		fr = realloc(s->free_slots, cap * sizeof(*fr));
		if (!fr)
			return iot_err_set(&s->e, -ENOMEM, "bpf: out of memory");
		s->free_slots = fr;
		for (size_t i = s->nslab; i < cap; i++)
			s->free_slots[s->nfree++] = (uint32_t)(cap - 1 - (i - s->nslab));
		s->nslab = cap;
	}
	return 0;
}

static int push(struct cap_backend_state *s, const struct blk_event *ev)
{
	struct pend *p;
	size_t at;
	uint32_t slot;
	int ret;

	if ((ret = make_room(s)))
		return s->err = ret;
	slot = s->free_slots[--s->nfree];
	p = &s->slab[slot];
	p->ev = *ev;
	p->ev.pdu = NULL;
	if (ev->pdu_len)
		memcpy(p->pdu, ev->pdu, ev->pdu_len);
	if (ev->time < s->last_out)
		s->late++;
	if (ev->time > s->newest)
		s->newest = ev->time;
	/* after every key of the same time or earlier: ties keep their arrival order */
	for (at = s->nkeys; at > s->head && s->keys[at - 1].time > ev->time; at--)
		;
	if (at < s->nkeys)
		memmove(s->keys + at + 1, s->keys + at, (s->nkeys - at) * sizeof(*s->keys));
	s->keys[at] = (struct pkey){ev->time, slot, 0};
	s->nkeys++;
	return 0;
}

static int flush(struct cap_backend_state *s, int all)
{
	uint64_t mark = s->newest > s->hold ? s->newest - s->hold : 0;
	int ret;

	while (s->head < s->nkeys && (all || s->keys[s->head].time < mark))
		if ((ret = emit_first(s)))
			return ret;
	if (s->head == s->nkeys)
		s->head = s->nkeys = 0;
	return 0;
}

/* ---- records from the ring buffer ---------------------------------------------------- */

static void ev_from(struct blk_event *ev, const struct iot_bpf_ev *r)
{
	memset(ev, 0, sizeof(*ev));
	ev->time = r->time;
	ev->sector = r->sector;
	ev->bytes = r->bytes;
	ev->flags = r->action >> 16;
	ev->action = (uint16_t)(r->action & 0xff);
	ev->pid = r->pid;
	ev->dev = r->dev;
	ev->cpu = r->cpu;
	ev->error = r->error;
	if (r->cgroup) {
		ev->cgroup = r->cgroup;
		ev->flags |= BLK_F_CGROUP;
	}
	if (r->pdu_len && r->pdu_len <= IOT_BPF_PDU_MAX) {
		ev->pdu = r->pdu;
		ev->pdu_len = r->pdu_len;
	}
}

/*
 * One IO as the records the blk tracer would have written for it: Q at its queue time (the
 * bio's, on bio-based devices; the request's allocation, on request-based ones, where the
 * kernel keeps no queue time), D at its issue, C at its completion. Q and D carry the issuing
 * task and CPU, C the completing one.
 */
static int io_records(struct cap_backend_state *s, const struct iot_bpf_io *r)
{
	struct blk_event ev;
	uint32_t cats = (r->ev.action >> 16) & ~(uint32_t)(BLK_F_COMPLETE);
	int ret;

	ev_from(&ev, &r->ev);
	if (r->t_queue && r->t_queue <= (r->t_issue ? r->t_issue : r->ev.time)) {
		struct blk_event q = ev;

		q.time = r->t_queue;
		q.action = BLK_A_QUEUE;
		q.flags = (cats & ~(uint32_t)(BLK_F_FS | BLK_F_PC)) | BLK_F_QUEUE |
		          (ev.flags & BLK_F_CGROUP);
		q.pid = r->issue_pid;
		q.cpu = r->issue_cpu;
		q.error = 0;
		if (r->ev.time - r->t_queue > s->hold / 2 && s->hold < HOLD_IO_MAX_NS)
			s->hold = 2 * (r->ev.time - r->t_queue) < HOLD_IO_MAX_NS
			              ? 2 * (r->ev.time - r->t_queue)
			              : HOLD_IO_MAX_NS;
		if ((ret = push(s, &q)))
			return ret;
	}
	if (r->t_issue) {
		struct blk_event d = ev;

		d.time = r->t_issue;
		d.action = BLK_A_ISSUE;
		d.flags = cats | BLK_F_ISSUE | (ev.flags & BLK_F_CGROUP);
		d.pid = r->issue_pid;
		d.cpu = r->issue_cpu;
		d.error = 0;
		if ((ret = push(s, &d)))
			return ret;
	}
	return push(s, &ev);
}

static int add_gap(struct cap_backend_state *s, const struct iot_bpf_gap *g)
{
	struct sum_dev *d;

	if (g->idx >= s->nsd)
		return 0;
	d = &s->sd[g->idx];
	if (d->ngaps == d->capgaps) {
		size_t cap = d->capgaps ? 2 * d->capgaps : 64;
		uint64_t(*n)[2] = realloc(d->gaps, cap * sizeof(*n));

		if (!n)
			return iot_err_set(&s->e, -ENOMEM, "bpf: out of memory");
		d->gaps = n;
		d->capgaps = cap;
	}
	d->gaps[d->ngaps][0] = g->start;
	d->gaps[d->ngaps][1] = g->end;
	d->ngaps++;
	return 0;
}

static int set_name(struct cap_backend_state *s, uint32_t pid, const char *comm)
{
	const char *had = bt_comm_table_get(s->names, pid);
	size_t len = strnlen(comm, IOT_BPF_COMM);

	if (had && !strncmp(had, comm, len) && !had[len])
		return 0;
	if (bt_comm_table_set(s->names, pid, comm, len))
		return iot_err_set(&s->e, -ENOMEM, "bpf: out of memory");
	return 0;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct cap_backend_state *s = ctx;
	const struct iot_bpf_ev *r = data;
	struct blk_event ev;

	if (size >= sizeof(struct iot_bpf_gap) &&
	    ((const struct iot_bpf_gap *)data)->kind == IOT_REC_GAP)
		return s->err = add_gap(s, data);
	if (size < sizeof(*r))
		return 0;
	s->records++;
	/* a record whose CPU's last record was another task's carries its name */
	if (r->comm[0] && (s->err = set_name(s, r->pid, r->comm)))
		return s->err;
	if (r->kind == IOT_REC_IO && size >= sizeof(struct iot_bpf_io)) {
		const struct iot_bpf_io *io = data;

		if (!(s->err = set_name(s, io->issue_pid, io->issue_comm)))
			s->err = io_records(s, io);
	} else if (r->kind == IOT_REC_EVENT) {
		ev_from(&ev, r);
		s->err = push(s, &ev);
	}
	return s->err; /* an error stops ring_buffer__consume() */
}

/* ---- the summary level: reading the maps, summary.json -------------------------------- */

/* a bin the kernel is done with (its ring slot moved on, or the capture ended) */
static int bin_done(struct cap_backend_state *s, struct sum_dev *d, const struct iot_sum_bin *b)
{
	uint64_t k = b->bin - 1;

	if (k >= d->nbins) {
		size_t n = (size_t)k + 64;
		uint64_t(*nb)[5];

		if (k > (1ull << 32) || !(nb = realloc(d->bins, n * sizeof(*nb))))
			return iot_err_set(&s->e, -ENOMEM, "bpf: out of memory for the timeline");
		memset(nb + d->nbins, 0, (n - d->nbins) * sizeof(*nb));
		d->bins = nb;
		d->nbins = n;
	}
	d->bins[k][0] += b->ios;
	d->bins[k][1] += b->write_ios;
	d->bins[k][2] += b->read_bytes;
	d->bins[k][3] += b->write_bytes;
	d->bins[k][4] += b->seeks;
	return 0;
}

/*
 * The kernel keeps IOT_SUM_RING bins per device and CPU; each slot holds its bin's counts
 * until a later bin takes it. Read every second, a slot's last read before it moved on holds
 * its bin's final counts (the bin ended long before): those are taken then, and at the end
 * every slot's last read.
 */
static int read_bins(struct cap_backend_state *s, int final)
{
	int fd = bpf_map__fd(s->skel->maps.sum_bins);

	for (unsigned i = 0; i < s->nsd; i++) {
		struct sum_dev *d = &s->sd[i];

		for (uint32_t slot = 0; slot < IOT_SUM_RING; slot++) {
			uint32_t key = i * IOT_SUM_RING + slot;

			if (bpf_map_lookup_elem(fd, &key, s->bins_buf))
				continue;
			for (unsigned c = 0; c < s->ncpu; c++) {
				struct iot_sum_bin *old = &d->snap[slot * s->ncpu + c];
				const struct iot_sum_bin *now = &s->bins_buf[c];
				int ret;

				if (old->bin && old->bin != now->bin && (ret = bin_done(s, d, old)))
					return ret;
				*old = *now;
				if (final && old->bin && (ret = bin_done(s, d, old)))
					return ret;
			}
		}
	}
	return 0;
}

static json_t *hist_json(struct cap_backend_state *s, unsigned idx)
{
	int fd = bpf_map__fd(s->skel->maps.sum_hist);
	struct iot_sum_hist *v = calloc(s->ncpu, sizeof(*v));
	uint64_t count = 0, sum = 0, min = UINT64_MAX, max = 0;
	json_t *b = json_array();
	uint32_t key = idx;

	if (!v || bpf_map_lookup_elem(fd, &key, v)) {
		free(v);
		return b;
	}
	for (unsigned i = 0; i < IOT_HIST_BUCKETS; i++) {
		uint64_t n = 0;

		for (unsigned c = 0; c < s->ncpu; c++)
			n += v[c].b[i];
		if (n)
			json_array_append_new(b, json_pack("[i, I]", i, (json_int_t)n));
	}
	for (unsigned c = 0; c < s->ncpu; c++) {
		if (!v[c].count)
			continue;
		count += v[c].count;
		sum += v[c].sum;
		min = v[c].min < min ? v[c].min : min;
		max = v[c].max > max ? v[c].max : max;
	}
	free(v);
	return json_pack("{s:s, s:I, s:I, s:I, s:I, s:o}", "kind", "", "count", (json_int_t)count,
	                 "sum", (json_int_t)sum, "min", (json_int_t)(count ? min : 0), "max",
	                 (json_int_t)max, "buckets", b);
}

/* summary.json (docs/capture.md "summary.json"): written every minute and at the end, through
 * a temporary file renamed into place (no fsync: the run directory may be on a traced device) */
static int write_summary(struct cap_backend_state *s, uint64_t end_ns)
{
	json_t *root = json_object(), *devs = json_array();
	int sfd = bpf_map__fd(s->skel->maps.sum_devs);
	char path[4096], *text;
	int ret;

	json_object_set_new(root, "format", json_string("iotape-summary"));
	json_object_set_new(root, "format_version", json_integer(1));
	json_object_set_new(root, "trace_clock", json_string("mono"));
	json_object_set_new(root, "origin_ns", json_u64(s->skel->bss->origin_ns));
	json_object_set_new(root, "end_ns", json_u64(end_ns));
	json_object_set_new(root, "interval_ns", json_u64(s->interval_ns));
	json_object_set_new(root, "idle_threshold_ns", json_u64(s->idle_ns));
	for (unsigned i = 0; i < s->nsd; i++) {
		struct sum_dev *d = &s->sd[i];
		struct iot_sum_dev st = {0};
		uint32_t key = i;
		json_t *jd, *lat = hist_json(s, i), *bins = json_array(), *gaps = json_array();
		char dev[32];

		bpf_map_lookup_elem(sfd, &key, &st);
		json_object_set_new(lat, "kind", json_string(d->bio_based ? "q2c" : "d2c"));
		for (size_t k = 0; k < d->nbins; k++)
			if (d->bins[k][0] || d->bins[k][4])
				json_array_append_new(
				    bins,
				    json_pack("[I, I, I, I, I, I]", (json_int_t)k,
				              (json_int_t)d->bins[k][0], (json_int_t)d->bins[k][1],
				              (json_int_t)d->bins[k][2], (json_int_t)d->bins[k][3],
				              (json_int_t)d->bins[k][4]));
		for (size_t k = 0; k < d->ngaps; k++)
			json_array_append_new(gaps, json_pack("[I, I]", (json_int_t)d->gaps[k][0],
			                                      (json_int_t)d->gaps[k][1]));
		snprintf(dev, sizeof(dev), "%u,%u", BLK_DEV_MAJOR(d->kdev), BLK_DEV_MINOR(d->kdev));
		jd = json_pack("{s:s, s:s, s:b, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:I}, s:o, s:o}",
		               "name", d->name, "dev", dev, "bio_based", d->bio_based, "latency",
		               lat, "seeks", "transitions", (json_int_t)st.transitions, "count",
		               (json_int_t)st.seeks, "sequential", (json_int_t)st.sequential,
		               "forward", (json_int_t)st.forward, "backward",
		               (json_int_t)st.backward, "seekwatcher", (json_int_t)st.seekwatcher,
		               "bins", bins, "gaps", gaps);
		json_array_append_new(devs, jd);
	}
	json_object_set_new(root, "devices", devs);
	snprintf(path, sizeof(path), "%s/" RUNDIR_SUMMARY, s->rundir);
	text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	if (!text)
		return iot_err_set(&s->e, -ENOMEM, "'%s': out of memory", path);
	ret = iot_write_file(path, text, strlen(text), 0, &s->e);
	free(text);
	return ret;
}

static int summary_tick(struct cap_backend_state *s, int final)
{
	uint64_t now = iot_now_ns();
	int ret = 0;

	/* a slot's last read must come after its bin ended and before the ring comes round to
	 * it again: a read every quarter of the ring, at most a second apart */
	if (!final && now - s->last_read < s->read_every)
		return 0;
	s->last_read = now;
	if ((ret = read_bins(s, final)))
		return ret;
	if (final || now - s->last_write >= 60000000000ull) {
		s->last_write = now;
		ret = write_summary(s, now);
	}
	return ret;
}

static int drain(void *arg, int final, struct iot_err *e)
{
	struct cap_backend_state *s = arg;
	int n = ring_buffer__consume(s->rb);

	if (!s->err && n < 0)
		s->err = n;
	if (!s->err)
		s->err = flush(s, final);
	if (!s->err && s->detail == CAP_DETAIL_SUMMARY)
		s->err = summary_tick(s, final);
	if (s->err) {
		if (!s->e.msg[0])
			iot_err_set(&s->e, s->err, "bpf: reading the ring buffer: %s",
			            strerror(-s->err));
		*e = s->e;
		return s->err;
	}
	return n > 0;
}

/* ---- start and stop ------------------------------------------------------------------ */

/* The whole disk's dev_t (blktrace encoding) of d, and whether it issues requests. */
static int disk_of(const struct cap_dev *d, uint32_t *key, int *bio_based, struct iot_err *e)
{
	char p[600], buf[64], *slash;
	unsigned ma, mi;

	snprintf(p, sizeof(p), "%s", d->queuedir);
	slash = strrchr(p, '/');
	if (!slash)
		return iot_err_set(e, -ENOENT, "bpf: '%s': no queue directory", d->name);
	*slash = '\0';
	snprintf(p + strlen(p), sizeof(p) - strlen(p), "/dev");
	if (cap_read_str(p, buf, sizeof(buf)) || sscanf(buf, "%u:%u", &ma, &mi) != 2)
		return iot_err_set(e, -ENOENT, "bpf: '%s': cannot read %s", d->name, p);
	*key = BLK_MKDEV(ma, mi);
	*slash = '\0';
	/* blk-mq disks have an mq/ directory; bio-based drivers (zram, dm, md) do not */
	snprintf(p + strlen(p), sizeof(p) - strlen(p), "/mq");
	*bio_based = access(p, F_OK) != 0;
	return 0;
}

/* The device table, into the program before it is loaded (capture/bpf/blk.bpf.c). */
static int fill_devices(struct cap_backend_state *s, const struct cap_dev *devs, unsigned n,
                        int *any_rq, int *any_bio, struct iot_err *e)
{
	uint32_t *keys = s->devkeys;
	struct iot_bpf_dev *tab = s->devtab;

	*any_rq = *any_bio = 0;
	if (n > IOT_BPF_MAX_DEVS)
		return iot_err_set(e, -E2BIG, "bpf: at most %u devices", IOT_BPF_MAX_DEVS);
	s->ndevtab = n;
	for (unsigned i = 0; i < n; i++) {
		struct iot_bpf_dev v = {.dev = devs[i].kdev, .idx = i};
		uint32_t key = 0;
		int bio_based = 0, ret;

		if ((ret = disk_of(&devs[i], &key, &bio_based, e)))
			return ret;
		v.bio_based = (uint32_t)bio_based;
		if (devs[i].partition) {
			char p[600];
			uint64_t start = 0, size = 0;

			snprintf(p, sizeof(p), "%s/start", devs[i].sysdir);
			cap_read_u64(p, &start);
			snprintf(p, sizeof(p), "%s/size", devs[i].sysdir);
			cap_read_u64(p, &size);
			v.start = start;
			v.end = start + size; /* blk_trace_setup_lba(): inclusive, as the tracer */
		}
		for (unsigned j = 0; j < i; j++)
			if (keys[j] == key)
				return iot_err_set(e, -EBUSY,
				                   "bpf: '%s' shares its disk with another traced "
				                   "device (one trace per disk, as the blk tracer)",
				                   devs[i].name);
		keys[i] = key;
		tab[i] = v;
		if (n <= IOT_BPF_FAST_DEVS) {
			s->skel->rodata->dev_keys[i] = key;
			memcpy((void *)&s->skel->rodata->dev_tab[i], &v, sizeof(v));
		}
		*any_bio |= bio_based;
		*any_rq |= !bio_based;
		if (s->sd) {
			snprintf(s->sd[i].name, sizeof(s->sd[i].name), "%s", devs[i].name);
			s->sd[i].kdev = devs[i].kdev;
			s->sd[i].bio_based = bio_based;
		}
	}
	s->skel->rodata->ndevs = n;
	return 0;
}

/* After load: several devices go into the hash (one is in the program). */
static int fill_device_map(struct cap_backend_state *s, struct iot_err *e)
{
	for (unsigned i = 0; s->ndevtab > IOT_BPF_FAST_DEVS && i < s->ndevtab; i++)
		if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.devs), &s->devkeys[i],
		                        &s->devtab[i], BPF_NOEXIST))
			return iot_err_set(e, -errno, "bpf: device table: %s", strerror(errno));
	return 0;
}

static int summary_init(struct cap_backend_state *s, unsigned n, const char *rundir,
                        struct iot_err *e)
{
	int ncpu = libbpf_num_possible_cpus();

	if (ncpu <= 0)
		return iot_err_set(e, -EINVAL, "bpf: cannot count the CPUs");
	s->ncpu = (unsigned)ncpu;
	s->nsd = n;
	if (!(s->rundir = strdup(rundir)) || !(s->sd = calloc(n ? n : 1, sizeof(*s->sd))) ||
	    !(s->bins_buf = calloc(s->ncpu, sizeof(*s->bins_buf))))
		return iot_err_set(e, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < n; i++)
		if (!(s->sd[i].snap =
		          calloc((size_t)IOT_SUM_RING * s->ncpu, sizeof(*s->sd[i].snap))))
			return iot_err_set(e, -ENOMEM, "out of memory");
	return 0;
}

/* After load: no issue seen yet, so the seek distance starts at the second. */
static int summary_maps(struct cap_backend_state *s, struct iot_err *e)
{
	struct iot_sum_dev init = {.last_end = ~0ull};

	for (uint32_t idx = 0; idx < s->nsd; idx++)
		if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.sum_devs), &idx, &init, BPF_ANY))
			return iot_err_set(e, -errno, "bpf: summary table: %s", strerror(errno));
	return 0;
}

/* Which programs a level needs: each program is one tracepoint. */
static void choose_programs(struct cap_backend_state *s, enum cap_detail detail, uint16_t mask)
{
	struct iotape_blk *k = s->skel;
	/* the categories an op gives any record (a record passes the mask if one is in it) */
	const uint16_t opcat =
	    0x1 | 0x2 | 0x4 | 0x8 | 0x100 | 0x200 | 0x800 | 0x1000 | 0x2000 | 0x8000;
	struct {
		struct bpf_program *p;
		uint16_t cat; /* the action's own category */
	} ev[] = {
	    {k->progs.rq_insert, 0x10},
	    {k->progs.rq_issue, 0x40},
	    {k->progs.rq_merge, 0x10},
	    {k->progs.rq_requeue, 0x20},
	    {k->progs.rq_complete, 0x80},
	    {k->progs.bio_queue, 0x10},
	    {k->progs.bio_complete, 0x80},
	    {k->progs.bio_backmerge, 0x10},
	    {k->progs.bio_frontmerge, 0x10},
	    {k->progs.getrq, 0x10},
	    {k->progs.split, 0},
	    {k->progs.bio_remap, 0x10},
	    {k->progs.plug, 0x10},
	    {k->progs.unplug, 0x10},
	};

	for (unsigned i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		bpf_program__set_autoload(ev[i].p, detail == CAP_DETAIL_EVENTS &&
		                                       (mask & (ev[i].cat | opcat)) != 0);
	if (detail != CAP_DETAIL_EVENTS) {
		bpf_program__set_autoload(k->progs.rq_issue, true);
		bpf_program__set_autoload(k->progs.rq_requeue, true);
		bpf_program__set_autoload(k->progs.rq_complete, true);
		bpf_program__set_autoload(k->progs.bio_queue, true);
		bpf_program__set_autoload(k->progs.bio_complete, true);
	}
}

static size_t pow2_at_least(size_t v)
{
	size_t p = 1;

	while (p < v && p < ((size_t)1 << 30))
		p <<= 1;
	return p;
}

/* Why the kernel cannot run the programs, before trying: BTF (CO-RE needs it). */
static int kernel_ready(struct iot_err *e)
{
	const char *btf = getenv("IOTAPE_BTF"); /* tests point it elsewhere */

	if (!btf || !*btf)
		btf = "/sys/kernel/btf/vmlinux";
	if (access(btf, R_OK))
		return iot_err_set(e, -ENOTSUP, "bpf: the kernel has no BTF ('%s': %s)", btf,
		                   strerror(errno));
	return 0;
}

static int bpf_start(struct cap_backend_state **out, const struct cap_dev *devs, unsigned n,
                     const struct cap_opts *o, struct cap_reader *rd, struct iot_err *e)
{
	struct cap_backend_state *s = calloc(1, sizeof(*s));
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int ret, any_rq, any_bio;
	size_t kb = o->buffer_kb ? o->buffer_kb : CAP_DEFAULT_BUFFER_KB;

	*out = s;
	if (!s)
		return iot_err_set(e, -ENOMEM, "out of memory");
	s->sink = cap_reader_sink(rd);
	s->detail = o->detail;
	s->hold = o->detail == CAP_DETAIL_IO ? HOLD_IO_MIN_NS : HOLD_EVENTS_NS;
	s->attached = json_array();
	if (!(s->names = bt_comm_table_new()))
		return iot_err_set(e, -ENOMEM, "out of memory");
	if ((ret = kernel_ready(e)))
		return ret;
	libbpf_set_print(libbpf_print);
	libbpf_last[0] = '\0';
	s->skel = iotape_blk__open();
	if (!s->skel)
		return iot_err_set(e, -errno ? -errno : -EINVAL, "bpf: cannot open the program: %s",
		                   libbpf_last[0] ? libbpf_last : strerror(errno));
	s->skel->rodata->level = o->detail == CAP_DETAIL_IO        ? IOT_BPF_IO
	                         : o->detail == CAP_DETAIL_SUMMARY ? IOT_BPF_SUMMARY
	                                                           : IOT_BPF_EVENTS;
	s->skel->rodata->act_mask = o->act_mask ? o->act_mask : 0xffff;
	s->interval_ns = o->sum_interval_ns ? o->sum_interval_ns : BLK_SUMMARY_INTERVAL_NS;
	s->idle_ns = o->sum_idle_ns ? o->sum_idle_ns : BLK_SUMMARY_IDLE_NS;
	s->read_every = s->interval_ns * (IOT_SUM_RING / 4) < 1000000000ull
	                    ? s->interval_ns * (IOT_SUM_RING / 4)
	                    : 1000000000ull;
	s->skel->rodata->interval_ns = s->interval_ns;
	s->skel->rodata->idle_ns = s->idle_ns;
	/* the tests' check of the summary against analyze of the same IOs (capture_bpf.sh) */
	s->skel->rodata->also_io = o->detail == CAP_DETAIL_SUMMARY &&
	                           getenv("IOTAPE_BPF_SUMMARY_WITH_IO") &&
	                           !strcmp(getenv("IOTAPE_BPF_SUMMARY_WITH_IO"), "1");
	if (s->skel->rodata->also_io)
		s->hold = HOLD_IO_MIN_NS;
	s->rb_bytes = pow2_at_least(kb * 1024 * (size_t)(ncpu > 0 ? ncpu : 1));
	s->skel->rodata->wake_bytes = s->rb_bytes / 4;
	bpf_map__set_max_entries(s->skel->maps.records, (uint32_t)s->rb_bytes);
	bpf_map__set_max_entries(s->skel->maps.inflight, INFLIGHT_MAX);
	choose_programs(s, o->detail, o->act_mask ? o->act_mask : 0xffff);
	if (o->detail == CAP_DETAIL_SUMMARY && (ret = summary_init(s, n, o->rundir, e)))
		return ret;
	if ((ret = fill_devices(s, devs, n, &any_rq, &any_bio, e)))
		return ret;
	if ((ret = iotape_blk__load(s->skel)))
		return iot_err_set(e, ret < 0 ? ret : -EINVAL,
		                   "bpf: the kernel refused the program: %s",
		                   libbpf_last[0] ? libbpf_last : strerror(-ret));
	if ((ret = fill_device_map(s, e)) ||
	    (o->detail == CAP_DETAIL_SUMMARY && (ret = summary_maps(s, e))))
		return ret;
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.records), on_record, s, NULL);
	if (!s->rb)
		return iot_err_set(e, -errno, "bpf: ring buffer: %s", strerror(errno));
	if ((ret = cap_reader_add_fn(rd, ring_buffer__epoll_fd(s->rb), drain, s, e)))
		return ret;
	/* attach last: from here on events flow */
	{
		struct bpf_program *p;

		bpf_object__for_each_program(p, s->skel->obj)
		{
			struct bpf_link *l;

			if (!bpf_program__autoload(p))
				continue;
			/* io level: a disk kind nobody traces needs no probe */
			if (o->detail != CAP_DETAIL_EVENTS &&
			    (((p == s->skel->progs.rq_issue || p == s->skel->progs.rq_complete ||
			       p == s->skel->progs.rq_requeue) &&
			      !any_rq) ||
			     ((p == s->skel->progs.bio_queue || p == s->skel->progs.bio_complete) &&
			      !any_bio)))
				continue;
			l = bpf_program__attach(p);
			if (!l)
				return iot_err_set(e, -errno, "bpf: attaching to %s: %s",
				                   bpf_program__section_name(p), strerror(errno));
			/* the skeleton's destroy closes the links it holds */
			for (int i = 0; i < s->skel->skeleton->prog_cnt; i++)
				if (*s->skel->skeleton->progs[i].prog == p)
					*s->skel->skeleton->progs[i].link = l;
			json_array_append_new(s->attached,
			                      json_string(bpf_program__section_name(p) + 7));
		}
	}
	return 0;
}

static void bpf_stop(struct cap_backend_state *s)
{
	/* no new records; what is in the ring buffer is still drained */
	if (s && s->skel)
		iotape_blk__detach(s->skel);
}

static uint64_t counter(struct cap_backend_state *s, uint32_t which)
{
	long ncpu = libbpf_num_possible_cpus();
	uint64_t *v, sum = 0;

	if (ncpu <= 0 || !(v = calloc((size_t)ncpu, sizeof(*v))))
		return 0;
	if (!bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.counters), &which, v))
		for (long c = 0; c < ncpu; c++)
			sum += v[c];
	free(v);
	return sum;
}

static int bpf_teardown(struct cap_backend_state *s, struct cap_result *res, json_t *info,
                        struct iot_err *e)
{
	(void)e;
	if (!s)
		return 0;
	if (s->skel && info) {
		uint64_t lost = counter(s, IOT_CNT_LOST);

		json_object_set_new(info, "program", json_string("tp_btf"));
		json_object_set_new(info, "detail", json_string(cap_detail_name(s->detail)));
		json_object_set_new(info, "ring_buffer_bytes", json_u64(s->rb_bytes));
		json_object_set_new(info, "tracepoints", json_incref(s->attached));
		json_object_set_new(info, "records", json_u64(s->records));
		json_object_set_new(info, "lost_records", json_u64(lost));
		if (s->detail != CAP_DETAIL_EVENTS) {
			json_object_set_new(info, "unpaired_completions",
			                    json_u64(counter(s, IOT_CNT_UNPAIRED)));
			json_object_set_new(info, "inflight_table_full",
			                    json_u64(counter(s, IOT_CNT_TABLE_FULL)));
			json_object_set_new(info, "merges", json_u64(counter(s, IOT_CNT_MERGES)));
		}
		json_object_set_new(info, "reorder",
		                    json_pack("{s:I, s:I, s:I}", "hold_ns", (json_int_t)s->hold,
		                              "late", (json_int_t)s->late, "forced",
		                              (json_int_t)s->forced));
		if (res)
			res->dropped = lost;
	}
	ring_buffer__free(s->rb);
	iotape_blk__destroy(s->skel);
	json_decref(s->attached);
	bt_comm_table_free(s->names);
	free(s->keys);
	free(s->slab);
	free(s->free_slots);
	for (unsigned i = 0; s->sd && i < s->nsd; i++) {
		free(s->sd[i].snap);
		free(s->sd[i].bins);
		free(s->sd[i].gaps);
	}
	free(s->sd);
	free(s->bins_buf);
	free(s->rundir);
	free(s);
	return 0;
}

const struct cap_blk_ops cap_bpf_ops = {
    .name = "bpf",
    .start = bpf_start,
    .stop = bpf_stop,
    .teardown = bpf_teardown,
};

int cap_bpf_built(const char **why)
{
	*why = NULL;
	return 1;
}

#else /* !IOTAPE_HAVE_BPF */

#ifndef IOTAPE_NO_BPF_REASON
#define IOTAPE_NO_BPF_REASON "it was not configured"
#endif

static int nobpf_start(struct cap_backend_state **out, const struct cap_dev *devs, unsigned n,
                       const struct cap_opts *o, struct cap_reader *rd, struct iot_err *e)
{
	(void)devs, (void)n, (void)o, (void)rd;
	*out = NULL;
	return iot_err_set(
	    e, -ENOTSUP,
	    "bpf: this iotape was built without the bpf backend (" IOTAPE_NO_BPF_REASON
	    " when it was built)");
}

static void nobpf_stop(struct cap_backend_state *s)
{
	(void)s;
}

static int nobpf_teardown(struct cap_backend_state *s, struct cap_result *res, json_t *info,
                          struct iot_err *e)
{
	(void)s, (void)res, (void)info, (void)e;
	return 0;
}

const struct cap_blk_ops cap_bpf_ops = {
    .name = "bpf",
    .start = nobpf_start,
    .stop = nobpf_stop,
    .teardown = nobpf_teardown,
};

int cap_bpf_built(const char **why)
{
	*why = IOTAPE_NO_BPF_REASON " when this iotape was built";
	return 0;
}

#endif
