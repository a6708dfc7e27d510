/* SPDX-License-Identifier: MIT */
/* The tracefs backend: the kernel's blk tracer with binary output, per-device enable. */
#include "capture/cap_int.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fs.h"

/*
 * Why the top-level buffer and not a private instance: the blk tracer does not set
 * allow_instances, so instances list only "function nop" in available_tracers and writing
 * "blk" to an instance's current_tracer fails with EINVAL (checked on 6.18, see
 * docs/capture.md). The blk tracer is therefore global; we refuse to start when another
 * tracer is current, change only what we need, and put every setting back on every exit
 * path. Open trace_pipe readers pin the tracer (current_tracer writes fail with EBUSY), so
 * the reader must be closed before teardown runs.
 */
#define TRACEFS "/sys/kernel/tracing"
#define STATE_FILE "/run/iotape-tracefs.state" /* see state_save() */
#define LOCK_FILE "/run/iotape-tracefs.lock"

struct saved_opt {
	const char *file; /* relative to TRACEFS */
	const char *want;
	char old[64];
	int changed;
};

struct cap_backend_state {
	struct saved_opt opt[16];
	unsigned nopt;
	char old_tracer[64];
	int tracer_set;
	int state_saved;
	int mounted; /* tracefs was mounted by this capture: unmounted at the end */
	int lockfd;
	const struct cap_dev *devs; /* for the state file */
	unsigned ndevs;
	char **enable; /* per device: trace/enable path we set to 1 */
	unsigned nenable;
	unsigned ncpu;
	uint64_t *base_overrun, *base_dropped;
	unsigned buffer_kb;
	enum cap_read_mode reader;
};

static int tf_path(char *out, size_t cap, const char *rel)
{
	return snprintf(out, cap, "%s/%s", TRACEFS, rel) < (int)cap ? 0 : -ENAMETOOLONG;
}

static int tf_read(const char *rel, char *buf, size_t cap)
{
	char p[512];

	if (tf_path(p, sizeof(p), rel))
		return -ENAMETOOLONG;
	return cap_read_str(p, buf, cap);
}

static int tf_write(const char *rel, const char *v)
{
	char p[512];

	if (tf_path(p, sizeof(p), rel))
		return -ENAMETOOLONG;
	return cap_write_str(p, v);
}

static void read_cpu_stats(unsigned cpu, uint64_t *overrun, uint64_t *dropped)
{
	char rel[64], buf[1024];
	const char *p;

	*overrun = *dropped = 0;
	snprintf(rel, sizeof(rel), "per_cpu/cpu%u/stats", cpu);
	if (tf_read(rel, buf, sizeof(buf)))
		return;
	if ((p = strstr(buf, "\noverrun:")) || (p = strstr(buf, "overrun:")))
		*overrun = strtoull(strchr(p, ':') + 1, NULL, 10);
	if ((p = strstr(buf, "dropped events:")))
		*dropped = strtoull(strchr(p, ':') + 1, NULL, 10);
}

static void state_save(struct cap_backend_state *s);

static int set_opt(struct cap_backend_state *s, const char *file, const char *want,
                   struct iot_err *e)
{
	struct saved_opt *o = &s->opt[s->nopt];
	char buf[256];
	int ret;

