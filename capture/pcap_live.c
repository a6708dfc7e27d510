/* SPDX-License-Identifier: MIT */
/* Live packet capture with libpcap into RUNDIR/net.pcap (nanosecond timestamps), one thread. */
#include "capture/cap_int.h"

#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "common/jsonint.h"

/*
 * libpcap 1.10 (Debian 12) writes only the classic pcap format (pcap_dump_open); with the
 * handle's precision set to nanoseconds the file gets the nanosecond magic a1b23c4d, which
 * tshark, tcpdump and our reader take. Timestamps are CLOCK_REALTIME (the kernel stamps
 * skbs with ktime_get_real); the manifest's clock pairs map them to the trace clock.
 */
#define PCAP_BUFFER (64 << 20)

struct cap_pcap {
	pcap_t *p;
	pcap_dumper_t *d;
	pthread_t thread;
	int stopping; /* __atomic */
	int err;      /* __atomic */
	char errmsg[PCAP_ERRBUF_SIZE + 64];
	uint64_t packets; /* __atomic */
};

static void on_packet(u_char *arg, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct cap_pcap *c = (struct cap_pcap *)arg;

	pcap_dump((u_char *)c->d, h, bytes);
	__atomic_add_fetch(&c->packets, 1, __ATOMIC_RELAXED);
}

static void *pcap_main(void *arg)
{
	struct cap_pcap *c = arg;
	struct pollfd pfd = {.fd = pcap_get_selectable_fd(c->p), .events = POLLIN};

	for (;;) {
		int stopping = __atomic_load_n(&c->stopping, __ATOMIC_ACQUIRE);
		int n;

		if (!stopping)
			poll(&pfd, 1, 100);
		n = pcap_dispatch(c->p, -1, on_packet, (u_char *)c);
		if (n < 0) {
			snprintf(c->errmsg, sizeof(c->errmsg), "pcap: %s", pcap_geterr(c->p));
			__atomic_store_n(&c->err, -EIO, __ATOMIC_RELEASE);
			break;
		}
		if (pcap_dump_flush(c->d)) {
			snprintf(c->errmsg, sizeof(c->errmsg), "pcap: writing the capture: %s",
			         strerror(errno));
			__atomic_store_n(&c->err, errno ? -errno : -EIO, __ATOMIC_RELEASE);
			break;
		}
		if (stopping && n == 0)
			break;
	}
	return NULL;
}

/*
 * The default filter keeps two things: NFS/RPC packets whole (filter, at the handle's
 * snaplen), and the headers of every other TCP and UDP packet (hdr_filter, hdr_snaplen
 * bytes): the network half of "why was the disk idle" (a Ceph messenger, replication) needs
 * every flow's packets and sizes, not its payload. One classic BPF program does both, in the
 * kernel: a socket filter's return value is how many bytes of the packet are kept. filter's
 * program comes first; its "reject" (ret #0) becomes a jump to hdr_filter's program, which
 * returns hdr_snaplen for what it accepts (compiled on a dead handle of that snaplen).
 * Jumps are relative and forward, so both stay valid where they are.
 */
static int two_level(pcap_t *p, const char *filter, const char *hdr_filter, unsigned hdr_snaplen,
                     struct bpf_program *out, struct iot_err *e)
{
	struct bpf_program a, b;
	pcap_t *dead = pcap_open_dead(pcap_datalink(p), (int)hdr_snaplen);
	struct bpf_insn *ins;
	int ret = 0;

	if (!dead)
		return iot_err_set(e, -ENOMEM, "out of memory");
	if (pcap_compile(p, &a, filter, 1, PCAP_NETMASK_UNKNOWN)) {
		ret = iot_err_set(e, -EINVAL, "filter '%s': %s", filter, pcap_geterr(p));
		goto out;
	}
	if (pcap_compile(dead, &b, hdr_filter, 1, PCAP_NETMASK_UNKNOWN)) {
		ret = iot_err_set(e, -EINVAL, "filter '%s': %s", hdr_filter, pcap_geterr(dead));
		pcap_freecode(&a);
		goto out;
	}
	ins = calloc(a.bf_len + b.bf_len, sizeof(*ins));
	if (!ins) {
		ret = iot_err_set(e, -ENOMEM, "out of memory");
	} else {
		memcpy(ins, a.bf_insns, a.bf_len * sizeof(*ins));
		memcpy(ins + a.bf_len, b.bf_insns, b.bf_len * sizeof(*ins));
		for (unsigned i = 0; i < a.bf_len; i++)
			if (ins[i].code == (BPF_RET | BPF_K) && ins[i].k == 0)
				ins[i] =
				    (struct bpf_insn){BPF_JMP | BPF_JA, 0, 0, a.bf_len - i - 1};
		out->bf_len = a.bf_len + b.bf_len;
		out->bf_insns = ins;
	}
	pcap_freecode(&a);
	pcap_freecode(&b);
out:
	pcap_close(dead);
	return ret;
}

