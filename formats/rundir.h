/* SPDX-License-Identifier: MIT */
/* The run directory's layout, in one place: trace sets, net.pcap*, manifest.json; and INPUTs. */
#ifndef IOTAPE_FORMATS_RUNDIR_H
#define IOTAPE_FORMATS_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"
#include "formats/instream.h"

/*
 * A run directory (what `iotape capture` and `replay --record` write):
 *   DEV.blktrace.CPU   one per-CPU blktrace file per device and CPU (".gz" or ".zst" when
 *                      compressed later; the reader sniffs the compression, not the name)
 *   net.pcap           the packet capture (also read: net.pcapng, and both compressed)
 *   manifest.json      what the capture recorded about itself (formats/manifest.h)
 *   summary.json       the bpf backend's --detail summary (docs/capture.md)
 */
#define RUNDIR_MANIFEST "manifest.json"
#define RUNDIR_PCAP "net.pcap"
#define RUNDIR_SET_INFIX ".blktrace."
/* the bpf backend's summary level: its in-kernel figures instead of records */
#define RUNDIR_SUMMARY "summary.json"

/* NAME.blktrace.N, NAME.blktrace.N.gz or NAME.blktrace.N.zst (a file name, no directory) */
bool rundir_is_trace_file(const char *name);
/* net.pcap or net.pcapng, plain, .gz or .zst */
bool rundir_is_capture_file(const char *name);
/* Anything a capture writes: a run directory holding one is in use. */
bool rundir_is_run_file(const char *name);
/* buf = "DIR/DEV.blktrace.CPU"; -ENAMETOOLONG when it does not fit. */
int rundir_trace_path(char *buf, size_t len, const char *dir, const char *dev, unsigned cpu);

struct rundir {
	char *dir;
	char **traces; /* DIR/NAME.blktrace.N..., every device's set, sorted by name */
	unsigned ntraces;
	char **captures; /* DIR/net.pcap* in the order of preference: the first is read */
	unsigned ncaptures;
	char *manifest; /* DIR/manifest.json when it exists, else NULL */
	char *summary;  /* DIR/summary.json when it exists, else NULL */
};

/* What dir holds (nothing at all is not an error: the caller says what it wanted). */
int rundir_scan(struct rundir *rd, const char *dir, struct iot_err *e);
void rundir_release(struct rundir *rd);

/* The files of the per-CPU set NAME (NAME.blktrace.N[.gz|.zst]), sorted; -ENOENT if none. */
int rundir_set_files(const char *name, char ***paths, unsigned *n, struct iot_err *e);
void rundir_free_list(char **paths, unsigned n);

/*
 * What one INPUT argument names, opened once:
 *   '-' or a file (also a FIFO, /dev/fd/N)   a stream, opened and sniffed
 *   a directory                              a run directory (or any directory of sets)
 *   NAME with NAME.blktrace.N beside it      a per-CPU trace set
 */
enum run_input_kind {
	RUN_INPUT_STREAM,
	RUN_INPUT_DIR,
	RUN_INPUT_SET,
};

struct run_input {
	enum run_input_kind kind;
	const char *arg;
	struct in_stream *in; /* STREAM: owned until taken (set to NULL by the taker) */
	struct rundir rd;     /* DIR */
	char **set;           /* SET: the files */
	unsigned nset;
};

/* Classify and open arg. A missing path that is no set either is -ENOENT; a symbolic link
 * loop, a permission problem and the like are named as such. */
int run_input_open(struct run_input *ri, const char *arg, struct iot_err *e);
void run_input_release(struct run_input *ri);

#endif
