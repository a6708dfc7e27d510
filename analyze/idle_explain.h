/* SPDX-License-Identifier: MIT */
/* Why was the disk idle: each idle gap explained by the other devices, the network and NFS. */
#ifndef IOTAPE_ANALYZE_IDLE_EXPLAIN_H
#define IOTAPE_ANALYZE_IDLE_EXPLAIN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyze/blk_analysis.h"
#include "analyze/blk_idle.h"
#include "formats/pcap_src.h"
#include "formats/rpc.h"

/*
 * A second stage fed by the idle sink (docs/diagnose-idle.md): the idle sink finds the gaps
 * and keeps, per device, how long it has had IO in flight and what it has completed so far
 * (blk_idle_activity()). When a device goes idle this stage notes what every other device had
 * done by then; when the sink counts a gap, the difference is what they did during it. The
 * longest gaps (the sink's "longest") keep that per device, and every gap adds to totals. After
 * the block pass, the run's packets (each one, any protocol) and NFS calls (from the NFS
 * pipeline: +1 at each call, -1 at its reply) are laid over the gaps on the same clock. Then
 * the periodicity of each device's gaps, and a cause per listed gap from a small set of rules.
 *
 * Several hosts (each its own block pass) share one clock: the first host's trace clock, the
 * others' mapped through their manifests' realtime clock pairs; packets are on the realtime
 * clock and mapped the same way.
 */

/* devices compared with each other, over all hosts (the table grows to it as they appear):
 * each keeps what every other did, per listed gap and in all, so memory and JSON grow as the
 * square of the devices; past it they are analyzed, not compared. 256: a run set's 256 hosts
 * of one device, 128 of two (4096 devices in one trace: 316 MB, not 1.7 GB as at 1024) */
#define IE_MAX_DEVICES 256u
#define IE_FLOWS 5u            /* flows listed per gap */
#define IE_FLOW_CAP 1024u      /* flows counted per gap (more: "unclassified") */
#define IE_MAX_GAPS (1u << 20) /* gaps kept per device for the network, NFS and periodicity */
#define IE_MAX_ADDRS 64u       /* local addresses (manifest or inferred) */

/* How a host's trace clock and the realtime clock (packets) meet. */
struct manifest;
struct bt_comm_table;
struct ie_clock {
	const struct manifest *m; /* clock pairs, interpolated (kept by the caller), or NULL */
	bool have_wall;           /* else the trace's TIMESTAMP: realtime = trace + wall_ns */
	int64_t wall_ns;
	/* this host's CLOCK_REALTIME minus the common one, as measured (a run set's ssh round
	 * trips): taken off its realtime; 0 where the hosts' clocks are trusted to agree */
	int64_t real_off_ns;
};

/* What one other device did during a gap, or during all of a device's gaps. */
struct ie_other {
	uint64_t busy_ns; /* time it had a request in flight */
	uint64_t ios, bytes;
	unsigned inflight_start, inflight_end; /* requests in flight at the gap's edges */
	uint64_t gaps_busy;                    /* totals: gaps during which it was ever busy */
};

/* A flow: one direction of a TCP or UDP conversation, with what it carried. */
struct ie_flow {
	uint8_t proto, used;
	struct net_endpoint src, dst;
	uint64_t packets, bytes;
};

struct ie_flows {
	struct ie_flow *f;
	unsigned n, cap;
	uint64_t over_packets, over_bytes; /* past IE_FLOW_CAP flows: direction unknown */
};

/* One capture's packets during a gap (or all of a device's gaps). */
struct ie_net {
	uint64_t packets, bytes; /* TCP and UDP packets, their payload bytes */
	uint64_t frames_other;   /* other frames (not TCP or UDP over IP) */
	struct ie_flows flows;
};

/* One capture's NFS calls during a gap (or all of a device's gaps). */
struct ie_nfs {
	double area;       /* calls outstanding x ns */
	uint64_t busy_ns;  /* time with at least one call outstanding */
	unsigned max;      /* most calls outstanding at once */
	uint64_t arrivals; /* calls that arrived */
};

