/* SPDX-License-Identifier: MIT */
/* iotape replay of a packet capture: its NFS calls onto a directory (--target) or a server
 * (--nfs), with the fidelity summary. */
#include "cli/cli.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <jansson.h>

#include "cli/inputs.h"
#include "cli/replay.h"
#include "common/jsonint.h"
#include "common/stop.h"
#include "common/textesc.h"
#include "common/units.h"
#include "replay/nfs_replay.h"

/* Each pass opens the capture: the first takes the stream cmd-replay.c opened. */
struct reopen {
	const char *arg;
	struct in_stream *first;
	bool used;
};

static int reopen(void *arg, struct in_stream **out, struct iot_err *e)
{
	struct reopen *r = arg;
	struct cli_input ci = {0};
	struct stat st;

	if (r->first) {
		*out = r->first;
		r->first = NULL;
		r->used = true;
		return 0;
	}
	if (!strcmp(r->arg, "-") || (!stat(r->arg, &st) && S_ISFIFO(st.st_mode)))
		return iot_err_set(e, -EINVAL,
		                   "'%s': a pipe is read once, and --prepare reads the capture "
		                   "twice (--no-prepare, or give the file)",
		                   r->arg);
	if (cli_input_open(&ci, r->arg, 0) != EXIT_OK || !ci.capture) {
		cli_input_release(&ci);
		return iot_err_set(e, -EIO, "'%s': cannot open the capture again", r->arg);
	}
	*out = ci.capture;
	ci.capture = NULL;
	cli_input_release(&ci);
	return 0;
}

/* --capture: the target directory's block device, or the packets to and from the server */
struct capture_ctx {
	struct replay_capture cap;
	const struct replay_nfs_args *a;
	bool started;
	int rc;
};

/* The block device a directory's filesystem is on: its device number's entry in
 * /sys/dev/block, else the mount's source (btrfs reports an anonymous device number). */
static char *dir_device(const char *dir)
{
	struct stat st, sb;
	struct nr_mount m;
	char link[64], real[PATH_MAX], *dev = NULL;

	if (stat(dir, &st))
		return NULL;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	if (realpath(link, real) && asprintf(&dev, "/dev/%s", strrchr(real, '/') + 1) > 0 &&
	    !stat(dev, &sb) && S_ISBLK(sb.st_mode))
		return dev;
	free(dev);
	dev = NULL;
	if (!nr_mount_of(dir, &m) && !stat(m.source, &sb) && S_ISBLK(sb.st_mode))
		dev = strdup(m.source);
	return dev;
}

static int capture_begin(void *arg)
{
	struct capture_ctx *c = arg;
	const struct replay_nfs_args *a = c->a;
	char **devs = NULL;
	unsigned n = 0;

	if (a->target) {
		char *dev = dir_device(a->target);

		if (!dev || !(devs = calloc(1, sizeof(*devs)))) {
			free(dev);
			c->rc =
			    usage_error("--capture: the filesystem of '%s' is on no block device "
			                "to trace",
			                a->target);
			return -EINVAL;
		}
		devs[n++] = dev;
	}
	/* an NFS target: the replay's packets, on every interface */
	c->rc = replay_capture_start(&c->cap, a->capture_dir, devs, n, a->target ? NULL : "any",
	                             a->argc, a->argv);
	if (c->rc) {
		if (devs)
			free(devs[0]);
		return -EIO;
	}
	c->started = true;
	return 0;
}

static void notice(void *arg, const char *msg)
{
	(void)arg;
	warning("%s", msg);
}

static const char *proc_label(const struct nr_proc *p, char *buf, size_t len)
{
	snprintf(buf, len, "v%u %s", p->vers, p->name);
	return buf;
}

