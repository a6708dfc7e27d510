/* SPDX-License-Identifier: MIT */
/* A unit test program's temporary directory: made before its tests, removed after them. */
#ifndef IOTAPE_TESTS_UNIT_TMPDIR_H
#define IOTAPE_TESTS_UNIT_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char tmpdir[64];

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
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd);
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
