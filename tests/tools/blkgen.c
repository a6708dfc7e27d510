/* SPDX-License-Identifier: MIT */
/* blkgen: synthetic blktrace per-CPU sets with known ground truth, for tests and benchmarks. */
/*
 * A discrete-event model of a block device queue: requests arrive (Q, G, optional back merges
 * M, I), wait for one of --depth slots (D), complete after a service time (C). Bursts are
 * separated by --gaps idle gaps of --gap-ms. Events leave in global time order through a
 * heap, so each per-CPU file is in time order as the kernel writes it. The ground truth
 * (what an analyzer must find) is computed from the model, not from the events.
 *
 * This is synthetic data and says so: real samples live in samples/.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "formats/blktrace.h"

struct opts {
	const char *dir, *name, *truth;
	int manifest; /* DIR/manifest.json: what iotape capture records of the trace it writes */
	uint64_t ios;
	uint64_t seed;
	unsigned cpus, depth, gaps, devices, merge_pct, read_pct;
	double gap_ms;
	int v8, swap, gzip;
	unsigned drop_pct;    /* lose this percentage of records, as a full relay buffer would */
	int extras;           /* the actions and records the model does not need (see gen_extras) */
	unsigned foreign_pct; /* records that name the next CPU while in this CPU's file */
	uint64_t threshold_ns;
	uint64_t start_ns;   /* time of the first record (tests near the clock's end) */
	uint64_t sector_max; /* highest start sector of a random jump */
};

/* ------------------------------------------------------------------------------------ */
/* random numbers: splitmix64, reproducible across platforms */
static uint64_t rng_state;
static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
static uint64_t rnd_range(uint64_t lo, uint64_t hi) /* [lo, hi] */
{
	return lo + rnd() % (hi - lo + 1);
}

/* ------------------------------------------------------------------------------------ */
/* output: encoded records, per-CPU files */
struct out_file {
	FILE *f;
	gzFile gz;
};
static struct out_file *outs;
static struct opts o;

