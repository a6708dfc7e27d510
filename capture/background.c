/* SPDX-License-Identifier: MIT */
/* A capture in a thread of its own, alongside other work: started once events flow. */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "capture/capture.h"

static void bg_progress(void *arg, const struct cap_progress *p)
{
	(void)p;
	atomic_store(&((struct cap_bg *)arg)->ready, 1); /* tracing has started */
}

static void *bg_main(void *arg)
{
	struct cap_bg *c = arg;

	c->ret = cap_run(&c->o, &c->res, &c->e);
	atomic_store(&c->done, 1);
	return NULL;
}

int cap_bg_start(struct cap_bg *c, struct iot_err *e)
{
	int ret;

	c->ret = 0;
	c->stop = 0;
	atomic_init(&c->ready, 0);
	atomic_init(&c->done, 0);
	c->o.stop = &c->stop;
	c->o.progress = bg_progress;
	c->o.arg = c;
	if ((ret = pthread_create(&c->thread, NULL, bg_main, c)))
		return iot_err_set(e, -ret, "cannot start a thread: %s", strerror(ret));
	/* the capture reports progress once it traces, or ends when it cannot */
	while (!atomic_load(&c->ready) && !atomic_load(&c->done)) {
		struct timespec ts = {0, 1000000};

		nanosleep(&ts, NULL);
	}
	if (atomic_load(&c->done) && c->ret) {
		pthread_join(c->thread, NULL);
		*e = c->e;
		return c->ret;
	}
	return 0;
}

int cap_bg_stop(struct cap_bg *c)
{
	c->stop = SIGTERM;
	pthread_join(c->thread, NULL);
	return c->ret;
}
