/* SPDX-License-Identifier: MIT */
/* analyze's block text: each device's figures from its pass, the rest from the document. */
#include "analyze/blk_text.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "analyze/blk_analysis.h"
#include "analyze/blk_bycg.h"
#include "analyze/blk_doc.h"
#include "analyze/blk_figures.h"
#include "analyze/idle_explain.h"
#include "analyze/run_summary.h"
#include "common/jsonint.h"
#include "common/textesc.h"
#include "common/units.h"

/*
 * A device's figures are the sinks' (struct blk_figures: from its pass, or a summary run's from
 * analyze/blk_summary.c), never read back from the JSON view; so are the explanation of its
 * gaps in total (struct ie_totals, idle_explain_totals(): what the document's explain is
 * written from) and its listed gaps' causes. A device whose document has an explain but whose
 * explainer is not at hand is an error, never printed without it. What is still read from the
 * document (the run's header, the hosts, what a device is) is read by its path, and a path the
 * document lacks is an error, not a 0: a key renamed in the JSON view fails every text
 * rendering (and the tests that run one) instead of printing 0. Optional parts are tested for
 * (json_is_object, json_object_get) before they are read.
 */
struct txt {
	FILE *f;
	char missing[96]; /* the first path read that the document lacks */
	/* the device's gaps explained (analyze/idle_explain.h), or NULL */
	const struct idle_explain *x;
	const struct ie_dev *xd;
	const struct ie_totals
	    *tot; /* xd's gaps in total, or NULL (a summary run's: the document) */
};

/* o's value at path ("reads.ios"), or NULL (the miss remembered). */
static const json_t *jget(struct txt *t, const json_t *o, const char *path)
{
	const char *p = path, *dot;
	char key[64];

	while (o && (dot = strchr(p, '.'))) {
		size_t n =
		    (size_t)(dot - p) < sizeof(key) - 1 ? (size_t)(dot - p) : sizeof(key) - 1;

		memcpy(key, p, n);
		key[n] = '\0';
		o = json_object_get(o, key);
		p = dot + 1;
	}
	if (o)
		o = json_object_get(o, p);
	if (!o && !t->missing[0])
		snprintf(t->missing, sizeof(t->missing), "%s", path);
	return o;
}

static uint64_t jget_u(struct txt *t, const json_t *o, const char *path)
{
	uint64_t v = 0;

	o = jget(t, o, path);
	if (json_is_real(o)) {
		double d = json_real_value(o);

		return !(d > 0) ? 0 : d >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)d;
	}
	json_u64_get(o, &v); /* an integer, or a u64 past 2^63 as its digits; else 0 */
	return v;
}

static int64_t jget_i(struct txt *t, const json_t *o, const char *path)
{
	return json_integer_value(jget(t, o, path));
}

/* The IO at an edge of a gap ("W 4.0 KiB pid 7 (jbd2)"), or "-". */
static const char *io_text(const struct blk_fig_edge *io, char *buf, size_t len)
{
	char b[32], name[64]; /* the process name is the trace's: shown, never sent raw */

	if (!io->present) {
		snprintf(buf, len, "-");
		return buf;
	}
	snprintf(buf, len, "%s %s", io->rwbs, iot_fmt_bytes(io->bytes, b, sizeof(b)));
	if (io->has_pid)
		snprintf(buf + strlen(buf), len - strlen(buf), " pid %" PRIu32 " (%s)", io->pid,
		         io->comm ? txt_escape(io->comm, name, sizeof(name)) : "?");
	return buf;
}

/* "8,16", "8,16 (osd.0 journal)", with " on HOST" with several hosts: another device */
static const char *dev_text(const struct idle_explain *x, const struct ie_dev *o, char *buf,
                            size_t len)
{
	const char *host = idle_explain_hosts(x) > 1 ? idle_explain_host_name(x, o->host) : NULL;
	char name[64], r[160];

	snprintf(buf, len, "%s", blk_dev_name(o->devno, name));
	if (o->role)
		snprintf(buf + strlen(buf), len - strlen(buf), " (%s)",
		         txt_escape(o->role, r, sizeof(r)));
	if (host)
		snprintf(buf + strlen(buf), len - strlen(buf), " on %s",
		         txt_escape(host, name, sizeof(name)));
	return buf;
}

