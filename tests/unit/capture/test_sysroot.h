/* SPDX-License-Identifier: MIT */
/* A hand-built system root (sysfs, /dev links, mountinfo, OSD directories) in the test
 * program's tmpdir, for the tests of what capture/ reads from one. */
#ifndef IOTAPE_TEST_SYSROOT_H
#define IOTAPE_TEST_SYSROOT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../tmpdir.h"

/* tmpdir/REL holding TEXT, its directories made */
static inline void put(const char *rel, const char *text)
{
	char p[640], cmd[720]; /* tmpdir (64) and a 512-byte rel fit */
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", tmpdir, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
	assert_int_equal(system(cmd), 0);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* tmpdir/REL a symbolic link to TARGET, its directories made */
static inline void link_to(const char *rel, const char *target)
{
	char p[640], cmd[720];

	snprintf(p, sizeof(p), "%s/%s", tmpdir, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(symlink(target, p), 0);
}

#endif
