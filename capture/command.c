/* SPDX-License-Identifier: MIT */
/* Run COMMAND while tracing: fork, exec with PATH search, report exec failures like a shell. */
#include "capture/cap_int.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * execvp(), but with a shell's verdict: "not found" (127) only when no PATH entry has the
 * name; a file that exists and cannot be run is EACCES (126), even if execvp would report
 * EACCES merely for an unreadable directory on PATH. Runs in the forked child of a threaded
 * process: stack buffers only, no allocation. Returns the errno when nothing could be run.
 */
static int exec_path(char *const *argv)
{
	const char *path = getenv("PATH"), *p, *end;
	char full[4096];
	int err = ENOENT;

	if (strchr(argv[0], '/')) {
		execv(argv[0], argv);
		return errno;
	}
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = end + 1) {
		struct stat st;
		size_t n;

		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		n = (size_t)(end - p);
		if (n == 0) {
			full[0] = '.';
			n = 1;
		} else if (n < sizeof(full) - 2) {
			memcpy(full, p, n);
		} else {
			n = 0;
		}
		if (n && n + 1 + strlen(argv[0]) < sizeof(full)) {
			full[n] = '/';
			strcpy(full + n + 1, argv[0]);
			if (!stat(full, &st) && S_ISREG(st.st_mode)) {
				execv(full, argv);
				if (err == ENOENT)
					err = errno; /* the first one that exists decides, as in bash */
			}
		}
		if (!*end)
			break;
	}
	return err;
}

int cap_cmd_spawn(struct cap_cmd *c, char *const *argv, struct iot_err *e)
{
	int pfd[2], child_errno = 0;
	pid_t pid, parent = getpid();
	ssize_t n;

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

		/* the command dies with iotape, even with a SIGKILL that gives iotape no chance to
		 * stop it: an orphan would go on doing IO nobody traces (kept across exec) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(128 + SIGKILL); /* iotape died before the line above */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		close(pfd[0]);
		child_errno = exec_path(argv);
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