static void print_summary(const struct nfs_replay_opts *o, const struct nfs_replay_stats *st)
{
	char b[3][24], l[48], cs[48], rs[48], pb[640], d[3][24];

	printf("replayed %llu of %llu NFS calls onto %s '%s'%s\n", (unsigned long long)st->replayed,
	       (unsigned long long)st->calls, st->target_kind,
	       o->nfs_url ? o->nfs_url : o->target_dir, st->stopped ? " (interrupted)" : "");
	printf("  capture:  %.3f s, %.1f MiB read, %.1f MiB written\n", st->capture_span_ns / 1e9,
	       st->cap_bytes_read / IOT_MIB, st->cap_bytes_written / IOT_MIB);
	printf("  replay:   %.3f s (%.0f calls/s), %.1f MiB read, %.1f MiB written, %u stream%s, "
	       "up to %u in flight\n",
	       st->replay_span_ns / 1e9,
	       st->replay_span_ns ? st->replayed * 1e9 / (double)st->replay_span_ns : 0.0,
	       st->bytes_read / IOT_MIB, st->bytes_written / IOT_MIB, st->streams ? st->streams : 1,
	       st->streams > 1 ? "s" : "", st->max_inflight);
	if (o->prepare)
		printf(
		    "  prepared: %llu directories, %llu files (%.1f MiB, holes), %llu symlinks%s\n",
		    (unsigned long long)st->prep_dirs, (unsigned long long)st->prep_files,
		    st->prep_bytes / IOT_MIB, (unsigned long long)st->prep_links,
		    st->prep_failed ? " (some failed)" : "");
	if (st->payload_cut)
		printf("  written:  %llu WRITEs the capture does not hold whole (the snaplen): "
		       "%.1f MiB of a generated pattern in their place\n",
		       (unsigned long long)st->payload_cut, st->payload_cut_bytes / IOT_MIB);
	printf("  outcomes: %llu as in the capture, %llu diverged, %llu not answered in the "
	       "capture\n",
	       (unsigned long long)st->same, (unsigned long long)st->diverged,
	       (unsigned long long)st->unanswered);
	/* where the user will compare: the recording does not hold v4 calls as v4 */
	for (unsigned i = 0; o->record_dir && i < st->nprocs; i++) {
		if (st->procs[i].vers != 4 || !st->procs[i].replayed)
			continue;
		printf(
		    "  recorded: '%s' holds every call as NFSv3, v4 ones as the v3 procedure of "
		    "their action (a v4 LOOKUP as a v3 GETATTR, OPEN as ACCESS or CREATE, "
		    "ALLOCATE as SETATTR): compare its nfs3.* figures with other recordings, not "
		    "with the capture's v4 ones\n",
		    o->record_dir);
		break;
	}
	printf("\n  %-20s %9s %9s %8s %8s %9s %10s %10s %10s\n", "procedure", "captured",
	       "replayed", "skipped", "refused", "diverged", "lat p50", "lat p99", "capture p50");
	for (unsigned i = 0; i < st->nprocs; i++) {
		const struct nr_proc *p = &st->procs[i];

		printf("  %-20s %9llu %9llu %8llu %8llu %9llu %10s %10s %10s\n",
		       proc_label(p, l, sizeof(l)), (unsigned long long)p->captured,
		       (unsigned long long)p->replayed, (unsigned long long)p->skipped,
		       (unsigned long long)p->refused, (unsigned long long)p->diverged,
		       p->lat.count ? fmt_duration((double)hist_quantile(&p->lat, .5), b[0], 24)
		                    : "-",
		       p->lat.count ? fmt_duration((double)hist_quantile(&p->lat, .99), b[1], 24)
		                    : "-",
		       p->srt.count ? fmt_duration((double)hist_quantile(&p->srt, .5), b[2], 24)
		                    : "-");
	}
	if (st->ndivs || st->divs_other) {
		printf("\n  diverged:\n");
		for (unsigned i = 0; i < st->ndivs; i++) {
			const struct nr_div *d = &st->divs[i];
			const struct nr_proc *p = &st->procs[d->proc];

			nr_status_str(d->cap_status, p->vers, cs, sizeof(cs));
			nr_status_str(d->rep_status, p->vers, rs, sizeof(rs));
			printf("    %-20s capture %-16s replay %-16s %9llu\n",
			       proc_label(p, l, sizeof(l)), cs, rs, (unsigned long long)d->n);
		}
		if (st->divs_other)
			printf("    (%llu more, of other procedures and statuses)\n",
			       (unsigned long long)st->divs_other);
	}
	if (st->nshown) {
		printf("\n  divergences (first %u):\n", st->nshown);
		for (unsigned i = 0; i < st->nshown; i++) {
			const struct nr_div_shown *d = &st->shown[i];
			const struct nr_proc *p = &st->procs[d->proc];

			nr_status_str(d->cap_status, p->vers, cs, sizeof(cs));
			nr_status_str(d->rep_status, p->vers, rs, sizeof(rs));
			printf("    call %llu %s '%s': capture %s, replay %s\n",
			       (unsigned long long)d->seq, proc_label(p, l, sizeof(l)),
			       txt_escape(d->path, pb, sizeof(pb)), cs, rs);
		}
	}
	if (st->lag.count)
		printf("  issue lag: p50 %s  p99 %s  max %s\n",
		       iot_fmt_dur((double)hist_quantile(&st->lag, 0.5), d[0], sizeof(d[0])),
		       iot_fmt_dur((double)hist_quantile(&st->lag, 0.99), d[1], sizeof(d[1])),
		       iot_fmt_dur((double)st->lag.max, d[2], sizeof(d[2])));
	printf("  waits:    %llu for the dependency rule, %llu for the same file, %llu for the "
	       "depth cap\n",
	       (unsigned long long)st->dep_waits, (unsigned long long)st->file_waits,
	       (unsigned long long)st->depth_waits);
	if (st->attrs_skipped)
		printf("  %llu calls' owners or groups not set (not root, or v4 owner names)\n",
		       (unsigned long long)st->attrs_skipped);
	if (st->placeholders)
		printf("  %llu calls on handles the capture never named (under %s/)\n",
		       (unsigned long long)st->placeholders, NR_UNNAMED_DIR);
	if (st->hostile || st->escapes || st->outside_root)
		printf("  refused:  %llu calls with hostile names, %llu paths leaving the target, "
		       "%llu outside --root-path\n",
		       (unsigned long long)st->hostile, (unsigned long long)st->escapes,
		       (unsigned long long)st->outside_root);
	if (st->special || st->linked)
		printf("  refused:  %llu calls moving data to or from a FIFO, socket or device, "
		       "%llu changing a file also linked from elsewhere\n",
		       (unsigned long long)st->special, (unsigned long long)st->linked);
	if (st->late)
		printf("  %llu calls came out of call order (answered more than %.0f s late)\n",
		       (unsigned long long)st->late, NR_HORIZON_NS / 1e9);
	if (st->other_rpc)
		printf("  %llu MOUNT, portmap or callback calls not replayed\n",
		       (unsigned long long)st->other_rpc);
	printf("  errors:   %llu calls failed in the replay\n", (unsigned long long)st->errors);
}

