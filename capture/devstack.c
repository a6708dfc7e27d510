/* SPDX-License-Identifier: MIT */
/* What each traced device is part of (role, group) and the key that names it across runs. */
#include "capture/cap_int.h"

#include <blkid/blkid.h>
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/*
 * Discovered, not typed (docs/capture.md "Devices: roles and groups"): every relation found
 * between a traced device and another device (traced or not) joins the two in one group, and
 * may give either a role. What is looked at:
 *   sysfs       a partition and its disk; holders/ and slaves/ (md, dm); a loop device's
 *               backing file, and the device whose filesystem holds that file
 *   signatures  libblkid: an ext4 filesystem's external journal (EXT_JOURNAL = the journal
 *               device's UUID), an xfs external log (LOGUUID), btrfs (UUID shared by members)
 *   mounts      /proc/self/mountinfo: xfs's logdev= option, btrfs members in
 *               /sys/fs/btrfs/UUID/devices, and Ceph OSD data directories: a mounted
 *               filesystem holding whoami (filestore: its own device is the data, a journal
 *               link names the journal; BlueStore: block, block.db, block.wal links)
 * A group is named by its strongest relation (a Ceph OSD, then a filesystem over several
 * devices, then md/dm, then a disk or a loop device's filesystem); a device's role is the
 * strongest relation it has. A device alone has neither.
 */

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
static void scopy(char *dst, size_t cap, const char *src)
{
	size_t n = src ? strnlen(src, cap - 1) : 0;

	memmove(dst, src ? src : "", n);
	dst[n] = '\0';
}

/* ---- the real system ------------------------------------------------------------------ */

static int real_blockdev(void *arg, const char *path, unsigned *ma, unsigned *mi)
{
	struct stat st;

	(void)arg;
	if (stat(path, &st))
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	*ma = major(st.st_rdev);
	*mi = minor(st.st_rdev);
	return 0;
}

static int real_filedev(void *arg, const char *path, unsigned *ma, unsigned *mi)
{
	struct stat st;

	(void)arg;
	if (stat(path, &st))
		return -errno;
	*ma = major(st.st_dev);
	*mi = minor(st.st_dev);
	return 0;
}

static int real_probe(void *arg, const char *path, struct cap_sig *sig)
{
	static const struct {
		const char *tag;
		size_t off;
	} tags[] = {
	    {"TYPE", offsetof(struct cap_sig, type)},
	    {"UUID", offsetof(struct cap_sig, uuid)},
	    {"UUID_SUB", offsetof(struct cap_sig, uuid_sub)},
	    {"EXT_JOURNAL", offsetof(struct cap_sig, ext_journal)},
	    {"LOGUUID", offsetof(struct cap_sig, loguuid)},
	    {"LABEL", offsetof(struct cap_sig, label)},
	};
	blkid_probe pr;
	int ret = 0;

	(void)arg;
	memset(sig, 0, sizeof(*sig));
	/* read-only, superblocks only: a few KiB read before tracing starts */
	pr = blkid_new_probe_from_filename(path);
	if (!pr)
		return -errno ? -errno : -EIO;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_UUID |
	                                          BLKID_SUBLKS_LABEL);
	blkid_probe_enable_partitions(pr, 0);
	if (blkid_do_safeprobe(pr) == 0) {
		for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
			const char *v = NULL;

			if (!blkid_probe_lookup_value(pr, tags[i].tag, &v, NULL) && v)
				scopy((char *)sig + tags[i].off, sizeof(sig->uuid), v);
		}
	} else {
		ret = -ENODATA;
	}
	blkid_free_probe(pr);
	return ret;
}

void cap_stack_env_real(struct cap_stack_env *env, FILE *mountinfo)
{
	memset(env, 0, sizeof(*env));
	env->sysroot = "";
	env->mountinfo = mountinfo;
	env->blockdev = real_blockdev;
	env->filedev = real_filedev;
	env->probe = real_probe;
}

/* ---- nodes and groups ----------------------------------------------------------------- */

static unsigned find(struct stack *s, unsigned i)
{
	while (s->node[i].up != i)
		i = s->node[i].up = s->node[s->node[i].up].up;
	return i;
}

