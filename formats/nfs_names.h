/* SPDX-License-Identifier: MIT */
/* The handle -> path map: NFS file handles named from the LOOKUPs, OPENs, ... of a capture. */
#ifndef IOTAPE_FORMATS_NFS_NAMES_H
#define IOTAPE_FORMATS_NFS_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/rpc.h"

/*
 * Fed one RPC transaction at a time (in the order replies complete, as rpc_dec hands them
 * out), the map learns names from what the server confirmed: v3 LOOKUP, CREATE, MKDIR,
 * SYMLINK, MKNOD, REMOVE, RMDIR, RENAME, LINK, READDIRPLUS entries; v4 PUTFH, PUTROOTFH,
 * LOOKUP, LOOKUPP, SAVEFH/RESTOREFH, OPEN by name, CREATE, REMOVE, RENAME, LINK and GETFH;
 * MOUNT MNT gives the root handle of an export (its path is the root's name).
 *
 * Every handle is a node with a stable id (a uint32_t index, NFS_NAME_NONE for none). A node
 * has a parent and a name once a name for it was seen; a handle seen only as an argument is a
 * placeholder (no parent), rendered "<fh:HEX>", and gets its name when one is learnt later
 * (every id handed out stays valid: a node merged into another becomes an alias that the
 * functions below resolve). A name can also be known before its handle (v4 LOOKUP chains
 * before the GETFH): such a node has no handle yet. One handle has one path: the latest name
 * seen for it; the root of a MOUNT keeps its path. A LINK adds a name (a link node, resolved
 * to the file like an alias): the file lives while any of its names does, and when the name
 * it is shown by goes, another of its links shows it. REMOVE and a RENAME over a file's last
 * name mark the node removed (its last path stays).
 *
 * Handles are compared without the zero bytes nfs-ganesha pads its NFSv3 handles with (up to
 * three, of a handle whose length is a multiple of 4), so an export's v3 and v4 handles are
 * one node. A directory the NFSv4 pseudo namespace names (a LOOKUP chain never followed by a
 * GETFH) that is found to be a MOUNT's export root (by its handle, or by an entry that is the
 * same object under the same name) leads to that root: v3 and v4 paths of one export meet.
 *
 * Nodes are per server address (handles of two servers never mix). Memory is bounded: at most
 * max_nodes nodes (default 65536, about 130 bytes each with their handle and name); past it new
 * handles are not tracked (counted as untracked) and lookups of them return NFS_NAME_NONE.
 */

#define NFS_NAME_NONE UINT32_MAX

struct nfs_names_cfg {
	uint32_t max_nodes; /* default 65536 */
};

struct nfs_names_counters {
	uint64_t nodes;     /* nodes made (handles and names) */
	uint64_t named;     /* names learnt (a node given a parent and name, or a root path) */
	uint64_t roots;     /* export roots (MOUNT) and v4 root handles seen */
	uint64_t removed;   /* nodes removed (REMOVE, RMDIR, RENAME over a name) */
	uint64_t renamed;   /* nodes moved by RENAME, or a handle found under a new name */
	uint64_t linked;    /* names added by LINK */
	uint64_t merged;    /* placeholders or handle-less names merged with the other half */
	uint64_t untracked; /* handles or names not added: the node cap was reached */
	uint64_t refused;   /* renames refused: they would have made a cycle */
	uint64_t txns;      /* transactions fed */
	uint64_t names_cut; /* calls whose names did not all fit the decoder's buffer */
};

/* Flags of a node and of a rendered path. */
enum {
	NFS_PATH_ROOTED = 1,      /* the path starts at an export root or the v4 root */
	NFS_PATH_PLACEHOLDER = 2, /* it starts at a handle never named ("<fh:HEX>") */
	NFS_PATH_REMOVED = 4,     /* the node (or an ancestor) was removed */
	NFS_PATH_CUT = 8,         /* the path did not fit the buffer (it starts with "...") */
	NFS_PATH_NO_FH = 16,      /* (node flag) the node's handle is not known yet */
};

struct nfs_name_info {
	uint32_t id;       /* the node itself (aliases resolved) */
	uint32_t parent;   /* NFS_NAME_NONE for a root or a placeholder */
	const uint8_t *fh; /* NULL when not known yet */
	unsigned fh_len;
	const uint8_t *name; /* the last component (a root: its export path, "" for v4) */
	unsigned name_len;
	unsigned flags;  /* NFS_PATH_ROOTED (a root), _PLACEHOLDER, _REMOVED, _NO_FH */
	unsigned server; /* small index of the server address (per map) */
};

struct nfs_names;

int nfs_names_new(struct nfs_names **out, const struct nfs_names_cfg *cfg);
void nfs_names_free(struct nfs_names *m);
/*
 * Learn from one transaction. Returns the node its main op worked on: for LOOKUP, OPEN,
 * CREATE, MKDIR, SYMLINK and MKNOD that succeeded, the object named; else the handle of the
 * call (a placeholder if it was never named); NFS_NAME_NONE without a handle or past the cap.
 */
uint32_t nfs_names_txn(struct nfs_names *m, const struct rpc_txn *t);
/* The node of a handle on t's server, or NFS_NAME_NONE; create: add a placeholder if unknown. */
uint32_t nfs_names_handle(struct nfs_names *m, const struct rpc_txn *t, const uint8_t *fh,
                          unsigned len, bool create);
/* The child called name of a directory node, or NFS_NAME_NONE. */
uint32_t nfs_names_child(const struct nfs_names *m, uint32_t dir, const void *name, unsigned len);
/* A node's parts (aliases resolved); -ENOENT for an id that is no node. */
int nfs_names_info(const struct nfs_names *m, uint32_t id, struct nfs_name_info *out);
/*
 * The path of a node as text: components joined by '/', from an export root ("/srv/export/a")
 * or the v4 root ("/export/a"), or from "<fh:HEX>" when the top handle was never named. Bytes
 * that are not printable UTF-8, '/' and '\' inside a name are written as \xNN. Returns
 * NFS_PATH_* flags; buf always holds a terminated string (len >= 8).
 */
unsigned nfs_names_path(const struct nfs_names *m, uint32_t id, char *buf, size_t len);
/*
 * The NFSv4 path of node id (an export's root, say), relative to the server's pseudo root
 * ("export/home", raw name bytes joined by '/'): the node's own names, or one of its links',
 * when they lead to the NFSv4 root (a MOUNT's export reached by an NFSv4 pseudo path).
 * -ENOENT when none does (or it is longer than len).
 */
int nfs_names_v4_path(const struct nfs_names *m, uint32_t id, char *buf, size_t len);
/* The export root a MOUNT gave: NFS_NAME_NONE when none did, or MOUNTs gave several. */
uint32_t nfs_names_mount_root(const struct nfs_names *m);
const struct nfs_names_counters *nfs_names_counters(const struct nfs_names *m);
size_t nfs_names_mem(const struct nfs_names *m);

#endif
