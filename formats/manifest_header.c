/* SPDX-License-Identifier: MIT */
/* The head of every run's manifest (capture, replay, NFS replay): format, version, host, argv. */
#include "formats/manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "iotape_version.h"

json_t *manifest_os_release_json(FILE *f)
{
	static const struct {
		const char *key, *json;
	} keys[] = {{"ID", "id"},
	            {"VERSION_ID", "version_id"},
	            {"VERSION_CODENAME", "codename"},
	            {"PRETTY_NAME", "pretty_name"}};
	json_t *j = json_object();
	char *line = NULL;
	size_t cap = 0;

	while (getline(&line, &cap, f) > 0) {
		char *eq = strchr(line, '='), *v;
		size_t n;

		if (!eq)
			continue;
		*eq = '\0';
		v = eq + 1;
		v[strcspn(v, "\n")] = '\0';
		n = strlen(v);
		if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
			v[n - 1] = '\0';
			v++;
		}
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strcmp(line, keys[i].key))
				json_object_set_new(j, keys[i].json, json_string(v));
	}
	free(line);
	return j;
}

json_t *manifest_host_json(const char *os_release_path)
{
	struct utsname u;
	char host[256] = "";
	json_t *j = json_object();
	FILE *f;

	gethostname(host, sizeof(host) - 1);
	json_object_set_new(j, "hostname", json_string(host));
	if (!uname(&u))
		json_object_set_new(j, "kernel",
		                    json_pack("{s:s, s:s, s:s, s:s}", "sysname", u.sysname,
		                              "release", u.release, "version", u.version, "machine",
		                              u.machine));
	f = fopen(os_release_path, "re");
	if (!f && !strcmp(os_release_path, "/etc/os-release"))
		f = fopen("/usr/lib/os-release", "re");
	if (f) {
		json_object_set_new(j, "distro", manifest_os_release_json(f));
		fclose(f);
	}
	json_object_set_new(j, "ncpu", json_integer(sysconf(_SC_NPROCESSORS_CONF)));
	return j;
}

json_t *manifest_header(const char *kind, const char *const *argv, int argc)
{
	json_t *m = json_object(), *args = json_array();

	json_object_set_new(m, "format", json_string(MANIFEST_FORMAT));
	json_object_set_new(m, "format_version", json_integer(MANIFEST_VERSION));
	json_object_set_new(m, "iotape_version", json_string(IOTAPE_VERSION));
	if (kind)
		json_object_set_new(m, "kind", json_string(kind));
	json_object_set_new(m, "host", manifest_host_json("/etc/os-release"));
	/* the whole command line: a command's argv starts at its name ("capture", "replay") */
	json_array_append_new(args, json_string("iotape"));
	for (int i = 0; argv && i < argc && argv[i]; i++)
		json_array_append_new(args, json_string(argv[i]));
	json_object_set_new(m, "iotape_argv", args);
	return m;
}
