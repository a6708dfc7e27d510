/* SPDX-License-Identifier: MIT */
/* Real programs' file workloads over NFS through libnfs: what tar -x, cp -r, git clone and a
 * shell's chmod/link/rename/symlink/truncate/rm do, for the NFS replay's tree tests. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <nfsc/libnfs.h>

#define PATH_CAP 1024
static size_t chunk = 48 * 1024; /* tar's and cp's IO size (-b; v4: 3000): WRITEs up to it */

static struct nfs_context *nfs;
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static unsigned scale = 1;
static int version = 3;

static void usage(void)
{
	fprintf(stderr,
	        "usage: nfswork [-v 3|4] [-s SEED] [-n SCALE] [-b IO_BYTES] SERVER EXPORT DIR "
	        "STEP...\n"
	        "  steps, each in DIR/STEP (cp copies DIR/tar, so tar comes first):\n"
	        "  tar  a source tree extracted: directories, files written in IO_BYTES blocks\n"
	        "       with their modes and mtimes set after, symbolic and hard links,\n"
	        "       the directories' modes and times last\n"
	        "  cp   cp -rp of DIR/tar: each file read and written, modes and times kept\n"
	        "  git  a clone: loose objects written to temporary names, renamed into place\n"
	        "       and made read-only, a pack and its index, refs and config through\n"
	        "       lock files, then a checkout\n"
	        "  mix  chmod, link, rename (over a name too, a directory), symlink, truncate\n"
	        "       (down and up), a write in the middle, rm and rm -r\n");
	exit(2);
}

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "nfswork: %s '%s': %s\n", what, path, nfs_get_error(nfs));
	exit(1);
}

static const char *pf(char *buf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, PATH_CAP, fmt, ap);
	va_end(ap);
	return buf;
}

static void mkdir_m(const char *p, int mode)
{
	if (nfs_mkdir2(nfs, p, mode))
		die("mkdir", p);
}

/* bytes that compress like source code would not, but are the same for the same seed */
static void fill(uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i % 61 ? 'a' + next() % 26 : '\n');
}

/* Create path (exclusively, or truncated) with mode and write n bytes in chunk writes. */
static void write_file(const char *p, int mode, size_t n, int excl)
{
	struct nfsfh *fh;
	uint8_t *b = malloc(n ? n : 1);
	size_t off;

	if (!b)
		exit(1);
	fill(b, n);
	if (nfs_create(nfs, p, O_WRONLY | (excl ? O_EXCL : O_TRUNC), mode, &fh))
		die("create", p);
	for (off = 0; off < n; off += chunk) {
		size_t k = n - off < chunk ? n - off : chunk;

		if (nfs_pwrite(nfs, fh, off, k, b + off) != (int)k)
			die("write", p);
	}
	if (nfs_close(nfs, fh))
		die("close", p);
	free(b);
}

static void set_times(const char *p, long sec)
{
	struct timeval tv[2] = {{sec, 0}, {sec, 0}};

	if (nfs_utimes(nfs, p, tv))
		die("utimes", p);
}

static void chmod_p(const char *p, int mode)
{
	if (nfs_chmod(nfs, p, mode))
		die("chmod", p);
}

/* libnfs 4.0 sets a directory's attributes over NFSv4 by OPENing it (NFS4ERR_ISDIR): there
 * the directories keep the mode they were made with and their times */
static void chmod_dir(const char *p, int mode)
{
	if (version == 3)
		chmod_p(p, mode);
}

static void set_dir_times(const char *p, long sec)
{
	if (version == 3)
		set_times(p, sec);
}

/* tar -x: what GNU tar does per member: files O_CREAT|O_EXCL with a restrictive mode, written,
 * then their mode and mtime; links; the directories' modes and mtimes once their contents
 * are out */
