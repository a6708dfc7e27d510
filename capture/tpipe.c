/* SPDX-License-Identifier: MIT */
/* Split the bytes of a trace_pipe (bin option) or a relay file into blktrace records. */
#include "capture/cap_int.h"

#include <stdlib.h>
#include <string.h>

#include "formats/blktrace.h"

/*
 * What the kernel writes (kernel/trace/trace.c print_bin_fmt, kernel/trace/blktrace.c
 * blk_trace_synthesize_old_trace, checked on 6.18 by the experiment in docs/capture.md):
 *
 *   with context-info:  u32 pid, u32 cpu, u64 timestamp, then the 48-byte v7 record + PDU
 *   without:            the v7 record + PDU
 *
 * and, between records, when the ring buffer lost events (print_trace_line):
 *   "CPU:%d [LOST %lu EVENTS]\n"  or  "CPU:%d [LOST EVENTS]\n"
 *
 * A relay file (the blktrace ioctl path) carries bare records. Everything is host order.
 */
#define MAGIC7 (BT_MAGIC | BT_VERSION7)
#define LINE_MAX_LEN 64

static int is_magic_at(const uint8_t *p)
{
	uint32_t m;

	memcpy(&m, p, 4);
	return m == MAGIC7;
}

/* A text line at p? 1 consumed (*used set, *lost the count it reports), 0 need more bytes,
 * -1 not a line. */
static int text_line(struct tpipe *t, const uint8_t *p, size_t len, size_t *used, uint64_t *lost)
{
	const uint8_t *nl;
	char line[LINE_MAX_LEN + 1];
	unsigned long long n;
	int cpu;
	size_t l;

	if (len < 4)
		return memcmp(p, "CPU:", len) ? -1 : 0;
	if (memcmp(p, "CPU:", 4))
		return -1;
	nl = memchr(p, '\n', len < LINE_MAX_LEN ? len : LINE_MAX_LEN);
	if (!nl)
		return len < LINE_MAX_LEN ? 0 : -1;
	l = (size_t)(nl - p);
	memcpy(line, p, l);
	line[l] = '\0';
	*lost = 0;
	if (sscanf(line, "CPU:%d [LOST %llu EVENTS]", &cpu, &n) == 2) {
		t->lost += n;
		*lost = n;
	} else if (strstr(line, "[LOST EVENTS]"))
		t->lost_marks++;
	else
		return -1;
	*used = l + 1;
	return 1;
}

long tpipe_parse(struct tpipe *t, uint8_t *buf, size_t len, unsigned cpu, int final,
                 tpipe_emit_fn emit, void *arg, struct iot_err *e)
{
	size_t pos = 0;

	while (pos < len) {
		uint8_t *p = buf + pos;
		size_t left = len - pos, used = 0, total;
		uint16_t pdu_len;
		unsigned rcpu = cpu;
		uint64_t lost = 0;
		int r = text_line(t, p, left, &used, &lost);

		if (r == 1) {
			pos += used;
			/* tell the sink where in the stream the events went missing */
			if (lost && (r = emit(arg, cpu, NULL, (size_t)lost, e)) < 0)
				return r;
			continue;
		}
		if (r == 0 && !final)
			break;
		if (left < t->hdr + BT_REC7_SIZE) {
			if (!final && (left < t->hdr + 4 || is_magic_at(p + t->hdr)))
				break;
			/* trailing bytes that cannot become a record */
			t->garbage += left;
			pos = len;
			break;
		}
		if (!is_magic_at(p + t->hdr)) {
			/* resynchronise on the next byte: a kernel that changed the format shows up
			 * as a large garbage count in the manifest, not as silent corruption */
			t->garbage++;
			pos++;
			continue;
		}
		memcpy(&pdu_len, p + t->hdr + BT7_PDU_LEN, 2);
		if (pdu_len > BT_PDU_MAX) {
			/* the kernel never writes a PDU this long: the magic was chance bytes */
			t->garbage++;
			pos++;
			continue;
		}
		total = t->hdr + BT_REC7_SIZE + pdu_len;
		if (left < total) {
			if (!final)
				break;
			t->garbage += left;
			pos = len;
			break;
		}
		if (t->hdr >= 8)
			memcpy(&rcpu, p + 4, 4);
		r = emit(arg, rcpu, p + t->hdr, total - t->hdr, e);
		if (r < 0)
			return r;
		pos += total;
	}
	return (long)pos;
}
