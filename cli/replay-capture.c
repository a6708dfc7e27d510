/* SPDX-License-Identifier: MIT */
/* replay --capture: the capture in the background (capture/background.c) from before the first
 * IO (or call) to after the last completion, for the block and the NFS replay alike; its
 * messages. */
#include "cli/cli.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli/replay.h"

static void capture_notice(void *arg, const char *msg)
{
	(void)arg;
	warning("capture: %s", msg);
}

int replay_capture_start(struct replay_capture *c, const char *dir, char **devs, unsigned n,
                         const char *iface, int argc, char **argv)
{
	struct iot_err e = {""};
	int ret;

	memset(c, 0, sizeof(*c));
	c->devs = devs;
	c->bg.o.rundir = dir;
	c->bg.o.devs = devs;
	c->bg.o.ndevs = n;
	c->bg.o.iface = iface;
	/* the calls the server received, nothing else of every interface */
	c->bg.o.filter = iface ? CAP_DEFAULT_FILTER : NULL;
	c->bg.o.argc = argc;
	c->bg.o.argv = argv;
	c->bg.o.notice = capture_notice;
	if ((ret = cap_bg_start(&c->bg, &e))) {
		free(c->devs);
		return error("--capture: %s", e.msg), exit_code_for(ret);
	}
	return 0;
}

int replay_capture_stop(struct replay_capture *c, bool quiet)
{
	const struct cap_result *res = &c->bg.res;
	int rc = EXIT_OK, ret = cap_bg_stop(&c->bg);

	free(c->devs);
	if (ret)
		return error("--capture: %s", c->bg.e.msg), exit_code_for(ret);
	if (res->late_err) {
		error("--capture: %s", res->late_msg);
		rc = EXIT_SYSTEM;
	}
	if (!quiet)
		fprintf(stderr, "captured %llu events and %llu packets into '%s'%s\n",
		        (unsigned long long)res->totals.events,
		        (unsigned long long)res->totals.packets, c->bg.o.rundir,
		        res->lost ? " (some lost: see its manifest)" : "");
	if (res->lost)
		warning("--capture: %llu events lost", (unsigned long long)res->lost);
	return rc;
}
