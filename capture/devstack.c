/* SPDX-License-Identifier: MIT */
/* What each traced device is part of (role, group) and the key that names it across runs. */
#include "capture/devstack_int.h"

#include <blkid/blkid.h>
#include <dirent.h>
#include <limits.h>
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
 * strongest relation it has. A device alone has neither. The relations are found in
 * devstack_rel.c, over the nodes and mounts of devstack_node.c.
 */

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
	if ((ret = ds_mounts_read(s)))
		goto out;
	for (unsigned i = 0; i < n; i++) {
		ds_rel_sysfs(s, i, &devs[i]);
		ds_rel_loop(s, i, &devs[i]);
	}
	ds_rel_ext4(s, n);
	ds_rel_mounted_fs(s);
	ds_rel_ceph(s);
	for (unsigned i = 0; i < n; i++) {
		struct node *nd = &s->node[i];
		json_t *j = json_array_get(jdevs, i);
		const struct cap_sig *g = ds_sig_of(s, nd);
		unsigned r = ds_find(s, i), members = 0, best = r;

		if (!j)
			continue;
		/* the group: its relations' strongest name; a device alone has none */
		for (unsigned k = 0; k < s->n; k++) {
			if (ds_find(s, k) != r)
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
	ds_mounts_free(s);
	free(s);
	return ret;
}
