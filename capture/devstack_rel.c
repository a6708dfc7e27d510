/* SPDX-License-Identifier: MIT */
/* A device stack's relations: sysfs, loop devices, filesystems over several devices (ext4's
 * journal, xfs's log, btrfs), and Ceph OSDs; each joins nodes into a group and gives roles. */
#include <blkid/blkid.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "capture/devstack_int.h"

/* A partition and its disk; holders (md, dm over it) and slaves (what it is built over). */
void ds_rel_sysfs(struct stack *s, unsigned i, const struct cap_dev *d)
{
	static const char *const dirs[2] = {"holders", "slaves"};
	struct node *n = &s->node[i];
	char p[PATH_MAX + 16];

	if (d->partition) {
		int k = ds_node_name(s, d->parent);
		unsigned num = 0;
		uint64_t v;

		snprintf(p, sizeof(p), "%s/partition", d->sysdir);
		if (!cap_read_u64(p, &v))
			num = (unsigned)v;
		if (k >= 0) {
			ds_unite(s, i, (unsigned)k);
			ds_cand(&s->node[k], P_DISK, s->node[k].name);
		}
		ds_role(n, P_DISK, "partition %u of %s", num, d->parent);
		ds_fact(n, json_pack("{s:s, s:i, s:s}", "kind", "partition", "number", (int)num,
		                     "of", d->parent));
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

			if (de->d_name[0] == '.' || (o = ds_node_name(s, de->d_name)) < 0)
				continue;
			ds_unite(s, i, (unsigned)o);
			/* the group is named by the device on top: md0, dm-0 */
			ds_cand(&s->node[k ? i : (unsigned)o], P_HOLDER, k ? n->name : de->d_name);
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
			ds_role(n, P_HOLDER, "%s over %s", n->name, list);
		else
			ds_role(n, P_HOLDER, "member of %s", list);
		ds_fact(n, json_pack("{s:s, s:o}", "kind", dirs[k], "devices", names));
	}
}

/* A loop device over a file on another device's filesystem: one group with that device, and
 * a role, when it is traced too (else the file is only the device's key). */
void ds_rel_loop(struct stack *s, unsigned i, const struct cap_dev *d)
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
				k = ds_node_dev(s, s->m[m].sma, s->m[m].smi);
		if (k < 0 && ma != 0)
			k = ds_node_dev(s, ma, mi);
	}
	if (k >= 0 && (unsigned)k != i) {
		const struct mnt *mt = ds_mount_first(s, &s->node[k]);
		const char *mp = mt ? mt->mountpoint : NULL;
		char g[TEXT];

		snprintf(g, sizeof(g), "%s %s", mt ? mt->fstype : "device",
		         mp ? mp : s->node[k].name);
		/* one group only with a traced device: loop devices over files of the root
		 * filesystem stand for disks of their own (test rigs, a Ceph cluster on one box) */
		if (s->node[k].traced >= 0) {
			ds_unite(s, i, (unsigned)k);
			ds_cand(&s->node[k], P_DISK, g);
			ds_role(n, P_DISK, "loop over %s", d->backing_file);
		}
		ds_fact(n, json_pack("{s:s, s:s, s:s, s:s?}", "kind", "loop", "backing_file",
		                     d->backing_file, "on", s->node[k].name, "mountpoint", mp));
	} else {
		ds_fact(n,
		        json_pack("{s:s, s:s}", "kind", "loop", "backing_file", d->backing_file));
	}
}

/* A filesystem over two devices (data and an external journal or log): both named by it. */
static void fs_pair(struct stack *s, unsigned data, unsigned side, const char *fstype,
                    const char *mp, const char *side_name)
{
	char g[TEXT];

	/* found from both ends (both traced): once */
	if (ds_find(s, data) == ds_find(s, side) && s->node[side].role_prio >= P_FS)
		return;
	snprintf(g, sizeof(g), "%s %s", fstype, mp ? mp : s->node[data].name);
	ds_unite(s, data, side);
	ds_cand(&s->node[data], P_FS, g);
	ds_role(&s->node[data], P_FS, "%s data", g);
	ds_role(&s->node[side], P_FS, "%s %s", g, side_name);
	ds_fact(&s->node[data], json_pack("{s:s, s:s, s:s, s:s, s:s?}", "kind", "filesystem",
	                                  "type", fstype, side_name, s->node[side].name, "device",
	                                  s->node[data].name, "mountpoint", mp));
	ds_fact(&s->node[side], json_pack("{s:s, s:s, s:s, s:s?}", "kind", side_name, "type",
	                                  fstype, "of", s->node[data].name, "mountpoint", mp));
}