static void step_tar(const char *top)
{
	static const int fmodes[] = {0644, 0755, 0600, 0444, 0640};
	char d[PATH_CAP], p[PATH_CAP], q[PATH_CAP];
	unsigned ndirs = 4 * scale, nfiles = 9;

	mkdir_m(top, 0700);
	for (unsigned i = 0; i < ndirs; i++) {
		mkdir_m(pf(d, "%s/src%u", top, i), 0700);
		if (i % 2)
			mkdir_m(pf(d, "%s/src%u/sub", top, i), 0700);
		for (unsigned k = 0; k < nfiles; k++) {
			/* sizes: empty, a few bytes, a block, a few blocks, up to 150 KiB */
			size_t n = k == 0 ? 0 : k == 1 ? 17 : next() % (k < 6 ? 20000 : 150000);

			pf(p, "%s/src%u/%sf%u.c", top, i, i % 2 && k % 3 == 0 ? "sub/" : "", k);
			write_file(p, 0600, n, 1);
			chmod_p(p, fmodes[(i + k) % 5]);
			set_times(p, 1600000000 + (long)(i * 100 + k));
		}
		if (nfs_symlink(nfs, "f1.c", pf(p, "%s/src%u/link.c", top, i)))
			die("symlink", p);
		if (nfs_link(nfs, pf(q, "%s/src%u/f2.c", top, i), pf(p, "%s/src%u/hard.c", top, i)))
			die("link", p);
	}
	for (unsigned i = 0; i < ndirs; i++) {
		if (i % 2) {
			chmod_dir(pf(d, "%s/src%u/sub", top, i), 0755);
			set_dir_times(d, 1500000000);
		}
		chmod_dir(pf(d, "%s/src%u", top, i), i == 2 ? 0750 : 0755);
		set_dir_times(d, 1500000000 + (long)i);
	}
	chmod_dir(top, 0755);
}

/* cp -rp SRC DST: read every file and write it, keep modes and times; links as symlinks are
 * copied, hard links as two files (cp -r without -a) */
static void copy_tree(const char *src, const char *dst, int mode)
{
	struct nfsdir *dir;
	struct nfsdirent *e;
	char s[PATH_CAP], t[PATH_CAP];
	uint8_t *b = malloc(chunk);

	if (!b)
		exit(1);
	mkdir_m(dst, 0700);
	if (nfs_opendir(nfs, src, &dir))
		die("opendir", src);
	while ((e = nfs_readdir(nfs, dir))) {
		if (!strcmp(e->name, ".") || !strcmp(e->name, ".."))
			continue;
		pf(s, "%s/%s", src, e->name);
		pf(t, "%s/%s", dst, e->name);
		if (e->type == 2) { /* NF3DIR */
			copy_tree(s, t, (int)(e->mode & 07777));
		} else if (e->type == 5) { /* NF3LNK */
			char l[PATH_CAP] = "f1.c";

			/* libnfs 4.0's NFSv4 READLINK runs strlen() past the reply (ASan): over
			 * v4 the link is made as tar made it (every tar link points to f1.c) */
			if (version == 3 && nfs_readlink(nfs, s, l, sizeof(l)))
				die("readlink", s);
			if (nfs_symlink(nfs, l, t))
				die("symlink", t);
		} else {
			struct nfsfh *in, *out;
			uint64_t off = 0;
			int n;

			if (nfs_open(nfs, s, O_RDONLY, &in))
				die("open", s);
			if (nfs_create(nfs, t, O_WRONLY | O_TRUNC, 0600, &out))
				die("create", t);
			while ((n = nfs_pread(nfs, in, off, chunk, b)) > 0) {
				if (nfs_pwrite(nfs, out, off, (uint64_t)n, b) != n)
					die("write", t);
				off += (uint64_t)n;
			}
			if (n < 0)
				die("read", s);
			nfs_close(nfs, in);
			nfs_close(nfs, out);
			chmod_p(t, (int)(e->mode & 07777));
			set_times(t, (long)e->mtime.tv_sec);
		}
	}
	nfs_closedir(nfs, dir);
	free(b);
	chmod_dir(dst, mode);
}

static void step_cp(const char *dir, const char *top)
{
	char s[PATH_CAP];

	copy_tree(pf(s, "%s/tar", dir), top, 0755);
}

static void hex(char *out, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		out[i] = "0123456789abcdef"[next() % 16];
	out[n] = 0;
}

