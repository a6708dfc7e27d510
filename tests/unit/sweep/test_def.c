/* SPDX-License-Identifier: MIT */
/* Unit tests for sweep/def.c: sweep.json both ways, cells, paths, the plan, substitution. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sweep/sweep.h"

static char *strv_dup1(const char *s)
{
	return strdup(s);
}

/* fs=ext4,xfs,btrfs x bs=4k,128k, 2 reps, fio-like command */
static void make_def(struct sweep_def *d)
{
	struct iot_err e;

	sweep_def_init(d);
	assert_int_equal(sweep_param_parse("fs=ext4,xfs,btrfs", &d->param[0], &e), 0);
	assert_int_equal(sweep_param_parse("bs=4k,128k", &d->param[1], &e), 0);
	d->nparams = 2;
	d->reps = 2;
	d->cmd = calloc(4, sizeof(char *));
	d->cmd[0] = strv_dup1("fio");
	d->cmd[1] = strv_dup1("--bs={bs}");
	d->cmd[2] = strv_dup1("--filename={run}/f.{fs}.{rep}");
	d->devs = calloc(2, sizeof(char *));
	d->devs[0] = strv_dup1("/dev/loop{rep}");
	d->setup = strv_dup1("mkfs.{fs} -q /dev/x && awk '{print $1}' /proc/mounts");
	d->metric = calloc(1, sizeof(*d->metric));
	assert_int_equal(sweep_metric_parse("bw:KiB/s=json:jobs[0].write.bw", &d->metric[0], &e),
	                 0);
	d->nmetrics = 1;
	d->seed = 42;
}

