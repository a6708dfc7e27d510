/* SPDX-License-Identifier: MIT */
/* Shared between compare.c and compare_input.c (not a public interface). */
#ifndef IOTAPE_COMPARE_COMPARE_INT_H
#define IOTAPE_COMPARE_COMPARE_INT_H

#include <stddef.h>

#include <jansson.h>

/* The block metrics every sample has, in table order; NFS metrics are appended as found. */
enum {
	M_MBPS,
	M_IOPS,
	M_P50,
	M_P99,
	M_IDLE,
	M_GAP,
	M_SEEKS,
	M_SEQ,
	M_IDLE_OTHER, /* the busiest other device during the idle gaps (idle.explain) */
	M_IDLE_WORK,  /* the disk idle while NFS calls were outstanding */
	M_NBLOCK,
};

/* A scalar or a descriptive object as text (new string), or NULL. */
char *compare_jtext(const json_t *v);

struct compare;
struct cmp_sample;
struct iot_err;
/* The metric's index (added at the end when new; -ENOSPC when the table is full). */
int compare_metric_add(struct compare *c, const char *key, const char *title, const char *unit,
                       int decimals);
/* A new sample with every metric unknown (NaN) and the manifest's attributes. */
int compare_sample_new(struct compare *c, const char *path, const char *label, json_t *m,
                       struct cmp_sample **out);
/* A sample's attribute by name (new string or NULL): a sweep parameter, the built-ins,
 * "label", "run", or a scalar of the manifest (top level or its "labels"). */
char *compare_sample_attr(const struct cmp_sample *s, const char *name);
/* --baseline NAME=V: every group against the group with NAME=V and the same other grouping
 * values (compare_sweep.c). 0 when done, 1 when the baseline is not of that form. */
int compare_param_bases(struct compare *c, struct iot_err *e);
/* The next name of a comma-separated key list ("version,distro") into part, and where the
 * rest starts; NULL at the end. A name longer than cap is cut. */
const char *compare_key_next(const char *list, char *part, size_t cap);
/* --rows, --cols and --tables name attributes some run has, and, with them or --by, a sweep's
 * parameter that varies is in the layout (its cells' runs are never pooled): 0 or -EINVAL. */
int compare_check_layout(const struct compare *c, struct iot_err *e);

#endif
