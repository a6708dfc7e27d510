/* SPDX-License-Identifier: MIT */
/* Why was the disk idle: a cause per listed gap from a small rule set, and the JSON. */
#include "analyze/idle_explain.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonint.h"
#include "common/units.h"
#include "formats/netaddr.h"

/*
 * The rules, in rank order; a gap's cause is the first that holds (every one that holds is
 * listed, in this order):
 *   held_in_queue       a request was queued on the device during the gap and waited for at
 *                       least half of it (plugging, the I/O scheduler, throttling)
 *   own_group_busy      a device of the gap's own group (the data disk's journal, the other
 *                       half of its filesystem) had IO in flight for at least half of it
 *   other_device_busy   a device whose relation to it is not known (one of the two has no
 *                       group) had IO in flight for at least half of the gap
 *   periodic            the gap is one of the device's periodic series (of all its gaps, or of
 *                       those one command ended): a timer's gap is the timer's, whatever the
 *                       network carried meanwhile (a Ceph messenger's traffic never stops)
 *   nfs_calls_outstanding  NFS calls were outstanding for at least half of the gap
 *   network_traffic     at least 10 packets during the gap, at a byte rate at least half the
 *                       capture's mean: the network worked while the disk did not
 *   no_work_offered     none of these: nothing reached the device
 *   other_group_busy    a device known to belong to another group (another OSD's disk) had IO
 *                       in flight for at least half of it: said, but it explains nothing, so
 *                       it ranks last
 */
#define HALF(part, whole) (2 * (part) >= (whole))
#define NET_MIN_PACKETS 10u

static const struct {
	const char *name, *rule;
} causes[IE_CAUSES] = {
    [IE_HELD] = {"held_in_queue", "a request waited in the block layer for at least half of the "
                                  "gap while the device was idle"},
    [IE_GROUP_DEV] = {"own_group_busy", "a device of its own group had IO in flight for at "
                                        "least half of the gap"},
    [IE_OTHER_DEV] = {"other_device_busy", "another device, of no known group, had IO in "
                                           "flight for at least half of the gap"},
    [IE_NFS] = {"nfs_calls_outstanding", "NFS calls were outstanding for at least half of the gap"},
    [IE_NETWORK] = {"network_traffic", "at least 10 packets during the gap, at a byte rate of at "
                                       "least half the capture's mean"},
    [IE_PERIODIC] = {"periodic", "the gap is one of a series recurring at a steady period"},
    [IE_NO_WORK] = {"no_work_offered", "none of the above: nothing reached the device"},
    [IE_OTHER_GROUP] = {"other_group_busy", "a device of another group had IO in flight for at "
                                            "least half of the gap (it ranks last: another "
                                            "stack's work explains nothing)"},
};

const char *idle_cause_name(enum ie_cause c)
{
	return c < IE_CAUSES ? causes[c].name : "?";
}

const char *idle_cause_rule(enum ie_cause c)
{
	return c < IE_CAUSES ? causes[c].rule : "?";
}

/* How another device relates to d: its group, another group, or not known. */
enum rel { REL_GROUP, REL_UNKNOWN, REL_OTHER };

static enum rel relation(const struct ie_dev *d, const struct ie_dev *o)
{
	if (!d->group || !o->group)
		return REL_UNKNOWN;
	return d->host == o->host && !strcmp(d->group, o->group) ? REL_GROUP : REL_OTHER;
}

/* The other device of relation r busiest during g (global index), or -1. */
static int busiest(const struct idle_explain *x, const struct ie_dev *d, const struct ie_gap *g,
                   enum rel r)
{
	int best = -1;

	for (unsigned k = 0; k < g->n_oth; k++)
		if (x->devs[k] != d && relation(d, x->devs[k]) == r && g->oth[k].busy_ns &&
		    (best < 0 || g->oth[k].busy_ns > g->oth[best].busy_ns))
			best = (int)k;
	return best;
}

/* The busiest other device of any relation, or -1. */
static int busiest_any(const struct idle_explain *x, const struct ie_dev *d, const struct ie_gap *g)
{
	int best = -1;

	for (unsigned k = 0; k < g->n_oth; k++)
		if (x->devs[k] != d && g->oth[k].busy_ns &&
		    (best < 0 || g->oth[k].busy_ns > g->oth[best].busy_ns))
			best = (int)k;
	return best;
}

