/* SPDX-License-Identifier: MIT */
/* RUNDIR/manifest.json: what a capture recorded about itself (host, devices, clocks, counts). */
#ifndef IOTAPE_FORMATS_MANIFEST_H
#define IOTAPE_FORMATS_MANIFEST_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "common/err.h"
#include "formats/blkevent.h"

#define MANIFEST_NAME "manifest.json"
#define MANIFEST_FORMAT "iotape-run"
#define MANIFEST_VERSION 1

/*
 * The document (docs/capture.md has the full list of fields):
 *   format "iotape-run", format_version 1, iotape_version
 *   host {hostname, kernel{sysname,release,version,machine}, distro{id,version_id,...}, ncpu}
 *   command {argv[], exit_status, ran, error}, iotape_argv[]
 *   backend {name, fallback_reason, trace_clock, tracer, reader, ...}
 *   clock {trace_clock, start{wall, realtime_ns, trace_ns, uncertainty_ns}, end{...}}
 *   devices [{name, path, dev, major, minor, size_bytes, logical_block_size, rotational,
 *             scheduler, model, partition, parent, mounts[{mountpoint, fstype, source,
 *             options, super_options}], files, events, first_event_ns, last_event_ns,
 *             issued {ios, lo_sector, end_sector}, given, alias, key, key_from, role, group,
 *             signature {type, uuid, label}, stack [...]}]
 *   threads [{pid, tgid, process}] (the traced pids that are threads of another process)
 *   network {interface, filter, snaplen, file, packets, received, drops{kernel, interface}}
 *   counts {events, trace_bytes, lost, overrun, dropped, reader_lost, relay_dropped,
 *           foreign_events, packets, packet_drops}
 *   state ("running", "complete", "interrupted", "failed"), error, stopped_by_signal,
 *   duration_ns, iotape_cpu {user_s, sys_s, max_rss_kb}
 */

struct manifest_dev {
	const char *name; /* points into root */
	unsigned major, minor;
	const char *files; /* "loop0.blktrace" or NULL */
	uint64_t events;
	/* what the capture saw of the trace it wrote: the trace-clock times of the first and
	 * last event (notifies aside) and the sectors issued; have_span is 0 for runs made
	 * before iotape recorded them */
	int have_span;
	uint64_t first_event_ns, last_event_ns;
	struct blk_extent issued;
	unsigned nmounts;
	const char *fstype; /* first mount's filesystem type, or NULL */
	/* what the device is (capture's discovery, docs/capture.md), NULL when not recorded:
	 * the key that names it across runs, its role ("osd.0 journal") and group ("osd.0") */
	const char *key, *role, *group;
};

struct manifest {
	json_t *root;
	unsigned format_version;
	const char *iotape_version;
	const char *backend; /* "tracefs", "relay", or NULL */
	int have_clock;
	int64_t start_real_ns, start_trace_ns, end_real_ns, end_trace_ns;
	int have_exit_status;
	int exit_status;
	unsigned ndevs;
	struct manifest_dev *devs;
	const char *pcap_file; /* relative to the run directory, or NULL */
	uint64_t events, lost, packets, packet_drops;
};

/* Parse a manifest from memory. Unknown fields are kept (in root) and ignored; known fields
 * of the wrong type are an error naming the field. */
int manifest_parse(const char *buf, size_t len, struct manifest *m, struct iot_err *e);
/* Load DIR/manifest.json (path may be the run directory or the file itself). */
int manifest_load(const char *path, struct manifest *m, struct iot_err *e);
void manifest_release(struct manifest *m);

/* The device major:minor, or NULL. */
const struct manifest_dev *manifest_dev_find(const struct manifest *m, unsigned major,
                                             unsigned minor);
/* The process (its command) that thread pid belongs to, from "threads", or NULL. */
const char *manifest_thread_process(const struct manifest *m, uint32_t pid);

/* The head every writer of a manifest starts from (manifest_header.c): format, format_version,
 * iotape_version, kind (when not NULL: "replay", "nfs-replay"), host (manifest_host_json of
 * /etc/os-release) and iotape_argv ("iotape" and the command's argc words of argv). */
json_t *manifest_header(const char *kind, const char *const *argv, int argc);
/* host: hostname, kernel (uname), distro (os-release at path, when readable), ncpu */
json_t *manifest_host_json(const char *os_release_path);
/* Parse an os-release file into {"id","version_id","codename","pretty_name"}. */
json_t *manifest_os_release_json(FILE *f);

/* Write root to DIR/manifest.json atomically (temporary file, fsync, rename): every writer of
 * a manifest saves it here, so that a reader or a crash sees the old one or the new one. */
int manifest_save(const char *dir, json_t *root, struct iot_err *e);

/* Place a trace-clock time on the wall clock (ns since the epoch) using the start and end
 * clock pairs: the offset is interpolated linearly, which absorbs NTP slewing during the
 * run. Returns 0 when the manifest has no clock pairs. */
int64_t manifest_trace_to_real(const struct manifest *m, int64_t trace_ns);
/* And back: a wall-clock time (packet timestamp) on the trace clock. */
int64_t manifest_real_to_trace(const struct manifest *m, int64_t real_ns);

#endif
