/* SPDX-License-Identifier: MIT */
/* iotape capture: trace block devices (and packets) while a command runs, into a run dir. */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h> /* optarg, optind, optopt */
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/blk_sink.h"
#include "capture/capture.h"
#include "capture/hosts.h"
#include "common/stop.h"
#include "common/units.h"

static const struct cli_opt capture_opts[] = {
    {.name = "output",
     .short_name = 'o',
     .arg = "RUNDIR",
     .kind = CLI_DIR,
     .help = "run directory (created; must not hold a capture already)"},
    {.name = "device",
     .short_name = 'd',
     .arg = "[NAME=]DEV",
     .kind = CLI_BLOCKDEV,
     .help = "block device or partition to trace (repeatable); NAME=DEV names it: the name "
             "identifies the device across runs (compare, sweep, report) and is kept as "
             "given, as is a symbolic link's path (/dev/disk/by-id/...)"},
    {.name = "interface",
     .short_name = 'i',
     .arg = "IFACE",
     .kind = CLI_IFACE,
     .help = "also capture packets on IFACE with libpcap"},
    {.name = "filter",
     .key = 'F',
     .arg = "EXPR",
     .help = "pcap filter: exactly its packets, whole (default: NFS/RPC, port 2049 or port 111, "
             "whole, and the first 128 bytes (headers) of every other TCP and UDP packet)"},
    {.name = "snaplen",
     .key = 'S',
     .arg = "SIZE",
     .help = "bytes kept per packet, 64 to 256k (default: 256k)"},
    {.name = "backend",
     .key = 'B',
     .arg = "B",
     .values = "auto bpf relay tracefs",
     .help = "auto (bpf, else relay, else tracefs), bpf, relay or tracefs (default: auto)"},
    {.name = "detail",
     .key = 'Y',
     .arg = "LEVEL",
     .values = "events io summary",
     .help = "bpf backend: every event, one IO per completion (as Q, D, C records) or "
             "in-kernel summaries only (default: events)"},
    {.name = "interval",
     .key = 'V',
     .arg = "DUR",
     .help = "--detail summary: the timeline's bin width the kernel keeps, as analyze's "
             "--interval (default 1s, at least 10ms)"},
    {.name = "idle-threshold",
     .key = 'H',
     .arg = "DUR",
     .help = "--detail summary: the shortest idle gap the kernel keeps, as analyze's "
             "--idle-threshold (default " BLK_DEFAULT_IDLE_TEXT ")"},
    {.name = "reader",
     .key = 'R',
     .arg = "R",
     .values = "raw pipe",
     .help = "tracefs ring-buffer reader: raw or pipe (default: raw)"},
    {.name = "buffer",
     .key = 'K',
     .arg = "SIZE",
     .help = "per-CPU trace buffer, 64k to 4g, whole KiB (default: 8m); was --buffer-kb N"},
    {.name = "backlog",
     .key = 'Z',
     .arg = "SIZE",
     .help = "--backend bpf, --detail events or io: records wait for an encoder thread that "
             "runs only on otherwise idle CPUs, at most SIZE of them (4m to 64g) before it "
             "runs at iotape's priority; 0: the reader thread encodes them at once "
             "(default: 256m)"},
    {.name = "wait-tracer",
     .key = 'W',
     .arg = "DUR",
     .help = "when another capture holds the kernel's blk tracer, wait up to DUR for it "
             "(default: fail at once, exit 3)"},
    {.name = "duration",
     .key = 'T',
     .arg = "DUR",
     .help = "stop after this long (e.g. 30s, 500ms, 2m)"},
    {.name = "mask",
     .short_name = 'a',
     .arg = "LIST",
     .help = "trace only these categories, as blktrace -a: e.g. issue,complete (fewer events "
             "per IO, less overhead)"},
    {.name = "label",
     .key = 'L',
     .arg = "KEY=VALUE",
     .help = "recorded in the manifest's \"labels\" (compare's --rows, --cols, --tables and "
             "--by take KEY; repeatable)"},
    {.name = "stdout",
     .key = 'O',
     .arg = "FILE",
     .kind = CLI_FILE,
     .help = "COMMAND's standard output goes to FILE"},
    {.name = "stderr",
     .key = 'E',
     .arg = "FILE",
     .kind = CLI_FILE,
     .help = "COMMAND's standard error goes to FILE (iotape's own messages stay on iotape's)"},
    {.name = "host",
     .key = 'U',
     .arg = "DEST[:DEV,...][:IFACE]",
     .help = "capture on the host DEST (an ssh destination: any ssh_config name) over ssh "
             "instead of here, its devices DEV (as -d) and packets on IFACE (repeatable): "
             "RUNDIR becomes a run set, a run per host in RUNDIR/DEST and runset.json "
             "(docs/capture.md \"Several hosts\"); COMMAND runs here (or --on); DEST::IFACE: "
             "packets only"},
    {.name = "on",
     .key = 'N',
     .arg = "DEST",
     .help = "--host: COMMAND runs on DEST over ssh (the same ssh setup) instead of here, "
             "its input /dev/null; an early stop of the capture stops it there too"},
    {.name = "hosts",
     .key = 'J',
     .arg = "FILE",
     .kind = CLI_FILE,
     .help = "--host for each line of FILE (DEST[:DEV,...][:IFACE]; '#' comments)"},
    {.name = "ssh-config",
     .key = 'G',
     .arg = "FILE",
     .kind = CLI_FILE,
     .help = "--host: ssh reads FILE (ssh -F FILE) instead of ~/.ssh/config"},
    {.name = "release",
     .key = 'X',
     .help = "capture nothing: put back the kernel tracer settings a capture killed with "
             "SIGKILL left, or say the tracer is free; with --host, on each host over ssh"},
    {0},
};

