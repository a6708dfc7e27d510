/* SPDX-License-Identifier: MIT */
/* The NFS replay's input state, shared by nfs_source.c (calls into call order) and
 * nfs_path.c (the calls' paths) only. */
#ifndef IOTAPE_REPLAY_NFS_SOURCE_INT_H
#define IOTAPE_REPLAY_NFS_SOURCE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "formats/nfs_names.h"
#include "formats/nfs_pipe.h"
#include "replay/nfs_int.h"

#define PATH_CAP 4096
#define DEPTH_CAP 512
#define NR_PROC_IX 128 /* NFSv3 procedures and NFSv4.2 operations (OP4_ILLEGAL beyond) */

/* A path being built: components joined by '/', relative to the target's root. */
struct pbuf {
	size_t len;
	bool known;       /* the walk knows where it is */
	bool hostile;     /* a component is no plain name */
	bool placeholder; /* it starts at a handle never named */
	bool v4;          /* it starts at the NFSv4 root (PUTROOTFH) */
	char b[PATH_CAP];
};

/* dst = src, the bytes in use only (a path is a few bytes of its 4 KiB) */
static inline void pb_copy(struct pbuf *dst, const struct pbuf *src)
{
	memcpy(dst, src, offsetof(struct pbuf, b) + src->len + 1);
}

struct nr_source {
	const struct nfs_replay_opts *o;
	struct nfs_replay_stats *st;
	struct pcap_src *src;
	struct nfs_pipe pipe;
	bool pipe_ok, ended;
	int dlt;
	struct nfs_names *names;
	uint8_t root_fh[NFS_FH_MAX]; /* --root-fh, or the handle the first-directory rule chose */
	unsigned root_fh_len;
	bool root_seen; /* a MOUNT reply, a PUTROOTFH or --root-fh gave the root */
	/* the NFSv4 path of the export's root (v3 and v4 to one export: one tree) */
	char v4_root[256];
	size_t v4_root_len;
	bool v4_mapped;
	uint32_t root_id; /* the node the first-directory rule (or --root-fh) made the root */
	/* (vers 3 or 4, op below NR_PROC_IX) -> index + 1 into st->procs, 0 not yet seen: the
	 * table searched once per procedure, not per call */
	uint32_t proc_ix[2][NR_PROC_IX];
	/* calls waiting to be put in call order: a binary heap on (call_ns, arrival) */
	struct nr_op **heap;
	unsigned nheap, cap;
	uint64_t arrival, next_seq, last_ts, last_call;
	size_t heap_bytes, peak;
	int err;
	struct iot_err *e;
};

/* What the walk over a call's name records found. */
struct walk {
	struct pbuf cur, saved, obj, to;
	const uint8_t *data;
	unsigned data_len;
	bool have_obj, have_to;
};

/* nfs_path.c */
void nr_path_of(struct nr_source *s, uint32_t id, const uint8_t *fh, unsigned fl, bool as_dir,
                struct pbuf *b);
/* Follow the call's name records up to its main op (and a LOOKUP chain the main op starts),
 * as the map does, but into paths, before the map learns from the reply. */
void nr_walk_names(struct nr_source *s, const struct rpc_txn *t, bool dir_op, struct walk *w);
/* The mapping found (or the prepare pass's, handed on): kept in the statistics, said once. */
void nr_set_v4_root(struct nr_source *s, const char *p);
void nr_v4_to_export(const struct nr_source *s, struct pbuf *b);
/* Once the export's root is known and the map finds an NFSv4 path to it, v4 paths under that
 * path are the export's. */
void nr_find_v4_root(struct nr_source *s);
/* --root-path: a path at or below root (no '/' at either end) becomes relative to it; false
 * for one outside it (placeholders are kept as they are). */
bool nr_under_root(const char *root, struct pbuf *b);

#endif
