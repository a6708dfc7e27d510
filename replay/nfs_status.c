/* SPDX-License-Identifier: MIT */
/* The NFS replay's statuses (errno <-> nfsstat), --root-fh, and the statistics' memory: the
 * leaves the other nfs_*.c files share. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/nfs_int.h"

uint32_t nr_errno_status(int err)
{
	switch (err) {
	case 0:
		return 0;
	case EPERM:
		return 1;
	case ENOENT:
		return 2;
	case EIO:
		return 5;
	case ENXIO:
		return 6;
	case EACCES:
		return 13;
	case EEXIST:
		return 17;
	case EXDEV:
		return 18;
	case ENODEV:
		return 19;
	case ENOTDIR:
		return 20;
	case EISDIR:
		return 21;
	case EINVAL:
		return 22;
	case EFBIG:
		return 27;
	case ENOSPC:
		return 28;
	case EROFS:
		return 30;
	case EMLINK:
		return 31;
	case ENAMETOOLONG:
		return 63;
	case ENOTEMPTY:
		return 66;
	case EDQUOT:
		return 69;
	case ESTALE:
		return 70;
	case EOPNOTSUPP:
		return 10004; /* NFS3ERR_NOTSUPP */
	default:
		return 10006; /* NFS3ERR_SERVERFAULT */
	}
}

void nr_status_str(uint32_t status, unsigned vers, char *buf, size_t len)
{
	/* nfsstat3 and nfsstat4 agree on the numbers a replay can give */
	const char *n = status == NR_ESCAPE ? "ESCAPE" : nfs_status_name(status);

	(void)vers;
	if (n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "%u", status);
}

int nr_parse_fh(const char *hex, uint8_t *fh, unsigned *len)
{
	size_t n = strlen(hex);

	if (!n || n % 2 || n / 2 > NFS_FH_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -EINVAL;
		fh[i] = (uint8_t)v;
	}
	*len = (unsigned)(n / 2);
	return 0;
}

void nfs_replay_stats_release(struct nfs_replay_stats *st)
{
	free(st->procs);
	free(st->divs);
	st->procs = NULL;
	st->divs = NULL;
}
