/* SPDX-License-Identifier: MIT */
/* --record RUNDIR: the replay's own issue (D) and completion (C) events as a blktrace v7 set
 * per target, plus manifest.json, so a replay is a run that `iotape analyze` reads. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/jsonint.h"
#include "common/fs.h"
#include "formats/manifest.h"
#include "replay/internal.h"

int rp_record_open(const char *dir, struct rp_target *t, unsigned n, struct iot_err *e)
{
	int ret = iot_mkdir_p(dir, e);

	if (ret)
		return ret;
	for (unsigned i = 0; i < n; i++) {
		/* two targets with one name (two files) get distinct sets */
		for (unsigned j = 0; j < i; j++) {
			if (!strcmp(t[i].name, t[j].name)) {
				size_t l = strlen(t[i].name);

				snprintf(t[i].name + l, sizeof(t[i].name) - l, "%u", i);
				break;
			}
		}
		ret = bt_set_writer_open(&t[i].rec, dir, t[i].name, e);
		if (ret)
			return ret;
		/* a PROCESS note, as the kernel writes for each new pid, so blkparse names us */
		{
			static const char comm[16] = "iotape";
			struct blk_event ev = {0};

			ev.flags = BLK_F_NOTIFY;
			ev.action = BLK_N_PROCESS;
			ev.pid = (uint32_t)getpid();
			ev.dev = t[i].dev;
			ev.pdu = (const uint8_t *)comm;
			ev.pdu_len = sizeof(comm);
			ev.seq = t[i].rec_seq++;
			if ((ret = bt_set_writer_write(t[i].rec, &ev, e)))
				return ret;
		}
	}
	return 0;
}

int rp_record_io(struct rp_target *t, const struct rp_io *io, bool done, uint64_t t0,
                 struct iot_err *e)
{
	struct blk_event ev;
	uint64_t when = (done ? io->t_done : io->t_issue) - t0;

	if (!t->rec)
		return 0;
	/* psync threads stamp completions before the main thread records a later issue: keep
	 * the file in time order as the kernel would (readers merge files, not records) */
	if (when < t->rec_last)
		when = t->rec_last;
	t->rec_last = when;
	memset(&ev, 0, sizeof(ev));
	ev.time = when;
	ev.sector = io->off / 512;
	ev.bytes = io->len;
	ev.dev = t->dev;
	ev.pid = (uint32_t)getpid();
	ev.cpu = 0;
	ev.seq = t->rec_seq++;
	ev.action = done ? BLK_A_COMPLETE : BLK_A_ISSUE;
	ev.flags = done ? BLK_F_COMPLETE : BLK_F_ISSUE;
	switch (io->op) {
	case RP_OP_READ:
		ev.flags |= BLK_F_READ;
		break;
	case RP_OP_WRITE:
		ev.flags |= BLK_F_WRITE;
		break;
	case RP_OP_FLUSH:
		ev.flags |= BLK_F_WRITE | BLK_F_FLUSH;
		ev.sector = 0;
		break;
	case RP_OP_DISCARD:
		ev.flags |= BLK_F_WRITE | BLK_F_DISCARD;
		break;
	case RP_OP_WZERO:
		ev.flags |= BLK_F_WRITE | BLK_F_WRITE_ZEROES;
		break;
	}
	ev.flags |= io->trace_flags & (BLK_F_SYNC | BLK_F_META | BLK_F_AHEAD);
	if (io->op == RP_OP_WRITE && (io->trace_flags & BLK_F_FUA))
		ev.flags |= BLK_F_FUA;
	ev.flags |= BLK_F_FS;
	if (done && io->res < 0)
		ev.error = (uint16_t)-io->res;
	return bt_set_writer_write(t->rec, &ev, e);
}

/* What every replay's manifest starts with: the one header (formats/manifest.h) of kind
 * "replay", and the clock (trace time 0 is the replay's start at start_real_ns). */
json_t *rp_manifest_new(int argc, const char *const *argv, int64_t start_real_ns)
{
	json_t *m = manifest_header("replay", argv, argc), *clock = json_object();
	char when[64];
	time_t secs = (time_t)(start_real_ns / 1000000000);

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&secs));
	json_object_set_new(clock, "trace_clock", json_string("CLOCK_MONOTONIC"));
	json_object_set_new(clock, "start",
	                    json_pack("{s:s, s:I, s:I}", "wall", when, "realtime_ns",
	                              (json_int_t)start_real_ns, "trace_ns", (json_int_t)0));
	json_object_set_new(m, "clock", clock);
	return m;
}

/* The run's manifest, plus a "replay" object with the options and the summary. */
static json_t *manifest(struct rp_target *t, unsigned n, const struct replay_opts *o,
                        const struct replay_stats *st)
{
	json_t *m = rp_manifest_new(o->argc, o->argv, st->start_real_ns);
	json_t *devs = json_array(), *backend = json_object(), *counts = json_object(), *rep;
	uint64_t events = 0;
	char *s;

	json_object_set_new(backend, "name", json_string("replay"));
	json_object_set_new(backend, "engine", json_string(st->engine ? st->engine : ""));
	json_object_set_new(m, "backend", backend);
	for (unsigned i = 0; i < n; i++) {
		json_t *d = json_object();
		char dev[32], files[96];

		snprintf(dev, sizeof(dev), "%u:%u", BLK_DEV_MAJOR(t[i].dev),
		         BLK_DEV_MINOR(t[i].dev));
		snprintf(files, sizeof(files), "%s.blktrace", t[i].name);
		json_object_set_new(d, "name", json_string(t[i].name));
		json_object_set_new(d, "path", json_string(t[i].path));
		json_object_set_new(d, "dev", json_string(dev));
		json_object_set_new(d, "major", json_integer(BLK_DEV_MAJOR(t[i].dev)));
		json_object_set_new(d, "minor", json_integer(BLK_DEV_MINOR(t[i].dev)));
		json_object_set_new(d, "type", json_string(t[i].is_blk ? "block" : "file"));
		json_object_set_new(d, "size_bytes", json_u64(t[i].size));
		json_object_set_new(d, "logical_block_size", json_integer(t[i].lbs));
		json_object_set_new(d, "files", json_string(files));
		json_object_set_new(d, "events", json_integer(t[i].rec_seq));
		events += t[i].rec_seq;
		json_array_append_new(devs, d);
	}
	json_object_set_new(m, "devices", devs);
	json_object_set_new(counts, "events", json_u64(events));
	json_object_set_new(counts, "lost", json_integer(0));
	json_object_set_new(m, "counts", counts);
	s = replay_stats_json(o, st);
	rep = s ? json_loads(s, 0, NULL) : NULL;
	free(s);
	if (rep)
		json_object_set_new(m, "replay", rep);
	return m;
}

int rp_record_close(const char *dir, struct rp_target *t, unsigned n, const struct replay_opts *o,
                    const struct replay_stats *st, struct iot_err *e)
{
	int ret = 0;
	json_t *m;

	for (unsigned i = 0; i < n; i++) {
		int r = bt_set_writer_close(t[i].rec, e);

		t[i].rec = NULL;
		if (r && !ret)
			ret = r;
	}
	if (ret || !st)
		return ret;
	m = manifest(t, n, o, st);
	ret = manifest_save(dir, m, e);
	json_decref(m);
	return ret;
}