/* In rank order: a gap's label is the first that holds (docs/diagnose-idle.md). */
enum ie_cause {
	IE_HELD,        /* a request waited in the block layer while the device was idle */
	IE_GROUP_DEV,   /* a device of its own group (its journal) had IO in flight, most of it */
	IE_OTHER_DEV,   /* another device, of no known relation (no group known), most of it */
	IE_PERIODIC,    /* one of a series of gaps at a steady period (a sync's timer) */
	IE_NFS,         /* NFS calls outstanding for most of the gap */
	IE_NETWORK,     /* network traffic without disk work */
	IE_NO_WORK,     /* none of the above: nothing was offered to the device */
	IE_OTHER_GROUP, /* a device of another group was busy: said, but it explains nothing */
	IE_CAUSES
};

/* One explained gap (one of a device's longest). */
struct ie_gap {
	struct blk_gap g;     /* as the idle sink counted it (own trace clock) */
	uint64_t cs, ce;      /* on the common clock */
	struct ie_other *oth; /* by device (global index), n_oth of them */
	unsigned n_oth;
	struct ie_net *net; /* by host, for hosts with a capture (NULL before) */
	struct ie_nfs *nfs;
	bool periodic;
	uint32_t causes;     /* bit per enum ie_cause that holds */
	enum ie_cause cause; /* the first that holds */
};

/* A gap as kept for the totals and the periodicity: on the common clock. */
struct ie_span {
	uint64_t cs, ce;
	uint32_t end_pid;   /* the issue's that ended it (by_issue) */
	uint32_t begin_pid; /* the issuer of the IO whose completion began it (has_begin) */
	uint32_t cmd;       /* after the pass: its ending command's index in cmds[] (by_issue) */
	bool by_issue;      /* an issue ended it (not the end of the trace) */
	bool has_begin;
};

struct ie_period {
	bool found;
	uint64_t period_ns, jitter_ns; /* mean and standard deviation of the matching intervals */
	uint64_t min_gap_ns;           /* the series: gaps at least this long */
	unsigned gaps;                 /* gaps at least min_gap_ns long */
	unsigned count;                /* intervals between them within the tolerance */
	uint64_t first_ns;             /* common clock: the first gap end of the series */
};

/* The gaps a command (a thread's name: filestore_sync, kworker/u4:2) ended or began. */
struct ie_cmd {
	char *comm;    /* "?" for pids without a name */
	char *process; /* the process it is a thread of (the manifest's threads), or NULL */
	uint64_t ended, ended_ns; /* gaps it ended with an issue, their time */
	uint64_t began, began_ns; /* gaps whose first IO it issued */
	struct ie_period per;     /* the gaps it ended, at a steady period */
};

struct ie_dev {
	unsigned host, idx, g; /* host, index in its pass, global index */
	uint32_t devno;
	char *key, *role, *group; /* from the run's manifest (NULL: not known) */
	/* what the others had done when this device last went idle */
	uint64_t snap_t;           /* own clock; UINT64_MAX: none */
	unsigned snap_n;           /* devices known then (the others are zero) */
	struct blk_idle_act *snap; /* by global index (the explainer's cap_devs of them) */
	/* totals over all counted gaps */
	struct ie_other *tot; /* by global index (cap_devs of them) */
	uint64_t gaps, gap_ns;
	uint64_t cause_gaps[IE_CAUSES]; /* of the listed gaps */
	struct ie_net *net_tot;         /* by host */
	struct ie_nfs *nfs_tot;
	/* the longest gaps: a min-heap while the pass runs, then in the idle sink's order */
	struct ie_gap *heap;
	unsigned nheap;
	struct ie_gap **top;   /* idle sink order (longest first) */
	struct ie_gap **timed; /* the same, by start */
	unsigned ntop;
	/* every gap, in time order (at most IE_MAX_GAPS; the rest counted) */
	struct ie_span *all;
	size_t nall, cap_all;
	uint64_t all_dropped;
	struct ie_period per;
	/* the gaps by the command that ended them (then began them), most idle time first */
	struct ie_cmd *cmds;
	unsigned ncmds;
	/* cursors while a capture is laid over the gaps: its packets, its NFS calls */
	size_t cur_all, cur_top, ncur_all, ncur_top;
};

