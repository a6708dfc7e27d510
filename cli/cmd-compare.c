/* SPDX-License-Identifier: MIT */
/* iotape compare: a table of runs, grouped by label, with statistics and --fail-if gates. */
#include "cli/cli.h"
#include "cli/runs.h"

#include <errno.h>
#include <getopt.h> /* optarg, optind */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/inputs.h"
#include "formats/runset.h"
#include "analyze/blk_sink.h"
#include "analyze/blk_summary.h"
#include "common/fs.h"
#include "compare/compare.h"
#include "formats/manifest.h"
#include "formats/outcheck.h"
#include "analyze/run_summary.h"
#include "formats/blktrace.h"
#include "sweep/runs.h"

static const struct cli_opt compare_opts[] = {
    {.name = "label",
     .key = 'l',
     .arg = "L",
     .help = "label of the next run, in order (default: from the manifest)"},
    {.name = "by",
     .key = 'B',
     .arg = "KEYS",
     .help = "manifest keys that make automatic labels (default "
             "kernel,distro,filesystem,device: those that differ)"},
    {.name = "baseline",
     .key = 'b',
     .arg = "L",
     .help = "the group others are compared with (default: the first); NAME=V: each group "
             "against the one with NAME=V and the same other values (e.g. --baseline "
             "method=cp)"},
    {.name = "fail-if",
     .key = 'f',
     .arg = "RULE",
     .help = "METRIC<VALUE, METRIC>=VALUE or a change like 'mbps<-10%'; exit status 1 when a "
             "group crosses it or has no value to check (repeatable)"},
    {.name = "alpha",
     .key = 'a',
     .arg = "P",
     .help = "a relative rule fails only when also significant (p < P)"},
    {.name = "rows",
     .key = 'r',
     .arg = "KEYS",
     .help = "matrix layout: the keys of the rows (e.g. --rows distro --cols filesystem; "
             "--rows version,distro: a row per pair)"},
    {.name = "cols", .key = 'c', .arg = "KEYS", .help = "matrix layout: the keys of the columns"},
    {.name = "tables",
     .key = 'T',
     .arg = "KEYS",
     .help = "one matrix per value of KEY (e.g. a manifest label 'bs')"},
    {.name = "metrics",
     .key = 'M',
     .arg = "LIST",
     .help = "show only these metrics (e.g. mbps,wall_s)"},
    {.name = "pool",
     .key = 'P',
     .help = "pool runs into one group even when their manifests' labels differ (without it, "
             "a layout that would pool them is refused)"},
    {.name = "format",
     .key = 'F',
     .arg = "F",
     .values = "text markdown csv json",
     .help = "text (default), markdown, csv, json"},
    {.name = "output",
     .short_name = 'o',
     .arg = "FILE",
     .kind = CLI_FILE,
     .help = "write to FILE instead of standard output"},
    {.name = "idle-threshold",
     .key = 'i',
     .arg = "DUR",
     .help = "shortest idle gap when analyzing runs (default " BLK_DEFAULT_IDLE_TEXT ")"},
    {.name = "idle", .key = 'i', .arg = "DUR", .help = "the same as --idle-threshold"},
    {0},
};

