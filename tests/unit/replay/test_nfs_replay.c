/* SPDX-License-Identifier: MIT */
/* NFS replay: a hand-made capture (formats/nfs_rec.h) replayed into a temporary directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "formats/instream.h"
#include "formats/nfs_rec.h"
#include "replay/nfs_int.h"

enum { R = 1, D, F, O };

static char dir[64], cap[80];

static int open_cap(void *arg, struct in_stream **out, struct iot_err *e)
{
	(void)arg;
	return in_stream_open(out, cap, e);
}

/* Write calls (answered 20 us after each call, 100 us apart) as the capture cap. */
static void write_cap(const char *name, const struct nfs_rec_call *calls, size_t n)
{
	struct nfs_rec *r;
	struct iot_err e;
	uint64_t t = 1000000;

	snprintf(cap, sizeof(cap), "%s/%s", dir, name);
	assert_int_equal(nfs_rec_open(&r, cap, &e), 0);
	for (size_t i = 0; i < n; i++) {
		struct nfs_rec_call c = calls[i];

		c.call_ns = t;
		c.reply_ns = t + 20000;
		t += 100000;
		assert_int_equal(nfs_rec_write(r, &c, &e), 0);
	}
	assert_int_equal(nfs_rec_close(r, &e), 0);
}

/* FSINFO on the root; MKDIR d; CREATE d/f; WRITE it; LOOKUP d/missing (NOENT); LOOKUP old,
 * a file the capture never saw made, GETATTR (10000 bytes) and READ its end; RENAME d/f d/g */
static int setup(void **state)
{
	const struct nfs_rec_call calls[] = {
	    {.proc = 19, .fh = R},
	    {.proc = 9, .dir_fh = R, .name = "d", .fh = D},
	    {.proc = 8, .dir_fh = D, .name = "f", .fh = F},
	    {.proc = 7, .fh = F, .count = 4096, .done = 4096},
	    {.proc = 3, .dir_fh = D, .name = "missing", .status = 2},
	    {.proc = 3, .dir_fh = R, .name = "old", .fh = O},
	    {.proc = 1, .fh = O, .size = 10000},
	    {.proc = 6, .fh = O, .offset = 8192, .count = 4096, .done = 1808},
	    {.proc = 14, .dir_fh = D, .name = "f", .to_dir_fh = D, .to_name = "g"},
	};

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/iotape-nfsr-XXXXXX");
	assert_non_null(mkdtemp(dir));
	write_cap("c.pcap", calls, sizeof(calls) / sizeof(calls[0]));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static const struct nr_proc *proc(const struct nfs_replay_stats *st, const char *name)
{
	for (unsigned i = 0; i < st->nprocs; i++)
		if (!strcmp(st->procs[i].name, name))
			return &st->procs[i];
	fail_msg("no %s", name);
	return NULL;
}

static void replay(const char *sub, bool prepare, struct nfs_replay_stats *st)
{
	static char target[128];
	struct nfs_replay_opts o = {.timing = RP_TIMING_AFAP, .prepare = prepare, .open = open_cap};
	struct iot_err e = {{0}};

	snprintf(target, sizeof(target), "%s/%s", dir, sub);
	assert_int_equal(mkdir(target, 0755), 0);
	o.target_dir = target;
	assert_int_equal(nfs_replay_run(&o, st, &e), 0);
}

static void test_prepared(void **state)
{
	struct nfs_replay_stats st;
	struct stat sb;
	char p[160];

	(void)state;
	replay("a", true, &st);
	assert_int_equal(st.calls, 9);
	assert_int_equal(st.replayed, 9);
	assert_int_equal(st.same, 9);
	assert_int_equal(st.diverged, 0);
	assert_int_equal(st.errors, 1); /* the lookup of a missing name, as in the capture */
	assert_int_equal(st.prep_files, 1);
	assert_int_equal(st.prep_bytes, 10000);
	assert_int_equal(st.bytes_written, 4096);
	assert_int_equal(st.bytes_read, 1808);
	assert_int_equal(st.cap_bytes_read, 1808);
	assert_int_equal(proc(&st, "LOOKUP")->captured, 2);
	assert_int_equal(proc(&st, "LOOKUP")->same_err, 1);
	assert_int_equal(proc(&st, "WRITE")->replayed, 1);
	snprintf(p, sizeof(p), "%s/a/d/g", dir);
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_size, 4096);
	snprintf(p, sizeof(p), "%s/a/old", dir);
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_size, 10000);
	snprintf(p, sizeof(p), "%s/a/d/f", dir);
	assert_int_not_equal(stat(p, &sb), 0);
	nfs_replay_stats_release(&st);
}

