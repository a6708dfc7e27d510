/* SPDX-License-Identifier: MIT */
/* One capture from start to finish: devices, backend, packets, the command, the manifest. */
#include "capture/cap_int.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/jsonint.h"
#include "common/fs.h"
#include "formats/manifest.h"
#include "formats/outcheck.h"
#include "formats/rundir.h"

#define TICK_MS 200
#define KILL_GRACE_NS (5ull * 1000000000ull)
/* Room kept for the final manifest: a disk that the trace fills up must still take it */
#define RESERVE_NAME ".manifest.reserve"
#define RESERVE_MIN (64u << 10)

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};

	/* a signal cuts the sleep short, which is what we want */
	nanosleep(&ts, NULL);
}

/* A run directory is created if missing (with its parents); an existing one must not hold a capture
 * already. */
static int prepare_rundir(const char *dir, struct iot_err *e)
{
	DIR *d;
	struct dirent *de;
	int ret = 0;

	if ((ret = iot_mkdir_p(dir, e))) {
		iot_err_prefix(e, "run directory '%s'", dir);
		return ret;
	}
	d = opendir(dir);
	if (!d)
		return iot_err_set(e, -errno, "run directory '%s': %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		if (rundir_is_run_file(de->d_name)) {
			ret = iot_err_set(e, -EEXIST,
			                  "run directory '%s' already holds a capture ('%s'); use "
			                  "a new one",
			                  dir, de->d_name);
			break;
		}
	}
	closedir(d);
	return ret;
}

/*
 * No output is ever an input, nor another output (formats/outcheck.h): --stdout and --stderr
 * (which may be one file) are not RUNDIR, nor a file the capture writes in it (a trace set,
 * the packets, the manifest), and RUNDIR is no directory either of them names.
 */
static int check_outputs(const struct cap_opts *o, struct iot_err *e)
{
	const char *files[] = {o->cmd_stdout, o->cmd_stderr}, *opts[] = {"--stdout", "--stderr"};
	struct stat dir, st;
	int ret;

	for (unsigned i = 0; i < 2; i++) {
		const struct out_spec outs[] = {{o->rundir, OUT_DIR, "-o"},
		                                {files[i], OUT_FILE, opts[i]}};
		const char *slash;
		char *parent;

		if (!files[i])
			continue;
		if ((ret = out_check(NULL, 0, NULL, 0, outs, 2, e)))
			return ret;
		slash = strrchr(files[i], '/');
		parent = slash ? strndup(files[i], (size_t)(slash - files[i]) + (slash == files[i]))
		               : strdup(".");
		if (!parent)
			return iot_err_set(e, -ENOMEM, "out of memory");
		ret = !stat(parent, &st) && !stat(o->rundir, &dir) && st.st_dev == dir.st_dev &&
		      st.st_ino == dir.st_ino && rundir_is_run_file(slash ? slash + 1 : files[i]);
		free(parent);
		if (ret)
			return iot_err_set(e, -EINVAL,
			                   "%s '%s' is a file the capture writes in '%s'", opts[i],
			                   files[i], o->rundir);
	}
	return 0;
}

/* COMMAND's output file (--stdout, --stderr), opened before tracing starts so that a bad path
 * stops nothing half-way. */
static int open_output(const char *path, const char *opt, int *fd, struct iot_err *e)
{
	if (!path)
		return 0;
	*fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (*fd < 0)
		return iot_err_set(e, -errno, "%s '%s': %s", opt, path, strerror(errno));
	return 0;
}

static json_t *argv_json(char *const *argv, int argc)
{
	json_t *a = json_array();

	for (int i = 0; argv && (argc < 0 || i < argc) && argv[i]; i++)
		json_array_append_new(a, json_string(argv[i]));
	return a;
}

struct run {
	const struct cap_opts *o;
	struct cap_result *res;
	struct cap_dev *devs;
	json_t *root, *jdevs, *backend, *network;
	struct cap_sink *sink;
	struct cap_reader *rd;
	const struct cap_blk_ops *ops;
	struct cap_backend_state *bs;
	struct cap_pcap *pcap;
	struct cap_cmd cmd;
	int cmd_running;
	int out_fd, err_fd;     /* COMMAND's stdout and stderr (--stdout, --stderr), or -1 */
	enum cap_detail detail; /* what the backend in use records */
	struct cap_cgroups *cg; /* cgroup paths seen at the start */
	struct cap_clock_pair start, end;
	char pcap_path[4096];
	char reserve[4096]; /* the reserve's path while it exists */
	int *hold;          /* each traced device held open while the capture runs, or -1 */
};