const struct cli_doc doc_compare = {
    .summary = "compare runs: statistics, baseline, --fail-if gates",
    .synopsis =
        "RUN|SUMMARY.json|SWEEPDIR... [--label L]... [--baseline LABEL] "
        "[--fail-if 'METRIC<-10%']... [--alpha P] [--by KEY,...] "
        "[--rows KEY,... --cols KEY,... [--tables KEY,...]] [--format text|markdown|csv|json] "
        "[-o FILE] [--metrics LIST] [--pool] [--idle-threshold DUR]",
    .description =
        "Compare runs: run directories (analyzed here) or saved 'iotape analyze --json' output. "
        "Runs with the same label form a group: mean, sd, median, 95% CI (Student t), and "
        "Welch's t-test against the baseline group. A group counts runs, not devices: a run "
        "of several devices in one group is one value (MiB/s and IOPS summed over them; "
        "per-device figures with device or role in the layout). Runs are pooled only when "
        "something says they repeat one configuration (kernel, distro, filesystem or a "
        "label known for all), and never when their manifests' labels differ unless --pool "
        "says so. A SWEEPDIR ('iotape sweep') gives its "
        "finished runs, grouped by their cells; its parameters are keys for --by, --rows, "
        "--cols and --tables (two parameters: rows and columns by default; three or more: a "
        "table per value of the first, columns the last, rows the others), and its metrics "
        "(--metric, wall_s) are columns of their own. Run sets ('iotape capture --host') are "
        "compared host by host: every run is a host (its name in the set; a run of its own: "
        "its manifest's hostname) of a set (its path), keys 'host' and 'set'; by default a "
        "row per host, a column per set, each host against its own in the first set (a "
        "set's hosts read as 'iotape analyze SET' reads them: each host's gaps explained by "
        "the others too); a "
        "SWEEPDIR among them gives each cell as a set (SWEEPDIR/NAME=V), and a sweep whose "
        "cells are run sets (sweep --host) has 'host' as one more parameter.\n"
        "\n"
        "Metrics: mbps (MiB/s), iops, lat_p50, lat_p99 (D2C, us), idle_pct, longest_gap (ms), "
        "seeks, "
        "seq_pct, idle_other_busy and idle_nfs_work (% of the idle gaps with another device "
        "busy, with NFS calls outstanding), nfsV.OP (mean NFS response time, ms; nfs.OP for "
        "any version); a sweep's own "
        "metrics by name, and wall_s (the command's wall time).",
    .opts = compare_opts,
    .operands = CLI_INPUT,
    .exit_status = "0 success, 1 a group crossed a --fail-if rule, 2 usage or input error, "
                   "3 system error",
    .docs = "compare.md",
};

/* What grouping could not do: runs nothing told apart, runs of several devices summed. */
static void warn_pooling(const struct compare *c)
{
	if (c->unpooled)
		warning("%zu runs: nothing says whether they repeat one configuration (no kernel, "
		        "distro, filesystem or label known for every one): each is a group of its "
		        "own; give --label to pool them",
		        c->unpooled);
	if (c->merged)
		warning("%zu groups hold several devices of one run (up to %zu): their MiB/s and "
		        "IOPS are each run's sum, their per-device figures left out (put device or "
		        "role in --by, --rows, --cols or --tables to see them)",
		        c->merged, c->merged_devices);
}

/* Gates that failed for want of data say why: a missing value is a failure, not a pass. */
static void warn_missing(const struct compare *c)
{
	for (size_t g = 0; g < c->ngroups; g++)
		for (size_t m = 0; m < c->nmetrics; m++) {
			const struct cmp_group *gr = &c->group[g];
			const struct cmp_cell *cell = &gr->cell[m];
			const struct cmp_cell *base = &c->group[gr->base].cell[m];
			const char *rule = cell->missing ? c->rule[cell->rule].text : NULL;
			const char *key = c->metric[m].key;

			if (!rule)
				continue;
			if (!cell->s.n || isnan(cell->s.mean))
				warning("--fail-if '%s': group '%s' has no %s value: a gate fails "
				        "closed",
				        rule, gr->label, key);
			else if (!base->s.n || isnan(base->s.mean))
				warning(
				    "--fail-if '%s': group '%s': its baseline has no %s value: a "
				    "gate fails closed",
				    rule, gr->label, key);
			else
				warning(
				    "--fail-if '%s': group '%s': its baseline's %s is 0, a change "
				    "in percent is undefined: a gate fails closed",
				    rule, gr->label, key);
		}
}

/* One run of a comparison of run sets (its summary, its manifest or NULL, a sweep's own numbers
 * or NULL): its figures, with its host and set as dimensions. An exit code. */
static int add_host_summary(struct compare *c, const char *path, const char *host, const char *set,
                            json_t *summary, json_t *manifest, json_t *metrics)
{
	struct iot_err e;
	json_t *params;
	int ret;

	/* a run of its own: its host is the one its manifest names, else its name */
	if (!host) {
		const char *b = strrchr(path, '/');

		host = json_string_value(json_object_get(
		    json_object_get(manifest ? manifest : json_object_get(summary, "manifest"),
		                    "host"),
		    "hostname"));
		host = host ? host : b && b[1] ? b + 1 : path;
	}
	params = json_pack("{s:s, s:s}", "host", host, "set", set);
	ret = params ? compare_add_run(c, path, summary, manifest, params, metrics, &e)
	             : iot_err_set(&e, -ENOMEM, "out of memory");
	json_decref(params);
	if (ret)
		return error("%s", e.msg), exit_code_for(ret);
	return EXIT_OK;
}

