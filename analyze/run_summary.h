/* SPDX-License-Identifier: MIT */
/* One run through the analysis: its `iotape analyze --json` summary, block trace and packets. */
#ifndef IOTAPE_ANALYZE_RUN_SUMMARY_H
#define IOTAPE_ANALYZE_RUN_SUMMARY_H

#include <stdbool.h>

#include <jansson.h>

#include "analyze/blk_analysis.h"
#include "analyze/nfs_stats.h"
#include "common/err.h"
#include "formats/nfs_pipe.h"
#include "formats/rpc.h"

struct pcap_src;
struct idle_explain;
struct pkt;
struct manifest;
struct bt_stats;
struct bt_comm_table;
struct blk_bycg;
struct devref;
struct blk_figures;
struct run_nfs;

/* One host of a run set for run_summary_hosts(): the caller's, kept until run_summary_json(). */
struct run_host {
	struct bt_reader *rd;     /* its block trace, fresh; NULL: a host with packets alone */
	const struct manifest *m; /* its manifest, with clock pairs */
	const char *name, *path;  /* what the document calls it, and where it was read */
	int64_t real_off_ns;      /* its measured clock offset in a run set (struct ie_clock) */
};

/*
 * What report and compare read of a run: the document `iotape analyze --json` prints (the
 * block sinks' devices[] and span, the NFS statistics' "nfs"), and the block pass itself for a
 * caller that draws its sinks' series. Each figure is computed once, by its sink.
 */
struct run_summary {
	json_t *doc;
	/* the options of both passes (run_summary_init()'s): the block sinks', and the NFS
	 * statistics' top and bins (interval_ns, unless nfs_interval_ns says otherwise) */
	struct blk_opts o;
	struct blk_analysis *blk; /* after run_summary_block(), finished */
	struct idle_explain *x;   /* its gaps explained (analyze/idle_explain.h), as analyze does */
	bool has_block, has_nfs;
	bool from_summary; /* after run_summary_file(): figures without records, blk NULL */
	/* for run_summary_file(): the bin width and idle threshold the user asked for (0: none
	 * asked: the summary's own); a summary holds its capture's and cannot give finer */
	uint64_t want_interval_ns, want_idle_ns;
	uint64_t nfs_interval_ns; /* the NFS timeline's bin width (0: o.interval_ns) */
	/* optional, for run_summary_packets(): the run's manifest (clock pairs, addresses: the
	 * packets laid over the gaps on the block trace's clock; kept by the caller meanwhile),
	 * and a hook that sees every frame too (as nfs_pipe's frame_fn) */
	const struct manifest *clock;
	/* optional, for run_summary_block(): the run's manifest, its devices' key, role and group
	 * (into the document, and to the rules that explain the gaps; kept by the caller during
	 * the call) */
	const struct manifest *ident;
	void (*frame_fn)(void *arg, const struct pkt *p, uint64_t ts_ns);
	void *frame_arg;
	/* optional, for run_summary_block(): this host's CLOCK_REALTIME minus the common one (a
	 * run set's measured offset, struct ie_clock's real_off_ns); then, after the pass, where
	 * its first event falls on that common realtime clock (by the clock pairs, else the
	 * trace's TIMESTAMP, as analyze places a run set's hosts), when it can be placed */
	int64_t real_off_ns;
	bool have_real_start;
	int64_t real_start_ns;
	/* optional, for run_summary_pass(): the block figures also split by cgroup (the paths
	 * from ident's "cgroups") */
	bool by_cgroup;
	/* after run_summary_pass() or run_summary_hosts(): the pass ran (after an error too: its
	 * sinks hold what came before, finished, the gaps explained), and what it read */
	bool passed;
	uint64_t events, notifies, messages;
	struct blk_bycg *cg;          /* by_cgroup's passes */
	struct bt_comm_table *comms;  /* several traces merged: their process names */
	const struct run_host *hosts; /* run_summary_hosts()'s, with a pass each */
	struct blk_analysis **hblk;
	unsigned nhosts;
	/* after run_summary_json(): each device of the document's devices[], its pass and
	 * position there (blk_doc_write()) */
	struct devref *refs;
	/* after run_summary_file(): each device of devices[], its figures (no pass to read
	 * them from: analyze/blk_figures.h) */
	struct blk_figures *figs;
	unsigned nfigs;
	/* after run_summary_captures(): its NFS pipeline and statistics (a text view's, and the
	 * decoders' counts), until the next call or run_summary_release() */
	struct run_nfs *nfs;
};

/*
 * Each device of a document's devices[] (blk_analysis_to_json()'s) with what manifest m says
 * it is (NULL: nothing): "key" (how it is known across runs: capture's key, else its kernel
 * name, else "MAJOR,MINOR"), "role" and "group" (null when not known). With host, only the
 * devices of that host ("host" key). 0 or -ENOMEM.
 */
