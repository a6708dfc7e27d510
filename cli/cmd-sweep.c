/* SPDX-License-Identifier: MIT */
/* iotape sweep: run a command (captured) over a parameter matrix; resume; progress. */
#include "cli/cli.h"
#include "common/stop.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h> /* optarg, optind */
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "common/fs.h"
#include "compare/compare.h"
#include "sweep/sweep.h"

static const struct cli_opt sweep_opts[] = {
    {.name = "output",
     .short_name = 'o',
     .arg = "SWEEPDIR",
     .kind = CLI_DIR,
     .help = "the sweep directory (created; must not hold a sweep already)"},
    {.name = "param",
     .short_name = 'p',
     .arg = "NAME=VALUES",
     .help = "a parameter: V1,V2,..., a range A..B[:xF|:+D] (size suffixes k m g t, binary: "
             "size=1k..4g:x2) or @FILE (one value a line); repeatable: the matrix is their "
             "product"},
    {.name = "reps",
     .short_name = 'r',
     .arg = "N",
     .help = "repetitions of every cell (default 1)"},
    {.name = "setup",
     .key = 'S',
     .arg = "CMD",
     .help = "shell command run before each run, untraced (mkfs, mount)"},
    {.name = "teardown",
     .key = 'T',
     .arg = "CMD",
     .help = "shell command run after each run, untraced (umount)"},
    {.name = "device",
     .short_name = 'd',
     .arg = "DEV",
     .kind = CLI_BLOCKDEV,
     .help = "block device to trace (repeatable; as capture -d)"},
    {.name = "interface",
     .short_name = 'i',
     .arg = "IFACE",
     .kind = CLI_IFACE,
     .help = "also capture packets on IFACE (as capture -i)"},
    {.name = "host",
     .key = 'H',
     .arg = "DEST[:DEV,...][:IFACE]",
     .help = "capture on the host DEST over ssh (repeatable; as capture --host): each run is a "
             "run set in RUN/set, a run per host, and each host is a dimension of the run "
             "(\"host\") in compare and report; not with -d or -i"},
    {.name = "capture-arg",
     .key = 'C',
     .arg = "ARG",
     .help = "one more option for 'iotape capture' (repeatable), e.g. "
             "--capture-arg=--backend=tracefs"},
    {.name = "no-capture",
     .key = 'N',
     .help = "run the command without tracing (time and metrics only)"},
    {.name = "metric",
     .short_name = 'm',
     .arg = "NAME[:UNIT]=REGEX|NAME[:UNIT]=json:PATH",
     .help = "a number from the command's output: the first capture group of the first match "
             "(stdout, then stderr), or a number in JSON on stdout (jobs[0].read.bw, "
             "[\"key.with.dots\"], jobs[*].write.iops sums); UNIT (B/s, KiB/s, B, s, ...) "
             "names it on compare's tables and the report's axes, bytes in MiB and MiB/s"},
    {.name = "order",
     .key = 'O',
     .arg = "ORDER",
     .values = "shuffled rounds sequential",
     .help = "shuffled (default: each round in a new random order, so a drift of the machine "
             "spreads over all cells), rounds, or sequential (all repetitions of a cell, then "
             "the next)"},
    {.name = "seed",
     .key = 's',
     .arg = "N",
     .help = "the shuffle's seed (printed at the start; repeats an order)"},
    {.name = "timeout",
     .key = 't',
     .arg = "DUR",
     .help = "stop a run's command after DUR (10s, 5m); the run fails"},
    {.name = "wait-tracer",
     .key = 'W',
     .arg = "DUR",
     .help = "how long a run's capture waits for the kernel's blk tracer while another "
             "capture holds it (default 10m; the wait is not part of --timeout)"},
    {.name = "dry-run",
     .key = 'D',
     .help = "print the runs in order, with their commands; run nothing"},
    {.name = "resume",
     .key = 'R',
     .arg = "SWEEPDIR",
     .kind = CLI_DIR,
     .help = "continue an interrupted sweep: finished runs are not run again"},
    {.name = "retry-failed", .key = 'F', .help = "with --resume: run the failed runs again too"},
    {0},
};