/* ext4's external journal: the filesystem's EXT_JOURNAL is the journal device's UUID. */
void ds_rel_ext4(struct stack *s, unsigned ntraced)
{
	for (unsigned i = 0; i < ntraced; i++) {
		const struct cap_sig *g = ds_sig_of(s, &s->node[i]);

		if (!strcmp(g->type, "jbd") && g->uuid[0]) {
			/* which mounted ext4 uses it */
			for (unsigned m = 0; m < s->nm; m++) {
				int k;

				if (!s->m[m].source_is_dev || strncmp(s->m[m].fstype, "ext", 3) ||
				    (k = ds_node_dev(s, s->m[m].sma, s->m[m].smi)) < 0)
					continue;
				if (!strcmp(ds_sig_of(s, &s->node[k])->ext_journal, g->uuid))
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

				if (de->d_name[0] == '.' || (k = ds_node_name(s, de->d_name)) < 0 ||
				    (unsigned)k == i)
					continue;
				if (!strcmp(ds_sig_of(s, &s->node[k])->uuid, g->ext_journal) &&
				    !strcmp(s->node[k].sig.type, "jbd")) {
					fs_pair(s, i, (unsigned)k, g->type,
					        ds_mountpoint_of(s, &s->node[i]), "journal");
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
void ds_rel_mounted_fs(struct stack *s)
{
	for (unsigned m = 0; m < s->nm; m++) {
		const struct mnt *mt = &s->m[m];
		char path[PATH_MAX], p[PATH_MAX + 64];
		int data, k;

		if (!mt->source_is_dev || (data = ds_node_dev(s, mt->sma, mt->smi)) < 0)
			continue;
		if (!strcmp(mt->fstype, "xfs") &&
		    opt_value(mt->super, "logdev", path, sizeof(path)) &&
		    (k = ds_node_path(s, path)) >= 0 && k != data)
			fs_pair(s, (unsigned)data, (unsigned)k, "xfs", mt->mountpoint, "log");
		if (!strcmp(mt->fstype, "btrfs")) {
			const struct cap_sig *g = ds_sig_of(s, &s->node[data]);
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
				if (de->d_name[0] != '.' && (k = ds_node_name(s, de->d_name)) >= 0)
					members[nmem++] = k;
			closedir(dir);
			if (nmem < 2)
				continue;
			snprintf(grp, sizeof(grp), "btrfs %s", mt->mountpoint);
			for (int j = 0; j < nmem; j++) {
				struct node *n = &s->node[members[j]];

				ds_unite(s, (unsigned)data, (unsigned)members[j]);
				ds_role(n, P_FS, "%s member", grp);
				ds_fact(n, json_pack("{s:s, s:s, s:i, s:s}", "kind", "btrfs",
				                     "uuid", g->uuid, "members", nmem, "mountpoint",
				                     mt->mountpoint));
			}
			ds_cand(&s->node[data], P_FS, grp);
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
void ds_rel_ceph(struct stack *s)
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

		if (!ds_osd_fstype(mt->fstype) || !small_file(mt->mountpoint, "whoami", whoami, 32))
			continue;
		id = strtol(whoami, &end, 10);
		if (*end || id < 0 || id > 1000000)
			continue;
		small_file(mt->mountpoint, "type", type, sizeof(type));
		small_file(mt->mountpoint, "fsid", fsid, sizeof(fsid));
		small_file(mt->mountpoint, "ceph_fsid", cfsid, sizeof(cfsid));
		snprintf(grp, sizeof(grp), "osd.%ld", id);
		/* filestore: the filesystem itself is the data */
		if (mt->source_is_dev && (data = ds_node_dev(s, mt->sma, mt->smi)) >= 0) {
			first = data;
			ds_role(&s->node[data], P_CEPH, "%s data", grp);
			ds_fact(&s->node[data],
			        json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:s}", "kind", "ceph-osd",
			                  "osd", (int)id, "part", "data", "objectstore",
			                  type[0] ? type : "?", "osd_fsid", fsid, "cluster_fsid",
			                  cfsid, "data_dir", mt->mountpoint));
		}
		for (size_t l = 0; l < sizeof(links) / sizeof(links[0]); l++) {
			char p[PATH_MAX];
			int k;

			snprintf(p, sizeof(p), "%s/%s", mt->mountpoint, links[l].link);
			if ((k = ds_node_path(s, p)) < 0 || k == data)
				continue;
			if (first < 0)
				first = k;
			ds_unite(s, (unsigned)first, (unsigned)k);
			ds_role(&s->node[k], P_CEPH, "%s %s", grp, links[l].part);
			ds_fact(&s->node[k],
			        json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:s}", "kind", "ceph-osd",
			                  "osd", (int)id, "part", links[l].part, "objectstore",
			                  type[0] ? type : "?", "osd_fsid", fsid, "cluster_fsid",
			                  cfsid, "data_dir", mt->mountpoint));
		}
		if (first >= 0)
			ds_cand(&s->node[first], P_CEPH, grp);
	}
}
