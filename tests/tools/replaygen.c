/* SPDX-License-Identifier: MIT */
/* replaygen: exact, reproducible D/C (and Q) sequences for the replay tests and benchmark;
 * `replaygen dump` prints a trace's (sector, bytes, direction) sequence for comparison. */
/*
 * IO i is issued (D) at i * gap (plus jitter), queued (Q) 1 us before, and completes (C)
 * after a latency drawn from [lat/2, 3 lat/2]. Sectors are 4 KiB aligned within --span-mb,
 * sizes 4..64 KiB. Synthetic data, and says so in its name.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/blktrace.h"

static uint64_t rng;
static uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* a binary min-heap of events by (time, order) */
struct item {
	struct blk_event ev;
	uint64_t order;
};
static struct item *heap;
static size_t hn, hcap;

static int before(const struct item *a, const struct item *b)
{
	return a->ev.time != b->ev.time ? a->ev.time < b->ev.time : a->order < b->order;
}

static void push(const struct blk_event *ev)
{
	static uint64_t order;
	size_t i;

	if (hn == hcap) {
		hcap = hcap ? hcap * 2 : 1024;
		heap = realloc(heap, hcap * sizeof(*heap));
		if (!heap)
			exit(3);
	}
	i = hn++;
	heap[i].ev = *ev;
	heap[i].order = order++;
	while (i && before(&heap[i], &heap[(i - 1) / 2])) {
		struct item t = heap[i];

		heap[i] = heap[(i - 1) / 2];
		heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static struct item pop(void)
{
	struct item top = heap[0];
	size_t i = 0;

	heap[0] = heap[--hn];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < hn && before(&heap[l], &heap[m]))
			m = l;
		if (r < hn && before(&heap[r], &heap[m]))
			m = r;
		if (m == i)
			break;
		struct item t = heap[i];
		heap[i] = heap[m];
		heap[m] = t;
		i = m;
	}
	return top;
}

static struct bt_set_writer *w;
static uint32_t seqs[256];
static struct iot_err err;

static void emit(struct blk_event *ev)
{
	ev->seq = seqs[ev->cpu]++;
	if (bt_set_writer_write(w, ev, &err)) {
		fprintf(stderr, "replaygen: %s\n", err.msg);
		exit(3);
	}
}