static int add_host_run(struct compare *c, const char *path, const char *host, const char *set,
                        uint64_t idle_ns, struct iot_err *stop)
{
	json_t *summary, *manifest;
	int ret = load_summary(path, idle_ns, &summary, &manifest, stop);

	if (ret)
		return ret;
	ret = add_host_summary(c, path, host, set, summary, manifest, NULL);
	json_decref(summary);
	json_decref(manifest);
	return ret;
}

/* A run set's hosts, each with its host: several read as analyze reads the set (each host's
 * gaps explained by all of them), one (or a set analyze cannot put on one clock) each as a run
 * of its own. */
static int add_set_hosts(struct compare *c, const struct runset *rs, const char *set,
                         uint64_t idle_ns, struct iot_err *stop)
{
	struct run_set_load l;
	struct blk_opts o;
	int ret;

	/* analyze's defaults: the figures of a set are those 'iotape analyze SET' gives it */
	blk_opts_init(&o);
	o.idle_threshold_ns = idle_ns;
	ret = rs->n > 1 ? load_runset(&l, rs, &o, 0, NULL, NULL, NULL, stop) : RUNSET_APART;
	if (ret == RUNSET_APART) {
		if (rs->n > 1)
			run_set_load_release(&l);
		ret = EXIT_OK;
		for (unsigned h = 0; h < rs->n && ret == EXIT_OK; h++)
			ret = add_host_run(c, rs->h[h].run, rs->h[h].name, set, idle_ns, stop);
		return ret;
	}
	for (unsigned h = 0; h < rs->n && ret == EXIT_OK; h++) {
		warn_summary_dropped(rs->h[h].run, l.h[h].doc);
		ret = add_host_summary(c, rs->h[h].run, rs->h[h].name, set, l.h[h].doc,
		                       l.manifest[h], NULL);
	}
	run_set_load_release(&l);
	return ret;
}

/* A sweep among run sets: each cell a set of its own (SWEEPDIR/NAME=V/...), its repetitions
 * the set's samples, each run with its host (a run set's cell: each of its hosts). */
static int add_sweep_sets(struct compare *c, const char *dir, uint64_t idle_ns,
                          struct iot_err *stop, char *first, size_t cap)
{
	struct sweep_runs s;
	struct iot_err e;
	int ret = load_sweep(&s, dir, idle_ns, stop);

	if (!ret && (ret = sweep_runs_units(&s, c, &e)))
		ret = (error("%s", e.msg), exit_code_for(ret));
	for (size_t i = 0; i < s.n && !ret; i++) {
		const struct sweep_run_data *d = &s.run[i];
		char cell[PATH_MAX], set[PATH_MAX + 4200];

		if (sweep_cell_path(&s.def, d->cell, cell, sizeof(cell))) {
			ret = (error("'%s': path too long", dir), EXIT_USAGE);
			break;
		}
		snprintf(set, sizeof(set), "%s/%s", dir, cell);
		/* the default baseline: the first set given, here its first cell */
		if (first && !first[0] && (size_t)snprintf(first, cap, "set=%s", set) >= cap) {
			ret = (error("'%s': path too long", set), EXIT_USAGE);
			break;
		}
		ret =
		    add_host_summary(c, d->path, d->host, set, d->summary, d->manifest, d->metrics);
	}
	sweep_runs_release(&s);
	return ret;
}

/*
 * Run sets (capture --host) among the inputs: every run is a host of a set (a run of its own
 * is a set of one host, a sweep's cell a set of its own), compared host by host: by default a
 * row per host, a column per set, each host against its own in the first set.
 */
