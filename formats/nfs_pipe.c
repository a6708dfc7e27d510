/* SPDX-License-Identifier: MIT */
/* Frames to NFS transactions: the glue the CLI, the tests and the fuzzer share. */
#include "formats/nfs_pipe.h"

#include <string.h>

int nfs_pipe_init(struct nfs_pipe *p, const struct tcp_cfg *tcfg, const struct rpc_dec_cfg *rcfg,
		  rpc_txn_fn fn, void *arg)
{
	int ret;

	memset(p, 0, sizeof(*p));
	ret = rpc_dec_new(&p->rpc, rcfg, fn, arg);
	if (ret)
		return ret;
	ret = tcp_table_new(&p->tcp, tcfg, rpc_dec_record, p->rpc);
	if (ret) {
		rpc_dec_free(p->rpc);
		p->rpc = NULL;
	}
	return ret;
}

void nfs_pipe_frame(struct nfs_pipe *p, int dlt, const uint8_t *frame, uint32_t caplen,
		    uint64_t ts_ns)
{
	struct pkt k;
	enum pkt_skip s;

	if (!p->n.frames++)
		p->n.first_ns = ts_ns;
	if (ts_ns > p->n.last_ns)
		p->n.last_ns = ts_ns;
	s = pkt_decode(dlt, frame, caplen, ts_ns, &k);
	if (s != PKT_OK) {
		p->n.skipped[s]++;
		return;
	}
	tcp_table_packet(p->tcp, &k);
}

int nfs_pipe_run(struct nfs_pipe *p, struct pcap_src *src, struct iot_err *e)
{
	const uint8_t *f;
	uint32_t caplen;
	uint64_t ts;
	int dlt = pcap_src_dlt(src), ret;

	p->n.dlt = dlt;
	p->n.gzip = pcap_src_gzip(src);
	while ((ret = pcap_src_next(src, &f, &caplen, &ts, e)) == 1)
		nfs_pipe_frame(p, dlt, f, caplen, ts);
	if (ret == -ENODATA) {
		p->n.truncated = 1;
		ret = 0;
	}
	return ret;
}

void nfs_pipe_finish(struct nfs_pipe *p)
{
	tcp_table_finish(p->tcp);
	rpc_dec_finish(p->rpc);
}

size_t nfs_pipe_mem(const struct nfs_pipe *p)
{
	return tcp_table_mem(p->tcp) + rpc_dec_mem(p->rpc);
}

void nfs_pipe_release(struct nfs_pipe *p)
{
	tcp_table_free(p->tcp);
	rpc_dec_free(p->rpc);
	p->tcp = NULL;
	p->rpc = NULL;
}
