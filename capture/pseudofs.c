/* SPDX-License-Identifier: MIT */
/* Mounting tracefs and debugfs where a capture needs them, and unmounting what it mounted. */
#include "capture/cap_int.h"

#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_mounted(const char *dir, const char *fstype)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char line[1024], mp[512], type[64];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %511s %63s", mp, type) == 2 && !strcmp(mp, dir) &&
		    !strcmp(type, fstype))
			found = 1;
	fclose(f);
	return found;
}

int cap_ensure_mounted(const char *dir, const char *fstype, struct iot_err *e)
{
	struct stat st;

	/* tracefs also appears inside debugfs (debug/tracing): the file is what matters */
	if (!strcmp(fstype, "tracefs")) {
		char probe[512];

		snprintf(probe, sizeof(probe), "%s/current_tracer", dir);
		if (access(probe, F_OK) == 0)
			return 0;
	} else if (is_mounted(dir, fstype)) {
		return 0;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return iot_err_set(e, -EOPNOTSUPP, "%s: mount point %s is missing", fstype, dir);
	/* EOPNOTSUPP, whatever mount said: the caller reports a system problem, not bad input */
	if (mount("nodev", dir, fstype, 0, NULL))
		return iot_err_set(e, -EOPNOTSUPP,
		                   "%s is not mounted at %s and mounting it failed: %s", fstype,
		                   dir, strerror(errno));
	return 1;
}

void cap_unmount_own(const char *dir)
{
	/* not lazily: if someone started using it meanwhile (EBUSY), it stays mounted */
	umount2(dir, UMOUNT_NOFOLLOW);
}