/* The capture's mean byte rate (bytes per second), or 0. */
static double cap_rate(const struct ie_host *hs)
{
	uint64_t span = hs->cap_last - hs->cap_first;

	return span ? (double)hs->cap_bytes * 1e9 / (double)span : 0;
}

static bool net_busy(const struct ie_host *hs, const struct ie_net *n, uint64_t len)
{
	double rate = len ? (double)n->bytes * 1e9 / (double)len : 0, mean = cap_rate(hs);

	return n->packets >= NET_MIN_PACKETS && mean > 0 && rate >= mean / 2;
}

#define BEFORE_NO_WORK ((1u << IE_NO_WORK) - 1)

void ie_causes(struct idle_explain *x, struct ie_dev *d)
{
	static const enum ie_cause by_rel[3] = {IE_GROUP_DEV, IE_OTHER_DEV, IE_OTHER_GROUP};

	memset(d->cause_gaps, 0, sizeof(d->cause_gaps));
	for (unsigned i = 0; i < d->ntop; i++) {
		struct ie_gap *g = d->top[i];
		uint64_t len = g->g.end - g->g.start;

		g->causes = 0;
		g->periodic = ie_period_member(d, g->cs) || ie_cmd_member(d, g->cs);
		if (g->g.queued && HALF(g->g.queued_ns, len))
			g->causes |= 1u << IE_HELD;
		for (int r = REL_GROUP; r <= REL_OTHER; r++) {
			int b = busiest(x, d, g, (enum rel)r);

			if (b >= 0 && HALF(g->oth[b].busy_ns, len))
				g->causes |= 1u << by_rel[r];
		}
		for (unsigned h = 0; h < x->nhosts; h++) {
			if (!x->host[h].have_capture || !g->nfs)
				continue;
			if (HALF(g->nfs[h].busy_ns, len))
				g->causes |= 1u << IE_NFS;
			if (net_busy(&x->host[h], &g->net[h], len))
				g->causes |= 1u << IE_NETWORK;
		}
		if (g->periodic)
			g->causes |= 1u << IE_PERIODIC;
		if (!(g->causes & BEFORE_NO_WORK))
			g->causes |= 1u << IE_NO_WORK;
		g->cause = (enum ie_cause)__builtin_ctz(g->causes);
		d->cause_gaps[g->cause]++;
	}
}

/* ------------------------------------------------------------------------------------- */
/* JSON                                                                                    */

static const char *dur(uint64_t ns, char *buf, size_t len)
{
	if (ns >= 1000000000ull)
		snprintf(buf, len, "%.3f s", (double)ns / 1e9);
	else if (ns >= 1000000ull)
		snprintf(buf, len, "%.3f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.3f us", (double)ns / 1e3);
	return buf;
}

/* "8,16", "osd.0 journal (8,16)", with " on HOST" with several hosts. */
static const char *dev_label(const struct idle_explain *x, const struct ie_dev *o, char *buf,
                             size_t len)
{
	char n[24], h[80] = "";

	blk_dev_name(o->devno, n);
	if (x->nhosts > 1 && x->host[o->host].name)
		snprintf(h, sizeof(h), " on %s", x->host[o->host].name);
	if (o->role)
		snprintf(buf, len, "%s (%s)%s", o->role, n, h);
	else
		snprintf(buf, len, "%s%s", n, h);
	return buf;
}

static void set_host(const struct idle_explain *x, json_t *o, unsigned h)
{
	if (x->nhosts > 1)
		json_object_set_new(
		    o, "host", x->host[h].name ? json_string(x->host[h].name) : json_integer(h));
}

/* The directions' names in the document (IE_DIR_*, struct ie_fig_net). */
static const char *const dir_names[IE_DIRS] = {"in", "out", "local", "other", "unclassified"};

