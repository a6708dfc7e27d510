/* SPDX-License-Identifier: MIT */
/* iotape capture: trace block devices (and packets) while a command runs, into a run dir. */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h> /* optarg, optind, optopt */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    {.name = "snaplen", .key = 'S', .arg = "N", .help = "bytes kept per packet (default: 262144)"},
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
    {.name = "reader",
     .key = 'R',
     .arg = "R",
     .values = "raw pipe",
     .help = "tracefs ring-buffer reader: raw or pipe (default: raw)"},
    {.name = "buffer-kb",
     .key = 'K',
     .arg = "N",
     .help = "per-CPU trace buffer in KiB (default: 8192)"},
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
             "(docs/capture.md \"Several hosts\"); COMMAND runs here"},
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
             "SIGKILL left, or say the tracer is free"},
    {0},
};

const struct cli_doc doc_capture = {
    .summary = "trace block devices and packets while a command runs",
    .synopsis =
        "-o RUNDIR -d [NAME=]DEV [-d [NAME=]DEV ...] [-i IFACE [--filter EXPR] [--snaplen N]] "
        "[--backend auto|bpf|relay|tracefs] [--detail events|io|summary] "
        "[--reader raw|pipe] [--buffer-kb N] [-a LIST] [--duration DUR] "
        "[--wait-tracer DUR] [--label KEY=VALUE]... [--stdout FILE] [--stderr FILE] "
        "[-- COMMAND [ARGS...]]\n"
        "-o SET --host DEST[:DEV,...][:IFACE] [--host ...] [--hosts FILE] [--ssh-config FILE] "
        "[--backend B] [--detail LEVEL] [...] [-- COMMAND [ARGS...]]\n"
        "--release",
    .description =
        "Trace the block devices (and packets on IFACE) while COMMAND runs, into RUNDIR: "
        "DEV.blktrace.CPU files (blktrace version 7: blkparse, btt and iowatcher read them), "
        "net.pcap (nanosecond timestamps) and manifest.json. Stops when COMMAND exits, after "
        "--duration, or on SIGINT/SIGTERM; COMMAND's exit status becomes iotape's.\n"
        "\n"
        "The bpf backend (the default where the kernel has BTF) records what the blk tracer "
        "records, with each IO's cgroup, through BPF programs that die with iotape (any "
        "number of captures at once); --detail io writes one IO per completion (Q, D, C), "
        "--detail summary no records at all: summary.json, which analyze reads.\n"
        "\n"
        "If iotape dies (even by SIGKILL), COMMAND gets SIGKILL.\n"
        "\n"
        "With --host, iotape checks every host over ssh first (reachable, the same iotape on "
        "its PATH, root, devices and interface there) and starts nothing while one cannot "
        "capture; then starts `iotape capture` on each (with this command's --backend, "
        "--detail, --reader, --buffer-kb, -a, --filter, --snaplen, --wait-tracer and "
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
	} names[] = {{'B', "--backend"},   {'Y', "--detail"}, {'R', "--reader"},
	             {'K', "--buffer-kb"}, {'a', "-a"},       {'F', "--filter"},
	             {'S', "--snaplen"},   {'L', "--label"},  {'W', "--wait-tracer"}};

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
	        res.nok, hc->n, (double)res.align_err_ns / 1e6, co->rundir, CAPH_RUNSET_FILE);
	free(st);
	if (res.nok < hc->n)
		return 4; /* a part is missing */
	if (co->cmd && !res.cmd_ran && res.stop_signal)
		return 128 + res.stop_signal;
	return co->cmd ? res.cmd_status : EXIT_OK;
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