const struct cli_doc doc_sweep = {
    .summary = "run a command over a parameter matrix, each run captured",
    .synopsis = "-o SWEEPDIR [--param NAME=VALUES]... [--reps N] [--setup CMD] [--teardown CMD] "
                "[-d DEV]... [-i IFACE] [--host DEST[:DEV,...][:IFACE]]... [--capture-arg ARG]... "
                "[--no-capture] "
                "[--metric NAME[:UNIT]=REGEX|NAME[:UNIT]=json:PATH]... [--order "
                "shuffled|rounds|sequential] "
                "[--seed N] [--timeout DUR] [--wait-tracer DUR] [--dry-run] -- COMMAND "
                "[ARGS...]\n"
                "--resume SWEEPDIR [--retry-failed]",
    .description =
        "Run COMMAND once per cell of the parameter matrix and repetition, each run an "
        "'iotape capture' (or, with --no-capture, a plain timed run) in "
        "SWEEPDIR/NAME=VALUE/.../rep-K/ with the command's stdout, stderr, exit status, wall "
        "time and metrics. 'iotape compare SWEEPDIR' and 'iotape report SWEEPDIR' read it.\n"
        "\n"
        "In COMMAND, -d DEV, --host, --setup and --teardown, {NAME} is the cell's value of "
        "parameter "
        "NAME, {rep} the repetition and {run} the run directory; the commands also get "
        "NAME=VALUE and IOTAPE_SWEEP_DIR, IOTAPE_SWEEP_RUN, IOTAPE_SWEEP_CELL, "
        "IOTAPE_SWEEP_REP in their environment.",
    .opts = sweep_opts,
    .operands = CLI_COMMAND,
    .in_order = 1, /* options end at COMMAND, whose own options stay its own */
    .exit_status = "0 every run done, 1 some runs failed (the sweep went on), 2 usage or input "
                   "error, 3 system error (a capture that cannot start), 128+N when signal N "
                   "stopped it (resume with --resume).",
    .docs = "sweep.md",
    .see_also = "fio(1)",
};

static void hms(uint64_t ns, char *buf, size_t cap)
{
	unsigned long long s = (ns + 500000000ull) / 1000000000ull;

	if (s >= 3600)
		snprintf(buf, cap, "%lluh%02llum%02llus", s / 3600, s / 60 % 60, s % 60);
	else if (s >= 60)
		snprintf(buf, cap, "%llum%02llus", s / 60, s % 60);
	else
		snprintf(buf, cap, "%llus", s);
}

/* "fs=ext4/bs=4k" reads better as "fs=ext4 bs=4k" */
static const char *cell_text(const char *cell, char *buf, size_t cap)
{
	size_t i = 0;

	for (; cell[i] && i + 1 < cap; i++)
		buf[i] = cell[i] == '/' ? ' ' : cell[i];
	buf[i] = 0;
	return i ? buf : "(the one cell)";
}

static void on_event(void *arg, const struct sweep_event *ev)
{
	const struct sweep_def *d = arg;
	char cell[1024], el[32], eta[32];

	if (ev->kind == SWEEP_EV_NOTICE) {
		fprintf(stderr, "iotape: sweep: %s\n", ev->msg);
		return;
	}
	cell_text(ev->cell, cell, sizeof(cell));
	if (ev->kind == SWEEP_EV_START) {
		hms(ev->elapsed_ns, el, sizeof(el));
		if (ev->eta_ns)
			hms(ev->eta_ns, eta, sizeof(eta));
		else
			snprintf(eta, sizeof(eta), "?");
		fprintf(stderr,
		        "iotape: sweep: [%zu/%zu] round %u/%u  %s  rep %u  (elapsed %s, ETA %s)\n",
		        ev->index, ev->total, ev->slot->round, d->reps, cell, ev->slot->rep, el,
		        eta);
		return;
	}
	if (ev->kind == SWEEP_EV_SKIP) {
		if (ev->result->state == SWEEP_RUN_FAILED)
			fprintf(stderr,
			        "iotape: sweep: [%zu/%zu] %s rep %u failed before: %s (not "
			        "retried without --retry-failed)\n",
			        ev->index, ev->total, cell, ev->slot->rep, ev->result->error);
		return; /* finished runs pass silently */
	}
	if (ev->result->state == SWEEP_RUN_DONE) {
		const char *key;
		json_t *v;

		fprintf(stderr, "iotape: sweep: [%zu/%zu] %s rep %u: done, %.3f s", ev->index,
		        ev->total, cell, ev->slot->rep, (double)ev->result->wall_ns / 1e9);
		json_object_foreach(ev->result->metrics, key, v)
		{
			const char *unit = "";

			/* the number as the command gave it, in the unit its --metric names */
			for (size_t i = 0; i < d->nmetrics; i++)
				if (!strcmp(d->metric[i].name, key))
					unit = d->metric[i].unit;
			fprintf(stderr, "  %s=%.10g%s%s", key, json_number_value(v),
			        *unit ? " " : "", unit);
		}
		fputc('\n', stderr);
	} else {
		fprintf(stderr, "iotape: sweep: [%zu/%zu] %s rep %u: FAILED: %s (in '%s')\n",
		        ev->index, ev->total, cell, ev->slot->rep, ev->result->error, ev->rundir);
	}
}

