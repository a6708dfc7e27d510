/* SPDX-License-Identifier: MIT */
/* iotape compare's inputs: metric values and attributes from summaries and manifests. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonint.h"
#include "common/units.h"
#include "compare/compare.h"
#include "compare/compare_int.h"

/* ---- reading the JSON leniently: the manifest is written by another part of iotape ---- */

static double jnum(const json_t *o, const char *key)
{
	const json_t *v = o ? json_object_get(o, key) : NULL;

	return json_is_number(v) ? json_number_value(v) : json_u64_number(v);
}

static double jpath(const json_t *o, const char *a, const char *b, const char *c)
{
	if (o && a)
		o = json_object_get(o, a);
	if (o && b && c)
		o = json_object_get(o, b);
	return jnum(o, c ? c : b);
}

/* A scalar or a descriptive object as text: a string, a number, or the first of a few
 * well-known keys ("pretty_name", "release", "name", "type", "id"). NULL if none. */
char *compare_jtext(const json_t *v)
{
	static const char *const keys[] = {"pretty_name", "release", "name", "type",
	                                   "fstype",      "id",      "value"};
	char buf[64];

	if (!v)
		return NULL;
	if (json_is_string(v))
		return json_string_length(v) ? strdup(json_string_value(v)) : NULL;
	if (json_is_integer(v)) {
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
		return strdup(buf);
	}
	if (json_is_real(v)) {
		snprintf(buf, sizeof(buf), "%g", json_real_value(v));
		return strdup(buf);
	}
	if (json_is_object(v)) {
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			char *s = compare_jtext(json_object_get(v, keys[i]));

			if (s)
				return s;
		}
	}
	if (json_is_array(v) && json_array_size(v))
		return compare_jtext(json_array_get(v, 0));
	return NULL;
}

static void norm_dev(char *s)
{
	for (; *s; s++)
		if (*s == ':')
			*s = ',';
}

/* The manifest's description of the device the summary calls dev ("7,0" or "loop0"). */
static const json_t *manifest_device(const json_t *m, const char *dev, size_t ndev)
{
	const json_t *devs = m ? json_object_get(m, "devices") : NULL;
	const json_t *d;
	size_t i;

	if (!json_is_array(devs))
		return NULL;
	json_array_foreach(devs, i, d)
	{
		static const char *const keys[] = {"name", "dev", "devno", "path"};
		const json_t *ma = json_object_get(d, "major"), *mi = json_object_get(d, "minor");

		if (dev && json_is_integer(ma) && json_is_integer(mi)) {
			char mm[48];

			snprintf(mm, sizeof(mm), "%lld,%lld", (long long)json_integer_value(ma),
			         (long long)json_integer_value(mi));
			if (!strcmp(mm, dev))
				return d;
		}

		for (size_t k = 0; dev && k < sizeof(keys) / sizeof(keys[0]); k++) {
			char *s = compare_jtext(json_object_get(d, keys[k]));
			int same;

			if (!s)
				continue;
			norm_dev(s);
			same = !strcmp(s, dev) || (!strncmp(s, "/dev/", 5) && !strcmp(s + 5, dev));
			free(s);
			if (same)
				return d;
		}
	}
	return json_array_size(devs) == 1 && ndev <= 1 ? json_array_get(devs, 0) : NULL;
}

static char *device_fs(const json_t *d)
{
	static const char *const keys[] = {"filesystems", "filesystem", "fs", "fstype", "mounts"};

	for (size_t k = 0; d && k < sizeof(keys) / sizeof(keys[0]); k++) {
		char *s = compare_jtext(json_object_get(d, keys[k]));

		if (s)
			return s;
	}
	return NULL;
}

