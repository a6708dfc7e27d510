/* SPDX-License-Identifier: MIT */
/* A run set of summary runs (capture --host --detail summary): each host's figures, one clock. */
#include "analyze/run_summaries.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/blk_figures.h"
#include "analyze/idle_explain.h"
#include "analyze/run_summary.h"
#include "common/jsonint.h"
#include "common/warnings.h"
#include "formats/manifest.h"
#include "formats/rundir.h"

int run_summaries_detect(const struct run_summaries_host *h, unsigned n)
{
	unsigned sum = 0;

	for (unsigned i = 0; i < n; i++) {
		struct rundir rd;
		struct iot_err e;

		if (rundir_scan(&rd, h[i].path, &e))
			continue; /* reading it says what is wrong */
		sum += rd.summary && !rd.ntraces;
		rundir_release(&rd);
	}
	return !sum ? 0 : sum == n ? 1 : -EINVAL;
}

/* Every host's devices' figures, in the order of "devices". */
struct figs {
	struct blk_figures *f;
	unsigned n;
};

/* s's figures moved to the end of figs. 0 or -ENOMEM. */
static int figs_take(struct figs *figs, struct run_summary *s)
{
	struct blk_figures *f = realloc(figs->f, (figs->n + s->nfigs + 1) * sizeof(*f));

	if (!f)
		return -ENOMEM;
	figs->f = f;
	memcpy(f + figs->n, s->figs, s->nfigs * sizeof(*f));
	figs->n += s->nfigs;
	free(s->figs); /* their gaps are figs' now */
	s->figs = NULL;
	s->nfigs = 0;
	return 0;
}

/* Host i's clock: its manifest's clock pairs and the offset runset.json measured. */
struct host_clock {
	struct manifest m;
	bool have_m;
	struct ie_clock clk;
};

/* Host h's summary, its devices named and keyed as --hosts names them, into *doc, their
 * figures appended to figs; its manifest into c. 0 or -errno (e filled). */
