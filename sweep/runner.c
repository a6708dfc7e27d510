/* SPDX-License-Identifier: MIT */
/* Running a sweep: setup, the captured (or plain) command, metrics, teardown, for each run. */
#include "sweep/runner_int.h"

#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/jsonint.h"
#include "common/fs.h"
#include "common/spawn.h"
#include "formats/manifest.h"

#define TICK_MS 200
#define KILL_GRACE_NS (10ull * 1000000000ull)
/* a capture stops its command (5 s grace), drains the trace and writes the manifest: a
 * SIGKILL before it has would leave the tracer on */
#define CAPTURE_GRACE_NS (120ull * 1000000000ull)
#define ETA_CELLS_MAX 10000 /* above this, one mean for every cell */

struct ctx {
	struct sweep_runner *r;
	const struct sweep_def *d;
	char dir[PATH_MAX]; /* the sweep directory, absolute */
	struct sweep_slot *plan;
	size_t nplan, ncells;
	/* time per run, for the ETA: per cell, and over all */
	uint64_t *cell_ns, all_ns;
	unsigned *cell_n, all_n;
	unsigned *cell_left; /* runs of each cell still to run */
	size_t left;
	uint64_t t0;
};

static void emit(struct ctx *c, struct sweep_event *ev)
{
	ev->elapsed_ns = iot_now_ns() - c->t0;
	if (c->r->event)
		c->r->event(c->r->arg, ev);
}

static void notice(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void notice(struct ctx *c, const char *fmt, ...)
{
	struct sweep_event ev = {.kind = SWEEP_EV_NOTICE};
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ev.msg = msg;
	emit(c, &ev);
}

static uint64_t eta(const struct ctx *c)
{
	double mean, sum = 0;

	if (!c->all_n)
		return 0;
	mean = (double)c->all_ns / c->all_n;
	if (c->ncells > ETA_CELLS_MAX)
		return (uint64_t)(mean * (double)c->left);
	for (size_t k = 0; k < c->ncells; k++)
		sum +=
		    c->cell_left[k] * (c->cell_n[k] ? (double)c->cell_ns[k] / c->cell_n[k] : mean);
	return (uint64_t)sum;
}

static void account(struct ctx *c, size_t cell, uint64_t ns)
{
	if (!ns)
		return;
	c->cell_ns[cell] += ns;
	c->cell_n[cell]++;
	c->all_ns += ns;
	c->all_n++;
}

static bool stopping(const struct ctx *c)
{
	return c->r->stop && *c->r->stop;
}

/*
 * Wait for a child, honouring the sweep's stop flag (forwarded as the same signal when
 * forward is set; else the child is left to finish) and the timeout (SIGTERM). Either is
 * followed by SIGKILL after grace_ns. *why says what ended it early: 'S' stop, 'T' timeout.
 */
static void wait_child(struct ctx *c, struct iot_proc *p, uint64_t limit, bool forward, bool group,
                       uint64_t grace_ns, int *status, char *why)
{
	uint64_t signalled = 0;
	bool killed = false;

	*why = 0;
	while (!iot_proc_wait(p, TICK_MS, status)) {
		uint64_t now = iot_now_ns();
		int sig = 0;

		if (!signalled) {
			if (forward && stopping(c)) {
				sig = *c->r->stop;
				*why = 'S';
			} else if (limit && now - p->start_ns > limit) {
				sig = SIGTERM;
				*why = 'T';
			}
		} else if (!killed && now - signalled > grace_ns) {
			sig = SIGKILL;
			killed = true;
		}
		if (!sig)
			continue;
		if (!signalled)
			signalled = now;
		if (group)
			iot_proc_kill(p, sig);
		else
			kill(p->pid, sig);
	}
}

/* Run a shell command line (setup or teardown) with the run's environment, its output
 * appended to RUNDIR/log. The shell's status, or -errno. */
static int run_shell(struct ctx *c, const struct sweep_slot *s, const char *cmd, char **env,
                     const char *rundir, const char *log, bool stoppable, char *why,
                     struct iot_err *e)
{
	char *line = sweep_subst(c->d, s->cell, s->rep, rundir, cmd);
	char *argv[] = {"/bin/sh", "-c", line, NULL};
	struct iot_spawn_opts o = {.argv = argv,
	                           .envp = env,
	                           .new_pgrp = 1,
	                           /* a setup dies with the sweep; a teardown is left to clean up */
	                           .pdeathsig = stoppable ? SIGTERM : 0};
	struct iot_proc p;
	int st, ret;

	if (!line)
		return iot_err_set(e, -ENOMEM, "out of memory");
	o.fd_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	o.fd_out = o.fd_err = sweep_open_in(rundir, log, O_WRONLY | O_CREAT | O_APPEND);
	if (o.fd_out < 0) {
		ret = iot_err_set(e, -errno, "'%s/%s': %s", rundir, log, strerror(errno));
		goto out;
	}
	if ((ret = iot_spawn(&o, &p, e)))
		goto out;
	wait_child(c, &p, c->d->timeout_ns, stoppable, true, KILL_GRACE_NS, &st, why);
	ret = st;
out:
	if (o.fd_in >= 0)
		close(o.fd_in);
	if (o.fd_out >= 0)
		close(o.fd_out);
	free(line);
	return ret;
}

static int strv_push(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 2) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = s ? strdup(s) : NULL;
	if (s && !nv[*n])
		return -ENOMEM;
	nv[++*n] = NULL;
	return 0;
}