static void unite(struct stack *s, unsigned a, unsigned b)
{
	a = find(s, a);
	b = find(s, b);
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

/* The node of ma:mi, added when new; -1 when the table is full. */
static int node_dev(struct stack *s, unsigned ma, unsigned mi)
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

/* The node of a kernel name ("md0", "loop4"), through sysfs's dev file. */
static int node_name(struct stack *s, const char *name)
{
	char p[PATH_MAX], buf[32];
	unsigned ma, mi;

	snprintf(p, sizeof(p), "%s/sys/class/block/%s/dev", s->env->sysroot, name);
	if (cap_read_str(p, buf, sizeof(buf)) || sscanf(buf, "%u:%u", &ma, &mi) != 2)
		return -1;
	return node_dev(s, ma, mi);
}

/* The node of the block device at path (a link's target, a mount's source). */
static int node_path(struct stack *s, const char *path)
{
	unsigned ma, mi;

	if (!path || path[0] != '/' || s->env->blockdev(s->env->arg, path, &ma, &mi))
		return -1;
	return node_dev(s, ma, mi);
}

static void role(struct node *n, enum prio p, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void role(struct node *n, enum prio p, const char *fmt, ...)
{
	va_list ap;

	if (p <= n->role_prio)
		return;
	n->role_prio = p;
	va_start(ap, fmt);
	vsnprintf(n->role, sizeof(n->role), fmt, ap);
	va_end(ap);
}

static void cand(struct node *n, enum prio p, const char *name)
{
	if (p <= n->cand_prio)
		return;
	n->cand_prio = p;
	scopy(n->cand, sizeof(n->cand), name);
}

/* A fact for a traced device's "stack" list (others keep none). */
static void fact(struct node *n, json_t *o)
{
	if (n->facts && o)
		json_array_append_new(n->facts, o);
	else
		json_decref(o);
}

static const struct cap_sig *sig_of(struct stack *s, struct node *n)
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

static void mounts_free(struct stack *s)
{
	for (unsigned i = 0; i < s->nm; i++) {
		free(s->m[i].mountpoint);
		free(s->m[i].fstype);
		free(s->m[i].source);
		free(s->m[i].super);
	}
	free(s->m);
}

static int mounts_read(struct stack *s)
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

/* Is m a mount of node n's filesystem (by its source, or the field: not for btrfs's 0:N)? */
static bool mount_of(const struct mnt *m, const struct node *n)
{
	return (m->source_is_dev && m->sma == n->ma && m->smi == n->mi) ||
	       (m->ma == n->ma && m->mi == n->mi);
}

/* The first mount of node n's filesystem, or NULL. */
static const struct mnt *mount_first(const struct stack *s, const struct node *n)
{
	for (unsigned i = 0; i < s->nm; i++)
		if (mount_of(&s->m[i], n))
			return &s->m[i];
	return NULL;
}

static const char *mountpoint_of(const struct stack *s, const struct node *n)
{
	const struct mnt *m = mount_first(s, n);

	return m ? m->mountpoint : NULL;
}

/* Filesystems where a Ceph OSD keeps its directory; nothing else is looked into (a network
 * or FUSE mount could hang the capture's start). */
static bool osd_fstype(const char *t)
{
	static const char *const ok[] = {"xfs", "ext4", "ext3", "btrfs", "tmpfs", "f2fs", "zfs"};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcmp(t, ok[i]))
			return true;
	return false;
}

/* ---- the relations -------------------------------------------------------------------- */

/* A partition and its disk; holders (md, dm over it) and slaves (what it is built over). */
static void rel_sysfs(struct stack *s, unsigned i, const struct cap_dev *d)
{
	static const char *const dirs[2] = {"holders", "slaves"};
	struct node *n = &s->node[i];
	char p[PATH_MAX + 16];

	if (d->partition) {
		int k = node_name(s, d->parent);
		unsigned num = 0;
		uint64_t v;

		snprintf(p, sizeof(p), "%s/partition", d->sysdir);
		if (!cap_read_u64(p, &v))
			num = (unsigned)v;
		if (k >= 0) {
			unite(s, i, (unsigned)k);
			cand(&s->node[k], P_DISK, s->node[k].name);
		}
		role(n, P_DISK, "partition %u of %s", num, d->parent);
		fact(n, json_pack("{s:s, s:i, s:s}", "kind", "partition", "number", (int)num, "of",
		                  d->parent));
	}
	for (int k = 0; k < 2; k++) {
		json_t *names = json_array();
		char list[TEXT] = "";
		struct dirent *de;
		DIR *dir;

		snprintf(p, sizeof(p), "%s/%s", d->sysdir, dirs[k]);
		if (!(dir = opendir(p))) {
			json_decref(names);
			continue;
		}
		while ((de = readdir(dir))) {
			int o;

			if (de->d_name[0] == '.' || (o = node_name(s, de->d_name)) < 0)
				continue;
			unite(s, i, (unsigned)o);
			/* the group is named by the device on top: md0, dm-0 */
			cand(&s->node[k ? i : (unsigned)o], P_HOLDER, k ? n->name : de->d_name);
			json_array_append_new(names, json_string(de->d_name));
			if (strlen(list) + strlen(de->d_name) + 3 < sizeof(list))
				snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				         list[0] ? ", " : "", de->d_name);
		}
		closedir(dir);
		if (!json_array_size(names)) {
			json_decref(names);
			continue;
		}
		if (k)
			role(n, P_HOLDER, "%s over %s", n->name, list);
		else
			role(n, P_HOLDER, "member of %s", list);
		fact(n, json_pack("{s:s, s:o}", "kind", dirs[k], "devices", names));
	}
}