/* "filestore_sync (ceph-osd)": a command that ended or began gaps, with its process */
static const char *cmd_text(const struct ie_fig_cmd *c, char *buf, size_t len)
{
	char a[64], b[64];

	txt_escape(c->comm, a, sizeof(a));
	if (c->process)
		snprintf(buf, len, "%s (%s)", a, txt_escape(c->process, b, sizeof(b)));
	else
		snprintf(buf, len, "%s", a);
	return buf;
}

/* The gaps by the command that ended them (and their period), then that began them. */
static void text_cmds(FILE *f, const struct ie_totals *tot)
{
	char b1[32], b2[32], b3[32], who[160];

	for (unsigned i = 0; i < tot->nended + tot->nbegan; i++) {
		bool ended = i < tot->nended;
		const struct ie_fig_cmd *c = ended ? &tot->ended[i] : &tot->began[i - tot->nended];
		const struct ie_period *p = c->per;

		fprintf(f, "    %-9s %-34s %6" PRIu64 " gaps %12s (%5.1f%%)",
		        i == tot->nended ? "began by"
		        : i == 0         ? "ended by"
		                         : "",
		        cmd_text(c, who, sizeof(who)), c->gaps,
		        iot_fmt_dur((double)c->total_ns, b1, sizeof(b1)), c->pct);
		if (ended && p && p->found)
			fprintf(f,
			        "  periodic: every %s +- %s (%u of %" PRIu64
			        " intervals, gaps >= %s)",
			        iot_fmt_dur((double)p->period_ns, b2, sizeof(b2)),
			        iot_fmt_dur((double)p->jitter_ns, b3, sizeof(b3)), p->count,
			        (uint64_t)p->gaps - 1,
			        iot_fmt_dur((double)p->min_gap_ns, b1, sizeof(b1)));
		fputc('\n', f);
	}
}

/* "packets kept: port 2049 or port 111 whole, other tcp or udp 128 bytes (headers)" */
static void text_kept(struct txt *t, const json_t *kept)
{
	FILE *f = t->f;
	const json_t *k;
	char flt[160];
	size_t i;

	if (!json_array_size(kept))
		return;
	fputs("    packets kept:", f);
	json_array_foreach(kept, i, k)
	{
		uint64_t snap = jget_u(t, k, "snaplen");

		fprintf(
		    f, "%s %s ", i ? "," : "",
		    txt_escape(json_string_value(json_object_get(k, "filter")), flt, sizeof(flt)));
		if (snap >= 65535)
			fputs("whole", f);
		else
			fprintf(f, "%" PRIu64 " bytes (headers; sizes from the IP lengths)", snap);
	}
	fputc('\n', f);
}

/*
 * What the device's gaps had in common (the explainer's totals, as the document's explain was
 * written from them): the other devices, the network, NFS, the period, the commands, the causes.
 */
