/* SPDX-License-Identifier: MIT */
/* libFuzzer target: fio iolog lines (both versions) and the streaming reader on arbitrary bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/blktrace.h"
#include "formats/instream.h"
#include "formats/iolog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void lines(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;

	while (p < end) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct iolog_rec rec;
		struct iot_err e;

		for (unsigned v = 2; v <= 3; v++)
			if (iolog_parse_line(v, (const char *)p, len, &rec, &e) > 0 &&
			    (rec.file < (const char *)p ||
			     rec.file + rec.file_len > (const char *)p + len ||
			     rec.op >= IOLOG_OP_N))
				abort(); /* a parsed line points into itself */
		p += len + 1;
	}
}

/* The whole reader over the bytes as a stream (sniffed: gzip or zstd are inflated), and
 * the blktrace reader that takes an iolog as a trace. */
static void reader(const uint8_t *data, size_t size)
{
	struct iolog_reader *r;
	struct bt_reader *br;
	struct in_stream *in;
	struct blk_event ev;
	struct iot_err e;
	uint64_t n = 0;
	int ret;

	if (in_stream_open_mem(&in, data, size, "fuzz", &e))
		return;
	if (iolog_reader_open_stream(&r, in, &e) == 0) {
		while ((ret = iolog_reader_next(r, &ev, &e)) > 0) {
			unsigned minor = BLK_DEV_MINOR(ev.dev);

			if (!iolog_reader_file(r, minor) || ev.action != BLK_A_ISSUE)
				abort();
			n++;
		}
		if (n != iolog_reader_stats(r)->ios)
			abort();
		iolog_reader_free(r);
	}
	if (in_stream_open_mem(&in, data, size, "fuzz", &e))
		return;
	if (in_stream_sniff(in)->format != IN_FMT_IOLOG) {
		in_stream_close(in);
		return;
	}
	if (bt_reader_open_stream(&br, in, &e) == 0) {
		while (bt_reader_next(br, &ev, &e) > 0)
			;
		bt_reader_free(br);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lines(data, size);
	reader(data, size);
	return 0;
}
