/* SPDX-License-Identifier: MIT */
/* Why was the disk idle: gaps that recur at a steady period (a journal commit, writeback),
 * among all of a device's gaps and among those one command ended. */
#include "analyze/idle_explain.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/blktrace.h"
#include "formats/manifest.h"

/*
 * The method (docs/diagnose-idle.md): the events are the ends of a device's gaps ended by an
 * issue, i.e. the starts of the IO bursts between gaps. Gaps come in sizes: at level k only
 * the gaps at least threshold x 2^k long count (a steady 5 s commit stands out among shorter,
 * irregular gaps at some level). At each level, from the lowest, with enough gaps: the
 * intervals between consecutive ends, their median P, and those within P/10 of it
 * ("matching"). A level is periodic when at least PERIOD_MIN_MATCH intervals match and they
 * are at least 60 % of all its intervals. Of the periodic levels, the one with the most
 * matching intervals (then the smallest jitter) gives the period (the mean of the matching
 * intervals), the jitter (their standard deviation) and the count: a level below it holds
 * shorter gaps that break the series up, one above it loses some of the series. Random gaps
 * (exponential intervals) put about 7 % of their intervals within 10 % of the median.
 *
 * The gaps one command ended (a sync thread's writes end the gaps of its period, wherever
 * other threads' writes fall between them) make a series of their own, searched the same way
 * from PERIOD_CMD_MIN_GAPS gaps: with fewer than PERIOD_MIN_MATCH intervals, every one of them
 * must match (a 20 s run holds three or four ends of a 5 s sync: two or three intervals).
 * With exponential intervals, two intervals match each other within 10 % about 5 % of the
 * time, three about 1 % (tests/unit/analyze/test_idle_explain.c measures both); the series
 * must come from one command, too.
 */
#define PERIOD_MIN_GAPS 6u
#define PERIOD_MIN_MATCH 5u
#define PERIOD_CMD_MIN_GAPS 3u
#define PERIOD_TOL_DIV 10u
#define ANY UINT32_MAX

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool in_series(const struct ie_span *s, uint64_t lvl, uint32_t cmd)
{
	return s->by_issue && s->ce - s->cs >= lvl && (cmd == ANY || s->cmd == cmd);
}

/* The ends of the gaps at least lvl long, ended by an issue (of command cmd); how many. */
static size_t ends(const struct ie_dev *d, uint64_t lvl, uint32_t cmd, uint64_t *e)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nall; i++)
		if (in_series(&d->all[i], lvl, cmd))
			e[n++] = d->all[i].ce;
	return n;
}

/* The series of the gaps of command cmd (ANY: all), into *per. */
static void period_of(const struct ie_dev *d, uint64_t threshold_ns, uint32_t cmd,
                      struct ie_period *per)
{
	uint64_t *e = malloc((d->nall ? d->nall : 1) * sizeof(*e));
	uint64_t *iv = malloc((d->nall ? d->nall : 1) * sizeof(*iv));
	unsigned min_gaps = cmd == ANY ? PERIOD_MIN_GAPS : PERIOD_CMD_MIN_GAPS;
	uint64_t longest = 0;

	memset(per, 0, sizeof(*per));
	if (!e || !iv)
		goto out;
	for (size_t i = 0; i < d->nall; i++)
		if (in_series(&d->all[i], 0, cmd) && d->all[i].ce - d->all[i].cs > longest)
			longest = d->all[i].ce - d->all[i].cs;
	for (uint64_t lvl = threshold_ns ? threshold_ns : 1; lvl <= longest; lvl *= 2) {
		size_t n = ends(d, lvl, cmd, e), m = 0;
		uint64_t med, tol, first = 0;
		double sum = 0, sq = 0;
		bool periodic;

		if (n < min_gaps)
			break;
		for (size_t i = 0; i + 1 < n; i++)
			iv[i] = e[i + 1] - e[i];
		qsort(iv, n - 1, sizeof(*iv), cmp_u64);
		med = iv[(n - 2) / 2];
		tol = med / PERIOD_TOL_DIV;
		for (size_t i = 0; i + 1 < n; i++) {
			uint64_t v = e[i + 1] - e[i];

			if (v + tol < med || v > med + tol)
				continue;
			if (!m++)
				first = e[i];
			sum += (double)v;
			sq += (double)v * (double)v;
		}
		periodic = m >= PERIOD_MIN_MATCH && 10 * m >= 6 * (n - 1);
		/* a short series of one command: all of it, or nothing */
		if (cmd != ANY && n - 1 < PERIOD_MIN_MATCH)
			periodic = m == n - 1;
		if (periodic) {
			double mean = sum / (double)m, var = sq / (double)m - mean * mean;
			uint64_t jit = var > 0 ? (uint64_t)(sqrt(var) + 0.5) : 0;

			if (!per->found || m > per->count ||
			    (m == per->count && jit < per->jitter_ns)) {
				per->found = true;
				per->period_ns = (uint64_t)(mean + 0.5);
				per->jitter_ns = jit;
				per->min_gap_ns = lvl;
				per->gaps = (unsigned)n;
				per->count = (unsigned)m;
				per->first_ns = first;
			}
		}
		if (lvl > UINT64_MAX / 2)
			break;
	}
out:
	free(e);
	free(iv);
}