static void text_explain(struct txt *t, const struct ie_totals *tot)
{
	FILE *f = t->f;
	char b1[32], b2[32], b3[32], b4[32], who[128];
	const struct ie_period *p = tot->per;
	int any = 0;

	if (!tot->gaps_ns)
		return;
	for (unsigned i = 0; i < tot->ndevs; i++) {
		const struct ie_fig_other *o = &tot->devs[i];

		fprintf(f, "    %s %s busy %s of the gaps' %s (%.1f%%), %" PRIu64 " IOs, %s\n",
		        i ? "         " : "while idle:", dev_text(t->x, o->dev, who, sizeof(who)),
		        iot_fmt_dur((double)o->busy_ns, b1, sizeof(b1)),
		        iot_fmt_dur((double)tot->gaps_ns, b2, sizeof(b2)), o->busy_pct, o->ios,
		        iot_fmt_bytes(o->bytes, b3, sizeof(b3)));
	}
	for (unsigned i = 0; i < tot->nnfs; i++) {
		const struct ie_fig_net *n = &tot->net[i];

		if (!n->mapped) {
			fprintf(
			    f, "    network: packets not placed on the trace clock (no clock pairs "
			       "and no TIMESTAMP)\n");
			continue;
		}
		fprintf(f,
		        "    network during the gaps: %" PRIu64 " packets, %s (%s): in %" PRIu64
		        " (%s), out %" PRIu64 " (%s)",
		        n->packets, iot_fmt_bytes(n->bytes, b1, sizeof(b1)),
		        iot_fmt_rate(n->mb_per_s * 1e6, b4, sizeof(b4)), n->dir_packets[IE_DIR_IN],
		        iot_fmt_bytes(n->dir_bytes[IE_DIR_IN], b2, sizeof(b2)),
		        n->dir_packets[IE_DIR_OUT],
		        iot_fmt_bytes(n->dir_bytes[IE_DIR_OUT], b3, sizeof(b3)));
		if (n->dir_packets[IE_DIR_LOCAL])
			fprintf(f, ", local %" PRIu64 " (%s)", n->dir_packets[IE_DIR_LOCAL],
			        iot_fmt_bytes(n->dir_bytes[IE_DIR_LOCAL], b1, sizeof(b1)));
		fputc('\n', f);
		text_kept(t, n->kept);
	}
	for (unsigned i = 0; i < tot->nnfs; i++) {
		const struct ie_fig_nfs *n = &tot->nfs[i];

		if (!n->arrivals && !n->busy_ns)
			continue;
		fprintf(
		    f,
		    "    NFS during the gaps: disk idle while the server had work %s (%.1f%% of "
		    "the gaps), %" PRIu64 " calls arrived, %.2f outstanding on average, at most "
		    "%u\n",
		    iot_fmt_dur((double)n->busy_ns, b1, sizeof(b1)), n->busy_pct, n->arrivals,
		    n->outstanding_mean, n->max);
	}
	if (p && p->found)
		fprintf(f,
		        "    periodic: gaps of at least %s end every %s +- %s (%u of %" PRIu64
		        " intervals)\n",
		        iot_fmt_dur((double)p->min_gap_ns, b1, sizeof(b1)),
		        iot_fmt_dur((double)p->period_ns, b2, sizeof(b2)),
		        iot_fmt_dur((double)p->jitter_ns, b3, sizeof(b3)), p->count,
		        (uint64_t)p->gaps - 1);
	text_cmds(f, tot);
	fprintf(f, "    causes of the gaps listed:");
	for (unsigned c = 0; c < IE_CAUSES; c++)
		if (tot->cause_gaps[c])
			fprintf(f, "%s %s %" PRIu64, any++ ? "," : "", idle_cause_name(c),
			        tot->cause_gaps[c]);
	fprintf(f, "%s\n", any ? "" : " none");
}

/* idle: the figures, the explanation of the gaps in total, the longest gaps with their causes
 * (both the explainer's). */
