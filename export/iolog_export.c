/* SPDX-License-Identifier: MIT */
/* A block trace as fio iologs, one per device, and fio job files that replay them. */
#include "export/export.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/blk_depth.h"
#include "common/fs.h"
#include "formats/blktrace.h"
#include "formats/iolog.h"
#include "formats/manifest.h"

#define MAX_IODEPTH 256u /* the job's iodepth: the trace's depth, at most this */

struct xdev {
	struct export_iolog_dev d;
	struct iolog_writer *w;
	char *path; /* the iolog's file name in the log: /dev/NAME */
	bool out;   /* left out (no target, only_targets) */
};

struct xp {
	const struct export_iolog_opts *o;
	struct export_iolog_result *res;
	struct xdev *devs;
	unsigned ndevs;
	unsigned last; /* index of the last device looked up */
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

static const struct export_target *target_of(const struct export_iolog_opts *o, uint32_t dev)
{
	for (unsigned i = 0; i < o->ntargets; i++)
		if (o->targets[i].dev == dev)
			return &o->targets[i];
	return NULL;
}

/* The device's entry, made on first sight; NULL when out of memory. */
static struct xdev *dev_of(struct xp *x, uint32_t dev, struct iot_err *e, int *ret)
{
	const struct export_target *t;
	struct xdev *d;
	const char *name = NULL;
	char buf[64];