	if (s->nopt >= sizeof(s->opt) / sizeof(s->opt[0]))
		return iot_err_set(e, -EOVERFLOW, "tracefs: too many settings to save (%s)", file);
	o->file = file;
	o->want = want;
	ret = tf_read(file, buf, sizeof(buf));
	if (ret)
		return iot_err_set(e, ret, "tracefs: cannot read %s/%s: %s", TRACEFS, file,
		                   strerror(-ret));
	if (!strcmp(file, "trace_clock"))
		cap_pick_bracketed(buf, o->old, sizeof(o->old));
	else if (!strcmp(file, "buffer_size_kb"))
		/* "7 (expanded: 1408)" before first use: restore the expanded size */
		snprintf(o->old, sizeof(o->old), "%llu",
		         strstr(buf, "expanded:") ? strtoull(strstr(buf, "expanded:") + 9, NULL, 10)
		                                  : strtoull(buf, NULL, 10));
	else if (strlen(buf) < sizeof(o->old))
		memcpy(o->old, buf, strlen(buf) + 1);
	else
		return iot_err_set(e, -EINVAL, "tracefs: %s: unexpected value '%s'", file, buf);
	s->nopt++;
	if (!strcmp(o->old, want))
		return 0;
	/* the state file lists the change before it is made: a capture killed at any point
	 * leaves nothing the next one cannot undo */
	o->changed = 1;
	state_save(s);
	ret = tf_write(file, want);
	if (ret) {
		o->changed = 0;
		return iot_err_set(e, ret, "tracefs: cannot set %s to '%s': %s", file, want,
		                   strerror(-ret));
	}
	return 0;
}

/* The same, for a core option this kernel may lack (stacktrace needs CONFIG_STACKTRACE):
 * a missing file is nothing to switch off. */
static int set_opt_if_present(struct cap_backend_state *s, const char *file, const char *want,
                              struct iot_err *e)
{
	char p[512];

	if (tf_path(p, sizeof(p), file) || access(p, F_OK))
		return 0;
	return set_opt(s, file, want, e);
}

static void restore(struct cap_backend_state *s)
{

	for (unsigned i = 0; i < s->nenable; i++) {
		cap_write_str(s->enable[i], "0");
		free(s->enable[i]);
	}
	s->nenable = 0;
	while (s->nopt) {
		struct saved_opt *o = &s->opt[--s->nopt];

		if (o->changed)
			tf_write(o->file, o->old);
	}
	if (s->state_saved)
		unlink(STATE_FILE);
	s->state_saved = 0;
}

static void free_state(struct cap_backend_state *s)
{
	if (s->mounted)
		cap_unmount_own(TRACEFS);
	if (s->lockfd >= 0)
		close(s->lockfd); /* releases the lock, after everything is restored */
	free(s->enable);
	free(s->base_overrun);
	free(s->base_dropped);
	free(s);
}

/* "mnt:[4026531841]": which mount namespace this process sees */
static void mount_ns(char *buf, size_t cap)
{
	ssize_t n = readlink("/proc/self/ns/mnt", buf, cap - 1);

	buf[n > 0 ? n : 0] = '\0';
}

/*
 * SIGKILL (or a crash) is the one exit path that cannot undo the settings. So that it does
 * not leave the machine's only blk tracer stuck, the settings to restore are kept in a state
 * file while a capture runs: a later capture (or `iotape capture --release`) that finds the
 * file there and its pid gone restores them first. Lines: "pid N", "opt FILE OLD" (changed
 * settings, in the order they were made), "enable PATH", and "mounted DIR NS" when the
 * capture mounted tracefs itself (in mount namespace NS).
 */
static void state_save(struct cap_backend_state *s)
{
	const struct cap_dev *devs = s->devs;
	unsigned n = s->ndevs;
	struct iot_outfile of;
	FILE *f;

	/* written beside and renamed: a capture killed meanwhile leaves the old state whole */
	if (iot_outfile_open(&of, STATE_FILE, 0, NULL))
		return; /* best effort: without it, a SIGKILL needs the manual reset */
	if (!(f = iot_outfile_stream(&of))) {
		iot_outfile_abort(&of);
		return;
	}
	fprintf(f, "pid %ld\n", (long)getpid());
	if (s->mounted) {
		char ns[64];

		mount_ns(ns, sizeof(ns));
		fprintf(f, "mounted %s %s\n", TRACEFS, ns);
	}
	for (unsigned i = 0; i < s->nopt; i++)
		if (s->opt[i].changed)
			fprintf(f, "opt %s %s\n", s->opt[i].file, s->opt[i].old);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "enable %s/trace/enable\n", devs[i].sysdir);
	if (!iot_outfile_commit(&of, NULL))
		s->state_saved = 1;
}