static int set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = strdup(s);
	return *dst ? 0 : -1;
}

static int push(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 2) * sizeof(**v));

	if (!nv)
		return -1;
	*v = nv;
	nv[*n] = strdup(s);
	nv[++*n] = NULL;
	return nv[*n - 1] ? 0 : -1;
}

/* --dry-run: the plan, one run a line, with its command as the run would get it. */
static int dry_run(const struct sweep_def *d, const char *dir)
{
	struct sweep_slot *plan;
	struct iot_err e;
	size_t n;

	if (sweep_plan(d, &plan, &n, &e))
		return error("%s", e.msg), EXIT_SYSTEM;
	for (size_t i = 0; i < n; i++) {
		char rel[PATH_MAX], run[PATH_MAX + 64];

		sweep_run_path(d, plan[i].cell, plan[i].rep, rel, sizeof(rel));
		snprintf(run, sizeof(run), "%s/%s", dir, rel);
		printf("%zu\t%s\t", i + 1, rel);
		for (size_t k = 0; d->cmd[k]; k++) {
			char *a = sweep_subst(d, plan[i].cell, plan[i].rep, run, d->cmd[k]);

			printf("%s%s", k ? " " : "", a ? a : "?");
			free(a);
		}
		putchar('\n');
	}
	free(plan);
	return EXIT_OK;
}

static int run_sweep(const char *dir, const struct sweep_def *d, bool retry)
{
	struct sweep_runner r = {.dir = dir,
	                         .def = d,
	                         .retry_failed = retry,
	                         .stop = &iot_stop_sig,
	                         .event = on_event,
	                         .arg = (void *)d};
	char exe[PATH_MAX];
	struct iot_err e = {""};
	ssize_t n;
	int ret;

	/* the captures are this very binary; a path, so that ps and the kernel say "iotape" */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		snprintf(exe, sizeof(exe), "/proc/self/exe");
	else
		exe[n] = 0;
	r.exe = exe;
	/* a signal wakes the wait for the run and is forwarded to it; a SIGHUP as SIGTERM,
	 * which would kill a capture before it tidies up */
	iot_stop_catch(IOT_STOP_HUP);
	signal(SIGPIPE, SIG_IGN);
	ret = sweep_run(&r, &e);
	if (ret == -EINTR) {
		fprintf(stderr,
		        "iotape: sweep: stopped by signal %d after %zu runs; continue with "
		        "'iotape sweep --resume %s'\n",
		        (int)iot_stop_sig, r.ran, dir);
		return 128 + iot_stop_sig;
	}
	if (ret) {
		error("%s", e.msg);
		error("the sweep stopped; continue with 'iotape sweep --resume %s' once fixed",
		      dir);
		return EXIT_SYSTEM;
	}
	fprintf(stderr, "iotape: sweep: %zu runs now: %zu done, %zu failed", r.ran,
	        r.ran - r.failed, r.failed);
	if (r.skipped)
		fprintf(stderr, " (%zu finished before)", r.skipped);
	fprintf(stderr, "; the sweep has %zu of %zu runs done -> %s\n", r.total_done,
	        sweep_ncells(d) * d->reps, dir);
	if (r.total_failed) {
		fprintf(
		    stderr,
		    "iotape: sweep: %zu runs failed; run them again with 'iotape sweep --resume "
		    "%s --retry-failed'\n",
		    r.total_failed, dir);
		return EXIT_THRESHOLD;
	}
	return EXIT_OK;
}

/* A --metric named like one of compare's own (mbps, iops, p99, ...) or wall_s would be
 * ambiguous in compare's --fail-if and --metrics: refused before anything runs. */