/* A loop device over a file on another device's filesystem: one group with that device, and
 * a role, when it is traced too (else the file is only the device's key). */
static void rel_loop(struct stack *s, unsigned i, const struct cap_dev *d)
{
	struct node *n = &s->node[i];
	unsigned ma, mi;
	int k = -1;

	if (!d->backing_file[0])
		return;
	if (!s->env->filedev(s->env->arg, d->backing_file, &ma, &mi)) {
		/* btrfs gives its files an anonymous device: its mount names the source */
		for (unsigned m = 0; m < s->nm && k < 0; m++)
			if (s->m[m].ma == ma && s->m[m].mi == mi && s->m[m].source_is_dev)
				k = node_dev(s, s->m[m].sma, s->m[m].smi);
		if (k < 0 && ma != 0)
			k = node_dev(s, ma, mi);
	}
	if (k >= 0 && (unsigned)k != i) {
		const struct mnt *mt = mount_first(s, &s->node[k]);
		const char *mp = mt ? mt->mountpoint : NULL;
		char g[TEXT];

		snprintf(g, sizeof(g), "%s %s", mt ? mt->fstype : "device",
		         mp ? mp : s->node[k].name);
		/* one group only with a traced device: loop devices over files of the root
		 * filesystem stand for disks of their own (test rigs, a Ceph cluster on one box) */
		if (s->node[k].traced >= 0) {
			unite(s, i, (unsigned)k);
			cand(&s->node[k], P_DISK, g);
			role(n, P_DISK, "loop over %s", d->backing_file);
		}
		fact(n, json_pack("{s:s, s:s, s:s, s:s?}", "kind", "loop", "backing_file",
		                  d->backing_file, "on", s->node[k].name, "mountpoint", mp));
	} else {
		fact(n, json_pack("{s:s, s:s}", "kind", "loop", "backing_file", d->backing_file));
	}
}

/* A filesystem over two devices (data and an external journal or log): both named by it. */
static void fs_pair(struct stack *s, unsigned data, unsigned side, const char *fstype,
                    const char *mp, const char *side_name)
{
	char g[TEXT];

	/* found from both ends (both traced): once */
	if (find(s, data) == find(s, side) && s->node[side].role_prio >= P_FS)
		return;
	snprintf(g, sizeof(g), "%s %s", fstype, mp ? mp : s->node[data].name);
	unite(s, data, side);
	cand(&s->node[data], P_FS, g);
	role(&s->node[data], P_FS, "%s data", g);
	role(&s->node[side], P_FS, "%s %s", g, side_name);
	fact(&s->node[data], json_pack("{s:s, s:s, s:s, s:s, s:s?}", "kind", "filesystem", "type",
	                               fstype, side_name, s->node[side].name, "device",
	                               s->node[data].name, "mountpoint", mp));
	fact(&s->node[side], json_pack("{s:s, s:s, s:s, s:s?}", "kind", side_name, "type", fstype,
	                               "of", s->node[data].name, "mountpoint", mp));
}