struct idle_explain;

int idle_explain_new(struct idle_explain **out, unsigned top);
void idle_explain_free(struct idle_explain *x);
/*
 * A host: its pass (before its first event), a name (NULL for one host), its clocks (copied;
 * a manifest it points to must outlive x). The first host's trace clock is the common clock;
 * another host without clock pairs is an error (-EINVAL). Returns the host's index or -errno.
 */
int idle_explain_add_host(struct idle_explain *x, struct blk_analysis *a, const char *name,
                          const struct ie_clock *clk);
/*
 * Every host's block trace (rd[h], fresh readers; NULL: a host with packets alone) through its
 * pass, all in the order of the common clock, each pass finished at the end of its trace. 0 or
 * -errno (e filled, *bad the host at fault; the passes hold what came before).
 */
int idle_explain_read(struct idle_explain *x, struct bt_reader **rd, struct iot_err *e,
                      unsigned *bad);
/*
 * Host h's run manifest: each device's key, role and group (capture's discovery), which the
 * rules use (a busy device of the gap's own group first), and its threads' processes. m must
 * outlive idle_explain_block_done() (or be let go of by a call with NULL, which keeps what the
 * devices took from it).
 */
void idle_explain_set_manifest(struct idle_explain *x, unsigned h, const struct manifest *m);
/* Host h's process names (pid -> name) for the commands that ended the gaps; it must outlive
 * idle_explain_block_done(). Without it, the pass's own (blk_analysis_comms()). */
void idle_explain_set_comms(struct idle_explain *x, unsigned h, const struct bt_comm_table *c);
/* Host h's clocks, once known (the trace's TIMESTAMP is read with the trace). */
void idle_explain_set_clock(struct idle_explain *x, unsigned h, const struct ie_clock *clk);
/* After every pass has finished: the longest gaps in the idle sinks' order, periodicity. */
void idle_explain_block_done(struct idle_explain *x);

/*
 * Host h's capture, laid over the gaps (after idle_explain_block_done()): every frame, decoded
 * or not (p NULL: not TCP or UDP over IP; ts_ns its time), every new NFS call and every
 * transaction (its reply, or its end unanswered) from the NFS pipeline, then the end. Local
 * addresses (for directions) from the manifest's "network.addresses", else inferred.
 */
void idle_explain_capture_begin(struct idle_explain *x, unsigned h);
void idle_explain_frame(void *x, const struct pkt *p, uint64_t ts_ns);
void idle_explain_call(void *x, const struct rpc_txn *t);
void idle_explain_txn(void *x, const struct rpc_txn *t);
void idle_explain_capture_end(struct idle_explain *x);
/* 0 when packets of the current capture can be placed on the common clock. */
bool idle_explain_capture_mapped(const struct idle_explain *x);

/*
 * The explanations into a document's devices (host h's, as blk_analysis_to_json() made them):
 * "explain" in each listed gap of "idle.longest", and "idle.explain" with the totals (docs/
 * json.md). Again after the captures (it replaces what it wrote). 0 or -ENOMEM.
 */
int idle_explain_json(struct idle_explain *x, unsigned h, json_t *devices);

/* Accessors for the report and the tests. */
unsigned idle_explain_hosts(const struct idle_explain *x);
const char *idle_explain_host_name(const struct idle_explain *x, unsigned h);
unsigned idle_explain_ndevs(const struct idle_explain *x);
const struct ie_dev *idle_explain_dev(const struct idle_explain *x, unsigned g);
const struct ie_dev *idle_explain_find(const struct idle_explain *x, unsigned h, unsigned idx);
/* The host's trace time t on the common clock (and back); false when it cannot be mapped. */
bool idle_explain_to_common(const struct idle_explain *x, unsigned h, uint64_t t, uint64_t *c);
/* The worst alignment error across hosts: the clock pairs' uncertainty (ns). */
uint64_t idle_explain_alignment_ns(const struct idle_explain *x);
/*
 * Were the hosts' traces captured together? After the pass: false, with the reason in msg,
 * when on the common clock two of them do not overlap, or they span more than
 * IE_APART_FACTOR times the longest one (runs of minutes apart, compared as if at once).
 */