static json_t *net_json(const struct idle_explain *x, const struct ie_fig_net *n)
{
	json_t *o = json_object(), *fl = json_array();
	char a1[64], a2[64];

	set_host(x, o, n->host);
	json_object_set_new(o, "packets", json_u64(n->packets));
	json_object_set_new(o, "bytes", json_u64(n->bytes));
	json_object_set_new(o, "mb_per_s", json_real(n->mb_per_s));
	for (int d = 0; d < IE_DIRS; d++) {
		char k[32];

		snprintf(k, sizeof(k), "packets_%s", dir_names[d]);
		json_object_set_new(o, k, json_u64(n->dir_packets[d]));
		snprintf(k, sizeof(k), "bytes_%s", dir_names[d]);
		json_object_set_new(o, k, json_u64(n->dir_bytes[d]));
	}
	json_object_set_new(o, "frames_other", json_u64(n->frames_other));
	for (unsigned i = 0; i < n->nflows; i++) {
		const struct ie_flow *f = n->flows[i];
		int d = n->flow_dir[i];

		json_array_append_new(
		    fl, json_pack("{s:s, s:s, s:i, s:s, s:i, s:I, s:I, s:s}", "proto",
		                  f->proto == 6 ? "tcp" : "udp", "src",
		                  net_addr_str(&f->src.addr, a1, sizeof(a1)), "sport", f->src.port,
		                  "dst", net_addr_str(&f->dst.addr, a2, sizeof(a2)), "dport",
		                  f->dst.port, "packets", (json_int_t)f->packets, "bytes",
		                  (json_int_t)f->bytes, "direction", dir_names[d]));
	}
	json_object_set_new(o, "flows", fl);
	return o;
}

static json_t *nfs_json(const struct idle_explain *x, const struct ie_fig_nfs *n, bool total)
{
	json_t *o = json_object();

	set_host(x, o, n->host);
	json_object_set_new(o, total ? "idle_with_work_ns" : "busy_ns", json_u64(n->busy_ns));
	json_object_set_new(o, total ? "idle_with_work_pct" : "busy_pct", json_real(n->busy_pct));
	json_object_set_new(o, "outstanding_mean", json_real(n->outstanding_mean));
	json_object_set_new(o, "outstanding_max", json_integer(n->max));
	json_object_set_new(o, "arrivals", json_u64(n->arrivals));
	return o;
}

/* The sentence that justifies cause c of gap g, with its numbers. */
static void because(const struct idle_explain *x, const struct ie_dev *d, const struct ie_gap *g,
                    enum ie_cause c, char *buf, size_t len)
{
	uint64_t glen = g->g.end - g->g.start;
	char b1[32], b2[32], who[256];
	struct ie_fig_other fo;
	int k;