static int dump(int argc, char **argv)
{
	struct bt_reader *r;
	struct blk_event ev;
	unsigned want = BLK_A_ISSUE;
	int times = 0, ret;

	for (int i = 2; i < argc - 1; i++) {
		if (!strcmp(argv[i], "--action") && i + 1 < argc - 1) {
			i++;
			want = argv[i][0] == 'C'   ? BLK_A_COMPLETE
			       : argv[i][0] == 'Q' ? BLK_A_QUEUE
			                           : BLK_A_ISSUE;
		} else if (!strcmp(argv[i], "--time")) {
			times = 1;
		}
	}
	if (argc < 3 || bt_reader_open(&r, argv[argc - 1], &err)) {
		fprintf(stderr, "replaygen: dump: %s\n", argc < 3 ? "no trace" : err.msg);
		return 2;
	}
	while ((ret = bt_reader_next(r, &ev, &err)) > 0) {
		char rwbs[8];

		if (blk_is_notify(&ev) || ev.action != want)
			continue;
		if (times)
			printf("%" PRIu64 " ", ev.time);
		printf("%" PRIu64 " %u %s\n", ev.sector, ev.bytes,
		       blk_rwbs(ev.flags, ev.bytes, rwbs));
	}
	bt_reader_free(r);
	if (ret < 0) {
		fprintf(stderr, "replaygen: dump: %s\n", err.msg);
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"ios", 1, NULL, 'N'},      {"seed", 1, NULL, 's'},
	    {"gap-us", 1, NULL, 'g'},   {"lat-us", 1, NULL, 'l'},
	    {"read-pct", 1, NULL, 'r'}, {"span-mb", 1, NULL, 'S'},
	    {"dev", 1, NULL, 'd'},      {"cpus", 1, NULL, 'c'},
	    {"devs", 1, NULL, 'D'},     {"flush-every", 1, NULL, 'f'},
	    {"jitter", 0, NULL, 'j'},   {"max-kb", 1, NULL, 'k'},
	    {"fixed-kb", 1, NULL, 'K'}, {"discard-every", 1, NULL, 'x'},
	    {NULL, 0, NULL, 0},
	};
	const char *dir = NULL, *name = "replaygen";
	uint64_t ios = 1000, gap_ns = 100000, lat_ns = 200000, span = 64ull << 20;
	unsigned read_pct = 70, cpus = 2, devs = 1, ma = 8, mi = 16, flush_every = 0;
	unsigned max_kb = 64, fixed_kb = 0, discard_every = 0;
	int jitter = 0, c;

	if (argc > 1 && !strcmp(argv[1], "dump"))
		return dump(argc, argv);
	rng = 1;
	while ((c = getopt_long(argc, argv, "o:n:", lo, NULL)) != -1) {
		switch (c) {
		case 'o':
			dir = optarg;
			break;
		case 'n':
			name = optarg;
			break;
		case 'N':
			ios = strtoull(optarg, NULL, 0);
			break;
		case 's':
			rng = strtoull(optarg, NULL, 0);
			break;
		case 'g':
			gap_ns = (uint64_t)(strtod(optarg, NULL) * 1000);
			break;
		case 'l':
			lat_ns = (uint64_t)(strtod(optarg, NULL) * 1000);
			break;
		case 'r':
			read_pct = (unsigned)atoi(optarg);
			break;
		case 'S':
			span = strtoull(optarg, NULL, 0) << 20;
			break;
		case 'd':
			if (sscanf(optarg, "%u,%u", &ma, &mi) != 2)
				return 2;
			break;
		case 'c':
			cpus = (unsigned)atoi(optarg);
			break;
		case 'D':
			devs = (unsigned)atoi(optarg);
			break;
		case 'f':
			flush_every = (unsigned)atoi(optarg);
			break;
		case 'x':
			discard_every = (unsigned)atoi(optarg);
			break;
		case 'j':
			jitter = 1;
			break;
		case 'k':
			max_kb = (unsigned)atoi(optarg);
			break;
		case 'K':
			fixed_kb = (unsigned)atoi(optarg);
			break;
		default:
			fprintf(stderr,
			        "usage: replaygen -o DIR [-n NAME] [--ios N] [--seed S] "
			        "[--gap-us G] [--lat-us L] [--read-pct P] [--span-mb M] "
			        "[--dev MAJ,MIN] [--devs K] [--cpus C] [--flush-every K] "
			        "[--discard-every K] [--jitter] [--max-kb K] [--fixed-kb K]\n"
			        "       replaygen dump [--action D|C|Q] [--time] TRACE\n");
			return 2;
		}
	}
	if (!dir || !cpus || cpus > 256 || !devs || max_kb < 4 || span < (1u << 20))
		return fprintf(stderr, "replaygen: bad arguments\n"), 2;
	mkdir(dir, 0755);
	if (bt_set_writer_open(&w, dir, name, &err))
		return fprintf(stderr, "replaygen: %s\n", err.msg), 3;
	uint64_t base = 1000000; /* trace clock starts at 1 ms */
	for (uint64_t i = 0; i < ios; i++) {
		struct blk_event ev = {0};
		uint64_t t = base + i * gap_ns + (jitter && gap_ns > 4 ? rnd() % (gap_ns / 2) : 0);
		uint64_t lat = lat_ns ? lat_ns / 2 + rnd() % (lat_ns + 1) : 0;
		unsigned kb = fixed_kb ? fixed_kb : 4 * (1 + (unsigned)(rnd() % (max_kb / 4)));
		int is_flush = flush_every && i % flush_every == flush_every - 1;
		int is_discard =
		    !is_flush && discard_every && i % discard_every == discard_every - 1;
		int rd = !is_flush && !is_discard && rnd() % 100 < read_pct;

		/* everything earlier than this IO's Q can go out: later events are never earlier */
		while (hn && heap[0].ev.time + 1000 < t) {
			struct item it = pop();
			emit(&it.ev);
		}
		ev.dev = BLK_MKDEV(ma, mi + (unsigned)(i % devs));
		ev.cpu = (uint32_t)(i % cpus);
		ev.pid = 4242;
		ev.bytes = is_flush ? 0 : kb * 1024;
		ev.sector = is_flush ? 0 : ((rnd() % ((span - ev.bytes) / 4096)) * 8);
		ev.flags = is_flush     ? (BLK_F_WRITE | BLK_F_FLUSH | BLK_F_SYNC)
		           : is_discard ? (BLK_F_WRITE | BLK_F_DISCARD)
		           : rd         ? BLK_F_READ
		                        : (BLK_F_WRITE | BLK_F_SYNC);
		/* the kernel sets the action's category bit too (btrecord looks for it) */
		uint64_t base_flags = ev.flags;

		ev.time = t > 1000 ? t - 1000 : 0;
		ev.action = BLK_A_QUEUE;
		ev.flags = base_flags | BLK_F_QUEUE;
		push(&ev);
		ev.time = t;
		ev.action = BLK_A_ISSUE;
		ev.flags = base_flags | BLK_F_ISSUE;
		push(&ev);
		ev.time = t + lat;
		ev.action = BLK_A_COMPLETE;
		ev.flags = base_flags | BLK_F_COMPLETE;
		push(&ev);
	}
	while (hn) {
		struct item it = pop();
		emit(&it.ev);
	}
	free(heap);
	if (bt_set_writer_close(w, &err))
		return fprintf(stderr, "replaygen: %s\n", err.msg), 3;
	return 0;
}