#define IE_APART_FACTOR 10
bool idle_explain_hosts_together(const struct idle_explain *x, char *msg, size_t len);
/* Names of the causes ("other_device_busy", ...) and their rules, as docs/diagnose-idle.md. */
const char *idle_cause_name(enum ie_cause c);
const char *idle_cause_rule(enum ie_cause c);
/*
 * Gap k of d's listed gaps when it is the one starting at start (own trace clock; the idle
 * sink's k-th longest), else NULL: what idle_explain_json() writes into longest[k]. Its causes
 * are the bits of causes (rank order), each with the sentence that justifies it, its numbers
 * in it (idle_explain_because(), the JSON's "because").
 */
const struct ie_gap *idle_explain_listed(const struct ie_dev *d, unsigned k, uint64_t start);
void idle_explain_because(const struct idle_explain *x, const struct ie_dev *d,
                          const struct ie_gap *g, enum ie_cause c, char *buf, size_t len);

/*
 * The figures of d's gaps in total (idle_totals.c), computed once: idle_explain_json() writes
 * the document's "explain" from them and analyze's text prints them. Another device's share of
 * gaps of len ns (struct ie_other's, with its percentage), an NFS server's (host h).
 */
struct ie_fig_other {
	const struct ie_dev *dev;
	uint64_t busy_ns, ios, bytes;
	uint64_t gaps_busy; /* totals only */
	double busy_pct;    /* of len */
};
struct ie_fig_nfs {
	unsigned host;
	uint64_t busy_ns; /* the totals' idle_with_work_ns */
	double busy_pct, outstanding_mean;
	unsigned max;
	uint64_t arrivals;
};
/*
 * A capture's packets during gaps of len ns (host h): their rate, by direction from the
 * capture host's addresses (received, sent, between two of its own, neither: forwarded or
 * another host's, not known: past the flow cap or no local address known), the IE_FLOWS flows
 * that carried most bytes. mapped and kept: the host's (its packets were placed on the common
 * clock; what the capture kept of them, the manifest's).
 */
enum { IE_DIR_IN, IE_DIR_OUT, IE_DIR_LOCAL, IE_DIR_OTHER, IE_DIR_UNKNOWN, IE_DIRS };
struct ie_fig_net {
	unsigned host;
	uint64_t packets, bytes, frames_other;
	double mb_per_s; /* 1e6 bytes a second */
	uint64_t dir_packets[IE_DIRS], dir_bytes[IE_DIRS];
	unsigned nflows;
	const struct ie_flow *flows[IE_FLOWS]; /* most bytes first */
	uint8_t flow_dir[IE_FLOWS];
	bool mapped;
	const json_t *kept; /* or NULL */
};
void ie_fig_net(const struct idle_explain *x, unsigned h, const struct ie_net *n, uint64_t len,
                struct ie_fig_net *o);

/* The gaps a command ended or began; past IE_CMDS commands, the rest summed as "(others)". */
#define IE_CMDS 16u
struct ie_fig_cmd {
	const char *comm, *process; /* process NULL: not known */
	uint64_t gaps, total_ns;
	double pct;                  /* of the gaps' time */
	const struct ie_period *per; /* ended_by: the gaps it ended at a steady period, or NULL */
	unsigned commands;           /* "(others)": how many commands it sums; else 0 */
};
struct ie_totals {
	uint64_t gaps_ns;
	unsigned ndevs, nnfs;
	struct ie_fig_other *devs;   /* every other device, in the explainer's order */
	struct ie_fig_nfs *nfs;      /* every host with a capture */
	struct ie_fig_net *net;      /* the same hosts (nnfs of them) */
	const struct ie_period *per; /* the device's gaps at a steady period (per->found) */
	unsigned nended, nbegan;
	struct ie_fig_cmd *ended, *began; /* most idle time first (ended: the explainer's order) */
	const uint64_t *cause_gaps;       /* [IE_CAUSES]: the listed gaps by their cause */
};
struct ie_fig_other ie_fig_other(const struct ie_dev *o, const struct ie_other *r, uint64_t len);
struct ie_fig_nfs ie_fig_nfs(unsigned h, const struct ie_nfs *n, uint64_t len);
/* 0 or -ENOMEM; t released by idle_totals_release() either way. */
int idle_explain_totals(const struct idle_explain *x, const struct ie_dev *d, struct ie_totals *t);
void idle_totals_release(struct ie_totals *t);

