/* SPDX-License-Identifier: MIT */
/* Pieces of the capture library shared between its files (not used outside capture/). */
#ifndef IOTAPE_CAPTURE_CAP_INT_H
#define IOTAPE_CAPTURE_CAP_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "capture/capture.h"
#include "common/err.h"
#include "common/spawn.h"
#include "formats/blkevent.h"

/* ---- block devices: sysfs and mountinfo (sysblock.c) -------------------------------- */

struct cap_dev {
	char name[64]; /* kernel name: loop0, vda1 */
	char path[256];
	unsigned major, minor;
	uint32_t kdev;      /* the kernel's dev_t as blktrace records carry it */
	char sysdir[512];   /* SYSROOT/sys/devices/.../NAME: holds trace/, size, (queue/) */
	char queuedir[512]; /* the whole disk's queue/ directory */
	int partition;
	char parent[64];
	uint64_t size_bytes;
	unsigned lbs;   /* logical block size */
	int rotational; /* -1 unknown */
	char scheduler[32];
	char model[128];
	char backing_file[512]; /* loop devices */
};

/* Map a path ("/dev/loop0") or a kernel name ("loop0") to major:minor. -ENOENT when missing,
 * -ENOTBLK when it is not a block device. */
int cap_dev_resolve(const char *arg, unsigned *major, unsigned *minor, struct iot_err *e);
/* Fill d from sysfs under sysroot ("" for the real one). */
int cap_dev_probe(const char *sysroot, unsigned major, unsigned minor, struct cap_dev *d,
                  struct iot_err *e);
/* One line of mountinfo, split in place (the strings point into it, the mountpoint and the
 * source unescaped). */
struct cap_mountinfo {
	bool has_dev; /* MAJ:MIN was read */
	unsigned major, minor;
	char *mountpoint, *options, *fstype, *source, *super;
};

/* Split a line of /proc/PID/mountinfo: 0, or -EINVAL for one without the fields. */
int cap_mountinfo_split(char *line, struct cap_mountinfo *m);
/* Append {"mountpoint","fstype","source","options","super_options"} for each mount of d. */
int cap_mounts_json(FILE *mountinfo, const struct cap_dev *d, json_t *arr);
json_t *cap_dev_json(const struct cap_dev *d);
/* "[none] mq-deadline kyber" -> "none" */
void cap_pick_bracketed(const char *s, char *out, size_t cap);

/* ---- what each traced device is part of (devstack.c) -------------------------------- */

/* A device's filesystem signature, libblkid's tags ("" when absent). */
struct cap_sig {
	char type[64], uuid[64], uuid_sub[64], ext_journal[64], loguuid[64], label[64];
};

/* Where discovery looks: the real system (cap_stack_env_real()) or a test's. */
struct cap_stack_env {
	const char *sysroot; /* prefix of /sys and /dev/disk/by-id: "" for the real ones */
	FILE *mountinfo;     /* /proc/self/mountinfo (read from its start), or NULL */
	/* the block device at path (stat()'s st_rdev): 0, or -errno (-ENOTBLK: not one) */
	int (*blockdev)(void *arg, const char *path, unsigned *ma, unsigned *mi);
	/* the device whose filesystem holds the file at path (st_dev) */
	int (*filedev)(void *arg, const char *path, unsigned *ma, unsigned *mi);
	/* the signature of the block device at path (/dev/NAME): 0 or -errno */
	int (*probe)(void *arg, const char *path, struct cap_sig *sig);
	void *arg;
};
void cap_stack_env_real(struct cap_stack_env *env, FILE *mountinfo);
/*
 * The roles and groups of the n traced devices (docs/capture.md): adds to each jdevs[i] (as
 * cap_dev_json() made it) "given" (the -d argument: given[i]), "alias" (NAME of -d NAME=DEV:
 * names[i], or NULL), "key" and "key_from" (how the device is known across runs), "role",
 * "group", "signature" and "stack" (the relations found). given and names may be NULL.
 * 0 or -ENOMEM.
 */
int cap_devstack(const struct cap_stack_env *env, const struct cap_dev *devs, unsigned n,
                 char *const *given, char *const *names, json_t *jdevs);

/* ---- host and clocks (hostinfo.c) ---------------------------------------------------- */

