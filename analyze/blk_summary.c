/* SPDX-License-Identifier: MIT */
/* A summary run (the bpf backend's --detail summary) as analyze's document, for what it holds. */
#include "analyze/blk_summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/blk_counts.h"
#include "analyze/blk_figures.h"
#include "common/jsonint.h"
#include "common/units.h"

/*
 * summary.json (docs/capture.md "summary.json") holds, per device, figures the kernel computed
 * the way the sinks compute them from events (capture/bpf/blk.bpf.c): the D2C (request-based)
 * or Q2C (bio-based) histogram in common/hist's buckets, the timeline's completions, bytes and
 * seeks per bin, the seek sink's counts, and the idle gaps (at least the threshold, each ended
 * by an issue). They go under the keys the sinks write, so the text view, report and compare
 * read them as any other run's; what a summary cannot give is named in "not_given" and left
 * out, never filled with zeros that would read as measured. Each figure also goes, from the
 * same variable, into the device's struct blk_figures (the text view's; its BLK_FIG_NO_* bits
 * say what is not given).
 */

static uint64_t ju(const json_t *o, const char *k)
{
	uint64_t v;

	json_u64_member(o, k, &v); /* 0 when absent or not a u64 */
	return v;
}

static int hist_from(const json_t *lat, struct hist *h)
{
	const json_t *b = json_object_get(lat, "buckets"), *e;
	size_t i;

	hist_init(h);
	json_array_foreach(b, i, e)
	{
		json_int_t idx = json_integer_value(json_array_get(e, 0));

		if (idx < 0 || idx >= (json_int_t)HIST_BUCKETS)
			return -EINVAL;
		h->b[idx] += (uint64_t)json_integer_value(json_array_get(e, 1));
	}
	h->count = ju(lat, "count");
	h->sum = (long double)ju(lat, "sum");
	if (h->count) {
		h->min = ju(lat, "min");
		h->max = ju(lat, "max");
	}
	return 0;
}

static int cmp_len(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	uint64_t lx = x[1] - x[0], ly = y[1] - y[0];

	return lx < ly ? 1 : lx > ly ? -1 : (x[0] > y[0]) - (x[0] < y[0]);
}

/* The idle sink's keys from the summary's gaps, and fg's idle figures. NULL: out of memory. */
static json_t *idle_json(const json_t *gaps, uint64_t threshold, uint64_t span, unsigned top,
                         struct blk_figures *fg)
{
	size_t n = json_array_size(gaps), i, k;
	uint64_t(*g)[2] = calloc(n ? n : 1, sizeof(*g)), total = 0;
	struct hist h;
	json_t *o = json_object(), *longest = json_array();

	hist_init(&h);
	for (i = 0, k = 0; g && i < n; i++) {
		const json_t *e = json_array_get(gaps, i);

		g[k][0] = (uint64_t)json_integer_value(json_array_get(e, 0));
		g[k][1] = (uint64_t)json_integer_value(json_array_get(e, 1));
		if (g[k][1] < g[k][0])
			g[k][1] = g[k][0];
		/* a threshold above the capture's: its gaps that long, as the idle sink's */
		if (g[k][1] - g[k][0] < threshold)
			continue;
		total += g[k][1] - g[k][0];
		hist_add(&h, g[k][1] - g[k][0]);
		k++;
	}
	n = g ? k : 0;
	if (g)
		qsort(g, n, sizeof(*g), cmp_len);
	fg->idle_threshold_ns = threshold;
	fg->idle_gaps = n;
	fg->idle_total_ns = total;
	fg->idle_pct = blk_pct(total, span);
	if (n && top && !(fg->gaps = calloc(n < top ? n : top, sizeof(*fg->gaps)))) {
		free(g);
		json_decref(o);
		json_decref(longest);
		return NULL;
	}
	for (i = 0; g && i < n && i < top; i++) {
		/* ended by an issue, edges and queueing not kept */
		fg->gaps[fg->ngaps++] =
		    (struct blk_fig_gap){.start_ns = g[i][0], .end_ns = g[i][1]};
		json_array_append_new(longest,
		                      json_pack("{s:I, s:I, s:I, s:b, s:s, s:b}", "start_ns",
		                                (json_int_t)g[i][0], "end_ns", (json_int_t)g[i][1],
		                                "duration_ns", (json_int_t)(g[i][1] - g[i][0]),
		                                "at_start", 0, "ended_by", "issue", "queued", 0));
	}
	free(g);
	json_object_set_new(o, "threshold_ns", json_u64(threshold));
	json_object_set_new(o, "gaps", json_u64(n));
	json_object_set_new(o, "total_ns", json_u64(total));
	json_object_set_new(o, "pct", json_real(fg->idle_pct));
	json_object_set_new(o, "histogram", blk_hist_json(&h, 1));
	json_object_set_new(o, "longest", longest);
	return o;
}