/*
 * With the lock held: restore what the dead capture in the state file left. 1 when it did
 * (*pid is the dead capture's), 0 when there is no state file, -EBUSY when its owner is alive
 * (or the file is not ours to judge), -errno when tracefs cannot be mounted to restore.
 */
static int recover_locked(long *pid, struct iot_err *e)
{
	char line[700], opts[16][2][256], ns[64], a[256], b[256];
	unsigned nopts = 0;
	int mounted_now, theirs = 0;
	FILE *f = fopen(STATE_FILE, "re");

	*pid = 0;
	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f) || sscanf(line, "pid %ld", pid) != 1 || *pid <= 0 ||
	    !(kill((pid_t)*pid, 0) && errno == ESRCH)) {
		fclose(f);
		return -EBUSY;
	}
	mounted_now = cap_ensure_mounted(TRACEFS, "tracefs", e);
	if (mounted_now < 0) {
		fclose(f);
		return mounted_now;
	}
	mount_ns(ns, sizeof(ns));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "enable %255s", a) == 1 && strstr(a, "/trace/enable"))
			cap_write_str(a, "0");
		/* the dead capture's own mount, in our namespace: undone too */
		else if (sscanf(line, "mounted %255s %255s", a, b) == 2 && !strcmp(a, TRACEFS) &&
		         !strcmp(b, ns))
			theirs = 1;
		else if (sscanf(line, "opt %255s %255s", a, b) == 2 && nopts < 16) {
			memcpy(opts[nopts][0], a, sizeof(a));
			memcpy(opts[nopts][1], b, sizeof(b));
			nopts++;
		}
	}
	fclose(f);
	while (nopts--)
		tf_write(opts[nopts][0], opts[nopts][1]);
	unlink(STATE_FILE);
	if (mounted_now || theirs)
		cap_unmount_own(TRACEFS);
	return 1;
}

/* 1 when a dead capture's settings were restored, 0 when there was nothing to do. Runs
 * before any backend starts (the leftover trace also makes BLKTRACESETUP fail with EBUSY). */
int cap_tracefs_recover(char *why, size_t cap)
{
	struct iot_err e;
	long pid;
	int lockfd = open(LOCK_FILE, O_RDWR | O_CREAT | O_CLOEXEC, 0600), ret = 0;

	/* a live capture holds the lock: then its state is its own business */
	if (lockfd >= 0 && flock(lockfd, LOCK_EX | LOCK_NB)) {
		close(lockfd);
		return 0;
	}
	if (recover_locked(&pid, &e) == 1) {
		snprintf(why, cap, "restored the tracing settings a killed capture (pid %ld) left",
		         pid);
		ret = 1;
	}
	if (lockfd >= 0)
		close(lockfd);
	return ret;
}