/* without --prepare, what the workload did not make is missing: the divergences say so */
static void test_diverged(void **state)
{
	struct nfs_replay_stats st;

	(void)state;
	replay("b", false, &st);
	assert_int_equal(st.replayed, 9);
	assert_int_equal(st.diverged, 3); /* LOOKUP, GETATTR and READ of old */
	assert_int_equal(st.nshown, 3);
	assert_string_equal(st.shown[0].path, "old");
	assert_int_equal(st.shown[0].cap_status, 0);
	assert_int_equal(st.shown[0].rep_status, 2);
	assert_int_equal(st.ndivs, 3);
	assert_int_equal(proc(&st, "READ")->diverged, 1);
	nfs_replay_stats_release(&st);
}

/* A directory that existed before the capture is renamed, then a file in it is used under the
 * new name: --prepare makes the file where it was at the start (d/x, not e/x), and a rename
 * onto a name that held something else leaves nothing of that behind. */
static void test_prepare_renamed(void **state)
{
	const struct nfs_rec_call calls[] = {
	    {.proc = 19, .fh = R},
	    {.proc = 3, .dir_fh = R, .name = "d", .fh = D},
	    {.proc = 14, .dir_fh = R, .name = "d", .to_dir_fh = R, .to_name = "e"},
	    {.proc = 3, .dir_fh = D, .name = "x", .fh = F},
	    {.proc = 1, .fh = F, .size = 100},
	    {.proc = 6, .fh = F, .offset = 0, .count = 100, .done = 100},
	    {.proc = 3, .dir_fh = R, .name = "old", .fh = O},
	    {.proc = 14, .dir_fh = D, .name = "x", .to_dir_fh = R, .to_name = "old"},
	    {.proc = 6, .fh = F, .offset = 0, .count = 100, .done = 100},
	};
	struct nfs_replay_stats st;
	struct stat sb;
	char p[160];

	(void)state;
	write_cap("renamed.pcap", calls, sizeof(calls) / sizeof(calls[0]));
	replay("renamed", true, &st);
	assert_int_equal(st.prep_failed, 0);
	assert_int_equal(st.prep_dirs, 1);
	assert_int_equal(st.prep_files, 2); /* d/x and old */
	assert_int_equal(st.diverged, 0);
	snprintf(p, sizeof(p), "%s/renamed/old", dir);
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_size, 100);
	snprintf(p, sizeof(p), "%s/renamed/e", dir);
	assert_int_equal(stat(p, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	snprintf(p, sizeof(p), "%s/renamed/d", dir);
	assert_int_not_equal(stat(p, &sb), 0);
	nfs_replay_stats_release(&st);
}

/* The mode is set through an O_PATH descriptor (what a FIFO or device gets) both ways the
 * replay chooses between at run time: fchmodat2 (glibc 2.36's fchmodat refuses AT_EMPTY_PATH)
 * and /proc/self/fd (kernels before 6.6). */
static void test_chmod_fd(void **state)
{
	char p[160];
	struct stat sb;
	int fd;

	(void)state;
	snprintf(p, sizeof(p), "%s/fifo", dir);
	assert_int_equal(mkfifo(p, 0644), 0);
	fd = open(p, O_PATH | O_NOFOLLOW);
	assert_true(fd >= 0);
	assert_int_equal(nr_chmod_fd(fd, 0600, NR_CHMOD_PROC), 0);
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	{
		int r = nr_chmod_fd(fd, 01751, NR_CHMOD_FCHMODAT2);

		if (r != -ENOSYS) { /* a kernel before 6.6 has none */
			assert_int_equal(r, 0);
			assert_int_equal(stat(p, &sb), 0);
			assert_int_equal(sb.st_mode & 07777, 01751);
		}
	}
	assert_int_equal(nr_chmod_fd(fd, 0640, NR_CHMOD_AUTO), 0);
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0640);
	close(fd);
}

/* What the workload set is set: a created file's and a directory's modes exactly (not
 * under the umask), a SETATTR's mode (EINVAL from glibc 2.36's fchmodat before), and the
 * bytes the WRITEs carried (a pattern before) */