/*
 * The manifest is rewritten at the end (state, counts, error), and a capture that stopped
 * because the disk is full must still be able to say so: the space is set aside at the start
 * in a hidden file, freed right before the final write. Four times the first manifest covers
 * what the end adds (counts, clocks, per-CPU ring-buffer figures).
 */
static int reserve_room(struct run *r, size_t manifest_len, struct iot_err *e)
{
	off_t len = (off_t)(4 * manifest_len > RESERVE_MIN ? 4 * manifest_len : RESERVE_MIN);
	int fd, err;

	snprintf(r->reserve, sizeof(r->reserve), "%s/" RESERVE_NAME, r->o->rundir);
	fd = open(r->reserve, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = errno;
		r->reserve[0] = '\0';
		return iot_err_set(e, -err, "'%s/%s': %s", r->o->rundir, RESERVE_NAME,
		                   strerror(err));
	}
	err = posix_fallocate(fd, 0, len);
	if (err == EOPNOTSUPP || err == EINVAL) {
		/* no fallocate here: real blocks of zeros do the same */
		static const char zero[4096];

		err = 0;
		for (off_t done = 0; done < len && !err; done += (off_t)sizeof(zero))
			if (write(fd, zero, sizeof(zero)) != (ssize_t)sizeof(zero))
				err = errno ? errno : EIO;
	}
	if (close(fd) && !err)
		err = errno;
	if (err) {
		unlink(r->reserve);
		r->reserve[0] = '\0';
		return iot_err_set(e, -err, "'%s/%s': %s", r->o->rundir, RESERVE_NAME,
		                   strerror(err));
	}
	return 0;
}

static void release_room(struct run *r)
{
	if (r->reserve[0])
		unlink(r->reserve);
	r->reserve[0] = '\0';
}

/* Start one backend; on failure everything it did is undone. */
static int try_backend(struct run *r, const struct cap_blk_ops *ops, struct iot_err *e)
{
	int ret = cap_reader_new(&r->rd, r->sink, e);

	r->detail = ops == &cap_bpf_ops ? r->o->detail : CAP_DETAIL_EVENTS;
	if (ret)
		return ret;
	cap_sink_keep_sequences(r->sink, ops == &cap_relay_ops);
	ret = ops->start(&r->bs, r->devs, r->o->ndevs, r->o, r->rd, e);
	if (ret) {
		/* close the per-CPU files before undoing the kernel settings (they pin them) */
		cap_reader_free(r->rd);
		r->rd = NULL;
		ops->teardown(r->bs, NULL, NULL, NULL);
		r->bs = NULL;
		return ret;
	}
	r->ops = ops;
	return 0;
}

/*
 * auto: bpf, else relay, else tracefs. Why each one before the one used could not run is said
 * once, in one line (and kept in the manifest); a busy device stops the capture instead.
 * Without bpf a --detail below events records every event: more than asked, nothing less.
 */
static int start_auto(struct run *r, struct iot_err *e)
{
	const struct cap_opts *o = r->o;
	struct iot_err bpf_e, relay_e;
	char why[1200];
	int ret;

	bpf_e.msg[0] = relay_e.msg[0] = '\0';
	ret = try_backend(r, &cap_bpf_ops, &bpf_e);
	r->res->backend = CAP_BACKEND_BPF;
	if (!ret || ret == -EBUSY) {
		if (ret)
			*e = bpf_e;
		return ret;
	}
	ret = try_backend(r, &cap_relay_ops, &relay_e);
	r->res->backend = CAP_BACKEND_RELAY;
	if (!ret || ret == -EBUSY) {
		if (ret)
			*e = relay_e;
		else
			snprintf(why, sizeof(why), "bpf backend unavailable (%s); using relay",
			         bpf_e.msg);
		if (!ret)
			json_object_set_new(r->backend, "fallback_reason", json_string(bpf_e.msg));
		if (!ret)
			cap_say(o->notice, o->arg, "%s", why);
		return ret;
	}
	snprintf(
	    why, sizeof(why),
	    "bpf backend unavailable (%s); relay backend unavailable (%s); using tracefs%s%s%s",
	    bpf_e.msg, relay_e.msg,
	    o->detail != CAP_DETAIL_EVENTS ? " (every event: --detail " : "",
	    o->detail != CAP_DETAIL_EVENTS ? cap_detail_name(o->detail) : "",
	    o->detail != CAP_DETAIL_EVENTS ? " needs bpf)" : "");
	cap_say(o->notice, o->arg, "%s", why);
	json_object_set_new(r->backend, "fallback_reason",
	                    json_pack("{s:s, s:s}", "bpf", bpf_e.msg, "relay", relay_e.msg));
	r->res->backend = CAP_BACKEND_TRACEFS;
	return try_backend(r, &cap_tracefs_ops, e);
}