/* --extras draws from a stream of its own, so the model's events stay those of the seed */
static uint64_t xrng_state;
static uint64_t xrnd(void)
{
	uint64_t z = (xrng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
static int xchance(unsigned one_in)
{
	return o.extras && xrnd() % one_in == 0;
}

/* --foreign-pct too: a stream of its own */
static uint64_t frng_state;
static uint64_t frnd(void)
{
	uint64_t z = (frng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void put(unsigned cpu, const void *rec, size_t len)
{
	if (o.gzip) {
		if (gzwrite(outs[cpu].gz, rec, (unsigned)len) != (int)len) {
			fprintf(stderr, "blkgen: gzip write failed\n");
			exit(1);
		}
	} else if (fwrite(rec, 1, len, outs[cpu].f) != len) {
		perror("blkgen: write");
		exit(1);
	}
}

static void w16(uint8_t *p, uint16_t v)
{
	if (o.swap)
		v = __builtin_bswap16(v);
	memcpy(p, &v, 2);
}
static void w32(uint8_t *p, uint32_t v)
{
	if (o.swap)
		v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}
static void w64(uint8_t *p, uint64_t v)
{
	if (o.swap)
		v = __builtin_bswap64(v);
	memcpy(p, &v, 8);
}

/* per device (7,i, i < 16): what a capture's manifest says of the records written */
struct written {
	uint64_t events;
	struct blk_span span;
};
static struct written written[16];

static void note_written(const struct blk_event *ev)
{
	written[ev->dev & 0xf].events++;
	blk_span_add(&written[ev->dev & 0xf].span, ev);
}

static void emit_record(const struct blk_event *ev)
{
	uint8_t rec[64 + 64];
	uint64_t action = ev->flags << 16 | ev->action;
	size_t hdr = o.v8 ? BT_REC8_SIZE : BT_REC7_SIZE;
	/* a record whose CPU field is not its file's (blkparse drops those) */
	uint32_t cpu = o.foreign_pct && o.cpus > 1 && frnd() % 100 < o.foreign_pct
	                   ? (ev->cpu + 1) % o.cpus
	                   : ev->cpu;

	memset(rec, 0, sizeof(rec));
	w32(rec + BT7_MAGIC, BT_MAGIC | (o.v8 ? BT_VERSION8 : BT_VERSION7));
	w32(rec + BT7_SEQUENCE, ev->seq);
	w64(rec + BT7_TIME, ev->time);
	w64(rec + BT7_SECTOR, ev->sector);
	w32(rec + BT7_BYTES, ev->bytes);
	if (o.v8) {
		w32(rec + BT8_PID, ev->pid);
		w64(rec + BT8_ACTION, action);
		w32(rec + BT8_DEVICE, ev->dev);
		w32(rec + BT8_CPU, cpu);
		w16(rec + BT8_ERROR, ev->error);
		w16(rec + BT8_PDU_LEN, (uint16_t)ev->pdu_len);
	} else {
		w32(rec + BT7_ACTION, (uint32_t)action);
		w32(rec + BT7_PID, ev->pid);
		w32(rec + BT7_DEVICE, ev->dev);
		w32(rec + BT7_CPU, cpu);
		w16(rec + BT7_ERROR, ev->error);
		w16(rec + BT7_PDU_LEN, (uint16_t)ev->pdu_len);
	}
	if (ev->pdu_len)
		memcpy(rec + hdr, ev->pdu, ev->pdu_len);
	put(ev->cpu, rec, hdr + ev->pdu_len);
	note_written(ev);
}

/* ------------------------------------------------------------------------------------ */
/* the pending event heap (bounded by depth x events per request) */
struct pev {
	struct blk_event ev;
	uint64_t order;  /* tie-break: creation order */
	uint8_t pdu[32]; /* the event's PDU (ev.pdu is set when it leaves the heap) */
};
static struct pev *heap;
static size_t nheap, capheap;
static uint64_t order_ctr;

static int pless(const struct pev *a, const struct pev *b)
{
	return a->ev.time != b->ev.time ? a->ev.time < b->ev.time : a->order < b->order;
}

static void hpush(const struct blk_event *ev)
{
	size_t i;

	if (nheap == capheap) {
		capheap = capheap ? capheap * 2 : 1024;
		heap = realloc(heap, capheap * sizeof(*heap));
		if (!heap)
			abort();
	}
	i = nheap++;
	heap[i].ev = *ev;
	heap[i].order = order_ctr++;
	if (ev->pdu_len > sizeof(heap[i].pdu))
		abort();
	if (ev->pdu_len)
		memcpy(heap[i].pdu, ev->pdu, ev->pdu_len);
	while (i && pless(&heap[i], &heap[(i - 1) / 2])) {
		struct pev t = heap[i];
		heap[i] = heap[(i - 1) / 2];
		heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static struct blk_event hpop(void)
{
	static uint8_t pdu[32]; /* valid until the next pop */
	struct blk_event top = heap[0].ev;
	size_t i = 0;

	memcpy(pdu, heap[0].pdu, sizeof(pdu));
	top.pdu = top.pdu_len ? pdu : NULL;
	heap[0] = heap[--nheap];
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < nheap && pless(&heap[l], &heap[m]))
			m = l;
		if (l + 1 < nheap && pless(&heap[l + 1], &heap[m]))
			m = l + 1;
		if (m == i)
			break;
		struct pev t = heap[i];
		heap[i] = heap[m];
		heap[m] = t;
		i = m;
	}
	return top;
}

/* per (device, cpu) sequence numbers, as the kernel keeps them */
static uint32_t *seqs;
static uint64_t dropped;

static void flush_before(uint64_t t)
{
	while (nheap && heap[0].ev.time < t) {
		struct blk_event ev = hpop();
		if (!(ev.flags & BLK_F_NOTIFY)) {
			ev.seq = ++seqs[(ev.dev & 0xff) * o.cpus + ev.cpu];
			if (o.drop_pct && rnd() % 100 < o.drop_pct) {
				dropped++;
				continue;
			}
		}
		emit_record(&ev);
	}
}

/* ------------------------------------------------------------------------------------ */
/* the device model and its ground truth */
struct io_stat {
	uint64_t ios, bytes;
};
struct dev {
	uint32_t dev;
	uint64_t next_arrival;
	uint64_t *slot_free; /* depth slots: time each becomes free */
	uint64_t last_d, last_end_sector, max_c;
	int have_d;
	uint64_t next_sector;
	uint64_t done; /* requests generated */
	uint64_t burst_left;
	/* truth */
	struct io_stat reads, writes; /* completed requests */
	uint64_t queued, merges, requests;
	uint64_t seeks, seeks_128, seq;
	long double d2c_sum, q2c_sum, q2d_sum;
	uint64_t q2c_n;
	uint64_t gaps, gap_total;
	uint64_t first_time, last_time;
	FILE *gapf; /* temp file holding the gap list (bounded memory) */
};

static void ev_set(struct blk_event *ev, const struct dev *d, uint64_t t, unsigned act,
                   uint64_t flags, uint64_t sector, uint32_t bytes, uint32_t pid, unsigned cpu)
{
	memset(ev, 0, sizeof(*ev));
	ev->time = t;
	ev->dev = d->dev;
	ev->action = (uint16_t)act;
	ev->flags = flags;
	ev->sector = sector;
	ev->bytes = bytes;
	ev->pid = pid;
	ev->cpu = cpu;
}

static const char *comms[] = {"dd", "fio", "kworker/0:1", "jbd2/loop0-8"};

static void be_put(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/* An event whose PDU is one big-endian u64 (split: the new sector; driver data). */
static void extra_pdu64(const struct dev *d, uint64_t t, unsigned act, uint64_t flags,
                        uint64_t sector, uint32_t bytes, uint32_t pid, unsigned cpu, uint64_t v)
{
	struct blk_event ev;
	uint8_t pdu[8];

	ev_set(&ev, d, t, act, flags, sector, bytes, pid, cpu);
	be_put(pdu, v, 8);
	ev.pdu = pdu;
	ev.pdu_len = 8;
	hpush(&ev);
}

/* A remap (A) from a partition-like device 8,N: struct blk_io_trace_remap, big-endian. */
static void extra_remap(const struct dev *d, uint64_t t, uint64_t flags, uint64_t sector,
                        uint32_t bytes, uint32_t pid, unsigned cpu)
{
	struct blk_event ev;
	uint8_t pdu[16];

	ev_set(&ev, d, t, BLK_A_REMAP, flags | BLK_F_QUEUE, sector, bytes, pid, cpu);
	be_put(pdu, BLK_MKDEV(8, 16 + (d->dev & 0xff)), 4);
	be_put(pdu + 4, d->dev, 4);
	be_put(pdu + 8, sector - 2048, 8);
	ev.pdu = pdu;
	ev.pdu_len = 16;
	hpush(&ev);
}

/*
 * --extras beside a request, at random: a passthrough (PC) request with a SCSI CDB as its
 * PDU, a flush (no data), a message note, the first PROCESS note of a late pid (names
 * appear mid-trace), and events of a pid that only then gets its name.
 */
static void gen_extras(struct dev *d, uint64_t t, unsigned cpu)
{
	static unsigned nmsg;
	static int late_named;
	struct blk_event ev;

	if (xchance(30)) {
		/* READ(10) of 8 blocks: a CDB with a zero tail (blkparse prints " ..") */
		static const uint8_t cdb[16] = {0x28, 0, 0, 0, 0x10, 0, 0, 0, 8, 0};
		uint64_t pcf = BLK_F_PC | (xrnd() & 1 ? BLK_F_WRITE : BLK_F_READ);

		ev_set(&ev, d, t + 50, BLK_A_QUEUE, pcf | BLK_F_QUEUE, 0, 4096, 1001, cpu);
		hpush(&ev);
		ev_set(&ev, d, t + 60, BLK_A_GETRQ, pcf | BLK_F_QUEUE, 0, 4096, 1001, cpu);
		hpush(&ev);
		ev_set(&ev, d, t + 70, BLK_A_INSERT, pcf | BLK_F_QUEUE, 0, 4096, 1001, cpu);
		ev.pdu = cdb;
		ev.pdu_len = (uint16_t)(xrnd() % 17);
		hpush(&ev);
		ev_set(&ev, d, t + 80, BLK_A_ISSUE, pcf | BLK_F_ISSUE, 0, 4096, 1001, cpu);
		ev.pdu = cdb;
		ev.pdu_len = 16;
		hpush(&ev);
		if (xchance(4)) {
			ev_set(&ev, d, t + 85, BLK_A_REQUEUE, pcf | BLK_F_REQUEUE, 0, 4096, 1001,
			       cpu);
			hpush(&ev);
			ev_set(&ev, d, t + 86, BLK_A_ISSUE, pcf | BLK_F_ISSUE, 0, 4096, 1001, cpu);
			ev.pdu = cdb;
			ev.pdu_len = 10;
			hpush(&ev);
		}
		ev_set(&ev, d, t + 90000, BLK_A_COMPLETE, pcf | BLK_F_COMPLETE, 0, 4096, 0,
		       (unsigned)(xrnd() % o.cpus));
		ev.pdu = cdb;
		ev.pdu_len = 16;
		hpush(&ev);
	}
	if (xchance(25)) {
		uint64_t ff = BLK_F_WRITE | BLK_F_FLUSH | BLK_F_SYNC;

		ev_set(&ev, d, t + 40, BLK_A_QUEUE, ff | BLK_F_QUEUE, 0, 0, 1000, cpu);
		hpush(&ev);
		ev_set(&ev, d, t + 45, BLK_A_GETRQ, ff | BLK_F_QUEUE, 0, 0, 1000, cpu);
		hpush(&ev);
		ev_set(&ev, d, t + 48, BLK_A_ISSUE, ff | BLK_F_ISSUE, 0, 0, 1000, cpu);
		hpush(&ev);
		ev_set(&ev, d, t + 30000, BLK_A_COMPLETE, ff | BLK_F_COMPLETE, 0, 0, 0, cpu);
		hpush(&ev);
	}
	if (xchance(50)) {
		char msg[40];

		snprintf(msg, sizeof(msg), "blkgen message %u", nmsg++);
		ev_set(&ev, d, t + 20, BLK_N_MESSAGE, BLK_F_NOTIFY, 0, 0, 0, cpu);
		ev.action = BLK_N_MESSAGE;
		ev.pdu = (const uint8_t *)msg;
		ev.pdu_len = (uint16_t)(strlen(msg) + (xrnd() & 1)); /* with or without its NUL */
		hpush(&ev);
	}
	if (xchance(60)) {
		/* pid 3000 does IO for a while before its PROCESS note comes */
		ev_set(&ev, d, t + 10, BLK_A_PLUG, BLK_F_QUEUE, 0, 0, 3000, cpu);
		hpush(&ev);
		if (!late_named && xchance(4)) {
			late_named = 1;
			ev_set(&ev, d, t + 11, BLK_N_PROCESS, BLK_F_NOTIFY, 0, 0, 3000, cpu);
			ev.action = BLK_N_PROCESS;
			ev.pdu = (const uint8_t *)"late-process-name"; /* longer than 15 */
			ev.pdu_len = 18;
			hpush(&ev);
		}
	}
}

static void gen_request(struct dev *d)
{
	struct blk_event ev;
	uint64_t t = d->next_arrival, tq_first, ti, td, tc, sector, free_at;
	int write = (int)(rnd() % 100) >= (int)o.read_pct;
	uint64_t dirf = write ? BLK_F_WRITE : BLK_F_READ;
	unsigned nbios = 1, pidx = (unsigned)(rnd() % 4);
	uint32_t pid = 1000 + pidx, sectors = 0;
	unsigned cpu = pidx % o.cpus, ccpu = (unsigned)(rnd() % o.cpus), best = 0;
	int plug = rnd() % 4 == 0;
	uint64_t qtimes[9];
	uint32_t bsz[9];
	uint64_t xf = 0; /* --extras: flags the model does not care about */
	int xtimer = 0;

	if (o.extras) {
		xf |= xchance(3) ? BLK_F_SYNC : 0;
		xf |= xchance(6) ? BLK_F_META : 0;
		xf |= write && xchance(8) ? BLK_F_FUA : 0;
		xf |= !write && xchance(8) ? BLK_F_AHEAD : 0;
		xf |= write && xchance(12) ? BLK_F_DISCARD : 0;
		xtimer = xchance(3);
		if (xchance(7))
			pid = 2000; /* a pid no PROCESS note names: blkparse prints "(null)" */
	}
	dirf |= xf;
	while (nbios < 9 && (rnd() % 100) < o.merge_pct)
		nbios++;
	/* mostly sequential, sometimes a jump */
	if (rnd() % 5 == 0)
		d->next_sector =
		    (o.sector_max == UINT64_MAX ? rnd() : rnd_range(0, o.sector_max)) & ~7ull;
	if (d->next_sector > o.sector_max)
		d->next_sector = 0; /* a long sequential run wraps to the start of the device */
	sector = d->next_sector;
	tq_first = t;
	if (plug) {
		ev_set(&ev, d, t, BLK_A_PLUG, BLK_F_QUEUE, 0, 0, pid, cpu);
		hpush(&ev);
		t += 200;
	}
	for (unsigned i = 0; i < nbios; i++) {
		uint32_t s = (uint32_t)(8 * rnd_range(1, 32));

		bsz[i] = s;
		qtimes[i] = t;
		if (xchance(8))
			extra_remap(d, t, dirf, sector + sectors, s * 512, pid, cpu);
		ev_set(&ev, d, t, BLK_A_QUEUE, dirf | BLK_F_QUEUE, sector + sectors, s * 512, pid,
		       cpu);
		hpush(&ev);
		if (xchance(10))
			extra_pdu64(d, t + 100, BLK_A_SPLIT, dirf | BLK_F_QUEUE, sector + sectors,
			            s * 512, pid, cpu, sector + sectors + s / 2);
		if (xchance(20)) {
			ev_set(&ev, d, t + 150, BLK_A_BOUNCE, dirf | BLK_F_QUEUE, sector + sectors,
			       s * 512, pid, cpu);
			hpush(&ev);
		}
		if (i == 0 && xchance(15)) {
			ev_set(&ev, d, t + 200, BLK_A_SLEEPRQ, dirf | BLK_F_QUEUE, sector, s * 512,
			       pid, cpu);
			hpush(&ev);
		}
		t += 300;
		if (i == 0) {
			ev_set(&ev, d, t, BLK_A_GETRQ, dirf | BLK_F_QUEUE, sector, s * 512, pid,
			       cpu);
			hpush(&ev);
		} else {
			ev_set(&ev, d, t, xchance(3) ? BLK_A_FRONTMERGE : BLK_A_BACKMERGE,
			       dirf | BLK_F_QUEUE, sector + sectors, s * 512, pid, cpu);
			hpush(&ev);
			d->merges++;
		}
		t += 500 + rnd_range(0, 1500);
		sectors += s;
	}
	d->queued += nbios;
	if (plug) {
		ev_set(&ev, d, t, xtimer ? BLK_A_UNPLUG_TIMER : BLK_A_UNPLUG_IO, BLK_F_QUEUE, 0, 0,
		       pid, cpu);
		/* the request count, a big-endian u64 (blk_add_trace_unplug) */
		ev.pdu = (const uint8_t *)"\0\0\0\0\0\0\0\1";
		ev.pdu_len = 8;
		hpush(&ev);
		t += 200;
	}
	ti = t;
	ev_set(&ev, d, ti, BLK_A_INSERT, dirf | BLK_F_QUEUE, sector, sectors * 512, pid, cpu);
	hpush(&ev);
	/* wait for a slot; keep issue order FIFO */
	for (unsigned s = 1; s < o.depth; s++)
		if (d->slot_free[s] < d->slot_free[best])
			best = s;
	free_at = d->slot_free[best];
	td = ti + 1000 + rnd_range(0, 4000);
	if (free_at + 500 > td)
		td = free_at + 500;
	if (d->have_d && td <= d->last_d)
		td = d->last_d + 100;
	tc = td + rnd_range(50000, 2000000);
	d->slot_free[best] = tc;
	ev_set(&ev, d, td, BLK_A_ISSUE, dirf | BLK_F_ISSUE, sector, sectors * 512, pid, cpu);
	hpush(&ev);
	if (xchance(20)) {
		/* requeued and issued again */
		ev_set(&ev, d, td + 300, BLK_A_REQUEUE, dirf | BLK_F_REQUEUE, sector, sectors * 512,
		       pid, cpu);
		hpush(&ev);
		ev_set(&ev, d, td + 600, BLK_A_ISSUE, dirf | BLK_F_ISSUE, sector, sectors * 512,
		       pid, cpu);
		hpush(&ev);
	}
	if (xchance(40))
		extra_pdu64(d, td + 10, BLK_A_DRV_DATA, dirf | BLK_F_DRV_DATA, sector,
		            sectors * 512, pid, cpu, 0x1234);
	ev_set(&ev, d, tc, BLK_A_COMPLETE, dirf | BLK_F_COMPLETE, sector, sectors * 512, 0, ccpu);
	if (xchance(50))
		ev.error = 5; /* EIO */
	hpush(&ev);
	if (o.extras)
		gen_extras(d, tq_first, cpu);

	/* ground truth */
	d->requests++;
	if (write) {
		d->writes.ios++;
		d->writes.bytes += (uint64_t)sectors * 512;
	} else {
		d->reads.ios++;
		d->reads.bytes += (uint64_t)sectors * 512;
	}
	d->d2c_sum += (long double)(tc - td);
	for (unsigned i = 0; i < nbios; i++) {
		d->q2c_sum += (long double)(tc - qtimes[i]);
		d->q2d_sum += (long double)(td - qtimes[i]);
		d->q2c_n++;
	}
	(void)bsz;
	if (d->have_d) {
		/* idle: nothing in flight between the last completion and this issue */
		if (d->max_c < td && d->max_c > 0) {
			uint64_t g = td - d->max_c;
			if (g >= o.threshold_ns) {
				d->gaps++;
				d->gap_total += g;
				fprintf(d->gapf, "%" PRIu64 " %" PRIu64 "\n", d->max_c, td);
			}
		}
		if (sector != d->last_end_sector) {
			d->seeks++;
			uint64_t dist = sector > d->last_end_sector ? sector - d->last_end_sector
			                                            : d->last_end_sector - sector;
			if (dist > 128)
				d->seeks_128++;
		} else {
			d->seq++;
		}
	} else {
		d->first_time = tq_first;
	}
	d->have_d = 1;
	d->last_d = td;
	d->last_end_sector = sector + sectors;
	if (tc > d->max_c)
		d->max_c = tc;
	if (tc > d->last_time)
		d->last_time = tc;
	d->next_sector = sector + sectors;
	d->done++;

	/* next arrival: a short think time, or an idle gap after the device drains */
	if (d->burst_left && --d->burst_left == 0 && d->done < o.ios) {
		d->next_arrival = d->max_c + (uint64_t)(o.gap_ms * 1e6);
		d->burst_left = o.gaps ? o.ios / (o.gaps + 1) : 0;
	} else {
		d->next_arrival = tq_first + rnd_range(100000, 600000);
	}
}

/* Free what main allocated (LeakSanitizer runs over the tests that use this tool). */
static int release(struct dev *devs, int status)
{
	for (unsigned i = 0; i < o.devices; i++) {
		free(devs[i].slot_free);
		if (devs[i].gapf)
			fclose(devs[i].gapf);
	}
	free(devs);
	free(outs);
	free(seqs);
	free(heap);
	return status;
}

/* DIR/manifest.json of a run directory, with the fields a movie takes its axes from */
static int write_manifest(const struct dev *devs)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/manifest.json", o.dir);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 1;
	}
	fprintf(f, "{\n  \"format\": \"iotape-run\",\n  \"format_version\": 1,\n"
	           "  \"generator\": \"blkgen (synthetic)\",\n  \"state\": \"complete\",\n"
	           "  \"devices\": [\n");
	for (unsigned i = 0; i < o.devices; i++) {
		const struct written *w = &written[devs[i].dev & 0xf];

		fprintf(f,
		        "    {\"name\": \"blkgen%u\", \"major\": %u, \"minor\": %u, "
		        "\"files\": \"%s.blktrace\", \"events\": %" PRIu64
		        ", \"first_event_ns\": %" PRId64 ", \"last_event_ns\": %" PRId64
		        ", \"issued\": {\"ios\": %" PRIu64 ", \"lo_sector\": %" PRId64
		        ", \"end_sector\": %" PRId64 "}}%s\n",
		        i, BLK_DEV_MAJOR(devs[i].dev), BLK_DEV_MINOR(devs[i].dev), o.name,
		        w->events,
		        /* as iotape writes them: JSON's signed integers */
		        (int64_t)w->span.first, (int64_t)w->span.last, w->span.issued.ios,
		        (int64_t)w->span.issued.lo, (int64_t)w->span.issued.hi,
		        i + 1 < o.devices ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	return fclose(f) ? (perror(path), 1) : 0;
}

static void usage(void)
{
	fprintf(
	    stderr,
	    "usage: blkgen -o DIR [-n NAME] [--ios N] [--seed S] [--cpus C] [--depth D]\n"
	    "              [--gaps K] [--gap-ms MS] [--merge-pct P] [--read-pct P]\n"
	    "              [--devices N] [--v8] [--swap] [--gzip] [--threshold-ms MS]\n"
	    "              [--drop-pct P] [--start-ns NS] [--sector-max S] [--truth FILE.json]\n"
	    "              [--extras] [--foreign-pct P] [--manifest]\n"
	    "With --drop-pct the model's truth is for the events before the loss; \"dropped\"\n"
	    "counts the records removed. --start-ns puts the first record at NS (default 0);\n"
	    "random jumps land on sectors up to --sector-max (default 2^24). --extras adds what\n"
	    "the model does not need: remaps, splits, bounces, front merges, requeues, timer\n"
	    "unplugs, passthrough requests with PDUs, flushes, discards, errors, driver data,\n"
	    "messages, a timestamp note, pids named late or never (its own random stream: the\n"
	    "model's events stay the same). --foreign-pct gives that percentage of records the\n"
	    "next CPU's number in their own CPU's file (blkparse drops them; their own stream).\n"
	    "--manifest makes DIR a run directory: DIR/manifest.json with what iotape capture\n"
	    "records of each device's records (events, first and last event, sectors issued).\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"ios", 1, 0, 'i'},         {"seed", 1, 0, 's'},         {"cpus", 1, 0, 'c'},
	    {"depth", 1, 0, 'd'},       {"gaps", 1, 0, 'g'},         {"gap-ms", 1, 0, 'G'},
	    {"merge-pct", 1, 0, 'm'},   {"read-pct", 1, 0, 'r'},     {"devices", 1, 0, 'D'},
	    {"v8", 0, 0, '8'},          {"swap", 0, 0, 'S'},         {"gzip", 0, 0, 'z'},
	    {"truth", 1, 0, 't'},       {"threshold-ms", 1, 0, 'T'}, {"drop-pct", 1, 0, 'p'},
	    {"start-ns", 1, 0, 'N'},    {"sector-max", 1, 0, 'M'},   {"extras", 0, 0, 'x'},
	    {"foreign-pct", 1, 0, 'F'}, {"manifest", 0, 0, 'R'},     {0, 0, 0, 0}};
	struct dev *devs;
	int c;
	char path[4096];
	FILE *tf;

	o.name = "trace";
	o.ios = 10000;
	o.seed = 1;
	o.cpus = 2;
	o.depth = 4;
	o.gap_ms = 50;
	o.merge_pct = 20;
	o.read_pct = 30;
	o.devices = 1;
	o.threshold_ns = 10000000;
	o.sector_max = 1u << 24;
	while ((c = getopt_long(argc, argv, "o:n:", lo, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.dir = optarg;
			break;
		case 'n':
			o.name = optarg;
			break;
		case 'i':
			o.ios = strtoull(optarg, NULL, 0);
			break;
		case 's':
			o.seed = strtoull(optarg, NULL, 0);
			break;
		case 'c':
			o.cpus = (unsigned)atoi(optarg);
			break;
		case 'd':
			o.depth = (unsigned)atoi(optarg);
			break;
		case 'g':
			o.gaps = (unsigned)atoi(optarg);
			break;
		case 'G':
			o.gap_ms = atof(optarg);
			break;
		case 'm':
			o.merge_pct = (unsigned)atoi(optarg);
			break;
		case 'r':
			o.read_pct = (unsigned)atoi(optarg);
			break;
		case 'D':
			o.devices = (unsigned)atoi(optarg);
			break;
		case '8':
			o.v8 = 1;
			break;
		case 'S':
			o.swap = 1;
			break;
		case 'z':
			o.gzip = 1;
			break;
		case 't':
			o.truth = optarg;
			break;
		case 'p':
			o.drop_pct = (unsigned)atoi(optarg);
			break;
		case 'x':
			o.extras = 1;
			break;
		case 'F':
			o.foreign_pct = (unsigned)atoi(optarg);
			break;
		case 'R':
			o.manifest = 1;
			break;
		case 'T':
			o.threshold_ns = (uint64_t)(atof(optarg) * 1e6);
			break;
		case 'N':
			o.start_ns = strtoull(optarg, NULL, 0);
			break;
		case 'M':
			o.sector_max = strtoull(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (!o.dir || !o.cpus || o.cpus > 256 || !o.depth || o.depth > 1024 || !o.devices ||
	    o.devices > 16 || o.merge_pct > 95 || o.read_pct > 100 || optind != argc)
		usage();
	rng_state = o.seed;
	xrng_state = o.seed ^ 0x5eed5eed5eedull;
	frng_state = o.seed ^ 0xf0e1f0e1f0e1ull;
	outs = calloc(o.cpus, sizeof(*outs));
	seqs = calloc((size_t)256 * o.cpus, sizeof(*seqs));
	devs = calloc(o.devices, sizeof(*devs));
	for (unsigned i = 0; i < o.cpus; i++) {
		snprintf(path, sizeof(path), "%s/%s.blktrace.%u%s", o.dir, o.name, i,
		         o.gzip ? ".gz" : "");
		if (o.gzip)
			outs[i].gz = gzopen(path, "wb1");
		else
			outs[i].f = fopen(path, "wb");
		if (!outs[i].f && !outs[i].gz) {
			perror(path);
			return 1;
		}
	}
	for (unsigned i = 0; i < o.devices; i++) {
		struct dev *d = &devs[i];
		d->dev = BLK_MKDEV(7, i);
		d->slot_free = calloc(o.depth, sizeof(uint64_t));
		d->next_arrival = o.start_ns + 1000000 + i * 3333;
		d->next_sector = 2048 + (uint64_t)i * 1000000;
		d->burst_left = o.gaps ? o.ios / (o.gaps + 1) : 0;
		d->gapf = tmpfile();
		if (!d->slot_free || !d->gapf)
			return 1;
	}
	/* PROCESS notifies first, on every CPU, as blktrace sees each pid */
	for (unsigned i = 0; i < o.devices; i++)
		for (unsigned p = 0; p < 4; p++) {
			struct blk_event ev;
			ev_set(&ev, &devs[i], o.start_ns + 1000 + p, 0, BLK_F_NOTIFY, 0, 0,
			       1000 + p, p % o.cpus);
			ev.action = BLK_N_PROCESS;
			ev.pdu = (const uint8_t *)comms[p];
			ev.pdu_len = (uint32_t)strlen(comms[p]) + 1;
			hpush(&ev);
		}
	if (o.extras) {
		/* the wall clock at trace time 0, as blktrace notes it on each CPU */
		for (unsigned c = 0; c < o.cpus; c++) {
			struct blk_event ev;
			uint8_t pdu[8];

			ev_set(&ev, &devs[0], o.start_ns + 900, 0, BLK_F_NOTIFY, 0, 0, 0, c);
			ev.action = BLK_N_TIMESTAMP;
			w32(pdu, 1700000000u);
			w32(pdu + 4, 123456789u);
			ev.pdu = pdu;
			ev.pdu_len = 8;
			hpush(&ev);
		}
	}
	for (;;) {
		struct dev *next = NULL;
		for (unsigned i = 0; i < o.devices; i++)
			if (devs[i].done < o.ios &&
			    (!next || devs[i].next_arrival < next->next_arrival))
				next = &devs[i];
		if (!next)
			break;
		gen_request(next);
		{
			uint64_t lim = UINT64_MAX;
			for (unsigned i = 0; i < o.devices; i++)
				if (devs[i].done < o.ios && devs[i].next_arrival < lim)
					lim = devs[i].next_arrival;
			flush_before(lim);
		}
	}
	flush_before(UINT64_MAX);
	for (unsigned i = 0; i < o.cpus; i++) {
		if (o.gzip ? gzclose(outs[i].gz) != Z_OK : fclose(outs[i].f) != 0) {
			perror("blkgen: close");
			return 1;
		}
	}
	if (o.manifest && write_manifest(devs))
		return release(devs, 1);
	if (!o.truth)
		return release(devs, 0);
	tf = fopen(o.truth, "w");
	if (!tf) {
		perror(o.truth);
		return release(devs, 1);
	}
	fprintf(tf,
	        "{\n  \"generator\": \"blkgen (synthetic)\",\n  \"seed\": %" PRIu64 ",\n"
	        "  \"threshold_ns\": %" PRIu64 ",\n  \"dropped\": %" PRIu64 ",\n  \"devices\": [\n",
	        o.seed, o.threshold_ns, dropped);
	for (unsigned i = 0; i < o.devices; i++) {
		struct dev *d = &devs[i];
		uint64_t a, b;
		int first = 1;

		fprintf(tf,
		        "    {\"dev\": \"%u,%u\", \"requests\": %" PRIu64 ", \"queued\": %" PRIu64
		        ", \"merges\": %" PRIu64 ",\n     \"reads\": {\"ios\": %" PRIu64
		        ", \"bytes\": %" PRIu64 "}, \"writes\": {\"ios\": %" PRIu64
		        ", \"bytes\": %" PRIu64
		        "},\n     \"d2c_mean_ns\": %.3Lf, \"q2c_mean_ns\": %.3Lf, "
		        "\"q2d_mean_ns\": %.3Lf,\n     \"seeks\": %" PRIu64
		        ", \"seeks_128\": %" PRIu64 ", \"sequential\": %" PRIu64
		        ",\n     \"first_ns\": %" PRIu64 ", \"last_ns\": %" PRIu64
		        ",\n     \"idle\": {\"gaps\": %" PRIu64 ", \"total_ns\": %" PRIu64
		        ", \"list\": [",
		        BLK_DEV_MAJOR(d->dev), BLK_DEV_MINOR(d->dev), d->requests, d->queued,
		        d->merges, d->reads.ios, d->reads.bytes, d->writes.ios, d->writes.bytes,
		        d->d2c_sum / d->requests, d->q2c_sum / d->q2c_n, d->q2d_sum / d->q2c_n,
		        d->seeks, d->seeks_128, d->seq, d->first_time, d->last_time, d->gaps,
		        d->gap_total);
		rewind(d->gapf);
		while (fscanf(d->gapf, "%" SCNu64 " %" SCNu64, &a, &b) == 2) {
			fprintf(tf, "%s[%" PRIu64 ", %" PRIu64 "]", first ? "" : ", ", a, b);
			first = 0;
		}
		fprintf(tf, "]}}%s\n", i + 1 < o.devices ? "," : "");
	}
	fprintf(tf, "  ]\n}\n");
	return release(devs, fclose(tf) ? 1 : 0);
}
