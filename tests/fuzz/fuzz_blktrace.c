/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the blktrace decoder and the streaming reader on arbitrary bytes, read
 * record by record, and split into sets of 2, 5 and 17 files read by batches (the merges'
 * fast paths); one and two files also as the replay reads them (bt_reader_keep_actions()). */
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

/* Where part i of k starts: the first half and the rest for two files (as before), else
 * equal parts on 48-byte boundaries, so that a clean v7 record stream stays aligned. */
static size_t part_start(size_t size, unsigned k, unsigned i)
{
	if (i >= k)
		return size;
	if (k == 2)
		return i ? size / 2 : 0;
	return size * i / k / 48 * 48;
}

/* The input cut into k parts as NAME.blktrace.0 .. k-1, read by batches (the actions in keep,
 * as a hint): two files take the two-file merge, 3-16 the k-way merge in place, more the heap
 * with one file's runs. */
static void k_files(const uint8_t *data, size_t size, unsigned k, uint32_t keep)
{
	char dir[] = "/tmp/iotape-fuzz-set-XXXXXX", name[64], path[96];
	const struct blk_event *ev;
	struct bt_reader *r;
	struct iot_err e;
	unsigned n;
	int ok = 1;

	if (!mkdtemp(dir))
		return;
	snprintf(name, sizeof(name), "%s/t", dir);
	for (unsigned i = 0; i < k && ok; i++) {
		size_t from = part_start(size, k, i), len = part_start(size, k, i + 1) - from;
		FILE *f;

		snprintf(path, sizeof(path), "%s.blktrace.%u", name, i);
		f = fopen(path, "wb");
		ok = f && fwrite(data + from, 1, len, f) == len;
		if (f)
			ok = !fclose(f) && ok;
	}
	if (ok && bt_reader_open(&r, name, &e) == 0) {
		bt_reader_keep_actions(r, keep);
		while (bt_reader_next_batch(r, &ev, &n, &e) > 0)
			for (unsigned i = 0; i < n; i++)
				touch(&ev[i]);
		(void)bt_reader_stats(r);
		bt_reader_free(r);
	}
	for (unsigned i = 0; i < k; i++) {
		snprintf(path, sizeof(path), "%s.blktrace.%u", name, i);
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
	k_files(data, size, 2, ~0u);
	k_files(data, size, 1, 1u << BLK_A_ISSUE | 1u << BLK_A_COMPLETE);
	k_files(data, size, 2, 1u << BLK_A_ISSUE | 1u << BLK_A_COMPLETE);
	/* the k-way merges want several records per file */
	if (size >= 5 * 48)
		k_files(data, size, 5, ~0u);
	if (size >= 17 * 48)
		k_files(data, size, 17, ~0u);
	return 0;
}
