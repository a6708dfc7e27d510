/* SPDX-License-Identifier: MIT */
/* What a capture unit test reads back: the events of one device's trace file of one CPU. */
#ifndef IOTAPE_TESTS_UNIT_CAPTURE_CPU_FILE_H
#define IOTAPE_TESTS_UNIT_CAPTURE_CPU_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "formats/blktrace.h"
#include "formats/rundir.h"

#define CPU_FILE_MAX 8192 /* bytes read: the tests' files are small */

/* Every event of dir/dev.blktrace.cpu but the TIMESTAMP notes into out (at most max), each
 * one's PDU NUL-ended into pdu (up to 31 bytes; ev.pdu points there); their count. */
static inline size_t cpu_file_events(const char *dir, const char *dev, unsigned cpu,
                                     struct blk_event *out, char (*pdu)[32], size_t max)
{
	uint8_t buf[CPU_FILE_MAX];
	char path[256];
	size_t len, off = 0, n = 0;
	struct blk_event ev;
	FILE *f;

	assert_int_equal(rundir_trace_path(path, sizeof(path), dir, dev, cpu), 0);
	f = fopen(path, "rb");
	assert_non_null(f);
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_true(len < sizeof(buf));
	while (off < len) {
		long r = bt_decode(buf + off, len - off, &ev, NULL);

		assert_true(r > 0);
		off += (size_t)r;
		if (blk_is_notify(&ev) && ev.action == BLK_N_TIMESTAMP)
			continue;
		assert_true(n < max);
		memset(pdu[n], 0, sizeof(pdu[n]));
		if (ev.pdu_len && ev.pdu_len < sizeof(pdu[n]))
			memcpy(pdu[n], ev.pdu, ev.pdu_len);
		ev.pdu = (const uint8_t *)pdu[n];
		out[n++] = ev;
	}
	return n;
}

#endif
