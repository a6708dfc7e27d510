/* SPDX-License-Identifier: MIT */
/* "Now" on the monotonic clock, one definition for every folder (inline: replay's scheduler
 * reads it for each IO). */
#ifndef IOTAPE_COMMON_CLOCK_H
#define IOTAPE_COMMON_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in ns: the trace clock of capture ("mono"), replay's and fio's timing. */
static inline uint64_t iot_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
