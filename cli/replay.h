/* SPDX-License-Identifier: MIT */
/* The replay command's parts: here on this machine (cmd-replay.c), across hosts (replay-fio.c). */
#ifndef IOTAPE_CLI_REPLAY_H
#define IOTAPE_CLI_REPLAY_H

#include "capture/capture.h"
#include "formats/blktrace.h"
#include "replay/replay.h"

/* The keys cli_getopt() returns for replay's long options (doc_replay, both parts): one table
 * for both, so the help and man page list every option once. */
enum {
	O_FROM = 256,
	O_TIMING,
	O_SPEED,
	O_BUFFERED,
	O_ALLOW_WRITES,
	O_WRITES_AS_READS,
	O_FORCE,
	O_ALLOW_MOUNTED,
	O_OFFSET,
	O_WRAP,
	O_SKIP_DISCARD,
	O_SKIP_WZERO,
	O_JSON,
	O_RECORD,
	O_NO_PROGRESS,
	O_NULL_LAT,
	O_SPIN,
	O_MAX_GAP,
	O_CAPTURE,
	O_FIO_CLIENT,
	O_FIO_HOSTS,
	O_FIO_DIR,
	O_FIO_REMOTE_DIR,
	O_FIO_BIN,
	O_FIO_TIMEOUT,
	O_NFS,
	O_PREPARE,
	O_NO_PREPARE,
	O_ROOT_FH,
	O_ROOT_PATH,
	O_ALLOW_DIVERGENCE,
	O_VERIFY,
};

/* What cmd-replay.c parsed for a replay of a packet capture (replay-nfs.c). */
struct replay_nfs_args {
	const char *target, *nfs_url, *root_fh, *root_path, *record_dir, *capture_dir, *verify;
	enum rp_timing timing;
	double speed;
	uint64_t spin_ns, max_gap_ns;
	unsigned depth;
	bool prepare, force, json, allow_divergence;
	int argc;
	char **argv;
};
/* --capture: the capture module in a thread of its own (capture/background.c), its messages
 * said by replay-capture.c */
struct replay_capture {
	struct cap_bg bg;
	char **devs;
};
/* Trace the n block devices devs (an array the capture takes: freed by _stop) and/or the
 * packets on iface into dir; returns 0 once events flow, else an exit code (said why). */
int replay_capture_start(struct replay_capture *c, const char *dir, char **devs, unsigned n,
                         const char *iface, int argc, char **argv);
/* Stop it; 0 or an exit code. */
int replay_capture_stop(struct replay_capture *c, bool quiet);

struct cli_input;
/* iotape replay CAPTURE (--target DIR | --nfs URL): the NFS calls (replay-nfs.c). */
int replay_nfs(struct replay_nfs_args *a, struct cli_input *ci);

/* iotape replay --fio-client/--fio-hosts: the whole command line (replay-fio.c). */
int replay_fio(int argc, char **argv);
/* The options a replay on this machine and one through fio share, parsed and checked in one
 * place (replay-opts.c) into the caller's fields: --depth, --speed, --offset, --force, --json. */
struct replay_shared_opts {
	unsigned *depth;
	double *speed;
	uint64_t *offset;
	bool *force, *json;
};
/* Option c into s: EXIT_OK, or an exit code after the error; -1 when c is none of them. */
int replay_shared_opt(const struct replay_shared_opts *s, int c);
/* The trace's device numbers into o (replay-opts.c). */
int replay_input_ids(struct bt_reader *rd, struct replay_opts *o);

#endif
