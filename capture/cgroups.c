/* SPDX-License-Identifier: MIT */
/* Cgroup ids to paths: the manifest's "cgroups" table, whose IO a record was. */
#include "capture/cap_int.h"

#include <fts.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * A block record's cgroup id (blktrace's cgroup PDU, which the bpf backend always writes) is
 * the id of the IO's blkcg cgroup: the kernfs node id, which is the inode number of the
 * cgroup's directory on a 64-bit kernel. The blkcg lives in the cgroup v1 hierarchy the blkio
 * controller is mounted on, if there is one (a hybrid setup, like this project's machines),
 * else in the unified (cgroup2) hierarchy. A walk of that hierarchy maps ids to paths; it is
 * done at the start and at the end of a capture, so a cgroup that lived only during the run
 * and one made after its start are both found (one that lived only in between is not: its id
 * stays, without a path).
 */
struct cg_ent {
	uint64_t id;
	char *path;
};

struct cap_cgroups {
	char hierarchy[32]; /* "cgroup2" or "blkio" (cgroup v1) */
	char root[512];
	struct cg_ent *e;
	size_t n, cap;
};

/* the mount point of the hierarchy holding blkcg, from /proc/self/mountinfo */
static int find_root(struct cap_cgroups *c)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], v2[512] = "";

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char mnt[512], fstype[64], opts[1024];
		const char *dash = strstr(line, " - ");

		if (!dash || sscanf(line, "%*s %*s %*s %*s %511s", mnt) != 1 ||
		    sscanf(dash + 3, "%63s %*s %1023s", fstype, opts) != 2)
			continue;
		if (!strcmp(fstype, "cgroup") &&
		    (strstr(opts, ",blkio") || !strncmp(opts, "blkio", 5))) {
			snprintf(c->hierarchy, sizeof(c->hierarchy), "blkio");
			snprintf(c->root, sizeof(c->root), "%s", mnt);
			fclose(f);
			return 0;
		}
		if (!strcmp(fstype, "cgroup2") && !v2[0])
			snprintf(v2, sizeof(v2), "%s", mnt);
	}
	fclose(f);
	if (!v2[0])
		return -ENOENT;
	snprintf(c->hierarchy, sizeof(c->hierarchy), "cgroup2");
	snprintf(c->root, sizeof(c->root), "%s", v2);
	return 0;
}

static int add(struct cap_cgroups *c, uint64_t id, const char *rel)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 256;
		struct cg_ent *n = cap <= (1u << 20) ? realloc(c->e, cap * sizeof(*n)) : NULL;

		if (!n)
			return -ENOMEM;
		c->e = n;
		c->cap = cap;
	}
	c->e[c->n].id = id;
	c->e[c->n].path = strdup(*rel ? rel : "/");
	if (!c->e[c->n].path)
		return -ENOMEM;
	c->n++;
	return 0;
}

int cap_cgroups_scan(struct cap_cgroups **out)
{
	struct cap_cgroups *c = calloc(1, sizeof(*c));
	char *roots[2];
	FTS *fts;
	FTSENT *ent;
	int ret;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	if ((ret = find_root(c))) {
		free(c);
		return ret;
	}
	roots[0] = c->root;
	roots[1] = NULL;
	fts = fts_open(roots, FTS_PHYSICAL | FTS_XDEV | FTS_NOCHDIR, NULL);
	if (!fts) {
		ret = -errno;
		free(c);
		return ret;
	}
	while ((ent = fts_read(fts)) && !ret)
		if (ent->fts_info == FTS_D)
			ret = add(c, (uint64_t)ent->fts_statp->st_ino,
			          ent->fts_path + strlen(c->root));
	fts_close(fts);
	*out = c;
	return 0;
}

static const char *path_of(const struct cap_cgroups *c, uint64_t id)
{
	for (size_t i = 0; c && i < c->n; i++)
		if (c->e[i].id == id)
			return c->e[i].path;
	return NULL;
}

json_t *cap_cgroups_json(const struct cap_cgroups *start, const struct cap_cgroups *end,
                         const uint64_t *ids, unsigned n)
{
	json_t *arr = json_array();
	const struct cap_cgroups *any = end ? end : start;

	for (unsigned i = 0; i < n; i++) {
		const char *p = path_of(end, ids[i]);

		if (!p)
			p = path_of(start, ids[i]);
		json_array_append_new(arr, json_pack("{s:I, s:o, s:s}", "id", (json_int_t)ids[i],
		                                     "path", p ? json_string(p) : json_null(),
		                                     "hierarchy", any ? any->hierarchy : "?"));
	}
	return arr;
}

void cap_cgroups_free(struct cap_cgroups *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->e[i].path);
	free(c->e);
	free(c);
}
