/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the blktrace decoder and the streaming reader on arbitrary bytes, read
 * record by record, and split into a two-file set read by batches (the merge's fast path). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/blktrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void touch(const struct blk_event *ev)
{
	uint32_t dev;
	uint64_t sector;

	if (ev->pdu_len)
		(void)ev->pdu[ev->pdu_len - 1]; /* the PDU must be inside the input */
	(void)blk_event_remap(ev, &dev, &sector);
}

/* The first half and the rest of the input as NAME.blktrace.0 and .1, read by batches. */
static void two_files(const uint8_t *data, size_t size)
{
	char dir[] = "/tmp/iotape-fuzz-set-XXXXXX", name[64], path[96];
	const struct blk_event *ev;
	struct bt_reader *r;
	struct iot_err e;
	size_t half = size / 2;
	unsigned n;
	int ok = 1;

	if (!mkdtemp(dir))
		return;
	snprintf(name, sizeof(name), "%s/t", dir);
	for (int i = 0; i < 2 && ok; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s.blktrace.%d", name, i);
		f = fopen(path, "wb");
		ok = f && fwrite(i ? data + half : data, 1, i ? size - half : half, f) ==
				  (i ? size - half : half);
		if (f)
			ok = !fclose(f) && ok;
	}
	if (ok && bt_reader_open(&r, name, &e) == 0) {
		while (bt_reader_next_batch(r, &ev, &n, &e) > 0)
			for (unsigned i = 0; i < n; i++)
				touch(&ev[i]);
		(void)bt_reader_stats(r);
		bt_reader_free(r);
	}
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s.blktrace.%d", name, i);
		unlink(path);
	}
	rmdir(dir);
}

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
		touch(&ev);
		off += (size_t)n;
	}
	/* the reader on the same bytes as a file (buffer refills, truncation, notify) */
	fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size && bt_reader_open(&r, path, &e) == 0) {
		while (bt_reader_next(r, &ev, &e) > 0)
			touch(&ev);
		(void)bt_reader_stats(r);
		bt_reader_free(r);
	}
	close(fd);
	unlink(path);
	two_files(data, size);
	return 0;
}
