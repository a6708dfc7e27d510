/* SPDX-License-Identifier: MIT */
/* libFuzzer target: input streams on arbitrary bytes: the sniff, gzip and zstd decoding
 * (members, frames, truncation, garbage), read in uneven pieces and through stdio. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "formats/instream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[70000];
	struct in_stream *s;
	struct iot_err e;
	uint64_t total = 0, fsize;
	size_t want = 1;
	ssize_t n;
	FILE *f;

	if (in_stream_open_mem(&s, data, size, "fuzz", &e))
		return 0;
	(void)in_format_name(in_stream_sniff(s)->format);
	(void)in_stream_mappable(s, &fsize);
	/* piece sizes 1, 3, 7, ... up to the buffer: the head, then the decoders' own refills */
	while ((n = in_stream_read(s, buf, want, &e)) > 0) {
		total += (uint64_t)n;
		want = want * 2 + 1 > sizeof(buf) ? sizeof(buf) : want * 2 + 1;
	}
	if (total != in_stream_offset(s))
		__builtin_trap();
	(void)in_stream_error(s);
	in_stream_close(s);
	/* the same bytes through stdio, as libpcap reads them */
	if (in_stream_open_mem(&s, data, size, "fuzz", &e))
		return 0;
	f = in_stream_fopen(s);
	if (!f) {
		in_stream_close(s);
		return 0;
	}
	while (fread(buf, 1, sizeof(buf), f) > 0)
		;
	fclose(f);
	return 0;
}
