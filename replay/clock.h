/* SPDX-License-Identifier: MIT */
/* The replay's clock, shared by the block and the NFS replay: due times and absolute waits. */
#ifndef IOTAPE_REPLAY_CLOCK_H
#define IOTAPE_REPLAY_CLOCK_H

#include <signal.h>
#include <stdint.h>

#include "common/err.h"

/* The last stretch before a deadline is spun, not slept: timer wakeups on virtual machines
 * come 40 us late typically and 150 us late at p99 (measured with TIMER_ABSTIME and a 1 ns
 * timer slack), which would be the replay's issue lag at high rates. A real-time thread wakes
 * sooner (p99 70-100 us) and must sleep now and then, or the kernel's RT throttling stops it
 * for 50 ms each second: a shorter spin there. */
#define RP_SPIN_NS 250000ull
#define RP_SPIN_RT_NS 80000ull
/* A stop request (SIGINT, SIGTERM) is looked at this often while waiting, so a long idle
 * stretch of the trace does not hold the replay for its whole length */
#define RP_STOP_POLL_NS 20000000ull

/*
 * Original timing: item i (an IO, an NFS call) is due at t0 + (t_i - trace_t0) / speed, on
 * CLOCK_MONOTONIC. A trace whose time leaps ahead by more than max_gap (a corrupt timestamp,
 * or one near 2^64) would have the replay wait for it: that is refused, with where and how far.
 * An item stamped before the first is due at once.
 */
struct rp_clock {
	double speed;      /* 1.0 when 0 */
	uint64_t max_gap;  /* 0: RP_DEFAULT_MAX_GAP_NS; UINT64_MAX: none */
	uint64_t t0;       /* CLOCK_MONOTONIC ns of the first item's issue */
	uint64_t trace_t0; /* the first item's trace time */
	uint64_t last_due; /* trace time (since trace_t0) of the last item waited for */
	const char *what;  /* "IO", "call": for the messages */
};

/* When item number seq (trace time t) is due; -ERANGE (e filled) for a refused leap. */
int rp_clock_due(struct rp_clock *c, uint64_t t, uint64_t seq, uint64_t *deadline,
                 struct iot_err *e);
/* The spin before deadlines: spin_ns when given, else by the thread's scheduling policy. */
uint64_t rp_clock_spin(uint64_t spin_ns);
/* Sleep to an absolute deadline, the last spin_ns spun, in slices of RP_STOP_POLL_NS: 1 when
 * *stop became non-zero meanwhile, else 0. */
int rp_clock_sleep(uint64_t deadline, uint64_t spin_ns, volatile sig_atomic_t *stop);

static inline void rp_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

#endif