/* ext4's external journal: the filesystem's EXT_JOURNAL is the journal device's UUID. */
static void rel_ext4(struct stack *s, unsigned ntraced)
{
	for (unsigned i = 0; i < ntraced; i++) {
		const struct cap_sig *g = sig_of(s, &s->node[i]);

		if (!strcmp(g->type, "jbd") && g->uuid[0]) {
			/* which mounted ext4 uses it */
			for (unsigned m = 0; m < s->nm; m++) {
				int k;

				if (!s->m[m].source_is_dev || strncmp(s->m[m].fstype, "ext", 3) ||
				    (k = node_dev(s, s->m[m].sma, s->m[m].smi)) < 0)
					continue;
				if (!strcmp(sig_of(s, &s->node[k])->ext_journal, g->uuid))
					fs_pair(s, (unsigned)k, i, s->m[m].fstype,
					        s->m[m].mountpoint, "journal");
			}
		} else if (g->ext_journal[0]) {
			/* the journal among the block devices */
			char p[PATH_MAX];
			struct dirent *de;
			DIR *dir;

			snprintf(p, sizeof(p), "%s/sys/class/block", s->env->sysroot);
			if (!(dir = opendir(p)))
				continue;
			while ((de = readdir(dir))) {
				int k;

				if (de->d_name[0] == '.' || (k = node_name(s, de->d_name)) < 0 ||
				    (unsigned)k == i)
					continue;
				if (!strcmp(sig_of(s, &s->node[k])->uuid, g->ext_journal) &&
				    !strcmp(s->node[k].sig.type, "jbd")) {
					fs_pair(s, i, (unsigned)k, g->type,
					        mountpoint_of(s, &s->node[i]), "journal");
					break;
				}
			}
			closedir(dir);
		}
	}
}

/* The value of option key= in a comma-separated list, into out. */
static bool opt_value(const char *opts, const char *key, char *out, size_t cap)
{
	size_t kl = strlen(key);

	for (const char *p = opts; p && *p;) {
		size_t len = strcspn(p, ",");

		if (len > kl && !strncmp(p, key, kl) && p[kl] == '=') {
			snprintf(out, cap, "%.*s", (int)(len - kl - 1), p + kl + 1);
			return true;
		}
		p += len + (p[len] == ',');
	}
	return false;
}

/* xfs's external log (the logdev= mount option) and btrfs's members (sysfs). */
static void rel_mounted_fs(struct stack *s)
{
	for (unsigned m = 0; m < s->nm; m++) {
		const struct mnt *mt = &s->m[m];
		char path[PATH_MAX], p[PATH_MAX + 64];
		int data, k;

		if (!mt->source_is_dev || (data = node_dev(s, mt->sma, mt->smi)) < 0)
			continue;
		if (!strcmp(mt->fstype, "xfs") &&
		    opt_value(mt->super, "logdev", path, sizeof(path)) &&
		    (k = node_path(s, path)) >= 0 && k != data)
			fs_pair(s, (unsigned)data, (unsigned)k, "xfs", mt->mountpoint, "log");
		if (!strcmp(mt->fstype, "btrfs")) {
			const struct cap_sig *g = sig_of(s, &s->node[data]);
			int members[64], nmem = 0;
			struct dirent *de;
			DIR *dir;
			char grp[TEXT];

			if (!g->uuid[0])
				continue;
			snprintf(p, sizeof(p), "%s/sys/fs/btrfs/%s/devices", s->env->sysroot,
			         g->uuid);
			if (!(dir = opendir(p)))
				continue;
			while ((de = readdir(dir)) && nmem < 64)
				if (de->d_name[0] != '.' && (k = node_name(s, de->d_name)) >= 0)
					members[nmem++] = k;
			closedir(dir);
			if (nmem < 2)
				continue;
			snprintf(grp, sizeof(grp), "btrfs %s", mt->mountpoint);
			for (int j = 0; j < nmem; j++) {
				struct node *n = &s->node[members[j]];

				unite(s, (unsigned)data, (unsigned)members[j]);
				role(n, P_FS, "%s member", grp);
				fact(n, json_pack("{s:s, s:s, s:i, s:s}", "kind", "btrfs", "uuid",
				                  g->uuid, "members", nmem, "mountpoint",
				                  mt->mountpoint));
			}
			cand(&s->node[data], P_FS, grp);
		}
	}
}

/* A small file's first line in dir, or false. */
static bool small_file(const char *dir, const char *name, char *out, size_t cap)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return !cap_read_str(p, out, cap) && out[0];
}