const struct cli_doc doc_capture = {
    .summary = "trace block devices and packets while a command runs",
    .synopsis =
        "-o RUNDIR -d [NAME=]DEV [-d [NAME=]DEV ...] [-i IFACE [--filter EXPR] [--snaplen SIZE]] "
        "[--backend auto|bpf|relay|tracefs] [--detail events|io|summary [--interval DUR] "
        "[--idle-threshold DUR]] "
        "[--reader raw|pipe] [--buffer SIZE] [--backlog SIZE] [-a LIST] [--duration DUR] "
        "[--wait-tracer DUR] [--label KEY=VALUE]... [--stdout FILE] [--stderr FILE] "
        "[-- COMMAND [ARGS...]]\n"
        "-o SET --host DEST[:DEV,...][:IFACE] [--host ...] [--hosts FILE] [--ssh-config FILE] "
        "[--on DEST] [--backend B] [--detail LEVEL] [...] [-- COMMAND [ARGS...]]\n"
        "--release [--host DEST... [--hosts FILE] [--ssh-config FILE]]",
    .description =
        "Trace the block devices (and packets on IFACE) while COMMAND runs, into RUNDIR: "
        "DEV.blktrace.CPU files (blktrace version 7: blkparse, btt and iowatcher read them), "
        "net.pcap (nanosecond timestamps) and manifest.json. Stops when COMMAND exits, after "
        "--duration, or on SIGINT/SIGTERM; COMMAND's exit status becomes iotape's.\n"
        "\n"
        "The bpf backend (the default where the kernel has BTF) records what the blk tracer "
        "records, with each IO's cgroup, through BPF programs that die with iotape (any "
        "number of captures at once); --detail io writes one IO per completion (Q, D, C), "
        "--detail summary no records at all: summary.json, which analyze, report and compare "
        "read, its bins and idle threshold those of --interval and --idle-threshold. At "
        "--detail events and io the reader thread only moves the records out of the "
        "kernel's buffer; an encoder thread that runs when a CPU is otherwise idle writes "
        "them (--backlog), and finishes after COMMAND ends.\n"
        "\n"
        "If iotape dies (even by SIGKILL), COMMAND gets SIGKILL.\n"
        "\n"
        "With --host, iotape checks every host over ssh first (reachable, the same iotape on "
        "its PATH, root, devices and interface there) and starts nothing while one cannot "
        "capture; then starts `iotape capture` on each (with this command's --backend, "
        "--detail, --interval, --idle-threshold, --reader, --buffer, --backlog, -a, --filter, "
        "--snaplen, --wait-tracer and "
        "--label), runs COMMAND here once all trace, stops them, and brings each run back "
        "over its ssh session into SET/DEST. SET/runset.json lists the hosts, each one's "
        "status (ok, or failed and why), its clock offset from ssh round trips and the "
        "alignment error; `iotape analyze SET` analyzes the hosts on one clock. A host that "
        "fails does not stop the others; the exit status is then 4. SIGINT or SIGTERM (or "
        "iotape's death) stops every host's capture: it ends with its ssh session.",
    .opts = capture_opts,
    .operands = CLI_COMMAND,
    .in_order = 1, /* options end at COMMAND, whose own options stay its own */
    .exit_status = "COMMAND's, 127 if it was not found, 126 if it could not run; 2 for bad "
                   "options or a missing device or interface; 3 for system errors (not root, "
                   "tracing unavailable or busy, disk full); with --host, 4 when a host's run "
                   "is missing or incomplete (runset.json says which and why).",
    .docs = "capture.md ceph.md",
    .see_also = "blktrace(8) tcpdump(8)",
};

