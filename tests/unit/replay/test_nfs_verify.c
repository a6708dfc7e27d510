/* SPDX-License-Identifier: MIT */
/* --verify (replay/nfs_verify.c): two hand-made trees, a difference of every kind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/nfs_replay.h"

static char dir[64];

static void put(const char *tree, const char *name, const char *data, mode_t mode)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s/%s", dir, tree, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(data, f);
	fclose(f);
	assert_int_equal(chmod(p, mode), 0);
}

static void sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

/* Both trees: the same in a/same, sub/deep, link, fifo; the replay's differs in every way
 * the check looks at. */
static void test_differences(void **state)
{
	char a[128], b[128];
	struct nfs_verify_result r;
	struct iot_err e = {{0}};
	const char *want[] = {
	    "content: another content",
	    "extra: not in the reference",
	    "gone: missing",
	    "links: 3 links, the reference's 2",
	    "mode: mode 0600",
	    "size: 4 bytes",
	    "sym: links to 'x'",
	    "type: a directory",
	};

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/iotape-verify-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	sh("mkdir -p %s/sub/deep %s/sub/deep", a, b);
	for (int i = 0; i < 2; i++) {
		const char *t = i ? "b" : "a";

		put(t, "same", "same bytes", 0644);
		put(t, "sub/deep/f", "deep", 0640);
		put(t, "content", i ? "abcd" : "abce", 0644);
		put(t, "mode", "m", i ? 0644 : 0600);
		put(t, "size", i ? "12345" : "1234", 0644);
		put(t, "links", "l", 0644);
		sh("ln -s %s %s/%s/sym", i ? "y" : "x", dir, t);
		sh("ln -s f %s/%s/samelink", dir, t);
		sh("mkfifo %s/%s/fifo", dir, t);
	}
	sh("ln %s/links %s/links2 && ln %s/links %s/links2", a, a, b, b);
	sh("ln %s/links %s/links3", a, a);
	put("a", "extra", "e", 0644);
	put("b", "gone", "g", 0644);
	sh("mkdir %s/type && touch %s/type", a, b);
	sh("chmod 0644 %s/links3 %s/type", a, b);
	assert_int_equal(nfs_replay_verify(a, b, &r, &e), 0);
	/* links and links2 name the file of 3 links in the replay's tree, 2 in the
	 * reference's; links3 (its third) is not in the reference */
	assert_int_equal(r.differences, 10);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		bool found = false;

		for (unsigned k = 0; k < r.nshown && !found; k++) {
			char line[1100];

			snprintf(line, sizeof(line), "%s: %s", r.shown[k].path, r.shown[k].what);
			found = !strncmp(line, want[i], strlen(want[i]));
		}
		if (!found)
			fail_msg("no difference '%s'", want[i]);
	}
	assert_true(r.entries >= 16);
	/* a tree beside itself */
	assert_int_equal(nfs_replay_verify(b, b, &r, &e), 0);
	assert_int_equal(r.differences, 0);
	assert_true(r.bytes > 0);
	/* no reference */
	assert_int_not_equal(nfs_replay_verify(a, "/nonexistent/ref", &r, &e), 0);
	sh("rm -rf %s", dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_differences),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
