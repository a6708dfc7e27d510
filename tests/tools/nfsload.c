/* SPDX-License-Identifier: MIT */
/* NFS load for the tests and the benchmark: a fixed mix of operations through libnfs. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <nfsc/libnfs-zdr.h>
#include <nfsc/libnfs.h>

static void usage(void)
{
	fprintf(
	    stderr,
	    "usage: nfsload [-v 3|4] [-n FILES] [-s FILE_BYTES] [-b IO_BYTES] "
	    "[-m META_OPS_PER_FILE] [-u UID -g GID -H MACHINE] [-x] [-W FIFO] SERVER EXPORT DIR\n"
	    "  -u, -g, -H: the AUTH_SYS credentials the calls carry\n"
	    "  -x: also a tree: subdirectories, a truncate, a hard and a symbolic link, "
	    "a directory renamed, lookups and removals that fail\n"
	    "  -W: once the first file is open, wait for a line on FIFO (a capture "
	    "that starts mid-workload)\n");
	exit(2);
}

static int must(int ret, struct nfs_context *nfs, const char *what)
{
	if (ret < 0) {
		fprintf(stderr, "nfsload: %s: %s\n", what, nfs_get_error(nfs));
		exit(1);
	}
	return ret;
}

/* -x: a small tree and the operations a replay must reproduce, errors included */
static void tree_ops(struct nfs_context *nfs, const char *dir, char *buf, uint64_t iosize)
{
	char a[512], b[512];
	struct nfsfh *fh;
	struct nfs_stat_64 st;

	snprintf(a, sizeof(a), "%s/sub", dir);
	must(nfs_mkdir(nfs, a), nfs, "mkdir sub");
	snprintf(a, sizeof(a), "%s/sub/deep", dir);
	must(nfs_mkdir(nfs, a), nfs, "mkdir deep");
	snprintf(a, sizeof(a), "%s/sub/deep/t", dir);
	must(nfs_open(nfs, a, O_CREAT | O_RDWR | O_TRUNC, &fh), nfs, "create t");
	for (int i = 0; i < 3; i++)
		must(nfs_pwrite(nfs, fh, (uint64_t)i * iosize, iosize, buf), nfs, "write t");
	must(nfs_close(nfs, fh), nfs, "close t");
	must(nfs_truncate(nfs, a, iosize + iosize / 2), nfs, "truncate t");
	snprintf(b, sizeof(b), "%s/sub/hard", dir);
	must(nfs_link(nfs, a, b), nfs, "link");
	snprintf(b, sizeof(b), "%s/sub/soft", dir);
	must(nfs_symlink(nfs, "deep/t", b), nfs, "symlink");
	snprintf(b, sizeof(b), "%s/sub/deeper", dir);
	snprintf(a, sizeof(a), "%s/sub/deep", dir);
	must(nfs_rename(nfs, a, b), nfs, "rename dir");
	snprintf(a, sizeof(a), "%s/sub/deep/t", dir);
	if (nfs_stat64(nfs, a, &st) == 0) /* gone with its directory's old name */
		fprintf(stderr, "nfsload: %s still there\n", a);
	snprintf(a, sizeof(a), "%s/sub/deeper/t", dir);
	must(nfs_open(nfs, a, O_RDONLY, &fh), nfs, "open t");
	must(nfs_pread(nfs, fh, 0, iosize, buf), nfs, "read t");
	must(nfs_close(nfs, fh), nfs, "close t");
	snprintf(a, sizeof(a), "%s/gone", dir);
	must(nfs_open(nfs, a, O_CREAT | O_RDWR, &fh), nfs, "create gone");
	must(nfs_pwrite(nfs, fh, 0, iosize, buf), nfs, "write gone");
	must(nfs_close(nfs, fh), nfs, "close gone");
	must(nfs_unlink(nfs, a), nfs, "unlink gone");
	if (nfs_unlink(nfs, a) == 0) /* a second time: NOENT */
		fprintf(stderr, "nfsload: %s removed twice\n", a);
	snprintf(a, sizeof(a), "%s/sub", dir);
	if (nfs_rmdir(nfs, a) == 0) /* not empty */
		fprintf(stderr, "nfsload: %s removed while not empty\n", a);
}

