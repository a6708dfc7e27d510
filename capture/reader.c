/* SPDX-License-Identifier: MIT */
/* One thread that polls every per-CPU trace file and feeds the records to the sink. */
#include "capture/cap_int.h"

#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#include "formats/blktrace.h"

#define PIPE_BUF_SIZE (256u << 10)
#define POLL_MS 100
#define FN_POLL_MS 10

/*
 * One thread polls every per-CPU file. Two ways to read the tracefs ring buffer:
 *  - raw (default): whole ring-buffer pages from per_cpu/cpuN/trace_pipe_raw, read with
 *    libtracefs (tracefs_cpu_read) and walked with libtraceevent's kbuffer, each entry
 *    finished into a v7 record by cap_raw_to_record(). The kernel only copies pages.
 *  - pipe: per_cpu/cpuN/trace_pipe with the bin option, where the kernel formats each event
 *    (blk_trace_synthesize_old_trace via a trace_seq) in reads of at most a page.
 * Measured with bench/capture-overhead.sh (fio 4 KiB random reads on zram, 2 CPUs, about
 * 1.5 M events per 4 s run): the raw reader costs iotape 0.12-0.18 s of CPU per million
 * events, the pipe reader 0.38-0.44 s, and with a 64 KiB buffer the raw reader lost 12 844
 * events where the pipe reader lost 123 576 (bench/README.md). So libtracefs and
 * libtraceevent cost less than the alternative and the raw reader is the default; the pipe
 * reader stays as the simple, kernel-formatted reference (the tests compare the two).
 */
struct cap_stream {
	int fd;
	unsigned cpu;
	enum cap_stream_kind kind;
	struct tpipe tp;
	uint8_t *buf;
	size_t len;
	struct tracefs_cpu *tcpu;
	struct kbuffer *kb;
	int subbuf;
	int eof;
	cap_drain_fn fn; /* CAP_STREAM_FN */
	void *fn_arg;
};

struct cap_reader {
	struct cap_sink *sink;
	struct cap_stream *s;
	unsigned n;
	pthread_t thread;
	int started;
	int stopping; /* __atomic */
	int err;      /* __atomic: first error, negative errno */
	struct iot_err e;
	uint64_t raw_lost, raw_marks;
	uint16_t blk_type; /* ring-buffer entry type of blk records, once seen */
	int poll_ms;
	uint8_t rec[BT_REC7_SIZE + 65536];
};

int cap_reader_new(struct cap_reader **out, struct cap_sink *sink, struct iot_err *e)
{
	struct cap_reader *r = calloc(1, sizeof(*r));

	*out = r;
	if (!r)
		return iot_err_set(e, -ENOMEM, "out of memory");
	r->sink = sink;
	r->poll_ms = POLL_MS;
	return 0;
}

int cap_reader_add_fn(struct cap_reader *r, int fd, cap_drain_fn fn, void *arg, struct iot_err *e)
{
	struct cap_stream *ns = realloc(r->s, (r->n + 1) * sizeof(*ns)), *s;

	if (!ns)
		return iot_err_set(e, -ENOMEM, "out of memory");
	r->s = ns;
	s = &r->s[r->n++];
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->kind = CAP_STREAM_FN;
	s->fn = fn;
	s->fn_arg = arg;
	r->poll_ms = FN_POLL_MS;
	return 0;
}

int cap_reader_add(struct cap_reader *r, int fd, unsigned cpu, enum cap_stream_kind kind,
                   struct iot_err *e)
{
	struct cap_stream *ns = realloc(r->s, (r->n + 1) * sizeof(*ns)), *s;

