/* SPDX-License-Identifier: MIT */
/* The bpf backend: block tracepoints through a CO-RE program into the same blktrace files. */
#include "capture/bpf_int.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef IOTAPE_HAVE_BPF

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdarg.h>

#include "blk.skel.h" /* generated at build time by bpftool (CMakeLists.txt) */
#include "common/jsonint.h"

/* How the backend works: capture/bpf_int.h. Here: loading and attaching the programs, the
 * device table, draining the ring buffer, and the end. */

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

static int drain(void *arg, int final, struct iot_err *e)
{
	struct cap_backend_state *s = arg;
	int n = ring_buffer__consume(s->rb);

	if (s->spool) {
		/* s->err and s->e are the encoder thread's until the final poll has ended it */
		int ret = capbpf_spool_poll(s, final, e);

		if (!ret && n < 0)
			ret = iot_err_set(e, n, "bpf: reading the ring buffer: %s", strerror(-n));
		if (ret || !final)
			return ret ? ret : n > 0;
	} else if (!s->err && n < 0) {
		s->err = n;
	}
	if (!s->err)
		s->err = capbpf_flush(s, final);
	if (!s->err && s->detail == CAP_DETAIL_SUMMARY)
		s->err = capbpf_sum_tick(s, final);
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

/* A request-based disk's in-flight slots (capture/bpf/blk.bpf.c rq_slot()), from its queue
 * directory qdir: its hardware queues, and the most tags a request's place can take, the
 * scheduler's (nr_requests) or the driver's (mq/N/nr_tags). 0 when sysfs does not say. */
static void disk_slots(const char *qdir, uint32_t *nhw, uint32_t *depth)
{
	char p[600];
	uint64_t v;

	*nhw = *depth = 0;
	snprintf(p, sizeof(p), "%s/nr_requests", qdir);
	if (!cap_read_u64(p, &v) && v < UINT32_MAX)
		*depth = (uint32_t)v;
	for (uint32_t h = 0; h < 65536; h++) {
		snprintf(p, sizeof(p), "%s/../mq/%u/nr_tags", qdir, h);
		if (cap_read_u64(p, &v))
			break;
		*nhw = h + 1;
		if (v > *depth && v < UINT32_MAX)
			*depth = (uint32_t)v;
	}
}

/* The device table, into the program before it is loaded (capture/bpf/blk.bpf.c). */
static int fill_devices(struct cap_backend_state *s, const struct cap_dev *devs, unsigned n,
                        int *any_rq, int *any_bio, struct iot_err *e)
{
	uint32_t *keys = s->devkeys, nslots = 0;
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
		if (!bio_based && s->detail != CAP_DETAIL_EVENTS) {
			uint32_t nhw, depth;

			disk_slots(devs[i].queuedir, &nhw, &depth);
			/* past SLOTS_MAX in all, a disk's requests go in the hash */
			if (nhw && depth && (uint64_t)nhw * depth <= SLOTS_MAX - nslots) {
				v.slot_base = nslots;
				v.slot_depth = depth;
				v.slot_nhw = nhw;
				nslots += nhw * depth;
			}
		}
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
	bpf_map__set_max_entries(s->skel->maps.slots, nslots ? nslots : 1);
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

/* The program opened and set up for options o (before load): its level, mask, summary
 * options, ring buffer size and the programs the level needs. */
static int open_program(struct cap_backend_state *s, const struct cap_opts *o, struct iot_err *e)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	size_t kb = o->buffer_kb ? o->buffer_kb : CAP_DEFAULT_BUFFER_KB;

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
	return 0;
}

/* Attach the loaded programs (last: from here on events flow); at the io and summary levels
 * a disk kind nobody traces needs no probe (any_rq: a request-based disk is traced, any_bio:
 * a bio-based one). */
static int attach_programs(struct cap_backend_state *s, enum cap_detail detail, int any_rq,
                           int any_bio, struct iot_err *e)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, s->skel->obj)
	{
		struct bpf_link *l;

		if (!bpf_program__autoload(p))
			continue;
		if (detail != CAP_DETAIL_EVENTS &&
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
		json_array_append_new(s->attached, json_string(bpf_program__section_name(p) + 7));
	}
	return 0;
}

