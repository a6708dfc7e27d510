/* SPDX-License-Identifier: MIT */
/* Each engine on a temporary file: write, read back, datasync, punch a hole, zero a range. */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/engine.h"

static char path[64];
static int fd;

static int setup(void **state)
{
	(void)state;
	strcpy(path, "/tmp/iotape-ut-engine.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || ftruncate(fd, 1 << 20))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	close(fd);
	unlink(path);
	return 0;
}

/* run ios through the engine and wait for all of them */
static void run(const struct rp_engine_ops *ops, struct rp_engine *eng, struct rp_io *ios,
                unsigned n)
{
	struct rp_io *done[8];
	unsigned got = 0;

	for (unsigned i = 0; i < n; i++) {
		ios[i].t_issue = iot_now_ns();
		assert_int_equal(ops->queue(eng, &ios[i]), 0);
	}
	assert_int_equal(ops->commit(eng), 0);
	while (got < n) {
		int r = ops->reap(eng, done, 8, RP_WAIT_FOREVER);

		assert_true(r >= 0);
		for (int i = 0; i < r; i++)
			assert_true(done[i]->t_done >= done[i]->t_issue);
		got += (unsigned)r;
	}
	assert_int_equal(ops->reap(eng, done, 8, 0), 0);
}

static void exercise(const char *name, bool inline_ok)
{
	const struct rp_engine_ops *ops = rp_engine_find(name);
	struct rp_engine_conf conf = {.depth = 8, .inline_ok = inline_ok};
	struct rp_engine *eng;
	struct iot_err e = {{0}};
	uint8_t wbuf[8192], rbuf[8192], zero[4096] = {0};
	struct rp_io io[4];
	int ret;

	assert_non_null(ops);
	ret = ops->init(&eng, &conf, &e);
	if (ret == -ENOSYS || ret == -EPERM) {
		print_message("%s: not available here (%s), skipped\n", name, e.msg);
		return;
	}
	assert_int_equal(ret, 0);
	rp_pattern_fill(wbuf, sizeof(wbuf), 42);
	memset(io, 0, sizeof(io));
	for (int i = 0; i < 2; i++) {
		io[i].op = RP_OP_WRITE;
		io[i].fd = fd;
		io[i].off = (uint64_t)i * 65536;
		io[i].len = sizeof(wbuf);
		io[i].buf = wbuf;
		io[i].buf_index = -1;
	}
	io[2].op = RP_OP_FLUSH;
	io[2].fd = fd;
	run(ops, eng, io, 3);
	assert_int_equal(io[0].res, sizeof(wbuf));
	assert_int_equal(io[1].res, sizeof(wbuf));
	assert_int_equal(io[2].res, 0);

	memset(io, 0, sizeof(io));
	io[0].op = RP_OP_READ;
	io[0].fd = fd;
	io[0].off = 65536;
	io[0].len = sizeof(rbuf);
	io[0].buf = rbuf;
	io[0].buf_index = -1;
	run(ops, eng, io, 1);
	assert_int_equal(io[0].res, sizeof(rbuf));
	assert_memory_equal(rbuf, wbuf, sizeof(rbuf));

	/* punch the first 4 KiB of the first write, zero the first 4 KiB of the second */
	memset(io, 0, sizeof(io));
	io[0].op = RP_OP_DISCARD;
	io[0].fd = fd;
	io[0].len = 4096;
	io[1].op = RP_OP_WZERO;
	io[1].fd = fd;
	io[1].off = 65536;
	io[1].len = 4096;
	run(ops, eng, io, 2);
	if (io[0].res == -EOPNOTSUPP || io[1].res == -EOPNOTSUPP) {
		print_message("%s: the temporary filesystem cannot punch or zero\n", name);
	} else {
		assert_int_equal(io[0].res, 4096);
		assert_int_equal(io[1].res, 4096);
		assert_int_equal(pread(fd, rbuf, 8192, 0), 8192);
		assert_memory_equal(rbuf, zero, 4096);
		assert_memory_equal(rbuf + 4096, wbuf + 4096, 4096);
		assert_int_equal(pread(fd, rbuf, 8192, 65536), 8192);
		assert_memory_equal(rbuf, zero, 4096);
	}

	/* an error is a result, not a failure of the engine */
	memset(io, 0, sizeof(io));
	io[0].op = RP_OP_READ;
	io[0].fd = 9999;
	io[0].len = 512;
	io[0].buf = rbuf;
	io[0].buf_index = -1;
	run(ops, eng, io, 1);
	assert_int_equal(io[0].res, -EBADF);
	ops->cleanup(eng);
}

static void test_uring(void **state)
{
	(void)state;
	exercise("io_uring", false);
}

static void test_psync(void **state)
{
	(void)state;
	exercise("psync", false);
}

/* RAM-device mode: one thread per other CPU, the reaper does queued IOs while it waits */
static void test_psync_inline(void **state)
{
	(void)state;
	exercise("psync", true);
}

static unsigned count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* Many IOs through the lock-free queues, with the queue kept full and the reaper both waiting
 * and not: every IO comes back exactly once, with its own result and its own buffer. Reads go
 * to a registered buffer and writes come from the pattern, so RAM-device mode uses its
 * per-thread buffers and descriptors: what was written must still be the pattern. */
static void stress(bool inline_ok, unsigned depth)
{
	const struct rp_engine_ops *ops = rp_engine_find("psync");
	struct rp_engine_conf conf = {
	    .depth = depth, .inline_ok = inline_ok, .fds = &fd, .nfds = 1};
	unsigned fds_before = count_fds();
	uint8_t *pat = aligned_alloc(4096, RP_SLOT_BYTES), chk[512];
	struct rp_engine *eng;
	struct rp_io *ios = calloc(depth, sizeof(*ios)), *done[16];
	unsigned *seen = calloc(depth, sizeof(*seen)), inflight = 0, nfree = depth;
	unsigned *free_ios = calloc(depth, sizeof(*free_ios));
	static uint8_t buf[4096] __attribute__((aligned(4096)));
	const unsigned total = 20000;
	unsigned issued = 0, completed = 0;

	assert_non_null(ios);
	assert_non_null(seen);
	assert_non_null(free_ios);
	assert_non_null(pat);
	rp_pattern_fill(pat, RP_SLOT_BYTES, 7);
	conf.pattern = pat;
	assert_int_equal(ops->init(&eng, &conf, NULL), 0);
	for (unsigned i = 0; i < depth; i++)
		free_ios[i] = i;
	while (completed < total) {
		while (issued < total && nfree) {
			struct rp_io *io = &ios[free_ios[--nfree]];

			memset(io, 0, sizeof(*io));
			io->op = issued % 3 ? RP_OP_READ : RP_OP_WRITE;
			io->fd = fd;
			io->off = (uint64_t)(issued % 64) * 4096;
			io->len = 512 + issued % 7 * 512;
			io->buf = io->op == RP_OP_WRITE ? pat : buf;
			io->buf_index = io->op == RP_OP_WRITE ? 1 : 0;
			io->seq = issued++;
			io->t_issue = iot_now_ns();
			assert_int_equal(ops->queue(eng, io), 0);
			inflight++;
		}
		assert_int_equal(ops->commit(eng), 0);
		int n = ops->reap(eng, done, 16, completed % 5 ? RP_WAIT_FOREVER : 0);

		assert_true(n >= 0);
		for (int i = 0; i < n; i++) {
			unsigned k = (unsigned)(done[i] - ios);

			assert_true(k < depth);
			assert_int_equal(done[i]->res, done[i]->len);
			assert_ptr_equal(done[i]->buf, done[i]->op == RP_OP_WRITE ? pat : buf);
			seen[k]++;
			free_ios[nfree++] = k;
			inflight--;
			completed++;
		}
	}
	assert_int_equal(inflight, 0);
	assert_int_equal(ops->reap(eng, done, 16, 0), 0);
	{
		unsigned sum = 0;

		for (unsigned i = 0; i < depth; i++)
			sum += seen[i];
		assert_int_equal(sum, total);
	}
	ops->cleanup(eng);
	assert_int_equal(count_fds(), fds_before); /* the threads' own openings are closed */
	for (unsigned i = 0; i < 64; i += 3) {
		assert_int_equal(pread(fd, chk, sizeof(chk), (off_t)i * 4096), sizeof(chk));
		assert_memory_equal(chk, pat, sizeof(chk));
	}
	free(pat);
	free(ios);
	free(seen);
	free(free_ios);
}

static void test_psync_stress(void **state)
{
	(void)state;
	stress(false, 8);
	stress(false, 1);
	stress(true, 16);
	stress(true, 1);
}

/* A deadline with nothing done returns at the deadline, not before and not never */
static void test_psync_deadline(void **state)
{
	const struct rp_engine_ops *ops = rp_engine_find("psync");
	struct rp_engine_conf conf = {.depth = 4};
	struct rp_engine *eng;
	struct rp_io *done[4];
	uint64_t t = iot_now_ns();

	(void)state;
	assert_int_equal(ops->init(&eng, &conf, NULL), 0);
	assert_int_equal(ops->reap(eng, done, 4, 0), 0);
	assert_int_equal(ops->reap(eng, done, 4, t + 2000000), 0);
	assert_true(iot_now_ns() >= t + 2000000);
	ops->cleanup(eng);
}

/* threads of this process */
static unsigned count_tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	unsigned n = 0;
	struct dirent *de;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The pool starts with the first IO queued: IOs done in the caller's thread (run()) leave the
 * process with one thread, whose system calls then take no reference on their descriptor. */
static void test_psync_threads_on_demand(void **state)
{
	const struct rp_engine_ops *ops = rp_engine_find("psync");
	struct rp_engine_conf conf = {.depth = 4};
	static uint8_t buf[4096] __attribute__((aligned(4096)));
	struct rp_io io = {.op = RP_OP_READ, .buf = buf, .len = 4096, .buf_index = -1};
	struct rp_engine *eng;
	unsigned before = count_tasks();

	(void)state;
	for (int in = 0; in < 2; in++) {
		conf.inline_ok = in;
		assert_int_equal(ops->init(&eng, &conf, NULL), 0);
		io.fd = fd;
		ops->run(eng, &io);
		assert_int_equal(io.res, 4096);
		assert_int_equal(count_tasks(), before);
		io.res = 0;
		run(ops, eng, &io, 1);
		assert_int_equal(io.res, 4096);
		assert_true(count_tasks() > before);
		ops->cleanup(eng);
		assert_int_equal(count_tasks(), before);
	}
}

static void test_null_latency(void **state)
{
	const struct rp_engine_ops *ops = rp_engine_find("null");
	/* 50 ms: far beyond what a loaded machine adds to the 0.5 ms sleep below */
	struct rp_engine_conf conf = {.depth = 4, .null_lat_ns = 50000000};
	struct rp_engine *eng;
	struct rp_io io = {0}, *done[4];
	uint64_t t;

	(void)state;
	assert_int_equal(ops->init(&eng, &conf, NULL), 0);
	io.op = RP_OP_READ;
	io.len = 4096;
	t = io.t_issue = iot_now_ns();
	assert_int_equal(ops->queue(eng, &io), 0);
	assert_int_equal(ops->reap(eng, done, 4, 0), 0);          /* not yet */
	assert_int_equal(ops->reap(eng, done, 4, t + 500000), 0); /* deadline first */
	assert_true(iot_now_ns() >= t + 500000);
	assert_int_equal(ops->reap(eng, done, 4, RP_WAIT_FOREVER), 1);
	assert_true(io.t_done >= t + 50000000);
	assert_int_equal(io.res, 4096);
	assert_ptr_equal(rp_engine_find("sync"), rp_engine_find("psync"));
	assert_null(rp_engine_find("libaio"));
	ops->cleanup(eng);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_uring),
	    cmocka_unit_test(test_psync),
	    cmocka_unit_test(test_psync_inline),
	    cmocka_unit_test(test_psync_stress),
	    cmocka_unit_test(test_psync_deadline),
	    cmocka_unit_test(test_null_latency),
	    cmocka_unit_test(test_psync_threads_on_demand),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