void ie_period_find(struct ie_dev *d, uint64_t threshold_ns)
{
	period_of(d, threshold_ns, ANY, &d->per);
}

/* The index of the gap starting at common time cs (d->all is in that order), or d->nall. */
static size_t gap_at(const struct ie_dev *d, uint64_t cs)
{
	size_t lo = 0, hi = d->nall;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (d->all[mid].cs < cs)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nall && d->all[lo].cs == cs ? lo : d->nall;
}

/* Does the gap starting at common time cs belong to series p (of command cmd): at least the
 * series' length, and its end one period (within the tolerance) from the end of the previous
 * or the next gap of the series? */
static bool member(const struct ie_dev *d, const struct ie_period *p, uint32_t cmd, uint64_t cs)
{
	uint64_t tol = p->period_ns / PERIOD_TOL_DIV;
	size_t lo, k;

	if (!p->found)
		return false;
	lo = gap_at(d, cs);
	if (lo == d->nall || !in_series(&d->all[lo], p->min_gap_ns, cmd))
		return false;
	for (int dir = -1; dir <= 1; dir += 2) {
		for (k = lo; dir < 0 ? k-- > 0 : ++k < d->nall;) {
			uint64_t a, b, v;

			if (!in_series(&d->all[k], p->min_gap_ns, cmd))
				continue;
			a = d->all[k].ce;
			b = d->all[lo].ce;
			v = a > b ? a - b : b - a;
			if (v + tol >= p->period_ns && v <= p->period_ns + tol)
				return true;
			break;
		}
	}
	return false;
}

bool ie_period_member(const struct ie_dev *d, uint64_t cs)
{
	return member(d, &d->per, ANY, cs);
}

const struct ie_cmd *ie_cmd_member(const struct ie_dev *d, uint64_t cs)
{
	size_t lo = gap_at(d, cs);

	if (lo == d->nall || !d->all[lo].by_issue || d->all[lo].cmd >= d->ncmds)
		return NULL;
	return member(d, &d->cmds[d->all[lo].cmd].per, d->all[lo].cmd, cs)
	           ? &d->cmds[d->all[lo].cmd]
	           : NULL;
}

/* ------------------------------------------------------------------------------------- */
/* Gaps by command                                                                         */

/* pid -> command index, open addressing: the gaps' pids repeat (a few threads end most) */
struct pidmap {
	uint32_t *pid, *idx;
	size_t cap, n;
};

static uint32_t *pidmap_slot(struct pidmap *m, uint32_t pid)
{
	size_t i = (pid * 2654435761u) & (m->cap - 1);

	while (m->idx[i] != UINT32_MAX && m->pid[i] != pid)
		i = (i + 1) & (m->cap - 1);
	m->pid[i] = pid;
	return &m->idx[i];
}

static int pidmap_grow(struct pidmap *m)
{
	struct pidmap o = *m;

	m->cap = o.cap ? 2 * o.cap : 64;
	m->n = 0;
	m->pid = calloc(m->cap, sizeof(*m->pid));
	m->idx = malloc(m->cap * sizeof(*m->idx));
	if (!m->pid || !m->idx) {
		free(m->pid);
		free(m->idx);
		*m = o;
		return -ENOMEM;
	}
	memset(m->idx, 0xff, m->cap * sizeof(*m->idx));
	for (size_t i = 0; i < o.cap; i++)
		if (o.idx[i] != UINT32_MAX) {
			*pidmap_slot(m, o.pid[i]) = o.idx[i];
			m->n++;
		}
	free(o.pid);
	free(o.idx);
	return 0;
}

struct build {
	struct ie_dev *d;
	const struct ie_host *hs;
	struct pidmap pm;
	unsigned room;
};

