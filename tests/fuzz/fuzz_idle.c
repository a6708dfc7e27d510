/* SPDX-License-Identifier: MIT */
/* libFuzzer target: why was the disk idle, on hostile bytes: a block trace, a manifest, a pcap. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/run_summary.h"
#include "formats/blktrace.h"
#include "formats/instream.h"
#include "formats/manifest.h"
#include "formats/pcap_src.h"

/*
 * The input: [u16 be N][N bytes of block trace][u16 be M][M bytes of manifest JSON][the rest:
 * a packet capture]. The block trace is cut in two halves, two per-CPU files (two devices'
 * records, say), read by the analysis with the idle sink's gaps explained (1 us threshold, so
 * that nearly every pause is a gap); the manifest's clock pairs and addresses place the
 * packets over the gaps (its network.addresses are parsed by the explanation); then the JSON.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t take(const uint8_t **d, size_t *n, const uint8_t **part)
{
	size_t len;

	if (*n < 2) {
		*part = *d;
		return 0;
	}
	len = (size_t)(*d)[0] << 8 | (*d)[1];
	*d += 2;
	*n -= 2;
	if (len > *n)
		len = *n;
	*part = *d;
	*d += len;
	*n -= len;
	return len;
}

static int write_file(const char *path, const uint8_t *p, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(p, 1, len, f) == len;

	if (f)
		ok = !fclose(f) && ok;
	return ok ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dir[] = "/tmp/iotape-fuzz-idle-XXXXXX", name[64], p0[96], p1[96];
	const uint8_t *blk, *man;
	size_t nblk = take(&data, &size, &blk), nman = take(&data, &size, &man);
	size_t half = nblk / 2 / 48 * 48;
	struct run_summary s;
	struct manifest m;
	bool have_m;
	struct blk_opts o;
	struct bt_reader *r;
	struct iot_err e;

	if (!mkdtemp(dir))
		return 0;
	snprintf(name, sizeof(name), "%s/t", dir);
	snprintf(p0, sizeof(p0), "%s.blktrace.0", name);
	snprintf(p1, sizeof(p1), "%s.blktrace.1", name);
	blk_opts_init(&o);
	o.idle_threshold_ns = 1000;
	o.top = 4;
	if (write_file(p0, blk, half) || write_file(p1, blk + half, nblk - half) ||
	    run_summary_init(&s, &o))
		goto out;
	have_m = !manifest_parse((const char *)man, nman, &m, &e);
	if (bt_reader_open(&r, name, &e) == 0) {
		int ret = run_summary_block(&s, r, NULL, NULL, &e);

		bt_reader_free(r);
		if (ret >= 0 && size) {
			struct in_stream *in;
			struct pcap_src *src;

			s.clock = have_m ? &m : NULL;
			if (in_stream_open_mem(&in, data, size, "fuzz", &e) == 0 &&
			    pcap_src_open_stream(&src, in, &e) == 0) {
				run_summary_packets(&s, src, NULL, NULL, &e);
				pcap_src_free(src);
			}
			s.clock = NULL;
		}
		free(json_dumps(s.doc, JSON_COMPACT));
	}
	if (have_m)
		manifest_release(&m);
	run_summary_release(&s);
out:
	unlink(p0);
	unlink(p1);
	rmdir(dir);
	return 0;
}
