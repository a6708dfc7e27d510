/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the blktrace decoder and the streaming reader on arbitrary bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/blktrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct blk_event ev;
	struct iot_err e;
	struct bt_reader *r;
	char path[] = "/tmp/iotape-fuzz-bt-XXXXXX";
	size_t off = 0;
	long n;
	int fd;

	/* the record decoder alone, record after record */
	while (off < size && (n = bt_decode(data + off, size - off, &ev, &e)) > 0) {
		if (ev.pdu_len)
			(void)ev.pdu[ev.pdu_len - 1]; /* the PDU must be inside the input */
		off += (size_t)n;
	}
	/* the reader on the same bytes as a file (buffer refills, truncation, notify) */
	fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size && bt_reader_open(&r, path, &e) == 0) {
		while (bt_reader_next(r, &ev, &e) > 0)
			if (ev.pdu_len)
				(void)ev.pdu[ev.pdu_len - 1];
		(void)bt_reader_stats(r);
		bt_reader_free(r);
	}
	close(fd);
	unlink(path);
	return 0;
}
