/* SPDX-License-Identifier: MIT */
/* Helpers for the block sink tests: hand-built events, one line each. */
#ifndef IOTAPE_TEST_BLK_EVENTS_H
#define IOTAPE_TEST_BLK_EVENTS_H

#include <string.h>

#include "formats/blkevent.h"

#define R 0
#define W BLK_F_WRITE

/* An event of action act at time t (ns), sector, size in sectors, direction W or R. */
static inline struct blk_event ev_make(unsigned act, uint64_t t, uint64_t sector, uint32_t sectors,
                                       uint64_t dir)
{
	struct blk_event e;

	memset(&e, 0, sizeof(e));
	e.action = (uint16_t)act;
	e.time = t;
	e.sector = sector;
	e.bytes = sectors * 512;
	e.flags = (dir ? BLK_F_WRITE : BLK_F_READ) | BLK_F_FS;
	e.dev = BLK_MKDEV(8, 0);
	e.pid = 100;
	return e;
}

#define EV_Q(t, s, n, d) ev_make(BLK_A_QUEUE, t, s, n, d)
#define EV_G(t, s, n, d) ev_make(BLK_A_GETRQ, t, s, n, d)
#define EV_M(t, s, n, d) ev_make(BLK_A_BACKMERGE, t, s, n, d)
#define EV_F(t, s, n, d) ev_make(BLK_A_FRONTMERGE, t, s, n, d)
#define EV_I(t, s, n, d) ev_make(BLK_A_INSERT, t, s, n, d)
#define EV_D(t, s, n, d) ev_make(BLK_A_ISSUE, t, s, n, d)
#define EV_C(t, s, n, d) ev_make(BLK_A_COMPLETE, t, s, n, d)
#define EV_R(t, s, n, d) ev_make(BLK_A_REQUEUE, t, s, n, d)

#endif
