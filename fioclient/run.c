/* SPDX-License-Identifier: MIT */
/* fio client replay: devices onto slots, the iologs and job files, fio run and waited for. */
#include "fioclient/fioclient.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "common/numfmt.h"
#include "formats/blktrace.h"

extern char **environ;

int fc_parse_output(const char *path, struct fc_result *res, struct iot_err *e);

static int cmp_dev(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The devices with IOs of the kind replayed (D or Q events), sorted. */
static int trace_devices(const struct fc_opts *o, uint32_t **devs, unsigned *n, struct iot_err *e)
{
	unsigned act = o->xo.from_queue ? BLK_A_QUEUE : BLK_A_ISSUE;
	const struct blk_event *evs;
	struct bt_reader *r;
	unsigned k;
	int ret;

	*devs = NULL;
	*n = 0;
	if ((ret = bt_reader_open(&r, o->run, e)))
		return ret;
	while ((ret = bt_reader_next_batch(r, &evs, &k, e)) > 0) {
		for (unsigned i = 0; i < k; i++) {
			const struct blk_event *ev = &evs[i];
			unsigned j;
			uint32_t *v;

			if (blk_is_notify(ev) || ev->action != act)
				continue;
			for (j = 0; j < *n && (*devs)[j] != ev->dev; j++)
				;
			if (j < *n)
				continue;
			v = realloc(*devs, (*n + 1) * sizeof(*v));
			if (!v) {
				ret = iot_err_set(e, -ENOMEM, "out of memory");
				goto out;
			}
			*devs = v;
			v[(*n)++] = ev->dev;
		}
	}
out:
	bt_reader_free(r);
	if (!ret)
		qsort(*devs, *n, sizeof(**devs), cmp_dev);
	return ret;
}

/* The hosts (distinct HOST:PORT) in order of first slot; host[i] of slot i. */
struct hostset {
	unsigned n;
	unsigned *of_slot;
	char **names; /* job file names: "HOST-PORT", characters a file name cannot hold as _ */
	unsigned *first_slot;
};

static void hostset_release(struct hostset *h)
{
	for (unsigned i = 0; i < h->n; i++)
		free(h->names[i]);
	free(h->names);
	free(h->of_slot);
	free(h->first_slot);
}

static int hostset_make(struct hostset *h, const struct fc_opts *o)
{
	memset(h, 0, sizeof(*h));
	h->of_slot = calloc(o->nslots, sizeof(*h->of_slot));
	h->names = calloc(o->nslots, sizeof(*h->names));
	h->first_slot = calloc(o->nslots, sizeof(*h->first_slot));
	if (!h->of_slot || !h->names || !h->first_slot)
		return -ENOMEM;
	for (unsigned i = 0; i < o->nslots; i++) {
		const struct fc_slot *s = &o->slots[i];
		unsigned j;

		for (j = 0; j < h->n; j++) {
			const struct fc_slot *f = &o->slots[h->first_slot[j]];

			if (!strcmp(f->host, s->host) && f->port == s->port)
				break;
		}
		if (j == h->n) {
			if (asprintf(&h->names[j], "%s-%u", s->host, s->port) < 0)
				return -ENOMEM;
			for (char *c = h->names[j]; *c; c++)
				if (*c == '/' || *c == ':' || *c == ' ')
					*c = '_';
			h->first_slot[j] = i;
			h->n++;
		}
		h->of_slot[i] = j;
	}
	return 0;
}

/* Which slot each device goes to: the maps, else in order. */
static int assign(const struct fc_opts *o, const uint32_t *devs, unsigned ndevs, unsigned *slot_of,
                  struct iot_err *e)
{
	if (!o->nmaps) {
		if (ndevs > o->nslots)
			return iot_err_set(e, -EINVAL,
			                   "the trace has %u devices with IOs and there are %u "
			                   "--fio-client slots: say which goes where with --map "
			                   "SRCDEV=HOST[:PORT]",
			                   ndevs, o->nslots);
		for (unsigned i = 0; i < ndevs; i++)
			slot_of[i] = i;
		return 0;
	}
	for (unsigned i = 0; i < ndevs; i++) {
		slot_of[i] = UINT32_MAX;
		for (unsigned m = 0; m < o->nmaps; m++)
			if (o->maps[m].dev == devs[i])
				slot_of[i] = o->maps[m].slot;
	}
	for (unsigned m = 0; m < o->nmaps; m++)
		for (unsigned k = m + 1; k < o->nmaps; k++)
			if (o->maps[m].slot == o->maps[k].slot && o->maps[m].dev != o->maps[k].dev)
				return iot_err_set(
				    e, -EINVAL,
				    "--map: devices %u,%u and %u,%u both onto slot %u "
				    "(one device per --fio-client)",
				    BLK_DEV_MAJOR(o->maps[m].dev), BLK_DEV_MINOR(o->maps[m].dev),
				    BLK_DEV_MAJOR(o->maps[k].dev), BLK_DEV_MINOR(o->maps[k].dev),
				    o->maps[m].slot + 1);
	return 0;
}

/* fio's last complaint ("fio: ...", "<host> fio: ...") in its log into msg. */
static void last_complaint(const char *log, char *msg, size_t cap)
{
	FILE *f = fopen(log, "r");
	char line[512];

	*msg = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "fio: ");

		line[strcspn(line, "\n")] = 0;
		if (p)
			snprintf(msg, cap, "%s", p);
	}
	fclose(f);
}

