/* SPDX-License-Identifier: MIT */
/* capture --host's pieces shared by its files (hosts.c, hosts_ssh.c) only. */
#ifndef IOTAPE_CAPTURE_HOSTS_INT_H
#define IOTAPE_CAPTURE_HOSTS_INT_H

#include <stddef.h>

#include "capture/cap_int.h"
#include "capture/hosts.h"
#include "common/err.h"
#include "common/spawn.h"

/*
 * Every host runs one shell script over one ssh session (ssh -T: no terminal). The check's
 * script answers each line on its standard input with the host's CLOCK_REALTIME, so the same
 * session measures the clock offset. The capture's script starts `iotape capture` with a
 * COMMAND that says it runs (the capture starts COMMAND once it traces) and waits for its
 * standard input, the ssh session's, to close: closing our end of the pipe stops the capture
 * cleanly, and so does a dead local iotape or a lost connection (the remote side dies with
 * its session). Then the script streams the run directory as a tar on its standard output,
 * which nothing else writes to, and removes it.
 */
#define READY_LINE "iotape-host: tracing"
#define EXIT_PREFIX "iotape-host: capture exit "
#define CHECKED_LINE "iotape-host: checked"
/* before the tar stream: what a login shell's startup files print comes before it */
#define TAR_LINE "iotape-host: tar"

struct lines {
	char buf[4096];
	size_t len;
	char last[256]; /* the last line that was not ours: why a host failed */
};

struct sshp {
	struct iot_proc p;
	int in, out, err; /* our ends: its stdin, stdout (the check only), stderr; -1 closed */
	int status;       /* ssh's exit status once done */
	int done;
	struct lines ol, el;
};

/* 'arg' for a POSIX shell, appended to *out (*len bytes long): 0 or -ENOMEM. */
int caph_shq(char **out, size_t *len, const char *arg);
/* s appended to *out: 0 or -ENOMEM. */
int caph_append(char **out, size_t *len, const char *s);
/* Whether every host's capture uses the tracefs backend (the one global blk tracer). */
int caph_wants_tracefs(const struct caph_opts *o);
/* The check's script for host h (new), or NULL when out of memory. */
char *caph_check_script(const struct caph_host *h, int tracefs);
/* The capture's script for host h (new), or NULL when out of memory. */
char *caph_capture_script(const struct caph_opts *o, const struct caph_host *h);
/* ssh [-F FILE] -T -o BatchMode=yes ... DEST SCRIPT, with pipes; out_fd >= 0: its stdout. */
int caph_ssh_start(const struct caph_opts *o, const struct caph_host *h, const char *script,
                   int out_fd, struct sshp *s, struct iot_err *e);
/* *fd closed when open, and set to -1. */
void caph_close_fd(int *fd);
/* Read what *fd has into l; each whole line to fn. 0 at EOF (*fd closed), 1 otherwise. */
int caph_read_lines(int *fd, struct lines *l, void (*fn)(void *, const char *), void *arg);

#endif
