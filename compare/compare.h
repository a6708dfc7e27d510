/* SPDX-License-Identifier: MIT */
/* iotape compare: runs grouped by label, per-metric statistics, baseline, --fail-if rules. */
#ifndef IOTAPE_COMPARE_COMPARE_H
#define IOTAPE_COMPARE_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "compare/stats.h"
#include "common/err.h"

/*
 * The model: every input (a run directory's analysis or a saved `iotape analyze --json`
 * summary) gives one sample per block device, each sample a vector of metric values. Samples
 * with the same label form a group; the group's values are its runs', not its devices': the
 * samples of one run in one group are one value (MB/s and IOPS summed over its devices, a
 * per-device figure unknown), so n counts runs. Each group gets a stats_summary per metric
 * and, against the baseline group, a percent change and Welch's t-test. Renderers
 * (compare_render.c) only read the finished model.
 */

#define CMP_MAX_METRICS 32
#define CMP_MAX_RULES 32

enum cmp_attr {
	CMP_ATTR_KERNEL,
	CMP_ATTR_DISTRO,
	CMP_ATTR_FILESYSTEM,
	CMP_ATTR_DEVICE, /* the device's key (docs/json.md: capture's name, role, ...) */
	CMP_ATTR_ROLE,   /* what it is ("osd.0 journal"), from the summary or manifest */
	CMP_ATTR_GROUP,  /* its stack ("osd.0") */
	CMP_ATTR_NUM,
};

struct cmp_metric {
	char key[64];   /* "mbps", "lat_p99", "nfs3.READ" (what --fail-if names) */
	char title[64]; /* "MiB/s", "D2C p99", "NFSv3 READ" */
	char unit[8];   /* "us", "%", "ms", "MiB/s", "" */
	int decimals;   /* for text, Markdown and HTML */
	/* The quantity's bounds: a confidence interval ends there (two runs of 1 and 900 MB/s
	 * do not make -5000 MB/s likely). lo NaN: 0 unless a value is below 0 (a command's
	 * own number, whose sign nothing else tells). */
	double lo, hi;
	double scale; /* a sweep's number times this is shown (B/s as MiB/s); 0: as it is */
};

struct cmp_sample {
	char *path;
	char *label; /* --label, or NULL until compare_finish() derives it */
	char *attr[CMP_ATTR_NUM];
	json_t *manifest; /* borrowed reference kept for --rows/--cols on other keys */
	json_t *params;   /* a sweep run's parameters {NAME: VALUE}, or NULL */
	double v[CMP_MAX_METRICS];
	/* a metric its run's level of detail cannot give (a summary run's "not_given"): named
	 * as not given, never read as 0 */
	bool not_given[CMP_MAX_METRICS];
	size_t group;
	size_t run;   /* the input it came from (a run traced several devices: one sample each) */
	bool labeled; /* its label was given (--label), not derived */
};

enum cmp_op { CMP_LT, CMP_LE, CMP_GT, CMP_GE };

struct cmp_rule {
	char text[128]; /* as given, for messages and output */
	char metric[64];
	enum cmp_op op;
	double value;
	bool relative; /* value is a percent change against the baseline */
};

enum cmp_result { CMP_NONE = 0, CMP_PASS, CMP_FAIL };

/* One group's numbers for one metric. */
struct cmp_cell {
	struct stats_summary s;
	double change_pct;        /* mean against the baseline's mean; NaN for the baseline */
	struct stats_welch welch; /* against the baseline; NaN when undefined */
	enum cmp_result result;
	int rule;       /* the first rule that failed, or -1 */
	bool missing;   /* a rule had no value here to check: it failed (a gate fails closed) */
	bool not_given; /* no value, and some run of the group cannot give it (summary runs) */
};

struct cmp_group {
	char *label;
	char *rowv, *colv; /* matrix layout coordinates (NULL without --rows/--cols) */
	char *tabv;        /* which matrix (--tables), or NULL */
	size_t base;       /* the group this one is compared with (itself for a baseline) */
	size_t nsamples;
	struct cmp_cell cell[CMP_MAX_METRICS];
};

struct compare_opts {
	const char *baseline; /* label; NULL: the first group */
	const char *rows;     /* attribute names for the matrix layout, or NULL */
	const char *cols;
	const char *tables;  /* one matrix per value of this attribute (e.g. a request size) */
	const char *by;      /* comma-separated attributes for automatic labels; NULL: all four */
	double alpha;        /* >0: a relative rule fails only when also p < alpha */
	const char *metrics; /* comma-separated metrics to show (NULL: every one with values) */
	bool pool;           /* pool runs whose manifests' labels differ (else an error) */
};

