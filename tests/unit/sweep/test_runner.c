/* SPDX-License-Identifier: MIT */
/* Unit tests for sweep/runner.c with plain (uncaptured) shell commands: results, failures,
 * stop and resume, a run killed half-way, timeouts, setup and teardown. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/fs.h"
#include "sweep/sweep.h"
#include "../tmpdir.h"

static int nsweep;

struct events {
	int start, end, skip, notice;
	int stop_at; /* set the stop flag when this run starts (1-based count of starts) */
	volatile sig_atomic_t stop;
};

static void on_event(void *arg, const struct sweep_event *ev)
{
	struct events *x = arg;

	switch (ev->kind) {
	case SWEEP_EV_START:
		if (++x->start == x->stop_at)
			x->stop = SIGTERM;
		break;
	case SWEEP_EV_END:
		x->end++;
		break;
	case SWEEP_EV_SKIP:
		x->skip++;
		break;
	case SWEEP_EV_NOTICE:
		x->notice++;
		break;
	}
}

/* a fresh sweep directory with the definition: --param x=LIST -- sh -c SCRIPT */
static void make(struct sweep_def *d, char *dir, size_t cap, const char *values, unsigned reps,
                 const char *script)
{
	struct iot_err e = {""};

	snprintf(dir, cap, "%s/s%d", tmpdir, ++nsweep);
	sweep_def_init(d);
	assert_int_equal(sweep_param_parse(values, &d->param[0], &e), 0);
	d->nparams = 1;
	d->reps = reps;
	d->capture = false;
	d->cmd = calloc(4, sizeof(char *));
	d->cmd[0] = strdup("sh");
	d->cmd[1] = strdup("-c");
	d->cmd[2] = strdup(script);
	d->seed = 7;
	if (sweep_create(dir, d, &e))
		fail_msg("%s", e.msg);
}

static int run(const char *dir, const struct sweep_def *d, struct events *x, bool retry,
               struct sweep_runner *out)
{
	struct sweep_runner r = {.dir = dir,
	                         .def = d,
	                         .exe = "/bin/false",
	                         .retry_failed = retry,
	                         .stop = &x->stop,
	                         .event = on_event,
	                         .arg = x};
	struct iot_err e = {""};
	int ret = sweep_run(&r, &e);

	if (ret && ret != -EINTR)
		fail_msg("sweep_run: %d %s", ret, e.msg);
	if (out)
		*out = r;
	return ret;
}

static int lines(const char *path)
{
	FILE *f = fopen(path, "r");
	int n = 0, c;

	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static int count_line(const char *path, const char *want)
{
	char line[256];
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n += !strcmp(line, want);
	fclose(f);
	return n;
}

static struct sweep_result load(const char *dir, const char *run)
{
	struct sweep_result r;
	struct iot_err e = {""};
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", dir, run);
	if (sweep_result_load(p, &r, &e))
		fail_msg("%s", e.msg);
	return r;
}

static bool exists(const char *dir, const char *name)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return !access(p, F_OK);
}

