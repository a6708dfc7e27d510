/* SPDX-License-Identifier: MIT */
/* analyze's text summary of packet captures, from the NFS statistics its JSON view is built of. */
#include "analyze/nfs_text.h"

#include <string.h>

#include "common/textesc.h"
#include "common/units.h"
#include "formats/netaddr.h"

/* A duration, or "-" when there is none (no reply: no response time). */
static const char *dur_or_dash(uint64_t count, double ns, char *buf, size_t len)
{
	if (!count) {
		snprintf(buf, len, "-");
		return buf;
	}
	return iot_fmt_dur(ns, buf, len);
}

static const char *prog_name(const struct nfs_proc_stats *r, char *buf, size_t len)
{
	const char *pn = r->kind == RPC_KIND_NFS_CB ? "NFS_CB" : rpc_prog_name(r->prog);

	if (pn)
		return pn;
	snprintf(buf, len, "%u", r->prog);
	return buf;
}

static void text_procs(FILE *f, const struct nfs_stats *s)
{
	unsigned i;
	char b[8][24];

	fprintf(f, "%-8s %-7s %-20s %9s %7s %10s %9s %9s %9s %9s %9s %9s %9s\n", "program",
	        "version", "procedure", "calls", "errors", "MiB", "min", "mean", "p50", "p90",
	        "p99", "p99.9", "max");
	for (i = 0; i < s->nprocs; i++) {
		const struct nfs_proc_stats *r = &s->procs[i];
		const struct hist *h = r->srt;
		uint64_t n = h->count;

		fprintf(f, "%-8s %-7s %-20s %9llu %7llu %10.1f %9s %9s %9s %9s %9s %9s %9s\n",
		        prog_name(r, b[7], 24), r->version, r->name, (unsigned long long)r->calls,
		        (unsigned long long)r->e.errors, (double)r->bytes / IOT_MIB,
		        dur_or_dash(n, (double)h->min, b[0], 24),
		        dur_or_dash(n, hist_mean(h), b[1], 24),
		        dur_or_dash(n, (double)hist_quantile(h, .5), b[2], 24),
		        dur_or_dash(n, (double)hist_quantile(h, .9), b[3], 24),
		        dur_or_dash(n, (double)hist_quantile(h, .99), b[4], 24),
		        dur_or_dash(n, (double)hist_quantile(h, .999), b[5], 24),
		        dur_or_dash(n, (double)h->max, b[6], 24));
	}
}

static void text_errors(FILE *f, const struct nfs_stats *s)
{
	unsigned i, k, any = 0, m, op;
	char st[48], pb[16];

	for (i = 0; i < s->nprocs; i++) {
		const struct nfs_proc_stats *r = &s->procs[i];

		for (k = 0; k < r->e.nerr; k++) {
			if (!any++)
				fprintf(f, "\nerrors by status:\n");
			nfs_status_str(r->e.err[k].status, r->vers != 3, st, sizeof(st));
			fprintf(f, "  %-8s %-7s %-20s %-28s %9llu\n", prog_name(r, pb, sizeof(pb)),
			        r->version, r->name, st, (unsigned long long)r->e.err[k].n);
		}
		if (r->e.err_other)
			fprintf(f, "  %-8s %-7s %-20s %-28s %9llu\n", "", r->version, r->name,
			        "(other statuses)", (unsigned long long)r->e.err_other);
	}
	any = 0;
	for (m = 0; m < 4; m++) {
		for (op = 0; op < NFS4_OPS_COUNTED; op++) {
			const struct nfs_errs *e = &s->v4_op_errs[m][op];
			const char *n = nfs4_op_name(op);

			for (k = 0; k < e->nerr; k++) {
				if (!any++)
					fprintf(f, "\nNFSv4 errors by the op that failed:\n");
				nfs_status_str(e->err[k].status, 1, st, sizeof(st));
				fprintf(f, "  4.%u%-4s %-20s %-28s %9llu\n", m, m == 3 ? "+" : "",
				        n ? n : "?", st, (unsigned long long)e->err[k].n);
			}
		}
	}
}

/* The timeline when it is short enough to read (at most 60 bins). */
static void text_timeline(FILE *f, const struct nfs_stats *s)
{
	double secs = (double)s->clock.width / 1e9;
	unsigned i;
	char b[24];

	if (!s->clock.n || s->clock.n > 60)
		return;
	fprintf(f, "\ntimeline (%s bins):\n  %10s %10s %11s %11s %12s\n",
	        iot_fmt_dur((double)s->clock.width, b, sizeof(b)), "start (s)", "ops/s",
	        "read MiB/s", "write MiB/s", "outstanding");
	for (i = 0; i < s->clock.n; i++) {
		const struct nfs_bin *n = &s->bins[i];

		fprintf(f, "  %10.3f %10.1f %11.2f %11.2f %12.2f\n", (double)i * secs,
		        (double)n->ops / secs, (double)n->read_bytes / IOT_MIB / secs,
		        (double)n->write_bytes / IOT_MIB / secs,
		        (double)n->busy_ns / (double)s->clock.width);
	}
}

