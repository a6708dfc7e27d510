/* SPDX-License-Identifier: MIT */
/* iotape replay: replay a block trace onto devices or files, and say how faithfully. */
#include "cli/cli.h"

#include <getopt.h> /* optarg, optind */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/capture.h"
#include "cli/inputs.h"
#include "cli/replay.h"
#include "common/stop.h"

static void progress(void *arg, const struct replay_stats *st, uint64_t elapsed)
{
	(void)arg;
	fprintf(stderr, "\r%llu/%llu IOs  %.1f s  %.0f IOPS  lag p99 %.0f us  errors %llu   ",
	        (unsigned long long)st->ios, (unsigned long long)st->trace_ios, elapsed / 1e9,
	        elapsed ? st->ios * 1e9 / (double)elapsed : 0.0,
	        hist_quantile(&st->lag, 0.99) / 1e3, (unsigned long long)st->errors);
}

/* --capture for a block replay: the targets that are block devices. */
static int capture_start(struct replay_capture *c, const char *dir, const struct replay_opts *o,
                         int argc, char **argv)
{
	char **devs = calloc(o->nmaps + 1, sizeof(*devs));
	unsigned n = 0;

	if (!devs)
		return error("out of memory"), EXIT_SYSTEM;
	for (unsigned i = 0; i <= o->nmaps; i++) {
		const char *path = i < o->nmaps ? o->maps[i].path : o->target;
		struct stat st;

		if (!path || stat(path, &st) || !S_ISBLK(st.st_mode))
			continue;
		devs[n++] = (char *)path;
	}
	if (!n) {
		free(devs);
		return usage_error("--capture: no target is a block device");
	}
	return replay_capture_start(c, dir, devs, n, NULL, argc, argv);
}

static void notice(void *arg, const char *msg)
{
	(void)arg;
	warning("%s", msg);
}

/* The replay against the capture of its targets: 0 with res filled, or -1 (said why). */
static int compare_capture(struct rp_fid *fid, const char *dir, struct rp_fid_result *res)
{
	struct iot_err e = {{0}};

	if (rp_fid_compare(fid, dir, res, &e))
		return warning("--capture: cannot compare with the capture: %s", e.msg), -1;
	return 0;
}

/* The command's options: the block replay's, the NFS replay's, and its own. */
struct replay_cli {
	struct replay_opts o;
	struct rp_map *maps;
	struct replay_nfs_args na;
	const char *capture_dir;
	bool json, show_progress;
	bool blk_only; /* an option only a block replay takes */
};

/* A block replay's option c: an exit code, or -1 when c is none. */
static int block_opt(struct replay_cli *r, int c)
{
	struct iot_err e = {{0}};
	unsigned long long u;

	switch (c) {
	case 'm': {
		char *eq = strchr(optarg, '=');
		struct rp_map *nm;

		if (!eq || eq == optarg || !eq[1])
			return usage_error("--map: '%s' is not SRCDEV=PATH", optarg);
		nm = realloc(r->maps, (r->o.nmaps + 1) * sizeof(*nm));
		if (!nm)
			return error("out of memory"), EXIT_SYSTEM;
		r->maps = nm;
		*eq = '\0';
		if (rp_parse_dev(optarg, &r->maps[r->o.nmaps].srcdev, &e))
			return usage_error("--map: %s", e.msg);
		*eq = '=';
		r->maps[r->o.nmaps++].path = eq + 1;
		break;
	}
	case 'e':
		r->blk_only = true;
		/* sync and fallback: psync's former names */
		if (cli_word_index(cli_opt_find(&doc_replay, 'e')->values, optarg) < 0 &&
		    strcmp(optarg, "sync") && strcmp(optarg, "fallback"))
			return bad_value('e', optarg);
		r->o.engine = optarg;
		break;
	case O_FROM:
		r->blk_only = true;
		if (!strcmp(optarg, "issue") || !strcmp(optarg, "D"))
			r->o.from = RP_FROM_ISSUE;
		else if (!strcmp(optarg, "queue") || !strcmp(optarg, "Q"))
			r->o.from = RP_FROM_QUEUE;
		else
			return bad_value(O_FROM, optarg);
		break;
	case O_BUFFERED:
		r->blk_only = true;
		r->o.buffered = true;
		break;
	case O_ALLOW_WRITES:
		r->blk_only = true;
		r->o.allow_writes = true;
		break;
	case O_WRITES_AS_READS:
		r->blk_only = true;
		r->o.writes_as_reads = true;
		break;
	case O_ALLOW_MOUNTED:
		r->blk_only = true;
		r->o.allow_mounted = true;
		break;
	case O_WRAP:
		r->blk_only = true;
		r->o.wrap = true;
		break;
	case O_SKIP_DISCARD:
		r->blk_only = true;
		r->o.skip_discard = true;
		break;
	case O_SKIP_WZERO:
		r->blk_only = true;
		r->o.skip_write_zeroes = true;
		break;
	case O_NULL_LAT:
		r->blk_only = true;
		if (parse_duration_ns("--null-latency", optarg, &u))
			return EXIT_USAGE;
		r->o.null_lat_ns = u;
		break;
	default:
		return -1;
	}
	return EXIT_OK;
}

