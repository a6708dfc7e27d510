/* SPDX-License-Identifier: MIT */
/* One run's block trace and packets through a caller's feed, for report, compare and sweeps;
 * a run's summary loaded, the messages handed back. */
#include "analyze/run_load.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/blk_sink.h"
#include "analyze/run_summary.h"
#include "common/warnings.h"
#include "formats/blktrace.h"
#include "formats/instream.h"
#include "formats/manifest.h"
#include "formats/pcap_src.h"
#include "formats/run_open.h"
#include "formats/rundir.h"

int run_load(struct run_src *s, const struct run_feed *f, struct run_load_notes *n,
             struct iot_err *e)
{
	struct manifest m;
	bool have_m;
	int ret = 0;

	memset(n, 0, sizeof(*n));
	if (s->summary && !s->block && !s->capture) {
		if (!f->summary)
			return iot_err_set(e, -EOPNOTSUPP, "'%s': a summary run (no records)",
			                   s->summary);
		ret = f->summary(f->ctx, s->summary, e);
		n->summary_read = !ret;
		return ret;
	}
	/* the run's manifest says what its devices are before the pass explains their gaps; the
	 * same manifest is the packets' clock */
	have_m = s->block && s->manifest && !manifest_load(s->manifest, &m, NULL);
	if (s->block) {
		ret = f->block(f->ctx, s->block, have_m ? &m : NULL, e);
		if (ret < 0)
			goto out;
		n->block_read = true;
		if (ret > 0) {
			n->block_partial = 1;
			n->block_e = *e;
		}
		ret = 0;
	}
	if (s->capture) {
		struct pcap_src *src;

		snprintf(n->capture_name, sizeof(n->capture_name), "%s",
		         in_stream_name(s->capture));
		ret = pcap_src_open_stream(&src, s->capture, e);
		s->capture = NULL; /* taken by the source, even on failure */
		if (ret)
			goto out;
		/* block and packets of one capture: one time axis via the clock pairs */
		ret = f->packets(f->ctx, src, have_m ? &m : NULL, e);
		n->capture_truncated = pcap_src_truncated(src);
		pcap_src_free(src);
		if (ret)
			iot_err_prefix(e, "'%s'", n->capture_name);
		if (ret > 0) {
			n->capture_partial = 1;
			n->capture_e = *e;
			ret = 0;
		}
	}
out:
	if (have_m)
		manifest_release(&m);
	return ret;
}

int run_summary_doc_check(const char *path, const json_t *doc, struct iot_err *e)
{
	const char *format = json_string_value(json_object_get(doc, "format"));

	if (format && !strcmp(format, MANIFEST_FORMAT))
		return iot_err_set(e, -EINVAL,
		                   "'%s': a run's manifest.json, not an 'iotape analyze --json' "
		                   "summary: give its run directory",
		                   path);
	if (!json_is_object(doc) ||
	    (!json_object_get(doc, "devices") && !json_object_get(doc, "nfs")))
		return iot_err_set(
		    e, -EINVAL, "'%s': not an 'iotape analyze --json' summary (no devices, no nfs)",
		    path);
	return 0;
}

bool run_summary_doc_partial(const json_t *doc)
{
	const json_t *nfs = json_object_get(doc, "nfs");

	return json_is_true(json_object_get(json_object_get(doc, "input"), "partial")) ||
	       json_is_true(json_object_get(json_object_get(nfs, "input"), "partial"));
}

/* ---- the messages of loading runs, handed back (analyze/run_load.h) ---- */

int run_msgs_partial(json_t *msgs, const char *what, const struct iot_err *e, struct iot_err *stop)
{
	if (iot_warn_json(msgs,
	                  "partial results: the %s stops at bad bytes; what came before them is "
	                  "reported (the error follows)",
	                  what))
		return -ENOMEM;
	if (!stop->msg[0]) {
		*stop = *e;
		return 0;
	}
	/* a second one: now, the first comes last */
	return json_array_append_new(msgs, json_pack("{s:s}", "error", e->msg)) ? -ENOMEM : 0;
}