static int grow_samples(struct compare *c)
{
	size_t cap = c->capsamples ? c->capsamples * 2 : 8;
	struct cmp_sample *n;

	if (c->nsamples < c->capsamples)
		return 0;
	n = realloc(c->sample, cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	c->sample = n;
	c->capsamples = cap;
	return 0;
}

int compare_metric_add(struct compare *c, const char *key, const char *title, const char *unit,
                       int decimals)
{
	for (size_t i = 0; i < c->nmetrics; i++)
		if (!strcmp(c->metric[i].key, key))
			return (int)i;
	if (c->nmetrics >= CMP_MAX_METRICS)
		return -ENOSPC;
	snprintf(c->metric[c->nmetrics].key, sizeof(c->metric[0].key), "%s", key);
	snprintf(c->metric[c->nmetrics].title, sizeof(c->metric[0].title), "%s", title);
	snprintf(c->metric[c->nmetrics].unit, sizeof(c->metric[0].unit), "%s", unit);
	c->metric[c->nmetrics].decimals = decimals;
	/* a share is 0 .. 100; a number with a unit (a time, a rate) is not below 0 */
	c->metric[c->nmetrics].lo = *unit ? 0 : NAN;
	c->metric[c->nmetrics].hi = strcmp(unit, "%") ? INFINITY : 100;
	for (size_t i = 0; i < c->nsamples; i++)
		c->sample[i].v[c->nmetrics] = NAN;
	return (int)c->nmetrics++;
}

static double longest_gap_ns(const json_t *idle)
{
	const json_t *l = idle ? json_object_get(idle, "longest") : NULL;
	const json_t *g;
	double best = NAN;
	size_t i;

	if (!json_is_array(l))
		return jnum(idle, "longest_ns");
	json_array_foreach(l, i, g)
	{
		static const char *const keys[] = {"duration_ns", "len_ns", "length_ns", "ns",
		                                   "gap_ns"};
		double v = json_is_number(g) ? json_number_value(g) : NAN;

		for (size_t k = 0; isnan(v) && k < sizeof(keys) / sizeof(keys[0]); k++)
			v = jnum(g, keys[k]);
		if (isnan(v) && json_is_object(g))
			v = jnum(g, "end_ns") - jnum(g, "start_ns");
		if (!isnan(v) && (isnan(best) || v > best))
			best = v;
	}
	/* an idle section with no gaps has a longest gap of zero, not an unknown one */
	return isnan(best) && json_array_size(l) == 0 ? 0 : best;
}

/* Why the device was idle (idle.explain): the busiest other device's share of the gaps, and
 * the share of them with NFS calls outstanding (the first capture's); NaN without either. */
static void idle_values(double *v, const json_t *ex)
{
	const json_t *o;
	size_t i;

	v[M_IDLE_OTHER] = v[M_IDLE_WORK] = NAN;
	if (!jnum(ex, "gaps_ns"))
		return; /* no gap: nothing to explain */
	json_array_foreach(json_object_get(ex, "devices"), i, o)
	{
		double b = jnum(o, "busy_pct");

		if (!isnan(b) && (isnan(v[M_IDLE_OTHER]) || b > v[M_IDLE_OTHER]))
			v[M_IDLE_OTHER] = b;
	}
	v[M_IDLE_WORK] = jnum(json_array_get(json_object_get(ex, "nfs"), 0), "idle_with_work_pct");
}

/* The values as the sinks computed them (docs/json.md); a missing one stays NaN. */
static void block_values(double *v, const json_t *d)
{
	const json_t *idle = json_object_get(d, "idle");

	/* the JSON's 10^6 B/s, shown in the one unit system (docs/units.md) */
	v[M_MBPS] = jpath(d, "throughput", "mbps", NULL) * 1e6 / IOT_MIB;
	v[M_IOPS] = jpath(d, "throughput", "iops", NULL);
	/* per request (every piece of a split bio, FUA writes), as the report's graph; btt's
	 * per-bio d2c for a summary without it */
	const char *lat =
	    jpath(d, "latency_ns", "d2c_request", "count") > 0 ? "d2c_request" : "d2c";

	v[M_P50] = jpath(d, "latency_ns", lat, "p50") / 1e3;
	v[M_P99] = jpath(d, "latency_ns", lat, "p99") / 1e3;
	if (jpath(d, "latency_ns", lat, "count") == 0)
		v[M_P50] = v[M_P99] = NAN; /* no latency measured is not a latency of zero */
	v[M_IDLE] = jnum(idle, "pct");
	v[M_GAP] = longest_gap_ns(idle) / 1e6;
	v[M_SEEKS] = jpath(d, "seeks", "per_sec", NULL);
	v[M_SEQ] = jpath(d, "seeks", "sequential_pct", NULL);
	idle_values(v, json_object_get(idle, "explain"));
}

static int nfs_values(struct compare *c, struct cmp_sample *s, const json_t *summary)
{
	const json_t *procs = json_object_get(json_object_get(summary, "nfs"), "procedures");
	const json_t *p;
	size_t i;

	json_array_foreach(procs, i, p)
	{
		const char *name = json_string_value(json_object_get(p, "name"));
		char *ver = compare_jtext(json_object_get(p, "version"));
		char key[64], title[64];
		int m;

		if (!name || jnum(p, "calls") <= 0) {
			free(ver);
			continue;
		}
		snprintf(key, sizeof(key), "nfs%s.%s", ver ? ver : "", name);
		snprintf(title, sizeof(title), "NFSv%s %s", ver ? ver : "?", name);
		free(ver);
		m = compare_metric_add(c, key, title, "ms", 3);
		if (m < 0)
			continue; /* more operations than columns: the main ones came first */
		s->v[m] = jpath(p, "srt_ns", "mean", NULL) / 1e6;
	}
	return 0;
}

/* os-release style {id, version_id} reads best as "debian 12" */
static char *distro_text(const json_t *v)
{
	const char *id = json_string_value(json_object_get(v, "id"));
	const char *ver = json_string_value(json_object_get(v, "version_id"));
	char *s;

	if (id && ver && asprintf(&s, "%s %s", id, ver) >= 0)
		return s;
	return compare_jtext(v);
}

int compare_sample_new(struct compare *c, const char *path, const char *label, json_t *m,
                       struct cmp_sample **out)
{
	struct cmp_sample *s;

	if (grow_samples(c))
		return -ENOMEM;
	s = &c->sample[c->nsamples];
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < CMP_MAX_METRICS; i++)
		s->v[i] = NAN;
	s->path = strdup(path);
	s->label = label ? strdup(label) : NULL;
	s->labeled = label != NULL;
	if (!s->path || (label && !s->label)) {
		free(s->path);
		free(s->label);
		return -ENOMEM;
	}
	s->manifest = json_incref(m);
	s->run = c->nruns ? c->nruns - 1 : 0;
	if (m) {
		const json_t *host = json_object_get(m, "host");

		s->attr[CMP_ATTR_KERNEL] = compare_jtext(json_object_get(m, "kernel"));
		if (!s->attr[CMP_ATTR_KERNEL])
			s->attr[CMP_ATTR_KERNEL] = compare_jtext(json_object_get(host, "kernel"));
		s->attr[CMP_ATTR_DISTRO] = distro_text(json_object_get(m, "distro"));
		if (!s->attr[CMP_ATTR_DISTRO])
			s->attr[CMP_ATTR_DISTRO] = distro_text(json_object_get(host, "distro"));
	}
	c->nsamples++;
	*out = s;
	return 0;
}