/* write a file through a lock file renamed over it, as git does for refs and config */
static void locked_write(const char *p, size_t n)
{
	char l[PATH_CAP];

	write_file(pf(l, "%s.lock", p), 0644, n, 1);
	if (nfs_rename(nfs, l, p))
		die("rename", l);
}

static void step_git(const char *top)
{
	char g[PATH_CAP], p[PATH_CAP], q[PATH_CAP], id[41], inc[PATH_CAP];

	mkdir_m(top, 0755);
	mkdir_m(pf(g, "%s/.git", top), 0755);
	for (unsigned i = 0; i < 5; i++) {
		static const char *const sub[] = {"objects", "objects/pack", "objects/info", "refs",
		                                  "refs/heads"};

		mkdir_m(pf(p, "%s/%s", g, sub[i]), 0755);
	}
	write_file(pf(p, "%s/HEAD", g), 0644, 21, 1);
	locked_write(pf(p, "%s/config", g), 300);
	/* loose objects: a temporary in an incoming directory, renamed into objects/xx/ */
	mkdir_m(pf(inc, "%s/objects/incoming-ab12", g), 0700);
	for (unsigned i = 0; i < 24 * scale; i++) {
		hex(id, 40);
		pf(q, "%s/tmp_obj_%u", inc, i);
		write_file(q, 0444, 30 + next() % 4000, 1);
		pf(p, "%s/objects/%.2s", g, id);
		nfs_mkdir2(nfs, p, 0755); /* may exist */
		if (nfs_rename(nfs, q, pf(p, "%s/objects/%.2s/%s", g, id, id + 2)))
			die("rename", q);
	}
	if (nfs_rmdir(nfs, inc))
		die("rmdir", inc);
	/* a pack: written to a temporary, its index, both renamed */
	hex(id, 40);
	write_file(pf(q, "%s/objects/pack/tmp_pack_x1", g), 0444, 200000, 1);
	if (nfs_rename(nfs, q, pf(p, "%s/objects/pack/pack-%s.pack", g, id)))
		die("rename", q);
	write_file(pf(q, "%s/objects/pack/tmp_idx_x1", g), 0444, 5000, 1);
	if (nfs_rename(nfs, q, pf(p, "%s/objects/pack/pack-%s.idx", g, id)))
		die("rename", q);
	locked_write(pf(p, "%s/packed-refs", g), 120);
	locked_write(pf(p, "%s/refs/heads/main", g), 41);
	/* the checkout: files, an executable, then the index through its lock */
	mkdir_m(pf(p, "%s/lib", top), 0755);
	for (unsigned i = 0; i < 12; i++) {
		pf(p, "%s/%sfile%u.txt", top, i % 2 ? "lib/" : "", i);
		write_file(p, i == 3 ? 0755 : 0644, next() % 60000, 1);
	}
	locked_write(pf(p, "%s/index", g), 2000);
}

/* a shell's mix: chmod, ln, mv (over a name, a directory), ln -s, truncate, a write in the
 * middle, rm, rm -r */
