/* SPDX-License-Identifier: MIT */
/* iotape analyze for packet captures: NFS/RPC statistics as text or the "nfs" JSON object. */
#include "cli/analyze.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/nfs_stats.h"
#include "cli/cli.h"
#include "common/textesc.h"
#include "formats/instream.h"
#include "formats/nfs_pipe.h"

static void text_procs(FILE *f, const struct nfs_stats *s)
{
	unsigned i;
	char b[7][24];

	fprintf(f, "%-8s %-7s %-20s %9s %7s %10s %9s %9s %9s %9s %9s %9s\n", "program", "version",
		"procedure", "calls", "errors", "MB", "min", "mean", "p50", "p90", "p99", "max");
	for (i = 0; i < s->nprocs; i++) {
		const struct nfs_proc_stats *r = &s->procs[i];
		const struct hist *h = r->srt;
		const char *pn = r->kind == RPC_KIND_NFS_CB ? "NFS_CB" : rpc_prog_name(r->prog);
		char pbuf[16];

		if (!pn) {
			snprintf(pbuf, sizeof(pbuf), "%u", r->prog);
			pn = pbuf;
		}
		fprintf(f, "%-8s %-7s %-20s %9llu %7llu %10.1f %9s %9s %9s %9s %9s %9s\n", pn,
			r->version, r->name, (unsigned long long)r->calls,
			(unsigned long long)r->errors, (double)r->bytes / 1e6,
			fmt_duration(h->count ? (double)h->min : 0, b[0], 24),
			fmt_duration(hist_mean(h), b[1], 24), fmt_duration((double)hist_quantile(h, .5), b[2], 24),
			fmt_duration((double)hist_quantile(h, .9), b[3], 24),
			fmt_duration((double)hist_quantile(h, .99), b[4], 24),
			fmt_duration((double)h->max, b[5], 24));
	}
}

static void text_errors(FILE *f, const struct nfs_stats *s)
{
	unsigned i, k, any = 0;
	char st[48];

	for (i = 0; i < s->nprocs; i++) {
		const struct nfs_proc_stats *r = &s->procs[i];

		for (k = 0; k < r->nerr; k++) {
			if (!any++)
				fprintf(f, "\nerrors by status:\n");
			nfs_status_str(r->err[k].status, r->vers != 3, st, sizeof(st));
			fprintf(f, "  %-8s %-7s %-20s %-28s %9llu\n",
				r->kind == RPC_KIND_NFS_CB ? "NFS_CB"
				: rpc_prog_name(r->prog) ? rpc_prog_name(r->prog)
							 : "?",
				r->version, r->name, st, (unsigned long long)r->err[k].n);
		}
		if (r->err_other)
			fprintf(f, "  %-8s %-7s %-20s %-28s %9llu\n", "", r->version, r->name,
				"(other statuses)", (unsigned long long)r->err_other);
	}
}

/* The timeline when it is short enough to read (at most 60 bins). */
static void text_timeline(FILE *f, const struct nfs_stats *s)
{
	double secs = (double)s->cfg.interval_ns / 1e9;
	unsigned i;
	char b[24];

	if (!s->nbins || s->nbins > 60)
		return;
	fprintf(f, "\ntimeline (%s bins):\n  %10s %10s %11s %11s %12s\n",
		fmt_duration((double)s->cfg.interval_ns, b, sizeof(b)), "start (s)", "ops/s",
		"read MB/s", "write MB/s", "outstanding");
	for (i = 0; i < s->nbins; i++) {
		const struct nfs_bin *n = &s->bins[i];

		fprintf(f, "  %10.3f %10.1f %11.2f %11.2f %12.2f\n", (double)i * secs,
			(double)n->ops / secs, (double)n->read_bytes / 1e6 / secs,
			(double)n->write_bytes / 1e6 / secs,
			(double)n->busy_ns / (double)s->cfg.interval_ns);
	}
}

static void text_fh(FILE *f, const struct nfs_stats *s, int by_bytes)
{
	unsigned idx[64], n, i, k, top = s->cfg.top < 64 ? s->cfg.top : 64;

	n = nfs_stats_top_fh(s, by_bytes, idx, top);
	if (!n)
		return;
	fprintf(f, "\ntop file handles by %s:\n", by_bytes ? "bytes" : "ops");
	for (i = 0; i < n; i++) {
		const struct nfs_fh_stats *h = &s->fhs[idx[i]];
		char hex[2 * NFS_FH_MAX + 8];
		size_t o = 0;

		/* long handles share long prefixes (export, fsid): keep the head and the tail */
		for (k = 0; k < h->len; k++) {
			if (h->len > 32 && k == 12) {
				o += (size_t)snprintf(hex + o, sizeof(hex) - o, "…");
				k = h->len - 12u;
			}
			o += (size_t)snprintf(hex + o, sizeof(hex) - o, "%02x", h->fh[k]);
		}
		hex[o] = 0;
		fprintf(f, "  %-64s %9llu ops %10.1f MB read %10.1f MB written", hex,
			(unsigned long long)h->ops, (double)h->read_bytes / 1e6,
			(double)h->write_bytes / 1e6);
		if (h->size != UINT64_MAX)
			fprintf(f, "  size %llu", (unsigned long long)h->size);
		fputc('\n', f);
	}
}

