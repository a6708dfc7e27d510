/* SPDX-License-Identifier: MIT */
/* The packet path in one place: capture frames -> TCP/UDP -> RPC records -> NFS transactions. */
#ifndef IOTAPE_FORMATS_NFS_PIPE_H
#define IOTAPE_FORMATS_NFS_PIPE_H

#include "common/err.h"
#include "formats/pcap_src.h"
#include "formats/rpc.h"
#include "formats/tcp_stream.h"

struct nfs_pipe_counters {
	uint64_t frames;
	uint64_t skipped[PKT_SKIP_MAX]; /* frames not decoded, by reason (enum pkt_skip) */
	uint64_t first_ns, last_ns;     /* capture time span */
	int truncated;                  /* the file ended inside a record */
	int gzip;
	int dlt;
};

/* One capture of several read together. */
struct nfs_pipe_file {
	const char *name;
	uint64_t frames;
	int dlt, gzip, truncated;
};

struct nfs_pipe {
	struct tcp_table *tcp;
	struct rpc_dec *rpc;
	struct nfs_pipe_counters n;
	const struct nfs_pipe_file *files; /* the last nfs_pipe_run_many's (the caller's array) */
	unsigned nfiles;
	/* told of every frame before the stream layer sees it (optional, set after init): p is
	 * NULL for a frame that is not TCP or UDP over IP */
	void (*frame_fn)(void *arg, const struct pkt *p, uint64_t ts_ns);
	void *frame_arg;
};

int nfs_pipe_init(struct nfs_pipe *p, const struct tcp_cfg *tcfg, const struct rpc_dec_cfg *rcfg,
                  rpc_txn_fn fn, void *arg);
void nfs_pipe_frame(struct nfs_pipe *p, int dlt, const uint8_t *frame, uint32_t caplen,
                    uint64_t ts_ns);
/* Read every frame of src; 0, or -errno on a read error (e filled). A truncated last record
 * is not an error: counters.truncated is set. */
int nfs_pipe_run(struct nfs_pipe *p, struct pcap_src *src, struct iot_err *e);
/*
 * The same over n captures merged by time (equal times in the order given): files[i] (the
 * caller's, name filled) gets each one's counts. A read error stops the whole (-errno, e
 * filled, *bad the index of the capture at fault); a truncated last record ends its capture.
 */
int nfs_pipe_run_many(struct nfs_pipe *p, struct pcap_src **src, struct nfs_pipe_file *files,
                      unsigned n, struct iot_err *e, unsigned *bad);
/* End of input: flush streams, report outstanding calls. */
void nfs_pipe_finish(struct nfs_pipe *p);
size_t nfs_pipe_mem(const struct nfs_pipe *p);
void nfs_pipe_release(struct nfs_pipe *p);

#endif