int cap_tracefs_release(char *msg, size_t cap, struct iot_err *e)
{
	char tracer[64] = "";
	long pid = 0;
	int lockfd, ret, mounted_now;
	FILE *f;

	if (geteuid() != 0)
		return iot_err_set(e, -EPERM, "releasing the tracer needs root; run as root");
	lockfd = open(LOCK_FILE, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lockfd >= 0 && flock(lockfd, LOCK_EX | LOCK_NB)) {
		close(lockfd);
		if ((f = fopen(STATE_FILE, "re"))) {
			if (fscanf(f, "pid %ld", &pid) != 1)
				pid = 0;
			fclose(f);
		}
		if (pid > 0)
			return iot_err_set(e, -EBUSY,
			                   "a capture is running (pid %ld): stop it with kill %ld "
			                   "and it puts the tracer back itself",
			                   pid, pid);
		return iot_err_set(e, -EBUSY, "a capture is running (it holds %s)", LOCK_FILE);
	}
	ret = recover_locked(&pid, e);
	if (ret == -EBUSY)
		ret = iot_err_set(e, -EBUSY,
		                  "%s names pid %ld, which is alive and holds no capture lock: not "
		                  "touched; if it is stale, remove the file and reset by hand",
		                  STATE_FILE, pid);
	if (ret < 0)
		goto out;
	if (ret == 1) {
		snprintf(msg, cap, "restored the tracing settings a killed capture (pid %ld) left",
		         pid);
		ret = 0;
		goto out;
	}
	/* no state file: say whether the tracer is free; never touch someone else's tracer */
	mounted_now = cap_ensure_mounted(TRACEFS, "tracefs", e);
	if (mounted_now < 0) {
		ret = mounted_now;
		goto out;
	}
	ret = tf_read("current_tracer", tracer, sizeof(tracer));
	if (mounted_now)
		cap_unmount_own(TRACEFS);
	if (ret) {
		ret =
		    iot_err_set(e, ret, "tracefs: cannot read current_tracer: %s", strerror(-ret));
		goto out;
	}
	if (strcmp(tracer, "nop")) {
		ret = iot_err_set(e, -EBUSY,
		                  "the tracer is in use (current_tracer is '%s') and no iotape "
		                  "capture left it; to reset it by hand: echo nop > "
		                  "%s/current_tracer (and echo 0 > /sys/block/DEV/trace/enable)",
		                  tracer, TRACEFS);
		goto out;
	}
	snprintf(msg, cap, "the tracer is free: nothing to release");
	ret = 0;
out:
	if (lockfd >= 0)
		close(lockfd);
	return ret;
}

/* The blk tracer, ours: one capture at a time (taking the lock makes "is the tracer free? take
 * it" atomic among iotape processes, and the kernel drops it when a capture dies), tracefs
 * mounted, a kernel with the tracer, and nobody using it. */