/* An NFS replay's option c: EXIT_OK, or -1 when c is none. */
static int nfs_opt(struct replay_cli *r, int c)
{
	switch (c) {
	case O_NFS:
		r->na.nfs_url = optarg;
		break;
	case O_PREPARE:
		r->na.prepare = true;
		break;
	case O_NO_PREPARE:
		r->na.prepare = false;
		break;
	case O_ROOT_FH:
		r->na.root_fh = optarg;
		break;
	case O_ROOT_PATH:
		r->na.root_path = optarg;
		break;
	case O_ALLOW_DIVERGENCE:
		r->na.allow_divergence = true;
		break;
	case O_VERIFY:
		r->na.verify = optarg;
		break;
	default:
		return -1;
	}
	return EXIT_OK;
}

/* Option c, of any kind. An exit code. */
static int replay_opt(struct replay_cli *r, int c, char **argv)
{
	const struct replay_shared_opts shared = {&r->o.depth, &r->o.speed, &r->o.offset,
	                                          &r->o.force, &r->json};
	unsigned long long u;
	int ret;

	switch (c) {
	case 't':
		r->o.target = optarg;
		break;
	case O_TIMING:
		if (!strcmp(optarg, "original"))
			r->o.timing = RP_TIMING_ORIGINAL;
		else if (!strcmp(optarg, "afap"))
			r->o.timing = RP_TIMING_AFAP;
		else
			return bad_value(O_TIMING, optarg);
		break;
	case O_RECORD:
		r->o.record_dir = optarg;
		break;
	case O_CAPTURE:
		r->capture_dir = optarg;
		break;
	case O_NO_PROGRESS:
		r->show_progress = false;
		break;
	case O_MAX_GAP:
		if (parse_duration_ns("--max-gap", optarg, &u))
			return EXIT_USAGE;
		r->o.max_gap_ns = u ? u : UINT64_MAX;
		break;
	case O_SPIN:
		if (parse_duration_ns("--spin", optarg, &u))
			return EXIT_USAGE;
		if (u > 1000000000ull)
			return usage_error("--spin: '%s' is more than a second", optarg);
		r->o.spin_ns = u ? u : 1;
		break;
	case O_FIO_CLIENT: /* abbreviated: "--fio-client" itself went to replay_fio() */
	case O_FIO_HOSTS:
	case O_FIO_DIR:
	case O_FIO_REMOTE_DIR:
	case O_FIO_BIN:
	case O_FIO_TIMEOUT:
		return usage_error("%s is for a replay across hosts (--fio-client, --fio-hosts)",
		                   opt_name(c));
	default:
		if ((ret = replay_shared_opt(&shared, c)) >= 0) {
			r->blk_only |= c == O_OFFSET; /* a block replay's */
			return ret;
		}
		if ((ret = block_opt(r, c)) >= 0 || (ret = nfs_opt(r, c)) >= 0)
			return ret;
		return bad_option(argv);
	}
	return EXIT_OK;
}

/* A packet capture ci (released here): its NFS calls (replay-nfs.c). An exit code. */
static int replay_calls(struct replay_cli *r, struct cli_input *ci, const char *path, int argc,
                        char **argv)
{
	int rc;

	if (r->blk_only || r->o.nmaps) {
		cli_input_release(ci);
		return usage_error("'%s' is a packet capture: --map and the block replay's IO "
		                   "options do not apply",
		                   path);
	}
	r->na.target = r->o.target;
	r->na.timing = r->o.timing;
	r->na.speed = r->o.speed;
	r->na.spin_ns = r->o.spin_ns;
	r->na.max_gap_ns = r->o.max_gap_ns;
	r->na.depth = r->o.depth;
	r->na.force = r->o.force;
	r->na.json = r->json;
	r->na.record_dir = r->o.record_dir;
	r->na.capture_dir = r->capture_dir;
	r->na.argc = argc;
	r->na.argv = argv;
	rc = replay_nfs(&r->na, ci);
	cli_input_release(ci);
	return rc;
}

