/* SPDX-License-Identifier: MIT */
/* Loading a RUN for report, compare and a sweep's runs (cli/runs.h): no command is called from
 * here. */
#include "cli/cli.h"
#include "cli/runs.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/blk_sink.h"
#include "analyze/run_load.h"
#include "analyze/run_set_load.h"
#include "analyze/run_summary.h"
#include "formats/runset.h"
#include "cli/inputs.h"
#include "common/fs.h"
#include "formats/blktrace.h"
#include "formats/instream.h"
#include "formats/manifest.h"
#include "sweep/runs.h"
#include "formats/outcheck.h"
#include "formats/pcap_src.h"

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

static json_t *load_manifest(const char *mpath)
{
	json_error_t je;
	json_t *m;

	if (!mpath)
		return NULL;
	m = json_load_file(mpath, 0, &je);
	if (!m)
		warning("'%s': %s (line %d); left out of the report", mpath, je.text, je.line);
	return m;
}

int load_run(struct cli_input *ci, const struct run_feed *f, json_t **manifest,
             struct iot_err *stop)
{
	struct run_src src = {ci->block, ci->manifest, ci->capture, ci->summary};
	struct run_load_notes n;
	struct iot_err e;
	int ret;

	*manifest = NULL;
	/* the loading is the library's (analyze/run_load.h); the messages, in its order, ours */
	ret = run_load(&src, f, &n, &e);
	ci->capture = src.capture; /* taken */
	if (n.block_partial)
		partial_results("block trace", &n.block_e, stop, NULL);
	if (n.block_read)
		warn_block_input(ci->block, NULL);
	if (n.capture_truncated)
		warning("'%s': the capture ends inside a packet record (truncated file)",
		        n.capture_name);
	if (ret < 0)
		return input_error(&e, ret);
	if (n.capture_partial)
		partial_results("capture", &n.capture_e, stop, NULL);
	*manifest = load_manifest(ci->manifest);
	return EXIT_OK;
}

static size_t read_json(void *buf, size_t len, void *arg)
{
	ssize_t n = in_stream_read(arg, buf, len, NULL);

	return n < 0 ? (size_t)-1 : (size_t)n;
}

/* A run's summary alone: the pass as analyze runs it (no graphs), the NFS statistics. */
struct summary_feed {
	struct run_summary s;
};

static int feed_block(void *ctx, struct bt_reader *rd, const struct manifest *m, struct iot_err *e)
{
	struct summary_feed *f = ctx;
	int ret;

	f->s.ident = m;
	ret = run_summary_block(&f->s, rd, NULL, NULL, e);
	f->s.ident = NULL;
	return ret;
}

static int feed_packets(void *ctx, struct pcap_src *src, const struct manifest *clock,
                        struct iot_err *e)
{
	struct summary_feed *f = ctx;
	int ret;

	/* the packets laid over the idle gaps on the block trace's clock */
	f->s.clock = clock;
	ret = run_summary_packets(&f->s, src, NULL, NULL, e);
	f->s.clock = NULL;
	return ret;
}

static int feed_summary(void *ctx, const char *path, struct iot_err *e)
{
	struct summary_feed *f = ctx;

	return run_summary_file(&f->s, path, e);
}

/* A saved summary (a JSON document), or anything else analyzed here as a run. */
int load_summary(const char *path, uint64_t idle_ns, json_t **summary, json_t **manifest,
                 struct iot_err *stop)
{
	struct summary_feed run;
	struct run_feed feed = {feed_block, feed_packets, &run, feed_summary};
	struct blk_opts o;
	struct cli_input ci;
	struct iot_err e;
	json_error_t je;
	int ret;

	*summary = *manifest = NULL;
	/* analyze's defaults: the figures of a run are those 'iotape analyze' gives it */
	blk_opts_init(&o);
	o.idle_threshold_ns = idle_ns;
	if ((ret = cli_input_open(&ci, path, CLI_INPUT_JSON)))
		return ret;
	if (ci.json) {
		json_t *doc = json_load_callback(read_json, ci.json, 0, &je);

		if (!doc && in_stream_status(ci.json))
			ret = (error("'%s': %s", path, in_stream_error(ci.json)), EXIT_USAGE);
		else if (!doc)
			ret = (error("'%s': not a JSON summary: %s (line %d)", path, je.text,
			             je.line),
			       EXIT_USAGE);
		else if (run_summary_doc_check(path, doc, &e))
			ret = (error("%s", e.msg), EXIT_USAGE);
		cli_input_release(&ci);
		if (ret) {
			json_decref(doc);
			return ret;
		}
		if (run_summary_doc_partial(doc))
			warning("'%s': partial results: the analysis it saves stopped at bad bytes",
			        path);
		warn_summary_dropped(path, doc);
		*summary = doc;
		return EXIT_OK;
	}
	if (run_summary_init(&run.s, &o)) {
		cli_input_release(&ci);
		return error("out of memory"), EXIT_SYSTEM;
	}
	/* a summary run: its own threshold, unless another was asked for */
	run.s.want_idle_ns = idle_ns != BLK_DEFAULT_IDLE_NS ? idle_ns : 0;
	ret = load_run(&ci, &feed, manifest, stop);
	if (!ret) {
		*summary = json_incref(run.s.doc);
		warn_summary_dropped(path, run.s.doc);
	}
	run_summary_release(&run.s);
	cli_input_release(&ci);
	return ret;
}