static int progress_shown;

static void human(char *buf, size_t cap, double v)
{
	iot_fmt_bytes((uint64_t)v, buf, cap); /* the one unit system */
}

static void show_progress(void *arg, const struct cap_progress *p)
{
	char b[32];

	(void)arg;
	human(b, sizeof(b), (double)p->bytes);
	fprintf(stderr, "\r\033[Kiotape: capture: %.1fs  %llu events  %s  %llu lost",
	        (double)p->elapsed_ns / 1e9, (unsigned long long)p->events, b,
	        (unsigned long long)p->lost);
	if (p->packets)
		fprintf(stderr, "  %llu packets", (unsigned long long)p->packets);
	fflush(stderr);
	progress_shown = 1;
}

static void show_notice(void *arg, const char *msg)
{
	(void)arg;
	if (progress_shown)
		fputc('\n', stderr);
	progress_shown = 0;
	error("%s", msg);
}

/* Problems of the system (permissions, busy, resources) vs. problems of the input. */
static int capture_exit_code(int err)
{
	switch (-err) {
	case EPERM:
	case EACCES:
	case EBUSY:
	case ENOSPC:
	case EDQUOT:
	case EIO:
	case EROFS:
	case ENOMEM:
	case EMFILE:
	case ENFILE:
	case EOPNOTSUPP:
	case ENOSYS:
	case EAGAIN:
	case EINTR:
		return EXIT_SYSTEM;
	default:
		return EXIT_USAGE;
	}
}

/* --host: each host's capture; pass[] the options every remote capture gets */
struct hosts_cli {
	struct caph_host *hosts;
	unsigned n;
	const char *ssh_config;
	const char *on; /* --on DEST */
	char **pass;
	unsigned npass;
};

static void hosts_free(struct hosts_cli *h)
{
	for (unsigned i = 0; i < h->n; i++)
		caph_host_free(&h->hosts[i]);
	free(h->hosts);
	free(h->pass);
}

/* The option c with its value, for every host's `iotape capture`. */
static void pass_on(struct hosts_cli *h, int c, const char *val)
{
	static const struct {
		int key;
		const char *opt;
	} names[] = {{'B', "--backend"},     {'Y', "--detail"},   {'R', "--reader"},
	             {'K', "--buffer"},      {'Z', "--backlog"},  {'a', "-a"},
	             {'F', "--filter"},      {'S', "--snaplen"},  {'L', "--label"},
	             {'W', "--wait-tracer"}, {'V', "--interval"}, {'H', "--idle-threshold"}};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (names[i].key == c) {
			h->pass[h->npass++] = (char *)names[i].opt;
			h->pass[h->npass++] = (char *)val;
		}
	}
}