static void step_mix(const char *top)
{
	char a[PATH_CAP], b[PATH_CAP];
	struct nfsfh *fh;
	uint8_t buf[2000]; /* within what libnfs 4.0 writes over NFSv4 in one call */

	mkdir_m(top, 0755);
	mkdir_m(pf(a, "%s/a", top), 0755);
	mkdir_m(pf(a, "%s/keep", top), 0755);
	for (unsigned i = 0; i < 6; i++)
		write_file(pf(a, "%s/a/f%u", top, i), 0644, 3000 + 1000 * i, 1);
	chmod_p(pf(a, "%s/a/f0", top), 0600);
	chmod_p(pf(a, "%s/a/f1", top), 04755);
	/* a hard link that outlives the name it was made from, in a directory renamed after */
	if (nfs_link(nfs, pf(a, "%s/a/f3", top), pf(b, "%s/keep/f3hard", top)))
		die("link", b);
	if (nfs_unlink(nfs, pf(a, "%s/a/f3", top)))
		die("unlink", a);
	if (nfs_rename(nfs, pf(a, "%s/keep", top), pf(b, "%s/kept", top)))
		die("rename", a);
	/* a rename over an existing name, a rename across directories */
	if (nfs_rename(nfs, pf(a, "%s/a/f4", top), pf(b, "%s/a/f5", top)))
		die("rename", a);
	if (nfs_rename(nfs, pf(a, "%s/a/f2", top), pf(b, "%s/kept/f2", top)))
		die("rename", a);
	if (nfs_symlink(nfs, "../kept/f2", pf(a, "%s/a/sym", top)))
		die("symlink", a);
	if (nfs_symlink(nfs, "nowhere", pf(a, "%s/dangling", top)))
		die("symlink", a);
	/* truncate down and up, and a write in the middle */
	if (nfs_truncate(nfs, pf(a, "%s/a/f5", top), 2500))
		die("truncate", a);
	if (nfs_truncate(nfs, pf(a, "%s/a/f0", top), 70000))
		die("truncate", a);
	fill(buf, sizeof(buf));
	if (nfs_open(nfs, pf(a, "%s/a/f1", top), O_WRONLY, &fh) ||
	    nfs_pwrite(nfs, fh, 1000, sizeof(buf), buf) != (int)sizeof(buf))
		die("write", a);
	nfs_close(nfs, fh);
	/* rm -r of a tree */
	mkdir_m(pf(a, "%s/gone", top), 0755);
	mkdir_m(pf(a, "%s/gone/deep", top), 0755);
	write_file(pf(a, "%s/gone/deep/x", top), 0644, 100, 1);
	write_file(pf(a, "%s/gone/y", top), 0644, 100, 1);
	if (nfs_unlink(nfs, pf(a, "%s/gone/deep/x", top)) ||
	    nfs_rmdir(nfs, pf(b, "%s/gone/deep", top)) ||
	    nfs_unlink(nfs, pf(a, "%s/gone/y", top)) || nfs_rmdir(nfs, pf(b, "%s/gone", top)))
		die("rm -r", a);
	chmod_dir(pf(a, "%s/kept", top), 0700);
	set_times(pf(a, "%s/kept/f3hard", top), 1234567890);
}

int main(int argc, char **argv)
{
	int opt;
	bool io_set = false;
	const char *dir;
	char top[PATH_CAP];

	while ((opt = getopt(argc, argv, "v:s:n:b:")) != -1) {
		switch (opt) {
		case 'v':
			version = atoi(optarg);
			break;
		case 's':
			rng = strtoull(optarg, NULL, 0) | 1;
			break;
		case 'b':
			chunk = strtoul(optarg, NULL, 0);
			io_set = true;
			if (!chunk)
				usage();
			break;
		case 'n':
			scale = (unsigned)strtoul(optarg, NULL, 0);
			if (!scale)
				usage();
			break;
		default:
			usage();
		}
	}
	if (argc - optind < 4)
		usage();
	dir = argv[optind + 2];
	nfs = nfs_init_context();
	if (!nfs)
		return 1;
	if (version == 4) {
		nfs_set_version(nfs, 4); /* NFS_V4 */
		if (!io_set)
			chunk = 3000; /* libnfs 4.0 cannot encode an NFSv4 WRITE of 4 KiB */
	}
	if (nfs_mount(nfs, argv[optind], argv[optind + 1]))
		die("mount", argv[optind + 1]);
	opt = nfs_mkdir2(nfs, dir, 0755);
	if (opt && opt != -EEXIST)
		die("mkdir", dir);
	for (int i = optind + 3; i < argc; i++) {
		pf(top, "%s/%s", dir, argv[i]);
		if (!strcmp(argv[i], "tar"))
			step_tar(top);
		else if (!strcmp(argv[i], "cp"))
			step_cp(dir, top);
		else if (!strcmp(argv[i], "git"))
			step_git(top);
		else if (!strcmp(argv[i], "mix"))
			step_mix(top);
		else
			usage();
	}
	nfs_destroy_context(nfs);
	return 0;
}