static int start_block(struct run *r, struct iot_err *e)
{
	const struct cap_opts *o = r->o;
	char why[160];
	int ret;

	if (o->detail != CAP_DETAIL_EVENTS &&
	    (o->backend == CAP_BACKEND_RELAY || o->backend == CAP_BACKEND_TRACEFS))
		return iot_err_set(e, -EINVAL,
		                   "--detail %s needs the bpf backend (--backend bpf or auto)",
		                   cap_detail_name(o->detail));
	if (cap_tracefs_recover(why, sizeof(why))) {
		cap_say(o->notice, o->arg, "%s", why);
		json_object_set_new(r->backend, "recovered", json_string(why));
	}
	switch (o->backend) {
	case CAP_BACKEND_RELAY:
		ret = try_backend(r, &cap_relay_ops, e);
		r->res->backend = CAP_BACKEND_RELAY;
		return ret;
	case CAP_BACKEND_TRACEFS:
		r->res->backend = CAP_BACKEND_TRACEFS;
		return try_backend(r, &cap_tracefs_ops, e);
	case CAP_BACKEND_BPF:
		r->res->backend = CAP_BACKEND_BPF;
		return try_backend(r, &cap_bpf_ops, e);
	default:
		return start_auto(r, e);
	}
}

/*
 * The blk tracer is one per kernel: with o->wait_ns, a tracer another capture holds (or
 * another tool's current tracer) is waited for, once a second, before anything is started
 * (no packets, no run directory meanwhile), saying so once. 0 when it is free (or the error
 * is not a busy tracer: the start reports that), -EBUSY after the wait, -EINTR on a signal.
 */
static int wait_tracer(const struct cap_opts *o, struct cap_result *res, struct iot_err *e)
{
	uint64_t deadline = iot_now_ns() + o->wait_ns;
	bool said = false;
	char msg[256];

	for (;;) {
		struct iot_err busy = {""};
		int ret = cap_tracefs_release(msg, sizeof(msg), &busy);

		if (ret != -EBUSY)
			return 0;
		if (o->stop && *o->stop) {
			res->stop_signal = *o->stop;
			return iot_err_set(e, -EINTR, "stopped while waiting for the tracer: %s",
			                   busy.msg);
		}
		if (iot_now_ns() >= deadline)
			return iot_err_set(e, -EBUSY, "%s (waited %.3g s for it)", busy.msg,
			                   (double)o->wait_ns / 1e9);
		if (!said)
			cap_say(o->notice, o->arg, "waiting up to %.3g s for the blk tracer: %s",
			        (double)o->wait_ns / 1e9, busy.msg);
		said = true;
		sleep_ms(TICK_MS * 5);
	}
}

/* Whether the capture will take the kernel's one blk tracer: relay and tracefs do; bpf, the
 * default where it was built, takes nothing global (captures run side by side). */
static bool uses_blk_tracer(const struct cap_opts *o)
{
	if (o->backend == CAP_BACKEND_RELAY || o->backend == CAP_BACKEND_TRACEFS)
		return true;
#ifdef IOTAPE_HAVE_BPF
	return false;
#else
	return o->backend != CAP_BACKEND_BPF;
#endif
}