struct cap_clock_pair {
	int64_t real_ns; /* CLOCK_REALTIME, midpoint of two reads around the monotonic read */
	int64_t mono_ns; /* CLOCK_MONOTONIC, the tracefs "mono" trace clock */
	int64_t uncertainty_ns; /* half the width of the tightest bracket */
};
void cap_clock_pair_read(struct cap_clock_pair *p);
json_t *cap_clock_pair_json(const struct cap_clock_pair *p);
/* The IPv4 and IPv6 addresses of interface iface ("any": of every interface) as strings: the
 * manifest's network.addresses, which say what a packet's direction is (docs/capture.md). */
json_t *cap_iface_addresses_json(const char *iface);

/* ---- cgroup ids to paths (cgroups.c) ----------------------------------------------- */

struct cap_cgroups;
/* Walk the hierarchy that holds the blkio controller (cgroup v1 blkio, else cgroup2). */
int cap_cgroups_scan(struct cap_cgroups **out);
/* [{id, path, hierarchy}] for ids, each path from end's walk, else start's (either NULL),
 * null when neither saw it. */
json_t *cap_cgroups_json(const struct cap_cgroups *start, const struct cap_cgroups *end,
                         const uint64_t *ids, unsigned n);
void cap_cgroups_free(struct cap_cgroups *c);

/* ---- the trace sink: records in, per-device per-CPU files out (blk_sink.c) ----------- */

struct cap_sink;
struct bt_comm_table;
int cap_sink_new(struct cap_sink **out, const char *dir, const struct cap_dev *devs, unsigned n,
                 const char *sysroot, struct iot_err *e);
/*
 * One finished record (v7 header + PDU) seen on cpu. The sink renumbers the sequence per
 * device and CPU (the tracefs path leaves it 0), adds a PROCESS notify for each new pid, and
 * routes it by device. Records for devices that are not ours are counted and dropped.
 * Returns 0 or -errno (write error, e filled).
 */
int cap_sink_record(struct cap_sink *s, unsigned cpu, uint8_t *rec, size_t len, struct iot_err *e);
/* A record as an event (no decode), on ev->cpu, with the name of its task when the caller
 * knows it (comm, may be NULL: then cap_sink_names()'s): a new pid's PROCESS notify takes it
 * instead of looking it up. PDUs up to 64 bytes. The bpf backend writes through
 * cap_sink_io_put() instead, which writes what this writes of the same events (and is tested
 * against it). */
int cap_sink_event(struct cap_sink *s, const struct blk_event *ev, const char *comm,
                   struct iot_err *e);
/*
 * An IO as the bpf backend keeps it until its records go out (one record, at its events
 * level): its completion's v7 record, encoded once (sequence number 0, its cgroup id and PDU
 * after it), and what Q and D have of their own. cap_sink_io_put() writes one of its records
 * straight into its per-CPU file's buffer: the completion's as it is, Q or D at their time,
 * with their action word, task and CPU, and no error.
 */
#define CAP_IO_PDU_MAX 16
enum { CAP_IO_C = 0, CAP_IO_Q = 1, CAP_IO_D = 2 };
struct cap_io {
	uint8_t rec[48 + 8 + CAP_IO_PDU_MAX];
	uint32_t act_q, act_d; /* action words */
	uint32_t issue_pid, issue_cpu;
	uint8_t len;    /* of rec */
	uint8_t has_cg; /* rec carries a cgroup id */
	int16_t dev;    /* the sink's device; CAP_IO_FOREIGN, CAP_IO_BAD */
};
#define CAP_IO_FOREIGN (-1)
#define CAP_IO_BAD (-2)
/* io from the completion c (its Q and D of issue_pid on issue_cpu), its device looked up once */
void cap_sink_io_init(const struct cap_sink *s, struct cap_io *io, const struct blk_event *c,
                      uint32_t issue_pid, uint32_t issue_cpu);
/* part (CAP_IO_*) of io, at time t, as cap_sink_event() would write it; 0 or -errno (e) */
int cap_sink_io_put(struct cap_sink *s, const struct cap_io *io, unsigned part, uint64_t t,
                    struct iot_err *e);
/* The names of pids (the backend's, kept up to date by it; NULL: none) that a new pid's
 * PROCESS notify takes when the record brings none, looked up only then. */
void cap_sink_names(struct cap_sink *s, const struct bt_comm_table *names);
/* The cgroup ids the records carried (distinct, in order of first sight): n of them. */
const uint64_t *cap_sink_cgroups(const struct cap_sink *s, unsigned *n);
/* Keep the records' own sequence numbers (relay: the kernel numbers them, and the gaps are
 * its drops); must be called before the first record. */