int blk_ident_json(json_t *devices, const struct manifest *m, const char *host);

/* o: the options of every pass of the run (NULL: blk_opts_init()'s). 0 or -ENOMEM. */
int run_summary_init(struct run_summary *r, const struct blk_opts *o);
void run_summary_release(struct run_summary *r);

/*
 * The block traces rd[0..n-1] (fresh readers) merged by time through one pass with the run's
 * options, the gaps explained on the clock of ident (run_explain_new()) or rd[0]'s TIMESTAMP;
 * setup(ctx, pass), when given, runs before the first event (to add sinks). 0, or -errno (e
 * filled): with passed, an error stopped a trace after the pass began, and the sinks hold what
 * came before it (the caller says whether that makes partial results).
 */
int run_summary_pass(struct run_summary *r, struct bt_reader **rd, unsigned n,
                     int (*setup)(void *ctx, struct blk_analysis *a), void *ctx, struct iot_err *e);
/*
 * The hosts h[0..n-1] of a run set, a pass each, all read in the order of one clock (the
 * first's trace clock, through each manifest's clock pairs) and each gap explained by every
 * host (analyze/idle_explain.h); setup(ctx, host, its pass), when given, runs before the first
 * event (to add sinks to each host's pass). 0 or -errno as run_summary_pass() (*bad: the host
 * at fault).
 */
int run_summary_hosts(struct run_summary *r, const struct run_host *h, unsigned n,
                      int (*setup)(void *ctx, unsigned host, struct blk_analysis *a), void *ctx,
                      struct iot_err *e, unsigned *bad);
/*
 * Host h's devices, from its pass a, into doc's devices[] as a run's (blk_analysis_to_json()),
 * each with its "host" (h's name, set here once: the explanations of the gaps find a host's
 * devices by it) and what h's manifest says it is (blk_ident_json()). 0 or -ENOMEM.
 */
int run_host_devices_json(struct blk_analysis *a, const struct run_host *h, json_t *doc);
/*
 * A run set's host for run_summary_set(): its block trace and manifest (host), its packets
 * (src, NULL: none; the caller's) and the hooks that see them (as run_summary_captures()'s
 * also and run_summary's frame_fn); after the call, its document (doc, taken by the caller):
 * what run_summary_block() and run_summary_packets() give its run alone, but each gap
 * explained by every host as `iotape analyze SET` explains it and each device with its "host"
 * (run_host_devices_json()); and where its first event
 * falls on the set's realtime clock (as run_summary's real_start_ns).
 */
struct run_set_host {
	struct run_host host;
	struct pcap_src *src;
	rpc_txn_fn also;
	void *ctx;
	void (*frame_fn)(void *arg, const struct pkt *p, uint64_t ts_ns);
	void *frame_arg;
	json_t *doc;
	bool have_real_start;
	int64_t real_start_ns;
};
/*
 * A run set read as `iotape analyze SET` reads it: run_summary_hosts() (setup as there), then
 * each host's packets laid over every host's gaps (before host i's, packets(ctx, i, &h[i]),
 * when given, may set its hooks), each host's document into h[i].doc. The passes stay in r
 * (r->hblk[i]: host i's, its sinks' series). 0, or -errno (e filled, *bad: the host at fault);
 * 1 when bad bytes stopped a trace or capture after good records: the documents hold what came
 * before, e says what stopped it.
 */
int run_summary_set(struct run_summary *r, struct run_set_host *h, unsigned n,
                    int (*setup)(void *ctx, unsigned host, struct blk_analysis *a),
                    void (*packets)(void *ctx, unsigned host, struct run_set_host *h), void *ctx,
                    struct iot_err *e, unsigned *bad);
/*
 * After a pass: its figures into root as `iotape analyze --json` lays them out (devices[]
 * with what the manifests say they are and their gaps explained, the span, the timeline's
 * keys; the cgroups' with by_cgroup; for hosts, "hosts", each device with its host, and the
 * clocks' alignment), and refs. 0 or -ENOMEM.
 */
int run_summary_json(struct run_summary *r, json_t *root);
/*
 * The "input" object of analyze's document after a pass over the traces rd[0..n-1] (NULL: a
 * host with packets alone), read from path[0..n-1]: each file as its reader saw it, what the
 * pass read, whether an error (stop, NULL: none) cut it short, and warnings (taken).
 */
json_t *run_summary_input_json(const struct run_summary *r, struct bt_reader *const *rd,
                               const char *const *path, unsigned n, const char *stop,
                               json_t *warnings);
/*
 * Every event of rd through a pass with the run's options (blk_analysis_read()); setup(ctx, pass),
 * when given, runs before the first event (to add sinks). Adds devices[], span_ns and the
 * timeline's keys to doc, the devices' timelines left out (null), and each device's idle gaps
 * explained by the others (idle.longest[].explain, idle.explain). 0 or -errno (e filled);
 * 1 when bad bytes stopped the trace after good records: the summary holds what came before
 * them, doc's "input" says {"partial": true, "error": e's message}, e says what stopped it.
 */
