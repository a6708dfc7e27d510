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

/* A histogram's figures, and its non-empty buckets as [lo, hi, count] (ns, inclusive). */
json_t *nfs_hist_json(const struct hist *h)
{
	json_t *o = json_object(), *b = json_array();

	json_object_set_new(o, "count", json_u64(h->count));
	json_object_set_new(o, "min", json_integer(h->count ? (json_int_t)h->min : 0));
	json_object_set_new(o, "mean", json_real(hist_mean(h)));
	json_object_set_new(o, "p50", json_u64(hist_quantile(h, 0.50)));
	json_object_set_new(o, "p90", json_u64(hist_quantile(h, 0.90)));
	json_object_set_new(o, "p99", json_u64(hist_quantile(h, 0.99)));
	json_object_set_new(o, "p99_9", json_u64(hist_quantile(h, 0.999)));
	json_object_set_new(o, "max", json_u64(h->max));
	json_object_set_new(o, "sum", json_real((double)h->sum));
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
	json_t *o = json_object();

	json_object_set_new(o, "count", json_u64(k->count));
	json_object_set_new(o, "min", json_integer(k->count ? (json_int_t)k->min : 0));
	json_object_set_new(o, "mean", json_real(nfs_sketch_mean(k)));
	json_object_set_new(o, "p50", json_u64(nfs_sketch_quantile(k, 0.50)));
	json_object_set_new(o, "p90", json_u64(nfs_sketch_quantile(k, 0.90)));
	json_object_set_new(o, "p99", json_u64(nfs_sketch_quantile(k, 0.99)));
	json_object_set_new(o, "p99_9", json_u64(nfs_sketch_quantile(k, 0.999)));
	json_object_set_new(o, "max", json_u64(k->max));
	json_object_set_new(o, "sum", json_real(k->sum));
	return o;
}
