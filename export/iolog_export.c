/* SPDX-License-Identifier: MIT */
/* A block trace as fio iologs, one per device, and fio job files that replay them. */
#include "export/export.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/blk_depth.h"
#include "common/fs.h"
#include "formats/blktrace.h"
#include "formats/iolog.h"
#include "formats/manifest.h"

#define MAX_IODEPTH 256u /* the job's iodepth: the trace's depth, at most this */
/*
 * Logs open at once. A log's writer holds a descriptor and a 256 KiB buffer, so one per device
 * ran out of descriptors at 1 018 devices (fio's write_iolog gives 2 000 for nrfiles=2000) and
 * of memory at 10^6; past this many, the one used longest ago is closed and opened again for
 * appending when its device has IO again.
 */
#define OPEN_MAX 64u

/* What the pass keeps of a device besides its result (struct export_iolog_dev). */
struct xdev {
	struct iolog_writer *w; /* open, or NULL (never opened, or closed to make room) */
	struct iot_outfile of;  /* its file, beside the log's place until the export ends */
	uint64_t used;          /* the pass's clock when it last wrote */
	uint16_t closed;        /* closed for room: the length of the close line it ends with */
	bool out;               /* left out (no target, only_targets) */
};

struct xp {
	const struct export_iolog_opts *o;
	struct export_iolog_result *res;
	struct export_iolog_dev *devs; /* the result's array, handed over at the end */
	struct xdev *x;                /* beside it */
	unsigned ndevs, cap;
	uint32_t *slot; /* open addressing by device number: index + 1, 0 empty */
	unsigned nslots;
	unsigned last; /* index of the last device looked up */
	unsigned open[OPEN_MAX], nopen, max_open;
	uint64_t clock;
	struct manifest m;
	bool have_manifest;
	struct blk_depth *depth;
	bool have_t0;
	uint64_t t0;
	char *dir; /* absolute */
};

