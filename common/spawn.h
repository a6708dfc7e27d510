/* SPDX-License-Identifier: MIT */
/* Running a program as a shell would: fork, exec with PATH search, statuses 126/127/128+N. */
#ifndef IOTAPE_COMMON_SPAWN_H
#define IOTAPE_COMMON_SPAWN_H

#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"

struct iot_spawn_opts {
	char *const *argv;  /* NULL-terminated; argv[0] is looked up in PATH without a '/' */
	char *const *envp;  /* the child's environment; NULL: the caller's */
	int fd_in;          /* made the child's standard input (-1: inherited) */
	int fd_out, fd_err; /* standard output and error (-1: inherited) */
	int pdeathsig; /* signal the child gets when the caller dies, even by SIGKILL (0: none) */
	int new_pgrp;  /* the child leads a process group of its own (signals reach its tree) */
};

/* A running (or finished) child. */
struct iot_proc {
	pid_t pid;      /* -1 once it has been waited for */
	int pidfd;      /* poll()able until it has been waited for; -1 without pidfd_open */
	int exec_errno; /* why exec failed (the child then exits 127 or 126), else 0 */
	int pgrp;       /* the child leads its own process group */
	uint64_t start_ns, end_ns; /* CLOCK_MONOTONIC before the fork, when the end was seen */
};

/*
 * Fork and exec o->argv. 0 with p filled (an exec failure is not an error here: it is in
 * p->exec_errno, and the child's status is 127 for "not found", 126 for "cannot run", as a
 * shell's); -errno when no child could be made (e filled). The child starts with every signal
 * unblocked and SIGINT, SIGTERM and SIGPIPE at their defaults. Safe in threaded callers: the
 * child only calls async-signal-safe functions.
 */
int iot_spawn(const struct iot_spawn_opts *o, struct iot_proc *p, struct iot_err *e);

/*
 * Wait at most timeout_ms (-1: until it ends; 0: just look) for the child to end. 1 with
 * *status in the shell's convention (exit code, or 128 + N for signal N) once it has, and
 * p->end_ns set; 0 while it runs, also when a signal cut the wait short.
 */
int iot_proc_wait(struct iot_proc *p, int timeout_ms, int *status);

/* Send sig to the child, or to its whole process group when it leads one. */
int iot_proc_kill(const struct iot_proc *p, int sig);

/* Wall time of a finished child in ns (0 while it runs). */
uint64_t iot_proc_wall_ns(const struct iot_proc *p);

#endif
