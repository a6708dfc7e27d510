/* SPDX-License-Identifier: MIT */
/* A small sweep on disk for the tests of what reads one (sweep/runs.c, report/sweep_page.c). */
#ifndef IOTAPE_TESTS_UNIT_SWEEP_FIXTURE_H
#define IOTAPE_TESTS_UNIT_SWEEP_FIXTURE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "sweep/runs.h"

/* A sweep made at DIR: fs=ext4,xfs x bs=4k,64k; cells 0 and 2 done (metric bw 10 and 30, wall
 * 2 s and 6 s), 1 failed ("exit status 1"), 3 not run. HOSTS: captured on h1 and h2 (packets
 * only), else no capture. */
static inline void make_sweep_hosts(const char *dir, bool hosts)
{
	static const enum sweep_run_state st[] = {SWEEP_RUN_DONE, SWEEP_RUN_FAILED, SWEEP_RUN_DONE};
	struct sweep_def d;
	struct iot_err e;
	char rel[256], p[512];

	sweep_def_init(&d);
	assert_int_equal(sweep_param_parse("fs=ext4,xfs", &d.param[0], &e), 0);
	assert_int_equal(sweep_param_parse("bs=4k,64k", &d.param[1], &e), 0);
	d.nparams = 2;
	d.capture = hosts;
	d.cmd = calloc(2, sizeof(char *));
	d.cmd[0] = strdup("true");
	if (hosts) {
		d.hosts = calloc(3, sizeof(char *));
		d.hosts[0] = strdup("h1::eth0");
		d.hosts[1] = strdup("h2::eth0");
	}
	assert_int_equal(sweep_create(dir, &d, &e), 0);
	for (size_t cell = 0; cell < 3; cell++) {
		struct sweep_result r = {.state = st[cell], .exit_status = cell == 1 ? 1 : 0};

		r.wall_ns = 2000000000ull * (cell + 1);
		r.metrics = json_pack("{s:f}", "bw", 10.0 * (double)(cell + 1));
		if (cell == 1)
			snprintf(r.error, sizeof(r.error), "exit status 1");
		assert_int_equal(sweep_run_path(&d, cell, 1, rel, sizeof(rel)), 0);
		snprintf(p, sizeof(p), "%s/%s", dir, rel);
		assert_int_equal(iot_mkdir_p(p, &e), 0);
		assert_int_equal(sweep_result_save(p, &d, cell, 1, &r, &e), 0);
		json_decref(r.metrics);
	}
	sweep_def_release(&d);
}

static inline void make_sweep(const char *dir)
{
	make_sweep_hosts(dir, false);
}

/* sweep_runs_load()'s loader for a sweep without capture: never called */
static inline int no_load(void *ctx, const char *rundir, struct sweep_cell_runs *out)
{
	(void)ctx, (void)rundir, (void)out;
	fail_msg("a sweep without capture has no analysis to load");
	return 1;
}

#endif