/* "The last lines of fio's log" into e, after what. */
static int fio_failed(const char *log, const char *what, int code, struct iot_err *e)
{
	char tail[300] = "";
	FILE *f = fopen(log, "r");

	if (f) {
		char line[256];

		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = 0;
			if (*line)
				snprintf(tail, sizeof(tail), "%s", line);
		}
		fclose(f);
	}
	return iot_err_set(e, code, "%s%s%s (fio's output: %s)", what, *tail ? ": " : "", tail,
	                   log);
}

/* The time fio may take: o->timeout_ns, or by default the trace's span (the longest device's,
 * from the common start) times FC_TIMEOUT_FACTOR plus FC_TIMEOUT_SLACK_NS, saturating. */
static uint64_t fio_limit(const struct fc_opts *o, const struct fc_result *res)
{
	uint64_t span = 0, t;

	if (o->timeout_ns)
		return o->timeout_ns;
	for (unsigned i = 0; i < res->ndevs; i++)
		if (res->devs[i].x.last_ns - res->t0 > span)
			span = res->devs[i].x.last_ns - res->t0;
	if (span > (UINT64_MAX - FC_TIMEOUT_SLACK_NS) / FC_TIMEOUT_FACTOR)
		return UINT64_MAX;
	t = span * FC_TIMEOUT_FACTOR + FC_TIMEOUT_SLACK_NS;
	return t;
}

static int run_fio(const struct fc_opts *o, const struct hostset *h, const char *dir,
                   struct fc_result *res, struct iot_err *e)
{
	const char *fio = o->fio ? o->fio : "fio";
	posix_spawn_file_actions_t fa;
	char **argv = calloc(4 + 2 * (size_t)h->n + 1, sizeof(*argv));
	unsigned argc = 0;
	pid_t pid;
	int ret, status = 0;
	bool signalled = false;
	uint64_t start = iot_now_ns(), kill_at = 0;

	if (!argv)
		return iot_err_set(e, -ENOMEM, "out of memory");
	argv[argc++] = (char *)fio;
	argv[argc++] = (char *)"--output-format=json";
	if (asprintf(&argv[argc++], "--output=%s", res->fio_json) < 0) {
		argv[argc - 1] = NULL;
		ret = iot_err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (unsigned i = 0; i < h->n; i++) {
		const struct fc_slot *s = &o->slots[h->first_slot[i]];

		if (asprintf(&argv[argc++], "--client=%s%s,%u", strchr(s->host, ':') ? "ip6:" : "",
		             s->host, s->port) < 0 ||
		    asprintf(&argv[argc++], "%s/%s.fio", dir, h->names[i]) < 0) {
			argv[argc - 1] = NULL;
			ret = iot_err_set(e, -ENOMEM, "out of memory");
			goto out;
		}
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, res->fio_log,
	                                 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	ret = posix_spawnp(&pid, fio, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (ret) {
		ret = iot_err_set(e, -ret, "cannot run '%s': %s", fio, strerror(ret));
		goto out;
	}
	/* wait; a stop request asks fio to stop its jobs (SIGINT: it tells the servers), then
	 * ends it if it takes more than 10 seconds; past the limit it gets SIGINT and, 2 s
	 * later, SIGKILL (a client waiting on a silent server ignores the first) */
	res->timeout_ns = fio_limit(o, res);
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		struct timespec nap = {0, 20000000};
		uint64_t now;

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			ret = iot_err_set(e, -errno, "waitpid: %s", strerror(errno));
			goto out;
		}
		now = iot_now_ns();
		if (!signalled && o->stop && *o->stop) {
			kill(pid, SIGINT);
			signalled = true;
			res->stopped = true;
			kill_at = now + 10000000000ull;
		} else if (!signalled && now - start >= res->timeout_ns) {
			kill(pid, SIGINT);
			signalled = true;
			res->timed_out = true;
			kill_at = now + 2000000000ull;
		} else if (signalled && now >= kill_at) {
			kill(pid, SIGKILL);
		}
		nanosleep(&nap, NULL);
	}
	res->fio_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	last_complaint(res->fio_log, res->fio_msg, sizeof(res->fio_msg));
	ret = 0;
out:
	for (unsigned i = 2; i < argc; i++)
		free(argv[i]);
	free(argv);
	return ret;
}

/* fio ran past its time limit and was stopped: -ETIMEDOUT, e naming the hosts and the log. */
static int timed_out(const struct fc_opts *o, const struct hostset *h, const struct fc_result *res,
                     struct iot_err *e)
{
	char hosts[256] = "", secs[40];