static int metric_names_clash(const struct sweep_def *d)
{
	struct compare c;
	int clash = 0;

	compare_init(&c);
	for (size_t i = 0; i < d->nmetrics && !clash; i++) {
		int m = compare_metric_find(&c, d->metric[i].name);

		if (m >= 0 || !strcmp(d->metric[i].name, "wall_s"))
			clash = usage_error("--metric %s: iotape compare has a metric of that name "
			                    "(%s); choose another, e.g. cmd_%s",
			                    d->metric[i].name,
			                    m >= 0 ? c.metric[m].title : "the command's wall time",
			                    d->metric[i].name);
	}
	compare_release(&c);
	return clash;
}

static uint64_t random_seed(void)
{
	uint32_t v = 0;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v))
		v = (uint32_t)getpid() ^ (uint32_t)time(NULL);
	return v % 1000000; /* short enough to type back */
}

/* The command's own options, beside the sweep's definition. */
struct sweep_cli {
	const char *dir, *resume;
	size_t ndevs, nhosts, ncargs;
	bool retry, dry, seeded;
	bool defined; /* an option of the definition (all but -o, --resume, --retry-failed) */
};

/* Option opt into the definition d or s. An exit code. */
static int sweep_opt(struct sweep_def *d, struct sweep_cli *s, int opt, char **argv)
{
	struct iot_err e = {""};
	unsigned long long v;

	s->defined |= !strchr("oRF", opt);
	switch (opt) {
	case 'o':
		s->dir = optarg;
		break;
	case 'p':
		if (d->nparams >= SWEEP_MAX_PARAMS) {
			usage_error("more than %d --param", SWEEP_MAX_PARAMS);
			return EXIT_USAGE;
		}
		if (sweep_param_parse(optarg, &d->param[d->nparams], &e)) {
			usage_error("%s", e.msg);
			return EXIT_USAGE;
		}
		d->nparams++;
		break;
	case 'r':
		if (parse_u64("--reps", optarg, &v))
			return EXIT_USAGE;
		if (v < 1 || v > SWEEP_MAX_RUNS) {
			usage_error("--reps: %llu is out of range (1..%d)", v, SWEEP_MAX_RUNS);
			return EXIT_USAGE;
		}
		d->reps = (unsigned)v;
		break;
	case 'S':
		if (set_str(&d->setup, optarg))
			return error("out of memory"), EXIT_SYSTEM;
		break;
	case 'T':
		if (set_str(&d->teardown, optarg))
			return error("out of memory"), EXIT_SYSTEM;
		break;
	case 'd':
		if (push(&d->devs, &s->ndevs, optarg))
			return error("out of memory"), EXIT_SYSTEM;
		break;
	case 'H':
		if (push(&d->hosts, &s->nhosts, optarg))
			return error("out of memory"), EXIT_SYSTEM;
		break;
	case 'i':
		if (set_str(&d->iface, optarg))
			return error("out of memory"), EXIT_SYSTEM;
		break;
	case 'C':
		if (push(&d->capture_args, &s->ncargs, optarg))
			return error("out of memory"), EXIT_SYSTEM;
		break;
	case 'N':
		d->capture = false;
		break;
	case 'm': {
		struct sweep_metric *nm = realloc(d->metric, (d->nmetrics + 1) * sizeof(*nm));

		if (!nm)
			return error("out of memory"), EXIT_SYSTEM;
		d->metric = nm;
		if (sweep_metric_parse(optarg, &d->metric[d->nmetrics], &e)) {
			usage_error("%s", e.msg);
			return EXIT_USAGE;
		}
		d->nmetrics++;
		break;
	}
	case 'O':
		if (sweep_order_parse(optarg, &d->order)) {
			usage_error("--order: '%s' is not shuffled, rounds or sequential", optarg);
			return EXIT_USAGE;
		}
		break;
	case 's':
		if (parse_u64("--seed", optarg, &v))
			return EXIT_USAGE;
		if (v > INT64_MAX) {
			usage_error("--seed: %llu is too large", v);
			return EXIT_USAGE;
		}
		d->seed = v;
		s->seeded = true;
		break;
	case 't':
		if (parse_duration_ns("--timeout", optarg, &v))
			return EXIT_USAGE;
		d->timeout_ns = v;
		break;
	case 'W':
		if (parse_duration_ns("--wait-tracer", optarg, &v))
			return EXIT_USAGE;
		d->wait_tracer_ns = v;
		break;
	case 'D':
		s->dry = true;
		break;
	case 'R':
		s->resume = optarg;
		break;
	case 'F':
		s->retry = true;
		break;
	default:
		return bad_option(argv);
	}
	return EXIT_OK;
}

