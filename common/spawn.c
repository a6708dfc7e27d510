/* SPDX-License-Identifier: MIT */
/* Running a program as a shell would: fork, exec with PATH search, statuses 126/127/128+N. */
#include "common/spawn.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"

extern char **environ;

/*
 * execvpe(), but with a shell's verdict: "not found" (127) only when no PATH entry has the
 * name; a file that exists and cannot be run is EACCES (126), even if execvp would report
 * EACCES merely for an unreadable directory on PATH. Runs in the forked child of a possibly
 * threaded process: stack buffers only, no allocation. Returns the errno when nothing ran.
 */
static int exec_path(char *const *argv, char *const *envp)
{
	const char *path = NULL, *p, *end;
	char full[4096];
	int err = ENOENT;

	if (strchr(argv[0], '/')) {
		execve(argv[0], argv, envp);
		return errno;
	}
	/* PATH as the child will see it */
	for (char *const *v = envp; *v; v++)
		if (!strncmp(*v, "PATH=", 5))
			path = *v + 5;
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p = end + 1) {
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
				execve(full, argv, envp);
				if (err == ENOENT)
					err = errno; /* the first one that exists decides, as in
					                bash */
			}
		}
		if (!*end)
			break;
	}
	return err;
}

/* In the child: fd becomes target (a dup2 that also works when fd is already target). */
static int child_fd(int fd, int target)
{
	if (fd < 0)
		return 0;
	if (fd == target)
		return fcntl(fd, F_SETFD, 0); /* keep it across exec */
	return dup2(fd, target) < 0 ? -1 : 0;
}

int iot_spawn(const struct iot_spawn_opts *o, struct iot_proc *p, struct iot_err *e)
{
	char *const *envp = o->envp ? o->envp : environ;
	int pfd[2], child_errno = 0;
	pid_t pid, parent = getpid();
	ssize_t n;

	memset(p, 0, sizeof(*p));
	p->pid = -1;
	p->pidfd = -1;
	p->pgrp = o->new_pgrp;
	if (!o->argv || !o->argv[0])
		return iot_err_set(e, -EINVAL, "no command to run");
	/* the child reports exec failure through a close-on-exec pipe: EOF means exec worked */
	if (pipe2(pfd, O_CLOEXEC))
		return iot_err_set(e, -errno, "pipe: %s", strerror(errno));
	p->start_ns = iot_now_ns();
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return iot_err_set(e, -errno, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		sigset_t none;

		if (o->pdeathsig) {
			/* kept across exec; the check closes the race with a parent dying first */
			prctl(PR_SET_PDEATHSIG, o->pdeathsig);
			if (getppid() != parent)
				_exit(128 + o->pdeathsig);
		}
		if (o->new_pgrp)
			setpgid(0, 0);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		close(pfd[0]);
		if (child_fd(o->fd_in, 0) || child_fd(o->fd_out, 1) || child_fd(o->fd_err, 2))
			child_errno = errno;
		else
			child_errno = exec_path(o->argv, envp);
		if (write(pfd[1], &child_errno, sizeof(child_errno)) < 0)
			_exit(127);
		_exit(child_errno == ENOENT ? 127 : 126);
	}
	close(pfd[1]);
	if (o->new_pgrp)
		setpgid(pid, pid); /* also here: a signal sent right after we return must find it */
	do
		n = read(pfd[0], &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	p->pid = pid;
	p->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (n == (ssize_t)sizeof(child_errno))
		p->exec_errno = child_errno;
	return 0;
}

static int shell_status(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 1;
}

int iot_proc_wait(struct iot_proc *p, int timeout_ms, int *status)
{
	uint64_t deadline = timeout_ms > 0 ? iot_now_ns() + (uint64_t)timeout_ms * 1000000u : 0;
	int st;
	pid_t r;

	if (p->pid < 0)
		return 1;
	for (;;) {
		r = waitpid(p->pid, &st, WNOHANG);
		if (r == p->pid || (r < 0 && errno != EINTR))
			break;
		if (r < 0 || timeout_ms == 0)
			return 0;
		if (p->pidfd >= 0) {
			struct pollfd pf = {.fd = p->pidfd, .events = POLLIN};
			int left = timeout_ms;

			if (deadline) {
				uint64_t now = iot_now_ns();

				if (now >= deadline)
					return 0;
				left = (int)((deadline - now + 999999) / 1000000);
			}
			if (poll(&pf, 1, left) < 0)
				return 0; /* a signal: the caller decides what it means */
			if (!pf.revents && timeout_ms > 0)
				return 0;
		} else {
			/* no pidfd (kernel before 5.3): look again every 10 ms */
			struct timespec ts = {0, 10000000L};

			if (deadline && iot_now_ns() >= deadline)
				return 0;
			if (nanosleep(&ts, NULL))
				return 0;
		}
	}
	p->end_ns = iot_now_ns();
	*status = r == p->pid ? shell_status(st) : 127;
	p->pid = -1;
	if (p->pidfd >= 0)
		close(p->pidfd);
	p->pidfd = -1;
	return 1;
}

int iot_proc_kill(const struct iot_proc *p, int sig)
{
	if (p->pid <= 0)
		return -ESRCH;
	if (kill(p->pgrp ? -p->pid : p->pid, sig) && (!p->pgrp || kill(p->pid, sig)))
		return -errno;
	return 0;
}

uint64_t iot_proc_wall_ns(const struct iot_proc *p)
{
	return p->end_ns > p->start_ns ? p->end_ns - p->start_ns : 0;
}