static void show_host_notice(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "iotape: capture: %s\n", msg);
}

static int capture_hosts(struct hosts_cli *hc, const struct cap_opts *co)
{
	struct caph_opts o = {.set = co->rundir,
	                      .hosts = hc->hosts,
	                      .nhosts = hc->n,
	                      .ssh_config = hc->ssh_config,
	                      .capture_args = hc->pass,
	                      .ncapture_args = hc->npass,
	                      .cmd = co->cmd,
	                      .on = hc->on,
	                      .duration_ns = co->duration_ns,
	                      .argc = co->argc,
	                      .argv = co->argv,
	                      .stop = co->stop,
	                      .notice = show_host_notice};
	struct caph_status *st = calloc(hc->n, sizeof(*st));
	struct caph_result res;
	struct iot_err e = {""};
	int ret;

	if (!st)
		return error("out of memory"), EXIT_SYSTEM;
	if ((ret = caph_run(&o, st, &res, &e))) {
		free(st);
		return error("%s", e.msg), ret == -EINVAL ? EXIT_USAGE : capture_exit_code(ret);
	}
	for (unsigned i = 0; i < hc->n; i++)
		if (!st[i].ok)
			error("host %s: %s", hc->hosts[i].dest, st[i].reason);
	if (res.cmd_error[0])
		error("cannot run %s", res.cmd_error);
	fprintf(stderr,
	        "iotape: capture: %u of %u hosts brought back, clocks aligned within %.3f ms -> "
	        "%s/%s\n",
	        res.nok, hc->n, (double)res.align_err_ns / 1e6, co->rundir, RUNSET_FILE);
	free(st);
	if (res.nok < hc->n)
		return 4; /* a part is missing */
	if (co->cmd && !res.cmd_ran && res.stop_signal)
		return 128 + res.stop_signal;
	return co->cmd ? res.cmd_status : EXIT_OK;
}

/* --release --host: `iotape capture --release` on every host; 0 when each one exited 0, else
 * the first failing host's status (255: ssh could not reach it). */
static int release_hosts(struct hosts_cli *hc)
{
	struct caph_opts o = {.hosts = hc->hosts,
	                      .nhosts = hc->n,
	                      .ssh_config = hc->ssh_config,
	                      .notice = show_host_notice};
	struct caph_status *st = calloc(hc->n, sizeof(*st));
	struct iot_err e;
	int ret = EXIT_OK;

	if (!st)
		return error("out of memory"), EXIT_SYSTEM;
	if (caph_release(&o, st, &e)) {
		free(st);
		return error("%s", e.msg), EXIT_SYSTEM;
	}
	for (unsigned i = 0; i < hc->n; i++) {
		if (st[i].ok)
			continue;
		error("host %s: %s", hc->hosts[i].dest,
		      st[i].capture_exit < 0 ? st[i].reason : "its release failed");
		if (ret == EXIT_OK)
			ret = st[i].capture_exit < 0 ? 255 : st[i].capture_exit;
	}
	free(st);
	return ret;
}

/* names[] has a slot per -d: the copies of their NAMEs, or NULL */
static void free_all(char **devs, char **labels, char **names)
{
	for (size_t i = 0; names && devs && devs[i]; i++)
		free(names[i]);
	free(devs);
	free(labels);
	free(names);
}

/* The command line: the capture's options, the hosts', and the arrays they point into. */
struct capture_cli {
	struct cap_opts o;
	struct hosts_cli hc;
	char **devs, **labels, **names;
	bool release, release_given;
};

/* Option c into k: EXIT_OK, or an exit code after the error. */
/* How the block trace is taken (backend, detail, buffers, actions): EXIT_OK, an exit code after
 * the error, or -1 when c is none of these. */