/* Long paths and handles share long prefixes: keep the head and the tail. */
static const char *elide(const char *p, char *buf, size_t len, size_t width)
{
	size_t n = strlen(p);

	if (n <= width || width < 12)
		return p;
	snprintf(buf, len, "%.*s...%s", (int)(width / 3), p, p + n - (width - width / 3 - 3));
	return buf;
}

#define TEXT_TOP 5 /* entries of each ranking the text shows (--json has --top) */

static unsigned text_top(const struct nfs_stats *s)
{
	return s->cfg.top < TEXT_TOP ? s->cfg.top : TEXT_TOP;
}

static void text_clients(FILE *f, const struct nfs_stats *s)
{
	static const char *const title[NFS_CLIENT_KINDS] = {
	    [NFS_BY_CONNECTION] = "connections",
	    [NFS_BY_UID] = "users (AUTH_SYS uid/gid)",
	    [NFS_BY_MACHINE] = "machines (AUTH_SYS name)",
	};
	static const enum nfs_client_kind order[] = {NFS_BY_CONNECTION, NFS_BY_UID, NFS_BY_MACHINE};
	unsigned idx[TEXT_TOP];
	char b[3][24], who[300];

	for (unsigned o = 0; o < 3; o++) {
		enum nfs_client_kind k = order[o];
		const struct nfs_client_table *tb = &s->clients[k];
		unsigned n = nfs_stats_top_clients(s, k, NFS_RANK_WAIT, idx, text_top(s));

		if (!n)
			continue;
		fprintf(f, "\nclients by time waited, %s (%u of %u):\n", title[k], n, tb->n);
		for (unsigned i = 0; i < n; i++) {
			const struct nfs_client *c = &tb->c[idx[i]];

			if (k == NFS_BY_CONNECTION) {
				net_endpoint_str(&c->client, who, sizeof(who));
			} else if (k == NFS_BY_UID) {
				snprintf(who, sizeof(who), "uid %u gid %u", c->uid, c->gid);
			} else {
				snprintf(who, sizeof(who), "%s", c->machine);
			}
			fprintf(f,
			        "  %-40s %9llu calls %7llu errors %10.1f MiB  waited %s  mean %s "
			        "p99 %s\n",
			        who, (unsigned long long)c->calls, (unsigned long long)c->errors,
			        (double)(c->read_bytes + c->write_bytes) / IOT_MIB,
			        iot_fmt_dur((double)c->wait_ns, b[0], 24),
			        dur_or_dash(c->srt.count, nfs_sketch_mean(&c->srt), b[1], 24),
			        dur_or_dash(c->srt.count, (double)nfs_sketch_quantile(&c->srt, .99),
			                    b[2], 24));
		}
		if (tb->folded)
			fprintf(f, "  (%llu calls of clients past the first %u in 'other')\n",
			        (unsigned long long)tb->folded, tb->max);
	}
}

static void text_files(FILE *f, const struct nfs_stats *s, enum nfs_rank by)
{
	unsigned idx[TEXT_TOP], n = nfs_stats_top_files(s, by, idx, text_top(s));
	char path[1024], e[64], b[2][24];

	if (!n)
		return;
	fprintf(f, "\nfiles by %s:\n", by == NFS_RANK_WAIT ? "time waited" : "bytes");
	for (unsigned i = 0; i < n; i++) {
		const struct nfs_file *x = &s->files.f[idx[i]];

		unsigned fl = nfs_names_path(s->names, x->node, path, sizeof(path));

		if (fl & NFS_PATH_REMOVED)
			strncat(path, " (removed)", sizeof(path) - strlen(path) - 1);
		fprintf(
		    f, "  %-48s %8llu ops %9.1f MiB read %9.1f MiB written  waited %s  p99 %s\n",
		    elide(path, e, sizeof(e), 48), (unsigned long long)x->ops,
		    (double)x->rd.bytes / IOT_MIB, (double)x->wr.bytes / IOT_MIB,
		    iot_fmt_dur((double)x->wait_ns, b[0], 24),
		    dur_or_dash(x->srt.count, (double)nfs_sketch_quantile(&x->srt, .99), b[1], 24));
	}
}

static void text_slowest(FILE *f, const struct nfs_stats *s)
{
	struct nfs_slow v[TEXT_TOP];
	unsigned n = nfs_stats_slowest(s, v, text_top(s));
	char b[24], a[64], path[1024], e[48], st[48], t[40];

	if (!n)
		return;
	fprintf(f, "\nslowest calls:\n");
	for (unsigned i = 0; i < n; i++) {
		const struct nfs_slow *x = &v[i];
		const struct nfs_proc_stats *r = nfs_stats_row(s, x->row);

		net_addr_str(&x->client.addr, a, sizeof(a));
		nfs_stats_file_path(s, x->node, x->fh, x->fh_len, path, sizeof(path));
		nfs_status_str(x->status, r && r->vers != 3, st, sizeof(st));
		fprintf(f, "  %10s s %9s  %s:%u xid 0x%08x  %s %s %s",
		        iot_fmt_secs(x->call_ns - s->first_call_ns, 6, t, sizeof(t)),
		        iot_fmt_dur((double)x->srt, b, sizeof(b)), a, x->client.port, x->xid,
		        r ? r->version : "?", r ? r->name : "?",
		        x->node != NFS_NAME_NONE || x->fh_len ? elide(path, e, sizeof(e), 40) : "");
		if (x->has_io)
			fprintf(f, " @%llu+%llu", (unsigned long long)x->offset,
			        (unsigned long long)x->count);
		fprintf(f, "%s%s\n", x->status ? " " : "", x->status ? st : "");
	}
}