/* one bin of the timeline sink's: v is ios, write_ios, read_bytes, write_bytes, seeks */
static json_t *bin_json(uint64_t origin, uint64_t interval, uint64_t k, const uint64_t *v)
{
	double width = (double)interval / 1e9;

	return json_pack("{s:I, s:I, s:I, s:I, s:f, s:f, s:I, s:I, s:f, s:I}", "start_ns",
	                 (json_int_t)(origin + k * interval), "width_ns", (json_int_t)interval,
	                 "read_bytes", (json_int_t)v[2], "write_bytes", (json_int_t)v[3],
	                 "read_mbps", (double)v[2] / 1e6 / width, "write_mbps",
	                 (double)v[3] / 1e6 / width, "ios", (json_int_t)v[0], "write_ios",
	                 (json_int_t)v[1], "iops", (double)v[0] / width, "seeks", (json_int_t)v[4]);
}

/* The device's object into *out, its figures into fg (zeroed). sint: the summary's bin width;
 * interval: the timeline's (a multiple of it). 0, -EINVAL or -ENOMEM (e filled). */
static int device_json(const json_t *sd, uint64_t origin, uint64_t span, uint64_t sint,
                       uint64_t interval, uint64_t threshold, unsigned top, json_t *timeline,
                       struct blk_figures *fg, json_t **out, struct iot_err *e)
{
	const json_t *lat = json_object_get(sd, "latency"), *seeks = json_object_get(sd, "seeks");
	const json_t *bins = json_object_get(sd, "bins"), *b;
	const char *kind = json_string_value(json_object_get(lat, "kind"));
	int bio = json_is_true(json_object_get(sd, "bio_based"));
	uint64_t ios[2] = {0, 0}, bytes[2] = {0, 0}, tr = ju(seeks, "transitions");
	uint64_t acc[5] = {0}, cur = 0;
	int have = 0;
	double secs = (double)span / 1e9;
	struct hist h;
	json_t *d = json_object(), *l = json_object(), *s, *idle;
	enum blk_lat lk;
	unsigned ma, mi;
	size_t i;