int run_summary_block(struct run_summary *r, struct bt_reader *rd,
                      int (*setup)(void *ctx, struct blk_analysis *a), void *ctx,
                      struct iot_err *e);
/*
 * A summary run (capture --detail summary, no records): its summary.json at path into doc as
 * analyze lays it out (analyze/blk_summary.h; top o.top, the bins and threshold of
 * want_interval_ns and want_idle_ns), "input" naming it. Every command that reads a summary
 * run takes its figures from here. 0 or -errno (e filled: -EINVAL for a file that is no
 * summary, -ERANGE for bins or a threshold finer than it holds).
 */
int run_summary_file(struct run_summary *r, const char *path, struct iot_err *e);
/*
 * Packet captures through the run's NFS pipeline (struct run_nfs below: its statistics with
 * the run's top and bins), as host's: after a block pass, every frame and NFS call laid over
 * the gaps (on host 0's clock with the clock pairs of clock, when given); into gets the "nfs"
 * object, devices (when given) the explanations of their gaps rewritten after. Each frame and
 * transaction to frame_fn and also too. 0, or -errno (e filled, prefixed with the name of the
 * capture at fault when files are given; *bad: which); 1 when bad bytes stopped a capture after
 * good frames: "nfs"'s "input" says so, r->nfs holds what came before.
 */
struct run_captures {
	struct pcap_src **src;
	struct nfs_pipe_file *files; /* their names, merged by time (NULL: one capture) */
	unsigned n, host;
	json_t *into, *devices;
	rpc_txn_fn also;
	void *ctx;
};
int run_summary_captures(struct run_summary *r, const struct run_captures *c, struct iot_err *e,
                         unsigned *bad);
/* Every packet of src through the RPC decoder into the NFS statistics ("nfs" in doc); also,
 * when given, sees every transaction too. After a block pass, the packets and NFS calls are
 * laid over its gaps (the devices' "idle" explanations rewritten). 0 or -errno (e filled); 1 for
 * partial results, as above ("nfs"'s "input" marked). */
int run_summary_packets(struct run_summary *r, struct pcap_src *src, rpc_txn_fn also, void *ctx,
                        struct iot_err *e);

/*
 * The parts every command wires the same way (iotape analyze, which merges several traces and
 * hosts, and the run summary above): one rule, one set of options.
 *
 * The explanation of a pass's gaps (analyze/idle_explain.h), top o->top, on the clock of
 * manifest m: its clock pairs when it has them (m kept by the caller until
 * idle_explain_block_done() and as long as the packets are placed), else the trace's
 * TIMESTAMP, told by run_explain_block_done(). m also says what the devices are. 0 or -ENOMEM.
 */
int run_explain_new(struct idle_explain **x, struct blk_analysis *a, const struct blk_opts *o,
                    const struct manifest *m);
/* After the pass over the trace whose reader's statistics are st (NULL: none): without clock
 * pairs in m, the trace's TIMESTAMP places it on the realtime clock; the longest gaps kept. */
void run_explain_block_done(struct idle_explain *x, const struct manifest *m,
                            const struct bt_stats *st);
/* The realtime clock a trace's TIMESTAMP gives (st: its reader's statistics; none: no clock). */
struct ie_clock;
struct ie_clock run_trace_clock(const struct bt_stats *st);

/*
 * The NFS pipeline of a run: every packet through the stream and RPC decoders into the NFS
 * statistics (top o->top, bins interval_ns, 0: o->interval_ns); with x, every frame, call and
 * transaction also laid over host h's gaps (after run_explain_block_done(), on the clock host
 * h has then); also and frame_fn, when set before run_nfs_read(), see every transaction and
 * frame too.
 */
struct run_nfs {
	struct nfs_stats s;
	struct nfs_pipe p;
	struct idle_explain *x;
	rpc_txn_fn also;
	void *ctx;
	void (*frame_fn)(void *arg, const struct pkt *p, uint64_t ts_ns);
	void *frame_arg;
};
int run_nfs_init(struct run_nfs *n, const struct blk_opts *o, uint64_t interval_ns,
                 struct idle_explain *x, unsigned h);
/* The captures src[0..count-1] merged by time (nfs_pipe_run_many(); files NULL: one capture,
 * nfs_pipe_run()). 0 or -errno (e filled, *bad the capture at fault). */
int run_nfs_read(struct run_nfs *n, struct pcap_src **src, struct nfs_pipe_file *files,
                 unsigned count, struct iot_err *e, unsigned *bad);
/* End of input: the statistics finished and their "nfs" object (NULL: out of memory), its
 * "input" saying whether stop (non-NULL) cut it short, and why. */
json_t *run_nfs_finish(struct run_nfs *n, const struct iot_err *stop);
void run_nfs_release(struct run_nfs *n);

#endif
