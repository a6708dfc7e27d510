/* SPDX-License-Identifier: MIT */
/* An NFS call seen from both ends: a run set's captures matched, response times split. */
#ifndef IOTAPE_ANALYZE_NFS_ENDS_H
#define IOTAPE_ANALYZE_NFS_ENDS_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"
#include "formats/pcap_src.h"
#include "formats/rpc.h"

#define NFS_ENDS_MAX_HOSTS 256 /* as a run set's */
/* two sightings of one (connection, XID) are one call only when their calls, put on the
 * common clock, are this close: an XID comes back on a connection only after 2^32 calls */
#define NFS_ENDS_WINDOW_NS 10000000000ull
#define NFS_ENDS_MAX_CALLS 10000u /* calls listed one by one in the JSON (all are counted) */

/*
 * Each host's capture is read on its own (every transaction kept: 80 bytes each); then a
 * call seen by two hosts (the same client address:port, server address:port and XID, NAT-free,
 * calls within NFS_ENDS_WINDOW_NS on the common clock) is one call seen from both ends. The
 * server's end is, per connection, the host whose call-to-reply times sum to less: the
 * server's time lies inside the client's, whatever the clocks' offsets. Per call:
 *   server = reply - call at the server (its own clock)
 *   total  = reply - call at the client (its own clock)
 *   rest   = total - server: the network both ways and the client's side (queueing in its
 *            stack below the capture point is not seen: the capture is where "client" is)
 *   out, back = the request's and the reply's legs: the server's call minus the client's, the
 *            client's reply minus the server's, on the common clock (the offsets applied);
 *            out + back = rest
 * Offsets are right within the two hosts' errors (bound = error_a + error_b): a negative
 * value within the bound is clock error; beyond it, it is flagged (a clock stepped, a
 * capture's time stamps off).
 */
struct nfs_ends;

int nfs_ends_new(struct nfs_ends **out);
/* A host of the set: its name, its CLOCK_REALTIME minus the common clock and that offset's
 * error. Its index (0, 1, ...), or -ENOMEM, -E2BIG past NFS_ENDS_MAX_HOSTS. */
int nfs_ends_add_host(struct nfs_ends *x, const char *name, int64_t offset_ns, uint64_t error_ns);
/* One transaction of host h's capture, its times on h's clock. 0 or -ENOMEM. */
int nfs_ends_txn(struct nfs_ends *x, unsigned h, const struct rpc_txn *t);
/* Every transaction of a capture of host h. 0, -ENOMEM, or a read error (e filled); bad
 * bytes after good frames end the capture there (*partial set, e says why). */
int nfs_ends_read(struct nfs_ends *x, unsigned h, struct pcap_src *src, int *partial,
                  struct iot_err *e);
/* Match the hosts' calls and split them. 0 or -ENOMEM. */
int nfs_ends_match(struct nfs_ends *x);

/* One call matched at both ends (after nfs_ends_match), in the order of the client's calls. */
struct nfs_ends_call {
	uint32_t xid;
	unsigned client_host, server_host;
	const char *version, *procedure;
	uint64_t call_ns; /* the client's call, on the common clock */
	int replied;      /* both ends saw the reply; the times below only then */
	uint64_t server_ns, total_ns;
	int64_t rest_ns, out_ns, back_ns;
	uint64_t bound_ns; /* the clocks' alignment error for this pair of hosts */
};
size_t nfs_ends_ncalls(const struct nfs_ends *x);
void nfs_ends_call(const struct nfs_ends *x, size_t i, struct nfs_ends_call *c);
/* Per host: transactions read, matched with another host's, unmatched. */
void nfs_ends_host_counts(const struct nfs_ends *x, unsigned h, uint64_t *txns, uint64_t *matched,
                          uint64_t *unmatched);

/* The "nfs_ends" object (docs/json.md), or NULL when out of memory. */
json_t *nfs_ends_json(const struct nfs_ends *x);
/* The same as text for a person. */
void nfs_ends_text(FILE *f, const struct nfs_ends *x);
void nfs_ends_free(struct nfs_ends *x);

#endif