static int add_runsets(struct compare *c, struct compare_opts *o, char **paths,
                       const struct runset *sets, int n, uint64_t idle_ns, struct iot_err *stop,
                       char *base, size_t cap)
{
	int ret = EXIT_OK;

	base[0] = 0;
	for (int i = 0; i < n && ret == EXIT_OK; i++) {
		const struct runset *rs = &sets[i];

		if (sweep_is_dir(paths[i])) {
			ret = add_sweep_sets(c, paths[i], idle_ns, stop, i ? NULL : base, cap);
			continue;
		}
		if (!rs->n) { /* not a set (cli_runset_open() gives none without a host) */
			ret = add_host_run(c, paths[i], NULL, paths[i], idle_ns, stop);
			continue;
		}
		ret = add_set_hosts(c, rs, paths[i], idle_ns, stop);
	}
	if (!o->rows && !o->cols && !o->tables && !o->by) {
		o->rows = "host";
		o->cols = "set";
	}
	if (!o->baseline) {
		if (!base[0])
			snprintf(base, cap, "set=%s", paths[0]);
		o->baseline = base;
	}
	return ret;
}

/* The runs, sweeps or run sets argv[first..argc) into c, labelled by labels[] (nlabels of
 * them); a single sweep's default layout into layout; run sets' default baseline into base (cap
 * bytes, o->baseline may point there: it must live as long as o). An exit code after printing
 * any error. */
static int add_inputs(struct compare *c, struct compare_opts *o, int argc, char **argv, int first,
                      const char **labels, size_t nlabels, uint64_t idle_ns, struct iot_err *stop,
                      char layout[3][SWEEP_LAYOUT_MAX], char *base, size_t cap)
{
	struct iot_err e;
	struct runset *rs = calloc((size_t)(argc - first) + 1, sizeof(*rs));
	bool sets = false;
	int ret = EXIT_OK;

	if (!rs)
		return error("out of memory"), EXIT_SYSTEM;
	/* the run sets, opened once: -ENOENT says a path is none */
	for (int i = first; i < argc && ret == EXIT_OK; i++) {
		if ((ret = cli_runset_open(argv[i], &rs[i - first])) == -ENOENT)
			ret = EXIT_OK;
		else if (ret == EXIT_OK)
			sets = true;
	}
	if (ret == EXIT_OK && sets && nlabels)
		ret = usage_error("--label does not apply to run sets: their hosts and paths name "
		                  "the groups");
	else if (ret == EXIT_OK && sets)
		ret = add_runsets(c, o, argv + first, rs, argc - first, idle_ns, stop, base, cap);
	for (int i = first; i < argc; i++)
		runset_release(&rs[i - first]);
	free(rs);
	if (ret)
		return ret;
	for (int i = first; i < argc && !sets; i++) {
		json_t *summary, *manifest;

		if (sweep_is_dir(argv[i])) {
			struct sweep_runs s;

			if (nlabels) {
				ret = usage_error("--label does not apply to a sweep ('%s'): its "
				                  "parameters name its groups",
				                  argv[i]);
				return ret;
			}
			ret = load_sweep(&s, argv[i], idle_ns, stop);
			if (!ret && (ret = sweep_runs_add(&s, c, &e)))
				ret = (error("%s", e.msg), exit_code_for(ret));
			if (!ret && argc - first == 1)
				sweep_default_layout(&s, o, layout);
			sweep_runs_release(&s);
			if (ret)
				return ret;
			continue;
		}
		ret = load_summary(argv[i], idle_ns, &summary, &manifest, stop);
		if (ret)
			return ret;
		ret = compare_add(c, argv[i], summary, manifest, nlabels ? labels[i - first] : NULL,
		                  &e);
		json_decref(summary);
		json_decref(manifest);
		if (ret) {
			error("%s", e.msg);
			ret = exit_code_for(ret);
			return ret;
		}
	}
	return EXIT_OK;
}

/* The table rendered into outpath ("-" or NULL: standard output), written beside it and renamed:
 * a failure never leaves half a table. An exit code after printing any error. */