static void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* The argv of a run: the command, or `iotape capture ... -- command`. */
static char **run_argv(struct ctx *c, size_t cell, unsigned rep, const char *rundir)
{
	const struct sweep_def *d = c->d;
	size_t n = 0, idx[SWEEP_MAX_PARAMS];
	char **v = NULL, buf[PATH_MAX + 64];
	int bad = 0;

	if (d->capture) {
		bool hosts = d->hosts && d->hosts[0];

		/* a run set is a new directory of its own (capture --host never writes into one) */
		snprintf(buf, sizeof(buf), "%s%s", rundir, hosts ? "/" SWEEP_SET_DIR : "");
		bad |= strv_push(&v, &n, c->r->exe) || strv_push(&v, &n, "capture") ||
		       strv_push(&v, &n, "-o") || strv_push(&v, &n, buf);
		for (size_t i = 0; hosts && d->hosts[i]; i++) {
			char *h = sweep_subst(d, cell, rep, rundir, d->hosts[i]);

			bad |= !h || strv_push(&v, &n, "--host") || strv_push(&v, &n, h);
			free(h);
		}
		for (size_t i = 0; d->devs && d->devs[i]; i++) {
			char *dev = sweep_subst(d, cell, rep, rundir, d->devs[i]);

			bad |= !dev || strv_push(&v, &n, "-d") || strv_push(&v, &n, dev);
			free(dev);
		}
		if (d->iface)
			bad |= strv_push(&v, &n, "-i") || strv_push(&v, &n, d->iface);
		if (d->wait_tracer_ns) {
			/* another capture (another sweep, a user's) holding the tracer is waited
			 * for, not a reason to stop the sweep */
			snprintf(buf, sizeof(buf), "%llums",
			         (unsigned long long)(d->wait_tracer_ns / 1000000));
			bad |= strv_push(&v, &n, "--wait-tracer") || strv_push(&v, &n, buf);
		}
		for (size_t i = 0; d->capture_args && d->capture_args[i]; i++)
			bad |= strv_push(&v, &n, d->capture_args[i]);
		sweep_cell_index(d, cell, idx);
		for (size_t i = 0; i < d->nparams; i++) {
			snprintf(buf, sizeof(buf), "%s=%s", d->param[i].name,
			         d->param[i].v[idx[i]].text);
			bad |= strv_push(&v, &n, "--label") || strv_push(&v, &n, buf);
		}
		snprintf(buf, sizeof(buf), "rep=%u", rep);
		bad |= strv_push(&v, &n, "--label") || strv_push(&v, &n, buf);
		/* with --host, COMMAND's output is the capture's own (run_command()) */
		if (!hosts) {
			snprintf(buf, sizeof(buf), "%s/stdout", rundir);
			bad |= strv_push(&v, &n, "--stdout") || strv_push(&v, &n, buf);
			snprintf(buf, sizeof(buf), "%s/stderr", rundir);
			bad |= strv_push(&v, &n, "--stderr") || strv_push(&v, &n, buf);
		}
		bad |= strv_push(&v, &n, "--");
	}
	for (size_t i = 0; d->cmd[i]; i++) {
		char *a = sweep_subst(d, cell, rep, rundir, d->cmd[i]);

		bad |= !a || strv_push(&v, &n, a);
		free(a);
	}
	if (bad) {
		strv_free(v);
		return NULL;
	}
	return v;
}

