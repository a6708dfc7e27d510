/* SPDX-License-Identifier: MIT */
/* Replay across hosts through fio's client/server mode: per-host iologs and jobs, run
 * together against `fio --server` instances, their JSON results gathered per host. */
#ifndef IOTAPE_FIOCLIENT_FIOCLIENT_H
#define IOTAPE_FIOCLIENT_FIOCLIENT_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"
#include "export/export.h"

#define FC_DEFAULT_PORT 8765u /* fio --server's */

/* One --fio-client HOST[:PORT]=TARGET: a device of the trace replayed onto TARGET there. */
struct fc_slot {
	char *host; /* a name, an IPv4 address, or an IPv6 address (without brackets) */
	unsigned port;
	char *target; /* the device or file on that host */
};

/* Parse "HOST[:PORT]=TARGET" ("[IPV6]:PORT=TARGET" for an IPv6 address). 0 or -EINVAL. */
int fc_slot_parse(struct fc_slot *s, const char *arg, struct iot_err *e);
void fc_slot_release(struct fc_slot *s);
/* "HOST:PORT" ("[V6]:PORT") into buf. */
const char *fc_slot_name(const struct fc_slot *s, char *buf, size_t len);
/* Is HOST this machine's loopback ("localhost", 127.0.0.0/8, ::1)? */
bool fc_host_is_local(const char *host);

/*
 * A hosts file: one slot per line, "HOST[:PORT]=TARGET" optionally followed by the trace's
 * devices replayed there ("8,16" "sdb" ..., separated by blanks); '#' starts a comment.
 * Appends to *slots; each device named gets a map entry (dev, slot index) in *maps.
 */
struct fc_map {
	uint32_t dev;
	unsigned slot;
};
int fc_hosts_file(const char *path, struct fc_slot **slots, unsigned *nslots, struct fc_map **maps,
                  unsigned *nmaps,
                  int (*parse_dev)(const char *s, uint32_t *dev, struct iot_err *e),
                  struct iot_err *e);

struct fc_opts {
	const char *run; /* the trace (anything the blktrace reader opens) */
	const struct fc_slot *slots;
	unsigned nslots;
	const struct fc_map *maps; /* the trace's devices onto slots; none: in order */
	unsigned nmaps;
	const char *dir;        /* the iologs, job files and fio's output (created) */
	const char *remote_dir; /* where the servers see dir (read_iolog=); NULL: dir */
	const char *fio;        /* the fio binary (NULL: "fio" on PATH) */
	/* what the iologs and jobs say (export/export.h) */
	struct export_iolog_opts xo;
	volatile sig_atomic_t *stop; /* set by a signal handler: fio is told to stop */
	/* fio must have ended this long after it started, or it is stopped and the replay
	 * fails: a server that accepts and never answers keeps fio's client waiting for ever
	 * (and deaf to SIGTERM). 0: FC_TIMEOUT_SLACK_NS plus FC_TIMEOUT_FACTOR times the trace's
	 * span; UINT64_MAX: none. */
	uint64_t timeout_ns;
};

#define FC_TIMEOUT_FACTOR 4
#define FC_TIMEOUT_SLACK_NS (60ull * 1000000000ull)

/* Completion latency as fio reports it (clat_ns): count, mean, max, percentiles. */
struct fc_lat {
	uint64_t n, max;
	double mean;
	double p[4]; /* 50, 90, 99, 99.9 */
};
#define FC_NPCT 4
extern const double fc_pct[FC_NPCT];

enum { FC_READ, FC_WRITE, FC_TRIM, FC_SYNC, FC_NDIR };
extern const char *const fc_dir_name[FC_NDIR];

/* What fio reported for one job (one device), as fio's JSON says it. */
struct fc_fio {
	bool have;                  /* fio reported this job */
	int error;                  /* fio's "error" (an errno), 0 when none */
	uint64_t ios[FC_NDIR];      /* total_ios */
	uint64_t bytes[FC_NDIR];    /* io_bytes (none for sync) */
	uint64_t runtime_ns;        /* job_runtime: from the job's start to its end */
	struct fc_lat lat[FC_NDIR]; /* read, write, trim (sync: count and mean only) */
};

struct fc_dev {
	struct export_iolog_dev x; /* the trace's side: IOs, bytes, first and last times */
	unsigned slot;
	struct fc_fio fio;
};

struct fc_result {
	struct fc_dev *devs; /* the devices replayed (with IOs and a slot) */
	unsigned ndevs;
	uint64_t t0;              /* the trace time every log's time counts from */
	uint64_t unmapped;        /* IOs of devices no slot took */
	struct fc_fio all;        /* fio's "All clients" */
	int fio_status;           /* fio's exit status (-1: killed by a signal) */
	bool stopped;             /* a signal stopped it */
	bool timed_out;           /* it ran past timeout_ns and was stopped */
	uint64_t timeout_ns;      /* the limit it had */
	char *fio_json, *fio_log; /* where fio's output is (in dir) */
	char fio_msg[256];        /* fio's last complaint in its log ("fio: connect: ..."), or "" */
};

/*
 * Export the trace as per-slot iologs and one job file per host (its slots' jobs), run
 * `fio --client=HOST,PORT HOST.fio ...` for every host at once (fio starts the servers' jobs
 * together), wait, and read fio's JSON into res. Returns 0 when fio ran and reported, also
 * when jobs failed (res says), or -errno with e filled (no slots, a device with no slot,
 * fio missing or failing: e holds the end of its output).
 */
int fc_run(const struct fc_opts *o, struct fc_result *res, struct iot_err *e);
void fc_result_release(struct fc_result *res);
/* res->all from the devices' results (fc_run does it). */
void fc_combine(struct fc_result *res);

/* The result as JSON (docs/replay.md, "--fio-client"). */
json_t *fc_result_json(const struct fc_opts *o, const struct fc_result *res);
/* The same result as the text a person reads into f (fioclient/text.c): per device the trace's
 * IOs and fio's with its latencies, then all devices together and where fio's output is. */
void fc_result_text(FILE *f, const struct fc_opts *o, const struct fc_result *res);

#endif