	switch (c) {
	case IE_HELD:
		snprintf(buf, len,
		         "a request waited %s of the gap's %s (%.0f%%) in the block layer before "
		         "its issue",
		         dur(g->g.queued_ns, b1, sizeof(b1)), dur(glen, b2, sizeof(b2)),
		         blk_pct(g->g.queued_ns, glen));
		return;
	case IE_GROUP_DEV:
	case IE_OTHER_DEV:
	case IE_OTHER_GROUP:
		k = busiest(x, d, g,
		            c == IE_GROUP_DEV   ? REL_GROUP
		            : c == IE_OTHER_DEV ? REL_UNKNOWN
		                                : REL_OTHER);
		if (k < 0)
			break;
		fo = ie_fig_other(x->devs[k], &g->oth[k], glen);
		snprintf(buf, len,
		         "%s%s%s%s%s had IO in flight for %s of the gap's %s (%.0f%%): %llu IOs, "
		         "%llu bytes completed",
		         dev_label(x, x->devs[k], who, sizeof(who)),
		         c == IE_GROUP_DEV ? ", of its own group " : "",
		         c == IE_OTHER_GROUP ? ", of group " : "",
		         c == IE_GROUP_DEV || c == IE_OTHER_GROUP ? x->devs[k]->group : "",
		         c == IE_GROUP_DEV || c == IE_OTHER_GROUP ? "," : "",
		         dur(fo.busy_ns, b1, sizeof(b1)), dur(glen, b2, sizeof(b2)), fo.busy_pct,
		         (unsigned long long)fo.ios, (unsigned long long)fo.bytes);
		return;
	case IE_NFS:
		for (unsigned h = 0; h < x->nhosts; h++) {
			const struct ie_nfs *n = g->nfs ? &g->nfs[h] : NULL;
			struct ie_fig_nfs fn;

			if (!x->host[h].have_capture || !n || !HALF(n->busy_ns, glen))
				continue;
			fn = ie_fig_nfs(h, n, glen);
			snprintf(
			    buf, len,
			    "NFS calls outstanding for %s of the gap's %s (%.0f%%): mean %.2f, max "
			    "%u, %llu arrived",
			    dur(fn.busy_ns, b1, sizeof(b1)), dur(glen, b2, sizeof(b2)), fn.busy_pct,
			    fn.outstanding_mean, fn.max, (unsigned long long)fn.arrivals);
			return;
		}
		break;
	case IE_NETWORK:
		for (unsigned h = 0; h < x->nhosts; h++) {
			const struct ie_net *n = g->net ? &g->net[h] : NULL;

			if (!x->host[h].have_capture || !n || !net_busy(&x->host[h], n, glen))
				continue;
			snprintf(
			    buf, len,
			    "%llu packets, %llu bytes during the gap (%.3f MiB/s; the capture's "
			    "mean is %.3f MiB/s)",
			    (unsigned long long)n->packets, (unsigned long long)n->bytes,
			    glen ? (double)n->bytes * 1e9 / IOT_MIB / (double)glen : 0,
			    cap_rate(&x->host[h]) / IOT_MIB);
			return;
		}
		break;
	case IE_PERIODIC: {
		const struct ie_cmd *cm =
		    ie_period_member(d, g->cs) ? NULL : ie_cmd_member(d, g->cs);
		const struct ie_period *p = cm ? &cm->per : &d->per;

		if (cm)
			snprintf(buf, len, "one of %u gaps ended by %s%s%s%s every %s +- %s",
			         p->count + 1, cm->comm, cm->process ? " (" : "",
			         cm->process ? cm->process : "", cm->process ? ")" : "",
			         dur(p->period_ns, b1, sizeof(b1)),
			         dur(p->jitter_ns, b2, sizeof(b2)));
		else
			snprintf(buf, len, "one of %u gaps ending every %s +- %s", p->count + 1,
			         dur(p->period_ns, b1, sizeof(b1)),
			         dur(p->jitter_ns, b2, sizeof(b2)));
		return;
	}
	default:
		break;
	}
	{
		uint64_t pk = 0;

		k = busiest_any(x, d, g);
		for (unsigned h = 0; g->net && h < x->nhosts; h++)
			pk += g->net[h].packets;
		char wait[160]; /* room for the longest dur() and blk_pct() */

		/* the gap's ending request may have waited a little (too little for
		 * held_in_queue): said as the row's "IO waiting" says it */
		if (g->g.queued && g->g.queued_ns)
			snprintf(wait, sizeof(wait),
			         "the request that ended it waited %s in the block layer (%.1f%% "
			         "of the gap)",
			         dur(g->g.queued_ns, b2, sizeof(b2)),
			         blk_pct(g->g.queued_ns, glen));
		else
			snprintf(wait, sizeof(wait), "nothing waited on the device");
		snprintf(buf, len, "%s; %s%s%s%s%s; %llu packets", wait,
		         k >= 0 ? "the busiest other device, " : "no other device was busy",
		         k >= 0 ? dev_label(x, x->devs[k], who, sizeof(who)) : "",
		         k >= 0 ? ", was busy " : "", k >= 0 ? dur(g->oth[k].busy_ns, b1, 32) : "",
		         k >= 0 ? " of the gap" : "", (unsigned long long)pk);
	}
}

void idle_explain_because(const struct idle_explain *x, const struct ie_dev *d,
                          const struct ie_gap *g, enum ie_cause c, char *buf, size_t len)
{
	because(x, d, g, c, buf, len);
}

const struct ie_gap *idle_explain_listed(const struct ie_dev *d, unsigned k, uint64_t start)
{
	/* as ie_json() below matches them to the document's */
	return d && k < d->ntop && d->top[k]->g.start == start ? d->top[k] : NULL;
}