static void build_header(struct run *r)
{
	const struct cap_opts *o = r->o;
	FILE *mi = fopen("/proc/self/mountinfo", "re");

	r->root = manifest_header(NULL, (const char *const *)o->argv, o->argc);
	json_object_set_new(r->root, "state", json_string("running"));
	if (o->act_mask) {
		char m[200];

		json_object_set_new(r->root, "act_mask",
		                    json_string(cap_mask_str(o->act_mask, m, sizeof(m))));
	}
	if (o->nlabels) {
		json_t *labels = json_object();

		for (unsigned i = 0; i < o->nlabels; i++) {
			const char *eq = strchr(o->labels[i], '=');
			char key[256];

			/* the CLI checks them; a library caller's bad one is left out */
			if (!eq || eq == o->labels[i] || (size_t)(eq - o->labels[i]) >= sizeof(key))
				continue;
			snprintf(key, sizeof(key), "%.*s", (int)(eq - o->labels[i]), o->labels[i]);
			json_object_set_new(labels, key, json_string(eq + 1));
		}
		json_object_set_new(r->root, "labels", labels);
	}
	r->jdevs = json_array();
	for (unsigned i = 0; i < o->ndevs; i++) {
		json_t *d = cap_dev_json(&r->devs[i]), *mounts = json_array();
		char files[128];

		if (mi) {
			rewind(mi);
			cap_mounts_json(mi, &r->devs[i], mounts);
		}
		json_object_set_new(d, "mounts", mounts);
		snprintf(files, sizeof(files), "%s.blktrace", r->devs[i].name);
		json_object_set_new(d, "files", json_string(files));
		json_array_append_new(r->jdevs, d);
	}
	{
		/* what each device is part of, discovered before tracing starts (its reads are
		 * not in the trace) */
		struct cap_stack_env env;

		cap_stack_env_real(&env, mi);
		cap_devstack(&env, r->devs, o->ndevs, o->devs, o->names, r->jdevs);
	}
	if (mi)
		fclose(mi);
	json_object_set_new(r->root, "devices", json_incref(r->jdevs));
	r->backend = json_object();
	json_object_set_new(r->root, "backend", json_incref(r->backend));
	if (o->iface) {
		r->network = json_pack("{s:s, s:s, s:i, s:s, s:s}", "interface", o->iface, "filter",
		                       o->filter ? o->filter : CAP_DEFAULT_FILTER, "snaplen",
		                       o->snaplen ? o->snaplen : CAP_DEFAULT_SNAPLEN, "file",
		                       RUNDIR_PCAP, "format", "pcap-ns");
		json_object_set_new(r->network, "addresses", cap_iface_addresses_json(o->iface));
		/* what the capture kept of which packets, for analyze to say */
		json_object_set_new(
		    r->network, "kept",
		    o->filter ? json_pack("[{s:s, s:i}]", "filter", o->filter, "snaplen",
		                          o->snaplen ? o->snaplen : CAP_DEFAULT_SNAPLEN)
		              : json_pack("[{s:s, s:i}, {s:s, s:i}]", "filter", CAP_DEFAULT_FILTER,
		                          "snaplen", o->snaplen ? o->snaplen : CAP_DEFAULT_SNAPLEN,
		                          "filter", "other " CAP_HEADERS_FILTER, "snaplen",
		                          CAP_HEADERS_SNAPLEN));
		json_object_set_new(r->root, "network", json_incref(r->network));
	}
	if (o->cmd)
		json_object_set_new(r->root, "command",
		                    json_pack("{s:o}", "argv", argv_json(o->cmd, -1)));
}

static void stop_command(struct run *r, int sig)
{
	uint64_t deadline;
	int st;

	if (!r->cmd_running)
		return;
	iot_proc_kill(&r->cmd.proc, sig ? sig : SIGTERM);
	deadline = iot_now_ns() + KILL_GRACE_NS;
	while (!cap_cmd_wait(&r->cmd, 20, &st)) {
		if (iot_now_ns() > deadline) {
			iot_proc_kill(&r->cmd.proc, SIGKILL);
			while (!cap_cmd_wait(&r->cmd, -1, &st))
				;
			break;
		}
	}
	r->cmd_running = 0;
	r->res->cmd_status = st;
}

static void progress(struct run *r, uint64_t t0)
{
	struct cap_progress *p = &r->res->totals;
	uint64_t garbage;

	p->elapsed_ns = iot_now_ns() - t0;
	cap_sink_counts(r->sink, &p->events, &p->bytes);
	if (r->rd)
		cap_reader_lost(r->rd, &p->lost, &garbage, &garbage);
	if (r->pcap)
		p->packets = cap_pcap_packets(r->pcap);
	if (r->o->progress)
		r->o->progress(r->o->arg, p);
}

/* The main loop: wait for the command, the duration, a signal or a failure. */
static void wait_loop(struct run *r)
{
	const struct cap_opts *o = r->o;
	uint64_t t0 = iot_now_ns();
	int st;

	for (;;) {
		int sig = o->stop ? *o->stop : 0;
		int err = cap_reader_failed(r->rd);

		if (!err && r->pcap)
			err = cap_pcap_failed(r->pcap);
		if (sig) {
			r->res->stop_signal = sig;
			stop_command(r, sig);
			break;
		}
		if (err) {
			r->res->late_err = err;
			stop_command(r, SIGTERM);
			break;
		}
		if (r->cmd_running && cap_cmd_poll(&r->cmd, &st)) {
			r->cmd_running = 0;
			r->res->cmd_status = st;
			break;
		}
		if (o->duration_ns && iot_now_ns() - t0 >= o->duration_ns) {
			stop_command(r, SIGTERM);
			break;
		}
		progress(r, t0);
		/* the command's end wakes the wait at once: the capture stops when it exits, and
		 * its wall time is measured to the moment it did */
		if (!r->cmd_running) {
			sleep_ms(TICK_MS);
		} else if (cap_cmd_wait(&r->cmd, TICK_MS, &st)) {
			r->cmd_running = 0;
			r->res->cmd_status = st;
			break;
		}
	}
	progress(r, t0);
}

/*
 * What a level of detail records, and which of analyze's figures it therefore cannot give
 * (docs/capture.md "Levels of detail"): readers show "not_given" beside their figures.
 */