int compare_add(struct compare *c, const char *path, json_t *summary, json_t *manifest,
                const char *label, struct iot_err *e)
{
	const json_t *devs = json_object_get(summary, "devices");
	size_t ndev = json_is_array(devs) ? json_array_size(devs) : 0;
	struct cmp_sample *s;
	int ret;

	if (!json_is_object(summary))
		return iot_err_set(e, -EINVAL, "'%s': not an analysis summary (JSON object)", path);
	if (!json_is_array(devs) && !json_is_object(json_object_get(summary, "nfs")))
		return iot_err_set(e, -EINVAL, "'%s': no 'devices' or 'nfs' in the summary", path);
	if (!manifest)
		manifest = json_object_get(summary, "manifest");
	if (!json_is_object(manifest))
		manifest = NULL;
	c->nruns++;
	if (!ndev) {
		ret = compare_sample_new(c, path, label, manifest, &s);
		if (ret)
			return iot_err_set(e, ret, "out of memory");
		/* a run of NFS calls alone (an NFS replay's --record) names its target's filesystem
		 * at the top of its manifest */
		s->attr[CMP_ATTR_FILESYSTEM] =
		    compare_jtext(json_object_get(manifest, "filesystem"));
		return nfs_values(c, s, summary);
	}
	for (size_t i = 0; i < ndev; i++) {
		const json_t *d = json_array_get(devs, i);
		char *dev = compare_jtext(json_object_get(d, "name"));
		const json_t *md;

		if (!dev)
			dev = compare_jtext(json_object_get(d, "dev"));
		if (dev)
			norm_dev(dev);
		ret = compare_sample_new(c, path, label, manifest, &s);
		if (ret) {
			free(dev);
			return iot_err_set(e, ret, "out of memory");
		}
		md = manifest_device(manifest, dev, ndev);
		/* the device as runs know it: its key (not a loop number that changes between
		 * runs), else the manifest's name, else the summary's */
		s->attr[CMP_ATTR_DEVICE] = compare_jtext(json_object_get(md, "key"));
		if (!s->attr[CMP_ATTR_DEVICE] && json_is_string(json_object_get(d, "key")) &&
		    (md || !json_equal(json_object_get(d, "key"), json_object_get(d, "dev"))))
			s->attr[CMP_ATTR_DEVICE] = compare_jtext(json_object_get(d, "key"));
		if (!s->attr[CMP_ATTR_DEVICE] && md)
			s->attr[CMP_ATTR_DEVICE] = compare_jtext(json_object_get(md, "name"));
		if (s->attr[CMP_ATTR_DEVICE])
			free(dev);
		else
			s->attr[CMP_ATTR_DEVICE] = dev;
		s->attr[CMP_ATTR_ROLE] = compare_jtext(json_object_get(d, "role"));
		if (!s->attr[CMP_ATTR_ROLE])
			s->attr[CMP_ATTR_ROLE] = compare_jtext(json_object_get(md, "role"));
		s->attr[CMP_ATTR_GROUP] = compare_jtext(json_object_get(d, "group"));
		if (!s->attr[CMP_ATTR_GROUP])
			s->attr[CMP_ATTR_GROUP] = compare_jtext(json_object_get(md, "group"));
		s->attr[CMP_ATTR_FILESYSTEM] = device_fs(md);
		block_values(s->v, d);
		/* a summary run names what its level lacks: those of its metrics have no value */
		if (json_is_array(json_object_get(d, "not_given")))
			for (size_t m = 0; m <= M_SEQ; m++)
				s->not_given[m] = isnan(s->v[m]);
		/* NFS numbers belong to the run, not to a device: count them once */
		if (i == 0)
			nfs_values(c, s, summary);
	}
	return 0;
}