static int activate_error(pcap_t *p, int st, const char *iface, struct iot_err *e)
{
	switch (st) {
	case PCAP_ERROR_NO_SUCH_DEVICE:
		return iot_err_set(e, -ENODEV, "interface '%s' not found", iface);
	case PCAP_ERROR_PERM_DENIED:
		return iot_err_set(e, -EPERM, "interface '%s': permission denied (%s)", iface,
		                   pcap_geterr(p));
	case PCAP_ERROR_IFACE_NOT_UP:
		return iot_err_set(e, -ENETDOWN, "interface '%s' is down", iface);
	default:
		return iot_err_set(e, -EIO, "interface '%s': %s", iface, pcap_geterr(p));
	}
}

int cap_pcap_start(struct cap_pcap **out, const char *iface, const char *filter, unsigned snaplen,
                   const char *hdr_filter, unsigned hdr_snaplen, const char *path,
                   struct iot_err *e)
{
	bool own = false;
	struct cap_pcap *c = calloc(1, sizeof(*c));
	char eb[PCAP_ERRBUF_SIZE] = "";
	struct bpf_program prog;
	int st, ret;

	*out = NULL;
	if (!c)
		return iot_err_set(e, -ENOMEM, "out of memory");
	c->p = pcap_create(iface, eb);
	if (!c->p) {
		free(c);
		return iot_err_set(e, -ENODEV, "interface '%s': %s", iface, eb);
	}
	pcap_set_snaplen(c->p, (int)snaplen);
	pcap_set_promisc(c->p, 0);
	pcap_set_immediate_mode(c->p, 1);
	pcap_set_buffer_size(c->p, PCAP_BUFFER);
	pcap_set_tstamp_precision(c->p, PCAP_TSTAMP_PRECISION_NANO);
	st = pcap_activate(c->p);
	if (st < 0) {
		ret = activate_error(c->p, st, iface, e);
		goto fail;
	}
	if (hdr_filter) {
		if ((ret = two_level(c->p, filter, hdr_filter, hdr_snaplen, &prog, e)))
			goto fail;
		own = true;
	} else if (pcap_compile(c->p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN)) {
		ret = iot_err_set(e, -EINVAL, "filter '%s': %s", filter, pcap_geterr(c->p));
		goto fail;
	}
	st = pcap_setfilter(c->p, &prog);
	if (own)
		free(prog.bf_insns);
	else
		pcap_freecode(&prog);
	if (st) {
		ret = iot_err_set(e, -EINVAL, "filter '%s': %s", filter, pcap_geterr(c->p));
		goto fail;
	}
	if (pcap_setnonblock(c->p, 1, eb)) {
		ret = iot_err_set(e, -EIO, "interface '%s': %s", iface, eb);
		goto fail;
	}
	c->d = pcap_dump_open(c->p, path);
	if (!c->d) {
		ret = iot_err_set(e, -EIO, "'%s': %s", path, pcap_geterr(c->p));
		goto fail;
	}
	ret = pthread_create(&c->thread, NULL, pcap_main, c);
	if (ret) {
		pcap_dump_close(c->d);
		ret = iot_err_set(e, -ret, "cannot start the packet thread");
		goto fail;
	}
	*out = c;
	return 0;
fail:
	pcap_close(c->p);
	free(c);
	return ret;
}

uint64_t cap_pcap_packets(const struct cap_pcap *c)
{
	return __atomic_load_n(&c->packets, __ATOMIC_RELAXED);
}

int cap_pcap_failed(const struct cap_pcap *c)
{
	return __atomic_load_n(&c->err, __ATOMIC_ACQUIRE);
}

int cap_pcap_stop(struct cap_pcap *c, json_t *info, uint64_t *packets, uint64_t *drops,
                  uint64_t *ifdrops, struct iot_err *e)
{
	struct pcap_stat ps = {0};
	int ret;

	__atomic_store_n(&c->stopping, 1, __ATOMIC_RELEASE);
	pthread_join(c->thread, NULL);
	ret = c->err;
	if (ret)
		iot_err_set(e, ret, "%s", c->errmsg);
	if (pcap_stats(c->p, &ps) == 0) {
		*drops = ps.ps_drop;
		*ifdrops = ps.ps_ifdrop;
	}
	*packets = c->packets;
	if (info) {
		json_object_set_new(info, "packets", json_u64(c->packets));
		json_object_set_new(info, "received", json_integer(ps.ps_recv));
		json_object_set_new(info, "drops",
		                    json_pack("{s:I, s:I}", "kernel", (json_int_t)ps.ps_drop,
		                              "interface", (json_int_t)ps.ps_ifdrop));
	}
	if (pcap_dump_flush(c->d) && !ret)
		ret = iot_err_set(e, errno ? -errno : -EIO, "writing the capture: %s",
		                  strerror(errno));
	pcap_dump_close(c->d);
	pcap_close(c->p);
	free(c);
	return ret;
}