/* Another device's share of a gap (r: its edges) or of the gaps in total (r NULL). */
static json_t *other_json(const struct idle_explain *x, const struct ie_fig_other *fo,
                          const struct ie_other *r)
{
	const struct ie_dev *o = fo->dev;
	json_t *j = json_object();
	char n[24];

	json_object_set_new(j, "dev", json_string(blk_dev_name(o->devno, n)));
	set_host(x, j, o->host);
	json_object_set_new(j, "key", o->key ? json_string(o->key) : json_string(n));
	json_object_set_new(j, "role", o->role ? json_string(o->role) : json_null());
	json_object_set_new(j, "group", o->group ? json_string(o->group) : json_null());
	json_object_set_new(j, "busy_ns", json_u64(fo->busy_ns));
	json_object_set_new(j, "busy_pct", json_real(fo->busy_pct));
	json_object_set_new(j, "ios", json_u64(fo->ios));
	json_object_set_new(j, "bytes", json_u64(fo->bytes));
	if (!r) {
		json_object_set_new(j, "gaps_busy", json_u64(fo->gaps_busy));
	} else {
		json_object_set_new(j, "inflight_start", json_integer(r->inflight_start));
		json_object_set_new(j, "inflight_end", json_integer(r->inflight_end));
	}
	return j;
}

static json_t *gap_json(const struct idle_explain *x, const struct ie_dev *d,
                        const struct ie_gap *g)
{
	uint64_t len = g->g.end - g->g.start;
	json_t *o = json_object(), *devs = json_array(), *net = json_array(), *nfs = json_array();
	json_t *all = json_array(), *reasons = json_array();
	char buf[512];

	for (unsigned k = 0; k < g->n_oth; k++) {
		struct ie_fig_other fo;

		if (x->devs[k] == d)
			continue;
		fo = ie_fig_other(x->devs[k], &g->oth[k], len);
		json_array_append_new(devs, other_json(x, &fo, &g->oth[k]));
	}
	json_object_set_new(o, "devices", devs);
	for (unsigned h = 0; g->net && h < x->nhosts; h++) {
		if (!x->host[h].have_capture)
			continue;
		struct ie_fig_net fnet;

		ie_fig_net(x, h, &g->net[h], len, &fnet);
		json_array_append_new(net, net_json(x, &fnet));
		struct ie_fig_nfs fn = ie_fig_nfs(h, &g->nfs[h], len);

		json_array_append_new(nfs, nfs_json(x, &fn, false));
	}
	json_object_set_new(o, "network", net);
	json_object_set_new(o, "nfs", nfs);
	json_object_set_new(o, "periodic", json_boolean(g->periodic));
	json_object_set_new(o, "cause", json_string(idle_cause_name(g->cause)));
	for (unsigned c = 0; c < IE_CAUSES; c++) {
		if (!(g->causes & (1u << c)))
			continue;
		json_array_append_new(all, json_string(idle_cause_name(c)));
		because(x, d, g, c, buf, sizeof(buf));
		json_array_append_new(
		    reasons, json_pack("{s:s, s:s}", "cause", idle_cause_name(c), "because", buf));
	}
	json_object_set_new(o, "causes", all);
	json_object_set_new(o, "reasons", reasons);
	because(x, d, g, g->cause, buf, sizeof(buf));
	json_object_set_new(o, "because", json_string(buf));
	return o;
}

static json_t *period_json(const struct ie_period *p)
{
	if (!p->found)
		return json_null();
	return json_pack("{s:I, s:I, s:i, s:i, s:I}", "period_ns", (json_int_t)p->period_ns,
	                 "jitter_ns", (json_int_t)p->jitter_ns, "count", p->count, "gaps", p->gaps,
	                 "min_gap_ns", (json_int_t)p->min_gap_ns);
}

/* ended_by or began_by: the commands of the totals (idle_totals.c), "(others)" last. */
static json_t *cmds_json(const struct ie_fig_cmd *c, unsigned n)
{
	json_t *a = json_array(), *o;

	for (unsigned k = 0; k < n; k++, c++) {
		if (c->commands)
			o = json_pack("{s:s, s:n, s:I, s:I, s:f, s:i}", "comm", c->comm, "process",
			              "gaps", (json_int_t)c->gaps, "total_ns",
			              (json_int_t)c->total_ns, "pct", c->pct, "commands",
			              (int)c->commands);
		else
			o = json_pack("{s:s, s:s?, s:I, s:I, s:f}", "comm", c->comm, "process",
			              c->process, "gaps", (json_int_t)c->gaps, "total_ns",
			              (json_int_t)c->total_ns, "pct", c->pct);
		if (!c->commands && c->per)
			json_object_set_new(o, "periodicity", period_json(c->per));
		json_array_append_new(a, o);
	}
	return a;
}

