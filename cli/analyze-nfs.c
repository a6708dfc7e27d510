/* SPDX-License-Identifier: MIT */
/* iotape analyze for packet captures: NFS/RPC statistics as text or the "nfs" JSON object. */
#include "cli/analyze.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/nfs_stats.h"
#include "analyze/nfs_text.h"
#include "analyze/run_summary.h"
#include "cli/cli.h"
#include "cli/inputs.h"
#include "formats/instream.h"
#include "formats/nfs_pipe.h"

int analyze_captures(struct in_stream **in, unsigned n, struct run_summary *s, unsigned h,
                     json_t *root, FILE *text, struct iot_err *stop)
{
	struct pcap_src **src = calloc(n, sizeof(*src));
	struct nfs_pipe_file *files = calloc(n, sizeof(*files));
	struct run_captures c = {.src = src, .files = files, .n = n, .host = h, .into = root};
	struct iot_err e;
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
	if (ret) {
		if (ret == -ENOMEM)
			error("out of memory");
		else
			error("%s", e.msg);
		ret = exit_code_for(ret);
		goto done;
	}
	/* the run's NFS pipeline, with its options (--interval, --top), as for every command */
	ret = run_summary_captures(s, &c, &e, &bad);
	if (ret < 0) {
		error("%s", e.msg);
		ret = exit_code_for(ret);
		goto done;
	}
	if (ret) {
		/* bad bytes after good frames: those are reported, marked partial */
		struct iot_err kept = {""};

		partial_results("capture", &e, stop ? stop : &kept, NULL);
	}
	for (i = 0; i < n; i++)
		if (files[i].truncated)
			warning("'%s': the capture ends inside a packet record (truncated file)",
			        files[i].name);
	if (s->nfs->p.n.skipped[PKT_LINKTYPE])
		warning("'%s'%s: link type %d (%s) is not decoded: %llu frames skipped",
		        files[0].name, n > 1 ? " and the others" : "", s->nfs->p.n.dlt,
		        pcap_src_dlt_name(s->nfs->p.n.dlt),
		        (unsigned long long)s->nfs->p.n.skipped[PKT_LINKTYPE]);
	if (text)
		nfs_text_render(text, files, n, &s->nfs->s, &s->nfs->p, ret ? e.msg : NULL);
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
