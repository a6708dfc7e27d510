/* SPDX-License-Identifier: MIT */
/* One capture from start to finish: devices, backend, packets, the command, the manifest. */
#include "capture/session_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/jsonint.h"
#include "formats/manifest.h"
#include "formats/rundir.h"

#define TICK_MS 200
#define KILL_GRACE_NS (5ull * 1000000000ull)

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};

	/* a signal cuts the sleep short, which is what we want */
	nanosleep(&ts, NULL);
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

/*
 * Each traced device is held open (read-only) until the capture ends. The kernel drops a block
 * device's page cache at its last close, so every probe of its superblocks (ours in
 * session_build_header(), blkid's, another capture's) would read the device again, and a capture
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
		session_remove_traces(r, i);
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
		session_finish_manifest(r, res->late_err      ? "failed"
		                           : res->stop_signal ? "interrupted"
		                                              : "complete");
	}
	if (r->sink)
		close_sink(r, ret);
	session_release_room(r);
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
			session_remove_traces(r, i);
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
	if ((ret = resolve_devs(&r, e)) || (ret = session_check_outputs(o, e)))
		goto out;
	if (o->ndevs && o->wait_ns && uses_blk_tracer(o) && (ret = wait_tracer(o, res, e)))
		goto out;
	if ((ret = session_prepare_rundir(o->rundir, e)) ||
	    (ret = session_open_output(o->cmd_stdout, "--stdout", &r.out_fd, e)) ||
	    (ret = session_open_output(o->cmd_stderr, "--stderr", &r.err_fd, e)))
		goto out;
	session_warn_self_trace(&r);
	hold_devs(&r);
	session_build_header(&r);
	if (o->ndevs)
		cap_cgroups_scan(&r.cg); /* best effort: the ids are in the records anyway */
	if ((ret = session_first_manifest(&r, e)) ||
	    (ret = cap_sink_new(&r.sink, o->rundir, r.devs, o->ndevs, "", e)) ||
	    (ret = start_packets(&r, e)))
		goto out;
	cap_clock_pair_read(&r.start);
	if ((ret = cap_sink_timestamp(r.sink, &r.start, e)))
		goto out;
	ret = o->ndevs ? session_start_block(&r, e) : cap_reader_new(&r.rd, r.sink, e);
	if (ret)
		goto out;
	if (!(ret = cap_reader_start(r.rd, e)))
		ret = run_command(&r, e);
	stop_capture(&r);
out:
	finish_run(&r, ret);
	return ret;
}
