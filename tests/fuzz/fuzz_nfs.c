/* SPDX-License-Identifier: MIT */
/* libFuzzer target: bytes through pcap -> TCP/UDP -> RPC -> NFS -> statistics -> JSON. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/nfs_stats.h"
#include "formats/instream.h"
#include "formats/nfs_names.h"
#include "formats/nfs_pipe.h"

/*
 * Two input shapes, chosen by the first bytes:
 *  - a capture file (pcap, pcapng magic): read through libpcap from a memory FILE;
 *  - anything else: a list of segments [flags u8][len u16 be][bytes], fed straight to the
 *    TCP layer between one client and one server, so the fuzzer reaches record marking,
 *    RPC and NFS without having to build IP headers. flags bit 0: server to client; bit 1:
 *    UDP; bit 2: skip 100 sequence numbers before (a gap); bit 3: resend the previous bytes
 *    (retransmission); bit 4: SYN; bit 5: FIN; bit 6: captured length is half the bytes.
 */
static void run_segments(struct nfs_pipe *p, const uint8_t *d, size_t n)
{
	uint32_t seq[2] = {1000, 500000};
	uint64_t ts = 1;
	size_t i = 0;

	while (i + 3 <= n) {
		uint8_t fl = d[i];
		uint32_t len = (uint32_t)d[i + 1] << 8 | d[i + 2];
		int dir = fl & 1;
		struct pkt k;

		i += 3;
		if (len > n - i)
			len = (uint32_t)(n - i);
		memset(&k, 0, sizeof(k));
		k.ts_ns = ts++ * 1000;
		k.proto = fl & 2 ? 17 : 6;
		k.src = (struct net_endpoint){{4, {10, 0, 0, dir ? 2 : 1}}, dir ? 2049 : 800};
		k.dst = (struct net_endpoint){{4, {10, 0, 0, dir ? 1 : 2}}, dir ? 800 : 2049};
		if (fl & 4)
			seq[dir] += 100;
		if ((fl & 8) && len)
			seq[dir] -= len;
		k.seq = seq[dir];
		k.tcp_flags = (uint8_t)((fl & 16 ? TCPF_SYN : 0) | (fl & 32 ? TCPF_FIN : 0));
		k.payload = d + i;
		k.len = len;
		k.caplen = fl & 64 ? len / 2 : len;
		tcp_table_packet(p->tcp, &k);
		if (fl & 16)
			seq[dir]++;
		seq[dir] += len;
		i += len;
	}
}

struct sinks {
	struct nfs_stats s;
	struct nfs_names *m;
};

/* The handle -> path map beside the statistics: every node a transaction names is rendered. */
static void on_txn(void *arg, const struct rpc_txn *t)
{
	struct sinks *k = arg;
	uint32_t id = nfs_names_txn(k->m, t);
	char buf[300];

	if (id != NFS_NAME_NONE)
		nfs_names_path(k->m, id, buf, sizeof(buf));
	nfs_stats_txn(&k->s, t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sinks k;
	struct nfs_names_cfg ncfg = {.max_nodes = 64};
	struct nfs_pipe p;
	struct tcp_cfg tcfg = {.ooo_cap = 8192, .ooo_total = 65536, .max_conns = 16};
	struct rpc_dec_cfg rcfg = {.max_pending = 256};
	struct nfs_stats_cfg scfg = {.interval_ns = 1000000, .top = 3};
	json_t *j;

	if (nfs_names_new(&k.m, &ncfg))
		return 0;
	if (nfs_stats_init(&k.s, &scfg) || nfs_pipe_init(&p, &tcfg, &rcfg, on_txn, &k)) {
		nfs_names_free(k.m);
		return 0;
	}
	if (size >= 4 &&
	    (!memcmp(data, "\xd4\xc3\xb2\xa1", 4) || !memcmp(data, "\x4d\x3c\xb2\xa1", 4) ||
	     !memcmp(data, "\xa1\xb2\xc3\xd4", 4) || !memcmp(data, "\xa1\xb2\x3c\x4d", 4) ||
	     !memcmp(data, "\x0a\x0d\x0d\x0a", 4))) {
		struct in_stream *in;
		struct pcap_src *src;
		struct iot_err e;

		if (in_stream_open_mem(&in, data, size, "fuzz", &e) == 0 &&
		    pcap_src_open_stream(&src, in, &e) == 0) {
			nfs_pipe_run(&p, src, &e);
			pcap_src_free(src);
		}
	} else {
		run_segments(&p, data, size);
	}
	nfs_pipe_finish(&p);
	j = nfs_stats_json(&k.s, &p);
	json_decref(j);
	nfs_pipe_release(&p);
	nfs_stats_release(&k.s);
	nfs_names_free(k.m);
	return 0;
}
