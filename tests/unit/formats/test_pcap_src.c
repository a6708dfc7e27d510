/* SPDX-License-Identifier: MIT */
/* Capture reading: link types, VLAN, IPv4/IPv6, pcap/pcapng/gzip files, bad files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "formats/instream.h"
#include "formats/nfs_pipe.h"
#include "formats/pcap_src.h"
#include "test_nfs_build.h"

/* IPv4 + TCP header + payload into w (RFC 791, RFC 9293) */
static void ipv4_tcp(struct wb *w, const void *pl, uint16_t n, uint16_t sport, uint32_t seq,
                     uint8_t flags, uint16_t frag)
{
	uint16_t tot = (uint16_t)(20 + 20 + n);

	w->b[w->n++] = 0x45;
	w->b[w->n++] = 0;
	w->b[w->n++] = (uint8_t)(tot >> 8);
	w->b[w->n++] = (uint8_t)tot;
	putzero(w, 2);
	w->b[w->n++] = (uint8_t)(frag >> 8);
	w->b[w->n++] = (uint8_t)frag;
	w->b[w->n++] = 64;
	w->b[w->n++] = 6;
	putzero(w, 2);
	putbytes(w, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
	w->b[w->n++] = (uint8_t)(sport >> 8);
	w->b[w->n++] = (uint8_t)sport;
	w->b[w->n++] = 2049 >> 8;
	w->b[w->n++] = 2049 & 0xff;
	put32(w, seq);
	put32(w, 0);
	w->b[w->n++] = 0x50;
	w->b[w->n++] = flags;
	putzero(w, 6);
	putbytes(w, pl, n);
}

static void ipv6_tcp(struct wb *w, const void *pl, uint16_t n)
{
	uint16_t plen = (uint16_t)(8 + 20 + n);

	put32(w, 0x60000000u);
	w->b[w->n++] = (uint8_t)(plen >> 8);
	w->b[w->n++] = (uint8_t)plen;
	w->b[w->n++] = 0; /* hop-by-hop options follow */
	w->b[w->n++] = 64;
	putzero(w, 15);
	w->b[w->n++] = 1;
	putzero(w, 15);
	w->b[w->n++] = 2;
	w->b[w->n++] = 6; /* next: TCP */
	w->b[w->n++] = 0; /* 8 bytes */
	putzero(w, 6);
	w->b[w->n++] = 0x03;
	w->b[w->n++] = 0x20;
	w->b[w->n++] = 2049 >> 8;
	w->b[w->n++] = 2049 & 0xff;
	put32(w, 77);
	put32(w, 0);
	w->b[w->n++] = 0x50;
	w->b[w->n++] = 0x18;
	putzero(w, 6);
	putbytes(w, pl, n);
}

static void check_tcp(enum pkt_skip s, const struct pkt *p, uint8_t family)
{
	assert_int_equal(s, PKT_OK);
	assert_int_equal(p->src.addr.family, family);
	assert_int_equal(p->dst.addr.family, family);
	assert_int_equal(p->proto, 6);
	assert_int_equal(p->dst.port, 2049);
	assert_int_equal(p->caplen, 5);
	assert_int_equal(p->len, 5);
	assert_memory_equal(p->payload, "hello", 5);
}

static void test_link_types(void **state)
{
	struct wb w;
	struct pkt p;

	(void)state;
	/* Ethernet with two VLAN tags */
	w.n = 0;
	putzero(&w, 12);
	putbytes(&w, "\x88\xa8\x00\x05\x81\x00\x00\x07\x08\x00", 10);
	ipv4_tcp(&w, "hello", 5, 800, 1, 0x18, 0);
	putzero(&w, 10); /* Ethernet padding is not payload */
	check_tcp(pkt_decode(1, w.b, (uint32_t)w.n, 9, &p), &p, 4);
	assert_int_equal(p.src.port, 800);
	assert_int_equal(p.ts_ns, 9);
	assert_true(net_endpoint_eq(&p.src, &(struct net_endpoint){{4, {10, 0, 0, 1}}, 800}));
	/* Linux cooked v1: protocol at offset 14 */
	w.n = 0;
	putzero(&w, 14);
	putbytes(&w, "\x08\x00", 2);
	ipv4_tcp(&w, "hello", 5, 800, 1, 0x18, 0);
	check_tcp(pkt_decode(113, w.b, (uint32_t)w.n, 0, &p), &p, 4);
	/* Linux cooked v2: protocol first, 20 bytes */
	w.n = 0;
	putbytes(&w, "\x86\xdd", 2);
	putzero(&w, 18);
	ipv6_tcp(&w, "hello", 5);
	check_tcp(pkt_decode(276, w.b, (uint32_t)w.n, 0, &p), &p, 6);
	assert_int_equal(p.src.port, 800);
	assert_int_equal(p.dst.addr.bytes[15], 2);
	/* raw IP (LINKTYPE_RAW 101, DLT_RAW 12/14) */
	w.n = 0;
	ipv4_tcp(&w, "hello", 5, 800, 1, 0x18, 0);
	check_tcp(pkt_decode(12, w.b, (uint32_t)w.n, 0, &p), &p, 4);
	check_tcp(pkt_decode(101, w.b, (uint32_t)w.n, 0, &p), &p, 4);
	/* BSD loopback: AF in host order (null) or network order (loop) */
	w.n = 0;
	putbytes(&w, "\x02\x00\x00\x00", 4);
	ipv4_tcp(&w, "hello", 5, 800, 1, 0x18, 0);
	check_tcp(pkt_decode(0, w.b, (uint32_t)w.n, 0, &p), &p, 4);
	w.n = 0;
	putbytes(&w, "\x00\x00\x00\x1e", 4);
	ipv6_tcp(&w, "hello", 5);
	check_tcp(pkt_decode(108, w.b, (uint32_t)w.n, 0, &p), &p, 6);
}

static void test_skips(void **state)
{
	struct wb w;
	struct pkt p;

	(void)state;
	w.n = 0;
	ipv4_tcp(&w, "hello", 5, 800, 1, 0x18, 0x0010); /* fragment offset 16 */
	assert_int_equal(pkt_decode(12, w.b, (uint32_t)w.n, 0, &p), PKT_FRAGMENT);
	w.n = 0;
	ipv4_tcp(&w, "hello", 5, 800, 1, 0x18, 0);
	w.b[9] = 1; /* ICMP */
	assert_int_equal(pkt_decode(12, w.b, (uint32_t)w.n, 0, &p), PKT_NOT_L4);
	w.b[9] = 6;
	assert_int_equal(pkt_decode(12, w.b, 30, 0, &p), PKT_SHORT);
	assert_int_equal(pkt_decode(12, w.b, 0, 0, &p), PKT_SHORT);
	w.n = 0;
	putzero(&w, 12);
	putbytes(&w, "\x08\x06", 2); /* ARP */
	putzero(&w, 28);
	assert_int_equal(pkt_decode(1, w.b, (uint32_t)w.n, 0, &p), PKT_NOT_IP);
	assert_int_equal(pkt_decode(147, w.b, (uint32_t)w.n, 0, &p), PKT_LINKTYPE);
	/* snaplen: the TCP header is there, part of the payload is not */
	w.n = 0;
	ipv4_tcp(&w, "hello", 5, 800, 1, 0x18, 0);
	assert_int_equal(pkt_decode(12, w.b, 42, 0, &p), PKT_OK);
	assert_int_equal(p.caplen, 2);
	assert_int_equal(p.len, 5);
	/* a TCP data offset beyond the packet */
	w.b[32] = 0xf0;
	assert_int_equal(pkt_decode(12, w.b, (uint32_t)w.n, 0, &p), PKT_SHORT);
}

/* --- files --- */

static void le32(struct wb *w, uint32_t v)
{
	w->b[w->n++] = (uint8_t)v;
	w->b[w->n++] = (uint8_t)(v >> 8);
	w->b[w->n++] = (uint8_t)(v >> 16);
	w->b[w->n++] = (uint8_t)(v >> 24);
}

/* A classic pcap (nanosecond magic, raw IP) with one NFSv3 call and its reply. */
static void make_pcap(struct wb *f)
{
	struct wb c = {.n = 0}, r = {.n = 0}, m = {.n = 0}, fr;

	rpc_call_hdr(&m, 5, 100003, 3, 1, AUTHB_SYS);
	putopaque(&m, "FH", 2);
	rm_frame(&c, &m);
	m.n = 0;
	rpc_reply_hdr(&m, 5, 0);
	put32(&m, 0);
	putzero(&m, 84);
	rm_frame(&r, &m);
	f->n = 0;
	le32(f, 0xa1b23c4d);
	f->b[f->n++] = 2;
	f->b[f->n++] = 0;
	f->b[f->n++] = 4;
	f->b[f->n++] = 0;
	le32(f, 0);
	le32(f, 0);
	le32(f, 65535);
	le32(f, 101);
	fr.n = 0;
	ipv4_tcp(&fr, c.b, (uint16_t)c.n, 800, 1, 0x18, 0);
	le32(f, 100);
	le32(f, 1000);
	le32(f, (uint32_t)fr.n);
	le32(f, (uint32_t)fr.n);
	putbytes(f, fr.b, fr.n);
	fr.n = 0;
	/* the reply: swap addresses and ports */
	ipv4_tcp(&fr, r.b, (uint16_t)r.n, 2049, 1, 0x18, 0);
	memcpy(fr.b + 12, "\x0a\x00\x00\x02\x0a\x00\x00\x01", 8);
	fr.b[22] = 800 >> 8;
	fr.b[23] = 800 & 0xff;
	le32(f, 100);
	le32(f, 1500);
	le32(f, (uint32_t)fr.n);
	le32(f, (uint32_t)fr.n);
	putbytes(f, fr.b, fr.n);
}

static char *write_tmp(const void *p, size_t n, int gz)
{
	char *path = strdup("/tmp/iotape-pcap-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	if (gz) {
		gzFile g = gzdopen(fd, "wb");

		assert_int_equal(gzwrite(g, p, (unsigned)n), (int)n);
		gzclose(g);
	} else {
		assert_int_equal(write(fd, p, n), (ssize_t)n);
		close(fd);
	}
	return path;
}

/* What the input stream's sniff makes of a file: a packet capture (compressed or not)? */
static bool is_capture(const char *path)
{
	struct in_stream *in;
	struct iot_err e;
	bool yes;

	if (in_stream_open(&in, path, &e))
		return false;
	yes = in_stream_sniff(in)->format == IN_FMT_PCAP ||
	      in_stream_sniff(in)->format == IN_FMT_PCAPNG;
	in_stream_close(in);
	return yes;
}

static unsigned ntxn;
static uint64_t srt;

static void on_txn(void *arg, const struct rpc_txn *t)
{
	(void)arg;
	ntxn++;
	srt = t->reply_ns - t->call_ns;
}

static int run_file(const char *path, struct nfs_pipe *p)
{
	struct pcap_src *s;
	struct iot_err e;
	int ret;

	ntxn = 0;
	ret = pcap_src_open(&s, path, &e);
	if (ret)
		return ret;
	assert_int_equal(nfs_pipe_init(p, NULL, NULL, on_txn, NULL), 0);
	ret = nfs_pipe_run(p, s, &e);
	nfs_pipe_finish(p);
	pcap_src_free(s);
	return ret;
}

static void test_files(void **state)
{
	static struct wb f;
	struct nfs_pipe p;
	char *path;
	int gz;

	(void)state;
	make_pcap(&f);
	for (gz = 0; gz < 2; gz++) {
		path = write_tmp(f.b, f.n, gz);
		assert_true(is_capture(path));
		assert_int_equal(run_file(path, &p), 0);
		assert_int_equal(ntxn, 1);
		assert_int_equal(srt, 500); /* nanosecond timestamps */
		assert_int_equal(p.n.gzip, gz);
		assert_int_equal(p.n.frames, 2);
		nfs_pipe_release(&p);
		unlink(path);
		free(path);
	}
	/* truncated inside the last record: the first frame still counts, flagged */
	path = write_tmp(f.b, f.n - 10, 0);
	assert_int_equal(run_file(path, &p), 0);
	assert_int_equal(p.n.frames, 1);
	assert_true(p.n.truncated);
	assert_int_equal(rpc_dec_counters(p.rpc)->unmatched_calls, 1);
	nfs_pipe_release(&p);
	unlink(path);
	free(path);
}

static void test_pcapng(void **state)
{
	static struct wb f, fr;
	struct nfs_pipe p;
	char *path;

	(void)state;
	f.n = fr.n = 0;
	ipv4_tcp(&fr, "hello", 5, 800, 1, 0x18, 0);
	/* section header block */
	le32(&f, 0x0a0d0d0a);
	le32(&f, 28);
	le32(&f, 0x1a2b3c4d);
	le32(&f, 0x00000001);
	le32(&f, 0xffffffff);
	le32(&f, 0xffffffff);
	le32(&f, 28);
	/* interface description block: raw IP, if_tsresol 9 (ns) */
	le32(&f, 1);
	le32(&f, 32);
	f.b[f.n++] = 101;
	f.b[f.n++] = 0;
	f.b[f.n++] = 0;
	f.b[f.n++] = 0;
	le32(&f, 65535);
	f.b[f.n++] = 9; /* if_tsresol */
	f.b[f.n++] = 0;
	f.b[f.n++] = 1;
	f.b[f.n++] = 0;
	f.b[f.n++] = 9;
	putzero(&f, 3);
	le32(&f, 0); /* opt_endofopt */
	le32(&f, 32);
	/* enhanced packet block */
	le32(&f, 6);
	le32(&f, (uint32_t)(32 + ((fr.n + 3) & ~3u)));
	le32(&f, 0);
	le32(&f, 0);
	le32(&f, 1234);
	le32(&f, (uint32_t)fr.n);
	le32(&f, (uint32_t)fr.n);
	putbytes(&f, fr.b, fr.n);
	while (f.n % 4)
		f.b[f.n++] = 0;
	le32(&f, (uint32_t)(32 + ((fr.n + 3) & ~3u)));
	path = write_tmp(f.b, f.n, 0);
	assert_true(is_capture(path));
	assert_int_equal(run_file(path, &p), 0);
	assert_int_equal(p.n.frames, 1);
	assert_int_equal(p.n.first_ns, 1234);
	assert_int_equal(p.n.dlt, 12); /* libpcap maps LINKTYPE_RAW to DLT_RAW */
	nfs_pipe_release(&p);
	unlink(path);
	free(path);
}

/* pcapng block writers, big- or little-endian */
static bool big;

static void w32(struct wb *w, uint32_t v)
{
	if (big)
		put32(w, v);
	else
		le32(w, v);
}

static void w16(struct wb *w, uint16_t v)
{
	uint8_t b[2] = {big ? (uint8_t)(v >> 8) : (uint8_t)v, big ? (uint8_t)v : (uint8_t)(v >> 8)};

	putbytes(w, b, 2);
}

static void ng_shb(struct wb *f)
{
	w32(f, 0x0a0d0d0a);
	w32(f, 28);
	w32(f, 0x1a2b3c4d);
	w16(f, 1);
	w16(f, 0);
	putbytes(f, "\xff\xff\xff\xff\xff\xff\xff\xff", 8);
	w32(f, 28);
}

/* an interface: link type, if_tsresol (0: none), if_tsoffset seconds */
static void ng_idb(struct wb *f, uint16_t linktype, uint8_t tsresol, uint64_t tsoffset)
{
	size_t start = f->n, lenpos;

	w32(f, 1);
	lenpos = f->n;
	w32(f, 0);
	w16(f, linktype);
	w16(f, 0);
	w32(f, 65535);
	if (tsresol) {
		w16(f, 9);
		w16(f, 1);
		f->b[f->n++] = tsresol;
		putzero(f, 3);
	}
	if (tsoffset) {
		w16(f, 14);
		w16(f, 8);
		if (big) {
			put64(f, tsoffset);
		} else {
			le32(f, (uint32_t)tsoffset);
			le32(f, (uint32_t)(tsoffset >> 32));
		}
	}
	w32(f, 0); /* opt_endofopt */
	{
		struct wb l = {.n = 0};
		uint32_t total = (uint32_t)(f->n - start + 4);

		w32(f, total);
		w32(&l, total);
		memcpy(f->b + lenpos, l.b, 4);
	}
}

static void ng_epb(struct wb *f, uint32_t iface, uint64_t ts, const struct wb *fr)
{
	uint32_t len = (uint32_t)(32 + ((fr->n + 3) & ~(size_t)3));

	w32(f, 6);
	w32(f, len);
	w32(f, iface);
	w32(f, (uint32_t)(ts >> 32));
	w32(f, (uint32_t)ts);
	w32(f, (uint32_t)fr->n);
	w32(f, (uint32_t)fr->n);
	putbytes(f, fr->b, fr->n);
	while (f->n % 4)
		f->b[f->n++] = 0;
	w32(f, len);
}

struct seen {
	uint64_t ts[8];
	int dlt[8];
	unsigned n;
};

/* Every frame of a file through the source: 0 at its end, else the error. */
static int read_all(const void *data, size_t len, struct seen *v, struct iot_err *e)
{
	struct pcap_src *s;
	const uint8_t *f;
	uint32_t cl;
	uint64_t ts;
	int r;
	char *path = write_tmp(data, len, 0);

	memset(v, 0, sizeof(*v));
	r = pcap_src_open(&s, path, e);
	unlink(path);
	free(path);
	if (r)
		return r;
	while ((r = pcap_src_next(s, &f, &cl, &ts, e)) == 1 && v->n < 8) {
		v->ts[v->n] = ts;
		v->dlt[v->n++] = pcap_src_frame_dlt(s);
	}
	pcap_src_free(s);
	return r;
}

/* Interfaces of two link types in one file, each with its timestamp units; both byte
 * orders; a second section restarts the interfaces. */
static void test_pcapng_interfaces(void **state)
{
	static struct wb f, fr;
	struct seen v;
	struct iot_err e;

	(void)state;
	for (int b = 0; b < 2; b++) {
		big = b;
		f.n = fr.n = 0;
		ipv4_tcp(&fr, "hello", 5, 800, 1, 0x18, 0);
		ng_shb(&f);
		ng_idb(&f, 101, 0, 0);          /* raw IP, microseconds (the default) */
		ng_idb(&f, 228, 0x80 | 20, 10); /* IPv4, 2^-20 s, 10 s later */
		ng_epb(&f, 0, 7, &fr);
		ng_epb(&f, 1, 3ull << 20 | 1 << 19, &fr); /* 3.5 s */
		ng_shb(&f);
		ng_idb(&f, 228, 9, 0); /* a new section: interface 0 again, in ns */
		ng_epb(&f, 0, 42, &fr);
		assert_int_equal(read_all(f.b, f.n, &v, &e), 0);
		assert_int_equal(v.n, 3);
		assert_int_equal(v.ts[0], 7000);
		assert_int_equal(v.dlt[0], 12);
		assert_int_equal(v.ts[1], 13500000000ull);
		assert_int_equal(v.dlt[1], 228);
		assert_int_equal(v.ts[2], 42);
		/* cut inside the last block: the frames before it, then the end of the data */
		assert_int_equal(read_all(f.b, f.n - 6, &v, &e), -ENODATA);
		assert_int_equal(v.n, 2);
		/* a block length that is not a multiple of 4: bad bytes, with the offset */
		f.b[28 + 4] ^= 1;
		assert_int_equal(read_all(f.b, f.n, &v, &e), -EINVAL);
		assert_non_null(strstr(e.msg, "offset 28"));
	}
	big = 0;
}

/* A pcap record of 4 GiB is bad bytes, named with its offset and record; a big-endian file
 * reads as well as a little-endian one. */
static void test_pcap_records(void **state)
{
	static struct wb f, fr;
	struct seen v;
	struct iot_err e;

	(void)state;
	fr.n = 0;
	ipv4_tcp(&fr, "hello", 5, 800, 1, 0x18, 0);
	for (int b = 0; b < 2; b++) {
		big = b;
		f.n = 0;
		w32(&f, 0xa1b2c3d4); /* microseconds */
		w16(&f, 2);
		w16(&f, 4);
		w32(&f, 0);
		w32(&f, 0);
		w32(&f, 65535);
		w32(&f, 101);
		for (unsigned i = 0; i < 2; i++) {
			w32(&f, 5 + i);
			w32(&f, 250);
			w32(&f, (uint32_t)fr.n);
			w32(&f, (uint32_t)fr.n);
			putbytes(&f, fr.b, fr.n);
		}
		assert_int_equal(read_all(f.b, f.n, &v, &e), 0);
		assert_int_equal(v.n, 2);
		assert_int_equal(v.ts[1], 6000250000ull);
		memset(f.b + 24 + 16 + fr.n + 8, 0xff, 4); /* the second record's length */
		assert_int_equal(read_all(f.b, f.n, &v, &e), -EINVAL);
		assert_int_equal(v.n, 1);
		assert_non_null(strstr(e.msg, "record 2"));
	}
	big = 0;
}

static void test_bad_files(void **state)
{
	struct pcap_src *s;
	struct iot_err e;
	char *path;

	(void)state;
	path = write_tmp("", 0, 0);
	assert_false(is_capture(path));
	assert_int_not_equal(pcap_src_open(&s, path, &e), 0);
	assert_non_null(strstr(e.msg, path));
	unlink(path);
	free(path);
	path = write_tmp("this is not a capture at all", 28, 0);
	assert_false(is_capture(path));
	assert_int_not_equal(pcap_src_open(&s, path, &e), 0);
	unlink(path);
	free(path);
	path = write_tmp("this is gzip but not a capture", 30, 1);
	assert_false(is_capture(path));
	assert_int_not_equal(pcap_src_open(&s, path, &e), 0);
	unlink(path);
	free(path);
	assert_int_equal(pcap_src_open(&s, "/nonexistent/x.pcap", &e), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_link_types),
	    cmocka_unit_test(test_skips),
	    cmocka_unit_test(test_files),
	    cmocka_unit_test(test_pcapng),
	    cmocka_unit_test(test_pcapng_interfaces),
	    cmocka_unit_test(test_pcap_records),
	    cmocka_unit_test(test_bad_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
