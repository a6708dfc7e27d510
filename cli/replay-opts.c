/* SPDX-License-Identifier: MIT */
/* The replay command's options and text, and what both of its parts (cmd-replay.c on this
 * machine, replay-fio.c across hosts) share, so neither calls the other. */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h> /* optarg */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/replay.h"

static const struct cli_opt replay_opts[] = {
    {.name = "target",
     .short_name = 't',
     .arg = "PATH",
     .kind = CLI_FILE,
     .help = "replay every device of the trace (not --map'ed) onto PATH; for an NFS capture, "
             "a directory (any filesystem) that the calls are replayed in",
     .group = "targets"},
    {.name = "nfs",
     .key = O_NFS,
     .arg = "URL",
     .help = "NFS capture: replay onto an NFS server through libnfs, "
             "nfs://HOST[:PORT]/EXPORT[?version=3|4]"},
    {.name = "map",
     .short_name = 'm',
     .arg = "SRCDEV=PATH",
     .help = "replay device SRCDEV (MAJ,MIN or a name) onto PATH; repeatable. Across hosts: "
             "SRCDEV=HOST[:PORT] (or =N, the number of a --fio-client) says which --fio-client "
             "replays it; without, the devices go in order of MAJ,MIN"},
    {.name = "offset", .key = O_OFFSET, .arg = "SIZE", .help = "add SIZE to every IO's position"},
    {.name = "wrap", .key = O_WRAP, .help = "wrap IOs past the end of a smaller target (counted)"},
    {.name = "from",
     .key = O_FROM,
     .arg = "WHICH",
     .values = "issue queue",
     .help = "issue: replay D events (default: what reached the device), or queue: Q events",
     .group = "input"},
    {.name = "timing",
     .key = O_TIMING,
     .arg = "MODE",
     .values = "original afap",
     .help = "original: trace times after the start (default), or afap: as fast as possible",
     .group = "timing"},
    {.name = "speed",
     .key = O_SPEED,
     .arg = "X",
     .help = "original timing, X times faster (at most 10^6; across hosts at least 0.01, "
             "fio's replay_time_scale being in percent)"},
    {.name = "spin",
     .key = O_SPIN,
     .arg = "DUR",
     .help = "spin (not sleep) the last DUR before each IO (default 250us, 80us under a "
             "real-time policy; see docs/replay.md)"},
    {.name = "max-gap",
     .key = O_MAX_GAP,
     .arg = "DUR",
     .help = "refuse a trace whose time leaps further than DUR between two IOs (a corrupt "
             "timestamp; default 24h, 0: no limit)"},
    {.name = "depth",
     .short_name = 'd',
     .arg = "N",
     .help = "at most N IOs in flight (default 256; the trace's own depth is kept by the "
             "dependency rule, see docs/replay.md)"},
    {.name = "engine",
     .short_name = 'e',
     .arg = "NAME",
     .values = "io_uring psync null",
     .help = "io_uring (default when available), psync (thread pool), null; across hosts, "
             "fio's ioengine: libaio (default), io_uring, psync or null",
     .group = "engine"},
    {.name = "buffered", .key = O_BUFFERED, .help = "no O_DIRECT"},
    {.name = "null-latency",
     .key = O_NULL_LAT,
     .arg = "DUR",
     .help = "null engine: each IO completes DUR after issue (default 0)"},
    {.name = "allow-writes",
     .key = O_ALLOW_WRITES,
     .help = "replay writes, discards and write-zeroes (a generated pattern)",
     .group = "safety"},
    {.name = "writes-as-reads",
     .key = O_WRITES_AS_READS,
     .help = "without --allow-writes, read where the trace wrote"},
    {.name = "force",
     .key = O_FORCE,
     .help = "replay onto a formatted target (a filesystem, RAID, LVM, LUKS, swap or "
             "partition-table signature); read-only replays also onto a mounted one"},
    {.name = "allow-mounted",
     .key = O_ALLOW_MOUNTED,
     .help = "replay writes onto a mounted or held target, which corrupts the filesystem or "
             "volume on it (refused even with --force)"},
    {.name = "skip-discard",
     .key = O_SKIP_DISCARD,
     .help = "count discards as skipped instead of replaying them"},
    {.name = "skip-write-zeroes", .key = O_SKIP_WZERO, .help = "same for write-zeroes"},
    {.name = "json", .key = O_JSON, .help = "the summary as JSON on stdout", .group = "output"},
    {.name = "record",
     .key = O_RECORD,
     .arg = "RUNDIR",
     .kind = CLI_DIR,
     .help = "write the replay's D and C events as blktrace sets + manifest; for an NFS "
             "capture, its calls as net.pcap + manifest (analyze, report, compare read it)"},
    {.name = "capture",
     .key = O_CAPTURE,
     .arg = "RUNDIR",
     .kind = CLI_DIR,
     .help = "trace the target devices with iotape capture while replaying; for an NFS "
             "capture, the target directory's block device or the NFS target's packets"},
    {.name = "no-progress",
     .key = O_NO_PROGRESS,
     .help = "no progress line (shown on a terminal otherwise)"},
    {.name = "prepare",
     .key = O_PREPARE,
     .help = "NFS capture: first create the files and directories the workload uses before "
             "it creates them, with the capture's sizes (default)",
     .group = "packet captures (NFS)"},
    {.name = "no-prepare", .key = O_NO_PREPARE, .help = "NFS capture: the target as it is"},
    {.name = "root-fh",
     .key = O_ROOT_FH,
     .arg = "HEX",
     .help = "NFS capture: the export's root handle, when the capture has no MOUNT reply or "
             "PUTROOTFH (default: the first unnamed directory handle, docs/replay-nfs.md)"},
    {.name = "root-path",
     .key = O_ROOT_PATH,
     .arg = "PATH",
     .help = "NFS capture: the capture's path that is the target's root (an NFSv4 export's "
             "pseudo path, /export); calls outside it are refused"},
    {.name = "verify",
     .key = O_VERIFY,
     .arg = "DIR|URL",
     .help = "NFS capture: afterwards compare the replayed tree with a reference (a directory "
             "or nfs://HOST/EXPORT): names, types, sizes, modes, link counts, symbolic link "
             "targets, device numbers, content hashes; differences listed, exit 1"},
    {.name = "allow-divergence",
     .key = O_ALLOW_DIVERGENCE,
     .help = "NFS capture: exit 0 although calls ended otherwise than in the capture (an "
             "error where it had none, or the reverse; default: exit 1)"},
    {.name = "fio-client",
     .key = O_FIO_CLIENT,
     .arg = "HOST[:PORT]=TARGET",
     .help = "a 'fio --server' on HOST (port 8765) replays one device of the trace onto "
             "TARGET there; repeatable",
     .group = "across hosts, through fio's client/server mode"},
    {.name = "fio-hosts",
     .key = O_FIO_HOSTS,
     .arg = "FILE",
     .kind = CLI_FILE,
     .help = "the same from a file: 'HOST[:PORT]=TARGET [SRCDEV...]' lines"},
    {.name = "fio-dir",
     .key = O_FIO_DIR,
     .arg = "DIR",
     .kind = CLI_DIR,
     .help = "the iologs, job files and fio's output (default: a new /tmp/iotape-fio.XXXXXX)"},
    {.name = "fio-remote-dir",
     .key = O_FIO_REMOTE_DIR,
     .arg = "DIR",
     .help = "where the servers see --fio-dir (default: the same path)"},
    {.name = "fio-bin",
     .key = O_FIO_BIN,
     .arg = "PATH",
     .kind = CLI_FILE,
     .help = "the fio to run (default: fio on PATH)"},
    {.name = "fio-timeout",
     .key = O_FIO_TIMEOUT,
     .arg = "DUR",
     .help = "stop fio and fail when it has not finished after DUR (default: 4 times the "
             "trace's span plus 60s; 0: never): a server that accepts and never answers "
             "keeps fio waiting"},
    {0},
};

