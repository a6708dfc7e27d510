/* SPDX-License-Identifier: MIT */
/* The handle -> path map's insides, shared by its files: the nodes and the operations on them
 * (nfs_names.c), learning from a transaction (nfs_names_txn.c), queries and paths
 * (nfs_names_path.c). Not for other rooms: formats/nfs_names.h is the interface. */
#ifndef IOTAPE_FORMATS_NFS_NAMES_INT_H
#define IOTAPE_FORMATS_NFS_NAMES_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/nfs_names.h"

#define NONE NFS_NAME_NONE
#define MAX_SERVERS 255 /* more servers share the last index */
#define MAX_DEPTH 4096  /* ancestors followed (cycle checks, paths) */

/* F_LINK: a hard link's name (LINK): a node of a name alone, its alias the file (the node
 * that has the handle and the name the file is shown by), on the file's list of links */
enum { F_ROOT = 1, F_REMOVED = 2, F_ALIAS = 4, F_V4ROOT = 8, F_LINK = 16 };

struct node {
	uint32_t parent;            /* NONE: a root, a placeholder or a removed name */
	uint32_t child, next, prev; /* first child; siblings */
	uint32_t fh_next, nm_next;  /* hash chains */
	uint32_t alias; /* F_ALIAS: the node this one was merged into; F_LINK: the file */
	uint32_t links; /* a file's other names (F_LINK nodes, chained by fh_next) */
	uint16_t server;
	uint16_t name_len;
	uint8_t fh_len;
	uint8_t fh_key; /* the handle's length as handles are compared (fh_norm) */
	uint8_t flags;
	bool in_names; /* linked in the (parent, name) index */
	uint8_t *data; /* fh_len handle bytes, then name_len name bytes */
};

struct server {
	struct net_addr addr;
	uint32_t v4root;
};

struct nfs_names {
	struct nfs_names_cfg cfg;
	struct node *n;
	uint32_t nn, cap;
	uint32_t *fh_idx, *nm_idx;
	uint32_t mask;
	struct server srv[MAX_SERVERS + 1];
	unsigned nsrv;
	uint32_t mount_root; /* the export root MOUNT gave; NONE: none, or several */
	bool mounts;         /* a MOUNT gave one */
	size_t mem;
	struct nfs_names_counters c;
};

static inline const uint8_t *fh_of(const struct node *x)
{
	return x->data;
}

static inline const uint8_t *name_of(const struct node *x)
{
	return x->data ? x->data + x->fh_len : (const uint8_t *)""; /* a v4 root has no data */
}

static inline uint32_t resolve(const struct nfs_names *m, uint32_t id)
{
	unsigned k = 0;

	while (id < m->nn && (m->n[id].flags & (F_ALIAS | F_LINK)) && k++ < MAX_DEPTH)
		id = m->n[id].alias;
	return id < m->nn ? id : NONE;
}

/* nfs_names.c: the operations a transaction's names make (see there) */
uint32_t nn_nm_find(const struct nfs_names *m, uint32_t parent, unsigned srv, const uint8_t *name,
                    unsigned len);
void nn_remove_name(struct nfs_names *m, uint32_t id);
bool nn_move_to(struct nfs_names *m, uint32_t id, uint32_t parent, const uint8_t *name,
                unsigned nl);
uint32_t nn_child_get(struct nfs_names *m, uint32_t dir, const uint8_t *name, unsigned nl);
bool nn_add_link(struct nfs_names *m, uint32_t file, uint32_t dir, const uint8_t *name,
                 unsigned nl);
bool nn_move_link(struct nfs_names *m, uint32_t l, uint32_t dir, const uint8_t *name, unsigned nl);
uint32_t nn_bind(struct nfs_names *m, uint32_t c, const uint8_t *fh, unsigned fl);
unsigned nn_server_of(struct nfs_names *m, const struct rpc_txn *t);
uint32_t nn_handle_get(struct nfs_names *m, unsigned srv, const uint8_t *fh, unsigned fl);
uint32_t nn_v4root(struct nfs_names *m, unsigned srv);
void nn_mount_root(struct nfs_names *m, unsigned srv, const uint8_t *path, unsigned pl,
                   const uint8_t *fh, unsigned fl);

#endif