/* The command (captured or not): fills exit_status, wall_ns and error. */
static enum run_end run_command(struct ctx *c, size_t cell, unsigned rep, char **env,
                                const char *rundir, struct sweep_result *res, struct iot_err *e)
{
	const struct sweep_def *d = c->d;
	bool hosts = d->hosts && d->hosts[0];
	struct iot_spawn_opts o = {.envp = env, .new_pgrp = 1};
	enum run_end end = RUN_OK;
	char **argv = run_argv(c, cell, rep, rundir);
	struct iot_proc p;
	char why;
	int st;

	if (!argv)
		return iot_err_set(e, -ENOMEM, "out of memory"), RUN_FATAL;
	o.argv = argv;
	o.fd_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (d->capture && !hosts) {
		/* the capture's own messages; the command's output goes to stdout and stderr. A
		 * sweep that dies takes the capture with it, which then ends cleanly (tracing
		 * off, manifest written) and takes the command along. */
		o.fd_out = o.fd_err =
		    sweep_open_in(rundir, "capture.log", O_WRONLY | O_CREAT | O_TRUNC);
		o.pdeathsig = SIGTERM;
	} else if (d->capture) {
		/* capture --host runs COMMAND with its own output (it takes no --stdout): the run's
		 * stdout, and stderr with the capture's messages; it stops every host on SIGTERM */
		o.fd_out = sweep_open_in(rundir, "stdout", O_WRONLY | O_CREAT | O_TRUNC);
		o.fd_err = sweep_open_in(rundir, "stderr", O_WRONLY | O_CREAT | O_TRUNC);
		o.pdeathsig = SIGTERM;
	} else {
		o.fd_out = sweep_open_in(rundir, "stdout", O_WRONLY | O_CREAT | O_TRUNC);
		o.fd_err = sweep_open_in(rundir, "stderr", O_WRONLY | O_CREAT | O_TRUNC);
		o.pdeathsig = SIGKILL;
	}
	if (o.fd_out < 0 || o.fd_err < 0 || o.fd_in < 0) {
		iot_err_set(e, -errno, "'%s': cannot create the output files: %s", rundir,
		            strerror(errno));
		end = RUN_FATAL;
		goto out;
	}
	if (iot_spawn(&o, &p, e)) {
		end = RUN_FATAL;
		goto out;
	}
	/* a capture forwards the signal to its command itself; a plain command's whole process
	 * group gets it */
	/* a capture's wait for a busy tracer is not the command's time */
	wait_child(c, &p,
	           d->timeout_ns && d->capture ? d->timeout_ns + d->wait_tracer_ns : d->timeout_ns,
	           true, !d->capture, d->capture ? CAPTURE_GRACE_NS : KILL_GRACE_NS, &st, &why);
	if (d->capture) {
		end = hosts ? sweep_set_outcome(rundir, st, why, res)
		            : sweep_capture_outcome(rundir, st, why, res);
		if (end == RUN_FATAL)
			iot_err_set(e, -EIO, "%s", res->error);
	} else {
		res->exit_status = st;
		res->wall_ns = iot_proc_wall_ns(&p);
		if (why == 'S')
			end = RUN_STOPPED;
		else if (p.exec_errno)
			snprintf(res->error, sizeof(res->error), "cannot run '%s': %s", argv[0],
			         strerror(p.exec_errno));
	}
	if (why == 'T' && end != RUN_FATAL) {
		snprintf(res->error, sizeof(res->error), "timed out after %.3g s (stopped)",
		         (double)d->timeout_ns / 1e9);
		end = RUN_FAILED;
	}
	if (end == RUN_OK && res->exit_status != 0) {
		if (!res->error[0])
			snprintf(res->error, sizeof(res->error),
			         "exit status %d (its output is in stdout and stderr)",
			         res->exit_status);
		end = RUN_FAILED;
	}
out:
	if (o.fd_in >= 0)
		close(o.fd_in);
	if (o.fd_out >= 0)
		close(o.fd_out);
	if (o.fd_err >= 0 && o.fd_err != o.fd_out)
		close(o.fd_err);
	strv_free(argv);
	return end;
}

