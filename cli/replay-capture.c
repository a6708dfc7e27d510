/* SPDX-License-Identifier: MIT */
/* replay --capture: the capture module in a thread of its own, from before the first IO (or
 * call) to after the last completion; for the block and the NFS replay alike. */
#include "cli/cli.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/replay.h"

static void capture_progress(void *arg, const struct cap_progress *p)
{
	(void)p;
	atomic_store(&((struct replay_capture *)arg)->ready, 1); /* tracing has started */
}

static void capture_notice(void *arg, const char *msg)
{
	(void)arg;
	warning("capture: %s", msg);
}

static void *capture_main(void *arg)
{
	struct replay_capture *c = arg;

	c->ret = cap_run(&c->o, &c->res, &c->e);
	atomic_store(&c->done, 1);
	return NULL;
}

int replay_capture_start(struct replay_capture *c, const char *dir, char **devs, unsigned n,
                         const char *iface, int argc, char **argv)
{
	memset(c, 0, sizeof(*c));
	c->devs = devs;
	c->o.rundir = dir;
	c->o.devs = devs;
	c->o.ndevs = n;
	c->o.iface = iface;
	/* the calls the server received, nothing else of every interface */
	c->o.filter = iface ? CAP_DEFAULT_FILTER : NULL;
	c->o.argc = argc;
	c->o.argv = argv;
	c->o.stop = &c->stop;
	c->o.progress = capture_progress;
	c->o.notice = capture_notice;
	c->o.arg = c;
	if (pthread_create(&c->thread, NULL, capture_main, c)) {
		free(c->devs);
		return error("--capture: cannot start a thread"), EXIT_SYSTEM;
	}
	while (!atomic_load(&c->ready) && !atomic_load(&c->done)) {
		struct timespec ts = {0, 1000000};

		nanosleep(&ts, NULL);
	}
	if (atomic_load(&c->done) && c->ret) {
		pthread_join(c->thread, NULL);
		free(c->devs);
		return error("--capture: %s", c->e.msg), exit_code_for(c->ret);
	}
	return 0;
}

int replay_capture_stop(struct replay_capture *c, bool quiet)
{
	int rc = EXIT_OK;

	c->stop = SIGTERM;
	pthread_join(c->thread, NULL);
	free(c->devs);
	if (c->ret)
		return error("--capture: %s", c->e.msg), exit_code_for(c->ret);
	if (c->res.late_err) {
		error("--capture: %s", c->res.late_msg);
		rc = EXIT_SYSTEM;
	}
	if (!quiet)
		fprintf(stderr, "captured %llu events and %llu packets into '%s'%s\n",
		        (unsigned long long)c->res.totals.events,
		        (unsigned long long)c->res.totals.packets, c->o.rundir,
		        c->res.lost ? " (some lost: see its manifest)" : "");
	if (c->res.lost)
		warning("--capture: %llu events lost", (unsigned long long)c->res.lost);
	return rc;
}