	if (x->ndevs && x->devs[x->last].d.dev == dev)
		return &x->devs[x->last];
	for (unsigned i = 0; i < x->ndevs; i++)
		if (x->devs[i].d.dev == dev)
			return &x->devs[x->last = i];
	d = realloc(x->devs, (x->ndevs + 1) * sizeof(*d));
	if (!d) {
		*ret = iot_err_set(e, -ENOMEM, "out of memory");
		return NULL;
	}
	x->devs = d;
	d = &x->devs[x->ndevs];
	memset(d, 0, sizeof(*d));
	d->d.dev = dev;
	for (unsigned i = 0; x->have_manifest && i < x->m.ndevs; i++)
		if (BLK_MKDEV(x->m.devs[i].major, x->m.devs[i].minor) == dev)
			name = x->m.devs[i].name;
	if (!name) {
		snprintf(buf, sizeof(buf), "dev%u_%u", BLK_DEV_MAJOR(dev), BLK_DEV_MINOR(dev));
		name = buf;
	}
	safe_name(d->d.name, sizeof(d->d.name), name);
	t = target_of(x->o, dev);
	d->out = !t && x->o->only_targets;
	d->d.job = t ? t->job : 0;
	d->d.target = t ? t->target : NULL;
	if (asprintf(&d->path, "/dev/%s", d->d.name) < 0) {
		*ret = iot_err_set(e, -ENOMEM, "out of memory");
		return NULL;
	}
	x->last = x->ndevs++;
	return d;
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

/* Times in the log: microseconds since the first IO written, plus one, because fio takes no
 * delay after a line at time 0 (delay_since_ttime). */
static uint64_t log_us(const struct xp *x, uint64_t t)
{
	return 1 + (t - x->t0) / 1000;
}

static int io_line(struct xp *x, struct xdev *d, const struct blk_event *ev, struct iot_err *e)
{
	int op = op_of(ev), ret;

	if (op < 0) {
		d->d.skipped++;
		return 0;
	}
	if ((op == IOLOG_WRITE || op == IOLOG_TRIM) && x->o->writes != EXPORT_WRITES) {
		if (op == IOLOG_WRITE && x->o->writes == EXPORT_WRITES_AS_READS) {
			op = IOLOG_READ;
			d->d.writes_as_reads++;
		} else {
			d->d.skipped_writes++;
			return 0;
		}
	}
	if (!x->have_t0) {
		x->t0 = ev->time;
		x->have_t0 = true;
	}
	if (!d->w) {
		char *path;

		if (asprintf(&path, "%s/%s.iolog", x->dir, d->d.name) < 0)
			return iot_err_set(e, -ENOMEM, "out of memory");
		ret = iolog_writer_open(&d->w, path, x->o->version, e);
		snprintf(d->d.iolog, sizeof(d->d.iolog), "%s.iolog", d->d.name);
		free(path);
		if (ret)
			return ret;
		x->res->st.files++;
		if ((ret = iolog_writer_line(d->w, 1, d->path, IOLOG_ADD, 0, 0, e)) ||
		    (ret = iolog_writer_line(d->w, 1, d->path, IOLOG_OPEN, 0, 0, e)))
			return ret;
		x->res->st.lines += 2;
		d->d.first_ns = ev->time;
	}
	ret = iolog_writer_line(d->w, log_us(x, ev->time), d->path, (unsigned)op,
	                        ev->sector * 512 + (op == IOLOG_DATASYNC ? 0 : x->o->offset),
	                        op == IOLOG_DATASYNC ? 0 : ev->bytes, e);
	if (ret)
		return ret;
	d->d.last_ns = ev->time;
	d->d.ios++;
	d->d.bytes += op == IOLOG_DATASYNC ? 0 : ev->bytes;
	d->d.ops[op]++;
	x->res->st.lines++;
	x->res->st.ios++;
	return 0;
}

static int job_file(struct xp *x, unsigned job, struct iot_err *e)
{
	const struct export_iolog_opts *o = x->o;
	const char *name = o->njobs && o->job_names ? o->job_names[job] : "replay";
	char *path, *jdir = NULL;
	FILE *f;
	int ret = 0, any = 0;

	if (asprintf(&path, "%s/%s.fio", x->dir, name) < 0)
		return iot_err_set(e, -ENOMEM, "out of memory");
	f = fopen(path, "w");
	if (!f) {
		ret = iot_err_set(e, -errno, "'%s': %s", path, strerror(errno));
		free(path);
		return ret;
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
		struct xdev *d = &x->devs[i];

		if (d->out || !d->d.ios || d->d.job != job)
			continue;
		any = 1;
		fprintf(f, "\n[%s]\nread_iolog=%s/%s\n", d->d.name, jdir, d->d.iolog);
		if (d->d.target)
			fprintf(f, "replay_redirect=%s\n", d->d.target);
		else
			fprintf(f, "replay_redirect=${IOTAPE_TARGET_%s}\n", d->d.name);
		fprintf(f, "iodepth=%u\n", d->d.iodepth);
	}
	if (!any)
		fprintf(f, "\n; (no device of the trace has IOs for this job)\n");
	if (ferror(f) | fclose(f))
		ret = iot_err_set(e, -EIO, "'%s': write failed", path);
	else
		x->res->st.files++;
	free(path);
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
			struct xdev *d;

			x->res->st.events++;
			if (blk_is_notify(ev))
				continue;
			if (!(d = dev_of(x, ev->dev, e, &ret)))
				break;
			blk_depth_feed(x->depth, (unsigned)(d - x->devs), ev);
			if (ev->action == act && !d->out)
				ret = io_line(x, d, ev, e);
			else if (ev->action == act)
				d->d.left_out++;
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
	ret = pass(&x, run, e);
	for (unsigned i = 0; i < x.ndevs; i++) {
		struct xdev *d = &x.devs[i];
		const struct blk_depth_dev *dd = blk_depth_dev(x.depth, i);
		int r = 0;

		d->d.max_depth = dd ? dd->max : 0;
		d->d.iodepth = d->d.max_depth < 1 ? 1 : d->d.max_depth;
		if (d->d.iodepth > (o->max_iodepth ? o->max_iodepth : MAX_IODEPTH))
			d->d.iodepth = o->max_iodepth ? o->max_iodepth : MAX_IODEPTH;
		if (d->w && !ret)
			r = iolog_writer_line(d->w, log_us(&x, d->d.last_ns), d->path, IOLOG_CLOSE,
			                      0, 0, e);
		if (d->w) {
			struct iot_err ce;
			int c = iolog_writer_close(d->w, r || ret ? &ce : e);

			r = r ? r : c;
		}
		if (!ret)
			ret = r;
	}
	for (unsigned j = 0; !ret && j < (o->njobs ? o->njobs : 1); j++)
		ret = job_file(&x, j, e);
	res->t0 = x.t0;
	res->ndevs = x.ndevs;
	res->devs = calloc(x.ndevs ? x.ndevs : 1, sizeof(*res->devs));
	if (!res->devs && !ret)
		ret = iot_err_set(e, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < x.ndevs; i++) {
		if (res->devs)
			res->devs[i] = x.devs[i].d;
		free(x.devs[i].path);
	}
	res->st.devices = x.ndevs;
	free(x.devs);
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