static void test_cells(void **state)
{
	struct sweep_def d;
	size_t idx[SWEEP_MAX_PARAMS];
	char buf[256];
	json_t *p;

	(void)state;
	make_def(&d);
	assert_int_equal(sweep_ncells(&d), 6);
	/* the first parameter varies slowest */
	sweep_cell_index(&d, 3, idx);
	assert_int_equal(idx[0], 1);
	assert_int_equal(idx[1], 1);
	assert_int_equal(sweep_cell_path(&d, 3, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "fs=xfs/bs=128k");
	assert_int_equal(sweep_run_path(&d, 5, 2, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "fs=btrfs/bs=128k/rep-2");
	assert_int_equal(sweep_run_path(&d, 5, 2, buf, 10), -ENAMETOOLONG);
	p = sweep_cell_params(&d, 4);
	assert_string_equal(json_string_value(json_object_get(p, "fs")), "btrfs");
	assert_string_equal(json_string_value(json_object_get(p, "bs")), "4k");
	json_decref(p);
	sweep_def_release(&d);
	/* no parameters: one cell, runs straight under the sweep directory */
	sweep_def_init(&d);
	assert_int_equal(sweep_ncells(&d), 1);
	assert_int_equal(sweep_run_path(&d, 0, 3, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "rep-3");
}

static void test_subst_env(void **state)
{
	struct sweep_def d;
	char *s, **env;
	int seen = 0;

	(void)state;
	make_def(&d);
	s = sweep_subst(&d, 1, 2, "/s/fs=ext4/bs=128k/rep-2", d.cmd[2]);
	assert_string_equal(s, "--filename=/s/fs=ext4/bs=128k/rep-2/f.ext4.2");
	free(s);
	/* a shell's braces that name no parameter stay as they are */
	s = sweep_subst(&d, 2, 1, "/r", d.setup);
	assert_string_equal(s, "mkfs.xfs -q /dev/x && awk '{print $1}' /proc/mounts");
	free(s);
	s = sweep_subst(&d, 0, 1, "/r", "{fs}{bs}{unknown}{}{fs");
	assert_string_equal(s, "ext44k{unknown}{}{fs");
	free(s);
	setenv("fs", "from-outside", 1);
	setenv("IOTAPE_SWEEP_REP", "99", 1);
	env = sweep_env(&d, 5, 2, "/s", "/s/fs=btrfs/bs=128k/rep-2");
	assert_non_null(env);
	for (char **v = env; *v; v++) {
		if (!strncmp(*v, "fs=", 3)) {
			assert_string_equal(*v, "fs=btrfs");
			seen |= 1;
		}
		if (!strncmp(*v, "IOTAPE_SWEEP_REP=", 17)) {
			assert_string_equal(*v, "IOTAPE_SWEEP_REP=2");
			seen |= 2;
		}
		if (!strncmp(*v, "IOTAPE_SWEEP_CELL=", 18)) {
			assert_string_equal(*v, "IOTAPE_SWEEP_CELL=fs=btrfs/bs=128k");
			seen |= 4;
		}
		if (!strncmp(*v, "PATH=", 5))
			seen |= 8;
	}
	assert_int_equal(seen, 15);
	sweep_env_free(env);
	unsetenv("fs");
	unsetenv("IOTAPE_SWEEP_REP");
	sweep_def_release(&d);
}

static void check_plan(const struct sweep_def *d, const struct sweep_slot *s, size_t n)
{
	size_t cells = sweep_ncells(d);
	char *seen = calloc(cells * d->reps, 1);

	assert_int_equal(n, cells * d->reps);
	for (size_t i = 0; i < n; i++) {
		assert_true(s[i].cell < cells);
		assert_true(s[i].rep >= 1 && s[i].rep <= d->reps);
		assert_false(seen[s[i].cell * d->reps + s[i].rep - 1]);
		seen[s[i].cell * d->reps + s[i].rep - 1] = 1;
	}
	free(seen);
}

static void test_plan(void **state)
{
	struct sweep_def d;
	struct sweep_slot *a, *b;
	struct iot_err e;
	size_t n, m;
	int differs = 0, same_order_rounds = 1;

	(void)state;
	make_def(&d);
	d.reps = 5;
	/* shuffled: every run once, round by round, each round every cell once, and the same
	 * seed gives the same order */
	assert_int_equal(sweep_plan(&d, &a, &n, &e), 0);
	check_plan(&d, a, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(a[i].round, i / 6 + 1);
		assert_int_equal(a[i].rep, a[i].round);
		if (i >= 6 && a[i].cell != a[i - 6].cell)
			same_order_rounds = 0;
	}
	assert_false(same_order_rounds);
	assert_int_equal(sweep_plan(&d, &b, &m, &e), 0);
	assert_memory_equal(a, b, n * sizeof(*a));
	free(b);
	d.seed = 43;
	assert_int_equal(sweep_plan(&d, &b, &m, &e), 0);
	for (size_t i = 0; i < n; i++)
		differs |= a[i].cell != b[i].cell;
	assert_true(differs);
	free(a);
	free(b);
	/* rounds: matrix order in every round */
	d.order = SWEEP_ORDER_ROUNDS;
	assert_int_equal(sweep_plan(&d, &a, &n, &e), 0);
	check_plan(&d, a, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(a[i].cell, i % 6);
	free(a);
	/* sequential: every repetition of a cell, then the next cell */
	d.order = SWEEP_ORDER_SEQUENTIAL;
	assert_int_equal(sweep_plan(&d, &a, &n, &e), 0);
	check_plan(&d, a, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(a[i].cell, i / 5);
		assert_int_equal(a[i].rep, i % 5 + 1);
	}
	free(a);
	sweep_def_release(&d);
}

static void test_json(void **state)
{
	struct sweep_def d, back;
	struct iot_err e = {""};
	json_t *j, *j2;
	char *t1, *t2;

	(void)state;
	make_def(&d);
	d.order = SWEEP_ORDER_SEQUENTIAL;
	d.timeout_ns = 5000000000ull;
	j = sweep_def_to_json(&d);
	if (sweep_def_from_json(j, &back, &e))
		fail_msg("%s", e.msg);
	j2 = sweep_def_to_json(&back);
	t1 = json_dumps(j, JSON_SORT_KEYS);
	t2 = json_dumps(j2, JSON_SORT_KEYS);
	assert_string_equal(t1, t2);
	assert_int_equal(back.order, SWEEP_ORDER_SEQUENTIAL);
	assert_true(back.param[1].v[1].num == 131072);
	assert_true(back.param[1].log);
	assert_int_equal(back.metric[0].kind, SWEEP_METRIC_JSON);
	assert_string_equal(back.metric[0].name, "bw");
	assert_string_equal(back.metric[0].unit, "KiB/s"); /* kept in sweep.json */
	free(t1);
	free(t2);
	json_decref(j2);
	sweep_def_release(&back);
	/* damaged documents are refused with a reason */
	json_object_set_new(j, "reps", json_integer(0));
	assert_int_equal(sweep_def_from_json(j, &back, &e), -EINVAL);
	sweep_def_release(&back);
	json_object_set_new(j, "reps", json_integer(2));
	json_object_set_new(j, "format", json_string("iotape-run"));
	assert_int_equal(sweep_def_from_json(j, &back, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "not an iotape sweep"));
	sweep_def_release(&back);
	json_decref(j);
	sweep_def_release(&d);
}

static void test_check(void **state)
{
	struct sweep_def d;
	struct iot_err e;

	(void)state;
	make_def(&d);
	assert_int_equal(sweep_def_check(&d, &e), 0);
	/* a capture needs something to trace */
	free(d.devs[0]);
	d.devs[0] = NULL;
	assert_int_equal(sweep_def_check(&d, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "--no-capture"));
	d.capture = false;
	assert_int_equal(sweep_def_check(&d, &e), 0);
	d.iface = strdup("lo");
	assert_int_equal(sweep_def_check(&d, &e), -EINVAL);
	free(d.iface);
	d.iface = NULL;
	snprintf(d.param[1].name, sizeof(d.param[1].name), "fs");
	assert_int_equal(sweep_def_check(&d, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "given twice"));
	sweep_def_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cells), cmocka_unit_test(test_subst_env),
	    cmocka_unit_test(test_plan),  cmocka_unit_test(test_json),
	    cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