const struct cli_doc doc_replay = {
    .summary = "replay a block trace or an NFS capture",
    .synopsis = "[OPTIONS] TRACE (--target PATH | --map SRCDEV=PATH ...)\n"
                "[OPTIONS] TRACE (--fio-client HOST[:PORT]=TARGET ... | --fio-hosts FILE)\n"
                "[OPTIONS] CAPTURE (--target DIR | --nfs URL)",
    .description =
        "Replay the IOs of a block trace (run directory, per-CPU set NAME, file, a fio iolog, "
        "or -) onto a block device or a regular file, on the trace's clock, and report the "
        "fidelity.\n"
        "\n"
        "Across hosts (--fio-client, --fio-hosts), fio's client/server mode replays the trace "
        "(docs/replay.md, 'Many hosts'); with it --from, --timing, --speed, --depth, --engine, "
        "--buffered, --offset, --allow-writes, --writes-as-reads, --force (targets on this "
        "machine) and --json apply.\n"
        "\n"
        "A packet capture (pcap, pcapng, compressed, or a run directory's net.pcap) replays its "
        "NFSv3 and NFSv4 calls as file operations: file handles named from the capture "
        "(TBBT-style), what the workload uses before it creates it prepared first, onto a "
        "directory with POSIX calls opened beneath it (--target DIR, any filesystem) or onto "
        "an NFS server (--nfs URL); the summary compares each procedure's count, outcome and "
        "latency with the capture's (docs/replay-nfs.md). There --timing, --speed, --spin, "
        "--max-gap, --depth (calls in flight, default 64), --force (a non-empty target), "
        "--json, --record and --capture (the target directory's block device, or the packets "
        "of an NFS target) apply; --verify compares the tree the replay left with a "
        "reference.",
    .opts = replay_opts,
    .operands = CLI_INPUT,
    .exit_status = "0 done, 1 an NFS replay's calls ended otherwise than in the capture (without "
                   "--allow-divergence) or its tree differs from --verify's, 2 usage or input "
                   "error, 3 system error or IOs that "
                   "failed (a block replay; an NFS replay's failed calls are results, compared "
                   "with the capture's), 128 + the signal when stopped",
    .docs = "replay.md replay-nfs.md",
    .see_also = "btreplay(8) fio(1)",
};