	if (!kind || (strcmp(kind, "d2c") && strcmp(kind, "q2c")) || hist_from(lat, &h)) {
		json_decref(d);
		json_decref(l);
		return iot_err_set(e, -EINVAL, "summary: device %s: bad latency histogram",
		                   json_string_value(json_object_get(sd, "dev")));
	}
	/* the summary's bins (sorted, those with IO), interval / summary's of them to a bin */
	json_array_foreach(bins, i, b)
	{
		uint64_t k = (uint64_t)json_integer_value(json_array_get(b, 0)) * sint / interval;
		uint64_t v[5];

		for (unsigned j = 0; j < 5; j++)
			v[j] = (uint64_t)json_integer_value(json_array_get(b, j + 1));
		ios[0] += v[0] - v[1];
		ios[1] += v[1];
		bytes[0] += v[2];
		bytes[1] += v[3];
		if (have && k != cur) {
			json_array_append_new(timeline, bin_json(origin, interval, cur, acc));
			memset(acc, 0, sizeof(acc));
		}
		cur = k;
		have = 1;
		for (unsigned j = 0; j < 5; j++)
			acc[j] += v[j];
	}
	if (have)
		json_array_append_new(timeline, bin_json(origin, interval, cur, acc));
	if (sscanf(json_string_value(json_object_get(sd, "dev"))
	               ? json_string_value(json_object_get(sd, "dev"))
	               : "",
	           "%u,%u", &ma, &mi) == 2)
		fg->dev = BLK_MKDEV(ma, mi);
	fg->reads = (struct blk_fig_io){ios[0], bytes[0]};
	fg->writes = fg->data_writes = (struct blk_fig_io){ios[1], bytes[1]};
	json_object_set_new(d, "dev", json_incref(json_object_get(sd, "dev")));
	json_object_set_new(d, "name", json_incref(json_object_get(sd, "name")));
	json_object_set_new(
	    d, "reads",
	    json_pack("{s:I, s:I}", "ios", (json_int_t)ios[0], "bytes", (json_int_t)bytes[0]));
	json_object_set_new(
	    d, "writes",
	    json_pack("{s:I, s:I}", "ios", (json_int_t)ios[1], "bytes", (json_int_t)bytes[1]));
	json_object_set_new(
	    d, "data_writes",
	    json_pack("{s:I, s:I}", "ios", (json_int_t)ios[1], "bytes", (json_int_t)bytes[1]));
	json_object_set_new(d, "throughput",
	                    blk_throughput_json((double)bytes[0] + (double)bytes[1],
	                                        (double)ios[0] + (double)ios[1], span));
	json_object_set_new(l, kind, blk_hist_json(&h, 1));
	lk = strcmp(kind, "d2c") ? BLK_LAT_Q2C : BLK_LAT_D2C;
	blk_fig_hist_of(&fg->lat[lk], &h);
	fg->lat_given = 1u << lk;
	/* the summary's D2C is per request: the same figure as the request row */
	if (lk == BLK_LAT_D2C) {
		json_object_set_new(l, "d2c_request", blk_hist_json(&h, 0));
		fg->lat[BLK_LAT_D2C_REQ] = fg->lat[lk];
		fg->lat_given |= 1u << BLK_LAT_D2C_REQ;
	}
	fg->not_given = BLK_FIG_NO_EVENTS | BLK_FIG_NO_ACTIONS | BLK_FIG_NO_DEPTH;
	json_object_set_new(d, "latency_ns", l);
	if (!bio) {
		fg->seeks = ju(seeks, "count");
		fg->seekwatcher = ju(seeks, "seekwatcher");
		fg->seq_transitions = tr;
		fg->sequential = ju(seeks, "sequential");
		fg->forward = ju(seeks, "forward");
		fg->backward = ju(seeks, "backward");
		fg->sequential_pct = blk_pct(fg->sequential, tr);
		fg->seeks_per_sec = secs > 0 ? (double)fg->seeks / secs : 0.0;
		s = json_pack(
		    "{s:I, s:I, s:I, s:I, s:f, s:I, s:I, s:f, s:f}", "count", (json_int_t)fg->seeks,
		    "seekwatcher", (json_int_t)fg->seekwatcher, "transitions", (json_int_t)tr,
		    "sequential", (json_int_t)fg->sequential, "sequential_pct", fg->sequential_pct,
		    "forward", (json_int_t)fg->forward, "backward", (json_int_t)fg->backward,
		    "per_sec", fg->seeks_per_sec, "seekwatcher_per_sec",
		    secs > 0 ? (double)fg->seekwatcher / secs : 0.0);
		json_object_set_new(d, "seeks", s);
		idle = idle_json(json_object_get(sd, "gaps"), threshold, span, top, fg);
		if (!idle) {
			json_decref(d);
			return iot_err_set(e, -ENOMEM, "out of memory");
		}
		json_object_set_new(d, "idle", idle);
	} else {
		fg->not_given |= BLK_FIG_NO_SEEKS | BLK_FIG_NO_IDLE;
	}
	json_object_set_new(d, "not_given",
	                    bio ? json_pack("[s, s, s, s, s, s, s]", "events", "q2d", "d2c",
	                                    "depth", "actions", "seeks", "idle")
	                        : json_pack("[s, s, s, s, s, s, s, s, s]", "events", "q2d", "q2c",
	                                    "q2g", "g2i", "q2m", "depth",
	                                    "timeline depth and idle time", "actions"));
	*out = d;
	return 0;
}

