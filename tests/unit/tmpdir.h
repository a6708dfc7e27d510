/* SPDX-License-Identifier: MIT */
/* A unit test program's temporary directory: made before its tests, removed after them. */
#ifndef IOTAPE_TESTS_UNIT_TMPDIR_H
#define IOTAPE_TESTS_UNIT_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char tmpdir[64];
static int tmpdir_left; /* 1: tmpdir_teardown() could not remove it */

/* cmocka group setup and teardown: tmpdir made, then removed with all it holds */
static int tmpdir_setup(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/iotape-ut-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int tmpdir_teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	tmpdir_left = system(cmd) != 0;
	return tmpdir_left ? -1 : 0;
}

/* main()'s status after cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown): its
 * count of failures, or 1 where tmpdir was left behind (cmocka reports a group teardown that
 * failed, but does not count it) */
static inline int tmpdir_status(int failed)
{
	return failed ? failed : tmpdir_left;
}

/* tmpdir/NAME, in one of four static buffers (valid for the next three calls too) */
static inline const char *tpath(const char *name)
{
	static char path[4][256];
	static unsigned k;

	k = (k + 1) % 4;
	snprintf(path[k], sizeof(path[k]), "%s/%s", tmpdir, name);
	return path[k];
}

#endif
