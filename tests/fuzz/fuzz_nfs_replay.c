/* SPDX-License-Identifier: MIT */
/* libFuzzer target: a capture through the NFS replay's source (replay/nfs_source.c): names
 * walked into paths, hostile names checked, placeholders, the call-order heap; then through
 * --prepare's pass (replay/nfs_prepare.c: the tree of names, renames, start paths) onto a
 * target that makes nothing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/instream.h"
#include "replay/nfs_int.h"

static const uint8_t *input;
static size_t input_len;

static int open_mem(void *arg, struct in_stream **out, struct iot_err *e)
{
	(void)arg;
	return in_stream_open_mem(out, input, input_len, "fuzz", e);
}

/* what the target relies on: a relative path of plain components */
static int prep_none(void *ctx, const char *path, unsigned ftype, uint64_t size)
{
	(void)ctx;
	(void)ftype;
	(void)size;
	if (!*path || path[0] == '/' || strstr(path, "//"))
		abort();
	return 0;
}

static const struct nr_target_ops null_target = {.kind = "fuzz", .prep = prep_none};

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
	memset(&st, 0, sizeof(st));
	nr_prepare(&o, &null_target, NULL, &st, &e);
	nfs_replay_stats_release(&st);
	return 0;
}
