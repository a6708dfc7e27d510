/* SPDX-License-Identifier: MIT */
/* iotape capture: block traces (bpf, relay or tracefs) and packets (libpcap) while a command runs.
 */
#ifndef IOTAPE_CAPTURE_CAPTURE_H
#define IOTAPE_CAPTURE_CAPTURE_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#include "common/err.h"

enum cap_backend {
	CAP_BACKEND_AUTO = 0,
	CAP_BACKEND_RELAY,
	CAP_BACKEND_TRACEFS,
	CAP_BACKEND_BPF,
};

/* How much the bpf backend records (docs/capture.md "Levels of detail"); the other backends
 * record every event. */
enum cap_detail {
	CAP_DETAIL_EVENTS = 0, /* every blktrace action */
	CAP_DETAIL_IO,         /* one IO at its completion, written as Q, D and C records */
	CAP_DETAIL_SUMMARY,    /* no records: in-kernel histograms, bins, gaps and seeks */
};

/* How the tracefs backend reads the ring buffer (bench/README.md has the measurements: the
 * raw reader costs the traced workload far less, so it is the default). */
enum cap_read_mode {
	CAP_READER_RAW = 0, /* per_cpu/cpuN/trace_pipe_raw pages through libtracefs/kbuffer */
	CAP_READER_PIPE,    /* per_cpu/cpuN/trace_pipe with the bin option: finished v7 records */
};

struct cap_progress {
	uint64_t elapsed_ns;
	uint64_t events;  /* block trace records written */
	uint64_t bytes;   /* bytes of trace written */
	uint64_t lost;    /* block events lost so far */
	uint64_t packets; /* packets written */
	uint64_t pkt_drops;
};

struct cap_opts {
	const char *rundir;
	char *const *devs;  /* block device paths or names ("/dev/loop0", "loop0") */
	char *const *names; /* NULL, or per device the NAME of -d NAME=DEV (NULL: none) */
	unsigned ndevs;
	const char *iface; /* NULL: no packet capture */
	/* NULL: NFS/RPC whole (CAP_DEFAULT_FILTER) and the headers of every other TCP and UDP
	 * packet (CAP_HEADERS_FILTER, CAP_HEADERS_SNAPLEN bytes) */
	const char *filter;
	unsigned snaplen; /* 0: 262144 */
	enum cap_backend backend;
	enum cap_detail detail;
	enum cap_read_mode reader;
	uint64_t duration_ns; /* 0: until the command exits or a signal */
	uint64_t wait_ns;     /* the blk tracer busy (another capture): wait this long for it */
	unsigned buffer_kb;   /* per-CPU ring buffer size; 0: 8192 */
	/* bpf events and io levels: bytes of records waiting for the idle-priority encoder
	 * before it gets the reader's priority (0: CAP_DEFAULT_BACKLOG; CAP_BACKLOG_INLINE:
	 * no encoder, the reader encodes) */
	uint64_t backlog_bytes;
	uint16_t act_mask; /* categories to trace (enum blktrace_cat bits); 0: all */
	/* --detail summary: the timeline's bin width and the idle threshold the kernel keeps
	 * (analyze's --interval and --idle-threshold; 0: BLK_SUMMARY_INTERVAL_NS, _IDLE_NS) */
	uint64_t sum_interval_ns, sum_idle_ns;
	char *const *cmd;                    /* NULL-terminated argv of COMMAND, or NULL */
	const char *cmd_stdout, *cmd_stderr; /* files for COMMAND's output (NULL: iotape's) */
	char *const *labels; /* "KEY=VALUE": the manifest's "labels" object (compare's keys) */
	unsigned nlabels;
	int argc; /* iotape's own command line, for the manifest */
	char *const *argv;
	/* Set asynchronously (signal handler) to stop the capture; the signal number. */
	volatile sig_atomic_t *stop;
	/* Called about 5 times a second from the main thread (may be NULL). */
	void (*progress)(void *arg, const struct cap_progress *p);
	/* One-line notices for the user, e.g. why auto fell back to tracefs (may be NULL). */
	void (*notice)(void *arg, const char *msg);
	void *arg;
};

