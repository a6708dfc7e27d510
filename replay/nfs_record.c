/* SPDX-License-Identifier: MIT */
/* --record RUNDIR for the NFS replay: its calls as net.pcap (formats/nfs_rec.h) and a manifest
 * with the host, the target's filesystem and mount options, and the summary. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/fs.h"
#include "formats/manifest.h"
#include "formats/nfs_rec.h"
#include "formats/rundir.h"
#include "replay/internal.h"
#include "replay/nfs_int.h"

struct nr_record {
	char *dir;
	struct nfs_rec *rec;
};

int nr_record_open(struct nr_record **out, const char *dir, struct iot_err *e)
{
	struct nr_record *r = calloc(1, sizeof(*r));
	char *path = NULL;
	int ret;

	*out = NULL;
	if (!r || !(r->dir = strdup(dir)))
		return free(r), iot_err_set(e, -ENOMEM, "out of memory");
	if ((ret = iot_mkdir_p(dir, e)))
		goto fail;
	if (asprintf(&path, "%s/%s", dir, RUNDIR_PCAP) < 0) {
		ret = iot_err_set(e, -ENOMEM, "out of memory");
		goto fail;
	}
	ret = nfs_rec_open(&r->rec, path, e); /* refuses a file that exists */
	free(path);
	if (ret)
		goto fail;
	*out = r;
	return 0;
fail:
	free(r->dir);
	free(r);
	return ret;
}

/* The NFSv3 procedure an action is recorded as (v3 calls keep their own). */
static uint32_t v3_proc(const struct nfs_replay_stats *st, const struct nr_op *op)
{
	static const uint8_t by_act[NR_ACT_N] = {
	    [NR_GETATTR] = 1, [NR_SETATTR] = 2,  [NR_READLINK] = 5,   [NR_READ] = 6,
	    [NR_WRITE] = 7,   [NR_COMMIT] = 21,  [NR_CREATE] = 8,     [NR_OPEN] = 4,
	    [NR_MKDIR] = 9,   [NR_SYMLINK] = 10, [NR_MKNOD] = 11,     [NR_REMOVE] = 12,
	    [NR_RMDIR] = 13,  [NR_RENAME] = 14,  [NR_LINK] = 15,      [NR_READDIR] = 16,
	    [NR_FSSTAT] = 18, [NR_ALLOCATE] = 2, [NR_DEALLOCATE] = 2,
	};

	if (op->vers == 3)
		return st->procs[op->proc].op;
	return op->act < NR_ACT_N ? by_act[op->act] : 0;
}

static uint64_t fh_of(const char *p, size_t n)
{
	return nfs_rec_fh(p, n);
}

/* a path's directory and last component */
static void split(const char *p, uint64_t *dir, const char **name)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	if (!p) {
		*dir = fh_of("", 0);
		*name = "";
		return;
	}
	*dir = fh_of(p, s ? (size_t)(s - p) : 0);
	*name = s ? s + 1 : p;
}

int nr_record_call(struct nr_record *r, const struct nfs_replay_stats *st, const struct nr_op *op,
                   uint32_t stream, struct iot_err *e)
{
	struct nfs_rec_call c = {
	    .stream = stream,
	    .proc = v3_proc(st, op),
	    .fh = fh_of(op->path, strlen(op->path)),
	    .data = op->data,
	    .offset = op->off,
	    .count = op->count,
	    .stable = op->stable ? 2 : 0,
	    .status = op->rep_status,
	    .done = op->rep_bytes,
	    .size = op->has_size ? op->attr_size : 0,
	    .call_ns = op->t_issue - st->t0_ns,
	    .reply_ns = op->t_done - st->t0_ns,
	};

	if (!c.proc)
		return 0;
	split(op->path, &c.dir_fh, &c.name);
	split(op->path2, &c.to_dir_fh, &c.to_name);
	if (op->act == NR_LINK)
		c.fh = fh_of(op->path, strlen(op->path));
	return nfs_rec_write(r->rec, &c, e);
}

static const char *fs_name(long type)
{
	static const struct {
		long t;
		const char *n;
	} k[] = {
	    {0xEF53, "ext4"},      {0x58465342, "xfs"},  {0x9123683E, "btrfs"},
	    {0x01021994, "tmpfs"}, {0x6969, "nfs"},      {0x794c7630, "overlay"},
	    {0x2FC12FC1, "zfs"},   {0xF2F52010, "f2fs"}, {0x858458f6, "ramfs"},
	};

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (k[i].t == type)
			return k[i].n;
	return NULL;
}

