/* SPDX-License-Identifier: MIT */
/* The replay's clock (replay/clock.h): due times on the trace's clock and absolute waits. */
#include "replay/clock.h"

#include <errno.h>
#include <sched.h>
#include <time.h>

#include "replay/engine.h"
#include "replay/replay.h"

int rp_clock_due(struct rp_clock *c, uint64_t t, uint64_t seq, uint64_t *deadline,
                 struct iot_err *e)
{
	double speed = c->speed > 0 ? c->speed : 1.0, wait;
	uint64_t rel = t > c->trace_t0 ? t - c->trace_t0 : 0;
	uint64_t max_gap = c->max_gap ? c->max_gap : RP_DEFAULT_MAX_GAP_NS;
	const char *what = c->what ? c->what : "IO";

	if (rel > c->last_due && rel - c->last_due > max_gap)
		return iot_err_set(
		    e, -ERANGE,
		    "the trace's time leaps %.0f s ahead at %s #%llu (from %.6f s to "
		    "%.6f s after the first %s): a replay on the trace's clock would "
		    "wait that long; refused (a corrupt timestamp? --max-gap sets the "
		    "limit, %.0f s; --timing afap ignores the trace's time)",
		    (double)(rel - c->last_due) / 1e9, what, (unsigned long long)seq,
		    (double)c->last_due / 1e9, (double)rel / 1e9, what, (double)max_gap / 1e9);
	wait = (double)rel / speed;
	if (wait >= (double)(UINT64_MAX - c->t0))
		return iot_err_set(
		    e, -ERANGE,
		    "the trace's time at %s #%llu (%.0f s after the first %s) is past "
		    "what the clock can wait for; refused (--timing afap ignores it)",
		    what, (unsigned long long)seq, (double)rel / 1e9, what);
	if (rel > c->last_due)
		c->last_due = rel;
	*deadline = c->t0 + (uint64_t)wait;
	if (!*deadline)
		*deadline = 1; /* 0 means "no deadline" */
	return 0;
}

uint64_t rp_clock_spin(uint64_t spin_ns)
{
	int pol = sched_getscheduler(0);

	if (spin_ns)
		return spin_ns;
	return pol == SCHED_FIFO || pol == SCHED_RR ? RP_SPIN_RT_NS : RP_SPIN_NS;
}

int rp_clock_sleep(uint64_t deadline, uint64_t spin_ns, volatile sig_atomic_t *stop)
{
	for (;;) {
		uint64_t now = iot_now_ns(), until;
		struct timespec ts;

		if (now >= deadline)
			return 0;
		if (stop && *stop)
			return 1;
		if (deadline - now <= spin_ns) {
			while (iot_now_ns() < deadline)
				rp_cpu_relax();
			return 0;
		}
		until = deadline - spin_ns;
		if (until - now > RP_STOP_POLL_NS)
			until = now + RP_STOP_POLL_NS;
		ts = rp_ts(until);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}
