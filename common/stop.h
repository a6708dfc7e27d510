/* SPDX-License-Identifier: MIT */
/* Stopping on a signal, one way for every command that runs until it is told to stop. */
#ifndef IOTAPE_COMMON_STOP_H
#define IOTAPE_COMMON_STOP_H

#include <signal.h>

/* The signal that asked the process to stop (SIGINT, SIGTERM), 0 while none has: the loops
 * that run for long (replay, capture, sweep, fio) read it and wind down. */
extern volatile sig_atomic_t iot_stop_sig;

enum {
	/* a second signal ends the process at once, by the signal's default action: the user
	 * does not want to wait for the winding down (the IOs or calls in flight) either */
	IOT_STOP_TWICE = 1 << 0,
	/* SIGHUP stops too, recorded as SIGTERM (it is forwarded to children that would die of
	 * a SIGHUP before they tidy up) */
	IOT_STOP_HUP = 1 << 1,
};

/*
 * Catch SIGINT and SIGTERM (and SIGHUP with IOT_STOP_HUP) into iot_stop_sig, flags as above.
 * No SA_RESTART: a signal wakes the blocking call the command waits in (its EINTR is the
 * command's cue to look at iot_stop_sig). 0, or -errno from sigaction().
 */
int iot_stop_catch(unsigned flags);

#endif