/* Ceph OSD data directories among the mounts. */
static void rel_ceph(struct stack *s)
{
	static const struct {
		const char *link, *part;
	} links[] = {{"journal", "journal"},
	             {"block", "block"},
	             {"block.db", "block.db"},
	             {"block.wal", "block.wal"}};

	for (unsigned m = 0; m < s->nm; m++) {
		const struct mnt *mt = &s->m[m];
		char whoami[32], type[32] = "", fsid[64] = "", cfsid[64] = "", grp[32];
		char *end;
		long id;
		int data = -1, first = -1;

		if (!osd_fstype(mt->fstype) || !small_file(mt->mountpoint, "whoami", whoami, 32))
			continue;
		id = strtol(whoami, &end, 10);
		if (*end || id < 0 || id > 1000000)
			continue;
		small_file(mt->mountpoint, "type", type, sizeof(type));
		small_file(mt->mountpoint, "fsid", fsid, sizeof(fsid));
		small_file(mt->mountpoint, "ceph_fsid", cfsid, sizeof(cfsid));
		snprintf(grp, sizeof(grp), "osd.%ld", id);
		/* filestore: the filesystem itself is the data */
		if (mt->source_is_dev && (data = node_dev(s, mt->sma, mt->smi)) >= 0) {
			first = data;
			role(&s->node[data], P_CEPH, "%s data", grp);
			fact(&s->node[data],
			     json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:s}", "kind", "ceph-osd",
			               "osd", (int)id, "part", "data", "objectstore",
			               type[0] ? type : "?", "osd_fsid", fsid, "cluster_fsid",
			               cfsid, "data_dir", mt->mountpoint));
		}
		for (size_t l = 0; l < sizeof(links) / sizeof(links[0]); l++) {
			char p[PATH_MAX];
			int k;

			snprintf(p, sizeof(p), "%s/%s", mt->mountpoint, links[l].link);
			if ((k = node_path(s, p)) < 0 || k == data)
				continue;
			if (first < 0)
				first = k;
			unite(s, (unsigned)first, (unsigned)k);
			role(&s->node[k], P_CEPH, "%s %s", grp, links[l].part);
			fact(&s->node[k],
			     json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:s}", "kind", "ceph-osd",
			               "osd", (int)id, "part", links[l].part, "objectstore",
			               type[0] ? type : "?", "osd_fsid", fsid, "cluster_fsid",
			               cfsid, "data_dir", mt->mountpoint));
		}
		if (first >= 0)
			cand(&s->node[first], P_CEPH, grp);
	}
}

/* ---- keys ----------------------------------------------------------------------------- */

/* A link under /dev/disk/by-id that names ma:mi (wwn- first, then by name), or false. */
static bool by_id(const struct stack *s, unsigned ma, unsigned mi, char *out, size_t cap)
{
	char dir[PATH_MAX], p[PATH_MAX + 256], best[256] = "";
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/dev/disk/by-id", s->env->sysroot);
	if (!(d = opendir(dir)))
		return false;
	while ((de = readdir(d))) {
		unsigned a, b;
		bool wwn = !strncmp(de->d_name, "wwn-", 4), bwwn = !strncmp(best, "wwn-", 4);

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (s->env->blockdev(s->env->arg, p, &a, &b) || a != ma || b != mi)
			continue;
		if (!best[0] || (wwn && !bwwn) || (wwn == bwwn && strcmp(de->d_name, best) < 0))
			scopy(best, sizeof(best), de->d_name);
	}
	closedir(d);
	if (!best[0])
		return false;
	snprintf(out, cap, "by-id/%s", best);
	return true;
}

/* The device's serial number or WWN from sysfs (no udev: no by-id links), or false. */
static bool wwid(const char *sysdir, char *out, size_t cap)
{
	static const char *const files[] = {"wwid", "device/wwid", "serial", "device/serial"};
	char p[PATH_MAX + 32], buf[256];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", sysdir, files[i]);
		if (!cap_read_str(p, buf, sizeof(buf)) && buf[0]) {
			snprintf(out, cap, "%s", buf);
			return true;
		}
	}
	return false;
}

/* Is the role unique among the traced devices (a key must name one device)? */
static bool role_unique(const struct stack *s, unsigned ntraced, unsigned i)
{
	for (unsigned j = 0; j < ntraced; j++)
		if (j != i && !strcmp(s->node[j].role, s->node[i].role))
			return false;
	return true;
}

