/* SPDX-License-Identifier: MIT */
/* The report's NFS pass: per-interval operations by type, outstanding requests, response time. */
#include "report/report_nfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/manifest.h"

int rpt_nfs_init(struct rpt_nfs *n, uint64_t interval_ns)
{
	memset(n, 0, sizeof(*n));
	n->width = interval_ns ? interval_ns : RPT_BASE_WIDTH_NS;
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
	n->clock = m;
	n->t0 = t0;
	n->started = true;
	n->aligned = true;
}

uint64_t rpt_nfs_span(const struct rpt_nfs *n)
{
	return n->started && n->tlast > n->t0 ? n->tlast - n->t0 : 0;
}

static void nfs_double(struct rpt_nfs *n)
{
	for (unsigned i = 0; i < RPT_MAX_BINS / 2; i++) {
		struct rpt_nfs_bin a = n->bin[2 * i];
		const struct rpt_nfs_bin *b = &n->bin[2 * i + 1];

		for (unsigned s = 0; s < RPT_NFS_SLOTS; s++)
			a.ops[s] += b->ops[s];
		a.replies += b->replies;
		a.errors += b->errors;
		a.busy += b->busy;
		for (unsigned k = 0; k < RPT_LAT_BUCKETS; k++)
			a.srt[k] += b->srt[k];
		n->bin[i] = a;
	}
	memset(&n->bin[RPT_MAX_BINS / 2], 0, RPT_MAX_BINS / 2 * sizeof(*n->bin));
	n->width *= 2;
	n->nbins = (n->nbins + 1) / 2;
}

static unsigned nfs_bin(struct rpt_nfs *n, uint64_t t)
{
	uint64_t rel = t > n->t0 ? t - n->t0 : 0;

	while (rel / n->width >= RPT_MAX_BINS)
		nfs_double(n);
	if (rel / n->width + 1 > n->nbins)
		n->nbins = (unsigned)(rel / n->width + 1);
	return (unsigned)(rel / n->width);
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

void rpt_nfs_txn(void *arg, const struct rpc_txn *t)
{
	struct rpt_nfs *n = arg;
	uint64_t call = t->call_ns, end = t->replied ? t->reply_ns : t->call_ns;
	unsigned b;

	if (t->kind != RPC_KIND_NFS) {
		n->ignored++;
		return;
	}
	if (n->clock) {
		int64_t c = manifest_real_to_trace(n->clock, (int64_t)call);
		int64_t r = manifest_real_to_trace(n->clock, (int64_t)end);

		call = c > 0 ? (uint64_t)c : 0;
		end = r > 0 ? (uint64_t)r : 0;
	}
	if (!n->started) {
		n->started = true;
		n->t0 = call;
	}
	if (call < n->t0) {
		/* transactions arrive in reply order: a slow first call can predate t0 */
		n->clamped++;
		call = n->t0;
	}
	if (end < call)
		end = call;
	if (end > n->tlast)
		n->tlast = end;
	nfs_bin(n, end); /* the width is final for both ends once the later one fits */
	b = nfs_bin(n, call);
	n->txns++;
	n->bin[b].ops[slot_of(n, t)]++;
	if (!t->replied)
		return;
	n->replied++;
	b = nfs_bin(n, end);
	n->bin[b].replies++;
	if (t->reply_stat || t->accept_stat || (t->rep.decoded && t->rep.status))
		n->bin[b].errors++;
	n->bin[b].srt[rpt_lat_bucket(end - call)]++;
	/* time outstanding, spread over the intervals it covers */
	for (uint64_t from = call; from < end;) {
		unsigned k = (unsigned)((from - n->t0) / n->width);
		uint64_t to = n->t0 + ((uint64_t)k + 1) * n->width;

		if (to > end)
			to = end;
		n->bin[k].busy += (double)(to - from);
		from = to;
	}
}