/* The index of pid's command in d->cmds (added when new), or UINT32_MAX. */
static uint32_t cmd_of(struct build *b, uint32_t pid)
{
	struct ie_dev *d = b->d;
	const char *name;
	uint32_t *slot;

	if (2 * (b->pm.n + 1) > b->pm.cap && pidmap_grow(&b->pm))
		return UINT32_MAX;
	slot = pidmap_slot(&b->pm, pid);
	if (*slot != UINT32_MAX)
		return *slot;
	name = b->hs->comms ? bt_comm_table_get(b->hs->comms, pid) : NULL;
	if (!name || !*name)
		name = "?";
	for (unsigned k = 0; k < d->ncmds; k++) {
		if (!strcmp(d->cmds[k].comm, name)) {
			*slot = k;
			b->pm.n++;
			return k;
		}
	}
	if (d->ncmds == b->room) {
		unsigned n = b->room ? 2 * b->room : 8;
		struct ie_cmd *p = realloc(d->cmds, n * sizeof(*p));

		if (!p)
			return UINT32_MAX;
		d->cmds = p;
		b->room = n;
	}
	memset(&d->cmds[d->ncmds], 0, sizeof(d->cmds[0]));
	if (!(d->cmds[d->ncmds].comm = strdup(name)))
		return UINT32_MAX;
	{
		const char *proc = manifest_thread_process(b->hs->ident, pid);

		/* a thread's process, when it is not the thread itself */
		if (proc && strcmp(proc, name))
			d->cmds[d->ncmds].process = strdup(proc);
	}
	*slot = d->ncmds;
	b->pm.n++;
	return d->ncmds++;
}

static int by_ended(const void *a, const void *b)
{
	const struct ie_cmd *x = a, *y = b;

	if (x->ended_ns != y->ended_ns)
		return x->ended_ns > y->ended_ns ? -1 : 1;
	if (x->began_ns != y->began_ns)
		return x->began_ns > y->began_ns ? -1 : 1;
	return strcmp(x->comm, y->comm);
}

void ie_cmds_free(struct ie_dev *d)
{
	for (unsigned k = 0; k < d->ncmds; k++) {
		free(d->cmds[k].comm);
		free(d->cmds[k].process);
	}
	free(d->cmds);
	d->cmds = NULL;
	d->ncmds = 0;
}

int ie_cmds_build(struct idle_explain *x, struct ie_dev *d, uint64_t threshold_ns)
{
	struct build b = {.d = d, .hs = &x->host[d->host]};
	uint32_t *rank = NULL;
	int ret = 0;

	ie_cmds_free(d);
	for (size_t i = 0; i < d->nall; i++) {
		struct ie_span *s = &d->all[i];
		uint64_t len = s->ce - s->cs;
		uint32_t k;

		s->cmd = UINT32_MAX;
		if (s->by_issue) {
			if ((k = cmd_of(&b, s->end_pid)) == UINT32_MAX)
				goto nomem;
			s->cmd = k;
			d->cmds[k].ended++;
			d->cmds[k].ended_ns += len;
		}
		if (s->has_begin) {
			if ((k = cmd_of(&b, s->begin_pid)) == UINT32_MAX)
				goto nomem;
			d->cmds[k].began++;
			d->cmds[k].began_ns += len;
		}
	}
	/* most idle time ended first; the spans follow their commands to the new places */
	rank = malloc((d->ncmds ? d->ncmds : 1) * sizeof(*rank));
	if (!rank)
		goto nomem;
	for (unsigned k = 0; k < d->ncmds; k++)
		d->cmds[k].per.first_ns = k; /* its old index, through the sort */
	if (d->ncmds) /* no gap ended by an issue: no table, and qsort() takes none */
		qsort(d->cmds, d->ncmds, sizeof(*d->cmds), by_ended);
	for (unsigned k = 0; k < d->ncmds; k++) {
		rank[d->cmds[k].per.first_ns] = k;
		d->cmds[k].per.first_ns = 0;
	}
	for (size_t i = 0; i < d->nall; i++)
		if (d->all[i].cmd != UINT32_MAX)
			d->all[i].cmd = rank[d->all[i].cmd];
	for (unsigned k = 0; k < d->ncmds; k++)
		if (d->cmds[k].ended >= PERIOD_CMD_MIN_GAPS)
			period_of(d, threshold_ns, k, &d->cmds[k].per);
	goto out;
nomem:
	ret = -ENOMEM;
	ie_cmds_free(d);
	for (size_t i = 0; i < d->nall; i++)
		d->all[i].cmd = UINT32_MAX;
out:
	free(rank);
	free(b.pm.pid);
	free(b.pm.idx);
	return ret;
}