static void make_key(const struct stack *s, unsigned ntraced, unsigned i, const struct cap_dev *d,
                     const char *given, const char *name, json_t *j)
{
	const struct node *n = &s->node[i];
	char key[PATH_MAX + 32], base[PATH_MAX], parent_sys[PATH_MAX];
	const char *from = "kernel_name";
	struct stat st;

	if (name) {
		scopy(key, sizeof(key), name);
		from = "name";
	} else if (given && given[0] == '/' && !lstat(given, &st) && S_ISLNK(st.st_mode)) {
		/* a link the user chose (/dev/disk/by-id/..., /dev/vg/lv): kept as given */
		scopy(key, sizeof(key), given);
		from = "path";
	} else if (n->role_prio == P_CEPH && role_unique(s, ntraced, i)) {
		/* survives what a sweep's setup re-creates: new loop numbers, new image paths */
		scopy(key, sizeof(key), n->role);
		from = "role";
	} else if (by_id(s, n->ma, n->mi, key, sizeof(key))) {
		from = "by-id";
	} else {
		unsigned num = 0;
		uint64_t v;
		char *slash;

		/* a partition: its disk's identity and its number */
		scopy(parent_sys, sizeof(parent_sys), d->sysdir);
		if (d->partition && (slash = strrchr(parent_sys, '/'))) {
			char p[PATH_MAX + 16];

			*slash = '\0';
			snprintf(p, sizeof(p), "%s/partition", d->sysdir);
			if (!cap_read_u64(p, &v))
				num = (unsigned)v;
		}
		if (wwid(parent_sys, base, sizeof(base))) {
			from = "wwid";
		} else {
			char p[PATH_MAX + 32];

			snprintf(p, sizeof(p), "%s/loop/backing_file", parent_sys);
			if (!cap_read_str(p, base, sizeof(base)) && base[0])
				from = "backing_file";
			else
				scopy(base, sizeof(base), d->name);
		}
		if (d->partition && strcmp(from, "kernel_name"))
			snprintf(key, sizeof(key), "%s-part%u", base, num);
		else
			scopy(key, sizeof(key), base);
	}
	json_object_set_new(j, "key", json_string(key));
	json_object_set_new(j, "key_from", json_string(from));
}

int cap_devstack(const struct cap_stack_env *env, const struct cap_dev *devs, unsigned n,
                 char *const *given, char *const *names, json_t *jdevs)
{
	struct stack *s = calloc(1, sizeof(*s));
	int ret = 0;

	if (!s)
		return -ENOMEM;
	s->env = env;
	if (n > MAX_NODES / 2)
		n = MAX_NODES / 2; /* the rest: what capture records of every device, no more */
	/* the traced devices first: node i is device i */
	for (unsigned i = 0; i < n; i++) {
		struct node *nd = &s->node[s->n];

		memset(nd, 0, sizeof(*nd));
		nd->ma = devs[i].major;
		nd->mi = devs[i].minor;
		nd->traced = (int)i;
		nd->up = s->n;
		scopy(nd->name, sizeof(nd->name), devs[i].name);
		nd->facts = json_array();
		s->n++;
	}
	if ((ret = mounts_read(s)))
		goto out;
	for (unsigned i = 0; i < n; i++) {
		rel_sysfs(s, i, &devs[i]);
		rel_loop(s, i, &devs[i]);
	}
	rel_ext4(s, n);
	rel_mounted_fs(s);
	rel_ceph(s);
	for (unsigned i = 0; i < n; i++) {
		struct node *nd = &s->node[i];
		json_t *j = json_array_get(jdevs, i);
		const struct cap_sig *g = sig_of(s, nd);
		unsigned r = find(s, i), members = 0, best = r;

		if (!j)
			continue;
		/* the group: its relations' strongest name; a device alone has none */
		for (unsigned k = 0; k < s->n; k++) {
			if (find(s, k) != r)
				continue;
			members++;
			if (s->node[k].cand_prio > s->node[best].cand_prio)
				best = k;
		}
		json_object_set_new(j, "given",
		                    given && given[i] ? json_string(given[i]) : json_null());
		json_object_set_new(j, "alias",
		                    names && names[i] ? json_string(names[i]) : json_null());
		make_key(s, n, i, &devs[i], given ? given[i] : NULL, names ? names[i] : NULL, j);
		json_object_set_new(j, "role", nd->role[0] ? json_string(nd->role) : json_null());
		/* a Ceph OSD is a group even of one device (BlueStore's block alone) */
		json_object_set_new(j, "group",
		                    (members > 1 || s->node[best].cand_prio == P_CEPH) &&
		                            s->node[best].cand[0]
		                        ? json_string(s->node[best].cand)
		                        : json_null());
		json_object_set_new(j, "signature",
		                    g->type[0] ? json_pack("{s:s, s:s?, s:s?}", "type", g->type,
		                                           "uuid", g->uuid[0] ? g->uuid : NULL,
		                                           "label", g->label[0] ? g->label : NULL)
		                               : json_null());
		json_object_set_new(j, "stack", json_incref(nd->facts));
	}
out:
	for (unsigned i = 0; i < s->n; i++)
		json_decref(s->node[i].facts);
	mounts_free(s);
	free(s);
	return ret;
}
