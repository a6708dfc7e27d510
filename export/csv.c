/* SPDX-License-Identifier: MIT */
/* A block trace as CSV: one row per event, or one row per device and timeline interval. */
#include "export/export.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/jsonint.h"
#include "analyze/blk_timeline.h"
#include "common/fs.h"
#include "common/numfmt.h"
#include "common/textesc.h"
#include "formats/blktrace.h"

#define OUT_BUF (1u << 20)

struct cw {
	int fd;
	int err;
	size_t len;
	struct export_stats *st;
	char buf[OUT_BUF];
};

static void cw_flush(struct cw *w)
{
	size_t done = 0;

	if (!w->err)
		w->err = iot_write_all(w->fd, w->buf, w->len, &done);
	w->st->bytes += done;
	w->len = 0;
}

static char *cw_room(struct cw *w, size_t need)
{
	if (w->len + need > OUT_BUF)
		cw_flush(w);
	return w->buf + w->len;
}

static char *put_dev(char *p, uint32_t dev)
{
	p = numfmt_u64(p, BLK_DEV_MAJOR(dev));
	*p++ = ':';
	return numfmt_u64(p, BLK_DEV_MINOR(dev));
}

static const char ev_header[] =
    "time_ns,device,cpu,sequence,pid,action,rwbs,sector,bytes,error,process\n";

/* One event's row (docs/export.md lists the columns). */
static void ev_row(struct cw *w, const struct blk_event *ev, uint64_t t0, const char *comm)
{
	char rwbs[8], *p, *start;
	const char *act = blk_action_name(ev->action);
	size_t cl = comm ? strlen(comm) : 0;

	p = start = cw_room(w, 256 + TXT_CSV_MAX(cl));
	p = numfmt_u64(p, ev->time - t0);
	*p++ = ',';
	p = put_dev(p, ev->dev);
	*p++ = ',';
	p = numfmt_u64(p, ev->cpu);
	*p++ = ',';
	p = numfmt_u64(p, ev->seq);
	*p++ = ',';
	p = numfmt_u64(p, ev->pid);
	*p++ = ',';
	memcpy(p, act, strlen(act));
	p += strlen(act);
	*p++ = ',';
	blk_rwbs(ev->flags, ev->bytes, rwbs);
	memcpy(p, rwbs, strlen(rwbs));
	p += strlen(rwbs);
	*p++ = ',';
	p = numfmt_u64(p, ev->sector);
	*p++ = ',';
	p = numfmt_u64(p, ev->bytes);
	*p++ = ',';
	p = numfmt_u64(p, ev->error);
	*p++ = ',';
	if (cl)
		p = txt_csv_put(p, comm); /* escaped as compare's CSV: control bytes, formulas */
	*p++ = '\n';
	w->len += (size_t)(p - start);
	w->st->lines++;
	w->st->ios++;
}

/* The timeline's columns: the keys of a timeline bin in the analyze JSON, in this order. */
static const char *const tl_keys[] = {
    "start_ns",  "width_ns", "read_bytes", "write_bytes", "read_mbps", "write_mbps", "ios",
    "write_ios", "iops",     "seeks",      "depth",       "depth_max", "idle_ns",    "idle_frac"};
#define NTL (sizeof(tl_keys) / sizeof(tl_keys[0]))

/* start_ns from t0, the trace's first event, as the event rows' time_ns (docs/export.md) */
static void tl_rows(struct cw *w, const struct blk_timeline *t, const uint32_t *devs,
                    unsigned ndevs, uint64_t t0)
{
	uint64_t nb = blk_timeline_nbins(t);

	for (unsigned d = 0; d < ndevs; d++) {
		for (uint64_t k = 0; k < nb; k++) {
			/* the sink computes the figures; here they are only printed */
			json_t *b = blk_timeline_bin_json(t, d, k);
			char *p = cw_room(w, 512), *start = p;

			p = put_dev(p, devs[d]);
			for (size_t i = 0; i < NTL; i++) {
				json_t *v = json_object_get(b, tl_keys[i]);
				uint64_t u;

				*p++ = ',';
				if (!json_u64_get(v, &u))
					p = numfmt_u64(p, i == 0 ? (u > t0 ? u - t0 : 0) : u);
				else
					p += snprintf(p, 32, "%.9g", json_number_value(v));
			}
			*p++ = '\n';
			w->len += (size_t)(p - start);
			w->st->lines++;
			json_decref(b);
		}
	}
}

