/* SPDX-License-Identifier: MIT */
/* Helpers for the tests that lay NFS calls over gaps: a hand-built answered or pending call. */
#ifndef IOTAPE_TEST_RPC_TXNS_H
#define IOTAPE_TEST_RPC_TXNS_H

#include <string.h>

#include "formats/rpc.h"

/* An NFS call at c (ns, wall clock) answered at r; r 0: never answered. */
static inline struct rpc_txn nfs_call(uint64_t c, uint64_t r)
{
	struct rpc_txn t;

	memset(&t, 0, sizeof(t));
	t.kind = RPC_KIND_NFS;
	t.call_ns = c;
	t.reply_ns = r;
	t.replied = r != 0;
	return t;
}

#endif