int run_block_warnings(const struct bt_reader *rd, json_t *msgs)
{
	const struct bt_stats *st = bt_reader_stats(rd);
	int ret = 0;

	for (unsigned f = 0; f < st->nfiles && !ret; f++) {
		const struct bt_file_stats *fs = &st->files[f];

		if (fs->truncated)
			ret = iot_warn_json(msgs,
			                    "'%s': truncated record at offset %" PRIu64
			                    " ignored; the %" PRIu64
			                    " records before it were counted",
			                    fs->path, fs->trunc_at, fs->records);
		if (!ret && fs->skips)
			ret =
			    iot_warn_json(msgs, "'%s': %" PRIu64 " records missing (sequence gaps)",
			                  fs->path, fs->skips);
		if (!ret && fs->backwards)
			ret = iot_warn_json(
			    msgs,
			    "'%s': %" PRIu64 " times go backwards (lines of the iolog "
			    "out of time order, taken as written: spans, gaps and a "
			    "replay's waits are not what the log meant)",
			    fs->path, fs->backwards);
	}
	return ret ? -ENOMEM : 0;
}

int run_dropped_warning(const char *path, uint64_t events, json_t *msgs)
{
	if (!events)
		return 0;
	return iot_warn_json(msgs,
	                     "%s%s%s%" PRIu64 " events on devices past the first %u were not "
	                     "analyzed (a trace of more devices than iotape keeps apart)",
	                     path ? "'" : "", path ? path : "", path ? "': " : "", events,
	                     BLK_MAX_DEVICES)
	           ? -ENOMEM
	           : 0;
}

int run_summary_dropped_warning(const char *path, const json_t *summary, json_t *msgs)
{
	const json_t *v = json_object_get(summary, "events_dropped_devices");

	if (json_is_integer(v) && json_integer_value(v) > 0)
		return run_dropped_warning(path, (uint64_t)json_integer_value(v), msgs);
	return 0;
}

#define NOMEM(e) iot_err_set(e, -ENOMEM, "out of memory")

int run_load_msgs(struct run_src *s, const struct run_feed *f, json_t **manifest, json_t *msgs,
                  struct iot_err *stop, struct iot_err *e)
{
	struct run_load_notes n;
	json_error_t je;
	int ret;

	*manifest = NULL;
	/* the messages in the order the user reads them: the block trace's, then the capture's */
	ret = run_load(s, f, &n, e);
	if (n.block_partial && run_msgs_partial(msgs, "block trace", &n.block_e, stop))
		return NOMEM(e);
	if (n.block_read && run_block_warnings(s->block, msgs))
		return NOMEM(e);
	if (n.capture_truncated &&
	    iot_warn_json(msgs, "'%s': the capture ends inside a packet record (truncated file)",
	                  n.capture_name))
		return NOMEM(e);
	if (ret < 0)
		return ret;
	if (n.capture_partial && run_msgs_partial(msgs, "capture", &n.capture_e, stop))
		return NOMEM(e);
	if (!s->manifest)
		return 0;
	*manifest = json_load_file(s->manifest, 0, &je);
	if (!*manifest && iot_warn_json(msgs, "'%s': %s (line %d); left out of the report",
	                                s->manifest, je.text, je.line))
		return NOMEM(e);
	return 0;
}

/* A RUN opened for run_summary_load(): what cli/inputs.h's cli_input_open() gives a command
 * that takes saved JSON documents. */
struct run_opened {
	struct bt_reader *block;
	struct in_stream *capture, *json;
	char *manifest, *summary;
};

static void run_opened_release(struct run_opened *r)
{
	bt_reader_free(r->block);
	in_stream_close(r->capture);
	in_stream_close(r->json);
	free(r->manifest);
	free(r->summary);
	memset(r, 0, sizeof(*r));
}

static int open_dir(struct run_opened *r, const char *path, struct rundir *rd, json_t *msgs,
                    struct iot_err *e)
{
	int ret;

	if (!rd->ntraces && !rd->ncaptures && rd->summary) {
		/* a summary run: its figures without records */
		r->summary = rd->summary;
		rd->summary = NULL;
		r->manifest = rd->manifest;
		rd->manifest = NULL;
		return 0;
	}
	if ((ret = run_open_dir(rd, path, &r->block, &r->capture, msgs, e)))
		return ret == -ENODATA ? -EINVAL : ret;
	r->manifest = rd->manifest;
	rd->manifest = NULL;
	return 0;
}