static int take_tracer(struct cap_backend_state *s, struct iot_err *e)
{
	char buf[256];
	int ret;

	s->lockfd = open(LOCK_FILE, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (s->lockfd >= 0 && flock(s->lockfd, LOCK_EX | LOCK_NB))
		return iot_err_set(e, -EBUSY,
		                   "tracefs: the tracer is in use by another iotape capture; the "
		                   "blk tracer is global, so one capture at a time");
	ret = cap_ensure_mounted(TRACEFS, "tracefs", e);
	if (ret < 0)
		return ret;
	s->mounted = ret;
	ret = tf_read("available_tracers", buf, sizeof(buf));
	if (ret || !strstr(buf, "blk"))
		return iot_err_set(e, -ENOTSUP,
		                   "tracefs: this kernel has no blk tracer "
		                   "(CONFIG_BLK_DEV_IO_TRACE)");
	ret = tf_read("current_tracer", s->old_tracer, sizeof(s->old_tracer));
	if (ret)
		return iot_err_set(e, ret, "tracefs: cannot read current_tracer: %s",
		                   strerror(-ret));
	if (strcmp(s->old_tracer, "nop"))
		return iot_err_set(e, -EBUSY,
		                   "tracefs: the tracer is in use (current_tracer is '%s'); the "
		                   "blk tracer is global, so one capture at a time (if a killed "
		                   "iotape left it: echo nop > %s/current_tracer)",
		                   s->old_tracer, TRACEFS);
	return 0;
}

/* A device somebody else traces (blktrace, another capture) is refused, not shared. */
static int devs_untraced(const struct cap_dev *devs, unsigned n, struct iot_err *e)
{
	for (unsigned i = 0; i < n; i++) {
		char p[600], buf[256];
		int ret;

		snprintf(p, sizeof(p), "%s/trace/enable", devs[i].sysdir);
		ret = cap_read_str(p, buf, sizeof(buf));
		if (ret)
			return iot_err_set(e, ret, "'%s': cannot read %s: %s", devs[i].name, p,
			                   strerror(-ret));
		if (strcmp(buf, "0"))
			return iot_err_set(e, -EBUSY,
			                   "'%s' is already being traced (%s is %s; if a killed "
			                   "iotape left it: echo 0 > %s)",
			                   devs[i].name, p, buf, p);
	}
	return 0;
}

/* The tracer's settings: the clock, the buffer, binary records with context, nothing that
 * adds work to each event. Each is recorded for the restore. */
static int set_tracer(struct cap_backend_state *s, const struct cap_opts *o, struct iot_err *e)
{
	char kb[32];
	int ret;

	s->buffer_kb = o->buffer_kb ? o->buffer_kb : CAP_DEFAULT_BUFFER_KB;
	s->reader = o->reader;
	snprintf(kb, sizeof(kb), "%u", s->buffer_kb);
	/* mono = CLOCK_MONOTONIC: the clock the relay path stamps with (ktime_get), and one we
	 * can read beside CLOCK_REALTIME to place packets on the same timeline */
	if ((ret = set_opt(s, "trace_clock", "mono", e)) ||
	    (ret = set_opt(s, "buffer_size_kb", kb, e)) || (ret = set_opt(s, "tracing_on", "1", e)))
		return ret;
	/* Core options that add work to every event the blk tracer writes, in the workload's
	 * context: stacktrace records a kernel stack after each one (ftrace_trace_stack() in
	 * trace_buffer_unlock_commit_regs(); measured: fio CPU per 4 KiB IO on zram +100 %),
	 * userstacktrace a user stack (+23 %). Both are off by default; a capture must not
	 * inherit them from whoever used the tracer before. */
	if ((ret = set_opt_if_present(s, "options/stacktrace", "0", e)) ||
	    (ret = set_opt_if_present(s, "options/userstacktrace", "0", e)))
		return ret;
	/* restored in reverse order: tracer options first, then the tracer, then the rest */
	if ((ret = set_opt(s, "current_tracer", "blk", e)))
		return ret;
	s->tracer_set = 1;
	/* the tracer's options exist only while it is current */
	if ((ret = set_opt(s, "options/bin", "1", e)) ||
	    (ret = set_opt(s, "options/context-info", "1", e)) ||
	    (ret = set_opt(s, "options/blk_classic", "0", e)) ||
	    (ret = set_opt(s, "options/blk_cgroup", "0", e)))
		return ret;
	return 0;
}

/* Every CPU's pipe into the reader, its overrun and drop counts at the start kept. */
static int open_cpus(struct cap_backend_state *s, struct cap_reader *rd, struct iot_err *e)
{
	char rel[64];
	int ret;

	s->ncpu = (unsigned)sysconf(_SC_NPROCESSORS_CONF);
	s->base_overrun = calloc(s->ncpu, sizeof(uint64_t));
	s->base_dropped = calloc(s->ncpu, sizeof(uint64_t));
	if (!s->base_overrun || !s->base_dropped)
		return iot_err_set(e, -ENOMEM, "out of memory");
	for (unsigned c = 0; c < s->ncpu; c++) {
		char p[128];
		int fd;

		snprintf(rel, sizeof(rel), "per_cpu/cpu%u", c);
		tf_path(p, sizeof(p), rel);
		if (access(p, F_OK))
			continue;
		read_cpu_stats(c, &s->base_overrun[c], &s->base_dropped[c]);
		snprintf(rel, sizeof(rel), "per_cpu/cpu%u/%s", c,
		         s->reader == CAP_READER_RAW ? "trace_pipe_raw" : "trace_pipe");
		tf_path(p, sizeof(p), rel);
		fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			return iot_err_set(e, -errno, "tracefs: cannot open %s: %s", p,
			                   strerror(errno));
		ret = cap_reader_add(
		    rd, fd, c, s->reader == CAP_READER_RAW ? CAP_STREAM_RAW : CAP_STREAM_PIPE, e);
		if (ret)
			return ret;
	}
	return 0;
}

/* Tracing on for each device (s->nenable counts them, for the restore), with --act-mask. */
static int enable_devs(struct cap_backend_state *s, const struct cap_opts *o, struct iot_err *e)
{
	for (unsigned i = 0; i < s->ndevs; i++) {
		const struct cap_dev *d = &s->devs[i];
		int ret;

		if (asprintf(&s->enable[i], "%s/trace/enable", d->sysdir) < 0)
			return iot_err_set(e, -ENOMEM, "out of memory");
		s->nenable = i + 1;
		ret = cap_write_str(s->enable[i], "1");
		if (ret)
			return iot_err_set(e, ret == -EBUSY ? -EBUSY : ret,
			                   "'%s': cannot enable tracing: %s", d->name,
			                   strerror(-ret));
		if (o->act_mask) {
			/* the trace enable just made; it goes away with it (enable 0) */
			char p[600], m[16];

			snprintf(p, sizeof(p), "%s/trace/act_mask", d->sysdir);
			snprintf(m, sizeof(m), "%u", o->act_mask);
			ret = cap_write_str(p, m);
			if (ret)
				return iot_err_set(e, ret, "'%s': cannot set %s: %s", d->name, p,
				                   strerror(-ret));
		}
	}
	return 0;
}

static int tracefs_start(struct cap_backend_state **out, const struct cap_dev *devs, unsigned n,
                         const struct cap_opts *o, struct cap_reader *rd, struct iot_err *e)
{
	struct cap_backend_state *s = calloc(1, sizeof(*s));
	int ret;

	*out = NULL;
	if (!s || !(s->enable = calloc(n ? n : 1, sizeof(char *))))
		return free(s), iot_err_set(e, -ENOMEM, "out of memory");
	s->devs = devs;
	s->ndevs = n;
	if (!(ret = take_tracer(s, e)) && !(ret = devs_untraced(devs, n, e)) &&
	    !(ret = set_tracer(s, o, e)) && !(ret = open_cpus(s, rd, e))) {
		state_save(s);
		ret = enable_devs(s, o, e);
	}
	/* on failure too: the caller frees the reader (closing the pipes) and then calls
	 * teardown, which undoes what was done here after the pipes are closed */
	*out = s;
	return ret;
}

static void tracefs_stop(struct cap_backend_state *s)
{
	/* no new events; what is in the ring buffer is still read out */
	for (unsigned i = 0; i < s->nenable; i++)
		cap_write_str(s->enable[i], "0");
}

static int tracefs_teardown(struct cap_backend_state *s, struct cap_result *res, json_t *info,
                            struct iot_err *e)
{
	uint64_t overrun = 0, dropped = 0;
	json_t *cpus = json_array();

	(void)e;
	if (!s)
		return 0;
	/* stats first: switching the tracer resets the buffers and their counters */
	for (unsigned c = 0; c < s->ncpu && s->tracer_set; c++) {
		uint64_t o, d;

		read_cpu_stats(c, &o, &d);
		o = o >= s->base_overrun[c] ? o - s->base_overrun[c] : 0;
		d = d >= s->base_dropped[c] ? d - s->base_dropped[c] : 0;
		overrun += o;
		dropped += d;
		json_array_append_new(cpus, json_pack("{s:i, s:I, s:I}", "cpu", c, "overrun",
		                                      (json_int_t)o, "dropped", (json_int_t)d));
	}
	restore(s);
	s->tracer_set = 0;
	if (res) {
		res->overrun = overrun;
		res->dropped = dropped;
	}
	if (info) {
		json_object_set_new(info, "tracer", json_string("blk"));
		json_object_set_new(info, "instance", json_string("top-level"));
		json_object_set_new(info, "reader", json_string(cap_reader_name(s->reader)));
		json_object_set_new(info, "buffer_kb_per_cpu", json_integer(s->buffer_kb));
		json_object_set_new(info, "ring_buffer", cpus);
	} else {
		json_decref(cpus);
	}
	free_state(s);
	return 0;
}

const struct cap_blk_ops cap_tracefs_ops = {
    .name = "tracefs",
    .start = tracefs_start,
    .stop = tracefs_stop,
    .teardown = tracefs_teardown,
};