static json_t *detail_json(enum cap_detail d, const struct cap_opts *o)
{
	switch (d) {
	case CAP_DETAIL_IO:
		return json_pack(
		    "{s:s, s:s, s:[sssssssss], s:[sssss], s:s}", "level", "io", "records",
		    "Q D C per IO, written at its completion (bio-based devices: Q C)",
		    "actions_absent", "G", "I", "M", "F", "P", "U", "R", "X", "A", "not_given",
		    "q2g", "g2i", "q2m", "i2d", "m2d", "note",
		    "on request-based devices Q is the request's allocation (the kernel keeps no "
		    "queue time): q2d and q2c start there, and merges are counted "
		    "(backend.merges), not recorded");
	case CAP_DETAIL_SUMMARY:
		/* the bins and threshold it keeps (summary.json says them too) */
		return json_pack(
		    "{s:s, s:s, s:[sssssssss], s:o, s:o}", "level", "summary", "records",
		    "none: summary.json holds the figures", "not_given", "events", "q2d",
		    "q2c (request-based devices)", "q2g", "g2i", "q2m", "depth",
		    "timeline depth and idle time", "per-IO records", "interval_ns",
		    json_u64(o->sum_interval_ns ? o->sum_interval_ns : BLK_SUMMARY_INTERVAL_NS),
		    "idle_threshold_ns",
		    json_u64(o->sum_idle_ns ? o->sum_idle_ns : BLK_SUMMARY_IDLE_NS));
	default:
		return json_pack("{s:s, s:s}", "level", "events", "records",
		                 "every blktrace action");
	}
}

static void finish_manifest(struct run *r, const char *state)
{
	struct cap_result *res = r->res;
	json_t *clock;

	json_object_set_new(r->root, "state", json_string(state));
	clock =
	    json_pack("{s:s, s:s, s:o, s:o}", "trace_clock", "mono", "method",
	              "CLOCK_REALTIME read on both sides of CLOCK_MONOTONIC, tightest of 8",
	              "start", cap_clock_pair_json(&r->start), "end", cap_clock_pair_json(&r->end));
	json_object_set_new(r->root, "clock", clock);
	json_object_set_new(r->root, "duration_ns", json_u64((r->end.mono_ns - r->start.mono_ns)));
	json_object_set_new(r->backend, "name",
	                    json_string(r->o->ndevs ? cap_backend_name(res->backend) : "none"));
	json_object_set_new(r->backend, "trace_clock",
	                    json_string(res->backend == CAP_BACKEND_RELAY ? "ktime_get" : "mono"));
	if (r->o->ndevs)
		json_object_set_new(r->root, "detail", detail_json(r->detail, r->o));
	if (r->sink) {
		unsigned ncg;
		const uint64_t *ids = cap_sink_cgroups(r->sink, &ncg);

		if (ncg) {
			struct cap_cgroups *now = NULL;

			cap_cgroups_scan(&now);
			json_object_set_new(r->root, "cgroups",
			                    cap_cgroups_json(r->cg, now, ids, ncg));
			cap_cgroups_free(now);
		}
	}
	for (unsigned i = 0; i < r->o->ndevs && r->sink; i++) {
		json_t *jd = json_array_get(r->jdevs, i);
		struct blk_span sp = cap_sink_dev_span(r->sink, i);
		const struct blk_extent *x = &sp.issued;

		json_object_set_new(jd, "events", json_u64(cap_sink_dev_events(r->sink, i)));
		/* the trace's own span, which a movie needs before it reads the trace */
		json_object_set_new(jd, "first_event_ns",
		                    sp.any ? json_u64(sp.first) : json_null());
		json_object_set_new(jd, "last_event_ns", sp.any ? json_u64(sp.last) : json_null());
		json_object_set_new(
		    jd, "issued",
		    !sp.any   ? json_null()
		    : !x->ios ? json_pack("{s:i}", "ios", 0)
		              : json_pack("{s:o, s:o, s:o}", "ios", json_u64(x->ios), "lo_sector",
		                          json_u64(x->lo), "end_sector", json_u64(x->hi)));
	}
	if (r->sink)
		json_object_set_new(r->root, "threads", cap_sink_threads_json(r->sink));
	if (r->o->cmd) {
		json_t *c = json_object_get(r->root, "command");

		json_object_set_new(c, "ran", json_boolean(res->cmd_ran));
		if (res->cmd_ran)
			json_object_set_new(c, "wall_ns", json_u64(res->cmd_wall_ns));
		json_object_set_new(c, "exit_status",
		                    res->cmd_ran || res->cmd_error[0]
		                        ? json_integer(res->cmd_status)
		                        : json_null());
		if (res->cmd_error[0])
			json_object_set_new(c, "error", json_string(res->cmd_error));
	}
	json_object_set_new(
	    r->root, "counts",
	    json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "events",
	              (json_int_t)res->totals.events, "trace_bytes", (json_int_t)res->totals.bytes,
	              "lost", (json_int_t)res->lost, "overrun", (json_int_t)res->overrun, "dropped",
	              (json_int_t)res->dropped, "reader_lost", (json_int_t)res->reader_lost,
	              "relay_dropped", (json_int_t)res->relay_dropped, "foreign_events",
	              (json_int_t)(r->sink ? cap_sink_foreign(r->sink) : 0), "packets",
	              (json_int_t)res->totals.packets, "packet_drops",
	              (json_int_t)res->totals.pkt_drops));
	{
		/* what capturing cost: all of iotape's threads, not the command */
		struct rusage ru;

		if (!getrusage(RUSAGE_SELF, &ru))
			json_object_set_new(
			    r->root, "iotape_cpu",
			    json_pack("{s:f, s:f, s:I}", "user_s",
			              ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6, "sys_s",
			              ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, "max_rss_kb",
			              (json_int_t)ru.ru_maxrss));
	}
	if (res->stop_signal)
		json_object_set_new(r->root, "stopped_by_signal", json_integer(res->stop_signal));
	if (res->late_err)
		json_object_set_new(r->root, "error", json_string(res->late_msg));
}

