/* SPDX-License-Identifier: MIT */
/* Frames to NFS transactions: the glue the CLI, the tests and the fuzzer share. */
#include "formats/nfs_pipe.h"

#include <errno.h>
#include <stdlib.h>
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
	if (p->frame_fn)
		p->frame_fn(p->frame_arg, s == PKT_OK ? &k : NULL, ts_ns);
	if (s != PKT_OK) {
		p->n.skipped[s]++;
		return;
	}
	tcp_table_packet(p->tcp, &k);
}

int nfs_pipe_run(struct nfs_pipe *p, struct pcap_src *src, struct iot_err *e)
{
	struct nfs_pipe_file f = {.name = ""};
	unsigned bad;
	int ret = nfs_pipe_run_many(p, &src, &f, 1, e, &bad);

	p->files = NULL;
	p->nfiles = 0;
	return ret;
}

/* Each capture's next frame, kept until it is the earliest of all. */
struct head {
	const uint8_t *f;
	uint32_t caplen;
	uint64_t ts;
	bool have;
};

static int advance(struct pcap_src *src, struct head *h, struct nfs_pipe_file *f, struct iot_err *e)
{
	int ret = pcap_src_next(src, &h->f, &h->caplen, &h->ts, e);

	h->have = ret == 1;
	if (ret == -ENODATA) {
		f->truncated = 1;
		return 0;
	}
	return ret < 0 ? ret : 0;
}

int nfs_pipe_run_many(struct nfs_pipe *p, struct pcap_src **src, struct nfs_pipe_file *files,
                      unsigned n, struct iot_err *e, unsigned *bad)
{
	struct head one, *h = n == 1 ? &one : calloc(n, sizeof(*h));
	unsigned i;
	int ret = 0;

	if (!h)
		return iot_err_set(e, -ENOMEM, "out of memory");
	p->files = files;
	p->nfiles = n;
	for (i = 0; i < n; i++) {
		files[i].dlt = pcap_src_dlt(src[i]);
		files[i].gzip = pcap_src_gzip(src[i]);
		if (!i)
			p->n.dlt = files[i].dlt;
		p->n.gzip |= files[i].gzip;
	}
	for (i = 0; i < n && !ret; i++)
		if ((ret = advance(src[i], &h[i], &files[i], e)))
			*bad = i;
	while (!ret) {
		unsigned k = n;

		/* few captures: a scan beats a heap; equal times keep the order given */
		for (i = 0; i < n; i++)
			if (h[i].have && (k == n || h[i].ts < h[k].ts))
				k = i;
		if (k == n)
			break;
		files[k].frames++;
		nfs_pipe_frame(p, pcap_src_frame_dlt(src[k]), h[k].f, h[k].caplen, h[k].ts);
		if ((ret = advance(src[k], &h[k], &files[k], e)))
			*bad = k;
	}
	for (i = 0; i < n; i++)
		p->n.truncated |= files[i].truncated;
	if (h != &one)
		free(h);
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
