/* SPDX-License-Identifier: MIT */
/* Helpers for the scheduler tests (test_replay.c, test_inline.c, test_record.c): a trace built
 * by hand, the null engine on a temporary target file. */
#ifndef IOTAPE_TEST_REPLAY_H
#define IOTAPE_TEST_REPLAY_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/replay.h"

#define US 1000ull
#define MS 1000000ull

/* the trace: evs[0 .. nev) */
static struct blk_event evs[4096];
static size_t nev;

/* an event of device 8,16 at the trace's end */
static inline void add(unsigned action, uint64_t t, uint64_t sector, uint32_t bytes, uint64_t flags)
{
	struct blk_event *e = &evs[nev++];

	memset(e, 0, sizeof(*e));
	e->action = (uint16_t)action;
	e->time = t;
	e->sector = sector;
	e->bytes = bytes;
	e->flags = flags;
	e->dev = BLK_MKDEV(8, 16);
}

/* the replay's target: a 64 MiB file, made by the group setup, removed by its teardown */
static char target[64];

static inline int target_setup(void **state)
{
	int fd;

	(void)state;
	strcpy(target, "/tmp/iotape-ut-replay.XXXXXX");
	fd = mkstemp(target);
	if (fd < 0 || ftruncate(fd, 64 << 20))
		return -1;
	close(fd);
	return 0;
}

static inline int target_teardown(void **state)
{
	(void)state;
	unlink(target);
	return 0;
}

/* the null engine on target at the trace's speed, each IO told to observe */
static inline struct replay_opts null_opts(void (*observe)(void *, const struct rp_io *, bool))
{
	struct replay_opts o = {0};

	o.engine = "null";
	o.target = target;
	o.speed = 1.0;
	o.observe = observe;
	o.force = true; /* the temp file is not formatted; force keeps tests independent of it */
	return o;
}

#endif
