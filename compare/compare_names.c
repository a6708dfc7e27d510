/* SPDX-License-Identifier: MIT */
/* Names compare accepts: metrics (with their aliases) and a sample's attributes. */
#include "compare/compare.h"
#include "compare/compare_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
	const char *alias, *key;
} metric_aliases[] = {
    {"mb/s", "mbps"},         {"mib/s", "mbps"},         {"mb_s", "mbps"},
    {"throughput", "mbps"},   {"p50", "lat_p50"},        {"p99", "lat_p99"},
    {"idle", "idle_pct"},     {"gap", "longest_gap"},    {"seeks/s", "seeks"},
    {"seeks_per_s", "seeks"}, {"sequential", "seq_pct"}, {"seq", "seq_pct"},
};

static const char *const attr_names[CMP_ATTR_NUM] = {
    [CMP_ATTR_KERNEL] = "kernel",
    [CMP_ATTR_DISTRO] = "distro",
    [CMP_ATTR_FILESYSTEM] = "filesystem",
    [CMP_ATTR_DEVICE] = "device",
    [CMP_ATTR_ROLE] = "role",
    [CMP_ATTR_GROUP] = "group",
};

const char *compare_attr_name(enum cmp_attr a)
{
	return a < CMP_ATTR_NUM ? attr_names[a] : NULL;
}

int compare_metric_find(const struct compare *c, const char *name)
{
	const char *key = name;

	for (size_t i = 0; i < sizeof(metric_aliases) / sizeof(metric_aliases[0]); i++)
		if (!strcasecmp(name, metric_aliases[i].alias))
			key = metric_aliases[i].key;
	for (size_t i = 0; i < c->nmetrics; i++)
		if (!strcasecmp(c->metric[i].key, key) || !strcasecmp(c->metric[i].title, key))
			return (int)i;
	/* "nfs.READ": the first NFS version that has the operation */
	if (!strncasecmp(name, "nfs.", 4)) {
		for (size_t i = M_NBLOCK; i < c->nmetrics; i++) {
			const char *dot = strrchr(c->metric[i].key, '.');

			if (dot && !strcasecmp(dot + 1, name + 4))
				return (int)i;
		}
	}
	return -1;
}

/* Attribute value of a sample by name: the four built-ins, "label", "run", then a scalar key
 * of the manifest (top level or its "labels" object). Returns a new string or NULL. */
char *compare_sample_attr(const struct cmp_sample *s, const char *name)
{
	const json_t *v = json_object_get(s->params, name);

	/* a sweep's own dimensions first: they are what its user named */
	if (json_is_string(v))
		return strdup(json_string_value(v));
	for (int a = 0; a < CMP_ATTR_NUM; a++)
		if (!strcasecmp(name, attr_names[a]))
			return s->attr[a] ? strdup(s->attr[a]) : NULL;
	if (!strcasecmp(name, "fs"))
		return s->attr[CMP_ATTR_FILESYSTEM] ? strdup(s->attr[CMP_ATTR_FILESYSTEM]) : NULL;
	if (!strcasecmp(name, "dev"))
		return s->attr[CMP_ATTR_DEVICE] ? strdup(s->attr[CMP_ATTR_DEVICE]) : NULL;
	if (!strcasecmp(name, "label"))
		return s->label ? strdup(s->label) : NULL;
	if (!strcasecmp(name, "run"))
		return strdup(s->path);
	v = json_object_get(s->manifest, name);
	if (!v)
		v = json_object_get(json_object_get(s->manifest, "labels"), name);
	return compare_jtext(v);
}
