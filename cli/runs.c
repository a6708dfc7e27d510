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
#include "analyze/run_summary.h"
#include "capture/hosts.h"
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

/* A JSON document given to compare must be a summary: a manifest or anything else is named. */
static int check_summary(const char *path, const json_t *doc)
{
	const char *format = json_string_value(json_object_get(doc, "format"));

	if (format && !strcmp(format, MANIFEST_FORMAT))
		return error("'%s': a run's manifest.json, not an 'iotape analyze --json' summary: "
		             "give its run directory",
		             path),
		       EXIT_USAGE;
	if (!json_is_object(doc) ||
	    (!json_object_get(doc, "devices") && !json_object_get(doc, "nfs")))
		return error("'%s': not an 'iotape analyze --json' summary (no devices, no nfs)",
		             path),
		       EXIT_USAGE;
	return EXIT_OK;
}

/* A saved summary (a JSON document), or anything else analyzed here as a run. */
int load_summary(const char *path, uint64_t idle_ns, json_t **summary, json_t **manifest,
                 struct iot_err *stop)
{
	struct summary_feed run;
	struct run_feed feed = {feed_block, feed_packets, &run, feed_summary};
	struct blk_opts o;
	struct cli_input ci;
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
		else
			ret = check_summary(path, doc);
		cli_input_release(&ci);
		if (ret) {
			json_decref(doc);
			return ret;
		}
		if (json_is_true(json_object_get(json_object_get(doc, "input"), "partial")) ||
		    json_is_true(json_object_get(
		        json_object_get(json_object_get(doc, "nfs"), "input"), "partial")))
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
static int sweep_load_set(struct sweep_load *l, const struct cli_runset *rs,
                          struct sweep_cell_runs *out)
{
	struct runset_load set;
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
	runset_load_release(&set);
	return ret;
}

/* A cell's run: its summary, or each host's of its run set (sweep --host) with its host. */
static int sweep_load_summary(void *ctx, const char *rundir, struct sweep_cell_runs *out)
{
	struct sweep_load *l = ctx;
	struct cli_runset rs;
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
	cli_runset_release(&rs);
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

void cli_runset_release(struct cli_runset *rs)
{
	caph_runset_free(rs->h, rs->n);
	free(rs->f);
	memset(rs, 0, sizeof(*rs));
}

int cli_runset_open(const char *path, struct cli_runset *rs)
{
	struct iot_err e;
	unsigned k = 0;
	int ret;

	memset(rs, 0, sizeof(*rs));
	ret = caph_runset_load(path, &rs->h, &rs->n, &e);
	if (ret == -ENOENT)
		return ret;
	if (!ret)
		ret = caph_runset_faults(path, &rs->f, &rs->nf, &e);
	if (ret) {
		cli_runset_release(rs);
		return error("%s", e.msg), exit_code_for(ret);
	}
	/* a failed host's run is partial at best: left out, as analyze leaves it out */
	for (unsigned i = 0; i < rs->n; i++) {
		if (rs->h[i].ok) {
			rs->h[k++] = rs->h[i];
			continue;
		}
		free(rs->h[i].run);
		free(rs->h[i].name);
	}
	rs->n = k;
	for (unsigned i = 0; i < rs->nf; i++)
		warning("host %s left out: %s", rs->f[i].name, rs->f[i].reason);
	if (!rs->n) {
		cli_runset_release(rs);
		return usage_error("'%s': no host brought a whole run back", path);
	}
	return EXIT_OK;
}

int runset_key_devices(json_t *summary, const char *host)
{
	json_t *devs = json_object_get(summary, "devices"), *d;
	size_t i;

	json_array_foreach(devs, i, d)
	{
		const char *key = json_string_value(json_object_get(d, "key"));
		char *k;

		if (asprintf(&k, "%s:%s", host, key ? key : "?") < 0)
			return -ENOMEM;
		if (json_object_set_new(d, "key", json_string(k))) {
			free(k);
			return -ENOMEM;
		}
		free(k);
	}
	return 0;
}

/* Host i of the set opened as analyze opens a host of a run set: a block trace or packets, and
 * a manifest with clock pairs. An exit code after printing any error. */
static int open_set_host(struct runset_load *l, const struct cli_runset *rs, unsigned i)
{
	struct run_set_host *h = &l->h[i];
	const char *path = rs->h[i].run;
	struct cli_input ci;
	struct iot_err e;
	int ret = cli_input_open(&ci, path, 0);

	if (ret)
		return ret;
	/* what analyze cannot put on one clock (a summary run, no clock pairs) is read apart */
	if (!(ci.block || ci.capture) || !ci.manifest ||
	    manifest_load(ci.manifest, &l->man[i], &e)) {
		cli_input_release(&ci);
		return RUNSET_APART;
	}
	h->host.m = &l->man[i];
	if (!l->man[i].have_clock) {
		cli_input_release(&ci);
		return RUNSET_APART;
	}
	l->manifest[i] = load_manifest(ci.manifest);
	h->host.rd = ci.block;
	ci.block = NULL;
	h->host.name = rs->h[i].name;
	h->host.path = path;
	h->host.real_off_ns = rs->h[i].offset_ns;
	if (ci.capture) {
		ret = pcap_src_open_stream(&h->src, ci.capture, &e); /* takes the stream */
		ci.capture = NULL;
	}
	cli_input_release(&ci);
	if (ret)
		return error("%s", e.msg), exit_code_for(ret);
	return EXIT_OK;
}

int load_runset(struct runset_load *l, const struct cli_runset *rs, const struct blk_opts *o,
                uint64_t nfs_interval_ns,
                int (*setup)(void *ctx, unsigned host, struct blk_analysis *a),
                void (*packets)(void *ctx, unsigned host, struct run_set_host *h), void *ctx,
                struct iot_err *stop)
{
	struct iot_err e;
	unsigned bad = 0;
	int ret;

	memset(l, 0, sizeof(*l));
	if (run_summary_init(&l->s, o) || !(l->h = calloc(rs->n, sizeof(*l->h))) ||
	    !(l->man = calloc(rs->n, sizeof(*l->man))) ||
	    !(l->manifest = calloc(rs->n, sizeof(*l->manifest))))
		return error("out of memory"), EXIT_SYSTEM;
	l->s.nfs_interval_ns = nfs_interval_ns;
	for (unsigned i = 0; i < rs->n; i++) {
		l->n = i + 1; /* released from here on */
		if ((ret = open_set_host(l, rs, i)))
			return ret;
	}
	ret = run_summary_set(&l->s, l->h, l->n, setup, packets, ctx, &e, &bad);
	for (unsigned i = 0; i < l->n; i++)
		if (l->h[i].host.rd)
			warn_block_input(l->h[i].host.rd, NULL);
	if (ret < 0)
		return input_error(&e, ret);
	if (ret)
		partial_results("run set", &e, stop, NULL);
	return EXIT_OK;
}

void runset_load_release(struct runset_load *l)
{
	run_summary_release(&l->s);
	for (unsigned i = 0; i < l->n; i++) {
		bt_reader_free(l->h[i].host.rd);
		if (l->h[i].src)
			pcap_src_free(l->h[i].src);
		json_decref(l->h[i].doc);
		if (l->h[i].host.m)
			manifest_release(&l->man[i]);
		json_decref(l->manifest[i]);
	}
	free(l->h);
	free(l->man);
	free(l->manifest);
	memset(l, 0, sizeof(*l));
}