static int metrics(struct ctx *c, const char *rundir, struct sweep_result *res)
{
	size_t outlen, errlen;
	char *out = sweep_slurp(rundir, "stdout", &outlen),
	     *err = sweep_slurp(rundir, "stderr", &errlen);
	int ret = 0;

	if (!out || !err) {
		snprintf(res->error, sizeof(res->error), "out of memory reading the output");
		ret = -ENOMEM;
	}
	for (size_t i = 0; !ret && i < c->d->nmetrics; i++) {
		struct iot_err me;
		double v;

		ret = sweep_metric_eval(&c->d->metric[i], out, outlen, err, errlen, c->r->stop, &v,
		                        &me);
		if (ret)
			snprintf(res->error, sizeof(res->error), "%s", me.msg);
		else
			json_object_set_new(res->metrics, c->d->metric[i].name, json_real(v));
	}
	free(out);
	free(err);
	return ret;
}

static int save(struct ctx *c, const char *rundir, const struct sweep_slot *s,
                struct sweep_result *res, struct iot_err *e)
{
	return sweep_result_save(rundir, c->d, s->cell, s->rep, res, e);
}

static void teardown(struct ctx *c, const struct sweep_slot *s, char **env, const char *rundir,
                     struct sweep_result *res)
{
	struct iot_err te;
	char why;
	int st;

	if (!c->d->teardown)
		return;
	st = run_shell(c, s, c->d->teardown, env, rundir, "teardown.log", false, &why, &te);
	if (res)
		res->teardown = st == 0 ? SWEEP_TD_OK : SWEEP_TD_FAILED;
	if (st < 0)
		notice(c, "teardown of '%s': %s", rundir, te.msg);
	else if (st)
		notice(c, "teardown of '%s' exited with status %d (see its teardown.log)", rundir,
		       st);
}

/* One run from start to end. RUN_STOPPED and RUN_FATAL leave no result: it runs again. */
static enum run_end run_one(struct ctx *c, const struct sweep_slot *s, size_t index,
                            const char *rundir, const char *cellpath, unsigned attempt,
                            struct sweep_result *res, struct iot_err *e)
{
	const struct sweep_def *d = c->d;
	struct sweep_event ev = {.kind = SWEEP_EV_START,
	                         .index = index,
	                         .total = c->nplan,
	                         .slot = s,
	                         .cell = cellpath,
	                         .rundir = rundir};
	uint64_t t0 = iot_now_ns();
	enum run_end end = RUN_OK;
	char **env = NULL, why = 0;
	int st;

	memset(res, 0, sizeof(*res));
	res->exit_status = -1;
	res->attempt = attempt;
	res->state = SWEEP_RUN_SETUP;
	res->metrics = json_object();
	if (iot_mkdir_p(rundir, e) || !res->metrics ||
	    !(env = sweep_env(d, s->cell, s->rep, c->dir, rundir))) {
		if (!env && !e->msg[0])
			iot_err_set(e, -ENOMEM, "out of memory");
		sweep_env_free(env);
		return RUN_FATAL;
	}
	if (save(c, rundir, s, res, e)) {
		sweep_env_free(env);
		return RUN_FATAL;
	}
	ev.eta_ns = eta(c);
	emit(c, &ev);
	if (d->setup) {
		st = run_shell(c, s, d->setup, env, rundir, "setup.log", true, &why, e);
		if (st < 0) {
			end = RUN_FATAL;
		} else if (why == 'S') {
			end = RUN_STOPPED;
		} else if (st) {
			snprintf(res->error, sizeof(res->error),
			         why == 'T' ? "setup timed out (see setup.log)"
			                    : "setup exited with status %d (see setup.log)",
			         st);
			end = RUN_FAILED;
		}
	}
	if (end == RUN_OK) {
		res->state = SWEEP_RUN_RUNNING;
		if (save(c, rundir, s, res, e))
			end = RUN_FATAL;
		else
			end = run_command(c, s->cell, s->rep, env, rundir, res, e);
	}
	if (end == RUN_OK && (st = metrics(c, rundir, res)))
		end = st == -EINTR ? RUN_STOPPED : RUN_FAILED; /* stopped: it runs again */
	if (end == RUN_OK || end == RUN_FAILED) {
		res->state = end == RUN_OK ? SWEEP_RUN_DONE : SWEEP_RUN_FAILED;
		res->teardown = d->teardown ? SWEEP_TD_PENDING : SWEEP_TD_NONE;
		res->run_ns = iot_now_ns() - t0;
		if (save(c, rundir, s, res, e))
			end = RUN_FATAL;
	}
	/* stopped or fatal: the teardown still undoes the setup, and the run is left without a
	 * result so that it runs again (its directory is moved aside then) */
	teardown(c, s, env, rundir, end == RUN_OK || end == RUN_FAILED ? res : NULL);
	if (end == RUN_OK || end == RUN_FAILED) {
		res->run_ns = iot_now_ns() - t0;
		if (save(c, rundir, s, res, e))
			end = RUN_FATAL;
	} else {
		char path[PATH_MAX];

		if ((size_t)snprintf(path, sizeof(path), "%s/" SWEEP_RESULT, rundir) < sizeof(path))
			unlink(path);
	}
	sweep_env_free(env);
	return end;
}