struct cap_result {
	int backend; /* enum cap_backend actually used */
	int cmd_ran;
	int cmd_status; /* exit status (0-255), or 128 + signal, 127 not found, 126 not exec */
	uint64_t cmd_wall_ns; /* from starting COMMAND to its end */
	char cmd_error[256];  /* why COMMAND could not run, when cmd_status is 126 or 127 */
	int stop_signal;      /* the signal that stopped the capture, or 0 */
	struct cap_progress totals;
	/* lost block events: the ring buffer's own counters (per_cpu/cpuN/stats), what the reader
	 * saw reported in the stream (LOST lines, missed-events flags on raw pages), relay's
	 * dropped count; lost is the best total (the first two count the same events) */
	uint64_t overrun, dropped, reader_lost, relay_dropped, lost;
	uint64_t ifdrop;
	/* an error after tracing started (e.g. ENOSPC): data up to then is on disk */
	int late_err;
	char late_msg[512];
};

/*
 * Run a capture. Returns 0 when the capture ran (result says how; the command's status is in
 * result->cmd_status), or -errno when it could not start (e filled; nothing left enabled).
 */
int cap_run(const struct cap_opts *o, struct cap_result *res, struct iot_err *e);

/*
 * A capture alongside other work (capture/background.c: replay --capture): cap_run() in a
 * thread of its own, from before the work's first IO to after its last. The caller fills o
 * (o.stop, o.progress and o.arg are the background's: notice gets the struct cap_bg as its
 * arg), then cap_bg_start() returns 0 once events flow, or the capture's -errno with e filled
 * when it could not start (its thread ended, nothing to stop). cap_bg_stop() stops it and
 * waits: the capture's return, res and e as cap_run() left them.
 */
struct cap_bg {
	struct cap_opts o;
	struct cap_result res;
	struct iot_err e;
	int ret;
	pthread_t thread;
	atomic_int ready, done;
	volatile sig_atomic_t stop;
};
int cap_bg_start(struct cap_bg *c, struct iot_err *e);
int cap_bg_stop(struct cap_bg *c);

/*
 * Release the kernel's blk tracer without capturing: restore what a capture killed with
 * SIGKILL left (its state file), else say whether the tracer is free (msg). -EBUSY when a
 * live capture holds it, or a tracer no iotape capture set is current (e says how to reset
 * it by hand; it is not touched).
 */
int cap_tracefs_release(char *msg, size_t cap, struct iot_err *e);

/* Parse "auto", "bpf", "relay", "tracefs" / "pipe", "raw" / "events", "io", "summary";
 * -EINVAL when unknown. */
int cap_backend_parse(const char *s, enum cap_backend *out);
int cap_detail_parse(const char *s, enum cap_detail *out);
const char *cap_detail_name(int d);
/* Whether this iotape has the bpf backend, and if not why (a sentence for `iotape version`). */
int cap_bpf_built(const char **why);
int cap_reader_parse(const char *s, enum cap_read_mode *out);
/* "issue,complete" (the kernel's category names, as blktrace -a takes them) or a hex mask
 * into *mask; -EINVAL naming the first unknown word in e. */
int cap_mask_parse(const char *s, uint16_t *mask, struct iot_err *e);
/* The names of the categories in mask, comma-separated, into buf. */
const char *cap_mask_str(uint16_t mask, char *buf, size_t cap);
const char *cap_backend_name(int b);
const char *cap_reader_name(int r);

#define CAP_DEFAULT_FILTER "port 2049 or port 111"
#define CAP_HEADERS_FILTER "tcp or udp"
#define CAP_HEADERS_SNAPLEN 128u /* Ethernet, IPv6 and TCP with options: 114 bytes at most */
#define CAP_DEFAULT_SNAPLEN 262144u
#define CAP_DEFAULT_BUFFER_KB 8192u
#define CAP_DEFAULT_BACKLOG (256ull << 20)
#define CAP_BACKLOG_INLINE UINT64_MAX
/* the summary level's timeline bin and idle threshold: analyze's defaults */
#define BLK_SUMMARY_INTERVAL_NS 1000000000ull
#define BLK_SUMMARY_IDLE_NS 10000000ull
/* the finest bin a summary keeps: the reader empties the kernel's ring of bins every
 * IOT_SUM_RING / 4 of them (at most every second), so finer would be a reader always awake */
#define BLK_SUMMARY_MIN_INTERVAL_NS 10000000ull

#endif