/* The devices given, resolved and probed; one given twice is refused. */
static int resolve_devs(struct run *r, struct iot_err *e)
{
	const struct cap_opts *o = r->o;
	int ret;

	for (unsigned i = 0; i < o->ndevs; i++) {
		unsigned ma, mi;

		if ((ret = cap_dev_resolve(o->devs[i], &ma, &mi, e)) ||
		    (ret = cap_dev_probe("", ma, mi, &r->devs[i], e)))
			return ret;
		for (unsigned j = 0; j < i; j++)
			if (r->devs[j].kdev == r->devs[i].kdev)
				return iot_err_set(e, -EINVAL, "device '%s' given twice",
				                   o->devs[i]);
	}
	return 0;
}

/* As blktrace warns: writing the trace to a traced device traces its own writes. */
static void warn_self_trace(const struct run *r)
{
	const struct cap_opts *o = r->o;
	struct stat st;

	for (unsigned i = 0; i < o->ndevs && !stat(o->rundir, &st); i++)
		if (major(st.st_dev) == r->devs[i].major && minor(st.st_dev) == r->devs[i].minor)
			cap_say(
			    o->notice, o->arg,
			    "warning: '%s' is on traced device '%s': the trace will include its "
			    "own writes",
			    o->rundir, r->devs[i].name);
}

/*
 * Each traced device is held open (read-only) until the capture ends. The kernel drops a block
 * device's page cache at its last close, so every probe of its superblocks (ours in
 * build_header(), blkid's, another capture's) would read the device again, and a capture
 * running beside this one would trace those reads; held open, a probe after the first is
 * served from the cache. Best effort: a device that will not open is probed all the same.
 */