/* SWEEPDIR/CELL/rep-K, absolute. */
static int run_dir(const struct ctx *c, const struct sweep_slot *s, char *out, size_t cap,
                   struct iot_err *e)
{
	char rel[PATH_MAX];

	if (sweep_run_path(c->d, s->cell, s->rep, rel, sizeof(rel)) ||
	    (size_t)snprintf(out, cap, "%s/%s", c->dir, rel) >= cap)
		return iot_err_set(e, -ENAMETOOLONG,
		                   "'%s': the run directories' paths are too long", c->dir);
	return 0;
}

/* Keep an earlier attempt's directory, out of the way: rep-K.WHY-N. */
static int move_aside(struct ctx *c, const char *rundir, const char *why, struct iot_err *e)
{
	char to[PATH_MAX];

	for (unsigned n = 1; n < 100000; n++) {
		if ((size_t)snprintf(to, sizeof(to), "%s.%s-%u", rundir, why, n) >= sizeof(to))
			return iot_err_set(e, -ENAMETOOLONG, "'%s': path too long", rundir);
		if (access(to, F_OK) && errno == ENOENT)
			break;
	}
	if (rename(rundir, to))
		return iot_err_set(e, -errno, "cannot move '%s' aside: %s", rundir,
		                   strerror(errno));
	notice(c, "kept the %s attempt of '%s' as '%s'", why, rundir, to);
	return 0;
}

/* Is the run to be run (now), judging by what an earlier invocation left? */
static bool wants_run(const struct ctx *c, int load_ret, const struct sweep_result *res)
{
	if (load_ret)
		return true;
	if (res->state == SWEEP_RUN_DONE)
		return false;
	if (res->state == SWEEP_RUN_FAILED)
		return c->r->retry_failed;
	return true;
}

/* Before a run: finish what an earlier invocation left of it. 1: skip it, 0: run it. */
static int prepare(struct ctx *c, const struct sweep_slot *s, size_t index, const char *rundir,
                   const char *cellpath, unsigned *attempt, struct iot_err *e)
{
	struct sweep_result old;
	struct iot_err le;
	struct stat st;
	int ret = sweep_result_load(rundir, &old, &le);

	*attempt = 1;
	if (ret == -ENOENT || ret == -ENOTDIR) {
		/* killed before its first result: whatever it left goes aside */
		if (!stat(rundir, &st))
			return move_aside(c, rundir, "interrupted", e);
		return 0;
	}
	if (ret) {
		notice(c, "%s; running it again", le.msg);
		return move_aside(c, rundir, "unreadable", e);
	}
	*attempt = old.attempt + 1;
	if (old.teardown == SWEEP_TD_PENDING || old.state == SWEEP_RUN_SETUP ||
	    old.state == SWEEP_RUN_RUNNING) {
		/* killed between setup and teardown: undo the setup before anything else */
		char **env = sweep_env(c->d, s->cell, s->rep, c->dir, rundir);

		if (c->d->teardown)
			notice(c, "running the teardown an interrupted run of '%s' left undone",
			       cellpath);
		teardown(c, s, env, rundir, &old);
		sweep_env_free(env);
		if (old.state == SWEEP_RUN_DONE || old.state == SWEEP_RUN_FAILED)
			if ((ret = save(c, rundir, s, &old, e))) {
				sweep_result_release(&old);
				return ret;
			}
	}
	if (!wants_run(c, 0, &old)) {
		struct sweep_event ev = {.kind = SWEEP_EV_SKIP,
		                         .index = index,
		                         .total = c->nplan,
		                         .slot = s,
		                         .cell = cellpath,
		                         .rundir = rundir,
		                         .result = &old};

		emit(c, &ev);
		sweep_result_release(&old);
		return 1;
	}
	ret = move_aside(c, rundir, old.state == SWEEP_RUN_FAILED ? "failed" : "interrupted", e);
	sweep_result_release(&old);
	return ret;
}