static int dev_index(uint32_t **devs, unsigned *n, uint32_t dev, unsigned *last)
{
	uint32_t *d;

	if (*n && (*devs)[*last] == dev)
		return (int)*last;
	for (unsigned i = 0; i < *n; i++)
		if ((*devs)[i] == dev)
			return (int)(*last = i);
	d = realloc(*devs, (*n + 1) * sizeof(*d));
	if (!d)
		return -ENOMEM;
	*devs = d;
	d[*n] = dev;
	*last = *n;
	return (int)(*n)++;
}

static int pass(struct cw *w, struct bt_reader *r, const struct export_csv_opts *o,
                struct blk_timeline *tl, uint32_t **devs, unsigned *ndevs, uint64_t *t0_out,
                struct iot_err *e)
{
	struct bt_comm_table *comms = bt_comm_table_new();
	const struct blk_event *evs;
	unsigned n, last = 0;
	uint64_t t0 = 0;
	bool have_t0 = false;
	int ret;

	if (!comms)
		return iot_err_set(e, -ENOMEM, "out of memory");
	while ((ret = bt_reader_next_batch(r, &evs, &n, e)) > 0) {
		for (unsigned i = 0; i < n; i++) {
			const struct blk_event *ev = &evs[i];
			int di;

			w->st->events++;
			if (blk_is_notify(ev)) {
				if (ev->action == BLK_N_PROCESS && ev->pdu_len)
					bt_comm_table_set(comms, ev->pid, (const char *)ev->pdu,
					                  ev->pdu_len);
				continue;
			}
			if (!have_t0) {
				t0 = ev->time;
				have_t0 = true;
			}
			if ((di = dev_index(devs, ndevs, ev->dev, &last)) < 0) {
				ret = iot_err_set(e, -ENOMEM, "out of memory");
				goto out;
			}
			if (o->timeline)
				blk_timeline_feed(tl, (unsigned)di, ev);
			else
				ev_row(w, ev, t0, bt_comm_table_get(comms, ev->pid));
		}
		if (w->err)
			break;
	}
out:
	*t0_out = t0;
	bt_comm_table_free(comms);
	return ret;
}

int export_csv(const char *run, const struct export_csv_opts *o, int fd, struct export_stats *st,
               struct iot_err *e)
{
	struct cw *w = malloc(sizeof(*w));
	struct export_stats dummy;
	struct blk_timeline *tl = NULL;
	struct bt_reader *r = NULL;
	uint32_t *devs = NULL;
	unsigned ndevs = 0;
	struct blk_opts bo;
	uint64_t t0 = 0;
	int ret;

	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	if (!w)
		return iot_err_set(e, -ENOMEM, "out of memory");
	w->fd = fd;
	w->err = 0;
	w->len = 0;
	w->st = st;
	if (o->timeline) {
		bo = o->blk;
		if (!(tl = blk_timeline_new(&bo))) {
			free(w);
			return iot_err_set(e, -ENOMEM, "out of memory");
		}
	}
	if ((ret = bt_reader_open(&r, run, e)) || (ret = bt_reader_prefetch(r, e)))
		goto out;
	if (o->timeline) {
		static const char h[] = "device";

		memcpy(cw_room(w, 256), h, strlen(h));
		w->len += strlen(h);
		for (size_t i = 0; i < NTL; i++) {
			char *p = cw_room(w, 64);

			*p++ = ',';
			memcpy(p, tl_keys[i], strlen(tl_keys[i]));
			w->len += 1 + strlen(tl_keys[i]);
		}
		*cw_room(w, 1) = '\n';
		w->len++;
	} else {
		memcpy(cw_room(w, sizeof(ev_header)), ev_header, strlen(ev_header));
		w->len += strlen(ev_header);
	}
	if ((ret = pass(w, r, o, tl, &devs, &ndevs, &t0, e)))
		goto out;
	if (o->timeline) {
		/* the span ends with the last event fed, as in the analysis */
		blk_timeline_finish(tl, 0, 0);
		tl_rows(w, tl, devs, ndevs, t0);
	}
	cw_flush(w);
	if (w->err)
		ret = iot_err_set(e, w->err, "write: %s", strerror(-w->err));
	st->devices = ndevs;
out:
	bt_reader_free(r);
	blk_timeline_free(tl);
	free(devs);
	free(w);
	return ret;
}