int cmd_capture(int argc, char **argv)
{
	struct cap_opts o = {0};
	struct cap_result res;
	struct iot_err e = {""};
	char **devs = calloc((size_t)argc + 1, sizeof(char *));
	char **labels = calloc((size_t)argc + 1, sizeof(char *));
	char **names = calloc((size_t)argc + 1, sizeof(char *));
	unsigned long long v;
	uint64_t lost;
	int c, ret, release = 0;
	struct hosts_cli hc = {0};

	hc.hosts = calloc((size_t)argc + CAPH_MAX_HOSTS + 1, sizeof(*hc.hosts));
	hc.pass = calloc((size_t)argc * 2 + 1, sizeof(char *));
	if (!devs || !labels || !names || !hc.hosts || !hc.pass) {
		hosts_free(&hc);
		free(devs);
		free(labels);
		free(names);
		return error("out of memory"), EXIT_SYSTEM;
	}
	o.devs = devs;
	o.names = names;
	o.labels = labels;
	o.argc = argc;
	o.argv = argv;
	optind = 1;
	while ((c = cli_getopt(argc, argv, &doc_capture)) != -1) {
		pass_on(&hc, c, optarg);
		switch (c) {
		case 'U':
			if (caph_parse(optarg, &hc.hosts[hc.n], &e)) {
				usage_error("%s", e.msg);
				goto usage;
			}
			hc.n++;
			break;
		case 'J':
			if (caph_parse_file(optarg, hc.hosts, CAPH_MAX_HOSTS, &hc.n, &e)) {
				usage_error("%s", e.msg);
				goto usage;
			}
			break;
		case 'G':
			hc.ssh_config = optarg;
			break;
		case 'o':
			o.rundir = optarg;
			break;
		case 'd': {
			/* NAME=DEV: an '=' before any '/' (no device path or kernel name has one)
			 */
			char *eq = strchr(optarg, '=');

			if (eq && eq < optarg + strcspn(optarg, "/")) {
				if (eq == optarg || !eq[1]) {
					usage_error("-d: '%s' is not NAME=DEV", optarg);
					goto usage;
				}
				/* a copy: argv stays whole for the manifest's iotape_argv */
				if (!(names[o.ndevs] = strndup(optarg, (size_t)(eq - optarg)))) {
					error("out of memory");
					free_all(devs, labels, names);
					hosts_free(&hc);
					return EXIT_SYSTEM;
				}
				optarg = eq + 1;
			}
			devs[o.ndevs++] = optarg;
			break;
		}
		case 'i':
			o.iface = optarg;
			break;
		case 'F':
			o.filter = optarg;
			break;
		case 'S':
			if (parse_u64("--snaplen", optarg, &v))
				goto usage;
			if (v < 64 || v > 262144) {
				usage_error("--snaplen: %llu is out of range (64..262144)", v);
				goto usage;
			}
			o.snaplen = (unsigned)v;
			break;
		case 'B':
			if (cap_backend_parse(optarg, &o.backend)) {
				bad_value('B', optarg);
				goto usage;
			}
			break;
		case 'Y':
			if (cap_detail_parse(optarg, &o.detail)) {
				bad_value('Y', optarg);
				goto usage;
			}
			break;
		case 'R':
			if (cap_reader_parse(optarg, &o.reader)) {
				bad_value('R', optarg);
				goto usage;
			}
			break;
		case 'K':
			if (parse_u64("--buffer-kb", optarg, &v))
				goto usage;
			if (v < 64 || v > (1u << 22)) {
				usage_error("--buffer-kb: %llu is out of range (64..4194304)", v);
				goto usage;
			}
			o.buffer_kb = (unsigned)v;
			break;
		case 'a':
			if (cap_mask_parse(optarg, &o.act_mask, &e)) {
				usage_error("-a: %s (names: read write flush sync queue requeue "
				            "issue complete fs pc notify ahead meta discard "
				            "drv_data fua)",
				            e.msg);
				goto usage;
			}
			break;
		case 'T':
			if (parse_duration_ns("--duration", optarg, &v))
				goto usage;
			/* 0 would be none; the end is computed on the monotonic clock */
			if (!v || v > 1000000000000000000ull) {
				usage_error("--duration: '%s' is out of range", optarg);
				goto usage;
			}
			o.duration_ns = v;
			break;
		case 'X':
			release = 1;
			break;
		case 'W':
			if (parse_duration_ns("--wait-tracer", optarg, &v))
				goto usage;
			o.wait_ns = v;
			break;
		case 'L': {
			const char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg || eq - optarg > 255) {
				usage_error("--label: '%s' is not KEY=VALUE", optarg);
				goto usage;
			}
			labels[o.nlabels++] = optarg;
			break;
		}
		case 'O':
			o.cmd_stdout = optarg;
			break;
		case 'E':
			o.cmd_stderr = optarg;
			break;
		default:
			if (optopt && strchr("odia", optopt))
				usage_error("option '-%c' needs a value", optopt);
			else
				bad_option(argv);
			goto usage;
		}
	}
	if (release) {
		char msg[256];

		free_all(devs, labels, names);
		hosts_free(&hc);
		if (argc != 2)
			return usage_error("--release takes no other option or command");
		if ((ret = cap_tracefs_release(msg, sizeof(msg), &e)))
			return error("%s", e.msg), capture_exit_code(ret);
		fprintf(stderr, "iotape: capture: %s\n", msg);
		return EXIT_OK;
	}
	if (!o.rundir) {
		usage_error("missing -o RUNDIR");
		goto usage;
	}
	if (hc.n && (o.ndevs || o.iface || o.cmd_stdout || o.cmd_stderr)) {
		usage_error(
		    "--host captures on the hosts only: -d, -i, --stdout and --stderr do "
		    "not go with it (a host of its own, --host localhost:..., captures here)");
		goto usage;
	}
	if (hc.ssh_config && !hc.n) {
		usage_error("--ssh-config needs --host");
		goto usage;
	}
	if (!hc.n && !o.ndevs && !o.iface) {
		usage_error("nothing to capture: give -d DEV (and/or -i IFACE)");
		goto usage;
	}
	if ((o.filter || o.snaplen) && !o.iface && !hc.n) {
		usage_error("--filter and --snaplen need -i IFACE");
		goto usage;
	}
	if (optind < argc) {
		o.cmd = argv + optind;
	} else if (!o.duration_ns && !isatty(STDIN_FILENO)) {
		/* without a command, only a signal ends the capture: fine on a terminal */
		warning("no COMMAND and no --duration: capturing until SIGINT or SIGTERM");
	}

	iot_stop_catch(0); /* a second signal too waits for the run to be tidied up */
	signal(SIGPIPE, SIG_IGN);
	o.stop = &iot_stop_sig;
	o.notice = show_notice;
	if (isatty(STDERR_FILENO))
		o.progress = show_progress;

	if ((o.cmd_stdout || o.cmd_stderr) && !o.cmd) {
		usage_error("--stdout and --stderr need a COMMAND");
		goto usage;
	}
	if (hc.n) {
		free_all(devs, labels, names);
		ret = capture_hosts(&hc, &o);
		hosts_free(&hc);
		return ret;
	}
	hosts_free(&hc);
	ret = cap_run(&o, &res, &e);
	if (progress_shown)
		fputc('\n', stderr);
	free_all(devs, labels, names);
	if (ret)
		return error("%s", e.msg), capture_exit_code(ret);
	lost = res.lost;
	if (lost)
		warning("%llu block events lost (ring-buffer overrun %llu, dropped %llu, seen by "
		        "the reader %llu, relay %llu); try a larger --buffer-kb",
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
		      res.late_msg[0] ? res.late_msg : "capture failed", o.rundir);
		return EXIT_SYSTEM;
	}
	fprintf(stderr, "iotape: capture: %llu events, %llu packets, %llu lost -> %s\n",
	        (unsigned long long)res.totals.events, (unsigned long long)res.totals.packets,
	        (unsigned long long)lost, o.rundir);
	if (o.cmd && !res.cmd_ran && res.stop_signal)
		return 128 + res.stop_signal; /* interrupted before COMMAND started */
	if (o.cmd)
		return res.cmd_status;
	return EXIT_OK;
usage:
	free_all(devs, labels, names);
	hosts_free(&hc);
	return EXIT_USAGE;
}