struct sweep_load {
	uint64_t idle_ns;
	struct iot_err *stop;
};

/* A cell's run set of several hosts, read as 'iotape analyze SET' reads it (each host's gaps
 * explained by every host): each host's summary with its host. An exit code. */
static int sweep_load_set(struct sweep_load *l, const struct runset *rs,
                          struct sweep_cell_runs *out)
{
	struct run_set_load set;
	struct blk_opts o;
	int ret;

	/* analyze's defaults, as load_summary()'s */
	blk_opts_init(&o);
	o.idle_threshold_ns = l->idle_ns;
	ret = load_runset(&set, rs, &o, 0, NULL, NULL, NULL, l->stop);
	for (unsigned h = 0; h < rs->n && !ret; h++) {
		warn_summary_dropped(rs->h[h].run, set.h[h].doc);
		if (sweep_cell_add(out, rs->h[h].name, rs->h[h].run, json_incref(set.h[h].doc),
		                   json_incref(set.manifest[h])))
			ret = (error("out of memory"), EXIT_SYSTEM);
	}
	run_set_load_release(&set);
	return ret;
}

/* A cell's run: its summary, or each host's of its run set (sweep --host) with its host. */
static int sweep_load_summary(void *ctx, const char *rundir, struct sweep_cell_runs *out)
{
	struct sweep_load *l = ctx;
	struct runset rs;
	json_t *summary, *manifest;
	char set[PATH_MAX + 16];
	bool apart;
	int ret;

	snprintf(set, sizeof(set), "%s/" SWEEP_SET_DIR, rundir);
	if ((ret = cli_runset_open(set, &rs)) == -ENOENT) { /* a run of one host */
		if ((ret = load_summary(rundir, l->idle_ns, &summary, &manifest, l->stop)))
			return ret;
		if (sweep_cell_add(out, NULL, rundir, summary, manifest))
			return error("out of memory"), EXIT_SYSTEM;
		return EXIT_OK;
	}
	if (ret)
		return ret;
	ret = rs.n > 1 ? sweep_load_set(l, &rs, out) : RUNSET_APART;
	apart = ret == RUNSET_APART;
	if (apart)
		ret = EXIT_OK;
	for (unsigned h = 0; apart && h < rs.n && !ret; h++) {
		ret = load_summary(rs.h[h].run, l->idle_ns, &summary, &manifest, l->stop);
		if (!ret && sweep_cell_add(out, rs.h[h].name, rs.h[h].run, summary, manifest))
			ret = (error("out of memory"), EXIT_SYSTEM);
	}
	runset_release(&rs);
	return ret;
}

int load_sweep(struct sweep_runs *s, const char *dir, uint64_t idle_ns, struct iot_err *stop)
{
	struct sweep_load l = {idle_ns, stop};
	struct iot_err e = {""};
	int ret = sweep_runs_load(s, dir, sweep_load_summary, &l, &e);

	if (ret > 0)
		return ret; /* load_summary's exit code, its error printed */
	if ((!ret || ret == -ENOENT) && (s->failed || s->missing))
		warning("'%s': %zu of %zu runs are in the tables; %zu failed, %zu not run (yet)",
		        dir, s->done, s->total, s->failed, s->missing);
	if (ret)
		return error("%s", e.msg), ret == -ENOENT ? EXIT_USAGE : exit_code_for(ret);
	return EXIT_OK;
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

struct run_summaries_host *runset_hosts(const struct runset *rs)
{
	struct run_summaries_host *h = calloc(rs->n ? rs->n : 1, sizeof(*h));

	for (unsigned i = 0; h && i < rs->n; i++)
		h[i] = (struct run_summaries_host){.name = rs->h[i].name,
		                                   .path = rs->h[i].run,
		                                   .offset_ns = rs->h[i].offset_ns,
		                                   .error_ns = rs->h[i].error_ns};
	return h;
}

int load_runset(struct run_set_load *l, const struct runset *rs, const struct blk_opts *o,
                uint64_t nfs_interval_ns,
                int (*setup)(void *ctx, unsigned host, struct blk_analysis *a),
                void (*packets)(void *ctx, unsigned host, struct run_set_host *h), void *ctx,
                struct iot_err *stop)
{
	struct run_summaries_host *h = runset_hosts(rs);
	json_t *warnings = json_array(), *w;
	struct iot_err e;
	size_t k;
	int ret;

	memset(l, 0, sizeof(*l));
	if (!h || !warnings) {
		free(h);
		json_decref(warnings);
		return error("out of memory"), EXIT_SYSTEM;
	}
	ret = run_set_load(l, h, rs->n, o, nfs_interval_ns, setup, packets, ctx, warnings, &e);
	free(h);
	json_array_foreach(warnings, k, w)
	{
		warning("%s", json_string_value(w));
	}
	json_decref(warnings);
	if (ret == RUN_SET_APART)
		return RUNSET_APART;
	for (unsigned i = 0; l->s.passed && i < l->n; i++)
		if (l->h[i].host.rd)
			warn_block_input(l->h[i].host.rd, NULL);
	if (ret < 0)
		return input_error(&e, ret);
	if (ret)
		partial_results("run set", &e, stop, NULL);
	return EXIT_OK;
}