static void test_attrs_and_payloads(void **state)
{
	static const uint8_t hello[] = "hello, world 123"; /* 16 bytes and a NUL */
	const struct nfs_rec_call calls[] = {
	    {.proc = 19, .fh = R},
	    {.proc = 8, .dir_fh = R, .name = "f", .fh = F, .mode = 0600, .has_mode = true},
	    {.proc = 7, .fh = F, .count = 16, .done = 16, .wdata = hello},
	    {.proc = 7, .fh = F, .offset = 16, .count = 16, .done = 16, .wdata = hello},
	    {.proc = 2, .fh = F, .mode = 04751, .has_mode = true},
	    {.proc = 9, .dir_fh = R, .name = "d", .fh = D, .mode = 0700, .has_mode = true},
	};
	struct nfs_replay_stats st;
	struct stat sb;
	char p[160], buf[40];
	FILE *f;
	mode_t old = umask(022);

	(void)state;
	write_cap("attrs.pcap", calls, sizeof(calls) / sizeof(calls[0]));
	replay("attrs", false, &st);
	umask(old);
	assert_int_equal(st.diverged, 0);
	assert_int_equal(st.errors, 0);
	assert_int_equal(st.payload_cut, 0);
	snprintf(p, sizeof(p), "%s/attrs/f", dir);
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 04751);
	assert_int_equal(sb.st_size, 32);
	f = fopen(p, "r");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, sizeof(buf), f), 32);
	fclose(f);
	assert_memory_equal(buf, hello, 16);
	assert_memory_equal(buf + 16, hello, 16);
	snprintf(p, sizeof(p), "%s/attrs/d", dir);
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0700);
	nfs_replay_stats_release(&st);
}

/* What an op carries after its fields, each piece ending where it must: a WRITE's payload
 * (no NUL of its own), a symbolic link's text, a hard link's second path. The op's memory is
 * no longer cleared before they are copied in: a terminator left out would show here (and as
 * an uninitialised read under valgrind). */
static void test_op_tail(void **state)
{
	static uint8_t big[3000];
	const struct nfs_rec_call calls[] = {
	    {.proc = 19, .fh = R},
	    {.proc = 9, .dir_fh = R, .name = "d", .fh = D},
	    {.proc = 8, .dir_fh = D, .name = "f", .fh = F},
	    {.proc = 7, .fh = F, .count = sizeof(big), .done = sizeof(big), .wdata = big},
	    {.proc = 10, .dir_fh = D, .name = "s", .data = "f", .fh = O},
	    {.proc = 7, .fh = F, .offset = sizeof(big), .count = 7, .done = 7, .wdata = big},
	    {.proc = 15, .fh = F, .to_dir_fh = R, .to_name = "hard-link-to-f"},
	    {.proc = 10, .dir_fh = R, .name = "t", .data = "d/f-and-a-longer-text", .fh = 5},
	};
	struct nfs_replay_stats st;
	struct stat sb, sl;
	char p[160], l[64];
	ssize_t n;

	(void)state;
	memset(big, 'x', sizeof(big));
	write_cap("tail.pcap", calls, sizeof(calls) / sizeof(calls[0]));
	replay("tail", false, &st);
	assert_int_equal(st.diverged, 0);
	assert_int_equal(st.errors, 0);
	assert_int_equal(st.payload_cut, 0);
	assert_int_equal(st.bytes_written, sizeof(big) + 7);
	snprintf(p, sizeof(p), "%s/tail/d/s", dir);
	n = readlink(p, l, sizeof(l));
	assert_int_equal(n, 1);
	assert_memory_equal(l, "f", 1);
	snprintf(p, sizeof(p), "%s/tail/t", dir);
	n = readlink(p, l, sizeof(l));
	assert_int_equal(n, strlen("d/f-and-a-longer-text"));
	assert_memory_equal(l, "d/f-and-a-longer-text", (size_t)n);
	snprintf(p, sizeof(p), "%s/tail/d/f", dir);
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_size, sizeof(big) + 7);
	assert_int_equal(sb.st_nlink, 2);
	snprintf(p, sizeof(p), "%s/tail/hard-link-to-f", dir);
	assert_int_equal(stat(p, &sl), 0);
	assert_int_equal(sl.st_ino, sb.st_ino);
	nfs_replay_stats_release(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_prepared),           cmocka_unit_test(test_diverged),
	    cmocka_unit_test(test_prepare_renamed),    cmocka_unit_test(test_chmod_fd),
	    cmocka_unit_test(test_attrs_and_payloads), cmocka_unit_test(test_op_tail),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