/* --verify's result in the text */
static void print_verify(const struct replay_nfs_args *a, const struct nfs_verify_result *v)
{
	char pb[640], rb[640], wb[640];

	printf("  verify:   %llu names beside '%s', %.1f MiB read: %llu differ",
	       (unsigned long long)v->entries, txt_escape(a->verify, rb, sizeof(rb)),
	       v->bytes / IOT_MIB, (unsigned long long)v->differences);
	if (v->differences > v->nshown)
		printf(" (the first %u listed)", v->nshown);
	printf("\n");
	for (unsigned i = 0; i < v->nshown; i++)
		printf("    %s: %s\n", txt_escape(v->shown[i].path, pb, sizeof(pb)),
		       txt_escape(v->shown[i].what, wb, sizeof(wb)));
}

/* The replay's JSON with a "verify" object added; frees s (NULL when memory ran out). */
static char *with_verify(char *s, const char *ref, const struct nfs_verify_result *v)
{
	json_t *root = json_loads(s, 0, NULL), *o, *a;
	char *out = NULL;

	free(s);
	if (!root)
		return NULL;
	o = json_object();
	a = json_array();
	for (unsigned i = 0; i < v->nshown; i++)
		json_array_append_new(
		    a, json_pack("{ssss}", "path", v->shown[i].path, "what", v->shown[i].what));
	json_object_set_new(o, "reference", json_string(ref));
	json_object_set_new(o, "entries", json_u64(v->entries));
	json_object_set_new(o, "differences", json_u64(v->differences));
	json_object_set_new(o, "bytes", json_u64(v->bytes));
	json_object_set_new(o, "first", a);
	json_object_set_new(root, "verify", o);
	out = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(root);
	return out;
}

/*
 * What an NFS replay checks before it reads: one of --target and --nfs, --root-path (into
 * root_path, cap bytes) and --root-fh (into fh) as o's root, --capture apart from --record and
 * from the target. An exit code after printing any error.
 */