/* The block trace rd (taken) replayed onto the target, path its name. An exit code. */
static int replay_block(struct replay_cli *r, struct bt_reader *rd, const char *path, int argc,
                        char **argv)
{
	struct replay_opts *o = &r->o;
	struct replay_stats st;
	struct rp_source src;
	struct iot_err e = {{0}};
	struct replay_capture cap;
	struct rp_fid_result fid_res;
	int ret, rc;

	if (!o->target && !o->nmaps) {
		rc = usage_error("no target: give --target PATH or --map SRCDEV=PATH");
		goto out;
	}
	if (o->writes_as_reads && o->allow_writes) {
		rc = usage_error("--writes-as-reads and --allow-writes exclude each other");
		goto out;
	}
	if ((ret = replay_check_outputs(o, path, r->capture_dir, &e))) {
		rc = (error("%s", e.msg), exit_code_for(ret));
		goto out;
	}
	if (replay_input_ids(rd, o)) {
		rc = (error("out of memory"), EXIT_SYSTEM);
		goto out;
	}
	if (bt_reader_stats(rd)->nfiles == 1 && bt_reader_stats(rd)->files[0].iolog_version) {
		/* a fio iolog: what was submitted, without completions (docs/replay.md) */
		o->no_completions = true;
		if (o->from == RP_FROM_QUEUE) {
			rc = usage_error(
			    "'%s' is a fio iolog: its IOs are issue events, --from queue "
			    "has nothing to replay",
			    path);
			goto out;
		}
	}
	src = rp_source_reader(rd);
	if (r->show_progress && !r->json) {
		o->progress = progress;
	}
	o->notice = notice;
	/* a second signal: the user does not want to wait for the IOs in flight either */
	iot_stop_catch(IOT_STOP_TWICE);
	o->stop = &iot_stop_sig;

	if (r->capture_dir && rp_fid_new(&o->fid, 0)) {
		rc = (error("out of memory"), EXIT_SYSTEM);
		goto out;
	}
	if (r->capture_dir && (rc = capture_start(&cap, r->capture_dir, o, argc, argv)))
		goto out;
	ret = replay_run(o, &src, &st, &e);
	if (o->progress)
		fprintf(stderr, "\r%*s\r", 78, "");
	warn_block_input(rd, NULL); /* what the reader found: files cut short, times backwards */
	rc = r->capture_dir ? replay_capture_stop(&cap, r->json) : EXIT_OK;
	if (r->capture_dir && !rc && !ret && compare_capture(o->fid, r->capture_dir, &fid_res) == 0)
		st.fidelity = &fid_res;
	if (ret) {
		rc = (error("%s", e.msg), exit_code_for(ret));
		goto out;
	}
	if (r->json) {
		char *s = replay_stats_json(o, &st);

		if (!s) {
			rc = (error("out of memory"), EXIT_SYSTEM);
			goto out;
		}
		printf("%s\n", s);
		free(s);
	} else {
		replay_stats_text(stdout, &st);
	}
	if (st.skipped_writes)
		warning("%llu writes were not replayed (no --allow-writes)",
		        (unsigned long long)st.skipped_writes);
	if (st.errors) {
		error("%llu IOs failed, the first with '%s'", (unsigned long long)st.errors,
		      strerror(-st.first_error));
		rc = EXIT_SYSTEM;
	}
	if (st.stopped)
		rc = rc ? rc : 128 + (int)iot_stop_sig;
out:
	rp_fid_free(o->fid);
	bt_reader_free(rd);
	free((void *)o->inputs);
	return rc;
}

int cmd_replay(int argc, char **argv)
{
	struct replay_cli r = {.o = {.speed = 1.0}, .na = {.prepare = true}};
	struct bt_reader *rd;
	struct cli_input ci = {0};
	int c, rc = EXIT_OK;

	r.show_progress = isatty(2);
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strncmp(argv[i], "--fio-client", 12) || !strncmp(argv[i], "--fio-hosts", 11))
			return replay_fio(argc, argv); /* across hosts, through fio */
	r.o.argc = argc;
	r.o.argv = (const char *const *)argv;
	optind = 1;
	while ((c = cli_getopt(argc, argv, &doc_replay)) != -1)
		if ((rc = replay_opt(&r, c, argv)) != EXIT_OK)
			goto out;
	r.o.maps = r.maps;
	if (optind != argc - 1) {
		rc = usage_error("expected one trace");
		goto out;
	}
	if ((rc = cli_input_open(&ci, argv[optind], 0)) != EXIT_OK)
		goto out;
	if (ci.capture && (!ci.block || r.na.nfs_url)) {
		rc = replay_calls(&r, &ci, argv[optind], argc, argv);
		goto out;
	}
	if (r.na.nfs_url || r.na.root_fh || r.na.root_path || r.na.allow_divergence ||
	    r.na.verify) {
		cli_input_release(&ci);
		rc = usage_error("--nfs, --root-fh, --root-path, --allow-divergence and --verify "
		                 "are for NFS captures; '%s' is a block trace",
		                 argv[optind]);
		goto out;
	}
	if (!ci.block) {
		cli_input_release(&ci);
		rc = usage_error("'%s': nothing to replay", argv[optind]);
		goto out;
	}
	rd = ci.block;
	ci.block = NULL;
	cli_input_release(&ci);
	rc = replay_block(&r, rd, argv[optind], argc, argv);
out:
	free(r.maps);
	return rc;
}