static int trace_opt(struct cap_opts *o, int c)
{
	struct iot_err e = {""};
	unsigned long long v;

	switch (c) {
	case 'B':
		if (cap_backend_parse(optarg, &o->backend)) {
			bad_value('B', optarg);
			return EXIT_USAGE;
		}
		break;
	case 'Y':
		if (cap_detail_parse(optarg, &o->detail)) {
			bad_value('Y', optarg);
			return EXIT_USAGE;
		}
		break;
	case 'V':
		if (parse_duration_ns("--interval", optarg, &v))
			return EXIT_USAGE;
		if (v < BLK_SUMMARY_MIN_INTERVAL_NS || v > 3600000000000ull) {
			usage_error("--interval: '%s' is out of range (10ms..1h)", optarg);
			return EXIT_USAGE;
		}
		o->sum_interval_ns = v;
		break;
	case 'H':
		if (parse_duration_ns("--idle-threshold", optarg, &v))
			return EXIT_USAGE;
		if (!v || v > 3600000000000ull) {
			usage_error("--idle-threshold: '%s' is out of range (more than 0, "
			            "at most 1h)",
			            optarg);
			return EXIT_USAGE;
		}
		o->sum_idle_ns = v;
		break;
	case 'R':
		if (cap_reader_parse(optarg, &o->reader)) {
			bad_value('R', optarg);
			return EXIT_USAGE;
		}
		break;
	case 'K':
		if (parse_size_bytes("--buffer", optarg, &v))
			return EXIT_USAGE;
		if (v < (64u << 10) || v > (4ull << 30) || v % 1024) {
			usage_error("--buffer: %s is not 64k to 4g in whole KiB", optarg);
			return EXIT_USAGE;
		}
		o->buffer_kb = (unsigned)(v >> 10);
		break;
	case 'Z':
		if (parse_size_bytes("--backlog", optarg, &v))
			return EXIT_USAGE;
		if (v && (v < (4u << 20) || v > (64ull << 30))) {
			usage_error("--backlog: %s is not 0 or 4m to 64g", optarg);
			return EXIT_USAGE;
		}
		o->backlog_bytes = v ? v : CAP_BACKLOG_INLINE;
		break;
	case 'a':
		if (cap_mask_parse(optarg, &o->act_mask, &e)) {
			usage_error("-a: %s (names: read write flush sync queue requeue "
			            "issue complete fs pc notify ahead meta discard "
			            "drv_data fua)",
			            e.msg);
			return EXIT_USAGE;
		}
		break;
	default:
		return -1;
	}
	return EXIT_OK;
}

