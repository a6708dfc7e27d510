/* SPDX-License-Identifier: MIT */
/* libFuzzer target: a capture through the NFS replay's source (replay/nfs_source.c): names
 * walked into paths, hostile names checked, placeholders, the call-order heap. */
#include <stdint.h>
#include <stdlib.h>

#include "formats/instream.h"
#include "replay/nfs_int.h"

static const uint8_t *input;
static size_t input_len;

static int open_mem(void *arg, struct in_stream **out, struct iot_err *e)
{
	(void)arg;
	return in_stream_open_mem(out, input, input_len, "fuzz", e);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct nfs_replay_opts o = {.open = open_mem, .max_nodes = 4096};
	struct nfs_replay_stats st = {0};
	struct nr_source *s;
	struct nr_op *op;
	struct iot_err e;
	int err;

	input = d;
	input_len = n;
	if (nr_source_open(&s, &o, &st, &e) == 0) {
		while ((op = nr_source_next(s, &err, &e))) {
			/* what the targets rely on: paths relative and checked */
			if (!op->refused && op->act != NR_SKIP &&
			    (op->path[0] == '/' || (op->path2 && op->path2[0] == '/')))
				abort();
			free(op);
		}
		nr_source_free(s);
	}
	nfs_replay_stats_release(&st);
	return 0;
}
