/* SPDX-License-Identifier: MIT */
/* capture --host: one capture on several hosts over OpenSSH, brought back into a run set. */
#ifndef IOTAPE_CAPTURE_HOSTS_H
#define IOTAPE_CAPTURE_HOSTS_H

#include <signal.h>
#include <stdint.h>

#include "common/err.h"
#include "formats/runset.h"

/* a run set's manifest, SET/RUNSET_FILE, is written here (caph_run()) and read back by
 * formats/runset.h */
#define CAPH_MAX_HOSTS RUNSET_MAX_HOSTS
#define CAPH_MAX_DEVS 64u

/* One --host DEST[:DEV,DEV...][:IFACE]: what to capture where. */
struct caph_host {
	char *spec; /* the whole argument, copied; dest, devs and iface point into it */
	char *dest; /* the ssh destination (any ssh_config name, user@host) */
	char *devs[CAPH_MAX_DEVS]; /* as -d takes them: [NAME=]DEV */
	unsigned ndevs;
	char *iface; /* NULL: no packets */
};

/* What became of one host. */
struct caph_status {
	int checked;       /* it answered the check */
	int started;       /* its capture said it was tracing */
	int ok;            /* its run came back whole and its capture ended well */
	int have_run;      /* SET/NAME holds its run directory (maybe partial) */
	int capture_exit;  /* the remote capture's exit status, -1 unknown */
	char reason[320];  /* why it is not ok */
	int64_t offset_ns; /* remote CLOCK_REALTIME - local, at the midpoint of the round trip */
	uint64_t rtt_ns;   /* the shortest round trip of the samples, the one used */
	uint64_t clock_err_ns; /* rtt / 2: the offset is right to within this */
};

struct caph_opts {
	const char *set; /* the run-set directory, made here (SET/NAME per host) */
	struct caph_host *hosts;
	unsigned nhosts;
	const char *ssh_config;    /* ssh -F FILE, or NULL for ssh's own */
	char *const *capture_args; /* options for every remote `iotape capture` (--backend ...) */
	unsigned ncapture_args;
	char *const *cmd;     /* NULL-terminated COMMAND run here, or NULL: until a signal */
	const char *on;       /* COMMAND runs on this ssh destination instead (--on), or NULL */
	uint64_t duration_ns; /* 0: until COMMAND ends or a signal */
	int argc;             /* iotape's own command line, for runset.json */
	char *const *argv;
	volatile sig_atomic_t *stop;                /* set by a signal handler: stop every host */
	void (*notice)(void *arg, const char *msg); /* lines for the user (may be NULL) */
	void *arg;
};

struct caph_result {
	int cmd_ran;
	int cmd_status;       /* as capture's: exit status, 128 + N, 127, 126 */
	uint64_t cmd_wall_ns; /* from starting COMMAND to its end (0: it did not run) */
	char cmd_error[256];  /* why COMMAND could not run */
	int stop_signal;
	unsigned nok;          /* hosts whose run is whole */
	uint64_t align_err_ns; /* the bound on the error between any two hosts' clocks */
};

/* Parse DEST[:DEV,DEV...][:IFACE] into h (h->spec owned; caph_host_free). -EINVAL with e. */
int caph_parse(const char *spec, struct caph_host *h, struct iot_err *e);
void caph_host_free(struct caph_host *h);
/* DEST alone (what follows a ':' is ignored): a host for --release, which captures nothing. */
int caph_parse_dest(const char *spec, struct caph_host *h, struct iot_err *e);
/*
 * A hosts file: a --host argument a line (leading and trailing blanks dropped; empty lines
 * and lines starting with '#' skipped), appended to hosts[*n] (at most max in all). -EINVAL
 * naming FILE:LINE, -ENOENT etc. when it cannot be read (e filled either way).
 */
int caph_parse_file(const char *path, struct caph_host *hosts, unsigned max, unsigned *n,
                    struct iot_err *e);
/* The directory name of a host in the set (its destination, '/' made '_'). */
const char *caph_dir_name(const struct caph_host *h, char *buf, size_t cap);

/*
 * Check every host, start a capture on each over ssh, run COMMAND here once all trace, stop
 * them, bring every run back into SET/NAME and write SET/runset.json. st has a slot per
 * host. Returns -errno when nothing was started (e says what is wrong on which host: no
 * output is made then), else 0 with res and st filled: res->nok < o->nhosts means a part is
 * missing (runset.json says which and why).
 */
int caph_run(const struct caph_opts *o, struct caph_status *st, struct caph_result *res,
             struct iot_err *e);

/*
 * `iotape capture --release` on every host over ssh (a tracer a killed capture left on).
 * st[i].capture_exit is its exit status (-1: it did not run), st[i].reason what it said last
 * (or why it did not run), st[i].ok when it exited 0. 0, or -ENOMEM.
 */
int caph_release(const struct caph_opts *o, struct caph_status *st, struct iot_err *e);

#endif
