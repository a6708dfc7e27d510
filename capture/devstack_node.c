/* SPDX-License-Identifier: MIT */
/* A device stack's nodes (union-find groups, roles, facts, signatures) and the mounts. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/devstack_int.h"

unsigned ds_find(struct stack *s, unsigned i)
{
	while (s->node[i].up != i)
		i = s->node[i].up = s->node[s->node[i].up].up;
	return i;
}

void ds_unite(struct stack *s, unsigned a, unsigned b)
{
	a = ds_find(s, a);
	b = ds_find(s, b);
	if (a != b)
		s->node[b].up = a;
}

/* The kernel name of ma:mi from sysfs, or "" */
static void name_of(const struct stack *s, unsigned ma, unsigned mi, char *out, size_t cap)
{
	char link[PATH_MAX], real[PATH_MAX];
	const char *b;

	out[0] = '\0';
	snprintf(link, sizeof(link), "%s/sys/dev/block/%u:%u", s->env->sysroot, ma, mi);
	if (!realpath(link, real))
		return;
	b = strrchr(real, '/');
	scopy(out, cap, b ? b + 1 : real);
}

int ds_node_dev(struct stack *s, unsigned ma, unsigned mi)
{
	struct node *n;

	for (unsigned i = 0; i < s->n; i++)
		if (s->node[i].ma == ma && s->node[i].mi == mi)
			return (int)i;
	if (s->n == MAX_NODES)
		return -1;
	n = &s->node[s->n];
	memset(n, 0, sizeof(*n));
	n->ma = ma;
	n->mi = mi;
	n->traced = -1;
	n->up = s->n;
	name_of(s, ma, mi, n->name, sizeof(n->name));
	if (!n->name[0])
		snprintf(n->name, sizeof(n->name), "%u:%u", ma, mi);
	return (int)s->n++;
}

int ds_node_name(struct stack *s, const char *name)
{
	char p[PATH_MAX], buf[32];
	unsigned ma, mi;

	snprintf(p, sizeof(p), "%s/sys/class/block/%s/dev", s->env->sysroot, name);
	if (cap_read_str(p, buf, sizeof(buf)) || sscanf(buf, "%u:%u", &ma, &mi) != 2)
		return -1;
	return ds_node_dev(s, ma, mi);
}

int ds_node_path(struct stack *s, const char *path)
{
	unsigned ma, mi;

	if (!path || path[0] != '/' || s->env->blockdev(s->env->arg, path, &ma, &mi))
		return -1;
	return ds_node_dev(s, ma, mi);
}

void ds_role(struct node *n, enum prio p, const char *fmt, ...)
{
	va_list ap;

	if (p <= n->role_prio)
		return;
	n->role_prio = p;
	va_start(ap, fmt);
	vsnprintf(n->role, sizeof(n->role), fmt, ap);
	va_end(ap);
}

void ds_cand(struct node *n, enum prio p, const char *name)
{
	if (p <= n->cand_prio)
		return;
	n->cand_prio = p;
	scopy(n->cand, sizeof(n->cand), name);
}

void ds_fact(struct node *n, json_t *o)
{
	if (n->facts && o)
		json_array_append_new(n->facts, o);
	else
		json_decref(o);
}

const struct cap_sig *ds_sig_of(struct stack *s, struct node *n)
{
	char path[PATH_MAX];

	if (!n->probed) {
		n->probed = 1;
		snprintf(path, sizeof(path), "/dev/%s", n->name);
		if (s->env->probe(s->env->arg, path, &n->sig))
			memset(&n->sig, 0, sizeof(n->sig));
	}
	return &n->sig;
}

/* ---- mounts --------------------------------------------------------------------------- */

void ds_mounts_free(struct stack *s)
{
	for (unsigned i = 0; i < s->nm; i++) {
		free(s->m[i].mountpoint);
		free(s->m[i].fstype);
		free(s->m[i].source);
		free(s->m[i].super);
	}
	free(s->m);
}

int ds_mounts_read(struct stack *s)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned room = 0;
	int ret = 0;

	if (!s->env->mountinfo)
		return 0;
	rewind(s->env->mountinfo);
	while (s->nm < MAX_MOUNTS && getline(&line, &cap, s->env->mountinfo) > 0) {
		struct cap_mountinfo mi;
		struct mnt *m;

		if (cap_mountinfo_split(line, &mi) || !mi.has_dev)
			continue;
		if (s->nm == room) {
			struct mnt *p = realloc(s->m, (room ? 2 * room : 32) * sizeof(*p));

			if (!p) {
				ret = -ENOMEM;
				break;
			}
			s->m = p;
			room = room ? 2 * room : 32;
		}
		m = &s->m[s->nm];
		memset(m, 0, sizeof(*m));
		m->ma = mi.major;
		m->mi = mi.minor;
		m->mountpoint = strdup(mi.mountpoint);
		m->fstype = strdup(mi.fstype);
		m->source = strdup(mi.source);
		m->super = strdup(mi.super);
		s->nm++;
		if (!m->mountpoint || !m->fstype || !m->source || !m->super) {
			ret = -ENOMEM;
			break;
		}
		m->source_is_dev = m->source[0] == '/' &&
		                   !s->env->blockdev(s->env->arg, m->source, &m->sma, &m->smi);
	}
	free(line);
	return ret;
}

bool ds_mount_of(const struct mnt *m, const struct node *n)
{
	return (m->source_is_dev && m->sma == n->ma && m->smi == n->mi) ||
	       (m->ma == n->ma && m->mi == n->mi);
}

const struct mnt *ds_mount_first(const struct stack *s, const struct node *n)
{
	for (unsigned i = 0; i < s->nm; i++)
		if (ds_mount_of(&s->m[i], n))
			return &s->m[i];
	return NULL;
}

const char *ds_mountpoint_of(const struct stack *s, const struct node *n)
{
	const struct mnt *m = ds_mount_first(s, n);

	return m ? m->mountpoint : NULL;
}

bool ds_osd_fstype(const char *t)
{
	static const char *const ok[] = {"xfs", "ext4", "ext3", "btrfs", "tmpfs", "f2fs", "zfs"};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcmp(t, ok[i]))
			return true;
	return false;
}