static int run_open(struct run_opened *r, const char *path, json_t *msgs, struct iot_err *e)
{
	struct run_input ri;
	int ret;

	memset(r, 0, sizeof(*r));
	if ((ret = run_input_open(&ri, path, e)))
		return ret;
	switch (ri.kind) {
	case RUN_INPUT_STREAM:
		switch (in_stream_sniff(ri.in)->format) {
		case IN_FMT_PCAP:
		case IN_FMT_PCAPNG:
			r->capture = ri.in;
			break;
		case IN_FMT_JSON:
			r->json = ri.in;
			break;
		default:
			/* a trace, a fio iolog, or bytes the trace reader names */
			ret = bt_reader_open_stream(&r->block, ri.in, e);
			break;
		}
		ri.in = NULL;
		break;
	case RUN_INPUT_DIR:
		ret = open_dir(r, path, &ri.rd, msgs, e);
		break;
	case RUN_INPUT_SET:
		ret = bt_reader_open_files(&r->block, ri.set, ri.nset, e);
		break;
	}
	run_input_release(&ri);
	if (ret)
		run_opened_release(r);
	return ret;
}

static size_t read_json(void *buf, size_t len, void *arg)
{
	ssize_t n = in_stream_read(arg, buf, len, NULL);

	return n < 0 ? (size_t)-1 : (size_t)n;
}

/* A saved summary, read and checked; its warnings into msgs. */
static int summary_doc(const char *path, struct in_stream *in, json_t **summary, json_t *msgs,
                       struct iot_err *e)
{
	json_error_t je;
	json_t *doc = json_load_callback(read_json, in, 0, &je);
	int ret;

	/* every way a document is wrong is the user's (exit 2), whatever errno the read had */
	if (!doc && in_stream_status(in))
		return iot_err_set(e, -EINVAL, "'%s': %s", path, in_stream_error(in));
	if (!doc)
		return iot_err_set(e, -EINVAL, "'%s': not a JSON summary: %s (line %d)", path,
		                   je.text, je.line);
	if ((ret = run_summary_doc_check(path, doc, e))) {
		json_decref(doc);
		return ret;
	}
	if ((run_summary_doc_partial(doc) &&
	     iot_warn_json(msgs,
	                   "'%s': partial results: the analysis it saves stopped at bad bytes",
	                   path)) ||
	    run_summary_dropped_warning(path, doc, msgs)) {
		json_decref(doc);
		return NOMEM(e);
	}
	*summary = doc;
	return 0;
}

/* A run's summary alone: the pass as analyze runs it (no graphs), the NFS statistics. */
static int feed_block(void *ctx, struct bt_reader *rd, const struct manifest *m, struct iot_err *e)
{
	struct run_summary *s = ctx;
	int ret;

	s->ident = m;
	ret = run_summary_block(s, rd, NULL, NULL, e);
	s->ident = NULL;
	return ret;
}

static int feed_packets(void *ctx, struct pcap_src *src, const struct manifest *clock,
                        struct iot_err *e)
{
	struct run_summary *s = ctx;
	int ret;

	/* the packets laid over the idle gaps on the block trace's clock */
	s->clock = clock;
	ret = run_summary_packets(s, src, NULL, NULL, e);
	s->clock = NULL;
	return ret;
}

static int feed_summary(void *ctx, const char *path, struct iot_err *e)
{
	return run_summary_file(ctx, path, e);
}

int run_summary_load(const char *path, uint64_t idle_ns, json_t **summary, json_t **manifest,
                     json_t *msgs, struct iot_err *stop, struct iot_err *e)
{
	struct run_summary s;
	struct run_feed feed = {feed_block, feed_packets, &s, feed_summary};
	struct run_src src;
	struct run_opened r;
	struct blk_opts o;
	int ret;

	*summary = *manifest = NULL;
	/* analyze's defaults: the figures of a run are those 'iotape analyze' gives it */
	blk_opts_init(&o);
	o.idle_threshold_ns = idle_ns;
	if ((ret = run_open(&r, path, msgs, e)))
		return ret;
	if (r.json) {
		ret = summary_doc(path, r.json, summary, msgs, e);
		run_opened_release(&r);
		return ret;
	}
	if (run_summary_init(&s, &o)) {
		run_opened_release(&r);
		return NOMEM(e);
	}
	/* a summary run: its own threshold, unless another was asked for */
	s.want_idle_ns = idle_ns != BLK_DEFAULT_IDLE_NS ? idle_ns : 0;
	src = (struct run_src){r.block, r.manifest, r.capture, r.summary};
	ret = run_load_msgs(&src, &feed, manifest, msgs, stop, e);
	r.capture = src.capture; /* taken */
	if (!ret && run_summary_dropped_warning(path, s.doc, msgs))
		ret = NOMEM(e);
	if (!ret)
		*summary = json_incref(s.doc);
	else {
		json_decref(*manifest);
		*manifest = NULL;
	}
	run_summary_release(&s);
	run_opened_release(&r);
	return ret;
}