int main(int argc, char **argv)
{
	int vers = 3, opt, uid = -1, gid = 0, tree = 0;
	const char *machine = "nfsload", *wait_fifo = NULL;
	unsigned files = 4, meta = 2, i, k;
	uint64_t fsize = 256 * 1024, iosize = 64 * 1024, off;
	struct nfs_context *nfs;
	char path[512], path2[512], *buf;
	const char *dir;

	while ((opt = getopt(argc, argv, "v:n:s:b:m:u:g:H:xW:")) != -1) {
		switch (opt) {
		case 'v':
			vers = atoi(optarg);
			break;
		case 'n':
			files = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 's':
			fsize = strtoull(optarg, NULL, 0);
			break;
		case 'b':
			iosize = strtoull(optarg, NULL, 0);
			break;
		case 'm':
			meta = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'u':
			uid = atoi(optarg);
			break;
		case 'g':
			gid = atoi(optarg);
			break;
		case 'H':
			machine = optarg;
			break;
		case 'x':
			tree = 1;
			break;
		case 'W':
			wait_fifo = optarg;
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 3 || !iosize)
		usage();
	dir = argv[optind + 2];
	buf = malloc(iosize);
	if (!buf)
		return 1;
	for (off = 0; off < iosize; off++)
		buf[off] = (char)(off * 7 + 1);
	nfs = nfs_init_context();
	if (!nfs)
		return 1;
	if (vers == 4)
		nfs_set_version(nfs, 4); /* NFS_V4 */
	if (uid >= 0) {
		/* every call, MOUNT's too, carries these credentials */
		nfs_set_uid(nfs, uid);
		nfs_set_gid(nfs, gid);
		nfs_set_auth(
		    nfs, libnfs_authunix_create(machine, (uint32_t)uid, (uint32_t)gid, 0, NULL));
	}
	must(nfs_mount(nfs, argv[optind], argv[optind + 1]), nfs, "mount");
	nfs_mkdir(nfs, dir); /* may exist */
	for (i = 0; i < files; i++) {
		struct nfsfh *fh;
		struct nfs_stat_64 st;

		snprintf(path, sizeof(path), "%s/f%u", dir, i);
		must(nfs_open(nfs, path, O_CREAT | O_RDWR | O_TRUNC, &fh), nfs, "create");
		if (wait_fifo && i == 0) {
			FILE *f;

			fprintf(stderr, "nfsload: waiting on %s\n", wait_fifo);
			f = fopen(wait_fifo, "r");
			char line[16];

			if (!f || !fgets(line, sizeof(line), f))
				return 1;
			fclose(f);
		}
		for (off = 0; off < fsize; off += iosize) {
			uint64_t n = fsize - off < iosize ? fsize - off : iosize;

			must(nfs_pwrite(nfs, fh, off, n, buf), nfs, "write");
		}
		must(nfs_fsync(nfs, fh), nfs, "fsync");
		must(nfs_close(nfs, fh), nfs, "close");
		for (k = 0; k < meta; k++) {
			must(nfs_stat64(nfs, path, &st), nfs, "stat");
			nfs_access(nfs, path, R_OK | W_OK);
		}
		must(nfs_open(nfs, path, O_RDONLY, &fh), nfs, "open");
		for (off = 0; off < fsize; off += iosize)
			must(nfs_pread(nfs, fh, off, iosize, buf), nfs, "read");
		must(nfs_close(nfs, fh), nfs, "close");
		/* a few errors on purpose: NOENT */
		snprintf(path2, sizeof(path2), "%s/missing%u", dir, i);
		nfs_stat64(nfs, path2, &st);
		snprintf(path2, sizeof(path2), "%s/g%u", dir, i);
		must(nfs_rename(nfs, path, path2), nfs, "rename");
		if (i % 2)
			must(nfs_unlink(nfs, path2), nfs, "unlink");
	}
	if (tree)
		tree_ops(nfs, dir, buf, iosize);
	{
		struct nfsdir *d;
		struct nfsdirent *e;
		unsigned n = 0;

		must(nfs_opendir(nfs, dir, &d), nfs, "opendir");
		while ((e = nfs_readdir(nfs, d)))
			n++;
		nfs_closedir(nfs, d);
		printf("%u entries\n", n);
	}
	nfs_destroy_context(nfs);
	free(buf);
	return 0;
}