/* The trace's files by device and inode: the replay refuses them as targets (also
 * replay-fio.c's, for targets on this machine). */
int replay_input_ids(struct bt_reader *rd, struct replay_opts *o)
{
	const struct bt_stats *bs = bt_reader_stats(rd);
	struct rp_file_id *ids = calloc(bs->nfiles + 1, sizeof(*ids));
	struct stat st;
	unsigned n = 0;

	if (!ids)
		return -ENOMEM;
	for (unsigned i = 0; i < bs->nfiles; i++) {
		const char *p = bs->files[i].path;

		if (p && (strcmp(p, "-") ? !stat(p, &st) : !fstat(STDIN_FILENO, &st)) &&
		    S_ISREG(st.st_mode)) {
			ids[n].dev = st.st_dev;
			ids[n++].ino = st.st_ino;
		}
	}
	o->inputs = ids;
	o->ninputs = n;
	return 0;
}

int replay_shared_opt(const struct replay_shared_opts *s, int c)
{
	unsigned long long u;

	switch (c) {
	case 'd':
		if (parse_u64("--depth", optarg, &u))
			return EXIT_USAGE;
		if (!u || u > 4096)
			return usage_error("--depth: '%s' is not in 1..4096", optarg);
		*s->depth = (unsigned)u;
		return EXIT_OK;
	case O_SPEED:
		if (parse_double("--speed", optarg, s->speed))
			return EXIT_USAGE;
		if (!(*s->speed > 0) || *s->speed > 1e6)
			return usage_error("--speed: '%s' is not a positive factor", optarg);
		return EXIT_OK;
	case O_OFFSET:
		if (parse_size_bytes("--offset", optarg, &u))
			return EXIT_USAGE;
		*s->offset = u;
		return EXIT_OK;
	case O_FORCE:
		*s->force = true;
		return EXIT_OK;
	case O_JSON:
		*s->json = true;
		return EXIT_OK;
	default:
		return -1;
	}
}
