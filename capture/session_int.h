/* SPDX-License-Identifier: MIT */
/* One capture's state, shared by the files of cap_run() (session*.c) only. */
#ifndef IOTAPE_CAPTURE_SESSION_INT_H
#define IOTAPE_CAPTURE_SESSION_INT_H

#include <jansson.h>
#include <stddef.h>

#include "capture/cap_int.h"

/* A capture while it runs: what cap_run() started, so that its end undoes each part. */
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

/* ---- the run directory and the outputs (session_dir.c) ------------------------------- */

/* A run directory is created if missing (with its parents); an existing one must not hold a
 * capture already. */
int session_prepare_rundir(const char *dir, struct iot_err *e);
/* --stdout and --stderr are neither RUNDIR nor a file the capture writes in it. */
int session_check_outputs(const struct cap_opts *o, struct iot_err *e);
/* COMMAND's output file (--stdout, --stderr: opt) at path, when given, into *fd. */
int session_open_output(const char *path, const char *opt, int *fd, struct iot_err *e);
/* As blktrace warns: writing the trace to a traced device traces its own writes. */
void session_warn_self_trace(const struct run *r);
/* Room set aside in RUNDIR for the last manifest (a first one of manifest_len bytes). */
int session_reserve_room(struct run *r, size_t manifest_len, struct iot_err *e);
/* The room given back, right before the last manifest is written. */
void session_release_room(struct run *r);
/* Remove device i's trace files (NAME.blktrace.N). */
void session_remove_traces(const struct run *r, unsigned i);

/* ---- the manifest (session_manifest.c) ----------------------------------------------- */

/* r->root, r->jdevs, r->backend and r->network made: what is known before tracing starts. */
void session_build_header(struct run *r);
/* The early manifest saved, and the room for the last one set aside. */
int session_first_manifest(struct run *r, struct iot_err *e);
/* The end added to r->root: state, clocks, backend, detail, counts, the command's end. */
void session_finish_manifest(struct run *r, const char *state);

/* ---- the block backend (session_backend.c) ------------------------------------------- */

/* Start the backend o->backend names (auto: the first of bpf, relay, tracefs that runs). */
int session_start_block(struct run *r, struct iot_err *e);

#endif