static void text_idle(struct txt *t, const struct blk_figures *fg, uint64_t start)
{
	FILE *f = t->f;
	char b1[32], b2[32];

	fprintf(f, "  %-10s %" PRIu64 " gaps >= %s, %s in total (%.1f%% of the span)\n", "idle",
	        fg->idle_gaps, iot_fmt_dur((double)fg->idle_threshold_ns, b1, sizeof(b1)),
	        iot_fmt_dur((double)fg->idle_total_ns, b2, sizeof(b2)), fg->idle_pct);
	if (t->tot)
		text_explain(t, t->tot);
	if (fg->ngaps)
		fprintf(f, "    %14s %14s %12s %12s  %-30s %-30s %s\n", "start (s)", "end (s)",
		        "length", "IO waiting", "began by (completed)", "ended by (issued)",
		        "cause");
	for (unsigned i = 0; i < fg->ngaps; i++) {
		const struct blk_fig_gap *g = &fg->gaps[i];
		const struct ie_gap *xg = t->xd ? idle_explain_listed(t->xd, i, g->start_ns) : NULL;
		char before[160], after[160], because[600], causes[256], t1[40], t2[40];

		io_text(&g->before, before, sizeof(before));
		if (g->ended_by_end)
			snprintf(after, sizeof(after), "end of trace");
		else
			io_text(&g->after, after, sizeof(after));
		/* how long a queued request waited while the device sat idle */
		if (g->queued)
			iot_fmt_dur((double)g->queued_ns, b2, sizeof(b2));
		else
			snprintf(b2, sizeof(b2), "-");
		/* every cause that holds, ranked: the label first */
		causes[0] = '\0';
		for (unsigned c = 0; xg && c < IE_CAUSES; c++)
			if (xg->causes & (1u << c))
				snprintf(causes + strlen(causes), sizeof(causes) - strlen(causes),
				         "%s%s", causes[0] ? ", " : "", idle_cause_name(c));
		fprintf(f, "    %14s %14s %12s %12s  %-30s %-30s %s\n",
		        iot_fmt_secs(g->start_ns - start, 6, t1, sizeof(t1)),
		        iot_fmt_secs(g->end_ns - start, 6, t2, sizeof(t2)),
		        iot_fmt_dur((double)(g->end_ns - g->start_ns), b1, sizeof(b1)), b2, before,
		        after, causes[0] ? causes : "-");
		for (unsigned c = 0; xg && c < IE_CAUSES; c++) {
			char why[512]; /* the JSON's "because" */

			if (!(xg->causes & (1u << c)))
				continue;
			idle_explain_because(t->x, t->xd, xg, c, why, sizeof(why));
			fprintf(f, "      %s: %s\n", idle_cause_name(c),
			        txt_escape(why, because, sizeof(because)));
		}
	}
}

/*
 * More than a tenth of the completions matched no queued bio: btt's per-bio rows cover only
 * the rest. Say so, and why: a bio split into several requests (X) completes in pieces at
 * sectors no bio was queued at (writes over max_sectors_kb: a journal's), and a write with
 * FUA or a preflush on a device without them ends with a flush sequence's completion.
 */
static void unmatched_note(FILE *f, const struct blk_figures *fg)
{
	uint64_t un = fg->unmatched_completions;
	uint64_t all = fg->reads.ios + fg->writes.ios;
	uint64_t splits = fg->act[BLK_A_SPLIT][0] + fg->act[BLK_A_SPLIT][1];
	uint64_t flush = fg->flush_completions;

	if (!all || 10 * un <= all)
		return;
	fprintf(f,
	        "    note: %" PRIu64 " of %" PRIu64
	        " completions (%.0f%%) matched no queued bio, so "
	        "btt's rows above leave them out:",
	        un, all, 100.0 * (double)un / (double)all);
	if (splits)
		fprintf(f,
		        " %" PRIu64 " bios were split into requests (X) that complete at "
		        "sectors no bio was queued at;",
		        splits);
	if (flush)
		fprintf(f,
		        " %" PRIu64 " completions ended a flush sequence (FUA or preflush "
		        "writes);",
		        flush);
	if (!splits && !flush)
		fprintf(f, " requests issued before the trace began, or lost records;");
	fprintf(f, " d2c rq follows every request\n");
}

/* The document's key of each distribution the text shows, in the order of its rows. */
static const enum blk_lat lat_rows[] = {BLK_LAT_Q2D, BLK_LAT_D2C, BLK_LAT_Q2C,
                                        BLK_LAT_Q2G, BLK_LAT_G2I, BLK_LAT_Q2M,
                                        BLK_LAT_I2D, BLK_LAT_M2D, BLK_LAT_D2C_REQ};

/* Device fg; d: its entry of the document, for what it is (dev, role, group, host) and the
 * explanation of its gaps. */
