/* SPDX-License-Identifier: MIT */
/* libFuzzer target: a run set's manifest (runset.json), its hosts' clocks into the two-ended split.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/nfs_ends.h"
#include "formats/runset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The manifest is parsed as analyze reads it; then each host it names sees the same two calls
 * at its own clock (offset and error as the file says, however wild): the matcher, the split
 * and its bounds must hold whatever the offsets.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct runset_host *hosts;
	struct nfs_ends *x;
	struct iot_err e;
	unsigned n;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (runset_parse((const char *)data, size, "SET", &hosts, &n, &e))
		return 0;
	for (unsigned i = 0; i < n; i++)
		if (!hosts[i].run || !hosts[i].name || strncmp(hosts[i].run, "SET/", 4) ||
		    strchr(hosts[i].run + 4, '/'))
			abort(); /* a host's run is a directory of the set, never a path out of it
			          */
	if (nfs_ends_new(&x)) {
		runset_hosts_free(hosts, n);
		return 0;
	}
	for (unsigned i = 0; i < n; i++) {
		int h = nfs_ends_add_host(x, hosts[i].name, hosts[i].offset_ns, hosts[i].error_ns);
		struct rpc_txn t;

		if (h < 0)
			break;
		memset(&t, 0, sizeof(t));
		t.kind = RPC_KIND_NFS;
		t.prog = 100003;
		t.vers = 3;
		t.proc = 6;
		t.client = (struct net_endpoint){{4, {[3] = 1}}, 700};
		t.server = (struct net_endpoint){{4, {[3] = 2}}, 2049};
		for (uint32_t xid = 1; xid <= 2; xid++) {
			t.xid = xid;
			t.call_ns = (uint64_t)hosts[i].offset_ns + xid * 1000000 + i * 1000;
			t.reply_ns = t.call_ns + 100000 - i * 2000;
			t.replied = xid == 1;
			(void)nfs_ends_txn(x, (unsigned)h, &t);
		}
	}
	if (!nfs_ends_match(x)) {
		json_t *j = nfs_ends_json(x);
		struct nfs_ends_call k;

		for (size_t i = 0; i < nfs_ends_ncalls(x); i++) {
			nfs_ends_call(x, i, &k);
			if (k.client_host == k.server_host)
				abort(); /* a call's two ends are two hosts */
		}
		json_decref(j);
		if ((f = open_memstream(&buf, &len))) {
			nfs_ends_text(f, x);
			fclose(f);
		}
		free(buf);
	}
	nfs_ends_free(x);
	runset_hosts_free(hosts, n);
	return 0;
}