/* The document's "explain" of d's gaps in total: from tot (idle_explain_totals()), and (not
 * yet made figures there) the network, the periodicity, the commands and the causes. */
static json_t *totals_json(const struct idle_explain *x, const struct ie_dev *d,
                           const struct ie_totals *tot)
{
	json_t *o = json_object(), *devs = json_array(), *net = json_array(), *nfs = json_array();
	json_t *cz = json_object();
	char a[64];

	for (unsigned k = 0; k < tot->ndevs; k++)
		json_array_append_new(devs, other_json(x, &tot->devs[k], NULL));
	json_object_set_new(o, "gaps_ns", json_u64(tot->gaps_ns));
	json_object_set_new(o, "devices", devs);
	for (unsigned k = 0; k < tot->nnfs; k++) {
		const struct ie_host *hs = &x->host[tot->net[k].host];
		json_t *n, *loc;

		loc = json_array();
		n = net_json(x, &tot->net[k]);
		for (unsigned i = 0; i < hs->nlocal; i++)
			json_array_append_new(
			    loc, json_string(net_addr_str(&hs->local[i], a, sizeof(a))));
		json_object_set_new(n, "local_addresses", loc);
		json_object_set_new(n, "local_from",
		                    hs->nlocal
		                        ? json_string(hs->local_inferred ? "inferred" : "manifest")
		                        : json_null());
		json_object_set_new(n, "mapped", json_boolean(hs->cap_mapped));
		/* what the capture kept: headers only of most packets (their sizes come from the
		 * IP lengths), NFS whole */
		json_object_set_new(n, "kept", hs->kept ? json_incref(hs->kept) : json_null());
		json_array_append_new(net, n);
	}
	for (unsigned k = 0; k < tot->nnfs; k++)
		json_array_append_new(nfs, nfs_json(x, &tot->nfs[k], true));
	json_object_set_new(o, "network", net);
	json_object_set_new(o, "nfs", nfs);
	json_object_set_new(o, "periodicity", period_json(tot->per));
	json_object_set_new(o, "ended_by", cmds_json(tot->ended, tot->nended));
	json_object_set_new(o, "began_by", cmds_json(tot->began, tot->nbegan));
	for (unsigned c = 0; c < IE_CAUSES; c++)
		json_object_set_new(cz, idle_cause_name(c), json_u64(tot->cause_gaps[c]));
	json_object_set_new(o, "causes", cz);
	json_object_set_new(o, "gaps_kept", json_u64(d->nall));
	json_object_set_new(o, "gaps_not_kept", json_u64(d->all_dropped));
	return o;
}

int ie_json(const struct idle_explain *x, unsigned h, json_t *devices)
{
	const json_t *dj;
	size_t i;

	json_array_foreach(devices, i, dj)
	{
		const char *name = json_string_value(json_object_get(dj, "dev"));
		json_t *idle = json_object_get(dj, "idle"), *longest, *e;
		const struct ie_dev *d = NULL;
		struct ie_totals tot;
		unsigned ma, mi;
		size_t k;
		int ret;

		if (!name || sscanf(name, "%u,%u", &ma, &mi) != 2 || !json_is_object(idle))
			continue;
		/* several hosts: the devices of host h only (their numbers repeat across hosts) */
		if (x->nhosts > 1 &&
		    (!x->host[h].name || !json_is_string(json_object_get(dj, "host")) ||
		     strcmp(json_string_value(json_object_get(dj, "host")), x->host[h].name)))
			continue;
		for (unsigned g = 0; g < x->ndevs && !d; g++)
			if (x->devs[g]->host == h && x->devs[g]->devno == BLK_MKDEV(ma, mi))
				d = x->devs[g];
		if (!d)
			continue;
		if (idle_explain_totals(x, d, &tot))
			return -ENOMEM;
		ret = json_object_set_new(idle, "explain", totals_json(x, d, &tot));
		idle_totals_release(&tot);
		if (ret)
			return -ENOMEM;
		longest = json_object_get(idle, "longest");
		json_array_foreach(longest, k, e)
		{
			uint64_t start;

			if (k >= d->ntop || json_u64_member(e, "start_ns", &start) ||
			    start != d->top[k]->g.start)
				continue;
			if (json_object_set_new(e, "explain", gap_json(x, d, d->top[k])))
				return -ENOMEM;
		}
	}
	return 0;
}
