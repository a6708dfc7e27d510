/* SPDX-License-Identifier: MIT */
/* Run COMMAND while tracing (common/spawn.c does the shell's part: PATH, 126/127, 128+N). */
#include "capture/cap_int.h"

#include <signal.h>

int cap_cmd_spawn(struct cap_cmd *c, char *const *argv, int fd_out, int fd_err, struct iot_err *e)
{
	/* the command dies with iotape, even with a SIGKILL that gives iotape no chance to stop
	 * it: an orphan would go on doing IO nobody traces */
	struct iot_spawn_opts o = {
	    .argv = argv, .fd_in = -1, .fd_out = fd_out, .fd_err = fd_err, .pdeathsig = SIGKILL};
	int ret = iot_spawn(&o, &c->proc, e);

	c->exec_errno = ret ? 0 : c->proc.exec_errno;
	return ret;
}

int cap_cmd_wait(struct cap_cmd *c, int timeout_ms, int *status)
{
	return iot_proc_wait(&c->proc, timeout_ms, status);
}

int cap_cmd_poll(struct cap_cmd *c, int *status)
{
	return iot_proc_wait(&c->proc, 0, status);
}