static void text_device(struct txt *t, const struct blk_figures *fg, const json_t *d,
                        uint64_t start)
{
	FILE *f = t->f;
	char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
	size_t i;
	char name[64];

	fprintf(f, "\ndevice %s", json_string_value(json_object_get(d, "dev")));
	if (json_is_string(json_object_get(d, "role")) ||
	    json_is_string(json_object_get(d, "group"))) {
		char r[160], g[160];
		const char *role = json_string_value(json_object_get(d, "role"));
		const char *grp = json_string_value(json_object_get(d, "group"));

		fprintf(f, " (%s%s%s)", role ? txt_escape(role, r, sizeof(r)) : "",
		        role && grp ? ", group "
		        : grp       ? "group "
		                    : "",
		        grp ? txt_escape(grp, g, sizeof(g)) : "");
	}
	if (json_is_string(json_object_get(d, "host")))
		fprintf(
		    f, " on %s",
		    txt_escape(json_string_value(json_object_get(d, "host")), name, sizeof(name)));
	fprintf(f, ": %" PRIu64 " events\n", fg->events);
	/* writes of data; a discard's or write-zeroes' range is no transfer (fstrim's 592 MiB
	 * of "writes"): each has its line, as have flushes */
	fprintf(f, "  %-10s %12" PRIu64 " ios %12s   writes %12" PRIu64 " ios %12s\n", "reads",
	        fg->reads.ios, iot_fmt_bytes(fg->reads.bytes, b1, sizeof(b1)), fg->data_writes.ios,
	        iot_fmt_bytes(fg->data_writes.bytes, b2, sizeof(b2)));
	if (fg->discards.ios)
		fprintf(f, "  %-10s %12" PRIu64 " ios %12s covered (no data: not in writes)\n",
		        "discards", fg->discards.ios,
		        iot_fmt_bytes(fg->discards.bytes, b1, sizeof(b1)));
	if (fg->write_zeroes.ios)
		fprintf(f, "  %-10s %12" PRIu64 " ios %12s covered (no data: not in writes)\n",
		        "w-zeroes", fg->write_zeroes.ios,
		        iot_fmt_bytes(fg->write_zeroes.bytes, b1, sizeof(b1)));
	if (fg->flushes)
		fprintf(f, "  %-10s %12" PRIu64 " requests (no data)\n", "flushes", fg->flushes);
	fprintf(f,
	        "  %-10s %12" PRIu64 " bios (%" PRIu64 " back, %" PRIu64 " front merges), %" PRIu64
	        " requeues\n",
	        "queued", fg->act[BLK_A_QUEUE][0] + fg->act[BLK_A_QUEUE][1],
	        fg->act[BLK_A_BACKMERGE][0] + fg->act[BLK_A_BACKMERGE][1],
	        fg->act[BLK_A_FRONTMERGE][0] + fg->act[BLK_A_FRONTMERGE][1],
	        fg->act[BLK_A_REQUEUE][0] + fg->act[BLK_A_REQUEUE][1]);
	/* btt's intervals per bio, then the request-level D2C (what report and compare show) */
	fprintf(
	    f,
	    "  %-10s %8s %10s %10s %10s %10s %10s %10s   (btt's, per bio; d2c rq: per request)\n",
	    "latency", "count", "mean", "min", "p50", "p90", "p99", "max");
	for (i = 0; i < sizeof(lat_rows) / sizeof(lat_rows[0]); i++) {
		const struct blk_fig_hist *h = &fg->lat[lat_rows[i]];
		/* bios for the btt intervals; requests (one D, one C) for the last row */
		const char *row =
		    lat_rows[i] == BLK_LAT_D2C_REQ ? "d2c rq" : blk_lat_names[lat_rows[i]];

		if (!h->count && i > 2)
			continue;
		fprintf(f, "    %-8s %8" PRIu64 " %10s %10s %10s %10s %10s %10s\n", row, h->count,
		        iot_fmt_dur(h->mean, b1, sizeof(b1)),
		        iot_fmt_dur((double)h->min, b2, sizeof(b2)),
		        iot_fmt_dur((double)h->p50, b3, sizeof(b3)),
		        iot_fmt_dur((double)h->p90, b4, sizeof(b4)),
		        iot_fmt_dur((double)h->p99, b5, sizeof(b5)),
		        iot_fmt_dur((double)h->max, b6, sizeof(b6)));
	}
	if (!fg->lat[BLK_LAT_Q2C].count && fg->lat[BLK_LAT_D2C_REQ].count)
		fprintf(f, "    (no queue (Q) events in the trace: d2c rq is per request, issue to "
		           "completion)\n");
	unmatched_note(f, fg);
	fprintf(f, "  %-10s mean %.2f, max %" PRIu64 "\n", "depth", fg->depth_mean, fg->depth_max);
	text_idle(t, fg, start);
	fprintf(f,
	        "  %-10s %" PRIu64 " (%" PRIu64 " over 128 sectors), %.1f%% sequential, %.1f/s, "
	        "%" PRIu64 " forward, %" PRIu64 " backward\n",
	        "seeks", fg->seeks, fg->seekwatcher, fg->sequential_pct, fg->seeks_per_sec,
	        fg->forward, fg->backward);
}