void cap_sink_keep_sequences(struct cap_sink *s, int keep);
/* n events were lost on cpu at this point of its stream: with one device, its sequence
 * numbers on that CPU jump by n, so blkparse and our reader report the gap as skips (as they
 * do for relay drops). With several devices the owner is unknown; only the count is kept. */
void cap_sink_lost(struct cap_sink *s, unsigned cpu, uint64_t n);
/* Write a TIMESTAMP notify (wall clock at trace time mono_ns) into every device's set. */
int cap_sink_timestamp(struct cap_sink *s, const struct cap_clock_pair *p, struct iot_err *e);
/* Counters, safe to read from another thread. */
void cap_sink_counts(const struct cap_sink *s, uint64_t *events, uint64_t *bytes);
uint64_t cap_sink_dev_events(const struct cap_sink *s, unsigned i);
/* Device i's first and last event and the sectors issued, of the records written. */
struct blk_span cap_sink_dev_span(const struct cap_sink *s, unsigned i);
uint64_t cap_sink_foreign(const struct cap_sink *s);
/* The traced pids that are threads of another process: [{pid, tgid, process}] (new). After
 * the reader has finished. */
json_t *cap_sink_threads_json(const struct cap_sink *s);
uint64_t cap_sink_bad(const struct cap_sink *s);
int cap_sink_close(struct cap_sink *s, struct iot_err *e);

/* ---- trace_pipe byte stream parser (tpipe.c) ---------------------------------------- */

/*
 * trace_pipe with the bin option carries, per event, [16-byte context header when the
 * context-info option is on] + a v7 record + PDU, and "CPU:%d [LOST %lu EVENTS]\n" text
 * lines when the ring buffer overran. Relay files carry bare records (hdr = 0).
 */
struct tpipe {
	unsigned hdr;        /* 16 or 0 */
	uint64_t lost;       /* events reported lost by LOST lines */
	uint64_t lost_marks; /* "[LOST EVENTS]" lines without a count */
	uint64_t garbage;    /* bytes skipped to resynchronise */
};
/* emit gets each record, and (rec NULL, len = count) where a LOST line reported events lost */
typedef int (*tpipe_emit_fn)(void *arg, unsigned cpu, uint8_t *rec, size_t len, struct iot_err *e);
/* Consume complete units from buf[0, len); returns the bytes consumed (the rest must be
 * presented again with more data), or a negative errno from emit. At the end of the stream
 * (final) a partial record is counted as garbage and consumed. */
long tpipe_parse(struct tpipe *t, uint8_t *buf, size_t len, unsigned cpu, int final,
                 tpipe_emit_fn emit, void *arg, struct iot_err *e);

/* ---- raw ring-buffer pages (rawbuf.c) ------------------------------------------------ */

/*
 * Turn a ring-buffer data entry of the blk tracer into the record the kernel's bin output
 * would have made (blk_trace_synthesize_old_trace): the first 8 bytes there are the generic
 * trace_entry, and time is not filled, so magic, sequence and time are set here from the
 * ring-buffer timestamp. Returns the record's length, or 0 if the entry is not a blk record.
 * *blk_type is the ring buffer's entry type of blk records: 0 until the first one is seen
 * (it is learnt then), afterwards entries of any other type are skipped.
 */
size_t cap_raw_to_record(const uint8_t *data, size_t size, uint64_t ts, uint8_t *out, size_t cap,
                         uint16_t *blk_type);

/* ---- reading streams: one thread polling every per-CPU file (reader.c) -------------- */

enum cap_stream_kind { CAP_STREAM_PIPE, CAP_STREAM_RAW, CAP_STREAM_RELAY, CAP_STREAM_FN };
struct cap_reader;
int cap_reader_new(struct cap_reader **out, struct cap_sink *sink, struct iot_err *e);
/* Takes ownership of fd. */
int cap_reader_add(struct cap_reader *r, int fd, unsigned cpu, enum cap_stream_kind kind,
                   struct iot_err *e);
/*
 * A stream the reader drains by calling fn (the bpf backend's ring buffer): fn(arg, final, e)
 * returns > 0 when it took records, 0 when there were none, or -errno. It is called on every
 * pass, readable or not (the ring buffer wakes the reader only when it fills up: see
 * capture/bpf.c), with the reader's poll then at most FN_POLL_MS long, and once with final set
 * after the capture stopped and everything was drained. fd (polled, not owned) may be -1.
 */