/* --resume DIR: the sweep in DIR, locked, goes on where it stopped. An exit code. */
static int resume_sweep(struct sweep_def *d, const struct sweep_cli *s, int argc, int *lockfd)
{
	struct iot_err e = {""};
	int ret;

	if (s->defined || s->dir || optind < argc)
		return usage_error("--resume takes the sweep's directory and --retry-failed only: "
		                   "the rest is in its sweep.json");
	if ((ret = sweep_open(s->resume, d, &e))) {
		error("%s", e.msg);
		return ret == -ENOENT ? EXIT_USAGE : exit_code_for(ret);
	}
	if ((ret = sweep_lock(s->resume, lockfd, &e))) {
		error("%s", e.msg);
		return ret == -EBUSY ? EXIT_SYSTEM : exit_code_for(ret);
	}
	fprintf(stderr,
	        "iotape: sweep: resuming '%s': %zu cells x %u repetitions, order %s "
	        "(seed %llu)\n",
	        s->resume, sweep_ncells(d), d->reps, sweep_order_name(d->order),
	        (unsigned long long)d->seed);
	return run_sweep(s->resume, d, s->retry);
}

/* A new sweep into s->dir (or its dry run): checked, written, locked and run. An exit code. */
static int new_sweep(struct sweep_def *d, const struct sweep_cli *s, int argc, char **argv,
                     int *lockfd)
{
	struct iot_err e = {""};
	int ret;

	if (!s->dir) {
		usage_error("missing -o SWEEPDIR");
		return EXIT_USAGE;
	}
	if (optind < argc) {
		size_t n = 0;

		for (int i = optind; i < argc; i++)
			if (push(&d->cmd, &n, argv[i]))
				return error("out of memory"), EXIT_SYSTEM;
	}
	if (!s->seeded)
		d->seed = random_seed();
	if (sweep_def_check(d, &e)) {
		usage_error("%s", e.msg);
		return EXIT_USAGE;
	}
	if (sweep_check_output(d, s->dir, &e)) {
		error("%s", e.msg);
		return EXIT_USAGE;
	}
	if (metric_names_clash(d))
		return EXIT_USAGE;
	d->argv = json_array();
	json_array_append_new(d->argv, json_string("iotape"));
	for (int i = 0; i < argc; i++)
		json_array_append_new(d->argv, json_string(argv[i]));
	if (s->dry)
		return dry_run(d, s->dir);
	if ((ret = iot_mkdir_p(s->dir, &e)) || (ret = sweep_lock(s->dir, lockfd, &e)) ||
	    (ret = sweep_create(s->dir, d, &e))) {
		error("%s", e.msg);
		return ret == -EEXIST ? EXIT_USAGE : EXIT_SYSTEM;
	}
	fprintf(stderr,
	        "iotape: sweep: %zu cells x %u repetitions = %zu runs, order %s (seed %llu: "
	        "--seed %llu repeats it) -> %s\n",
	        sweep_ncells(d), d->reps, sweep_ncells(d) * d->reps, sweep_order_name(d->order),
	        (unsigned long long)d->seed, (unsigned long long)d->seed, s->dir);
	return run_sweep(s->dir, d, false);
}

int cmd_sweep(int argc, char **argv)
{
	struct sweep_def d;
	struct sweep_cli s = {0};
	int opt, ret = EXIT_OK, lockfd = -1;

	sweep_def_init(&d);
	optind = 1;
	while ((opt = cli_getopt(argc, argv, &doc_sweep)) != -1)
		if ((ret = sweep_opt(&d, &s, opt, argv)) != EXIT_OK)
			goto out;
	if (s.resume)
		ret = resume_sweep(&d, &s, argc, &lockfd);
	else if (s.retry)
		ret = usage_error("--retry-failed goes with --resume");
	else
		ret = new_sweep(&d, &s, argc, argv, &lockfd);
out:
	if (lockfd >= 0)
		close(lockfd);
	sweep_def_release(&d);
	return ret;
}
