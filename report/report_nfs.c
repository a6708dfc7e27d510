/* SPDX-License-Identifier: MIT */
/* The report's NFS series: per-interval operations by type, outstanding requests, response time. */
#include "report/report_nfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/nfs_stats.h"
#include "formats/manifest.h"
#include "formats/pcap_src.h"

int rpt_nfs_init(struct rpt_nfs *n, uint64_t interval_ns)
{
	memset(n, 0, sizeof(*n));
	bins_init(&n->clock, interval_ns ? interval_ns : RPT_BASE_WIDTH_NS, RPT_MAX_BINS, false);
	n->bin = calloc(RPT_MAX_BINS, sizeof(*n->bin));
	return n->bin ? 0 : -ENOMEM;
}

void rpt_nfs_release(struct rpt_nfs *n)
{
	free(n->bin);
	memset(n, 0, sizeof(*n));
}

void rpt_nfs_align(struct rpt_nfs *n, const struct manifest *m, uint64_t t0)
{
	n->clock_map = m;
	bins_start(&n->clock, t0);
	n->aligned = true;
}

uint64_t rpt_nfs_span(const struct rpt_nfs *n)
{
	return n->clock.started && n->tlast > n->clock.origin ? n->tlast - n->clock.origin : 0;
}

static void bin_add(void *dst, const void *src)
{
	struct rpt_nfs_bin *a = dst;
	const struct rpt_nfs_bin *b = src;

	for (unsigned s = 0; s < RPT_NFS_SLOTS; s++)
		a->ops[s] += b->ops[s];
	a->replies += b->replies;
	a->errors += b->errors;
	a->busy += b->busy;
	histc_merge(&a->srt, &b->srt);
	a->net_bytes += b->net_bytes;
	a->net_packets += b->net_packets;
}

static void moved(void *ctx, const struct bins_move *m)
{
	struct rpt_nfs *n = ctx;

	bins_move_array(m, n->bin, RPT_MAX_BINS, sizeof(*n->bin), bin_add);
}

static unsigned slot_of(struct rpt_nfs *n, const struct rpc_txn *t)
{
	const char *name = NULL;
	char buf[40];

	if (t->vers == 4)
		name = nfs4_op_name(t->call.op);
	else if (t->vers == 3)
		name = nfs3_proc_name(t->proc);
	snprintf(buf, sizeof(buf), "v%u %s", t->vers, name ? name : "?");
	for (unsigned s = 0; s < n->nslots; s++)
		if (!strcmp(n->slot[s], buf))
			return s;
	if (n->nslots < RPT_NFS_SLOTS - 1) {
		snprintf(n->slot[n->nslots], sizeof(n->slot[0]), "%s", buf);
		return n->nslots++;
	}
	if (n->nslots == RPT_NFS_SLOTS - 1)
		snprintf(n->slot[n->nslots++], sizeof(n->slot[0]), "other");
	return RPT_NFS_SLOTS - 1;
}

double rpt_nfs_x(const struct rpt_nfs *n, uint64_t t)
{
	return ((double)n->map0 - (double)n->clock.origin + ((double)t - (double)n->cap0)) / 1e9 +
	       n->shift_s;
}

void rpt_nfs_frame(void *arg, const struct pkt *p, uint64_t ts_ns)
{
	struct rpt_nfs *n = arg;
	int64_t t;
	uint64_t b;

	/* only on the block trace's axis: unaligned series start at the first NFS call */
	if (!p || !n->clock_map)
		return;
	t = manifest_real_to_trace(n->clock_map, (int64_t)ts_ns);
	if (t < 0 || (uint64_t)t < n->clock.origin)
		return;
	b = bins_place(&n->clock, (uint64_t)t, moved, n);
	n->bin[b].net_bytes += p->len;
	n->bin[b].net_packets++;
	n->net_packets++;
}

void rpt_nfs_txn(void *arg, const struct rpc_txn *t)
{
	struct rpt_nfs *n = arg;
	uint64_t call = t->call_ns, end = t->replied ? t->reply_ns : t->call_ns, b, len;

	if (t->kind != RPC_KIND_NFS) {
		n->ignored++;
		return;
	}
	if (n->clock_map) {
		int64_t c = manifest_real_to_trace(n->clock_map, (int64_t)call);
		int64_t r = manifest_real_to_trace(n->clock_map, (int64_t)end);

		call = c > 0 ? (uint64_t)c : 0;
		end = r > 0 ? (uint64_t)r : 0;
	}
	if (!n->clock.started)
		bins_start(&n->clock, call);
	if (!n->txns) {
		n->cap0 = t->call_ns;
		n->map0 = call;
	}
	if (call < n->clock.origin) {
		/* transactions arrive in reply order: a slow first call can predate the origin */
		n->clamped++;
		call = n->clock.origin;
	}
	if (end < call)
		end = call;
	if (end > n->tlast)
		n->tlast = end;
	bins_place(&n->clock, end, moved, n); /* the width is final for both ends after */
	b = bins_place(&n->clock, call, moved, n);
	n->txns++;
	n->bin[b].ops[slot_of(n, t)]++;
	if (!t->replied)
		return;
	n->replied++;
	b = bins_index(&n->clock, end);
	n->bin[b].replies++;
	if (nfs_txn_status(t)) /* the statistics' rule: one definition of an error */
		n->bin[b].errors++;
	histc_add(&n->bin[b].srt, end - call);
	/* time outstanding, spread over the intervals it covers */
	for (uint64_t from = call; from < end; from += len) {
		len = bins_segment(&n->clock, from, end, &b);
		n->bin[b].busy += (double)len;
	}
}