	for (unsigned i = 0; i < h->n; i++) {
		char name[300];
		size_t len = strlen(hosts);

		fc_slot_name(&o->slots[h->first_slot[i]], name, sizeof(name));
		if (len + strlen(name) + 3 < sizeof(hosts)) {
			strcat(hosts, i ? ", " : "");
			strcat(hosts, name);
		}
	}
	*numfmt_secs(secs, res->timeout_ns, 3) = '\0';
	return iot_err_set(e, -ETIMEDOUT,
	                   "fio did not finish within %s s and was stopped: does every server "
	                   "answer? (%s; --fio-timeout sets the limit, by default %u times the "
	                   "trace's span plus %u s; fio's output: %s)",
	                   secs, hosts, FC_TIMEOUT_FACTOR,
	                   (unsigned)(FC_TIMEOUT_SLACK_NS / 1000000000ull), res->fio_log);
}

int fc_run(const struct fc_opts *o, struct fc_result *res, struct iot_err *e)
{
	struct export_iolog_opts xo = o->xo;
	struct export_iolog_result xr;
	struct export_target *targets = NULL;
	struct hostset h;
	uint32_t *devs = NULL;
	unsigned ndevs = 0, *slot_of = NULL;
	char dir[PATH_MAX];
	int ret;

	memset(res, 0, sizeof(*res));
	memset(&xr, 0, sizeof(xr));
	memset(&h, 0, sizeof(h));
	if (!o->nslots)
		return iot_err_set(e, -EINVAL, "no --fio-client hosts");
	if ((ret = iot_mkdir_p(o->dir, e)))
		return ret;
	if (!realpath(o->dir, dir))
		return iot_err_set(e, -errno, "'%s': %s", o->dir, strerror(errno));
	if (asprintf(&res->fio_json, "%s/fio.json", dir) < 0 ||
	    asprintf(&res->fio_log, "%s/fio.log", dir) < 0)
		return iot_err_set(e, -ENOMEM, "out of memory");
	if ((ret = trace_devices(o, &devs, &ndevs, e)))
		goto out;
	if (!ndevs) {
		ret = iot_err_set(e, -EINVAL, "'%s': no %s events to replay", o->run,
		                  o->xo.from_queue ? "queue (Q)" : "issue (D)");
		goto out;
	}
	slot_of = calloc(ndevs, sizeof(*slot_of));
	targets = calloc(ndevs, sizeof(*targets));
	if (!slot_of || !targets || hostset_make(&h, o)) {
		ret = iot_err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	if ((ret = assign(o, devs, ndevs, slot_of, e)))
		goto out;
	xo.ntargets = 0;
	for (unsigned i = 0; i < ndevs; i++) {
		if (slot_of[i] == UINT32_MAX)
			continue;
		targets[xo.ntargets].dev = devs[i];
		targets[xo.ntargets].target = o->slots[slot_of[i]].target;
		targets[xo.ntargets].job = h.of_slot[slot_of[i]];
		xo.ntargets++;
	}
	xo.targets = targets;
	xo.only_targets = true;
	xo.njobs = h.n;
	xo.job_names = (const char *const *)h.names;
	xo.dir = dir;
	xo.job_dir = o->remote_dir;
	if ((ret = export_fio_iolog(o->run, &xo, &xr, e)))
		goto out;
	res->t0 = xr.t0;
	res->devs = calloc(xr.ndevs ? xr.ndevs : 1, sizeof(*res->devs));
	if (!res->devs) {
		ret = iot_err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (unsigned i = 0; i < xr.ndevs; i++) {
		const struct export_iolog_dev *d = &xr.devs[i];
		unsigned k;

		for (k = 0; k < ndevs && devs[k] != d->dev; k++)
			;
		if (k == ndevs || slot_of[k] == UINT32_MAX) {
			res->unmapped += d->left_out;
			continue;
		}
		if (!d->ios)
			continue;
		res->devs[res->ndevs].x = *d;
		res->devs[res->ndevs].slot = slot_of[k];
		res->ndevs++;
	}
	if (!res->ndevs) {
		ret = iot_err_set(e, -EINVAL, "no device of the trace is replayed (see --map)");
		goto out;
	}
	if (o->stop && *o->stop) {
		res->stopped = true;
		goto out;
	}
	if ((ret = run_fio(o, &h, dir, res, e)))
		goto out;
	if (res->timed_out) {
		ret = timed_out(o, &h, res, e);
		goto out;
	}
	ret = fc_parse_output(res->fio_json, res, e);
	if (ret && res->fio_status)
		ret = fio_failed(res->fio_log, res->stopped ? "fio was stopped" : "fio failed",
		                 -EIO, e);
out:
	export_iolog_result_release(&xr);
	hostset_release(&h);
	free(targets);
	free(slot_of);
	free(devs);
	return ret;
}

void fc_result_release(struct fc_result *res)
{
	free(res->devs);
	free(res->fio_json);
	free(res->fio_log);
	memset(res, 0, sizeof(*res));
}
