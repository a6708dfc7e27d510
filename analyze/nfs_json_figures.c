/* SPDX-License-Identifier: MIT */
/* Pieces every NFS JSON writer uses: a status's name, a histogram's and a sketch's figures. */
#include "analyze/nfs_stats.h"

#include <stdio.h>

#include "common/jsonint.h"

static const char *const accept_names[] = {"SUCCESS",      "PROG_UNAVAIL", "PROG_MISMATCH",
                                           "PROC_UNAVAIL", "GARBAGE_ARGS", "SYSTEM_ERR"};

/* Status name for errors-by-status keys. */
void nfs_status_str(uint32_t st, int v4, char *buf, size_t len)
{
	const char *n;

	if (st == NFS_ERR_RPC_DENIED) {
		snprintf(buf, len, "RPC_DENIED");
	} else if ((st & 0xffffff00u) == NFS_ERR_RPC_ACCEPT) {
		unsigned a = st & 0xff;

		if (a < sizeof(accept_names) / sizeof(accept_names[0]))
			snprintf(buf, len, "RPC_%s", accept_names[a]);
		else
			snprintf(buf, len, "RPC_ACCEPT_%u", a);
	} else if ((n = nfs_status_name(st))) {
		snprintf(buf, len, "NFS%dERR_%s", v4 || st >= 10000 ? 4 : 3, n);
	} else {
		snprintf(buf, len, "%u", st);
	}
}

/* The quantiles every NFS figure set gives, and their keys. */
static const double fig_q[] = {0.50, 0.90, 0.99, 0.999};
static const char *const fig_key[] = {"p50", "p90", "p99", "p99_9"};
#define NFIG_Q (sizeof(fig_q) / sizeof(fig_q[0]))

/* The figures of a histogram or a sketch, under the same keys whichever it is. */
static json_t *figures_json(uint64_t count, uint64_t min, double mean, const uint64_t *q,
                            uint64_t max, double sum)
{
	json_t *o = json_object();

	json_object_set_new(o, "count", json_u64(count));
	json_object_set_new(o, "min", json_integer(count ? (json_int_t)min : 0));
	json_object_set_new(o, "mean", json_real(mean));
	for (unsigned i = 0; i < NFIG_Q; i++)
		json_object_set_new(o, fig_key[i], json_u64(q[i]));
	json_object_set_new(o, "max", json_u64(max));
	json_object_set_new(o, "sum", json_real(sum));
	return o;
}

/* A histogram's figures, and its non-empty buckets as [lo, hi, count] (ns, inclusive). */
json_t *nfs_hist_json(const struct hist *h)
{
	uint64_t q[NFIG_Q];
	json_t *o, *b = json_array();

	for (unsigned i = 0; i < NFIG_Q; i++)
		q[i] = hist_quantile(h, fig_q[i]);
	o = figures_json(h->count, h->min, hist_mean(h), q, h->max, (double)h->sum);
	for (unsigned i = 0; i < HIST_BUCKETS && h->count; i++) {
		uint64_t lo, hi;

		if (!h->b[i])
			continue;
		hist_bucket_bounds(i, &lo, &hi);
		json_array_append_new(
		    b, json_pack("[III]", (json_int_t)lo, (json_int_t)hi, (json_int_t)h->b[i]));
	}
	json_object_set_new(o, "buckets", b);
	return o;
}

/* The same figures from a small histogram (percentiles within 12.5 %), without buckets. */
json_t *nfs_sketch_json(const struct nfs_sketch *k)
{
	uint64_t q[NFIG_Q];

	for (unsigned i = 0; i < NFIG_Q; i++)
		q[i] = nfs_sketch_quantile(k, fig_q[i]);
	return figures_json(k->count, k->min, nfs_sketch_mean(k), q, k->max, k->sum);
}
