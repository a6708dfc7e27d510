/* SPDX-License-Identifier: MIT */
/* capture --host: check, start, stop and bring back a capture on each host over OpenSSH. */
#include "capture/hosts.h"
#include "capture/cap_int.h"

#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "common/spawn.h"
#include "iotape_version.h"

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
#define TAR_SEARCH 65536
#define CLOCK_SAMPLES 8
#define CHECK_TIMEOUT_MS 30000
#define START_TIMEOUT_MS 120000

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

/* src into dst, cut to fit (messages: a cut one is still a message) */
static void set_str(char *dst, size_t cap, const char *src)
{
	size_t n = strnlen(src, cap - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* 'arg' for a POSIX shell, appended to out. */
static int shq(char **out, size_t *len, const char *arg)
{
	size_t need = 3 + strlen(arg) * 4, l = *len;
	char *p = realloc(*out, l + need + 1);

	if (!p)
		return -ENOMEM;
	p[l++] = ' ';
	p[l++] = '\'';
	for (; *arg; arg++) {
		if (*arg == '\'') {
			memcpy(p + l, "'\\''", 4);
			l += 4;
		} else {
			p[l++] = *arg;
		}
	}
	p[l++] = '\'';
	p[l] = 0;
	*out = p;
	*len = l;
	return 0;
}

static int append(char **out, size_t *len, const char *s)
{
	size_t n = strlen(s);
	char *p = realloc(*out, *len + n + 1);

	if (!p)
		return -ENOMEM;
	memcpy(p + *len, s, n + 1);
	*out = p;
	*len += n;
	return 0;
}

/* A device as the host's shell tests it: NAME=DEV's DEV, a bare name under /dev. */
static const char *dev_path(const char *d)
{
	const char *eq = strchr(d, '=');

	if (eq && eq < d + strcspn(d, "/"))
		return eq + 1;
	return d;
}

/* Whether every host's capture uses the tracefs backend (the one global blk tracer). */
static int wants_tracefs(const struct caph_opts *o)
{
	int t = 0;

	for (unsigned i = 0; i + 1 < o->ncapture_args; i++)
		if (!strcmp(o->capture_args[i], "--backend"))
			t = !strcmp(o->capture_args[i + 1], "tracefs");
	return t;
}

static char *check_script(const struct caph_host *h, int tracefs)
{
	char *s = NULL;
	size_t n = 0;
	int ret = append(&s, &n,
	                 "v=$(iotape --version 2>/dev/null | head -n 1); echo \"version $v\"; "
	                 "echo \"uid $(id -u)\"; for d in");

	for (unsigned i = 0; !ret && i < h->ndevs; i++)
		ret = shq(&s, &n, dev_path(h->devs[i]));
	ret = ret
	          ?: append(&s, &n,
	                    "; do case $d in /*) p=$d ;; *) p=/dev/$d ;; esac; "
	                    "[ -b \"$p\" ] || echo \"nodev $d\"; done; ");
	if (!ret && h->iface) {
		ret = append(&s, &n, "i=");
		ret = ret ?: shq(&s, &n, h->iface);
		ret = ret
		          ?: append(&s, &n,
		                    "; [ -e \"/sys/class/net/$i\" ] || echo \"noiface $i\"; ");
	}
	/* the tracer held by a live capture (capture/tracefs.c's state file names its pid) */
	if (!ret && tracefs)
		ret =
		    append(&s, &n,
		           "f=/run/iotape-tracefs.state; p=$(sed -n 's/^pid //p' $f 2>/dev/null); "
		           "[ -n \"$p\" ] && kill -0 \"$p\" 2>/dev/null && echo \"tracer $p\"; ");
	ret =
	    ret ?: append(&s, &n, "echo '" CHECKED_LINE "'; while read -r x; do date +%s%N; done");
	if (ret) {
		free(s);
		return NULL;
	}
	return s;
}

static char *capture_script(const struct caph_opts *o, const struct caph_host *h)
{
	char *s = NULL, tmpl[64];
	size_t n = 0;
	int ret;

	/* the local pid in the remote directory's name: whose capture it is, on the host */
	snprintf(tmpl, sizeof(tmpl), "/tmp/iotape-host-%ld.XXXXXX", (long)getpid());
	ret = append(&s, &n, "trap '' PIPE; d=$(mktemp -d");
	ret = ret ?: shq(&s, &n, tmpl);
	ret = ret
	          ?: append(&s, &n,
	                    ") || exit 1; trap 'rm -rf \"$d\"' EXIT; "
	                    "iotape capture -o \"$d/run\"");
	for (unsigned i = 0; !ret && i < h->ndevs; i++) {
		ret = append(&s, &n, " -d");
		ret = ret ?: shq(&s, &n, h->devs[i]);
	}
	if (!ret && h->iface) {
		ret = append(&s, &n, " -i");
		ret = ret ?: shq(&s, &n, h->iface);
	}
	for (unsigned i = 0; !ret && i < o->ncapture_args; i++)
		ret = shq(&s, &n, o->capture_args[i]);
	ret = ret
	          ?: append(&s, &n,
	                    " -- sh -c 'echo \"" READY_LINE "\" >&2; exec cat >/dev/null' >&2; "
	                    "echo \"" EXIT_PREFIX "$?\" >&2; "
	                    "[ -f \"$d/run/manifest.json\" ] && { echo '" TAR_LINE "'; "
	                    "tar -C \"$d/run\" -cf - .; }");
	if (ret) {
		free(s);
		return NULL;
	}
	return s;
}

/* ssh [-F FILE] -T -o BatchMode=yes ... DEST SCRIPT, with pipes; out_fd >= 0: its stdout. */
static int ssh_start(const struct caph_opts *o, const struct caph_host *h, const char *script,
                     int out_fd, struct sshp *s, struct iot_err *e)
{
	const char *argv[16];
	int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, n = 0, ret;

	memset(s, 0, sizeof(*s));
	s->in = s->out = s->err = -1;
	argv[n++] = "ssh";
	if (o->ssh_config) {
		argv[n++] = "-F";
		argv[n++] = o->ssh_config;
	}
	/* no terminal, never a password prompt; a host that stops answering is given up after
	 * about 15 s (the capture on it then stops with its session) */
	argv[n++] = "-T";
	argv[n++] = "-o";
	argv[n++] = "BatchMode=yes";
	argv[n++] = "-o";
	argv[n++] = "ServerAliveInterval=5";
	argv[n++] = "-o";
	argv[n++] = "ServerAliveCountMax=3";
	argv[n++] = "--";
	argv[n++] = h->dest;
	argv[n++] = script;
	argv[n] = NULL;
	if (pipe2(in, O_CLOEXEC) || pipe2(err, O_CLOEXEC) ||
	    (out_fd < 0 && pipe2(out, O_CLOEXEC))) {
		ret = iot_err_set(e, -errno, "pipe: %s", strerror(errno));
		goto fail;
	}
	{
		/* a process group of its own: a Ctrl-C at the terminal is for iotape, which then
		 * stops each host and brings its run back through this ssh */
		struct iot_spawn_opts so = {.argv = (char *const *)argv,
		                            .fd_in = in[0],
		                            .fd_out = out_fd >= 0 ? out_fd : out[1],
		                            .fd_err = err[1],
		                            .pdeathsig = SIGTERM,
		                            .new_pgrp = 1};

		if ((ret = iot_spawn(&so, &s->p, e)))
			goto fail;
	}
	close(in[0]);
	close(err[1]);
	if (out[1] >= 0)
		close(out[1]);
	s->in = in[1];
	s->err = err[0];
	s->out = out[0];
	if (s->p.exec_errno) {
		iot_proc_wait(&s->p, -1, &s->status);
		close(s->in);
		close(s->err);
		if (s->out >= 0)
			close(s->out);
		return iot_err_set(e, -s->p.exec_errno, "cannot run ssh: %s",
		                   strerror(s->p.exec_errno));
	}
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (out[i] >= 0)
			close(out[i]);
		if (err[i] >= 0)
			close(err[i]);
	}
	return ret;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Read what fd has into l; each whole line to fn. 0 at EOF (fd closed), 1 otherwise. */
static int read_lines(int *fd, struct lines *l, void (*fn)(void *, const char *), void *arg)
{
	ssize_t r = read(*fd, l->buf + l->len, sizeof(l->buf) - 1 - l->len);
	char *nl, *p;

	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return 1;
	if (r <= 0) {
		if (l->len) { /* a last line without its newline */
			l->buf[l->len] = 0;
			fn(arg, l->buf);
			l->len = 0;
		}
		close_fd(fd);
		return 0;
	}
	l->len += (size_t)r;
	l->buf[l->len] = 0;
	p = l->buf;
	while ((nl = strchr(p, '\n'))) {
		*nl = 0;
		fn(arg, p);
		p = nl + 1;
	}
	l->len -= (size_t)(p - l->buf);
	memmove(l->buf, p, l->len);
	if (l->len == sizeof(l->buf) - 1) { /* a line too long: cut */
		l->buf[l->len] = 0;
		fn(arg, l->buf);
		l->len = 0;
	}
	return 1;
}

/* ---- the check ---- */

struct check {
	const struct caph_opts *o;
	const struct caph_host *h;
	struct caph_status *st;
	char problems[320];
	int version_seen, uid_ok, checked;
	uint64_t t0, remote;
};

static void add_problem(struct check *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void add_problem(struct check *c, const char *fmt, ...)
{
	size_t l = strlen(c->problems);
	va_list ap;

	if (l && l + 2 < sizeof(c->problems)) {
		memcpy(c->problems + l, "; ", 3);
		l += 2;
	}
	va_start(ap, fmt);
	vsnprintf(c->problems + l, sizeof(c->problems) - l, fmt, ap);
	va_end(ap);
}

static void check_line(void *arg, const char *line)
{
	struct check *c = arg;
	char want[64];

	if (c->checked) {
		c->remote = strtoull(line, NULL, 10);
		return;
	}
	if (!strncmp(line, "version ", 8)) {
		c->version_seen = 1;
		/* the same release: the remote capture takes the options this one passes on, and
		 * writes the run this one's analyze reads */
		snprintf(want, sizeof(want), "iotape %s", IOTAPE_VERSION);
		if (!line[8])
			add_problem(c, "no iotape on its PATH");
		else if (strncmp(line + 8, want, strlen(want)) ||
		         (line[8 + strlen(want)] && line[8 + strlen(want)] != ' '))
			add_problem(c, "'%s' there, this is %s", line + 8, want);
	} else if (!strncmp(line, "uid ", 4)) {
		if (strcmp(line + 4, "0"))
			add_problem(c, "not root (uid %s): capture needs root", line + 4);
		c->uid_ok = 1;
	} else if (!strncmp(line, "nodev ", 6)) {
		add_problem(c, "no block device %s", line + 6);
	} else if (!strncmp(line, "tracer ", 7)) {
		add_problem(c,
		            "the blk tracer is in use (an iotape capture, pid %s): the tracefs "
		            "backend needs it; --backend bpf does not",
		            line + 7);
	} else if (!strncmp(line, "noiface ", 8)) {
		add_problem(c, "no interface %s", line + 8);
	} else if (!strcmp(line, CHECKED_LINE)) {
		c->checked = 1;
	}
}

static void err_line(void *arg, const char *line)
{
	struct lines *l = arg;

	if (*line)
		set_str(l->last, sizeof(l->last), line);
}

/* Wait until fd is readable or ms pass; 1 readable, 0 timeout or a signal. */
static int wait_fd(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, ms) > 0;
}

/* Start host h's check session: 0, or -1 with st->reason. */
static int check_begin(const struct caph_opts *o, const struct caph_host *h, struct caph_status *st,
                       struct sshp *s)
{
	struct iot_err e;
	char *script = check_script(h, wants_tracefs(o));
	int ret;

	st->capture_exit = -1;
	if (!script) {
		snprintf(st->reason, sizeof(st->reason), "out of memory");
		return -1;
	}
	ret = ssh_start(o, h, script, -1, s, &e);
	free(script);
	if (ret) {
		set_str(st->reason, sizeof(st->reason), e.msg);
		return -1;
	}
	return 0;
}

/* The session check_begin() started: its answers, its clock samples; its end. */
static void check_host(const struct caph_opts *o, const struct caph_host *h, struct caph_status *st,
                       struct sshp *sp)
{
	struct check c = {.o = o, .h = h, .st = st};
	struct sshp s = *sp;
	uint64_t deadline;
	int samples = 0;

	deadline = iot_now_ns() + CHECK_TIMEOUT_MS * 1000000ull;
	/* the checks' lines, then a clock sample per line we send */
	while (s.out >= 0 && iot_now_ns() < deadline && !(o->stop && *o->stop)) {
		if (c.checked && samples < CLOCK_SAMPLES && !c.t0) {
			c.remote = 0;
			c.t0 = realtime_ns();
			if (write(s.in, "t\n", 2) != 2)
				break;
		}
		if (!wait_fd(s.out, 200))
			continue;
		if (!read_lines(&s.out, &s.ol, check_line, &c))
			break;
		if (c.t0 && c.remote) {
			uint64_t t1 = realtime_ns(), rtt = t1 - c.t0;

			if (!samples || rtt < st->rtt_ns) {
				st->rtt_ns = rtt;
				st->offset_ns = (int64_t)(c.remote - (c.t0 + rtt / 2));
				st->clock_err_ns = rtt / 2 + 1;
			}
			c.t0 = 0;
			if (++samples == CLOCK_SAMPLES)
				break;
		}
	}
	close_fd(&s.in);
	close_fd(&s.out);
	/* its stderr: why ssh failed, if it did */
	while (s.err >= 0 && wait_fd(s.err, 5000) && read_lines(&s.err, &s.el, err_line, &s.el))
		;
	close_fd(&s.err);
	if (!iot_proc_wait(&s.p, 5000, &s.status)) {
		iot_proc_kill(&s.p, SIGKILL);
		iot_proc_wait(&s.p, -1, &s.status);
	}
	if (!c.checked) {
		char full[sizeof(s.el.last) + 64];

		snprintf(full, sizeof(full), "cannot check it over ssh (ssh status %d%s%s)",
		         s.status, s.el.last[0] ? ": " : "", s.el.last);
		set_str(st->reason, sizeof(st->reason), full);
		return;
	}
	if (c.problems[0]) {
		set_str(st->reason, sizeof(st->reason), c.problems);
		return;
	}
	if (samples < 1) {
		snprintf(st->reason, sizeof(st->reason), "no clock sample came back");
		return;
	}
	st->checked = 1;
}

/* ---- the capture ---- */

struct live {
	const struct caph_opts *o;
	const struct caph_host *h;
	struct caph_status *st;
	struct sshp s;
	int running;   /* ssh not waited for yet */
	int exit_seen; /* the script's EXIT_PREFIX line came */
	/* what the host sends (its run as a tar, after TAR_LINE): a file of SET unlinked as soon
	 * as made, so that a local iotape killed before unpacking it leaves no part of it */
	int tfd;
};

static void live_line(void *arg, const char *line)
{
	struct live *l = arg;

	if (!strcmp(line, READY_LINE)) {
		l->st->started = 1;
		cap_say(l->o->notice, l->o->arg, "%s: tracing", l->h->dest);
		return;
	}
	if (!strncmp(line, EXIT_PREFIX, strlen(EXIT_PREFIX))) {
		l->st->capture_exit = atoi(line + strlen(EXIT_PREFIX));
		l->exit_seen = 1;
		return;
	}
	if (!*line)
		return;
	set_str(l->s.el.last, sizeof(l->s.el.last), line);
	cap_say(l->o->notice, l->o->arg, "%s: %s", l->h->dest, line);
}

/* Poll every host's stderr for up to ms; reap the ssh of each one whose stderr closed. */
static void poll_hosts(struct live *lv, unsigned n, int ms)
{
	struct pollfd pf[CAPH_MAX_HOSTS];
	unsigned idx[CAPH_MAX_HOSTS], np = 0;

	for (unsigned i = 0; i < n; i++) {
		if (lv[i].s.err >= 0) {
			pf[np] = (struct pollfd){.fd = lv[i].s.err, .events = POLLIN};
			idx[np++] = i;
		}
	}
	if (np && poll(pf, np, ms) > 0) {
		for (unsigned k = 0; k < np; k++)
			if (pf[k].revents)
				read_lines(&lv[idx[k]].s.err, &lv[idx[k]].s.el, live_line,
				           &lv[idx[k]]);
	} else if (!np && ms > 0) {
		poll(NULL, 0, ms);
	}
	for (unsigned i = 0; i < n; i++) {
		if (lv[i].running && lv[i].s.err < 0 &&
		    iot_proc_wait(&lv[i].s.p, 1000, &lv[i].s.status)) {
			lv[i].running = 0;
			close_fd(&lv[i].s.in);
		}
	}
}

static unsigned count_running(const struct live *lv, unsigned n)
{
	unsigned c = 0;

	for (unsigned i = 0; i < n; i++)
		c += lv[i].running;
	return c;
}

static int stopping(const struct caph_opts *o, struct caph_result *res)
{
	if (o->stop && *o->stop) {
		if (!res->stop_signal)
			res->stop_signal = *o->stop;
		return 1;
	}
	return 0;
}

/* Where the tar stream starts in what the host sent: after TAR_LINE. -1 when it is not
 * there (no run, or a session cut short before it). */
static off_t tar_start(int fd)
{
	char buf[TAR_SEARCH + 1], *p = buf, *nl;
	ssize_t n = pread(fd, buf, TAR_SEARCH, 0);

	if (n <= 0)
		return -1;
	buf[n] = 0;
	while (p < buf + n) {
		if (!strncmp(p, TAR_LINE "\n", sizeof(TAR_LINE)))
			return (off_t)(p - buf) + (off_t)sizeof(TAR_LINE);
		if (!(nl = memchr(p, '\n', (size_t)(buf + n - p))))
			break;
		p = nl + 1;
	}
	return -1;
}

/* Unpack what the host sent (from its TAR_LINE on) into SET/NAME. */
static int unpack(struct live *l, const char *dir, struct iot_err *e)
{
	char *const argv[] = {"tar", "-x", "-f", "-", "-C", (char *)dir, "--no-same-owner", NULL};
	struct iot_spawn_opts so = {.argv = argv, .fd_out = -1, .fd_err = -1};
	struct iot_proc p;
	int ret, status, fd = l->tfd;
	off_t at = fd >= 0 ? tar_start(fd) : -1;

	if (at < 0 || lseek(fd, at, SEEK_SET) != at)
		return iot_err_set(e, -ENOENT, "no run came back");
	if ((ret = iot_mkdir_p(dir, e)))
		return ret;
	so.fd_in = fd;
	ret = iot_spawn(&so, &p, e);
	if (ret)
		return ret;
	while (!iot_proc_wait(&p, -1, &status))
		;
	if (status)
		return iot_err_set(e, -EIO, "the run came back damaged (tar status %d)", status);
	return 0;
}

/*
 * The remote side of --on: COMMAND under a watcher that dies with the ssh session. Without a
 * terminal sshd signals nothing when the session ends (a stopped or killed local iotape, a lost
 * connection): COMMAND would go on. So the session's input is the watcher's (COMMAND reads
 * /dev/null); the watcher sees it end (iotape closes it on an early stop, and the session's
 * end closes it) and signals the session's process group, which sshd made for it (setsid):
 * COMMAND and the shell, none but this session's. When COMMAND ends first, the shell ends the
 * watcher (its own child, not yet reaped: no other process can hold its pid).
 */
#define ON_WATCH                                                                                   \
	"exec 3<&0 </dev/null; "                                                                   \
	"(trap 'kill $k 2>/dev/null; exit 0' TERM; cat <&3 >/dev/null 2>&1 & k=$!; wait $k; "      \
	"trap - TERM; kill -TERM 0) & w=$!; exec 3<&-;"
#define ON_END "; s=$?; kill $w 2>/dev/null; exit $s"

/*
 * ssh [-F FILE] -T -o BatchMode=yes -- DEST 'WATCH COMMAND... END' (each word quoted for the
 * remote shell): COMMAND --on DEST. NULL without memory; *text is the whole, to be freed.
 */
static char **on_argv(const struct caph_opts *o, char **text)
{
	char **argv = calloc(10, sizeof(*argv));
	size_t len = 0;
	int n = 0, ret;

	*text = NULL;
	ret = append(text, &len, ON_WATCH);
	for (unsigned i = 0; !ret && o->cmd[i]; i++)
		ret = shq(text, &len, o->cmd[i]);
	ret = ret ?: append(text, &len, ON_END);
	if (ret || !argv) {
		free(argv);
		free(*text);
		*text = NULL;
		return NULL;
	}
	argv[n++] = (char *)"ssh";
	if (o->ssh_config) {
		argv[n++] = (char *)"-F";
		argv[n++] = (char *)o->ssh_config;
	}
	argv[n++] = (char *)"-T";
	argv[n++] = (char *)"-o";
	argv[n++] = (char *)"BatchMode=yes";
	argv[n++] = (char *)"--";
	argv[n++] = (char *)o->on;
	argv[n++] = *text;
	return argv;
}

/* COMMAND here (or --on its host), while every host traces; or until a signal or the
 * duration. */
static void run_command(const struct caph_opts *o, struct live *lv, struct caph_result *res)
{
	uint64_t t0 = iot_now_ns();
	struct iot_proc p;
	struct iot_err e;
	int running = 0, status, killed = 0, watch[2] = {-1, -1};

	if (o->cmd) {
		char *text = NULL, **on = o->on ? on_argv(o, &text) : NULL;
		/* --on: the session's input is the remote watcher's (on_argv()), open until the
		 * end; closed early, COMMAND is stopped there */
		int pret = o->on && pipe2(watch, O_CLOEXEC) ? -errno : 0;
		struct iot_spawn_opts so = {.argv = on ? on : o->cmd,
		                            .fd_in = watch[0],
		                            .fd_out = -1,
		                            .fd_err = -1,
		                            .pdeathsig = SIGKILL};
		int sret = pret           ? iot_err_set(&e, pret, "pipe: %s", strerror(-pret))
		           : o->on && !on ? iot_err_set(&e, -ENOMEM, "out of memory")
		                          : iot_spawn(&so, &p, &e);

		free(on);
		free(text);
		close_fd(&watch[0]);
		if (sret || p.exec_errno)
			close_fd(&watch[1]);
		if (sret) {
			res->cmd_status = 126;
			set_str(res->cmd_error, sizeof(res->cmd_error), e.msg);
			return;
		}
		if (p.exec_errno) {
			iot_proc_wait(&p, -1, &status);
			res->cmd_status = p.exec_errno == ENOENT ? 127 : 126;
			snprintf(res->cmd_error, sizeof(res->cmd_error), "'%s': %s",
			         o->on ? "ssh" : o->cmd[0], strerror(p.exec_errno));
			return;
		}
		running = res->cmd_ran = 1;
	}
	for (;;) {
		if (running && iot_proc_wait(&p, 0, &status)) {
			close_fd(&watch[1]);
			res->cmd_status = status;
			res->cmd_wall_ns = iot_proc_wall_ns(&p);
			return;
		}
		if (stopping(o, res) || (o->duration_ns && iot_now_ns() - t0 >= o->duration_ns)) {
			if (!running)
				return;
			/* as a local capture does: COMMAND gets the signal (--on: the remote
			 * watcher sees its input end and stops COMMAND there) */
			close_fd(&watch[1]);
			if (!killed)
				iot_proc_kill(&p, res->stop_signal ? res->stop_signal : SIGTERM);
			killed = 1;
		}
		poll_hosts(lv, o->nhosts, 100);
	}
}

/*
 * SET/runset.json as a local iotape killed from here on leaves it (SIGKILL cannot be caught):
 * every host failed, no run back (the remote captures die with their sessions, before they
 * stream their runs). The set's end replaces it.
 */
static int runset_killed(const struct caph_opts *o, const struct caph_status *st,
                         const struct caph_result *res, struct iot_err *e)
{
	struct caph_status *k = calloc(o->nhosts, sizeof(*k));
	int ret;

	if (!k)
		return iot_err_set(e, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < o->nhosts; i++) {
		k[i] = st[i];
		k[i].capture_exit = -1;
		snprintf(k[i].reason, sizeof(k[i].reason),
		         "the capturing iotape ended before the runs came back (killed): the "
		         "host's capture stopped with its ssh session, its run was not sent");
	}
	ret = caph_runset_write(o, k, res, e);
	free(k);
	return ret;
}

/* Every host checked (reachable, iotape, root, devices, tracer) and its clock measured: 0, or
 * -EINVAL naming each host that cannot capture, -EINTR when stopped. */
static int check_all(const struct caph_opts *o, struct caph_status *st, struct caph_result *res,
                     struct iot_err *e)
{
	struct sshp *chk;
	char bad[512] = "";
	size_t bl = 0;
	uint64_t e1 = 0, e2 = 0;

	/* every host first: nothing starts anywhere while one of them cannot capture. The
	 * sessions all start at once (their connections are made meanwhile); each one's answers
	 * and clock samples are then taken in turn, so that no other exchange delays its round
	 * trips. */
	if (!(chk = calloc(o->nhosts, sizeof(*chk))))
		return iot_err_set(e, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < o->nhosts; i++) {
		cap_say(o->notice, o->arg, "%s: checking", o->hosts[i].dest);
		chk[i].p.pid = -1;
		if (check_begin(o, &o->hosts[i], &st[i], &chk[i]))
			chk[i].done = 1;
	}
	for (unsigned i = 0; i < o->nhosts; i++) {
		if (!chk[i].done)
			check_host(o, &o->hosts[i], &st[i], &chk[i]);
		chk[i].done = 1;
		if (stopping(o, res)) {
			for (unsigned j = i + 1; j < o->nhosts; j++) {
				if (chk[j].done)
					continue;
				close_fd(&chk[j].in);
				close_fd(&chk[j].out);
				close_fd(&chk[j].err);
				iot_proc_kill(&chk[j].p, SIGTERM);
				iot_proc_wait(&chk[j].p, -1, &chk[j].status);
			}
			free(chk);
			return iot_err_set(e, -EINTR, "interrupted while checking the hosts");
		}
		if (!st[i].checked && bl < sizeof(bad) - 1)
			bl += (size_t)snprintf(bad + bl, sizeof(bad) - bl, "%s%s: %s",
			                       bl ? "; " : "", o->hosts[i].dest, st[i].reason);
		/* any two hosts' clocks are aligned within the sum of their errors */
		if (st[i].clock_err_ns > e1) {
			e2 = e1;
			e1 = st[i].clock_err_ns;
		} else if (st[i].clock_err_ns > e2) {
			e2 = st[i].clock_err_ns;
		}
	}
	free(chk);
	if (bl)
		return iot_err_set(e, -EINVAL, "%s", bad);
	res->align_err_ns = o->nhosts > 1 ? e1 + e2 : e1;
	return 0;
}

/* A host's outcome once its session ended: its run unpacked into SET/HOST, the reason it failed
 * (if it did) in s->reason, s->ok when the run is whole. */
static void host_outcome(const struct caph_opts *o, struct live *l, struct caph_status *s)
{
	char dir[4200], name[256];
	struct iot_err ue;
	char why[300] = "";

	snprintf(dir, sizeof(dir), "%s/%s", o->set, caph_dir_name(l->h, name, sizeof(name)));
	if (!s->reason[0]) {
		if (!s->started)
			snprintf(why, sizeof(why), "its capture did not start");
		else if (!l->exit_seen)
			snprintf(why, sizeof(why), "the connection was lost (ssh status %d)",
			         l->s.status);
		else if (s->capture_exit > 128 && s->capture_exit < 160)
			/* the shell's own line about it (bash: "Killed ...") says no more
			 */
			snprintf(s->reason, sizeof(s->reason),
			         "its capture ended with status %d (killed by signal %d)",
			         s->capture_exit, s->capture_exit - 128);
		else if (s->capture_exit)
			snprintf(why, sizeof(why), "its capture ended with status %d",
			         s->capture_exit);
		if (why[0]) {
			char full[sizeof(why) + sizeof(l->s.el.last) + 2];

			snprintf(full, sizeof(full), "%s%s%s", why, l->s.el.last[0] ? ": " : "",
			         l->s.el.last);
			set_str(s->reason, sizeof(s->reason), full);
		}
	}
	if (!unpack(l, dir, &ue))
		s->have_run = 1;
	else if (!s->reason[0])
		set_str(s->reason, sizeof(s->reason), ue.msg);
	if (l->tfd >= 0)
		close(l->tfd);
	s->ok = !s->reason[0] && s->have_run;
}

int caph_run(const struct caph_opts *o, struct caph_status *st, struct caph_result *res,
             struct iot_err *e)
{
	struct live *lv;
	char name[256];
	unsigned nstarted = 0;
	uint64_t deadline;
	int ret;

	memset(res, 0, sizeof(*res));
	memset(st, 0, o->nhosts * sizeof(*st));
	if (!o->nhosts || o->nhosts > CAPH_MAX_HOSTS)
		return iot_err_set(e, -EINVAL, "between 1 and %u hosts", CAPH_MAX_HOSTS);
	for (unsigned i = 0; i < o->nhosts; i++)
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(o->hosts[i].dest, o->hosts[j].dest))
				return iot_err_set(e, -EINVAL, "host '%s' is given twice",
				                   o->hosts[i].dest);
	/* the set must be new: a run set is never written into */
	if (!access(o->set, F_OK))
		return iot_err_set(e, -EEXIST,
		                   "'%s' exists already: give a new directory for the "
		                   "run set",
		                   o->set);
	if ((ret = check_all(o, st, res, e)))
		return ret;
	if (mkdir(o->set, 0777))
		return iot_err_set(e, -errno, "cannot make '%s': %s", o->set, strerror(errno));
	if ((ret = runset_killed(o, st, res, e)))
		return ret;
	if (!(lv = calloc(o->nhosts, sizeof(*lv))))
		return iot_err_set(e, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < o->nhosts; i++) {
		struct live *l = &lv[i];
		struct iot_err he;
		char *script = capture_script(o, &o->hosts[i]), tar[4200];

		l->o = o;
		l->h = &o->hosts[i];
		l->st = &st[i];
		l->s.in = l->s.out = l->s.err = -1;
		st[i].capture_exit = -1;
		snprintf(tar, sizeof(tar), "%s/.%s.tar", o->set,
		         caph_dir_name(l->h, name, sizeof(name)));
		l->tfd = open(tar, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (l->tfd >= 0)
			unlink(tar);
		if (!script || l->tfd < 0) {
			snprintf(st[i].reason, sizeof(st[i].reason), "%s",
			         script ? strerror(errno) : "out of memory");
			free(script);
			continue;
		}
		ret = ssh_start(o, l->h, script, l->tfd, &l->s, &he);
		free(script);
		if (ret) {
			set_str(st[i].reason, sizeof(st[i].reason), he.msg);
			continue;
		}
		l->running = 1;
	}
	/* until every host traces (or has given up) */
	deadline = iot_now_ns() + START_TIMEOUT_MS * 1000000ull;
	for (;;) {
		unsigned waiting = 0;

		for (unsigned i = 0; i < o->nhosts; i++)
			waiting += lv[i].running && !st[i].started;
		if (!waiting || stopping(o, res) || iot_now_ns() > deadline)
			break;
		poll_hosts(lv, o->nhosts, 100);
	}
	for (unsigned i = 0; i < o->nhosts; i++)
		nstarted += st[i].started && lv[i].running;
	if (nstarted && !stopping(o, res)) {
		if (nstarted < o->nhosts)
			cap_say(o->notice, o->arg,
			        "%u of %u hosts trace: going on without the others", nstarted,
			        o->nhosts);
		run_command(o, lv, res);
	}
	/* stop: each host's session sees its input end, its capture stops and its run comes */
	for (unsigned i = 0; i < o->nhosts; i++)
		close_fd(&lv[i].s.in);
	while (count_running(lv, o->nhosts))
		poll_hosts(lv, o->nhosts, 200);
	for (unsigned i = 0; i < o->nhosts; i++) {
		host_outcome(o, &lv[i], &st[i]);
		res->nok += (unsigned)st[i].ok;
	}
	free(lv);
	return caph_runset_write(o, st, res, e);
}

/* ---- --release on every host ---- */

struct rel {
	const struct caph_opts *o;
	const struct caph_host *h;
	struct caph_status *st;
};

static void release_line(void *arg, const char *line)
{
	struct rel *r = arg;

	if (!strncmp(line, EXIT_PREFIX, strlen(EXIT_PREFIX))) {
		r->st->capture_exit = atoi(line + strlen(EXIT_PREFIX));
		return;
	}
	if (!*line)
		return;
	set_str(r->st->reason, sizeof(r->st->reason), line);
	cap_say(r->o->notice, r->o->arg, "%s: %s", r->h->dest, line);
}

int caph_release(const struct caph_opts *o, struct caph_status *st, struct iot_err *e)
{
	/* stdout: a login's greeting, if any; iotape says what it did on stderr */
	static const char script[] = "iotape capture --release; echo \"" EXIT_PREFIX "$?\" >&2";
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	memset(st, 0, o->nhosts * sizeof(*st));
	if (null < 0)
		return iot_err_set(e, -errno, "/dev/null: %s", strerror(errno));
	for (unsigned i = 0; i < o->nhosts; i++) {
		struct rel r = {o, &o->hosts[i], &st[i]};
		struct sshp s;
		struct iot_err he;

		st[i].capture_exit = -1;
		if (ssh_start(o, &o->hosts[i], script, null, &s, &he)) {
			set_str(st[i].reason, sizeof(st[i].reason), he.msg);
			continue;
		}
		close_fd(&s.in);
		while (read_lines(&s.err, &s.el, release_line, &r))
			;
		iot_proc_wait(&s.p, -1, &s.status);
		if (st[i].capture_exit < 0 && !st[i].reason[0])
			snprintf(st[i].reason, sizeof(st[i].reason),
			         "the connection failed (ssh status %d)", s.status);
		st[i].ok = st[i].capture_exit == 0;
	}
	close(null);
	return 0;
}