static int check_args(const struct replay_nfs_args *a, struct nfs_replay_opts *o, char *root_path,
                      size_t cap, uint8_t *fh, struct iot_err *e)
{
	if (!!a->target == !!a->nfs_url)
		return usage_error("an NFS capture replays onto --target DIR or --nfs URL (one of "
		                   "them)");
	if (a->root_path) {
		/* "/export/" -> "export"; "/" is the capture's own root */
		const char *p = a->root_path;
		size_t n;

		while (*p == '/')
			p++;
		n = strlen(p);
		while (n && p[n - 1] == '/')
			n--;
		if (n >= cap || strstr(p, "//") || !strncmp(p, "..", 2) || strstr(p, "/.."))
			return usage_error("--root-path: '%s' is not a plain path", a->root_path);
		memcpy(root_path, p, n);
		root_path[n] = 0;
		o->root_path = root_path;
	}
	if (a->root_fh) {
		if (nr_parse_fh(a->root_fh, fh, &o->root_fh_len))
			return usage_error("--root-fh: '%s' is not a file handle in hex",
			                   a->root_fh);
		o->root_fh = fh;
	}
	if (a->capture_dir && a->record_dir && !strcmp(a->capture_dir, a->record_dir))
		return usage_error("--capture and --record need different directories");
	if (a->capture_dir && a->target &&
	    nfs_replay_check_output("--capture", a->capture_dir, a->target, e))
		return usage_error("%s", e->msg);
	return EXIT_OK;
}

/* After the replay: the tree verified, the result printed, the exit code (rc: the capture's). */
static int finish(const struct replay_nfs_args *a, const struct nfs_replay_opts *o,
                  const struct nfs_replay_stats *st, int rc)
{
	struct nfs_verify_result vres;
	struct iot_err e = {{0}};
	bool verified = false;

	if (a->verify && !st->stopped) {
		int vr =
		    nfs_replay_verify(a->target ? a->target : a->nfs_url, a->verify, &vres, &e);

		if (vr)
			return error("%s", e.msg), exit_code_for(vr);
		verified = true;
	}
	if (a->json) {
		char *s = nfs_replay_json(o, st);

		if (s && verified)
			s = with_verify(s, a->verify, &vres);
		if (!s)
			return error("out of memory"), EXIT_SYSTEM;
		printf("%s\n", s);
		free(s);
	} else {
		print_summary(o, st);
		if (verified)
			print_verify(a, &vres);
	}
	if (st->stopped)
		rc = rc ? rc : 128 + (int)iot_stop_sig;
	if (verified && vres.differences && !rc) {
		error("the replayed tree differs from '%s' in %llu names (listed above)", a->verify,
		      (unsigned long long)vres.differences);
		rc = EXIT_THRESHOLD;
	}
	if (st->diverged && !a->allow_divergence && !rc) {
		error("%llu calls ended otherwise than in the capture (listed above; "
		      "--allow-divergence to accept that)",
		      (unsigned long long)st->diverged);
		rc = EXIT_THRESHOLD;
	}
	return rc;
}

int replay_nfs(struct replay_nfs_args *a, struct cli_input *ci)
{
	struct nfs_replay_opts o = {
	    .timing = a->timing,
	    .speed = a->speed,
	    .spin_ns = a->spin_ns,
	    .max_gap_ns = a->max_gap_ns,
	    .target_dir = a->target,
	    .nfs_url = a->nfs_url,
	    .prepare = a->prepare,
	    .force = a->force,
	    .depth = a->depth,
	    .argc = a->argc,
	    .argv = (const char *const *)a->argv,
	    .record_dir = a->record_dir,
	    .notice = notice,
	    .stop = &iot_stop_sig,
	};
	struct reopen ro = {.arg = ci->arg, .first = ci->capture};
	struct capture_ctx cc = {0};
	struct nfs_replay_stats st;
	struct iot_err e = {{0}};
	uint8_t fh[128];
	char root_path[4096];
	int ret, rc = EXIT_OK;

	ci->capture = NULL; /* ours now */
	if ((rc = check_args(a, &o, root_path, sizeof(root_path), fh, &e))) {
		in_stream_close(ro.first);
		return rc;
	}
	if (a->capture_dir) {
		cc.a = a;
		o.on_start = capture_begin;
		o.on_start_arg = &cc;
	}
	o.open = reopen;
	o.open_arg = &ro;
	iot_stop_catch(IOT_STOP_TWICE);
	ret = nfs_replay_run(&o, &st, &e);
	if (ro.first)
		in_stream_close(ro.first);
	if (cc.started) {
		/* the capture's devices' array: the capture frees the array, we its string */
		char *dev = cc.cap.devs ? cc.cap.devs[0] : NULL;

		rc = replay_capture_stop(&cc.cap, a->json);
		free(dev);
	}
	if (ret) {
		nfs_replay_stats_release(&st);
		if (cc.rc)
			return cc.rc; /* said why */
		return error("%s", e.msg), exit_code_for(ret);
	}
	rc = finish(a, &o, &st, rc);
	nfs_replay_stats_release(&st);
	return rc;
}