	if (!ns) {
		close(fd);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	r->s = ns;
	s = &r->s[r->n];
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->cpu = cpu;
	s->kind = kind;
	s->tp.hdr = kind == CAP_STREAM_PIPE ? 16 : 0;
	if (kind == CAP_STREAM_RAW) {
		uint64_t kb = 0;

		/* reads of trace_pipe_raw must be one whole sub-buffer: a page unless
		 * buffer_subbuf_size_kb (Linux 6.8+) says otherwise */
		s->subbuf = getpagesize();
		if (!cap_read_u64("/sys/kernel/tracing/buffer_subbuf_size_kb", &kb) && kb &&
		    kb <= 1024)
			s->subbuf = (int)(kb * 1024);
		s->tcpu = tracefs_cpu_alloc_fd(fd, s->subbuf, true);
		s->kb = kbuffer_alloc(sizeof(long) == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
		                      KBUFFER_ENDIAN_LITTLE);
		if (s->tcpu && tracefs_cpu_read_size(s->tcpu) > s->subbuf)
			s->subbuf = tracefs_cpu_read_size(s->tcpu);
		s->buf = malloc((size_t)s->subbuf);
	} else {
		s->buf = malloc(PIPE_BUF_SIZE);
	}
	r->n++;
	if (!s->buf || (kind == CAP_STREAM_RAW && (!s->tcpu || !s->kb)))
		return iot_err_set(e, -ENOMEM, "cannot set up the reader for cpu %u", cpu);
	return 0;
}

static int emit(void *arg, unsigned cpu, uint8_t *rec, size_t len, struct iot_err *e)
{
	struct cap_reader *r = arg;

	if (!rec) {
		cap_sink_lost(r->sink, cpu, len);
		return 0;
	}
	return cap_sink_record(r->sink, cpu, rec, len, e);
}

/* Read what is available now; >0 if something was read, 0 if nothing, <0 error. */
static int read_stream(struct cap_reader *r, struct cap_stream *s)
{
	ssize_t n;
	long used;

	if (s->eof)
		return 0;
	if (s->kind == CAP_STREAM_FN)
		return s->fn(s->fn_arg, 0, &r->e);
	if (s->kind == CAP_STREAM_RAW) {
		unsigned long long ts;
		void *data;
		int missed;

		n = tracefs_cpu_read(s->tcpu, s->buf, true);
		if (n <= 0)
			return (n < 0 && errno != EAGAIN && errno != EINTR) ? -errno : 0;
		if (kbuffer_load_subbuffer(s->kb, s->buf) < 0)
			return 1;
		/* events lost before this page (ring-buffer overwrite while we were behind) */
		missed = kbuffer_missed_events(s->kb);
		if (missed > 0) {
			r->raw_lost += (uint64_t)missed;
			cap_sink_lost(r->sink, s->cpu, (uint64_t)missed);
		} else if (missed < 0) {
			r->raw_marks++;
		}
		for (data = kbuffer_read_event(s->kb, &ts); data;
		     data = kbuffer_next_event(s->kb, &ts)) {
			int size = kbuffer_event_size(s->kb);
			size_t len = size > 0 ? cap_raw_to_record(data, (size_t)size, ts, r->rec,
			                                          sizeof(r->rec), &r->blk_type)
			                      : 0;
			int ret;

			if (!len)
				continue;
			ret = cap_sink_record(r->sink, s->cpu, r->rec, len, &r->e);
			if (ret)
				return ret;
		}
		return 1;
	}
	n = read(s->fd, s->buf + s->len, PIPE_BUF_SIZE - s->len);
	if (n < 0)
		return (errno == EAGAIN || errno == EINTR) ? 0 : -errno;
	if (n == 0) {
		/* relay files return 0 when empty; trace_pipe never does while open */
		if (s->kind == CAP_STREAM_PIPE)
			s->eof = 1;
		return 0;
	}
	s->len += (size_t)n;
	used = tpipe_parse(&s->tp, s->buf, s->len, s->cpu, 0, emit, r, &r->e);
	if (used < 0)
		return (int)used;
	memmove(s->buf, s->buf + used, s->len - (size_t)used);
	s->len -= (size_t)used;
	return 1;
}

static void *reader_main(void *arg)
{
	struct cap_reader *r = arg;
	struct pollfd *pfd = calloc(r->n ? r->n : 1, sizeof(*pfd));
	int err = 0;

	if (!pfd) {
		__atomic_store_n(&r->err, -ENOMEM, __ATOMIC_RELEASE);
		return NULL;
	}
	for (unsigned i = 0; i < r->n; i++) {
		pfd[i].fd = r->s[i].fd;
		pfd[i].events = POLLIN;
	}
	for (;;) {
		int stopping = __atomic_load_n(&r->stopping, __ATOMIC_ACQUIRE);
		int any = 0;

		if (!stopping)
			poll(pfd, r->n, r->poll_ms);
		for (unsigned i = 0; i < r->n && !err; i++) {
			/* bounded per stream per pass so one busy CPU cannot starve the others */
			for (int k = 0; k < 64; k++) {
				int ret = read_stream(r, &r->s[i]);

				if (ret < 0) {
					err = ret;
					break;
				}
				if (!ret)
					break;
				any = 1;
			}
		}
		if (err || (stopping && !any))
			break;
	}
	/* whatever remains in the buffers is a partial record: count it */
	for (unsigned i = 0; i < r->n && !err; i++) {
		struct cap_stream *s = &r->s[i];

		if (s->kind == CAP_STREAM_FN) {
			int ret = s->fn(s->fn_arg, 1, &r->e);

			if (ret < 0)
				err = ret;
			continue;
		}
		if (s->len)
			tpipe_parse(&s->tp, s->buf, s->len, s->cpu, 1, emit, r, &r->e);
		s->len = 0;
	}
	free(pfd);
	if (err)
		__atomic_store_n(&r->err, err, __ATOMIC_RELEASE);
	return NULL;
}

struct cap_sink *cap_reader_sink(const struct cap_reader *r)
{
	return r->sink;
}

int cap_reader_start(struct cap_reader *r, struct iot_err *e)
{
	int ret = pthread_create(&r->thread, NULL, reader_main, r);

	if (ret)
		return iot_err_set(e, -ret, "cannot start the reader thread: %s", strerror(ret));
	r->started = 1;
	return 0;
}

int cap_reader_failed(struct cap_reader *r)
{
	return __atomic_load_n(&r->err, __ATOMIC_ACQUIRE);
}

int cap_reader_finish(struct cap_reader *r, struct iot_err *e)
{
	int err;

	if (!r->started)
		return 0;
	__atomic_store_n(&r->stopping, 1, __ATOMIC_RELEASE);
	pthread_join(r->thread, NULL);
	r->started = 0;
	err = __atomic_load_n(&r->err, __ATOMIC_ACQUIRE);
	if (err && e)
		*e = r->e;
	if (err && !r->e.msg[0])
		iot_err_set(e, err, "reading the trace: %s", strerror(-err));
	return err;
}

void cap_reader_lost(const struct cap_reader *r, uint64_t *lost, uint64_t *marks, uint64_t *garbage)
{
	*lost = r->raw_lost;
	*marks = r->raw_marks;
	*garbage = 0;
	for (unsigned i = 0; i < r->n; i++) {
		*lost += r->s[i].tp.lost;
		*marks += r->s[i].tp.lost_marks;
		*garbage += r->s[i].tp.garbage;
	}
}

void cap_reader_free(struct cap_reader *r)
{
	if (!r)
		return;
	if (r->started)
		cap_reader_finish(r, NULL);
	for (unsigned i = 0; i < r->n; i++) {
		struct cap_stream *s = &r->s[i];

		if (s->tcpu)
			tracefs_cpu_free_fd(s->tcpu);
		if (s->kb)
			kbuffer_free(s->kb);
		if (s->fd >= 0 && s->kind != CAP_STREAM_FN)
			close(s->fd);
		free(s->buf);
	}
	free(r->s);
	free(r);
}
