/* SPDX-License-Identifier: MIT */
/* A run set of several hosts opened and read as `iotape analyze SET` reads it. */
#include "analyze/run_set_load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/run_load.h"
#include "common/warnings.h"
#include "formats/blktrace.h"
#include "formats/instream.h"
#include "formats/manifest.h"
#include "formats/pcap_src.h"
#include "formats/rundir.h"
#include "formats/runset.h"

/* Run directory rd's block trace and first packet capture, opened as every command opens a
 * run directory; capture taken by the caller. 0, RUN_SET_APART (a summary run), or -errno. */
static int open_dir(const struct rundir *rd, const char *path, struct bt_reader **block,
                    struct in_stream **capture, json_t *warnings, struct iot_err *e)
{
	int ret;

	if (!rd->ntraces && !rd->ncaptures)
		return rd->summary ? RUN_SET_APART
		                   : iot_err_set(e, -EINVAL,
		                                 "'%s': no block trace (NAME.blktrace.N) or packet "
		                                 "capture (net.pcap) in the directory",
		                                 path);
	if (rd->ncaptures > 1 && iot_warn_json(warnings, "'%s': %u packet captures; reading '%s'",
	                                       path, rd->ncaptures, rd->captures[0]))
		return iot_err_set(e, -ENOMEM, "out of memory");
	if (rd->ncaptures && (ret = in_stream_open(capture, rd->captures[0], e)))
		return ret;
	if (rd->ntraces && (ret = bt_reader_open_files(block, rd->traces, rd->ntraces, e)))
		return ret;
	return 0;
}

/* Host i opened: a run directory with a block trace or packets, and a manifest with clock
 * pairs. 0, RUN_SET_APART (what analyze cannot put on one clock is read apart) or -errno. */
static int open_host(struct run_set_load *l, const struct run_summaries_host *hosts, unsigned i,
                     json_t *warnings, struct iot_err *e)
{
	const struct run_summaries_host *hs = &hosts[i];
	struct run_set_host *h = &l->h[i];
	struct in_stream *capture = NULL;
	struct bt_reader *block = NULL;
	struct run_input ri;
	int ret;

	if ((ret = run_input_open(&ri, hs->path, e)))
		return ret;
	if (ri.kind != RUN_INPUT_DIR) /* a trace or a capture alone has no manifest */
		ret = RUN_SET_APART;
	else
		ret = open_dir(&ri.rd, hs->path, &block, &capture, warnings, e);
	if (!ret && (!ri.rd.manifest || manifest_load(ri.rd.manifest, &l->man[i], NULL)))
		ret = RUN_SET_APART;
	else if (!ret)
		h->host.m = &l->man[i];
	run_input_release(&ri);
	if (!ret && !l->man[i].have_clock)
		ret = RUN_SET_APART;
	if (!ret && !(l->manifest[i] = json_deep_copy(l->man[i].root)))
		ret = iot_err_set(e, -ENOMEM, "out of memory");
	h->host.rd = block; /* released with the set, on failure too */
	if (ret) {
		in_stream_close(capture);
		return ret;
	}
	h->host.name = hs->name;
	h->host.path = hs->path;
	h->host.real_off_ns = hs->offset_ns;
	if (capture)
		ret = pcap_src_open_stream(&h->src, capture, e); /* takes the stream */
	return ret;
}

int run_set_load(struct run_set_load *l, const struct run_summaries_host *hosts, unsigned n,
                 const struct blk_opts *o, uint64_t nfs_interval_ns,
                 int (*setup)(void *ctx, unsigned host, struct blk_analysis *a),
                 void (*packets)(void *ctx, unsigned host, struct run_set_host *h), void *ctx,
                 json_t *warnings, struct iot_err *e)
{
	unsigned bad = 0;
	int ret;

	memset(l, 0, sizeof(*l));
	if (run_summary_init(&l->s, o) || !(l->h = calloc(n ? n : 1, sizeof(*l->h))) ||
	    !(l->man = calloc(n ? n : 1, sizeof(*l->man))) ||
	    !(l->manifest = calloc(n ? n : 1, sizeof(*l->manifest))))
		return iot_err_set(e, -ENOMEM, "out of memory");
	l->s.nfs_interval_ns = nfs_interval_ns;
	for (unsigned i = 0; i < n; i++) {
		l->n = i + 1; /* released from here on */
		if ((ret = open_host(l, hosts, i, warnings, e)))
			return ret;
	}
	return run_summary_set(&l->s, l->h, l->n, setup, packets, ctx, e, &bad);
}

void run_set_load_release(struct run_set_load *l)
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

int run_set_key_devices(json_t *summary, const char *host)
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

struct run_summaries_host *run_set_hosts(const struct runset *rs)
{
	struct run_summaries_host *h = calloc(rs->n ? rs->n : 1, sizeof(*h));

	for (unsigned i = 0; h && i < rs->n; i++)
		h[i] = (struct run_summaries_host){.name = rs->h[i].name,
		                                   .path = rs->h[i].run,
		                                   .offset_ns = rs->h[i].offset_ns,
		                                   .error_ns = rs->h[i].error_ns};
	return h;
}

int run_set_load_runset(struct run_set_load *l, const struct runset *rs, const struct blk_opts *o,
                        uint64_t nfs_interval_ns,
                        int (*setup)(void *ctx, unsigned host, struct blk_analysis *a),
                        void (*packets)(void *ctx, unsigned host, struct run_set_host *h),
                        void *ctx, json_t *msgs, struct iot_err *stop, struct iot_err *e)
{
	struct run_summaries_host *h = run_set_hosts(rs);
	int ret;

	memset(l, 0, sizeof(*l));
	if (!h)
		return iot_err_set(e, -ENOMEM, "out of memory");
	ret = run_set_load(l, h, rs->n, o, nfs_interval_ns, setup, packets, ctx, msgs, e);
	free(h);
	if (ret == RUN_SET_APART)
		return ret;
	/* what each host's reader read, once the pass has read them */
	for (unsigned i = 0; l->s.passed && i < l->n; i++)
		if (l->h[i].host.rd && run_block_warnings(l->h[i].host.rd, msgs))
			return iot_err_set(e, -ENOMEM, "out of memory");
	if (ret > 0 && run_msgs_partial(msgs, "run set", e, stop))
		return iot_err_set(e, -ENOMEM, "out of memory");
	return ret > 0 ? 0 : ret;
}
