/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the replay scheduler's time arithmetic (due times) and IO placement. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replay/clock.h"
#include "replay/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * The first 32 bytes set the clock (speed as a double: zero, negative, NaN and infinity
 * included; the longest leap; the monotonic start; the trace's first time), then every 16
 * bytes are one IO: its trace time and where it lands (sector, length, offset, target size,
 * wrap). Due times must be refused (-ERANGE) or lie at or after the start, never wrapped, and
 * no later than the trace time allows; a placed IO must lie inside its target.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rp_clock c;
	struct iot_err e;
	double speed, sp;
	uint64_t seq = 0;

	if (size < 32)
		return 0;
	memcpy(&speed, data, sizeof(speed));
	c = (struct rp_clock){.speed = speed,
	                      .max_gap = rd64(data + 8),
	                      .t0 = rd64(data + 16),
	                      .trace_t0 = rd64(data + 24),
	                      .what = "IO"};
	sp = c.speed > 0 ? c.speed : 1.0;
	for (size_t off = 32; off + 16 <= size; off += 16, seq++) {
		uint64_t t = rd64(data + off), place = rd64(data + off + 8), deadline = 0, out = 0;
		uint64_t last = c.last_due, rel = t > c.trace_t0 ? t - c.trace_t0 : 0;
		uint32_t len = (uint32_t)(place >> 40) << 9;
		uint64_t tsize = (place & 0xffffff) << 12, offset = (place >> 24 & 0xffff) << 12;
		int ret;

		e.msg[0] = 0;
		ret = rp_clock_due(&c, t, seq, &deadline, &e);

		if (ret) {
			if (ret != -ERANGE || c.last_due != last || !e.msg[0])
				abort(); /* a refusal says why and leaves the clock as it was */
		} else {
			if (!deadline || deadline < c.t0)
				abort(); /* wrapped past 2^64 */
			if (!isinf(sp) &&
			    (double)(deadline - c.t0) > (double)rel / sp * (1 + 1e-9) + 2)
				abort(); /* later than the trace's time says */
			if (c.last_due < last)
				abort();
		}
		ret = rp_place(t, len, offset, tsize, place >> 39 & 1, &out);
		if (ret < 0 ? ret != -ERANGE : (out > tsize || len > tsize - out))
			abort();
		if (ret > 0 && out < offset)
			abort(); /* a wrapped IO stays past the offset */
	}
	return 0;
}
