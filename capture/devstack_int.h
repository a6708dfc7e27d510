/* SPDX-License-Identifier: MIT */
/* A device stack being found, shared by devstack.c (cap_devstack(), the keys),
 * devstack_node.c (nodes, groups, mounts) and devstack_rel.c (the relations) only. */
#ifndef IOTAPE_CAPTURE_DEVSTACK_INT_H
#define IOTAPE_CAPTURE_DEVSTACK_INT_H

#include <stdbool.h>
#include <string.h>

#include "capture/cap_int.h"

#define MAX_NODES 256u
#define MAX_MOUNTS 4096u
#define TEXT 160

enum prio { P_NONE, P_DISK, P_HOLDER, P_FS, P_CEPH };

struct node {
	unsigned ma, mi;
	char name[64];
	int traced;  /* index into the traced devices, or -1 */
	unsigned up; /* union-find parent */
	char role[TEXT];
	enum prio role_prio;
	char cand[TEXT]; /* a name for the group this relation makes */
	enum prio cand_prio;
	json_t *facts; /* traced devices: what was found, as objects */
	struct cap_sig sig;
	int probed;
};

struct mnt {
	char *mountpoint, *fstype, *source, *super;
	unsigned ma, mi;   /* the field of mountinfo (anonymous 0:N for btrfs) */
	unsigned sma, smi; /* the source's block device, when it is one */
	int source_is_dev;
};

struct stack {
	const struct cap_stack_env *env;
	struct node node[MAX_NODES];
	unsigned n;
	struct mnt *m;
	unsigned nm;
};
/* Copy with truncation (names and paths from sysfs and mounts, bounded in practice). */
static inline void scopy(char *dst, size_t cap, const char *src)
{
	size_t n = src ? strnlen(src, cap - 1) : 0;

	memmove(dst, src ? src : "", n);
	dst[n] = '\0';
}

/* devstack_node.c: nodes (union-find groups, roles, facts, signatures) and mounts */
unsigned ds_find(struct stack *s, unsigned i);
void ds_unite(struct stack *s, unsigned a, unsigned b);
/* The node of ma:mi, added when new; -1 when the table is full. */
int ds_node_dev(struct stack *s, unsigned ma, unsigned mi);
/* The node of a kernel name ("md0", "loop4"), through sysfs's dev file. */
int ds_node_name(struct stack *s, const char *name);
/* The node of the block device at path (a link's target, a mount's source). */
int ds_node_path(struct stack *s, const char *path);
void ds_role(struct node *n, enum prio p, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void ds_cand(struct node *n, enum prio p, const char *name);
/* A fact for a traced device's "stack" list (others keep none). */
void ds_fact(struct node *n, json_t *o);
const struct cap_sig *ds_sig_of(struct stack *s, struct node *n);
void ds_mounts_free(struct stack *s);
int ds_mounts_read(struct stack *s);
/* Is m a mount of node n's filesystem (by its source, or the field: not for btrfs's 0:N)? */
bool ds_mount_of(const struct mnt *m, const struct node *n);
/* The first mount of node n's filesystem, or NULL. */
const struct mnt *ds_mount_first(const struct stack *s, const struct node *n);
const char *ds_mountpoint_of(const struct stack *s, const struct node *n);
/* Filesystems where a Ceph OSD keeps its directory; nothing else is looked into (a network
 * or FUSE mount could hang the capture's start). */
bool ds_osd_fstype(const char *t);

/* devstack_rel.c: the relations, each joining nodes into groups and giving roles */
void ds_rel_sysfs(struct stack *s, unsigned i, const struct cap_dev *d);
void ds_rel_loop(struct stack *s, unsigned i, const struct cap_dev *d);
void ds_rel_ext4(struct stack *s, unsigned ntraced);
void ds_rel_mounted_fs(struct stack *s);
void ds_rel_ceph(struct stack *s);

#endif
