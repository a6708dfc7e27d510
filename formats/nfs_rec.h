/* SPDX-License-Identifier: MIT */
/* A replay's NFS calls written as a packet capture of NFSv3 RPC messages (--record). */
#ifndef IOTAPE_FORMATS_NFS_REC_H
#define IOTAPE_FORMATS_NFS_REC_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"

/*
 * What a replay did, in the one language every reader of NFS captures speaks: each call as an
 * NFSv3 CALL at its issue time and its REPLY at its completion, on a TCP connection per
 * stream (127.0.0.1 to 127.0.0.2:2049, Ethernet, pcap with nanosecond times). The messages
 * are made, not captured: handles are 8-byte hashes of the paths (the same path, the same
 * handle), AUTH_NONE, a WRITE carries its count but no data (unless wdata is given: the
 * tests' captures), replies carry the status and what the statistics read (READ and WRITE
 * counts, GETATTR's size, new handles).
 */
struct nfs_rec_call {
	uint32_t stream;                /* a connection per stream */
	uint32_t proc;                  /* NFSv3 procedure (RFC 1813) */
	uint64_t fh, dir_fh, to_dir_fh; /* the object, its directory, RENAME's and LINK's target */
	const char *name, *to_name;     /* the last components */
	const char *data;               /* SYMLINK's text */
	uint64_t offset, count;         /* READ, WRITE, COMMIT: as asked */
	uint32_t stable;
	uint32_t status; /* nfsstat3 */
	uint64_t done;   /* bytes read or written */
	uint64_t size;   /* GETATTR's size */
	uint64_t call_ns, reply_ns;
	/* for captures made by tests: WRITE's payload (count bytes), a mode set (SETATTR,
	 * CREATE, MKDIR) */
	const uint8_t *wdata;
	uint32_t mode;
	bool has_mode;
};

struct nfs_rec;

int nfs_rec_open(struct nfs_rec **out, const char *path, struct iot_err *e);
int nfs_rec_write(struct nfs_rec *r, const struct nfs_rec_call *c, struct iot_err *e);
/* Closes and frees r (also after an error); 0 or -errno. */
int nfs_rec_close(struct nfs_rec *r, struct iot_err *e);
/* The handle of a path: an 8-byte hash. */
uint64_t nfs_rec_fh(const char *path, size_t len);

#endif
