/* SPDX-License-Identifier: MIT */
/* A sweep's done runs loaded with their figures, as `iotape analyze` gives them (sweep/load.h). */
#include "sweep/load.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>

#include "analyze/blk_sink.h"
#include "analyze/run_load.h"
#include "analyze/run_set_load.h"
#include "common/warnings.h"
#include "formats/runset.h"

struct load {
	uint64_t idle_ns;
	json_t *msgs;
	struct iot_err *stop, *e;
	bool *usage;
	bool cell_failed; /* a cell's load ended the walk (its error, not the walk's) */
};

/* A cell's run set of several hosts, read as 'iotape analyze SET' reads it (each host's gaps
 * explained by every host): each host's summary with its host. 0, RUN_SET_APART, or -errno. */
static int load_set(struct load *l, const struct runset *rs, struct sweep_cell_runs *out)
{
	struct run_set_load set;
	struct blk_opts o;
	int ret;

	/* analyze's defaults, as run_summary_load()'s */
	blk_opts_init(&o);
	o.idle_threshold_ns = l->idle_ns;
	ret = run_set_load_runset(&set, rs, &o, 0, NULL, NULL, NULL, l->msgs, l->stop, l->e);
	for (unsigned h = 0; h < rs->n && !ret; h++) {
		if (run_summary_dropped_warning(rs->h[h].run, set.h[h].doc, l->msgs))
			ret = -ENOMEM;
		else
			ret =
			    sweep_cell_add(out, rs->h[h].name, rs->h[h].run,
			                   json_incref(set.h[h].doc), json_incref(set.manifest[h]));
	}
	run_set_load_release(&set);
	return ret;
}

/* One run into the cell: its summary, with host when it is a run set's. 0 or -errno. */
static int load_one(struct load *l, const char *host, const char *path, struct sweep_cell_runs *out)
{
	json_t *summary, *manifest;
	int ret = run_summary_load(path, l->idle_ns, &summary, &manifest, l->msgs, l->stop, l->e);

	return ret ? ret : sweep_cell_add(out, host, path, summary, manifest);
}

/* A cell's run set opened, its failed hosts said. As runset_open(). */
static int open_set(struct load *l, const char *set, struct runset *rs)
{
	int ret = runset_open(set, rs, l->e);

	if (ret == -ENOENT)
		return ret;
	for (unsigned i = 0; i < rs->nf; i++)
		if (iot_warn_json(l->msgs, "host %s left out: %s", rs->f[i].name,
		                  rs->f[i].reason)) {
			runset_release(rs);
			return iot_err_set(l->e, -ENOMEM, "out of memory");
		}
	if (ret == -ENODATA) {
		*l->usage = true;
		runset_release(rs);
	}
	return ret;
}

/* A cell's run: its summary, or each host's of its run set (sweep --host) with its host. */
static int load_cell(struct load *l, const char *rundir, struct sweep_cell_runs *out)
{
	struct runset rs;
	char set[PATH_MAX + 16];
	bool apart;
	int ret;

	snprintf(set, sizeof(set), "%s/" SWEEP_SET_DIR, rundir);
	if ((ret = open_set(l, set, &rs)) == -ENOENT) /* a run of one host */
		return load_one(l, NULL, rundir, out);
	if (ret)
		return ret;
	ret = rs.n > 1 ? load_set(l, &rs, out) : RUN_SET_APART;
	apart = ret == RUN_SET_APART; /* each host then a run of its own */
	if (apart)
		ret = 0;
	for (unsigned h = 0; apart && h < rs.n && !ret; h++)
		ret = load_one(l, rs.h[h].name, rs.h[h].run, out);
	runset_release(&rs);
	return ret;
}

static int walk_cell(void *ctx, const char *rundir, struct sweep_cell_runs *out)
{
	struct load *l = ctx;
	int ret = load_cell(l, rundir, out);

	if (ret)
		l->cell_failed = true;
	if (ret == -ENOMEM)
		iot_err_set(l->e, -ENOMEM, "out of memory");
	return ret;
}

int sweep_load(struct sweep_runs *s, const char *dir, uint64_t idle_ns, json_t *msgs,
               struct iot_err *stop, bool *usage, struct iot_err *e)
{
	struct load l = {idle_ns, msgs, stop, e, usage, false};
	int ret;

	*usage = false;
	ret = sweep_runs_load(s, dir, walk_cell, &l, e);
	if (l.cell_failed)
		return ret; /* the cell's error, in e */
	/* the walk's end (or no run done): the runs the tables lack */
	if ((!ret || ret == -ENOENT) && (s->failed || s->missing) &&
	    iot_warn_json(msgs,
	                  "'%s': %zu of %zu runs are in the tables; %zu failed, %zu not run (yet)",
	                  dir, s->done, s->total, s->failed, s->missing))
		return iot_err_set(e, -ENOMEM, "out of memory");
	return ret;
}
