/* SPDX-License-Identifier: MIT */
/* iotape analyze for packet captures: NFS/RPC statistics as text or the "nfs" JSON object. */
#include "cli/analyze.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/idle_explain.h"
#include "analyze/nfs_stats.h"
#include "analyze/nfs_text.h"
#include "analyze/run_summary.h"
#include "cli/cli.h"
#include "cli/inputs.h"
#include "formats/instream.h"
#include "formats/nfs_pipe.h"

int analyze_captures(struct in_stream **in, unsigned n, const struct analyze_opts *o, json_t *root,
                     FILE *text, struct iot_err *stop, struct idle_explain *x, unsigned h)
{
	struct blk_opts bo;
	struct run_nfs rn;
	struct pcap_src **src = calloc(n, sizeof(*src));
	struct nfs_pipe_file *files = calloc(n, sizeof(*files));
	struct iot_err e;
	json_t *nfs;
	unsigned i, bad = 0;
	int ret = 0;

	if (!src || !files) {
		for (i = 0; i < n; i++)
			in_stream_close(in[i]);
		free(src);
		free(files);
		return error("out of memory"), EXIT_SYSTEM;
	}
	/* names for the messages: each stream goes with its source */
	for (i = 0; i < n; i++)
		if (!(files[i].name = strdup(in_stream_name(in[i]))))
			ret = -ENOMEM;
	for (i = 0; i < n; i++) {
		if (ret) {
			in_stream_close(in[i]);
			continue;
		}
		ret = pcap_src_open_stream(&src[i], in[i], &e); /* takes in[i], even on failure */
	}
	/* the statistics' options: the block pass's (--interval, --top), as for every command */
	blk_opts_init(&bo);
	if (o) {
		bo.interval_ns = o->interval_ns;
		bo.idle_threshold_ns = o->idle_threshold_ns;
		bo.top = o->top;
	}
	if (!ret && run_nfs_init(&rn, &bo, 0, x, h))
		ret = -ENOMEM;
	if (ret) {
		if (ret == -ENOMEM)
			error("out of memory");
		else
			error("%s", e.msg);
		ret = exit_code_for(ret);
		goto done;
	}
	ret = run_nfs_read(&rn, src, files, n, &e, &bad);
	if (ret && (exit_code_for(ret) != EXIT_USAGE || !rn.p.n.frames)) {
		error("'%s': %s", files[bad].name, e.msg);
		run_nfs_release(&rn);
		ret = exit_code_for(ret);
		goto done;
	}
	if (ret) {
		/* bad bytes after good frames: those are reported, marked partial */
		struct iot_err kept = {""};

		iot_err_prefix(&e, "'%s'", files[bad].name);
		partial_results("capture", &e, stop ? stop : &kept, NULL);
	}
	nfs = run_nfs_finish(&rn, ret ? &e : NULL);
	for (i = 0; i < n; i++)
		if (files[i].truncated)
			warning("'%s': the capture ends inside a packet record (truncated file)",
			        files[i].name);
	if (rn.p.n.skipped[PKT_LINKTYPE])
		warning("'%s'%s: link type %d (%s) is not decoded: %llu frames skipped",
		        files[0].name, n > 1 ? " and the others" : "", rn.p.n.dlt,
		        pcap_src_dlt_name(rn.p.n.dlt),
		        (unsigned long long)rn.p.n.skipped[PKT_LINKTYPE]);
	if (root)
		json_object_set_new(root, "nfs", nfs);
	else
		json_decref(nfs);
	if (text)
		nfs_text_render(text, files, n, &rn.s, &rn.p, ret ? e.msg : NULL);
	run_nfs_release(&rn);
	if (ret && !stop)
		error("%s", e.msg);
	ret = ret && !stop ? EXIT_USAGE : EXIT_OK;
done:
	for (i = 0; i < n; i++)
		if (src[i])
			pcap_src_free(src[i]);
	for (i = 0; i < n; i++)
		free((char *)files[i].name);
	free(src);
	free(files);
	return ret;
}