static int bpf_start(struct cap_backend_state **out, const struct cap_dev *devs, unsigned n,
                     const struct cap_opts *o, struct cap_reader *rd, struct iot_err *e)
{
	struct cap_backend_state *s = calloc(1, sizeof(*s));
	int ret, any_rq, any_bio;

	*out = s;
	if (!s)
		return iot_err_set(e, -ENOMEM, "out of memory");
	s->sink = cap_reader_sink(rd);
	s->detail = o->detail;
	s->hold = o->detail == CAP_DETAIL_IO ? HOLD_IO_MIN_NS : HOLD_EVENTS_NS;
	s->attached = json_array();
	if (!(s->names = bt_comm_table_new()))
		return iot_err_set(e, -ENOMEM, "out of memory");
	cap_sink_names(s->sink, s->names);
	if ((ret = kernel_ready(e)) || (ret = open_program(s, o, e)))
		return ret;
	if (o->detail == CAP_DETAIL_SUMMARY && (ret = capbpf_sum_init(s, n, o->rundir, e)))
		return ret;
	if ((ret = fill_devices(s, devs, n, &any_rq, &any_bio, e)))
		return ret;
	if ((ret = iotape_blk__load(s->skel)))
		return iot_err_set(e, ret < 0 ? ret : -EINVAL,
		                   "bpf: the kernel refused the program: %s",
		                   libbpf_last[0] ? libbpf_last : strerror(-ret));
	if ((ret = fill_device_map(s, e)) ||
	    (o->detail == CAP_DETAIL_SUMMARY && (ret = capbpf_sum_maps(s, e))))
		return ret;
	/* the summary level's few records (its gaps) and its maps are read by the reader */
	if (o->detail != CAP_DETAIL_SUMMARY && o->backlog_bytes != CAP_BACKLOG_INLINE &&
	    (ret =
	         capbpf_spool_new(s, o->backlog_bytes ? o->backlog_bytes : CAP_DEFAULT_BACKLOG, e)))
		return ret;
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.records),
	                         s->spool ? capbpf_spool_add : capbpf_on_record, s, NULL);
	if (!s->rb)
		return iot_err_set(e, -errno, "bpf: ring buffer: %s", strerror(errno));
	if ((ret = cap_reader_add_fn(rd, ring_buffer__epoll_fd(s->rb), drain, s, e)))
		return ret;
	return attach_programs(s, o->detail, any_rq, any_bio, e);
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

/* What the capture's manifest says of the backend (its "backend" object): the program, the
 * level, the ring buffer, the records and their losses, the reordering. */
static void backend_info(struct cap_backend_state *s, json_t *info, uint64_t lost)
{
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
	json_object_set_new(info, "encoder", capbpf_spool_json(s));
	if (s->detail == CAP_DETAIL_SUMMARY)
		json_object_set_new(info, "summary_depth_missed",
		                    json_u64(counter(s, IOT_CNT_SUM_MISSED)));
	json_object_set_new(info, "reorder",
	                    json_pack("{s:I, s:I, s:I}", "hold_ns", (json_int_t)s->hold, "late",
	                              (json_int_t)s->late, "forced", (json_int_t)s->forced));
}

static int bpf_teardown(struct cap_backend_state *s, struct cap_result *res, json_t *info,
                        struct iot_err *e)
{
	(void)e;
	if (!s)
		return 0;
	/* a capture that failed before its final drain: the encoder stops first (s is ours) */
	capbpf_spool_end(s);
	if (s->skel && info) {
		uint64_t lost = counter(s, IOT_CNT_LOST);

		backend_info(s, info, lost);
		if (res)
			res->dropped = lost;
	}
	capbpf_spool_free(s);
	ring_buffer__free(s->rb);
	iotape_blk__destroy(s->skel);
	json_decref(s->attached);
	/* the sink outlives us (a fallback backend, the session's notifies) */
	cap_sink_names(s->sink, NULL);
	bt_comm_table_free(s->names);
	capbpf_order_free(s);
	capbpf_sum_free(s);
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