struct compare {
	struct cmp_metric metric[CMP_MAX_METRICS];
	size_t nmetrics;
	struct cmp_sample *sample;
	size_t nsamples, capsamples;
	size_t nruns;
	struct cmp_group *group;
	size_t ngroups;
	size_t baseline; /* index into group */
	struct cmp_rule rule[CMP_MAX_RULES];
	size_t nrules;
	struct compare_opts opts;
	size_t nfailed; /* group x metric cells that failed a rule */
	/* a group held several devices of one run: its MB/s and IOPS are the run's sum, its
	 * per-device figures unknown; how many (group, run) pairs, of how many devices at most */
	size_t merged, merged_devices;
	/* runs nothing told apart (no kernel, distro, filesystem or label known for all): each
	 * is a group of its own, not pooled; compare_finish() counts them */
	size_t unpooled;
	bool param_base;              /* --baseline NAME=V: each group has a baseline of its own */
	bool hidden[CMP_MAX_METRICS]; /* left out by opts.metrics */
	/* the order metrics are shown in: opts.metrics's, then the rest (compare_metric_at) */
	size_t order[CMP_MAX_METRICS];
	bool ordered;
};

/* Attribute names as accepted by --rows, --cols and --by. */
const char *compare_attr_name(enum cmp_attr a);

int compare_init(struct compare *c);
void compare_release(struct compare *c);

/*
 * Add one input. summary is `iotape analyze --json` output (devices[], span_ns, nfs); manifest
 * is the run's manifest.json or NULL (a "manifest" object inside summary is used then). label
 * overrides the derived label. References to the JSON are taken (json_incref) and released by
 * compare_release().
 */
int compare_add(struct compare *c, const char *path, json_t *summary, json_t *manifest,
                const char *label, struct iot_err *e);

/*
 * Add one run of a sweep (compare_sweep.c): its analysis summary as for compare_add (NULL for
 * a run without a trace), its manifest or NULL, its parameters {NAME: VALUE}, which become
 * attributes (--by, --rows, --cols, --tables, --baseline NAME=V; by default the groups are the
 * sweep's cells), and its own numbers {NAME: number} (`--metric`s and wall_s), metrics of
 * their own counted once per run. References are taken.
 */
int compare_add_run(struct compare *c, const char *path, json_t *summary, json_t *manifest,
                    json_t *params, json_t *metrics, struct iot_err *e);
/* A sweep's number KEY counts UNIT (`--metric NAME:UNIT=...`): its tables and axes name it,
 * bytes (B, KiB, B/s, KiB/s) shown in MiB and MiB/s. Before its runs are added. */
int compare_sweep_unit(struct compare *c, const char *key, const char *unit, struct iot_err *e);

/* Parse "METRIC<-10%", "lat_p99>=2.5", "mbps < 100" into r. */
int compare_parse_rule(const char *s, struct cmp_rule *r, struct iot_err *e);
int compare_add_rule(struct compare *c, const char *s, struct iot_err *e);

/* Group, summarize, test and apply the rules. Unknown metrics in rules, an unknown baseline
 * or attribute are -EINVAL with e filled. */
int compare_finish(struct compare *c, const struct compare_opts *o, struct iot_err *e);

/* Is metric m in the tables: some group has a value, and --metrics does not leave it out. */
bool compare_metric_shown(const struct compare *c, size_t m);
/* The metric shown i-th (i < nmetrics): --metrics's order first, then the table's. */
size_t compare_metric_at(const struct compare *c, size_t i);

/* Metric index by key or alias ("MiB/s", "p99", "nfs.READ"), or -1. */
int compare_metric_find(const struct compare *c, const char *name);

enum cmp_format { CMP_FMT_TEXT, CMP_FMT_MARKDOWN, CMP_FMT_CSV, CMP_FMT_JSON, CMP_FMT_HTML };

int compare_format_parse(const char *s, enum cmp_format *out);
/* Write the finished table (or matrix, with opts.rows/cols) to f. Returns 0 or -errno. */
int compare_render(const struct compare *c, enum cmp_format fmt, FILE *f);
/* The JSON model (new reference) for --format json. */
json_t *compare_to_json(const struct compare *c);

#endif
