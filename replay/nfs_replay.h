/* SPDX-License-Identifier: MIT */
/* NFS replay: the calls of a packet capture as file operations on a directory or NFS server. */
#ifndef IOTAPE_REPLAY_NFS_REPLAY_H
#define IOTAPE_REPLAY_NFS_REPLAY_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"
#include "common/hist.h"
#include "replay/replay.h"

struct in_stream;

/* A fresh stream over the capture, once per pass (prepare, replay): the library owns it. */
typedef int (*nr_open_fn)(void *arg, struct in_stream **out, struct iot_err *e);

#define NR_DEFAULT_DEPTH 64u /* calls in flight at most */
#define NR_MAX_STREAMS 64u   /* concurrent streams (client connections); more share them */
#define NR_WINDOW 65536u     /* calls held to put them in call order */
#define NR_HORIZON_NS                                                                              \
	2000000000ull                /* a call waits at most this long (capture time) for those    \
	                              * called before it to be answered */
#define NR_WINDOW_BYTES (256u << 20) /* and at most this many bytes of them (payloads) */
#define NR_CALL_MAX ((4u << 20) + 65536) /* a call kept whole up to this size (WRITE payloads) */
#define NR_DATA_HELD (256u << 20)        /* WRITE payloads held for calls not yet answered */
#define NR_DIVERGENCES_SHOWN 10u
#define NR_UNNAMED_DIR ".iotape-unnamed" /* handles never named: placeholders under it */

struct nfs_replay_opts {
	enum rp_timing timing;
	double speed;
	uint64_t spin_ns, max_gap_ns;
	const char *target_dir; /* --target DIR: POSIX calls beneath DIR */
	const char *nfs_url;    /* --nfs URL: libnfs (nfs://HOST[:PORT]/EXPORT?version=3|4) */
	bool prepare;           /* create what the workload uses before it creates it */
	bool force;             /* a non-empty target */
	const uint8_t *root_fh; /* --root-fh: the export's root handle */
	unsigned root_fh_len;
	const char *root_path; /* --root-path: the capture's path that is the target's root, no
	                        * '/' at either end ("export"); calls outside it are refused */
	unsigned depth;        /* calls in flight at most; 0: NR_DEFAULT_DEPTH */
	uint32_t max_nodes;    /* handles tracked (names map); 0: 1 Mi */
	nr_open_fn open;
	void *open_arg;
	const char *record_dir; /* --record RUNDIR */
	const char *const *argv;
	int argc;
	volatile sig_atomic_t *stop;
	void (*notice)(void *arg, const char *msg);
	void *notice_arg;
	/* called once the target is prepared, just before the first call (--capture starts
	 * there); non-zero stops the replay with that error */
	int (*on_start)(void *arg);
	void *on_start_arg;
};

/* One procedure (NFSv3 procedure or NFSv4 main op): the capture beside the replay. */
struct nr_proc {
	uint8_t vers; /* 3 or 4 */
	uint16_t op;
	const char *name;
	uint64_t captured; /* calls in the capture */
	uint64_t replayed; /* done on the target */
	uint64_t skipped;  /* no action on this target (counted by name) */
	uint64_t refused;  /* hostile names, escapes */
	uint64_t same_ok, same_err, diverged, unanswered; /* outcome against the capture's */
	uint64_t bytes;                                   /* read or written in the replay */
	uint64_t capture_bytes;
	struct hist lat, srt; /* the replay's latency, the capture's response time */
};

/* Outcomes that differ: how many per (procedure, capture's status, replay's status). */
struct nr_div {
	unsigned proc;
	uint32_t cap_status, rep_status;
	uint64_t n;
};

/* The first divergences, to show. */
struct nr_div_shown {
	uint64_t seq;
	unsigned proc;
	uint32_t cap_status, rep_status;
	char path[200];
};