/* What earlier invocations did: counts and times for the ETA; which runs are left. */
static int survey(struct ctx *c, struct iot_err *e)
{
	c->cell_ns = calloc(c->ncells, sizeof(*c->cell_ns));
	c->cell_n = calloc(c->ncells, sizeof(*c->cell_n));
	c->cell_left = calloc(c->ncells, sizeof(*c->cell_left));
	if (!c->cell_ns || !c->cell_n || !c->cell_left)
		return iot_err_set(e, -ENOMEM, "out of memory");
	for (size_t i = 0; i < c->nplan; i++) {
		const struct sweep_slot *s = &c->plan[i];
		char rundir[PATH_MAX];
		struct sweep_result res;
		int ret;

		if ((ret = run_dir(c, s, rundir, sizeof(rundir), e)))
			return ret;
		ret = sweep_result_load(rundir, &res, NULL);
		if (wants_run(c, ret, &res)) {
			c->cell_left[s->cell]++;
			c->left++;
		} else {
			account(c, s->cell, res.run_ns);
		}
		if (!ret)
			sweep_result_release(&res);
	}
	return 0;
}

static void count_totals(struct ctx *c)
{
	c->r->total_done = c->r->total_failed = 0;
	for (size_t i = 0; i < c->nplan; i++) {
		char rundir[PATH_MAX];
		struct sweep_result res;

		if (run_dir(c, &c->plan[i], rundir, sizeof(rundir), NULL))
			continue;
		if (sweep_result_load(rundir, &res, NULL))
			continue;
		c->r->total_done += res.state == SWEEP_RUN_DONE;
		c->r->total_failed += res.state == SWEEP_RUN_FAILED;
		sweep_result_release(&res);
	}
}

int sweep_run(struct sweep_runner *r, struct iot_err *e)
{
	struct ctx c = {.r = r, .d = r->def, .t0 = iot_now_ns()};
	int ret;

	r->ran = r->failed = r->skipped = 0;
	if (!realpath(r->dir, c.dir))
		return iot_err_set(e, -errno, "'%s': %s", r->dir, strerror(errno));
	c.ncells = sweep_ncells(c.d);
	if ((ret = sweep_plan(c.d, &c.plan, &c.nplan, e)) || (ret = survey(&c, e)))
		goto out;
	for (size_t i = 0; i < c.nplan; i++) {
		const struct sweep_slot *s = &c.plan[i];
		char rundir[PATH_MAX], cellpath[PATH_MAX];
		struct sweep_result res;
		struct sweep_event ev = {.kind = SWEEP_EV_END,
		                         .index = i + 1,
		                         .total = c.nplan,
		                         .slot = s,
		                         .cell = cellpath,
		                         .rundir = rundir,
		                         .result = &res};
		enum run_end end;
		unsigned attempt;

		if (stopping(&c)) {
			ret = -EINTR;
			break;
		}
		sweep_cell_path(c.d, s->cell, cellpath, sizeof(cellpath));
		if ((ret = run_dir(&c, s, rundir, sizeof(rundir), e)))
			break;
		ret = prepare(&c, s, i + 1, rundir, cellpath, &attempt, e);
		if (ret == 1) {
			r->skipped++;
			ret = 0;
			continue;
		}
		if (ret)
			break;
		e->msg[0] = 0;
		end = run_one(&c, s, i + 1, rundir, cellpath, attempt, &res, e);
		if (end == RUN_STOPPED) {
			sweep_result_release(&res);
			ret = -EINTR;
			break;
		}
		if (end == RUN_FATAL) {
			sweep_result_release(&res);
			ret = -EIO;
			break;
		}
		r->ran++;
		r->failed += end == RUN_FAILED;
		c.cell_left[s->cell]--;
		c.left--;
		account(&c, s->cell, res.run_ns);
		ev.eta_ns = eta(&c);
		emit(&c, &ev);
		sweep_result_release(&res);
	}
	count_totals(&c);
out:
	free(c.plan);
	free(c.cell_ns);
	free(c.cell_n);
	free(c.cell_left);
	return ret;
}