void nfs_text_render(FILE *f, const struct nfs_pipe_file *files, unsigned n,
                     const struct nfs_stats *s, const struct nfs_pipe *p, const char *stop)
{
	const struct tcp_counters *t = tcp_table_counters(p->tcp);
	const struct rpc_counters *r = rpc_dec_counters(p->rpc);
	char b[2][24], span[40];

	if (stop)
		fprintf(f,
		        "partial results: the capture stops at bad bytes (%s); what came "
		        "before them:\n",
		        stop);

	fputs("capture ", f);
	for (unsigned i = 0; i < n; i++) {
		fputs(i ? ", '" : "'", f);
		txt_puts(f, files[i].name);
		fputc('\'', f);
	}
	fprintf(f, ": %llu frames over %s s, %llu RPC calls, %llu replies\n\n",
	        (unsigned long long)p->n.frames,
	        iot_fmt_secs(p->n.last_ns - p->n.first_ns, 3, span, sizeof(span)),
	        (unsigned long long)r->calls, (unsigned long long)r->replies);
	if (p->n.skipped[PKT_LINKTYPE])
		fprintf(f,
		        "link type %d (%s) is not decoded: %llu frames skipped (iotape reads "
		        "Ethernet, Linux cooked, raw IP and loopback captures)\n\n",
		        p->n.dlt, pcap_src_dlt_name(p->n.dlt),
		        (unsigned long long)p->n.skipped[PKT_LINKTYPE]);
	if (!s->nprocs) {
		fprintf(f, "no RPC traffic found\n");
	} else {
		text_procs(f, s);
	}
	text_clients(f, s);
	text_files(f, s, NFS_RANK_WAIT);
	text_files(f, s, NFS_RANK_BYTES);
	text_slowest(f, s);
	text_errors(f, s);
	text_timeline(f, s);
	if (s->copy.calls || s->copy.callbacks) {
		fprintf(f,
		        "\nserver-side copy: %llu COPY calls (%llu synchronous, %llu asynchronous, "
		        "%llu errors), %.1f MiB copied, %llu CB_OFFLOAD",
		        (unsigned long long)s->copy.calls,
		        (unsigned long long)(s->copy.calls - s->copy.async),
		        (unsigned long long)s->copy.async, (unsigned long long)s->copy.errors,
		        (double)(s->copy.bytes + s->copy.cb_bytes) / IOT_MIB,
		        (unsigned long long)s->copy.callbacks);
		if (s->copy.cb_latency.count)
			fprintf(f, ", COPY to CB_OFFLOAD mean %s max %s",
			        iot_fmt_dur(hist_mean(&s->copy.cb_latency), b[0], 24),
			        iot_fmt_dur((double)s->copy.cb_latency.max, b[1], 24));
		fputc('\n', f);
	}
	fprintf(f, "\nstream: %llu connections", (unsigned long long)t->conns);
	if (t->non_rpc_conns || t->non_rpc_bytes)
		fprintf(f, " (%llu not RPC: %llu bytes)", (unsigned long long)t->non_rpc_conns,
		        (unsigned long long)t->non_rpc_bytes);
	fprintf(f,
	        ", %llu bytes lost, %llu RPC retransmits, "
	        "%llu TCP retransmits, %llu unmatched calls, %llu unmatched replies",
	        (unsigned long long)t->lost_bytes, (unsigned long long)r->retransmits,
	        (unsigned long long)t->retransmits, (unsigned long long)r->unmatched_calls,
	        (unsigned long long)r->unmatched_replies);
	if (t->bad_records || t->resyncs)
		fprintf(f, ", %llu bad records, %llu resyncs", (unsigned long long)t->bad_records,
		        (unsigned long long)t->resyncs);
	fputc('\n', f);
	if (s->event_counts[NET_EV_GAP] || s->event_counts[NET_EV_RETRANSMIT])
		fprintf(f,
		        "events: %llu capture gaps, %llu retransmitted calls (when, where and "
		        "which XID: --json)\n",
		        (unsigned long long)s->event_counts[NET_EV_GAP],
		        (unsigned long long)s->event_counts[NET_EV_RETRANSMIT]);
	if (r->cut_calls || r->cut_replies)
		fprintf(f,
		        "cut by the snaplen: %llu calls, %llu replies (statuses counted from the "
		        "captured part; %llu NFSv4 COMPOUNDs cut before their main op are "
		        "COMPOUND_CUT)\n",
		        (unsigned long long)r->cut_calls, (unsigned long long)r->cut_replies,
		        (unsigned long long)r->cut_compounds);
}
