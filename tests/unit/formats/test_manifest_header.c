/* SPDX-License-Identifier: MIT */
/* Unit tests: the one manifest header (os-release, host, argv) and manifest_save()'s atomic
 * replacement under a writer killed at any moment. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "formats/manifest.h"

static void test_os_release(void **state)
{
	static const char text[] = "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"
	                           "NAME=\"Debian GNU/Linux\"\n"
	                           "VERSION_ID='12'\n"
	                           "VERSION_CODENAME=bookworm\n"
	                           "ID=debian\n"
	                           "no equals sign here\n"
	                           "HOME_URL=\"https://www.debian.org/\"\n";
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");
	json_t *j = manifest_os_release_json(f);

	(void)state;
	fclose(f);
	assert_string_equal(json_string_value(json_object_get(j, "id")), "debian");
	assert_string_equal(json_string_value(json_object_get(j, "version_id")), "12");
	assert_string_equal(json_string_value(json_object_get(j, "codename")), "bookworm");
	assert_string_equal(json_string_value(json_object_get(j, "pretty_name")),
	                    "Debian GNU/Linux 12 (bookworm)");
	assert_null(json_object_get(j, "home_url"));
	json_decref(j);
}

static void test_host(void **state)
{
	json_t *j = manifest_host_json("/nonexistent/os-release");

	(void)state;
	assert_non_null(json_object_get(j, "hostname"));
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(j, "kernel"), "sysname")), "Linux");
	assert_null(json_object_get(j, "distro"));
	assert_true(json_integer_value(json_object_get(j, "ncpu")) >= 1);
	json_decref(j);
}

static void test_header(void **state)
{
	const char *argv[] = {"replay", "--record", "x", NULL};
	json_t *m = manifest_header("replay", argv, 3), *a;

	(void)state;
	assert_string_equal(json_string_value(json_object_get(m, "format")), MANIFEST_FORMAT);
	assert_int_equal(json_integer_value(json_object_get(m, "format_version")),
	                 MANIFEST_VERSION);
	assert_non_null(json_string_value(json_object_get(m, "iotape_version")));
	assert_string_equal(json_string_value(json_object_get(m, "kind")), "replay");
	assert_non_null(json_object_get(json_object_get(m, "host"), "hostname"));
	a = json_object_get(m, "iotape_argv");
	assert_int_equal(json_array_size(a), 4);
	assert_string_equal(json_string_value(json_array_get(a, 0)), "iotape");
	assert_string_equal(json_string_value(json_array_get(a, 3)), "x");
	json_decref(m);
	m = manifest_header(NULL, NULL, 0);
	assert_null(json_object_get(m, "kind"));
	assert_int_equal(json_array_size(json_object_get(m, "iotape_argv")), 1);
	json_decref(m);
}

/* A manifest of about 200 kB whose every device says which one it is (gen). */
static json_t *big(int gen)
{
	json_t *m = manifest_header(NULL, NULL, 0), *devs = json_array();

	for (int i = 0; i < 2000; i++)
		json_array_append_new(devs, json_pack("{s:s, s:i, s:i, s:i}", "name", "sda",
		                                      "major", 8, "minor", i, "events", gen));
	json_object_set_new(m, "devices", devs);
	return m;
}

/* A writer killed (SIGKILL) at random moments while it saves one manifest after another:
 * what it leaves always loads whole, every device from the same save. */
static void test_killed_writer(void **state)
{
	char dir[] = "/tmp/iotape-ut-mkill-XXXXXX", cmd[128];
	struct iot_err e;
	json_t *first = big(0);

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(manifest_save(dir, first, &e), 0);
	json_decref(first);
	srand((unsigned)time(NULL));
	for (int round = 0; round < 30; round++) {
		struct timespec ts = {0, 1000000 + (rand() % 20) * 500000};
		struct manifest m;
		pid_t pid = fork();
		int st;

		assert_true(pid >= 0);
		if (!pid) {
			for (int gen = 1;; gen++) {
				json_t *j = big(gen);

				manifest_save(dir, j, &e);
				json_decref(j);
			}
		}
		nanosleep(&ts, NULL);
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_int_equal(manifest_load(dir, &m, &e), 0);
		assert_int_equal(m.ndevs, 2000);
		for (unsigned i = 1; i < m.ndevs; i++)
			assert_int_equal(m.devs[i].events, m.devs[0].events);
		manifest_release(&m);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_os_release),
	    cmocka_unit_test(test_host),
	    cmocka_unit_test(test_header),
	    cmocka_unit_test(test_killed_writer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
