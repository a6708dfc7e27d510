/* SPDX-License-Identifier: MIT */
/* iotape replay of a packet capture: its NFS calls onto a directory (--target) or a server
 * (--nfs), with the fidelity summary. */
#include "cli/cli.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>

#include "cli/inputs.h"
#include "cli/replay.h"
#include "common/stop.h"
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

static int capture_begin(void *arg)
{
	struct capture_ctx *c = arg;
	const struct replay_nfs_args *a = c->a;
	char **devs = NULL;
	unsigned n = 0;

	if (a->target) {
		char *dev = nr_dir_device(a->target);

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
		char *s = nfs_replay_json_verified(o, st, a->verify, verified ? &vres : NULL);

		if (!s)
			return error("out of memory"), EXIT_SYSTEM;
		printf("%s\n", s);
		free(s);
	} else {
		nfs_replay_text(stdout, o, st);
		if (verified)
			nfs_verify_text(stdout, a->verify, &vres);
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