/*
 * Device i of root's devices[] (cg < 0) or of cgroups[cg]'s: from its pass, found through
 * s (the run's: r->refs, r->cg), or a summary run's figures (s->figs); d: its entry of the
 * document. Then printed. 0, -ENOMEM, or -EPROTO (s has no such device).
 */
static int device(struct txt *t, const struct run_summary *s, int cg, size_t i, const json_t *d,
                  uint64_t start)
{
	const struct blk_analysis *a = NULL;
	unsigned pos = (unsigned)i;
	struct blk_figures fg;
	struct ie_totals tot;
	char name[32];
	bool explained;
	int ret;

	if (!s)
		return -EPROTO;
	/* the document explains its gaps: the explainer that did must be at hand (below) */
	explained = json_is_object(json_object_get(json_object_get(d, "idle"), "explain"));
	if (cg < 0 && s->figs) {
		if (explained)
			return -EPROTO;
		if (i >= s->nfigs)
			return -EPROTO;
		text_device(t, &s->figs[i], d, start);
		return 0;
	}
	if (cg < 0 && s->refs) {
		unsigned h = 0;

		a = s->refs[i].a;
		pos = s->refs[i].pos;
		/* its gaps explained: host h's device (the cgroups' passes have none) */
		for (unsigned k = 0; s->hblk && k < s->nhosts; k++)
			if (s->hblk[k] == a)
				h = k;
		t->x = s->x;
		t->xd = s->x ? idle_explain_find(s->x, h, blk_analysis_sorted(a, pos)) : NULL;
	} else if (cg >= 0 && s->cg) {
		a = blk_bycg_pass(s->cg, (unsigned)cg);
	}
	if (!a || (explained && !t->xd))
		return -EPROTO;
	/* its gaps in total, as the document's explain was written from them */
	if (t->xd && idle_explain_totals(t->x, t->xd, &tot))
		return -ENOMEM;
	t->tot = t->xd ? &tot : NULL;
	ret = blk_figures_from_analysis(&fg, a, pos);
	/* the figures are the document's device's: found by position, checked by name */
	if (!ret &&
	    strcmp(blk_dev_name(fg.dev, name), json_string_value(json_object_get(d, "dev")) ?: ""))
		ret = -ENOENT;
	if (!ret)
		text_device(t, &fg, d, start);
	blk_figures_release(&fg);
	if (t->tot)
		idle_totals_release(&tot);
	t->x = NULL;
	t->xd = NULL;
	t->tot = NULL;
	return ret == -ENOENT ? -EPROTO : ret;
}