static int host_doc(const struct run_summaries_host *h, const struct blk_opts *o,
                    uint64_t want_interval_ns, uint64_t want_idle_ns, struct host_clock *c,
                    json_t **doc, struct figs *figs, json_t *warnings, struct iot_err *e)
{
	struct run_summary s;
	struct rundir rd;
	struct iot_err me;
	json_t *d;
	size_t k;
	int ret;

	*doc = NULL;
	if ((ret = rundir_scan(&rd, h->path, e)))
		return ret;
	if (rd.ncaptures &&
	    iot_warn_json(
	        warnings,
	        "host %s: its packet capture is not analyzed with its summary: analyze '%s' alone",
	        h->name, rd.captures[0]))
		goto nomem_rd;
	if (rd.manifest && !manifest_load(rd.manifest, &c->m, &me))
		c->have_m = true;
	else if (iot_warn_json(warnings, "host %s: %s: its times stay on its own trace clock",
	                       h->name, rd.manifest ? me.msg : "no manifest.json"))
		goto nomem_rd;
	c->clk = (struct ie_clock){.m = c->have_m && c->m.have_clock ? &c->m : NULL,
	                           .real_off_ns = h->offset_ns};
	if (run_summary_init(&s, o))
		goto nomem_rd;
	s.want_interval_ns = want_interval_ns;
	s.want_idle_ns = want_idle_ns;
	ret = run_summary_file(&s, rd.summary, e);
	rundir_release(&rd);
	if (ret) {
		run_summary_release(&s);
		iot_err_prefix(e, "host %s", h->name);
		return ret;
	}
	/* the devices known as --hosts knows them: the manifest's key, role and group, the host */
	if (blk_ident_json(json_object_get(s.doc, "devices"), c->have_m ? &c->m : NULL, NULL)) {
		run_summary_release(&s);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	json_array_foreach(json_object_get(s.doc, "devices"), k, d)
	    json_object_set_new(d, "host", json_string(h->name));
	if (figs_take(figs, &s)) {
		run_summary_release(&s);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	*doc = json_incref(s.doc);
	run_summary_release(&s);
	return 0;
nomem_rd:
	rundir_release(&rd);
	return iot_err_set(e, -ENOMEM, "out of memory");
}

/* The larger of the clock pairs' uncertainties of m (0 without). */
static uint64_t pairs_uncertainty(const struct manifest *m)
{
	json_t *clock = m ? json_object_get(m->root, "clock") : NULL;
	uint64_t u = 0;

	for (int k = 0; k < 2; k++) {
		json_int_t v = json_integer_value(
		    json_object_get(json_object_get(clock, k ? "end" : "start"), "uncertainty_ns"));

		if (v > 0 && (uint64_t)v > u)
			u = (uint64_t)v;
	}
	return u;
}

int run_summaries_doc(const struct run_summaries_host *rs, unsigned n, const struct blk_opts *o,
                      uint64_t want_interval_ns, uint64_t want_idle_ns, json_t *root,
                      json_t *warnings, struct iot_err *e)
{
	return run_summaries_read(rs, n, o, want_interval_ns, want_idle_ns, root, NULL, NULL,
	                          warnings, e);
}

int run_summaries_read(const struct run_summaries_host *rs, unsigned n, const struct blk_opts *o,
                       uint64_t want_interval_ns, uint64_t want_idle_ns, json_t *root,
                       struct blk_figures **figsp, unsigned *nfigs, json_t *warnings,
                       struct iot_err *e)
{
	struct figs figs = {NULL, 0};
	struct host_clock *c = calloc(n, sizeof(*c));
	json_t *hosts = json_array(), *devs = json_array(), *paths = json_array(), *doc = NULL;
	uint64_t start = UINT64_MAX, end = 0, worst = 0, err1 = 0, err2 = 0;
	int ret = 0;

	if (!c || !hosts || !devs || !paths)
		goto nomem;
	for (unsigned i = 0; i < n && !ret; i++) {
		uint64_t s, f, cs, cf;
		int64_t real;
		json_t *d;
		size_t k;

		if ((ret = host_doc(&rs[i], o, want_interval_ns, want_idle_ns, &c[i], &doc, &figs,
		                    warnings, e)))
			break;
		json_u64_member(doc, "start_ns", &s);
		json_u64_member(doc, "end_ns", &f);
		/* on the first host's trace clock, as --hosts puts every host
		 * (analyze/idle_explain.h): through its clock pairs and the offset runset.json
		 * measured, onto the realtime clock, and back through the first host's */
		if (!(ie_clock_to_real(&c[i].clk, s, &real) &&
		      ie_clock_from_real(&c[0].clk, real, &cs) &&
		      ie_clock_to_real(&c[i].clk, f, &real) &&
		      ie_clock_from_real(&c[0].clk, real, &cf))) {
			if (i && iot_warn_json(
			             warnings,
			             "host %s: its manifest has no clock pairs: its times are not "
			             "put on the first host's clock",
			             rs[i].name))
				goto nomem;
			cs = s, cf = f;
		}
		if (json_array_size(json_object_get(doc, "devices"))) {
			start = cs < start ? cs : start;
			end = cf > end ? cf : end;
		}
		if (json_array_append_new(
		        hosts, json_pack("{s:s, s:s, s:I, s:I, s:I, s:I}", "host", rs[i].name,
		                         "path", rs[i].path, "start_ns", (json_int_t)s, "end_ns",
		                         (json_int_t)f, "span_ns", (json_int_t)(f - s), "offset_ns",
		                         (json_int_t)(cs - s))) ||
		    json_array_extend(paths,
		                      json_object_get(json_object_get(doc, "input"), "paths")))
			goto nomem;
		json_array_foreach(json_object_get(doc, "devices"), k, d)
		{
			if (json_array_append(devs, d))
				goto nomem;
		}
		if (!i) { /* the timeline's keys and what the level of detail lacks: every host's */
			json_object_set(root, "timeline", json_object_get(doc, "timeline"));
			if (json_is_object(json_object_get(doc, "detail")))
				json_object_set(root, "detail", json_object_get(doc, "detail"));
			else if (c[i].have_m && json_object_get(c[i].m.root, "detail"))
				json_object_set(root, "detail",
				                json_object_get(c[i].m.root, "detail"));
		}
		/* each mapping goes through two hosts' clock pairs and two offsets */
		if (c[i].clk.m && pairs_uncertainty(c[i].clk.m) > worst)
			worst = pairs_uncertainty(c[i].clk.m);
		if (rs[i].error_ns > err1)
			err2 = err1, err1 = rs[i].error_ns;
		else if (rs[i].error_ns > err2)
			err2 = rs[i].error_ns;
		json_decref(doc);
		doc = NULL;
	}
	if (!ret) {
		json_object_set_new(root, "input",
		                    json_pack("{s:O, s:[], s:I, s:b}", "paths", paths, "files",
		                              "events", (json_int_t)0, "summaries", 1));
		json_object_set_new(root, "start_ns", json_u64((end ? start : 0)));
		json_object_set_new(root, "end_ns", json_u64(end));
		json_object_set_new(root, "span_ns", json_u64((end ? end - start : 0)));
		json_object_set(root, "hosts", hosts);
		json_object_set_new(root, "alignment_error_ns",
		                    json_u64((n > 1 ? 2 * worst : worst) + err1 + err2));
		json_object_set(root, "devices", devs);
		if (figsp) {
			*figsp = figs.f;
			*nfigs = figs.n;
			figs.f = NULL;
			figs.n = 0;
		}
	}
	goto out;
nomem:
	ret = iot_err_set(e, -ENOMEM, "out of memory");
out:
	blk_figures_free(figs.f, figs.n);
	json_decref(doc);
	json_decref(hosts);
	json_decref(devs);
	json_decref(paths);
	for (unsigned i = 0; c && i < n; i++)
		if (c[i].have_m)
			manifest_release(&c[i].m);
	free(c);
	return ret;
}
