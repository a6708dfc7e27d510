/* SPDX-License-Identifier: MIT */
/* The messages of loading a RUN for report, compare and a sweep's runs (cli/runs.h): the loading
 * is analyze's and sweep's; no command is called from here. */
#include "cli/cli.h"
#include "cli/runs.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/run_load.h"
#include "analyze/run_set_load.h"
#include "cli/inputs.h"
#include "common/fs.h"
#include "formats/runset.h"
#include "sweep/load.h"

int write_svg(void *ctx, const char *name, const char *svg, size_t len)
{
	struct svg_dir *s = ctx;
	struct iot_outfile o;
	struct iot_err e;
	char *path;
	int ret;

	if (asprintf(&path, "%s/%s", s->dir, name) < 0)
		return -ENOMEM;
	if (!(ret = iot_outfile_open(&o, path, 0, &e))) {
		if ((ret = iot_write_all(o.fd, svg, len, NULL))) {
			iot_err_set(&e, ret, "'%s': write: %s", path, strerror(-ret));
			iot_outfile_abort(&o);
		} else {
			ret = iot_outfile_commit(&o, &e);
		}
	}
	if (ret)
		error("%s", e.msg);
	free(path);
	s->files++;
	return ret;
}

/* The messages in msgs printed (and msgs freed), then the error when ret says one. An exit
 * code. */
static int said(json_t *msgs, int ret, const struct iot_err *e)
{
	print_msgs(msgs);
	json_decref(msgs);
	return ret ? input_error(e, ret) : EXIT_OK;
}

int load_run(struct cli_input *ci, const struct run_feed *f, json_t **manifest,
             struct iot_err *stop)
{
	struct run_src src = {ci->block, ci->manifest, ci->capture, ci->summary};
	json_t *msgs = json_array();
	struct iot_err e;
	int ret;

	*manifest = NULL;
	if (!msgs)
		return error("out of memory"), EXIT_SYSTEM;
	ret = run_load_msgs(&src, f, manifest, msgs, stop, &e);
	ci->capture = src.capture; /* taken */
	return said(msgs, ret, &e);
}

int load_summary(const char *path, uint64_t idle_ns, json_t **summary, json_t **manifest,
                 struct iot_err *stop)
{
	json_t *msgs = json_array();
	struct iot_err e;

	*summary = *manifest = NULL;
	if (!msgs)
		return error("out of memory"), EXIT_SYSTEM;
	return said(msgs, run_summary_load(path, idle_ns, summary, manifest, msgs, stop, &e), &e);
}

int load_sweep(struct sweep_runs *s, const char *dir, uint64_t idle_ns, struct iot_err *stop)
{
	json_t *msgs = json_array();
	struct iot_err e = {""};
	bool usage;
	int ret;

	memset(s, 0, sizeof(*s));
	if (!msgs)
		return error("out of memory"), EXIT_SYSTEM;
	ret = sweep_load(s, dir, idle_ns, msgs, stop, &usage, &e);
	if (ret && usage) {
		print_msgs(msgs);
		json_decref(msgs);
		return usage_error("%s", e.msg);
	}
	return said(msgs, ret, &e);
}

int cli_runset_open(const char *path, struct runset *rs)
{
	struct iot_err e;
	int ret = runset_open(path, rs, &e);

	if (ret == -ENOENT)
		return ret;
	for (unsigned i = 0; i < rs->nf; i++)
		warning("host %s left out: %s", rs->f[i].name, rs->f[i].reason);
	if (ret == -ENODATA) {
		runset_release(rs);
		return usage_error("%s", e.msg);
	}
	if (ret)
		return error("%s", e.msg), exit_code_for(ret);
	return EXIT_OK;
}

int load_runset(struct run_set_load *l, const struct runset *rs, const struct blk_opts *o,
                uint64_t nfs_interval_ns,
                int (*setup)(void *ctx, unsigned host, struct blk_analysis *a),
                void (*packets)(void *ctx, unsigned host, struct run_set_host *h), void *ctx,
                struct iot_err *stop)
{
	json_t *msgs = json_array();
	struct iot_err e;
	int ret;

	memset(l, 0, sizeof(*l));
	if (!msgs)
		return error("out of memory"), EXIT_SYSTEM;
	ret = run_set_load_runset(l, rs, o, nfs_interval_ns, setup, packets, ctx, msgs, stop, &e);
	if (ret == RUN_SET_APART) {
		print_msgs(msgs);
		json_decref(msgs);
		return RUNSET_APART;
	}
	return said(msgs, ret, &e);
}
