/* SPDX-License-Identifier: MIT */
/* capture --host: check, start, stop and bring back a capture on each host over OpenSSH. */
#include "capture/hosts.h"
#include "capture/hosts_int.h"

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

/* The scripts each host runs and how their lines are read: capture/hosts_int.h. */
#define TAR_SEARCH 65536
#define CLOCK_SAMPLES 8
#define CHECK_TIMEOUT_MS 30000
#define START_TIMEOUT_MS 120000

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
	char *script = caph_check_script(h, caph_wants_tracefs(o));
	int ret;

	st->capture_exit = -1;
	if (!script) {
		snprintf(st->reason, sizeof(st->reason), "out of memory");
		return -1;
	}
	ret = caph_ssh_start(o, h, script, -1, s, &e);
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
		if (!caph_read_lines(&s.out, &s.ol, check_line, &c))
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
	caph_close_fd(&s.in);
	caph_close_fd(&s.out);
	/* its stderr: why ssh failed, if it did */
	while (s.err >= 0 && wait_fd(s.err, 5000) &&
	       caph_read_lines(&s.err, &s.el, err_line, &s.el))
		;
	caph_close_fd(&s.err);
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
				caph_read_lines(&lv[idx[k]].s.err, &lv[idx[k]].s.el, live_line,
				                &lv[idx[k]]);
	} else if (!np && ms > 0) {
		poll(NULL, 0, ms);
	}
	for (unsigned i = 0; i < n; i++) {
		if (lv[i].running && lv[i].s.err < 0 &&
		    iot_proc_wait(&lv[i].s.p, 1000, &lv[i].s.status)) {
			lv[i].running = 0;
			caph_close_fd(&lv[i].s.in);
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
	ret = caph_append(text, &len, ON_WATCH);
	for (unsigned i = 0; !ret && o->cmd[i]; i++)
		ret = caph_shq(text, &len, o->cmd[i]);
	ret = ret ?: caph_append(text, &len, ON_END);
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
		caph_close_fd(&watch[0]);
		if (sret || p.exec_errno)
			caph_close_fd(&watch[1]);
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
			caph_close_fd(&watch[1]);
			res->cmd_status = status;
			res->cmd_wall_ns = iot_proc_wall_ns(&p);
			return;
		}
		if (stopping(o, res) || (o->duration_ns && iot_now_ns() - t0 >= o->duration_ns)) {
			if (!running)
				return;
			/* as a local capture does: COMMAND gets the signal (--on: the remote
			 * watcher sees its input end and stops COMMAND there) */
			caph_close_fd(&watch[1]);
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
				caph_close_fd(&chk[j].in);
				caph_close_fd(&chk[j].out);
				caph_close_fd(&chk[j].err);
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
		char *script = caph_capture_script(o, &o->hosts[i]), tar[4200];

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
		ret = caph_ssh_start(o, l->h, script, l->tfd, &l->s, &he);
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
		caph_close_fd(&lv[i].s.in);
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
		if (caph_ssh_start(o, &o->hosts[i], script, null, &s, &he)) {
			set_str(st[i].reason, sizeof(st[i].reason), he.msg);
			continue;
		}
		caph_close_fd(&s.in);
		while (caph_read_lines(&s.err, &s.el, release_line, &r))
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