static void hold_devs(struct run *r)
{
	const struct cap_opts *o = r->o;

	if (o->ndevs && (r->hold = malloc(o->ndevs * sizeof(*r->hold)))) {
		for (unsigned i = 0; i < o->ndevs; i++)
			r->hold[i] = open(o->devs[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	}
}

static void release_devs(struct run *r)
{
	for (unsigned i = 0; r->hold && i < r->o->ndevs; i++)
		if (r->hold[i] >= 0)
			close(r->hold[i]);
	free(r->hold);
	r->hold = NULL;
}

/* An early manifest: proves the directory is writable and describes the run even if iotape is
 * killed with SIGKILL; and the room for the last one set aside. */
static int first_manifest(struct run *r, struct iot_err *e)
{
	char *text;
	int ret;

	if ((ret = manifest_save(r->o->rundir, r->root, e)))
		return ret;
	text = json_dumps(r->root, JSON_INDENT(2));
	ret = text ? reserve_room(r, strlen(text), e) : iot_err_set(e, -ENOMEM, "out of memory");
	free(text);
	return ret;
}

/* With --iface: the packet capture into RUNDIR/net.pcap (none left if it cannot start). */
static int start_packets(struct run *r, struct iot_err *e)
{
	const struct cap_opts *o = r->o;
	int ret;

	if (!o->iface)
		return 0;
	snprintf(r->pcap_path, sizeof(r->pcap_path), "%s/" RUNDIR_PCAP, o->rundir);
	ret = cap_pcap_start(&r->pcap, o->iface, o->filter ? o->filter : CAP_DEFAULT_FILTER,
	                     o->snaplen ? o->snaplen : CAP_DEFAULT_SNAPLEN,
	                     o->filter ? NULL : CAP_HEADERS_FILTER, CAP_HEADERS_SNAPLEN,
	                     r->pcap_path, e);
	if (ret)
		unlink(r->pcap_path);
	return ret;
}

/* COMMAND run to its end, or without one the capture until it is stopped; a COMMAND that cannot
 * be run has its exit status (127, 126) and error in res. 0, or -errno when it cannot start. */
static int run_command(struct run *r, struct iot_err *e)
{
	const struct cap_opts *o = r->o;
	struct cap_result *res = r->res;
	int ret;

	if (o->cmd && !(o->stop && *o->stop)) {
		if ((ret = cap_cmd_spawn(&r->cmd, o->cmd, r->out_fd, r->err_fd, e)))
			return ret;
		if (r->cmd.exec_errno) {
			int st;

			while (!cap_cmd_wait(&r->cmd, -1, &st))
				;
			res->cmd_status = r->cmd.exec_errno == ENOENT ? 127 : 126;
			snprintf(res->cmd_error, sizeof(res->cmd_error), "'%s': %s", o->cmd[0],
			         strerror(r->cmd.exec_errno));
		} else {
			r->cmd_running = 1;
			res->cmd_ran = 1;
		}
	}
	if (!res->cmd_error[0] && (r->cmd_running || !o->cmd))
		wait_loop(r);
	if (res->cmd_ran)
		res->cmd_wall_ns = iot_proc_wall_ns(&r->cmd.proc);
	else if (o->stop && *o->stop)
		res->stop_signal = *o->stop; /* stopped before COMMAND could start */
	return 0;
}

/* Every exit path once the reader ran: stop events, drain, close the files, undo the kernel;
 * what was lost counted. */
static void stop_capture(struct run *r)
{
	struct cap_result *res = r->res;
	uint64_t lost, marks, garbage;
	struct iot_err le;

	stop_command(r, SIGTERM);
	if (r->ops)
		r->ops->stop(r->bs);
	le.msg[0] = '\0';
	if (cap_reader_finish(r->rd, &le) && !res->late_err)
		res->late_err = -EIO;
	if (res->late_err && !res->late_msg[0])
		snprintf(res->late_msg, sizeof(res->late_msg), "%s", le.msg);
	cap_reader_lost(r->rd, &lost, &marks, &garbage);
	res->reader_lost = lost + marks;
	res->lost = res->overrun + res->dropped; /* set again after teardown read the stats */
	if (garbage)
		json_object_set_new(r->backend, "unparsed_bytes", json_u64(garbage));
	if (cap_sink_bad(r->sink))
		json_object_set_new(r->backend, "bad_records", json_u64(cap_sink_bad(r->sink)));
	cap_reader_free(r->rd);
	r->rd = NULL;
	if (r->ops)
		r->ops->teardown(r->bs, res, r->backend, NULL);
	r->bs = NULL;
	res->lost = (res->overrun + res->dropped > res->reader_lost ? res->overrun + res->dropped
	                                                            : res->reader_lost) +
	            res->relay_dropped;
}

/* The packet capture ended, its counts in res (a failure to finish it is the run's late
 * error when it had started). */
static void stop_packets(struct run *r, int ret)
{
	struct cap_result *res = r->res;
	uint64_t drops = 0, ifdrops = 0;
	struct iot_err le;

	if (!r->pcap)
		return;
	le.msg[0] = '\0';
	if (cap_pcap_stop(r->pcap, r->network, &res->totals.packets, &drops, &ifdrops, &le) &&
	    !ret) {
		if (!res->late_err)
			res->late_err = -EIO;
		if (!res->late_msg[0])
			snprintf(res->late_msg, sizeof(res->late_msg), "%s", le.msg);
	}
	res->totals.pkt_drops = drops;
	res->ifdrop = ifdrops;
	r->pcap = NULL;
}

/* Remove device i's trace files (NAME.blktrace.N). */
static void remove_traces(const struct run *r, unsigned i)
{
	char p[4096];

	for (unsigned c = 0; c < 1024; c++)
		if (rundir_trace_path(p, sizeof(p), r->o->rundir, r->devs[i].name, c) ||
		    (unlink(p) && c > 256))
			break;
}

/* The trace files closed (a failure is the run's late error). A summary run has no records:
 * the sets hold only the TIMESTAMP written at the start, and go (summary.json has the
 * figures). */
static void close_sink(struct run *r, int ret)
{
	const struct cap_opts *o = r->o;
	struct cap_result *res = r->res;
	int no_traces = !ret && r->detail == CAP_DETAIL_SUMMARY;
	struct iot_err le;

	for (unsigned i = 0; i < o->ndevs && no_traces; i++)
		no_traces = cap_sink_dev_events(r->sink, i) <= 1;
	le.msg[0] = '\0';
	if (cap_sink_close(r->sink, &le) && !ret && !res->late_err) {
		res->late_err = -EIO;
		snprintf(res->late_msg, sizeof(res->late_msg), "%s", le.msg);
		json_object_set_new(r->root, "state", json_string("failed"));
		json_object_set_new(r->root, "error", json_string(le.msg));
	}
	r->sink = NULL;
	for (unsigned i = 0; i < o->ndevs && no_traces; i++) {
		json_object_set_new(json_array_get(r->jdevs, i), "files", json_null());
		remove_traces(r, i);
	}
	if (no_traces) {
		res->totals.events = res->totals.bytes = 0;
		json_object_set_new(json_object_get(r->root, "counts"), "events", json_integer(0));
		json_object_set_new(json_object_get(r->root, "counts"), "trace_bytes",
		                    json_integer(0));
	}
}

/* The end of every run, ret its result so far: the devices let go, the packets and the traces
 * closed and counted, the manifest finished and saved; a run that could not start leaves
 * nothing that looks like a capture. */
static void finish_run(struct run *r, int ret)
{
	const struct cap_opts *o = r->o;
	struct cap_result *res = r->res;
	struct iot_err le;

	release_devs(r);
	stop_packets(r, ret);
	if (r->sink) {
		uint64_t ev, by;

		cap_sink_counts(r->sink, &ev, &by);
		res->totals.events = ev;
		res->totals.bytes = by;
	}
	if (r->root && !ret) {
		cap_clock_pair_read(&r->end);
		finish_manifest(r, res->late_err      ? "failed"
		                   : res->stop_signal ? "interrupted"
		                                      : "complete");
	}
	if (r->sink)
		close_sink(r, ret);
	release_room(r);
	if (r->root && !ret) {
		le.msg[0] = '\0';
		if (manifest_save(o->rundir, r->root, &le) && !res->late_err) {
			res->late_err = -EIO;
			snprintf(res->late_msg, sizeof(res->late_msg), "%s", le.msg);
		}
	}
	if (r->root && ret) {
		char p[4096];

		snprintf(p, sizeof(p), "%s/" MANIFEST_NAME, o->rundir);
		unlink(p);
		for (unsigned i = 0; i < o->ndevs; i++)
			remove_traces(r, i);
	}
	if (r->out_fd >= 0)
		close(r->out_fd);
	if (r->err_fd >= 0)
		close(r->err_fd);
	cap_cgroups_free(r->cg);
	json_decref(r->jdevs);
	json_decref(r->backend);
	json_decref(r->network);
	json_decref(r->root);
	free(r->devs);
}

int cap_run(const struct cap_opts *o, struct cap_result *res, struct iot_err *e)
{
	struct run r = {.o = o, .res = res, .out_fd = -1, .err_fd = -1};
	int ret;

	memset(res, 0, sizeof(*res));
	if (geteuid() != 0)
		return iot_err_set(e, -EPERM,
		                   "block tracing needs root (CAP_SYS_ADMIN); run as root");
	if (!o->ndevs && !o->iface)
		return iot_err_set(e, -EINVAL, "nothing to capture: no device and no interface");
	r.devs = calloc(o->ndevs ? o->ndevs : 1, sizeof(*r.devs));
	if (!r.devs)
		return iot_err_set(e, -ENOMEM, "out of memory");
	if ((ret = resolve_devs(&r, e)) || (ret = check_outputs(o, e)))
		goto out;
	if (o->ndevs && o->wait_ns && uses_blk_tracer(o) && (ret = wait_tracer(o, res, e)))
		goto out;
	if ((ret = prepare_rundir(o->rundir, e)) ||
	    (ret = open_output(o->cmd_stdout, "--stdout", &r.out_fd, e)) ||
	    (ret = open_output(o->cmd_stderr, "--stderr", &r.err_fd, e)))
		goto out;
	warn_self_trace(&r);
	hold_devs(&r);
	build_header(&r);
	if (o->ndevs)
		cap_cgroups_scan(&r.cg); /* best effort: the ids are in the records anyway */
	if ((ret = first_manifest(&r, e)) ||
	    (ret = cap_sink_new(&r.sink, o->rundir, r.devs, o->ndevs, "", e)) ||
	    (ret = start_packets(&r, e)))
		goto out;
	cap_clock_pair_read(&r.start);
	if ((ret = cap_sink_timestamp(r.sink, &r.start, e)))
		goto out;
	ret = o->ndevs ? start_block(&r, e) : cap_reader_new(&r.rd, r.sink, e);
	if (ret)
		goto out;
	if (!(ret = cap_reader_start(r.rd, e)))
		ret = run_command(&r, e);
	stop_capture(&r);
out:
	finish_run(&r, ret);
	return ret;
}