int blk_text_summary(FILE *f, const json_t *root, const struct run_summary *s, struct iot_err *e)
{
	struct txt tx = {.f = f}, *t = &tx;
	const json_t *in = json_object_get(root, "input"), *devs = json_object_get(root, "devices");
	const json_t *hosts = json_object_get(root, "hosts"), *h;
	uint64_t start = jget_u(t, root, "start_ns");
	char b1[32], b2[40];
	size_t i;
	json_t *d;
	int ret = 0;

	if (json_is_true(json_object_get(in, "partial")))
		fprintf(f,
		        "partial results: the input stops at bad bytes (%s); what came before "
		        "them:\n",
		        json_string_value(json_object_get(in, "error")));
	fprintf(f, "%zu file(s), %" PRIu64 " events, %zu device(s), span %s",
	        json_array_size(jget(t, in, "files")), jget_u(t, in, "events"),
	        json_array_size(devs),
	        iot_fmt_dur((double)jget_u(t, root, "span_ns"), b1, sizeof(b1)));
	fprintf(f, ", timeline %" PRIu64 " bins of %s (--json)\n", jget_u(t, root, "timeline.bins"),
	        iot_fmt_dur((double)jget_u(t, root, "timeline.interval_ns"), b2, sizeof(b2)));
	/* a level of detail below every event (bpf --detail io or summary) says what it lacks */
	if (json_is_object(json_object_get(root, "detail")) &&
	    json_array_size(json_object_get(json_object_get(root, "detail"), "not_given"))) {
		const json_t *ng = json_object_get(json_object_get(root, "detail"), "not_given"),
		             *v;

		fprintf(
		    f, "captured at --detail %s: not given:",
		    json_string_value(json_object_get(json_object_get(root, "detail"), "level")));
		json_array_foreach(ng, i, v) fprintf(f, " %s", json_string_value(v));
		fputc('\n', f);
	}
	/* the JSON's times are on the trace's clock; the text's count from its start */
	fprintf(f, "times in seconds from %s s on the trace clock (start_ns)\n",
	        iot_fmt_secs(start, 9, b2, sizeof(b2)));
	if (json_object_get(root, "events_dropped_devices")) /* only when there were some */
		fprintf(f,
		        "not analyzed: %" PRIu64
		        " events on devices past the first %u (more devices "
		        "than iotape keeps apart)\n",
		        jget_u(t, root, "events_dropped_devices"), BLK_MAX_DEVICES);
	json_array_foreach(hosts, i, h)
	{
		char name[64];

		fprintf(
		    f, "host %s (%s): span %s, its trace clock %s s from the first host's",
		    txt_escape(json_string_value(json_object_get(h, "host")), name, sizeof(name)),
		    json_string_value(json_object_get(h, "path")),
		    iot_fmt_dur((double)jget_u(t, h, "span_ns"), b1, sizeof(b1)),
		    iot_fmt_secs_signed(jget_i(t, h, "offset_ns"), 9, b2, sizeof(b2)));
		fputc('\n', f);
	}
	if (json_array_size(hosts))
		fprintf(f,
		        "one clock (the first host's trace clock) through the manifests' clock "
		        "pairs: alignment error at most %s\n",
		        iot_fmt_dur((double)jget_u(t, root, "alignment_error_ns"), b1, sizeof(b1)));
	/* --by cgroup: the same per cgroup, after the devices' figures of all IO (below) */
	json_array_foreach(devs, i, d)
	{
		/* gap times from the start of the first host's run, whatever the device's clock */
		int64_t off = 0;
		size_t k;

		json_array_foreach(hosts, k, h)
		{
			if (json_equal(json_object_get(h, "host"), json_object_get(d, "host")))
				off = jget_i(t, h, "offset_ns");
		}
		if (!ret)
			ret = device(t, s, -1, i, d, (uint64_t)((int64_t)start - off));
	}
	json_array_foreach(json_object_get(root, "cgroups"), i, h)
	{
		const json_t *id = json_object_get(h, "id"), *path = json_object_get(h, "path");
		char name[256];
		size_t k;

		if (json_is_integer(id) && !json_integer_value(id))
			fprintf(f,
			        "\nrecords without a cgroup id (plug, unplug; or captured without "
			        "ids): %" PRIu64 " events\n",
			        jget_u(t, h, "events"));
		else if (json_is_integer(id))
			fprintf(f, "\ncgroup %s (id %" PRIu64 "): %" PRIu64 " events\n",
			        json_is_string(path)
			            ? txt_escape(json_string_value(path), name, sizeof(name))
			            : "(path unknown)",
			        (uint64_t)json_integer_value(id), jget_u(t, h, "events"));
		else
			fprintf(f, "\ncgroups past the first %u: %" PRIu64 " events\n", 63u,
			        jget_u(t, h, "events"));
		json_array_foreach(json_object_get(h, "devices"), k, d)
		{
			if (!ret)
				ret = device(t, s, (int)i, k, d, start);
		}
	}
	if (ret == -ENOMEM)
		return iot_err_set(e, ret, "out of memory");
	if (ret)
		return iot_err_set(e, ret,
		                   "the text summary has no figures for a device of the "
		                   "document");
	if (tx.missing[0])
		return iot_err_set(e, -EPROTO,
		                   "the text summary reads '%s', which the document lacks",
		                   tx.missing);
	return 0;
}