static int write_table(struct compare *c, enum cmp_format fmt, const char *outpath)
{
	struct iot_outfile of;
	struct iot_err e;
	int ret;

	if ((ret = iot_outfile_open(&of, outpath ? outpath : "-", 0, &e)) ||
	    !iot_outfile_stream(&of)) {
		if (!ret)
			iot_outfile_abort(&of);
		ret = ret ? ret : -ENOMEM;
		error("%s", ret == -ENOMEM ? "out of memory" : e.msg);
		ret = exit_code_for(ret);
		return ret;
	}
	ret = compare_render(c, fmt, iot_outfile_stream(&of));
	if (ret) {
		iot_outfile_abort(&of);
		error("writing the table: %s", strerror(-ret));
		return EXIT_SYSTEM;
	}
	if ((ret = iot_outfile_commit(&of, &e))) {
		error("%s", e.msg);
		ret = exit_code_for(ret);
		return ret;
	}
	return EXIT_OK;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_opts o = {0};
	enum cmp_format fmt = CMP_FMT_TEXT;
	const char **labels = calloc((size_t)argc + 1, sizeof(*labels));
	const char *outpath = NULL;
	unsigned long long idle_ns = BLK_DEFAULT_IDLE_NS;
	size_t nlabels = 0;
	char layout[3][SWEEP_LAYOUT_MAX], base[4200]; /* o.baseline may point into base */
	struct compare c;
	struct iot_err e, stop = {""};
	int opt, ret = EXIT_OK;

	if (!labels)
		return error("out of memory"), EXIT_SYSTEM;
	compare_init(&c);
	optind = 1;
	while ((opt = cli_getopt(argc, argv, &doc_compare)) != -1) {
		switch (opt) {
		case 'l':
			labels[nlabels++] = optarg;
			break;
		case 'b':
			o.baseline = optarg;
			break;
		case 'f':
			if (compare_add_rule(&c, optarg, &e)) {
				ret = usage_error("--fail-if: %s", e.msg);
				goto out;
			}
			break;
		case 'a':
			if (parse_double("--alpha", optarg, &o.alpha)) {
				ret = EXIT_USAGE;
				goto out;
			}
			if (!(o.alpha > 0 && o.alpha < 1)) {
				ret = usage_error("--alpha: '%s' is not between 0 and 1", optarg);
				goto out;
			}
			break;
		case 'r':
			o.rows = optarg;
			break;
		case 'c':
			o.cols = optarg;
			break;
		case 'B':
			o.by = optarg;
			break;
		case 'T':
			o.tables = optarg;
			break;
		case 'P':
			o.pool = true;
			break;
		case 'M':
			o.metrics = optarg;
			break;
		case 'F':
			if (compare_format_parse(optarg, &fmt) || fmt == CMP_FMT_HTML) {
				ret = bad_value('F', optarg);
				goto out;
			}
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'i':
			if (parse_duration_ns("--idle-threshold", optarg, &idle_ns)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		default:
			ret = bad_option(argv);
			goto out;
		}
	}
	if (optind >= argc) {
		ret = usage_error("no runs to compare");
		goto out;
	}
	if (nlabels && nlabels != (size_t)(argc - optind)) {
		ret = usage_error("%zu --label for %d runs: give one per run, in order", nlabels,
		                  argc - optind);
		goto out;
	}
	{
		const struct out_spec out = {outpath, OUT_FILE, "-o"};

		if ((ret = out_check((const char *const *)argv + optind, (size_t)(argc - optind),
		                     NULL, 0, &out, 1, &e))) {
			ret = (error("%s", e.msg), exit_code_for(ret));
			goto out;
		}
	}
	if ((ret = add_inputs(&c, &o, argc, argv, optind, labels, nlabels, idle_ns, &stop, layout,
	                      base, sizeof(base))))
		goto out;
	ret = compare_finish(&c, &o, &e);
	if (ret) {
		ret = usage_error("%s", e.msg);
		goto out;
	}
	warn_missing(&c);
	warn_pooling(&c);
	if ((ret = write_table(&c, fmt, outpath)))
		goto out;
	/* partial results were compared: the bad bytes that cut them short come last */
	if (stop.msg[0])
		ret = (error("%s", stop.msg), EXIT_USAGE);
	else
		ret = c.nfailed ? EXIT_THRESHOLD : EXIT_OK;
out:
	compare_release(&c);
	free(labels);
	return ret;
}
