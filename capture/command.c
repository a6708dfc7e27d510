/* SPDX-License-Identifier: MIT */
/* Run COMMAND while tracing: fork, exec with PATH search, report exec failures like a shell. */
#include "capture/cap_int.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int cap_cmd_spawn(struct cap_cmd *c, char *const *argv, struct iot_err *e)
{
	int pfd[2], child_errno = 0;
	ssize_t n;
	pid_t pid;

	c->pid = -1;
	c->exec_errno = 0;
	/* the child reports exec failure through a close-on-exec pipe: EOF means exec worked */
	if (pipe2(pfd, O_CLOEXEC))
		return iot_err_set(e, -errno, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return iot_err_set(e, -errno, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		close(pfd[0]);
		execvp(argv[0], argv);
		child_errno = errno;
		if (write(pfd[1], &child_errno, sizeof(child_errno)) < 0)
			_exit(127);
		_exit(child_errno == ENOENT ? 127 : 126);
	}
	close(pfd[1]);
	do
		n = read(pfd[0], &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	c->pid = pid;
	if (n == (ssize_t)sizeof(child_errno))
		c->exec_errno = child_errno;
	return 0;
}

int cap_cmd_poll(struct cap_cmd *c, int *status)
{
	int st;
	pid_t r;

	if (c->pid < 0)
		return 1;
	r = waitpid(c->pid, &st, WNOHANG);
	if (r == 0 || (r < 0 && errno == EINTR))
		return 0;
	c->pid = -1;
	if (r < 0)
		*status = 127;
	else if (WIFEXITED(st))
		*status = WEXITSTATUS(st);
	else if (WIFSIGNALED(st))
		*status = 128 + WTERMSIG(st);
	else
		*status = 1;
	return 1;
}