struct nfs_replay_stats {
	const char *target_kind; /* "directory" or "nfs" */
	uint64_t calls;          /* NFS calls read from the capture */
	uint64_t replayed, skipped, refused;
	uint64_t unanswered;   /* calls the capture has no reply for (replayed, outcome unknown) */
	uint64_t late;         /* calls released after one called later (window or horizon) */
	uint64_t placeholders; /* handles never named, replayed under NR_UNNAMED_DIR */
	uint64_t hostile;      /* names refused: '..', '.', '/', NUL, empty, too long */
	uint64_t escapes;      /* paths that resolved outside the target (EXDEV): refused */
	uint64_t outside_root; /* paths outside --root-path: refused */
	uint64_t special;      /* FIFOs, sockets, devices where a call moves data: refused */
	uint64_t
	    linked; /* files with a link from elsewhere (not the replay's) to change: refused */
	uint64_t other_rpc; /* MOUNT, PORTMAP and callback calls: not replayed */
	uint64_t bytes_read, bytes_written, cap_bytes_read, cap_bytes_written;
	/* WRITEs whose payload the capture does not hold whole (snaplen, gaps, the memory for
	 * payloads): the rest is written as a generated pattern */
	uint64_t payload_cut, payload_cut_bytes;
	uint64_t attrs_skipped; /* calls whose owner or group was not set (not root; v4 names) */
	char v4_root[256]; /* the NFSv4 path found to be the export's root ("" none): one tree */
	uint64_t same, diverged; /* outcomes over all procedures */
	uint64_t errors;         /* calls that failed in the replay (whatever the capture said) */
	uint64_t capture_span_ns, replay_span_ns;
	uint64_t dep_waits, file_waits, depth_waits;
	unsigned streams, max_inflight;
	bool stopped;
	int64_t start_real_ns;
	uint64_t t0_ns; /* CLOCK_MONOTONIC at the first call's issue */
	struct hist lag;
	struct nr_proc *procs;
	unsigned nprocs;
	struct nr_div *divs;
	unsigned ndivs;
	uint64_t divs_other; /* divergences past the table's cap */
	struct nr_div_shown shown[NR_DIVERGENCES_SHOWN];
	unsigned nshown;
	/* --prepare */
	uint64_t prep_dirs, prep_files, prep_links, prep_bytes, prep_failed;
	/* names map */
	uint64_t nodes, untracked;
	size_t peak_mem; /* bytes held by the replay's own tables at most */
};

/* Replay the capture; 0 with st filled (also when stopped), or -errno with e filled. */
int nfs_replay_run(const struct nfs_replay_opts *o, struct nfs_replay_stats *st, struct iot_err *e);
void nfs_replay_stats_release(struct nfs_replay_stats *st);
/* The summary as a JSON document (a string the caller frees), or NULL. */
char *nfs_replay_json(const struct nfs_replay_opts *o, const struct nfs_replay_stats *st);
/* "NFS3ERR_NOENT" / "NFS4ERR_NOENT" or a number, for messages. */
void nr_status_str(uint32_t status, unsigned vers, char *buf, size_t len);
/* The NFS status (nfsstat3 and nfsstat4 agree on these) for an errno. */
uint32_t nr_errno_status(int err);
/* The mount a directory is on (/proc/self/mountinfo: the longest mount point above it). */
struct nr_mount {
	char mountpoint[4096], fstype[64], source[1024], options[1024];
};
int nr_mount_of(const char *dir, struct nr_mount *m);
/* The block device a directory's filesystem is on ("/dev/vdb1", malloc'ed: what --capture
 * traces under an NFS replay onto a directory), or NULL when there is none (tmpfs, NFS, ...). */
char *nr_dir_device(const char *dir);
/* --verify: a tree beside a reference, name by name. */
#define NR_VERIFY_SHOWN 20u
struct nfs_verify_result {
	uint64_t entries;     /* names compared (in either tree) */
	uint64_t differences; /* names missing on one side, or whose type, mode, size, links,
	                       * link target, device or content differ */
	uint64_t bytes;       /* bytes read for the content hashes */
	struct {
		char path[512];
		char what[512];
	} shown[NR_VERIFY_SHOWN]; /* the first differences */
	unsigned nshown;
};
/* tree and ref: a directory or an nfs:// URL; 0 with r filled, or -errno with e filled. */
int nfs_replay_verify(const char *tree, const char *ref, struct nfs_verify_result *r,
                      struct iot_err *e);
/* nfs_replay_json() with a "verify" object (ref, v's counts and its first differences) when v is
 * not NULL: the document of a replay checked with --verify. A string the caller frees, or NULL. */
char *nfs_replay_json_verified(const struct nfs_replay_opts *o, const struct nfs_replay_stats *st,
                               const char *ref, const struct nfs_verify_result *v);
/* The summary as the text a person reads (iotape replay CAPTURE without --json) into f
 * (replay/nfs_text.c): the header, a line per procedure, the divergences, and the lines of
 * calls refused, late or not replayed only when there were any. */
void nfs_replay_text(FILE *f, const struct nfs_replay_opts *o, const struct nfs_replay_stats *st);
/* --verify's result as text into f: the counts against ref, then the first differences. */
void nfs_verify_text(FILE *f, const char *ref, const struct nfs_verify_result *v);
/* --root-fh HEX */
int nr_parse_fh(const char *hex, uint8_t *fh, unsigned *len);
/* An output directory (opt names it: "--record") that is the target directory, lies inside it
 * or contains it (by device and inode, after symbolic links): -EINVAL with e filled; else 0.
 * Nothing is created. */
int nfs_replay_check_output(const char *opt, const char *out, const char *target,
                            struct iot_err *e);

#endif