/* "loop0" -> "loop0"; characters a file or variable name cannot hold become '_'. */
static void safe_name(char *dst, size_t cap, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < cap; i++) {
		char c = src[i];

		dst[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		                 (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'
		             ? c
		             : '_';
	}
	dst[i] = 0;
}

/* A name's character in its job's environment variable, IOTAPE_TARGET_NAME: '-' and '.' as
 * '_', the only characters of a safe_name() a shell's `export` refuses (env(1) takes any). */
static char var_char(char c)
{
	return c == '-' || c == '.' ? '_' : c;
}

/* Whether names a and b give one environment variable (equal names do). */
static bool same_var(const char *a, const char *b)
{
	for (; *a && var_char(*a) == var_char(*b); a++, b++)
		;
	return var_char(*a) == var_char(*b);
}

/* A name no earlier device has, nor its variable: names the file rule maps together ("osd 0",
 * "osd/0"), that were cut to one prefix, or that differ only in '-', '.' and '_' ("dm-0",
 * "dm_0") get _MAJOR_MINOR (and then _N) added, so no log nor variable is shared. */
static void unique_name(const struct xp *x, struct export_iolog_dev *d)
{
	char base[sizeof(d->name)], sfx[32];
	unsigned n = 1;

	memcpy(base, d->name, sizeof(base));
	for (;;) {
		bool taken = false;

		for (unsigned i = 0; i < x->ndevs && !taken; i++)
			taken = same_var(x->devs[i].name, d->name);
		if (!taken)
			return;
		if (n == 1)
			snprintf(sfx, sizeof(sfx), "_%u_%u", BLK_DEV_MAJOR(d->dev),
			         BLK_DEV_MINOR(d->dev));
		else
			snprintf(sfx, sizeof(sfx), "_%u_%u_%u", BLK_DEV_MAJOR(d->dev),
			         BLK_DEV_MINOR(d->dev), n);
		n++;
		snprintf(d->name, sizeof(d->name), "%.*s%s",
		         (int)(sizeof(d->name) - 1 - strlen(sfx)), base, sfx);
	}
}

static const struct export_target *target_of(const struct export_iolog_opts *o, uint32_t dev)
{
	for (unsigned i = 0; i < o->ntargets; i++)
		if (o->targets[i].dev == dev)
			return &o->targets[i];
	return NULL;
}

static unsigned hash_dev(uint32_t dev, unsigned nslots)
{
	return (unsigned)((dev * 0x9e3779b1u) >> 7) & (nslots - 1);
}

/* The slot table at twice the devices, at least 64 (a power of two). */
static int rehash(struct xp *x)
{
	unsigned n = x->nslots ? x->nslots * 2 : 64;
	uint32_t *t = calloc(n, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (unsigned i = 0; i < x->ndevs; i++) {
		unsigned h = hash_dev(x->devs[i].dev, n);

		while (t[h])
			h = (h + 1) & (n - 1);
		t[h] = i + 1;
	}
	free(x->slot);
	x->slot = t;
	x->nslots = n;
	return 0;
}

/* The device's index, its entry made on first sight; -1 when out of memory. */
static int dev_of(struct xp *x, uint32_t dev, struct iot_err *e)
{
	const struct export_target *t;
	struct export_iolog_dev *d;
	const char *name = NULL;
	char buf[64];
	unsigned h;

	if (x->ndevs && x->devs[x->last].dev == dev)
		return (int)x->last;
	for (h = x->nslots ? hash_dev(dev, x->nslots) : 0; x->nslots && x->slot[h];
	     h = (h + 1) & (x->nslots - 1))
		if (x->devs[x->slot[h] - 1].dev == dev)
			return (int)(x->last = x->slot[h] - 1);
	if (x->ndevs == x->cap) {
		unsigned cap = x->cap ? x->cap * 2 : 16;
		struct export_iolog_dev *nd = realloc(x->devs, cap * sizeof(*nd));
		struct xdev *nx;

		if (nd)
			x->devs = nd;
		nx = nd ? realloc(x->x, cap * sizeof(*nx)) : NULL;
		if (!nx)
			return iot_err_set(e, -ENOMEM, "out of memory"), -1;
		x->x = nx;
		x->cap = cap;
	}
	d = &x->devs[x->ndevs];
	memset(d, 0, sizeof(*d));
	memset(&x->x[x->ndevs], 0, sizeof(x->x[0]));
	d->dev = dev;
	for (unsigned i = 0; x->have_manifest && i < x->m.ndevs; i++)
		if (BLK_MKDEV(x->m.devs[i].major, x->m.devs[i].minor) == dev)
			name = x->m.devs[i].name;
	if (!name) {
		snprintf(buf, sizeof(buf), "dev%u_%u", BLK_DEV_MAJOR(dev), BLK_DEV_MINOR(dev));
		name = buf;
	}
	safe_name(d->name, sizeof(d->name), name);
	unique_name(x, d);
	t = target_of(x->o, dev);
	x->x[x->ndevs].out = !t && x->o->only_targets;
	d->job = t ? t->job : 0;
	d->target = t ? t->target : NULL;
	x->last = x->ndevs++;
	if (2 * x->ndevs > x->nslots) {
		if (rehash(x))
			return x->ndevs--, iot_err_set(e, -ENOMEM, "out of memory"), -1;
	} else {
		for (h = hash_dev(dev, x->nslots); x->slot[h]; h = (h + 1) & (x->nslots - 1))
			;
		x->slot[h] = x->last + 1;
	}
	return (int)x->last;
}

/* The file name a device's lines carry: /dev/NAME */
static const char *log_file(const struct export_iolog_dev *d, char *buf, size_t cap)
{
	snprintf(buf, cap, "/dev/%s", d->name);
	return buf;
}

/* Times in the log: microseconds since the first IO written, plus one, because fio takes no
 * delay after a line at time 0 (delay_since_ttime). */
static uint64_t log_us(const struct xp *x, uint64_t t)
{
	return 1 + (t - x->t0) / 1000;
}

/* Device i's log ends (for now): its close line at the time of its last IO, and the file
 * closed. A log closed for room that gets IO again loses that line first. */
static int end_log(struct xp *x, unsigned i, struct iot_err *e)
{
	const struct export_iolog_dev *d = &x->devs[i];
	char file[80];
	int ret = iolog_writer_line(x->x[i].w, log_us(x, d->last_ns),
	                            log_file(d, file, sizeof(file)), IOLOG_CLOSE, 0, 0, e);
	struct iot_err ce;
	int c;

	x->x[i].closed = (uint16_t)iolog_writer_last_len(x->x[i].w);
	c = iolog_writer_close(x->x[i].w, ret ? &ce : e);
	x->x[i].w = NULL;
	if (!c)
		c = iot_outfile_suspend(&x->x[i].of, ret ? &ce : e);
	for (unsigned k = 0; k < x->nopen; k++)
		if (x->open[k] == i) {
			x->open[k] = x->open[--x->nopen];
			break;
		}
	return ret ? ret : c;
}

/* Close the log used longest ago, to make room for another (lines stay in order: each log is
 * appended to by its device alone). */
static int close_oldest(struct xp *x, struct iot_err *e)
{
	unsigned k = 0;

	for (unsigned j = 1; j < x->nopen; j++)
		if (x->x[x->open[j]].used < x->x[x->open[k]].used)
			k = j;
	return end_log(x, x->open[k], e);
}

/* Device i's log, open for another line: made on its first IO, opened again after a close. */
static int writer_of(struct xp *x, unsigned i, struct iot_err *e)
{
	struct export_iolog_dev *d = &x->devs[i];
	bool first = !d->iolog[0];
	char *path;
	int ret;

	x->x[i].used = ++x->clock;
	if (x->x[i].w)
		return 0;
	if (x->nopen >= x->max_open && (ret = close_oldest(x, e)))
		return ret;
	if (asprintf(&path, "%s/%s.iolog", x->dir, d->name) < 0)
		return iot_err_set(e, -ENOMEM, "out of memory");
	/* written beside and renamed at the end (finish_logs): an export killed meanwhile never
	 * leaves half a log under its name */
	if (first && !(ret = iot_outfile_open(&x->x[i].of, path, 0, e)))
		ret = iolog_writer_open(&x->x[i].w, x->x[i].of.fd, path, x->o->version, e);
	else if (!first && !(ret = iot_outfile_resume(&x->x[i].of, e)))
		ret = iolog_writer_append(&x->x[i].w, x->x[i].of.fd, path, x->o->version,
		                          x->x[i].closed, e);
	x->x[i].closed = 0;
	free(path);
	if (ret) {
		if (first && x->x[i].of.fd >= 0)
			iot_outfile_abort(&x->x[i].of);
		else if (!first)
			iot_outfile_suspend(&x->x[i].of, NULL);
		return ret;
	}
	x->open[x->nopen++] = i;
	if (first) {
		snprintf(d->iolog, sizeof(d->iolog), "%s.iolog", d->name);
		x->res->st.files++;
	}
	return 0;
}

/* What fio does for the event: an iolog op, or -1 to leave it out (counted). */
static int op_of(const struct blk_event *ev)
{
	if (ev->flags & (BLK_F_PC | BLK_F_WRITE_ZEROES))
		return -1; /* fio replays neither passthrough requests nor write-zeroes */
	if (ev->flags & BLK_F_DISCARD)
		return IOLOG_TRIM;
	if (!ev->bytes)
		return ev->flags & BLK_F_FLUSH ? IOLOG_DATASYNC : -1;
	return ev->flags & BLK_F_WRITE ? IOLOG_WRITE : IOLOG_READ;
}

static int io_line(struct xp *x, unsigned i, const struct blk_event *ev, struct iot_err *e)
{
	struct export_iolog_dev *d = &x->devs[i];
	int op = op_of(ev), ret;
	char file[80];

	if (op < 0) {
		d->skipped++;
		return 0;
	}
	if ((op == IOLOG_WRITE || op == IOLOG_TRIM) && x->o->writes != EXPORT_WRITES) {
		if (op == IOLOG_WRITE && x->o->writes == EXPORT_WRITES_AS_READS) {
			op = IOLOG_READ;
			d->writes_as_reads++;
		} else {
			d->skipped_writes++;
			return 0;
		}
	}
	if (!x->have_t0) {
		x->t0 = ev->time;
		x->have_t0 = true;
	}
	log_file(d, file, sizeof(file));
	if (!d->iolog[0]) {
		if ((ret = writer_of(x, i, e)) ||
		    (ret = iolog_writer_line(x->x[i].w, 1, file, IOLOG_ADD, 0, 0, e)) ||
		    (ret = iolog_writer_line(x->x[i].w, 1, file, IOLOG_OPEN, 0, 0, e)))
			return ret;
		x->res->st.lines += 2;
		d->first_ns = ev->time;
	} else if ((ret = writer_of(x, i, e))) {
		return ret;
	}
	ret = iolog_writer_line(x->x[i].w, log_us(x, ev->time), file, (unsigned)op,
	                        ev->sector * 512 + (op == IOLOG_DATASYNC ? 0 : x->o->offset),
	                        op == IOLOG_DATASYNC ? 0 : ev->bytes, e);
	if (ret)
		return ret;
	d->last_ns = ev->time;
	d->ios++;
	d->bytes += op == IOLOG_DATASYNC ? 0 : ev->bytes;
	d->ops[op]++;
	x->res->st.lines++;
	x->res->st.ios++;
	return 0;
}

static int job_file(struct xp *x, unsigned job, struct iot_err *e)
{
	const struct export_iolog_opts *o = x->o;
	const char *name = o->njobs && o->job_names ? o->job_names[job] : "replay";
	char *path, *jdir = NULL;
	struct iot_outfile of;
	FILE *f;
	int ret = 0, any = 0;

	if (asprintf(&path, "%s/%s.fio", x->dir, name) < 0)
		return iot_err_set(e, -ENOMEM, "out of memory");
	/* written beside and renamed: an interrupted export never leaves half a job file */
	ret = iot_outfile_open(&of, path, 0, e);
	free(path);
	if (ret)
		return ret;
	if (!(f = iot_outfile_stream(&of))) {
		iot_outfile_abort(&of);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	jdir = (char *)(o->job_dir ? o->job_dir : x->dir);
	fprintf(f,
	        "; fio job file written by iotape export (docs/export.md) from %s\n"
	        "; One job per device: read_iolog= is the device's IOs (from its %s events), and\n"
	        "; replay_redirect= the device or file fio replays them onto; set the\n"
	        "; IOTAPE_TARGET_NAME variables in the environment (or edit those lines) first.\n"
	        "; fio writes where the trace wrote: use a scratch target.\n"
	        "[global]\n"
	        "ioengine=%s\n"
	        "direct=%d\n"
	        "thread\n",
	        o->run ? o->run : "a trace", o->from_queue ? "Q" : "D",
	        o->ioengine ? o->ioengine : "libaio", !o->buffered);
	if (o->time_scale)
		fprintf(f, "replay_time_scale=%u\n", o->time_scale);
	if (o->no_stall)
		fprintf(f, "replay_no_stall=1\n");
	for (unsigned i = 0; i < x->ndevs; i++) {
		const struct export_iolog_dev *d = &x->devs[i];

		if (x->x[i].out || !d->ios || d->job != job)
			continue;
		any = 1;
		fprintf(f, "\n[%s]\nread_iolog=%s/%s\n", d->name, jdir, d->iolog);
		if (d->target)
			fprintf(f, "replay_redirect=%s\n", d->target);
		else {
			fprintf(f, "replay_redirect=${IOTAPE_TARGET_");
			for (const char *c = d->name; *c; c++)
				fputc(var_char(*c), f);
			fprintf(f, "}\n");
		}
		fprintf(f, "iodepth=%u\n", d->iodepth);
	}
	if (!any)
		fprintf(f, "\n; (no device of the trace has IOs for this job)\n");
	if (!(ret = iot_outfile_commit(&of, e)))
		x->res->st.files++;
	return ret;
}

/* Every log renamed into its place once all are whole; after an error each is removed instead,
 * and the files there before stay. */
static int finish_logs(struct xp *x, int ret, struct iot_err *e)
{
	for (unsigned i = 0; i < x->ndevs; i++) {
		if (!x->devs[i].iolog[0])
			continue; /* never opened */
		if (ret)
			iot_outfile_abort(&x->x[i].of);
		else
			ret = iot_outfile_commit(&x->x[i].of, e);
	}
	return ret;
}

static int pass(struct xp *x, const char *run, struct iot_err *e)
{
	const struct export_iolog_opts *o = x->o;
	unsigned act = o->from_queue ? BLK_A_QUEUE : BLK_A_ISSUE;
	struct bt_reader *r;
	const struct blk_event *evs;
	unsigned n;
	int ret;

	if ((ret = bt_reader_open(&r, run, e)))
		return ret;
	if ((ret = bt_reader_prefetch(r, e)))
		goto out;
	while ((ret = bt_reader_next_batch(r, &evs, &n, e)) > 0) {
		ret = 0;
		for (unsigned i = 0; i < n && !ret; i++) {
			const struct blk_event *ev = &evs[i];
			int d;

			x->res->st.events++;
			if (blk_is_notify(ev))
				continue;
			if ((d = dev_of(x, ev->dev, e)) < 0) {
				ret = -ENOMEM;
				break;
			}
			blk_depth_feed(x->depth, (unsigned)d, ev);
			if (ev->action == act && !x->x[d].out)
				ret = io_line(x, (unsigned)d, ev, e);
			else if (ev->action == act)
				x->devs[d].left_out++;
		}
		if (ret)
			goto out;
	}
out:
	bt_reader_free(r);
	return ret;
}

int export_fio_iolog(const char *run, const struct export_iolog_opts *o,
                     struct export_iolog_result *res, struct iot_err *e)
{
	struct xp x;
	char abs[PATH_MAX];
	int ret;

	memset(res, 0, sizeof(*res));
	memset(&x, 0, sizeof(x));
	x.o = o;
	x.res = res;
	if (o->version != 2 && o->version != 3)
		return iot_err_set(e, -EINVAL, "iolog version %u (2 or 3)", o->version);
	if ((ret = iot_mkdir_p(o->dir, e)))
		return ret;
	if (!realpath(o->dir, abs))
		return iot_err_set(e, -errno, "'%s': %s", o->dir, strerror(errno));
	x.dir = abs;
	x.depth = blk_depth_new();
	if (!x.depth)
		return iot_err_set(e, -ENOMEM, "out of memory");
	{
		struct iot_err me;
		struct stat st;

		if (strcmp(run, "-") && !stat(run, &st) && S_ISDIR(st.st_mode))
			x.have_manifest = !manifest_load(run, &x.m, &me);
	}
	x.max_open = OPEN_MAX;
	{
		/* fewer under a low limit on descriptors: the reader and the job files need some */
		struct rlimit rl;

		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < 4 * OPEN_MAX)
			x.max_open = rl.rlim_cur > 32 ? (unsigned)(rl.rlim_cur / 4) : 4;
	}
	ret = pass(&x, run, e);
	for (unsigned i = 0; i < x.ndevs; i++) {
		struct export_iolog_dev *d = &x.devs[i];
		const struct blk_depth_dev *dd = blk_depth_dev(x.depth, i);

		d->max_depth = dd ? dd->max : 0;
		d->iodepth = d->max_depth < 1 ? 1 : d->max_depth;
		if (d->iodepth > (o->max_iodepth ? o->max_iodepth : MAX_IODEPTH))
			d->iodepth = o->max_iodepth ? o->max_iodepth : MAX_IODEPTH;
		/* the logs still open end now; those closed for room ended then */
		if (x.x[i].w && !ret)
			ret = end_log(&x, i, e);
	}
	for (unsigned i = 0; i < x.nopen; i++) /* after an error: those still open */
		iolog_writer_close(x.x[x.open[i]].w, NULL);
	ret = finish_logs(&x, ret, e);
	for (unsigned j = 0; !ret && j < (o->njobs ? o->njobs : 1); j++)
		ret = job_file(&x, j, e);
	res->t0 = x.t0;
	/* the devices' entries are the result: handed over, not copied */
	res->ndevs = x.ndevs;
	res->devs = x.devs;
	res->st.devices = x.ndevs;
	free(x.x);
	free(x.slot);
	blk_depth_free(x.depth);
	if (x.have_manifest)
		manifest_release(&x.m);
	return ret;
}

void export_iolog_result_release(struct export_iolog_result *r)
{
	free(r->devs);
	r->devs = NULL;
	r->ndevs = 0;
}