static void text_render(FILE *f, const char *path, const struct nfs_stats *s,
			const struct nfs_pipe *p, const char *stop)
{
	const struct tcp_counters *t = tcp_table_counters(p->tcp);
	const struct rpc_counters *r = rpc_dec_counters(p->rpc);
	unsigned i;
	char b[2][24];

	if (stop)
		fprintf(f, "partial results: the capture stops at bad bytes (%s); what came "
			   "before them:\n",
			stop);

	fputs("capture '", f);
	txt_puts(f, path);
	fprintf(f, "': %llu frames over %.3f s, %llu RPC calls, %llu replies\n\n",
		(unsigned long long)p->n.frames, (double)(p->n.last_ns - p->n.first_ns) / 1e9,
		(unsigned long long)r->calls, (unsigned long long)r->replies);
	if (!s->nprocs) {
		fprintf(f, "no RPC traffic found\n");
	} else {
		text_procs(f, s);
	}
	if (s->nclients) {
		fprintf(f, "\nclients:\n");
		for (i = 0; i < s->nclients; i++) {
			const struct nfs_client_stats *c = &s->clients[i];
			char a[64];

			nfs_addr_str(c->family, c->addr, a, sizeof(a));
			fprintf(f, "  %-39s %9llu calls %7llu errors %10.1f MB read %10.1f MB written"
				   "  mean %s max %s\n",
				a, (unsigned long long)c->calls, (unsigned long long)c->errors,
				(double)c->read_bytes / 1e6, (double)c->write_bytes / 1e6,
				fmt_duration(c->replies ? (double)(c->srt_sum / c->replies) : 0, b[0], 24),
				fmt_duration((double)c->srt_max, b[1], 24));
		}
	}
	text_errors(f, s);
	text_fh(f, s, 0);
	text_fh(f, s, 1);
	text_timeline(f, s);
	if (s->copy.calls || s->copy.callbacks) {
		fprintf(f, "\nserver-side copy: %llu COPY calls (%llu synchronous, %llu asynchronous, "
			   "%llu errors), %.1f MB copied, %llu CB_OFFLOAD",
			(unsigned long long)s->copy.calls,
			(unsigned long long)(s->copy.calls - s->copy.async),
			(unsigned long long)s->copy.async, (unsigned long long)s->copy.errors,
			(double)(s->copy.bytes + s->copy.cb_bytes) / 1e6,
			(unsigned long long)s->copy.callbacks);
		if (s->copy.cb_latency.count)
			fprintf(f, ", COPY to CB_OFFLOAD mean %s max %s",
				fmt_duration(hist_mean(&s->copy.cb_latency), b[0], 24),
				fmt_duration((double)s->copy.cb_latency.max, b[1], 24));
		fputc('\n', f);
	}
	fprintf(f, "\nstream: %llu connections, %llu bytes lost, %llu RPC retransmits, "
		   "%llu TCP retransmits, %llu unmatched calls, %llu unmatched replies",
		(unsigned long long)t->conns, (unsigned long long)t->lost_bytes,
		(unsigned long long)r->retransmits, (unsigned long long)t->retransmits,
		(unsigned long long)r->unmatched_calls, (unsigned long long)r->unmatched_replies);
	if (t->bad_records || t->resyncs)
		fprintf(f, ", %llu bad records, %llu resyncs", (unsigned long long)t->bad_records,
			(unsigned long long)t->resyncs);
	fputc('\n', f);
}

int analyze_capture(struct in_stream *in, const struct analyze_opts *o, json_t *root, FILE *text,
		    struct iot_err *stop)
{
	const char *path = in_stream_name(in);
	struct nfs_stats_cfg scfg = {.interval_ns = o ? o->interval_ns : 0, .top = o ? o->top : 0};
	struct nfs_stats s;
	struct nfs_pipe p;
	struct pcap_src *src;
	struct iot_err e;
	char *file = strdup(path); /* for the messages: the stream goes with the source */
	int ret;

	if (!file) {
		in_stream_close(in);
		return error("out of memory"), EXIT_SYSTEM;
	}
	path = file;
	ret = pcap_src_open_stream(&src, in, &e);
	if (ret) {
		free(file);
		return error("%s", e.msg), exit_code_for(ret);
	}
	nfs_stats_init(&s, &scfg);
	ret = nfs_pipe_init(&p, NULL, NULL, nfs_stats_txn, &s);
	if (ret) {
		pcap_src_free(src);
		free(file);
		return error("out of memory"), EXIT_SYSTEM;
	}
	ret = nfs_pipe_run(&p, src, &e);
	pcap_src_free(src);
	if (ret && (exit_code_for(ret) != EXIT_USAGE || !p.n.frames)) {
		error("'%s': %s", path, e.msg);
		nfs_pipe_release(&p);
		nfs_stats_release(&s);
		free(file);
		return exit_code_for(ret);
	}
	if (ret) {
		/* bad bytes after good frames: those are reported, marked partial */
		iot_err_prefix(&e, "'%s'", path);
		warning("partial results: the capture stops at bad bytes; the %llu frames before "
			"them are analyzed (the error follows)",
			(unsigned long long)p.n.frames);
	}
	nfs_pipe_finish(&p);
	if (p.n.truncated)
		warning("'%s': the capture ends inside a packet record (truncated file)", path);
	nfs_stats_sort(&s);
	if (root) {
		json_t *nfs = nfs_stats_json(&s, &p), *in = json_object_get(nfs, "input");

		json_object_set_new(in, "partial", json_boolean(ret != 0));
		if (ret)
			json_object_set_new(in, "error", json_string(e.msg));
		json_object_set_new(root, "nfs", nfs);
	}
	if (text)
		text_render(text, path, &s, &p, ret ? e.msg : NULL);
	nfs_pipe_release(&p);
	nfs_stats_release(&s);
	free(file);
	if (ret && stop)
		*stop = e;
	else if (ret)
		return error("%s", e.msg), EXIT_USAGE;
	return EXIT_OK;
}
