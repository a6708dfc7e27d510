/* SPDX-License-Identifier: MIT */
/* A run set's pieces: --host arguments and files, and writing its manifest, runset.json (read
 * back by formats/runset.c). */
#include "capture/hosts.h"
#include "capture/cap_int.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "common/jsonint.h"
#include "iotape_version.h"

void caph_host_free(struct caph_host *h)
{
	free(h->spec);
	memset(h, 0, sizeof(*h));
}

int caph_parse_dest(const char *spec, struct caph_host *h, struct iot_err *e)
{
	char *colon;

	memset(h, 0, sizeof(*h));
	if (!(h->spec = strdup(spec)))
		return iot_err_set(e, -ENOMEM, "out of memory");
	h->dest = h->spec;
	if ((colon = strchr(h->spec, ':')))
		*colon = 0;
	if (!*h->dest || h->dest[0] == '-' || strchr(h->dest, '/')) {
		caph_host_free(h);
		return iot_err_set(e, -EINVAL, "--host '%s' is not an ssh destination", spec);
	}
	return 0;
}

int caph_parse(const char *spec, struct caph_host *h, struct iot_err *e)
{
	char *devs, *iface, *tok, *save = NULL;

	memset(h, 0, sizeof(*h));
	if (!(h->spec = strdup(spec)))
		return iot_err_set(e, -ENOMEM, "out of memory");
	h->dest = h->spec;
	devs = strchr(h->spec, ':');
	if (devs) {
		*devs++ = 0;
		iface = strchr(devs, ':');
		if (iface) {
			*iface++ = 0;
			if (strchr(iface, ':') || strchr(iface, ','))
				goto bad;
			if (*iface)
				h->iface = iface;
		}
		for (tok = strtok_r(devs, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (h->ndevs == CAPH_MAX_DEVS) {
				caph_host_free(h);
				return iot_err_set(e, -EINVAL, "--host '%s': more than %u devices",
				                   spec, CAPH_MAX_DEVS);
			}
			h->devs[h->ndevs++] = tok;
		}
	}
	if (!*h->dest || h->dest[0] == '-' || strchr(h->dest, '/'))
		goto bad;
	if (!h->ndevs && !h->iface) {
		caph_host_free(h);
		return iot_err_set(e, -EINVAL,
		                   "--host '%s': nothing to capture there (DEST:DEV,...[:IFACE])",
		                   spec);
	}
	return 0;
bad:
	caph_host_free(h);
	return iot_err_set(e, -EINVAL, "--host '%s' is not DEST[:DEV,DEV...][:IFACE]", spec);
}

int caph_parse_file(const char *path, struct caph_host *hosts, unsigned max, unsigned *n,
                    struct iot_err *e)
{
	FILE *f = fopen(path, "re");
	char *line = NULL, *p, *end;
	size_t cap = 0;
	unsigned lineno = 0;
	int ret = 0;

	if (!f)
		return iot_err_set(e, -errno, "--hosts '%s': %s", path, strerror(errno));
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		end = p + strlen(p);
		while (end > p && strchr(" \t\r\n", end[-1]))
			*--end = 0;
		if (!*p || *p == '#')
			continue;
		if (*n >= max) {
			ret =
			    iot_err_set(e, -EINVAL, "%s:%u: more than %u hosts", path, lineno, max);
			break;
		}
		if ((ret = caph_parse(p, &hosts[*n], e))) {
			iot_err_prefix(e, "%s:%u", path, lineno);
			break;
		}
		(*n)++;
	}
	if (!ret && ferror(f))
		ret = iot_err_set(e, -EIO, "--hosts '%s': read error", path);
	free(line);
	fclose(f);
	return ret;
}

const char *caph_dir_name(const struct caph_host *h, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s", h->dest);
	if (buf[0] == '.')
		buf[0] = '_';
	return buf;
}

/* ---- writing a run set's manifest ---- */

static json_t *runset_json(const struct caph_opts *o, const struct caph_status *st,
                           const struct caph_result *res)
{
	json_t *root = json_object(), *hosts = json_array(), *argv = json_array(), *cmd;
	char name[256];

	if (!root || !hosts || !argv) {
		json_decref(root);
		json_decref(hosts);
		json_decref(argv);
		return NULL;
	}
	for (int i = 0; i < o->argc; i++)
		json_array_append_new(argv, json_string(o->argv[i]));
	json_object_set_new(root, "kind", json_string("iotape-runset"));
	json_object_set_new(root, "iotape_version", json_string(IOTAPE_VERSION));
	json_object_set_new(root, "iotape_argv", argv);
	json_object_set_new(root, "clock_reference", json_string("local CLOCK_REALTIME"));
	for (unsigned i = 0; i < o->nhosts; i++) {
		const struct caph_host *h = &o->hosts[i];
		json_t *devs = json_array(), *hj;

		for (unsigned d = 0; d < h->ndevs; d++)
			json_array_append_new(devs, json_string(h->devs[d]));
		caph_dir_name(h, name, sizeof(name));
		hj = json_pack(
		    "{s:s, s:s, s:o, s:o, s:o, s:s, s:o, s:o, s:{s:I, s:I, s:I}}", "name", name,
		    "destination", h->dest, "devices", devs, "interface",
		    h->iface ? json_string(h->iface) : json_null(), "run",
		    st[i].have_run ? json_string(name) : json_null(), "status",
		    st[i].ok ? "ok" : "failed", "reason",
		    st[i].ok ? json_null() : json_string(st[i].reason), "capture_exit",
		    st[i].capture_exit >= 0 ? json_integer(st[i].capture_exit) : json_null(),
		    "clock", "offset_ns", (json_int_t)st[i].offset_ns, "rtt_ns",
		    (json_int_t)st[i].rtt_ns, "error_ns", (json_int_t)st[i].clock_err_ns);
		json_array_append_new(hosts, hj);
	}
	json_object_set_new(root, "hosts", hosts);
	json_object_set_new(root, "alignment_error_ns", json_u64(res->align_err_ns));
	cmd = json_object();
	if (o->cmd) {
		json_t *ca = json_array();

		for (unsigned i = 0; o->cmd[i]; i++)
			json_array_append_new(ca, json_string(o->cmd[i]));
		json_object_set_new(cmd, "argv", ca);
		json_object_set_new(cmd, "ran", json_boolean(res->cmd_ran));
		json_object_set_new(cmd, "status", json_integer(res->cmd_status));
		json_object_set_new(cmd, "wall_ns", json_u64(res->cmd_wall_ns));
	}
	json_object_set_new(root, "command", cmd);
	json_object_set_new(root, "stop_signal",
	                    res->stop_signal ? json_integer(res->stop_signal) : json_null());
	json_object_set_new(root, "complete", json_boolean(res->nok == o->nhosts));
	return root;
}

int caph_runset_write(const struct caph_opts *o, const struct caph_status *st,
                      const struct caph_result *res, struct iot_err *e)
{
	json_t *root = runset_json(o, st, res);
	char *text = root ? json_dumps(root, JSON_INDENT(2)) : NULL;
	int ret;

	json_decref(root);
	if (!text)
		return iot_err_set(e, -ENOMEM, "out of memory");
	ret = iot_write_atomic(o->set, RUNSET_FILE, text, strlen(text), e);
	free(text);
	return ret;
}
