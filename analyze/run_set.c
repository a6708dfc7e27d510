/* SPDX-License-Identifier: MIT */
/* A run set as analyze reads it, each host's document apart: report's and compare's hosts. */
#include "analyze/run_summary.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/idle_explain.h"
#include "formats/blktrace.h"
#include "formats/manifest.h"
#include "formats/nfs_pipe.h"

/* Bad bytes (not a failing system): what came before them makes partial results. */
static bool bad_bytes(int ret)
{
	return ret == -EINVAL || ret == -EPROTO;
}

/* Host i's block figures into its document as run_summary_block() lays out a run's; where its
 * first event falls on the set's realtime clock. 0 or -ENOMEM. */
static int host_block(struct run_summary *r, struct run_set_host *h, unsigned i)
{
	const struct run_host *in = &h->host;
	struct blk_analysis *a = r->hblk[i];
	struct ie_clock clk;

	if (!in->rd) /* packets alone: no block figures, as for a run of packets */
		return 0;
	if (run_host_devices_json(a, in, h->doc))
		return -ENOMEM;
	/* the same clock run_summary_block() gives a run (its clock pairs, else its TIMESTAMP) */
	clk = in->m && in->m->have_clock ? (struct ie_clock){.m = in->m}
	                                 : run_trace_clock(bt_reader_stats(in->rd));
	clk.real_off_ns = in->real_off_ns;
	h->have_real_start = blk_analysis_ndevices(a) &&
	                     ie_clock_to_real(&clk, blk_analysis_start(a), &h->real_start_ns);
	return 0;
}

static void mark_partial(json_t *doc, const char *key, const struct iot_err *e)
{
	json_t *in = json_object_get(doc, key);

	if (!json_is_object(in)) {
		in = json_object();
		json_object_set_new(doc, key, in);
	}
	json_object_set_new(in, "partial", json_true());
	json_object_set_new(in, "error", json_string(e->msg));
}

int run_summary_set(struct run_summary *r, struct run_set_host *h, unsigned n,
                    int (*setup)(void *ctx, unsigned host, struct blk_analysis *a),
                    void (*packets)(void *ctx, unsigned host, struct run_set_host *h), void *ctx,
                    struct iot_err *e, unsigned *bad)
{
	struct run_host *rh = calloc(n ? n : 1, sizeof(*rh));
	struct iot_err pe;
	int ret, stop = 0;

	if (!rh)
		return iot_err_set(e, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < n; i++) {
		rh[i] = h[i].host;
		json_decref(h[i].doc);
		if (!(h[i].doc = json_object())) {
			free(rh);
			return iot_err_set(e, -ENOMEM, "out of memory");
		}
	}
	/* r->hosts points at rh until the documents are written: r keeps no pointer past here */
	ret = run_summary_hosts(r, rh, n, setup, ctx, e, bad);
	if (ret && !(r->passed && bad_bytes(ret) && r->events)) {
		free(rh);
		return ret;
	}
	if (ret) {
		stop = 1;
		mark_partial(h[*bad].doc, "input", e);
	}
	for (unsigned i = 0; i < n; i++)
		if (host_block(r, &h[i], i)) {
			free(rh);
			return iot_err_set(e, -ENOMEM, "out of memory");
		}
	r->hosts = NULL;
	free(rh);
	/* each host's packets over every host's gaps (as analyze's), into its own document */
	for (unsigned i = 0; i < n; i++) {
		struct run_captures c = {.src = &h[i].src, .n = 1, .host = i, .into = h[i].doc};
		unsigned b;

		if (!h[i].src)
			continue;
		if (packets)
			packets(ctx, i, &h[i]);
		c.also = h[i].also;
		c.ctx = h[i].ctx;
		r->frame_fn = h[i].frame_fn;
		r->frame_arg = h[i].frame_arg;
		ret = run_summary_captures(r, &c, &pe, &b);
		r->frame_fn = NULL;
		r->frame_arg = NULL;
		if (ret < 0) {
			*bad = i;
			*e = pe;
			return ret;
		}
		if (ret && !stop) {
			stop = 1;
			*bad = i;
			*e = pe;
		}
	}
	/* every host's packets have joined the explanations: each host's gaps written last */
	for (unsigned i = 0; i < n; i++)
		if (h[i].host.rd &&
		    idle_explain_json(r->x, i, json_object_get(h[i].doc, "devices")))
			return iot_err_set(e, -ENOMEM, "out of memory");
	return stop;
}
