/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the trace_pipe/relay stream splitter and the raw-entry finisher. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/cap_int.h"
#include "formats/blktrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int emit(void *arg, unsigned cpu, uint8_t *rec, size_t len, struct iot_err *e)
{
	struct blk_event ev;

	(void)arg;
	(void)cpu;
	if (!rec)
		return 0;
	/* what the parser hands out is one whole record */
	if (bt_decode(rec, len, &ev, e) != (long)len)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1), out[BT_REC7_SIZE + 65536];
	struct tpipe t = {.hdr = size && (data[0] & 1) ? 16 : 0};
	size_t pos = 0;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	/* feed in two pieces, as reads would, then the rest as the final piece */
	for (int final = 0; final < 2 && pos <= size; final++) {
		size_t end = final ? size : size / 2;
		long n = tpipe_parse(&t, buf + pos, end - pos, 0, final, emit, NULL, NULL);

		if (n < 0 || (size_t)n > end - pos)
			abort();
		pos += (size_t)n;
	}
	if (pos != size)
		abort(); /* the final call consumes everything */
	{
		uint16_t type = 0;

		(void)cap_raw_to_record(data, size, 1, out, sizeof(out), &type);
	}
	free(buf);
	return 0;
}
