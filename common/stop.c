/* SPDX-License-Identifier: MIT */
/* Stopping on a signal, one way for every command that runs until it is told to stop. */
#include "common/stop.h"

#include <errno.h>
#include <string.h>

volatile sig_atomic_t iot_stop_sig;
static volatile sig_atomic_t stop_flags;

static void on_stop(int sig)
{
	if (iot_stop_sig && (stop_flags & IOT_STOP_TWICE)) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	iot_stop_sig = sig == SIGHUP ? SIGTERM : sig;
}

int iot_stop_catch(unsigned flags)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	stop_flags = (sig_atomic_t)flags;
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if ((sigs[i] != SIGHUP || (flags & IOT_STOP_HUP)) && sigaction(sigs[i], &sa, NULL))
			return -errno;
	return 0;
}
