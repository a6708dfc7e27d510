/* SPDX-License-Identifier: MIT */
/* The machine's limit for bench/nfs-replay.sh: the system calls an NFS replay onto a directory
 * makes, for a list of file operations (nfs_v3gen.py load ... LIST), in a plain loop. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct op {
	char kind;
	char *a, *b;
	long long off, len;
};

static int root;

/* the replay's own way to open: beneath the root, no magic links */
static int beneath(const char *path, int flags, mode_t mode)
{
	struct open_how how = {.flags = (unsigned long long)flags | O_CLOEXEC,
	                       .mode = (flags & O_CREAT) ? mode : 0,
	                       .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS};

	return (int)syscall(SYS_openat2, root, path, &how, sizeof(how));
}

static int parent(const char *path, const char **name)
{
	char dir[4096];
	const char *s = strrchr(path, '/');

	if (!s) {
		*name = path;
		return beneath(".", O_PATH | O_DIRECTORY, 0);
	}
	snprintf(dir, sizeof(dir), "%.*s", (int)(s - path), path);
	*name = s + 1;
	return beneath(dir, O_PATH | O_DIRECTORY, 0);
}

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	struct op *ops = NULL;
	size_t n = 0, cap = 0, errs = 0;
	char line[8192], k[32], a[4096], b[4096];
	struct timespec t0, t1;
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: nfsloop LIST DIR\n");
		return 2;
	}
	f = fopen(argv[1], "r");
	root = open(argv[2], O_PATH | O_DIRECTORY);
	if (!f || root < 0) {
		perror("nfsloop");
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		struct op o = {0};
		int m = sscanf(line, "%31s %4095s %4095s", k, a, b);

		if (m < 2)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			ops = realloc(ops, cap * sizeof(*ops));
			if (!ops)
				return 1;
		}
		o.kind = !strcmp(k, "rename")   ? 'R'
		         : !strcmp(k, "remove") ? 'X'
		         : !strcmp(k, "commit") ? 'C'
		                                : k[0];
		o.a = strdup(a);
		if (o.kind == 'R')
			o.b = strdup(b);
		else if (m > 2)
			sscanf(line, "%*s %*s %lld %lld", &o.off, &o.len);
		ops[n++] = o;
	}
	fclose(f);
	memset(buf, 1, sizeof(buf));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < n; i++) {
		const struct op *o = &ops[i];
		const char *nm, *nm2;
		struct stat st;
		struct statfs sf;
		int fd = -1, fd2 = -1, r = 0;

		switch (o->kind) {
		case 'f': /* fsstat */
			if ((fd = beneath(o->a, O_PATH, 0)) >= 0)
				r = fstatfs(fd, &sf);
			break;
		case 'm': /* mkdir */
			if ((fd = parent(o->a, &nm)) >= 0)
				r = mkdirat(fd, nm, 0755);
			break;
		case 'c': /* create */
			fd = beneath(o->a, O_RDWR | O_CREAT | O_NOFOLLOW, 0644);
			break;
		case 'w':
			if ((fd = beneath(o->a, O_WRONLY, 0)) >= 0)
				r = pwrite(fd, buf, (size_t)o->len, o->off) < 0;
			break;
		case 'r':
			if ((fd = beneath(o->a, O_RDONLY, 0)) >= 0)
				r = pread(fd, buf, (size_t)o->len, o->off) < 0;
			break;
		case 's': /* stat */
			if ((fd = beneath(o->a, O_PATH | O_NOFOLLOW, 0)) >= 0)
				r = fstat(fd, &st);
			break;
		case 'C': /* commit */
			if ((fd = beneath(o->a, O_WRONLY, 0)) >= 0)
				r = fdatasync(fd);
			break;
		case 't': /* truncate */
			if ((fd = beneath(o->a, O_WRONLY, 0)) >= 0)
				r = ftruncate(fd, o->off);
			break;
		case 'R':
			if ((fd = parent(o->a, &nm)) >= 0 && (fd2 = parent(o->b, &nm2)) >= 0)
				r = renameat(fd, nm, fd2, nm2);
			break;
		case 'X':
			if ((fd = parent(o->a, &nm)) >= 0)
				r = unlinkat(fd, nm, 0);
			break;
		default:
			break;
		}
		errs += fd < 0 || r;
		if (fd >= 0)
			close(fd);
		if (fd2 >= 0)
			close(fd2);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	{
		double s =
		    (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

		printf("%zu ops %.6f s %.0f ops/s %zu errors\n", n, s, (double)n / s, errs);
	}
	return 0;
}