typedef int (*cap_drain_fn)(void *arg, int final, struct iot_err *e);
int cap_reader_add_fn(struct cap_reader *r, int fd, cap_drain_fn fn, void *arg, struct iot_err *e);
int cap_reader_start(struct cap_reader *r, struct iot_err *e);
/* The sink the reader feeds (a backend that reads on its own writes into it too). */
struct cap_sink *cap_reader_sink(const struct cap_reader *r);
/* Tell the thread that no new events will come: drain everything and exit; join it. Returns
 * the first error the thread met. */
int cap_reader_finish(struct cap_reader *r, struct iot_err *e);
/* The thread met an error (e.g. ENOSPC): the capture should stop. */
int cap_reader_failed(struct cap_reader *r);
void cap_reader_lost(const struct cap_reader *r, uint64_t *lost, uint64_t *marks,
                     uint64_t *garbage);
void cap_reader_free(struct cap_reader *r);

/* ---- block backends ------------------------------------------------------------------ */

struct cap_backend_state;
struct cap_blk_ops {
	const char *name;
	/* enable tracing of every device and add the per-CPU streams to the reader */
	int (*start)(struct cap_backend_state **out, const struct cap_dev *devs, unsigned n,
	             const struct cap_opts *o, struct cap_reader *rd, struct iot_err *e);
	/* stop producing events (the reader then drains) */
	void (*stop)(struct cap_backend_state *s);
	/* after draining: undo every setting, free; counts lost events */
	int (*teardown)(struct cap_backend_state *s, struct cap_result *res, json_t *info,
	                struct iot_err *e);
};
extern const struct cap_blk_ops cap_relay_ops;
extern const struct cap_blk_ops cap_tracefs_ops;
extern const struct cap_blk_ops cap_bpf_ops;

/* Undo what a capture killed with SIGKILL left enabled (tracefs.c); 1 if it did, why set. */
int cap_tracefs_recover(char *why, size_t cap);
/* Make sure a pseudo filesystem is mounted at dir (tracefs, debugfs): 0 when it was, 1 when
 * it was mounted now (the capture unmounts it again with cap_unmount_own), or -errno. */
int cap_ensure_mounted(const char *dir, const char *fstype, struct iot_err *e);
void cap_unmount_own(const char *dir);

/* ---- packets (pcap_live.c) ----------------------------------------------------------- */

struct cap_pcap;
/* filter's packets whole (snaplen); with hdr_filter, that filter's others cut to
 * hdr_snaplen bytes (their headers), in one kernel filter. */
int cap_pcap_start(struct cap_pcap **out, const char *iface, const char *filter, unsigned snaplen,
                   const char *hdr_filter, unsigned hdr_snaplen, const char *path,
                   struct iot_err *e);
uint64_t cap_pcap_packets(const struct cap_pcap *p);
int cap_pcap_failed(const struct cap_pcap *p);
/* Stop, flush, close; fills {"packets","drops":{...}} into info. */
int cap_pcap_stop(struct cap_pcap *p, json_t *info, uint64_t *packets, uint64_t *drops,
                  uint64_t *ifdrops, struct iot_err *e);

/* ---- the command (command.c) --------------------------------------------------------- */

struct cap_cmd {
	struct iot_proc proc;
	int exec_errno; /* from the child, when exec failed */
};
/* Fork and exec argv (PATH search) with its output on fd_out and fd_err (-1: iotape's). 0
 * with c->proc set; exec failures are seen by wait. */
int cap_cmd_spawn(struct cap_cmd *c, char *const *argv, int fd_out, int fd_err, struct iot_err *e);
/* Non-blocking: 1 with *status (shell convention) once it exited, else 0. */
int cap_cmd_poll(struct cap_cmd *c, int *status);
/* The same, waiting at most timeout_ms for the command to end (a signal cuts it short). */
int cap_cmd_wait(struct cap_cmd *c, int timeout_ms, int *status);

/* small file helpers (sysblock.c) */
int cap_read_str(const char *path, char *buf, size_t cap);
int cap_read_u64(const char *path, uint64_t *out);
int cap_write_str(const char *path, const char *s);

/* capture/runset.c: write SET/runset.json for caph_run() (capture/hosts.h's types). */
struct caph_opts;
struct caph_status;
struct caph_result;
int caph_runset_write(const struct caph_opts *o, const struct caph_status *st,
                      const struct caph_result *res, struct iot_err *e);

/* fmt formatted (cut at 767 bytes) to notice(arg, line); nothing when notice is NULL. The
 * capture's and the hosts' messages both go through it (capture/say.c). */
void cap_say(void (*notice)(void *arg, const char *msg), void *arg, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
