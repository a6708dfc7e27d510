/* SPDX-License-Identifier: MIT */
/* blktrace writer: version 7 records in host byte order, one file or a per-CPU set. */
#include "formats/blktrace.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WBUF_SIZE (1u << 20)

struct bt_writer {
	struct bt_wbuf b; /* cap 0 after an error: bt_wbuf_room() then gives no room */
	int fd;
	char *path;
	int err; /* first write error (negative errno), sticky */
};

int bt_writer_open(struct bt_writer **out, const char *path, struct iot_err *e)
{
	struct bt_writer *w = calloc(1, sizeof(*w));

	*out = NULL;
	if (!w)
		return iot_err_set(e, -ENOMEM, "out of memory");
	w->path = strdup(path);
	w->b.buf = malloc(WBUF_SIZE);
	w->b.cap = WBUF_SIZE;
	if (!w->path || !w->b.buf) {
		free(w->path);
		free(w->b.buf);
		free(w);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		int ret = iot_err_set(e, -errno, "'%s': %s", path, strerror(errno));
		free(w->path);
		free(w->b.buf);
		free(w);
		return ret;
	}
	*out = w;
	return 0;
}

static int flush(struct bt_writer *w, struct iot_err *e)
{
	size_t done = 0;

	while (done < w->b.len && !w->err) {
		ssize_t n = write(w->fd, w->b.buf + done, w->b.len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			w->err = n < 0 ? -errno : -EIO;
		else
			done += (size_t)n;
	}
	w->b.len = 0;
	if (w->err) {
		w->b.cap = 0;
		return iot_err_set(e, w->err, "'%s': write: %s", w->path, strerror(-w->err));
	}
	return 0;
}

int bt_writer_write_raw(struct bt_writer *w, const void *rec, size_t len, struct iot_err *e)
{
	if (w->err)
		return iot_err_set(e, w->err, "'%s': write: %s", w->path, strerror(-w->err));
	if (len > WBUF_SIZE - w->b.len && flush(w, e))
		return w->err;
	if (len > WBUF_SIZE)
		return iot_err_set(e, -EINVAL, "record of %zu bytes is too large", len);
	memcpy(bt_wbuf_room(&w->b, len), rec, len);
	return 0;
}

int bt_writer_write(struct bt_writer *w, const struct blk_event *ev, struct iot_err *e)
{
	uint8_t rec[BT_REC7_SIZE + 8 + 0xffff];
	size_t n = bt_encode7(ev, rec, sizeof(rec));

	if (!n)
		return iot_err_set(e, -EINVAL, "'%s': event PDU of %u bytes does not fit", w->path,
		                   ev->pdu_len);
	return bt_writer_write_raw(w, rec, n, e);
}

int bt_writer_close(struct bt_writer *w, struct iot_err *e)
{
	int ret;

	if (!w)
		return 0;
	ret = flush(w, e);
	if (close(w->fd) && !ret)
		ret = iot_err_set(e, -errno, "'%s': close: %s", w->path, strerror(errno));
	free(w->path);
	free(w->b.buf);
	free(w);
	return ret;
}

struct bt_set_writer {
	char *dir;
	char *name;
	struct bt_writer **cpu; /* indexed by CPU */
	unsigned ncpu;
};

int bt_set_writer_open(struct bt_set_writer **out, const char *dir, const char *name,
                       struct iot_err *e)
{
	struct bt_set_writer *w = calloc(1, sizeof(*w));

	*out = NULL;
	if (!w || !(w->dir = strdup(dir)) || !(w->name = strdup(name))) {
		if (w)
			free(w->dir);
		free(w);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	*out = w;
	return 0;
}

static struct bt_writer *cpu_writer(struct bt_set_writer *w, unsigned cpu, struct iot_err *e,
                                    int *ret)
{
	char *path;

	/* CPU numbers come from the kernel (< nr_cpu_ids, at most 8192); cap what we trust */
	if (cpu >= 65536) {
		*ret = iot_err_set(e, -EINVAL, "cpu %u out of range", cpu);
		return NULL;
	}
	if (cpu >= w->ncpu) {
		unsigned n = cpu + 1;
		struct bt_writer **nc = realloc(w->cpu, n * sizeof(*nc));

		if (!nc) {
			*ret = iot_err_set(e, -ENOMEM, "out of memory");
			return NULL;
		}
		memset(nc + w->ncpu, 0, (n - w->ncpu) * sizeof(*nc));
		w->cpu = nc;
		w->ncpu = n;
	}
	if (!w->cpu[cpu]) {
		if (asprintf(&path, "%s/%s.blktrace.%u", w->dir, w->name, cpu) < 0) {
			*ret = iot_err_set(e, -ENOMEM, "out of memory");
			return NULL;
		}
		*ret = bt_writer_open(&w->cpu[cpu], path, e);
		free(path);
		if (*ret)
			return NULL;
	}
	return w->cpu[cpu];
}

int bt_set_writer_write(struct bt_set_writer *w, const struct blk_event *ev, struct iot_err *e)
{
	int ret = 0;
	struct bt_writer *cw = cpu_writer(w, ev->cpu, e, &ret);

	return cw ? bt_writer_write(cw, ev, e) : ret;
}

int bt_set_writer_write_raw(struct bt_set_writer *w, unsigned cpu, const void *rec, size_t len,
                            struct iot_err *e)
{
	int ret = 0;
	struct bt_writer *cw = cpu_writer(w, cpu, e, &ret);

	return cw ? bt_writer_write_raw(cw, rec, len, e) : ret;
}

uint8_t *bt_set_writer_room(struct bt_set_writer *w, unsigned cpu, size_t len, int *ret,
                            struct iot_err *e)
{
	struct bt_writer *cw;
	uint8_t *p;

	/* nearly always: the CPU's file is open and its buffer has room (none after an error) */
	if (cpu < w->ncpu && (cw = w->cpu[cpu]) && (p = bt_wbuf_room(&cw->b, len)))
		return p;
	if (!(cw = cpu_writer(w, cpu, e, ret)))
		return NULL;
	if (cw->err) {
		*ret = iot_err_set(e, cw->err, "'%s': write: %s", cw->path, strerror(-cw->err));
		return NULL;
	}
	if (len > WBUF_SIZE) {
		*ret = iot_err_set(e, -EINVAL, "record of %zu bytes is too large", len);
		return NULL;
	}
	if (len > WBUF_SIZE - cw->b.len && (*ret = flush(cw, e)))
		return NULL;
	return bt_wbuf_room(&cw->b, len);
}

struct bt_wbuf *bt_set_writer_buf(struct bt_set_writer *w, unsigned cpu, int *ret,
                                  struct iot_err *e)
{
	struct bt_writer *cw = cpu_writer(w, cpu, e, ret);

	return cw ? &cw->b : NULL;
}

int bt_set_writer_close(struct bt_set_writer *w, struct iot_err *e)
{
	int ret = 0, r;

	if (!w)
		return 0;
	for (unsigned i = 0; i < w->ncpu; i++) {
		/* blkparse reads NAME.blktrace.0, .1, ... up to the first missing one: a CPU that
		 * saw no events still gets its (empty) file */
		if (!w->cpu[i] && !cpu_writer(w, i, e, &r) && !ret)
			ret = r;
		r = bt_writer_close(w->cpu[i], e);
		if (r && !ret)
			ret = r;
	}
	free(w->cpu);
	free(w->dir);
	free(w->name);
	free(w);
	return ret;
}
