/* SPDX-License-Identifier: MIT */
/* The block replay's state made and freed: slots, buffers, the window, targets, the engine. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "replay/engine.h"
#include "replay/sched.h"

static int open_targets(struct rp *r)
{
	const struct replay_opts *o = r->o;
	unsigned n = o->nmaps + (o->target ? 1 : 0);
	int ret;

	if (!n)
		return iot_err_set(r->e, -EINVAL, "no target: give --target PATH or --map");
	r->tgts = calloc(n, sizeof(*r->tgts));
	r->map_tgt = calloc(o->nmaps + 1, sizeof(*r->map_tgt));
	if (!r->tgts || !r->map_tgt)
		return iot_err_set(r->e, -ENOMEM, "out of memory");
	r->default_tgt = -1;
	for (unsigned i = 0; i < n; i++) {
		const char *path = i < o->nmaps ? o->maps[i].path : o->target;

		if ((ret = rp_target_open(&r->tgts[i], path, o, r->e)))
			return ret;
		r->ntgts++;
		if (i < o->nmaps)
			r->map_tgt[i] = i;
		else
			r->default_tgt = i;
	}
	return 0;
}

static int init_engine(struct rp *r, const struct rp_engine_conf *conf)
{
	const struct replay_opts *o = r->o;

	if (o->engine) {
		r->ops = rp_engine_find(o->engine);
		if (!r->ops)
			return iot_err_set(r->e, -EINVAL,
			                   "unknown engine '%s' (io_uring, psync, null)",
			                   o->engine);
		return r->ops->init(&r->eng, conf, r->e);
	}
	/* RAM devices (zram) complete IO in the submitter's context: io_uring hands each IO to a
	 * worker thread and waits for its wakeup, the thread engine with the reaper helping does
	 * the IO on every CPU (2x on zram, bench/README.md); on the trace's clock it does them
	 * itself, without a thread to wake. */
	if (conf->inline_ok) {
		r->ops = &rp_engine_psync;
		if (!r->ops->init(&r->eng, conf, NULL))
			return 0;
	}
	/* io_uring unless this kernel (or a seccomp policy) says no */
	r->ops = &rp_engine_uring;
	if (!r->ops->init(&r->eng, conf, NULL))
		return 0;
	r->ops = &rp_engine_psync;
	return r->ops->init(&r->eng, conf, r->e);
}

int rp_setup(struct rp *r)
{
	const struct replay_opts *o = r->o;
	struct rp_engine_conf conf = {0};
	int ret;

	r->depth = o->depth ? o->depth : RP_DEFAULT_DEPTH;
	if (r->depth > 4096)
		return iot_err_set(r->e, -EINVAL, "depth %u is more than 4096", r->depth);
	r->slots = aligned_alloc(_Alignof(struct rp_slot), r->depth * sizeof(*r->slots));
	r->free_slots = calloc(r->depth, sizeof(*r->free_slots));
	r->iov = calloc(r->depth + 1, sizeof(*r->iov));
	r->pend = calloc(RP_PEND_MAX, sizeof(*r->pend));
	r->big = calloc(r->depth, sizeof(*r->big));
	rp_bufs_init(&r->bufs);
	if (!r->slots || !r->free_slots || !r->iov || !r->pend || !r->big)
		return iot_err_set(r->e, -ENOMEM, "out of memory");
	if (r->o->from == RP_FROM_ISSUE) {
		r->bucket_head = malloc(PEND_BUCKETS * sizeof(*r->bucket_head));
		r->bucket_tail = malloc(PEND_BUCKETS * sizeof(*r->bucket_tail));
		if (!r->bucket_head || !r->bucket_tail)
			return iot_err_set(r->e, -ENOMEM, "out of memory");
		memset(r->bucket_head, 0xff, PEND_BUCKETS * sizeof(*r->bucket_head));
		memset(r->bucket_tail, 0xff, PEND_BUCKETS * sizeof(*r->bucket_tail));
	}
	r->mem_len = (size_t)(r->depth + 1) * RP_SLOT_BYTES;
	r->mem = mmap(NULL, r->mem_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->mem == MAP_FAILED) {
		r->mem = NULL;
		return iot_err_set(r->e, -ENOMEM, "cannot map %zu bytes of buffers", r->mem_len);
	}
	rp_pattern_fill(rp_pattern(r), RP_SLOT_BYTES, 0x10ae);
	for (unsigned i = 0; i <= r->depth; i++) {
		r->iov[i].iov_base = r->mem + (size_t)i * RP_SLOT_BYTES;
		r->iov[i].iov_len = RP_SLOT_BYTES;
	}
	for (unsigned i = 0; i < r->depth; i++)
		r->free_slots[r->nfree++] = r->depth - 1 - i;
	if ((ret = open_targets(r)))
		return ret;
	if (o->record_dir && (ret = rp_record_open(o->record_dir, r->tgts, r->ntgts, r->e)))
		return ret;
	conf.depth = r->depth;
	conf.bufs = r->iov;
	conf.nbufs = r->depth + 1;
	conf.pattern = rp_pattern(r);
	conf.null_lat_ns = o->null_lat_ns;
	{
		static const unsigned max_fds = 8;
		int fds[8];

		for (unsigned i = 0; i < r->ntgts && i < max_fds; i++)
			fds[i] = r->tgts[i].fd;
		conf.fds = fds;
		conf.inline_ok = r->ntgts > 0;
		conf.timed = o->timing == RP_TIMING_ORIGINAL;
		for (unsigned i = 0; i < r->ntgts; i++)
			if (!r->tgts[i].ram || !r->tgts[i].direct)
				conf.inline_ok = false;
		conf.nfds = r->ntgts < max_fds ? r->ntgts : max_fds;
		if ((ret = init_engine(r, &conf)))
			return ret;
	}
	r->st->engine = r->ops->name;
	r->hooks = o->fid || o->observe || o->progress || o->record_dir;
	r->spin_ns = rp_clock_spin(o->spin_ns);
	/* the kernel's default 50 us timer slack would swallow the lag budget */
	r->timerslack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0);
	return 0;
}

void rp_teardown(struct rp *r)
{
	if (r->eng)
		r->ops->cleanup(r->eng);
	if (r->timerslack > 0)
		prctl(PR_SET_TIMERSLACK, (unsigned long)r->timerslack, 0, 0, 0);
	for (unsigned i = 0; i < r->ntgts; i++) {
		if (r->tgts[i].rec) {
			bt_set_writer_close(r->tgts[i].rec, NULL);
			r->tgts[i].rec = NULL;
		}
		rp_target_close(&r->tgts[i]);
	}
	if (r->mem)
		munmap(r->mem, r->mem_len);
	rp_bufs_free(&r->bufs);
	free(r->big);
	free(r->tgts);
	free(r->map_tgt);
	free(r->slots);
	free(r->free_slots);
	free(r->iov);
	free(r->pend);
	free(r->bucket_head);
	free(r->bucket_tail);
}