int blk_summary_json(const json_t *sum, unsigned top, uint64_t want_interval, uint64_t want_idle,
                     json_t *root, struct iot_err *e)
{
	return blk_summary_read(sum, top, want_interval, want_idle, root, NULL, NULL, e);
}

int blk_summary_read(const json_t *sum, unsigned top, uint64_t want_interval, uint64_t want_idle,
                     json_t *root, struct blk_figures **figs, unsigned *nfigs, struct iot_err *e)
{
	struct blk_figures *fg;
	const json_t *devs = json_object_get(sum, "devices"), *sd;
	uint64_t origin = ju(sum, "origin_ns"), end = ju(sum, "end_ns");
	uint64_t sint = ju(sum, "interval_ns"), threshold = ju(sum, "idle_threshold_ns");
	uint64_t interval = sint;
	char ib[32], tb[32];
	uint64_t span = end > origin ? end - origin : 0;
	json_t *out = json_array();
	size_t i;
	const char *format = json_string_value(json_object_get(sum, "format"));

	if (!format || strcmp(format, "iotape-summary") || ju(sum, "format_version") != 1 ||
	    !json_is_array(devs) || !sint) {
		json_decref(out);
		return iot_err_set(e, -EINVAL, "not an iotape summary (format iotape-summary 1)");
	}
	/* what the kernel did not keep cannot be had: finer bins, shorter gaps */
	if ((want_interval && want_interval < sint) || (want_idle && want_idle < threshold)) {
		json_decref(out);
		return iot_err_set(
		    e, -ERANGE,
		    "a summary run holds %s bins and idle gaps of %s or more (capture "
		    "--interval, --idle-threshold): it cannot give finer",
		    iot_fmt_dur((double)sint, ib, sizeof(ib)),
		    iot_fmt_dur((double)threshold, tb, sizeof(tb)));
	}
	if (want_interval && want_interval % sint == 0)
		interval = want_interval;
	if (want_idle)
		threshold = want_idle;
	fg = calloc(json_array_size(devs) ? json_array_size(devs) : 1, sizeof(*fg));
	if (!fg) {
		json_decref(out);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	json_array_foreach(devs, i, sd)
	{
		json_t *tl = json_array(), *d = NULL;
		int ret = device_json(sd, origin, span, sint, interval, threshold, top, tl, &fg[i],
		                      &d, e);

		if (ret) {
			json_decref(tl);
			json_decref(out);
			blk_figures_free(fg, (unsigned)i + 1);
			return ret;
		}
		json_object_set_new(d, "timeline", tl);
		json_array_append_new(out, d);
	}
	if (figs) {
		*figs = fg;
		*nfigs = (unsigned)json_array_size(devs);
	} else {
		blk_figures_free(fg, (unsigned)json_array_size(devs));
	}
	json_object_set_new(root, "start_ns", json_u64(origin));
	json_object_set_new(root, "end_ns", json_u64(end));
	json_object_set_new(root, "span_ns", json_u64(span));
	json_object_set_new(root, "timeline",
	                    json_pack("{s:I, s:I, s:I}", "interval_ns", (json_int_t)interval,
	                              "bins",
	                              (json_int_t)(interval ? (span + interval - 1) / interval : 0),
	                              "widened", (json_int_t)0));
	json_object_set_new(root, "devices", out);
	return 0;
}