/* --- internal to analyze/idle_*.c --- */
struct ie_host {
	struct idle_explain *x;
	unsigned h;
	struct blk_analysis *a;
	struct blk_idle *idle;
	char *name;
	struct ie_clock clk;
	const struct manifest *ident;      /* identities and threads (until block_done) */
	json_t *kept;                      /* what the capture kept of the packets (manifest) */
	const struct bt_comm_table *comms; /* process names (until block_done) */
	struct ie_dev **dev;               /* by the pass's index */
	unsigned ndev;
	bool have_capture;
	bool cap_mapped; /* its packets could be placed on the common clock */
	/* capture facts for the rules */
	uint64_t cap_packets, cap_bytes, cap_first, cap_last;
	struct net_addr local[IE_MAX_ADDRS];
	unsigned nlocal;
	bool local_inferred;
};

struct idle_explain {
	unsigned top;
	/* grown by idle_explain_add_host() only: per host, never per event (a run set's 256 or
	 * more; the callbacks' contexts point into it and are set again when it moves) */
	struct ie_host *host;
	unsigned nhosts, cap_hosts;
	/* every host's devices, compared with each other: grown when a device first appears
	 * (doubling), never per event; each device's snap[] and tot[] grow with it */
	struct ie_dev **devs;
	unsigned ndevs, cap_devs;
	uint64_t untracked; /* devices past IE_MAX_DEVICES */
	bool block_done;
	/* the capture being laid over the gaps */
	int cap;         /* host index, -1: none */
	bool cap_mapped; /* its packets can be placed on the common clock */
	uint64_t now;    /* common clock, the NFS sweep */
	unsigned outstanding;
	/* address counts for inferring the local addresses */
	struct ie_addr_count {
		struct net_addr a;
		uint64_t n;
	} * addrs;
	unsigned naddrs;
	uint64_t addr_packets[2]; /* IPv4, IPv6 packets seen */
};

struct ie_dev *ie_dev_get(struct idle_explain *x, unsigned h, unsigned idx);
bool ie_real_to_common(const struct idle_explain *x, int64_t real, uint64_t *c);
void ie_period_find(struct ie_dev *d, uint64_t threshold_ns);
bool ie_period_member(const struct ie_dev *d, uint64_t cs);
/* The gaps by command (d->cmds) and each command's periodicity. 0 or -ENOMEM. */
int ie_cmds_build(struct idle_explain *x, struct ie_dev *d, uint64_t threshold_ns);
void ie_cmds_free(struct ie_dev *d);
/* The command series gap cs belongs to (its end one period from the next or previous gap the
 * same command ended), or NULL. */
const struct ie_cmd *ie_cmd_member(const struct ie_dev *d, uint64_t cs);
void ie_causes(struct idle_explain *x, struct ie_dev *d);
int ie_flows_add(struct ie_flows *t, const struct pkt *p);
void ie_flows_free(struct ie_flows *t);
bool ie_clock_to_real(const struct ie_clock *c, uint64_t t, int64_t *r);
bool ie_clock_from_real(const struct ie_clock *c, int64_t r, uint64_t *t);
/* The gaps' explanations into analyze's JSON (idle_explain_json(), once the pass is done). */
int ie_json(const struct idle_explain *x, unsigned h, json_t *devices);
int ie_is_local(const struct ie_host *hs, const struct net_addr *a);

#endif
