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
#include "formats/run_open.h"
#include "formats/rundir.h"
#include "formats/runset.h"

/* Run directory rd's block trace and first packet capture, opened as every command opens a
 * run directory. 0, RUN_SET_APART (a summary run), or -errno. */
static int open_dir(const struct rundir *rd, const char *path, struct bt_reader **block,
                    struct in_stream **capture, json_t *warnings, struct iot_err *e)
{
	int ret;

	if (!rd->ntraces && !rd->ncaptures && rd->summary)
		return RUN_SET_APART;
	ret = run_open_dir(rd, path, block, capture, warnings, e);
	return ret == -ENODATA ? -EINVAL : ret;
}

/* Host i's name: the set's, else its manifest's hostname unless an earlier host has it, else
 * its path (analyze --hosts' rule: two hosts are never one). 0 or -ENOMEM. */
static int name_host(struct run_set_load *l, const struct run_summaries_host *hs, unsigned i,
                     struct iot_err *e)
{
	const char *name = hs->name;

	if (!name) {
		name = json_string_value(
		    json_object_get(json_object_get(l->man[i].root, "host"), "hostname"));
		for (unsigned k = 0; name && k < i; k++)
			if (!strcmp(l->h[k].host.name, name))
				name = NULL;
		if (!(l->names[i] = strdup(name ? name : hs->path)))
			return iot_err_set(e, -ENOMEM, "out of memory");
		name = l->names[i];
	}
	l->h[i].host.name = name;
	return 0;
}

/* Host i opened: a run directory with a block trace or packets, and a manifest with clock
 * pairs. 0, RUN_SET_APART, RUN_SET_BAD_MANIFEST (e says why) or -errno. */
static int open_host(struct run_set_load *l, const struct run_summaries_host *hosts, unsigned i,
                     json_t *warnings, struct iot_err *e)
{
	const struct run_summaries_host *hs = &hosts[i];
	struct run_set_host *h = &l->h[i];
	struct bt_reader *block = NULL;
	struct run_input ri;
	struct iot_err me;
	int ret;

	if ((ret = run_input_open(&ri, hs->path, e)))
		return ret;
	if (ri.kind != RUN_INPUT_DIR) /* a trace or a capture alone has no manifest */
		ret = RUN_SET_APART;
	else
		ret = open_dir(&ri.rd, hs->path, &block, &l->capture[i], warnings, e);
	if (!ret && l->capture[i] && !(l->capture_path[i] = strdup(ri.rd.captures[0])))
		ret = iot_err_set(e, -ENOMEM, "out of memory");
	if (!ret && !ri.rd.manifest)
		ret = RUN_SET_APART;
	if (ret == RUN_SET_APART)
		iot_err_set(e, ret, "'%s' is not a run directory with a block trace or packets",
		            hs->path);
	if (!ret && manifest_load(ri.rd.manifest, &l->man[i], &me))
		ret = iot_err_set(e, RUN_SET_BAD_MANIFEST, "'%s': %s", hs->path, me.msg);
	else if (!ret)
		h->host.m = &l->man[i];
	run_input_release(&ri);
	if (!ret && !l->man[i].have_clock)
		ret = iot_err_set(e, RUN_SET_APART, "'%s': its manifest has no clock pairs",
		                  hs->path);
	if (!ret && !(l->manifest[i] = json_deep_copy(l->man[i].root)))
		ret = iot_err_set(e, -ENOMEM, "out of memory");
	h->host.rd = block; /* released with the set, on failure too */
	if (!ret)
		ret = name_host(l, hs, i, e);
	h->host.path = hs->path;
	h->host.real_off_ns = hs->offset_ns;
	return ret;
}

/* l emptied and made for n hosts, with the passes' options o. 0 or -ENOMEM. */
static int set_new(struct run_set_load *l, unsigned n, const struct blk_opts *o, struct iot_err *e)
{
	size_t k = n ? n : 1;

	memset(l, 0, sizeof(*l));
	if (run_summary_init(&l->s, o) || !(l->h = calloc(k, sizeof(*l->h))) ||
	    !(l->man = calloc(k, sizeof(*l->man))) ||
	    !(l->manifest = calloc(k, sizeof(*l->manifest))) ||
	    !(l->capture = calloc(k, sizeof(*l->capture))) ||
	    !(l->capture_path = calloc(k, sizeof(*l->capture_path))) ||
	    !(l->names = calloc(k, sizeof(*l->names))))
		return iot_err_set(e, -ENOMEM, "out of memory");
	return 0;
}

int run_set_open(struct run_set_load *l, const struct run_summaries_host *hosts, unsigned n,
                 const struct blk_opts *o, json_t *warnings, struct iot_err *e)
{
	int ret;

	if ((ret = set_new(l, n, o, e)))
		return ret;
	for (unsigned i = 0; i < n; i++) {
		l->n = i + 1; /* released from here on */
		if ((ret = open_host(l, hosts, i, warnings, e)))
			return ret;
	}
	return 0;
}

int run_set_load(struct run_set_load *l, const struct run_summaries_host *hosts, unsigned n,
                 const struct blk_opts *o, uint64_t nfs_interval_ns,
                 int (*setup)(void *ctx, unsigned host, struct blk_analysis *a),
                 void (*packets)(void *ctx, unsigned host, struct run_set_host *h), void *ctx,
                 json_t *warnings, struct iot_err *e)
{
	unsigned bad = 0;
	int ret;

	if ((ret = set_new(l, n, o, e)))
		return ret;
	l->s.nfs_interval_ns = nfs_interval_ns;
	for (unsigned i = 0; i < n; i++) {
		l->n = i + 1; /* released from here on */
		if ((ret = open_host(l, hosts, i, warnings, e)))
			return ret == RUN_SET_BAD_MANIFEST ? RUN_SET_APART : ret;
		if (l->capture[i]) { /* pcap_src takes the stream */
			ret = pcap_src_open_stream(&l->h[i].src, l->capture[i], e);
			l->capture[i] = NULL;
			if (ret)
				return ret;
		}
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
		if (l->capture)
			in_stream_close(l->capture[i]);
		if (l->names)
			free(l->names[i]);
		if (l->capture_path)
			free(l->capture_path[i]);
	}
	free(l->h);
	free(l->man);
	free(l->manifest);
	free(l->capture);
	free(l->capture_path);
	free(l->names);
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