int nr_mount_of(const char *dir, struct nr_mount *m)
{
	char real[PATH_MAX], line[4096];
	size_t best = 0;
	int found = 0;
	FILE *f;

	memset(m, 0, sizeof(*m));
	if (!realpath(dir, real))
		return -errno;
	if (!(f = fopen("/proc/self/mountinfo", "re")))
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char mp[PATH_MAX], type[64], src[1024], opts[1024];
		const char *dash = strstr(line, " - ");
		size_t n;

		if (!dash || sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1 ||
		    sscanf(dash + 3, "%63s %1023s %1023s", type, src, opts) != 3)
			continue;
		n = strlen(mp);
		if (strncmp(real, mp, n) || (n > 1 && real[n] && real[n] != '/') ||
		    (found && n < best))
			continue;
		best = n;
		found = 1;
		snprintf(m->mountpoint, sizeof(m->mountpoint), "%s", mp);
		snprintf(m->fstype, sizeof(m->fstype), "%s", type);
		snprintf(m->source, sizeof(m->source), "%s", src);
		snprintf(m->options, sizeof(m->options), "%s", opts);
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

/* Its device number's entry in /sys/dev/block, else the mount's source: btrfs reports an
 * anonymous device number, which names no block device. */
char *nr_dir_device(const char *dir)
{
	struct stat st, sb;
	struct nr_mount m;
	char link[64], real[PATH_MAX], *dev = NULL;

	if (stat(dir, &st))
		return NULL;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	if (realpath(link, real) && asprintf(&dev, "/dev/%s", strrchr(real, '/') + 1) < 0)
		dev = NULL; /* asprintf leaves it undefined */
	if (dev && !stat(dev, &sb) && S_ISBLK(sb.st_mode))
		return dev;
	free(dev);
	dev = NULL;
	if (!nr_mount_of(dir, &m) && !stat(m.source, &sb) && S_ISBLK(sb.st_mode))
		dev = strdup(m.source);
	return dev;
}

/* The mount a directory is on, into the manifest's target object. */
static void mount_of(const char *dir, json_t *t)
{
	struct nr_mount m;

	if (nr_mount_of(dir, &m))
		return;
	json_object_set_new(t, "mountpoint", json_string(m.mountpoint));
	json_object_set_new(t, "fstype", json_string(m.fstype));
	json_object_set_new(t, "source", json_string(m.source));
	json_object_set_new(t, "options", json_string(m.options));
}

int nr_record_close(struct nr_record *r, const struct nfs_replay_opts *o,
                    const struct nfs_replay_stats *st, struct iot_err *e)
{
	json_t *m = rp_manifest_new(o->argc, o->argv, st->start_real_ns);
	json_t *target = json_object(), *labels = json_object(), *rep;
	struct statfs sf;
	const char *fs = NULL;
	char *s;
	int ret = nfs_rec_close(r->rec, e);

	r->rec = NULL;
	/* the target: a directory's filesystem and mount, or the NFS URL */
	if (o->target_dir) {
		json_object_set_new(target, "directory", json_string(o->target_dir));
		if (!statfs(o->target_dir, &sf))
			fs = fs_name((long)sf.f_type);
		mount_of(o->target_dir, target);
		if (!fs)
			fs = json_string_value(json_object_get(target, "fstype"));
	} else {
		json_object_set_new(target, "nfs", json_string(o->nfs_url));
		fs = "nfs";
	}
	if (fs) {
		json_object_set_new(m, "filesystem", json_string(fs));
		json_object_set_new(labels, "filesystem", json_string(fs));
	}
	json_object_set_new(m, "target", target);
	json_object_set_new(m, "labels", labels);
	json_object_set_new(m, "network", json_pack("{s:s}", "file", RUNDIR_PCAP));
	s = nfs_replay_json(o, st);
	rep = s ? json_loads(s, 0, NULL) : NULL;
	free(s);
	if (rep)
		json_object_set_new(m, "nfs_replay", rep);
	if (!ret)
		ret = manifest_save(r->dir, m, e);
	json_decref(m);
	free(r->dir);
	free(r);
	return ret;
}

void nr_record_abort(struct nr_record *r)
{
	if (!r)
		return;
	nfs_rec_close(r->rec, NULL);
	free(r->dir);
	free(r);
}