static void test_results(void **state)
{
	struct sweep_def d;
	struct events x = {0};
	struct sweep_runner r;
	struct sweep_result res;
	struct iot_err e;
	char dir[128];

	(void)state;
	/* x=3 fails; every run's output, status, time and metric are kept */
	make(&d, dir, sizeof(dir), "x=1,2,3", 2,
	     "echo \"value {x}{rep} $x $IOTAPE_SWEEP_REP\"; echo warn >&2; [ {x} != 3 ]");
	d.metric = calloc(1, sizeof(*d.metric));
	assert_int_equal(sweep_metric_parse("v=value ([0-9]+)", &d.metric[0], &e), 0);
	d.nmetrics = 1;
	assert_int_equal(run(dir, &d, &x, false, &r), 0);
	assert_int_equal(r.ran, 6);
	assert_int_equal(r.failed, 2);
	assert_int_equal(r.total_done, 4);
	assert_int_equal(r.total_failed, 2);
	assert_int_equal(x.start, 6);
	assert_int_equal(x.end, 6);
	res = load(dir, "x=2/rep-2");
	assert_int_equal(res.state, SWEEP_RUN_DONE);
	assert_int_equal(res.exit_status, 0);
	assert_true(res.wall_ns > 0 && res.run_ns >= res.wall_ns);
	assert_true(json_number_value(json_object_get(res.metrics, "v")) == 22);
	sweep_result_release(&res);
	assert_int_equal(count_line("/dev/null", ""), 0);
	{
		char p[256];

		snprintf(p, sizeof(p), "%s/x=2/rep-2/stdout", dir);
		assert_int_equal(count_line(p, "value 22 2 2\n"), 1);
		snprintf(p, sizeof(p), "%s/x=2/rep-2/stderr", dir);
		assert_int_equal(count_line(p, "warn\n"), 1);
	}
	res = load(dir, "x=3/rep-1");
	assert_int_equal(res.state, SWEEP_RUN_FAILED);
	assert_int_equal(res.exit_status, 1);
	assert_non_null(strstr(res.error, "exit status 1"));
	sweep_result_release(&res);

	/* again: nothing runs; failed runs are reported, not run */
	memset(&x, 0, sizeof(x));
	assert_int_equal(run(dir, &d, &x, false, &r), 0);
	assert_int_equal(r.ran, 0);
	assert_int_equal(x.skip, 6);
	assert_int_equal(r.total_failed, 2);
	/* --retry-failed: only those, the earlier attempt kept aside */
	memset(&x, 0, sizeof(x));
	assert_int_equal(run(dir, &d, &x, true, &r), 0);
	assert_int_equal(r.ran, 2);
	assert_true(exists(dir, "x=3/rep-1.failed-1/result.json"));
	res = load(dir, "x=3/rep-1");
	assert_int_equal(res.attempt, 2);
	sweep_result_release(&res);
	sweep_def_release(&d);
}

static void test_stop_resume(void **state)
{
	struct sweep_def d;
	struct events x = {.stop_at = 3};
	struct sweep_runner r;
	char dir[128], log[160], want[96];
	size_t n;
	struct sweep_slot *plan;
	struct iot_err e;

	(void)state;
	make(&d, dir, sizeof(dir), "x=a,b,c", 2,
	     "echo \"$IOTAPE_SWEEP_CELL {rep}\" >> \"$IOTAPE_SWEEP_DIR/ran\"; sleep 0.5");
	d.teardown = strdup("echo td >> \"$IOTAPE_SWEEP_DIR/td\"");
	d.timeout_ns = 0;
	/* the stop comes while the third run's command sleeps: it gets the signal, is left
	 * without a result, and its teardown runs */
	assert_int_equal(run(dir, &d, &x, false, &r), -EINTR);
	assert_int_equal(r.ran, 2);
	snprintf(log, sizeof(log), "%s/ran", dir);
	assert_int_equal(lines(log), 3);
	snprintf(log, sizeof(log), "%s/td", dir);
	assert_int_equal(lines(log), 3);
	assert_int_equal(sweep_plan(&d, &plan, &n, &e), 0);
	{
		char rel[128], p[256];
		struct sweep_result res;

		sweep_run_path(&d, plan[2].cell, plan[2].rep, rel, sizeof(rel));
		snprintf(p, sizeof(p), "%s/%s", dir, rel);
		assert_int_equal(sweep_result_load(p, &res, &e), -ENOENT);
	}
	/* resume: the rest, the stopped run again, no finished run twice */
	memset(&x, 0, sizeof(x));
	assert_int_equal(run(dir, &d, &x, false, &r), 0);
	assert_int_equal(r.ran, 4);
	assert_int_equal(r.total_done, 6);
	snprintf(log, sizeof(log), "%s/ran", dir);
	assert_int_equal(lines(log), 7);
	for (size_t i = 0; i < n; i++) {
		char cell[64];

		sweep_cell_path(&d, plan[i].cell, cell, sizeof(cell));
		snprintf(want, sizeof(want), "%s %u\n", cell, plan[i].rep);
		assert_int_equal(count_line(log, want), i == 2 ? 2 : 1);
	}
	free(plan);
	sweep_def_release(&d);
}

/* What a SIGKILL leaves: a run in "running" (its teardown never ran), and a finished run
 * whose teardown was pending. Resuming undoes both setups first. */