static int capture_opt(struct capture_cli *k, int c, char **argv)
{
	struct cap_opts *o = &k->o;
	struct iot_err e = {""};
	unsigned long long v;
	int ret = trace_opt(o, c);

	if (ret >= 0)
		return ret;
	switch (c) {
	case 'U':
		if ((k->release_given ? caph_parse_dest : caph_parse)(optarg, &k->hc.hosts[k->hc.n],
		                                                      &e)) {
			usage_error("%s", e.msg);
			return EXIT_USAGE;
		}
		k->hc.n++;
		break;
	case 'J':
		if (caph_parse_file(optarg, k->hc.hosts, CAPH_MAX_HOSTS, &k->hc.n, &e)) {
			usage_error("%s", e.msg);
			return EXIT_USAGE;
		}
		break;
	case 'G':
		k->hc.ssh_config = optarg;
		break;
	case 'N':
		k->hc.on = optarg;
		break;
	case 'o':
		o->rundir = optarg;
		break;
	case 'd': {
		/* NAME=DEV: an '=' before any '/' (no device path or kernel name has one)
		 */
		char *eq = strchr(optarg, '=');

		if (eq && eq < optarg + strcspn(optarg, "/")) {
			if (eq == optarg || !eq[1]) {
				usage_error("-d: '%s' is not NAME=DEV", optarg);
				return EXIT_USAGE;
			}
			/* a copy: argv stays whole for the manifest's iotape_argv */
			if (!(k->names[o->ndevs] = strndup(optarg, (size_t)(eq - optarg))))
				return error("out of memory"), EXIT_SYSTEM;
			optarg = eq + 1;
		}
		k->devs[o->ndevs++] = optarg;
		break;
	}
	case 'i':
		o->iface = optarg;
		break;
	case 'F':
		o->filter = optarg;
		break;
	case 'S':
		if (parse_size_bytes("--snaplen", optarg, &v))
			return EXIT_USAGE;
		if (v < 64 || v > 262144) {
			usage_error("--snaplen: %s is out of range (64 to 256k)", optarg);
			return EXIT_USAGE;
		}
		o->snaplen = (unsigned)v;
		break;
	case 'T':
		if (parse_duration_ns("--duration", optarg, &v))
			return EXIT_USAGE;
		/* 0 would be none; the end is computed on the monotonic clock */
		if (!v || v > 1000000000000000000ull) {
			usage_error("--duration: '%s' is out of range", optarg);
			return EXIT_USAGE;
		}
		o->duration_ns = v;
		break;
	case 'X':
		k->release = true;
		break;
	case 'W':
		if (parse_duration_ns("--wait-tracer", optarg, &v))
			return EXIT_USAGE;
		o->wait_ns = v;
		break;
	case 'L': {
		const char *eq = strchr(optarg, '=');

		if (!eq || eq == optarg || eq - optarg > 255) {
			usage_error("--label: '%s' is not KEY=VALUE", optarg);
			return EXIT_USAGE;
		}
		k->labels[o->nlabels++] = optarg;
		break;
	}
	case 'O':
		o->cmd_stdout = optarg;
		break;
	case 'E':
		o->cmd_stderr = optarg;
		break;
	default:
		if (optopt && strchr("odia", optopt))
			usage_error("option '-%c' needs a value", optopt);
		else
			bad_option(argv);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* --release, here or on the hosts: an exit code. */
static int release(struct capture_cli *k, int argc)
{
	struct iot_err e = {""};
	char msg[256];
	int ret;

	if (k->hc.n) {
		if (k->o.rundir || k->o.ndevs || k->o.iface || optind < argc || k->hc.on ||
		    k->hc.npass || k->o.duration_ns)
			return usage_error("--release with --host takes only --host, --hosts and "
			                   "--ssh-config");
		return release_hosts(&k->hc);
	}
	if (argc != 2)
		return usage_error("--release takes no other option or command");
	if ((ret = cap_tracefs_release(msg, sizeof(msg), &e)))
		return error("%s", e.msg), capture_exit_code(ret);
	fprintf(stderr, "iotape: capture: %s\n", msg);
	return EXIT_OK;
}

/* The options that do not go together, and COMMAND (argv from optind): EXIT_OK or
 * EXIT_USAGE after the error. */
static int check_opts(struct capture_cli *k, int argc, char **argv)
{
	struct cap_opts *o = &k->o;
	const struct hosts_cli *hc = &k->hc;

	if (!o->rundir)
		return usage_error("missing -o RUNDIR");
	if (hc->n && (o->ndevs || o->iface || o->cmd_stdout || o->cmd_stderr))
		return usage_error(
		    "--host captures on the hosts only: -d, -i, --stdout and --stderr do "
		    "not go with it (a host of its own, --host localhost:..., captures here)");
	if (hc->ssh_config && !hc->n)
		return usage_error("--ssh-config needs --host");
	if (hc->on && (!hc->n || optind >= argc))
		return usage_error("--on needs --host and a COMMAND");
	if (!hc->n && !o->ndevs && !o->iface)
		return usage_error("nothing to capture: give -d DEV (and/or -i IFACE)");
	/* the other levels record every IO: analyze chooses bins and threshold afterwards */
	if ((o->sum_interval_ns || o->sum_idle_ns) && o->detail != CAP_DETAIL_SUMMARY)
		return usage_error(
		    "--interval and --idle-threshold are what --detail summary keeps; "
		    "the other levels record every IO (analyze --interval chooses later)");
	if ((o->filter || o->snaplen) && !o->iface && !hc->n)
		return usage_error("--filter and --snaplen need -i IFACE");
	if (optind < argc) {
		o->cmd = argv + optind;
	} else if (!o->duration_ns && !isatty(STDIN_FILENO)) {
		/* without a command, only a signal ends the capture: fine on a terminal */
		warning("no COMMAND and no --duration: capturing until SIGINT or SIGTERM");
	}
	if ((o->cmd_stdout || o->cmd_stderr) && !o->cmd)
		return usage_error("--stdout and --stderr need a COMMAND");
	return EXIT_OK;
}

/* The capture on this host, its figures said: COMMAND's exit status, or an exit code. */
static int capture_here(struct cap_opts *o)
{
	struct cap_result res;
	struct iot_err e = {""};
	uint64_t lost;
	int ret = cap_run(o, &res, &e);

	if (progress_shown)
		fputc('\n', stderr);
	if (ret)
		return error("%s", e.msg), capture_exit_code(ret);
	lost = res.lost;
	if (lost)
		warning("%llu block events lost (ring-buffer overrun %llu, dropped %llu, seen by "
		        "the reader %llu, relay %llu); try a larger --buffer",
		        (unsigned long long)lost, (unsigned long long)res.overrun,
		        (unsigned long long)res.dropped, (unsigned long long)res.reader_lost,
		        (unsigned long long)res.relay_dropped);
	if (res.totals.pkt_drops || res.ifdrop)
		warning("%llu packets dropped by the kernel, %llu by the interface",
		        (unsigned long long)res.totals.pkt_drops, (unsigned long long)res.ifdrop);
	if (res.cmd_error[0])
		error("cannot run %s", res.cmd_error);
	if (res.late_err) {
		error("%s (the capture stopped; what was captured until then is in '%s')",
		      res.late_msg[0] ? res.late_msg : "capture failed", o->rundir);
		return EXIT_SYSTEM;
	}
	fprintf(stderr, "iotape: capture: %llu events, %llu packets, %llu lost -> %s\n",
	        (unsigned long long)res.totals.events, (unsigned long long)res.totals.packets,
	        (unsigned long long)lost, o->rundir);
	if (o->cmd && !res.cmd_ran && res.stop_signal)
		return 128 + res.stop_signal; /* interrupted before COMMAND started */
	if (o->cmd)
		return res.cmd_status;
	return EXIT_OK;
}

int cmd_capture(int argc, char **argv)
{
	struct capture_cli k = {0};
	int c, ret = EXIT_OK;

	k.devs = calloc((size_t)argc + 1, sizeof(char *));
	k.labels = calloc((size_t)argc + 1, sizeof(char *));
	k.names = calloc((size_t)argc + 1, sizeof(char *));
	k.hc.hosts = calloc((size_t)argc + CAPH_MAX_HOSTS + 1, sizeof(*k.hc.hosts));
	k.hc.pass = calloc((size_t)argc * 2 + 1, sizeof(char *));
	if (!k.devs || !k.labels || !k.names || !k.hc.hosts || !k.hc.pass) {
		ret = (error("out of memory"), EXIT_SYSTEM);
		goto out;
	}
	k.o.devs = k.devs;
	k.o.names = k.names;
	k.o.labels = k.labels;
	k.o.argc = argc;
	k.o.argv = argv;
	/* --release --host DEST: a destination alone is enough (nothing is captured there) */
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		k.release_given |= !strcmp(argv[i], "--release");
	optind = 1;
	while ((c = cli_getopt(argc, argv, &doc_capture)) != -1) {
		pass_on(&k.hc, c, optarg);
		if ((ret = capture_opt(&k, c, argv)))
			goto out;
	}
	if (k.release) {
		ret = release(&k, argc);
		goto out;
	}
	if ((ret = check_opts(&k, argc, argv)))
		goto out;
	iot_stop_catch(0); /* a second signal too waits for the run to be tidied up */
	signal(SIGPIPE, SIG_IGN);
	k.o.stop = &iot_stop_sig;
	k.o.notice = show_notice;
	if (isatty(STDERR_FILENO))
		k.o.progress = show_progress;
	ret = k.hc.n ? capture_hosts(&k.hc, &k.o) : capture_here(&k.o);
out:
	free_all(k.devs, k.labels, k.names);
	hosts_free(&k.hc);
	return ret;
}