static void test_killed(void **state)
{
	struct sweep_def d;
	struct events x = {0};
	struct sweep_runner r;
	struct sweep_result res = {0};
	struct iot_err e;
	char dir[128], p[256];

	(void)state;
	make(&d, dir, sizeof(dir), "x=a,b", 1, "echo \"{x}\" >> \"$IOTAPE_SWEEP_DIR/ran\"");
	d.teardown = strdup("echo \"{x}\" >> \"$IOTAPE_SWEEP_DIR/td\"");
	snprintf(p, sizeof(p), "%s/x=a/rep-1", dir);
	assert_int_equal(iot_mkdir_p(p, &e), 0);
	snprintf(p, sizeof(p), "%s/x=b/rep-1", dir);
	assert_int_equal(iot_mkdir_p(p, &e), 0);
	res.state = SWEEP_RUN_RUNNING;
	res.exit_status = -1;
	snprintf(p, sizeof(p), "%s/x=a/rep-1", dir);
	assert_int_equal(sweep_result_save(p, &d, 0, 1, &res, &e), 0);
	res.state = SWEEP_RUN_DONE;
	res.teardown = SWEEP_TD_PENDING;
	snprintf(p, sizeof(p), "%s/x=b/rep-1", dir);
	assert_int_equal(sweep_result_save(p, &d, 1, 1, &res, &e), 0);
	assert_int_equal(run(dir, &d, &x, false, &r), 0);
	assert_int_equal(r.ran, 1);
	assert_int_equal(x.skip, 1);
	snprintf(p, sizeof(p), "%s/ran", dir);
	assert_int_equal(count_line(p, "a\n"), 1);
	assert_int_equal(count_line(p, "b\n"), 0);
	/* a's teardown for the killed attempt and for the new run, b's once */
	snprintf(p, sizeof(p), "%s/td", dir);
	assert_int_equal(count_line(p, "a\n"), 2);
	assert_int_equal(count_line(p, "b\n"), 1);
	assert_true(exists(dir, "x=a/rep-1.interrupted-1/result.json"));
	res = load(dir, "x=b/rep-1");
	assert_int_equal(res.teardown, SWEEP_TD_OK);
	sweep_result_release(&res);
	sweep_def_release(&d);
}

static void test_failures(void **state)
{
	struct sweep_def d;
	struct events x = {0};
	struct sweep_runner r;
	struct sweep_result res;
	char dir[128];

	(void)state;
	/* a command that runs too long, a setup that fails, a command that cannot run */
	make(&d, dir, sizeof(dir), "x=slow,badsetup,ok", 1,
	     "if [ {x} = slow ]; then sleep 20; fi; echo ran > \"$IOTAPE_SWEEP_RUN/mark\"");
	d.timeout_ns = 300000000ull;
	d.setup = strdup("[ {x} != badsetup ] || { echo broken; exit 3; }");
	d.teardown = strdup("echo td");
	assert_int_equal(run(dir, &d, &x, false, &r), 0);
	assert_int_equal(r.failed, 2);
	res = load(dir, "x=slow/rep-1");
	assert_int_equal(res.state, SWEEP_RUN_FAILED);
	assert_non_null(strstr(res.error, "timed out"));
	assert_true(res.wall_ns < 10000000000ull);
	sweep_result_release(&res);
	res = load(dir, "x=badsetup/rep-1");
	assert_non_null(strstr(res.error, "setup exited with status 3"));
	assert_int_equal(res.exit_status, -1);
	assert_int_equal(res.teardown, SWEEP_TD_OK);
	sweep_result_release(&res);
	assert_false(exists(dir, "x=badsetup/rep-1/mark"));
	assert_true(exists(dir, "x=badsetup/rep-1/setup.log"));
	assert_true(exists(dir, "x=ok/rep-1/mark"));
	sweep_def_release(&d);

	make(&d, dir, sizeof(dir), "x=1", 1, "true");
	free(d.cmd[0]);
	d.cmd[0] = strdup("iotape-no-such-command");
	memset(&x, 0, sizeof(x));
	assert_int_equal(run(dir, &d, &x, false, &r), 0);
	res = load(dir, "x=1/rep-1");
	assert_int_equal(res.exit_status, 127);
	assert_non_null(strstr(res.error, "cannot run"));
	sweep_result_release(&res);
	sweep_def_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_results),
	    cmocka_unit_test(test_stop_resume),
	    cmocka_unit_test(test_killed),
	    cmocka_unit_test(test_failures),
	};

	return tmpdir_status(cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown));
}
