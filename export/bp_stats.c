/* SPDX-License-Identifier: MIT */
/* The blkparse export's summaries: per CPU and device, as blkparse's show_device_and_cpu_stats. */
#include "export/bp_int.h"

#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* size_cnv(): "%'8Lu" plus a K, M, G or P suffix once the number passes a million. */
static const char *size_cnv(char *dst, size_t cap, uint64_t num, int in_kb)
{
	static const char suff[] = {'\0', 'K', 'M', 'G', 'P'};
	unsigned i = in_kb ? 1 : 0;

	while (num > 1000 * 1000ull && i < sizeof(suff) - 1) {
		i++;
		num /= 1000;
	}
	snprintf(dst, cap, "%'8llu%c", (unsigned long long)num, suff[i]);
	return dst;
}

static void outf(struct bp_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void outf(struct bp_out *o, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	bp_out_str(o, line);
}

static void dump_io_stats(struct bp_out *o, const struct bp_dev *d, const struct bp_ios *s,
                          const char *msg)
{
	char x[64], y[64];

	outf(o, "%s\n", msg);
	outf(o, " Reads Queued:    %s, %siB\t", size_cnv(x, 64, s->q[0], 0),
	     size_cnv(y, 64, s->q_kb[0] + (s->q_b[0] >> 10), 1));
	outf(o, " Writes Queued:    %s, %siB\n", size_cnv(x, 64, s->q[1], 0),
	     size_cnv(y, 64, s->q_kb[1] + (s->q_b[1] >> 10), 1));
	outf(o, " Read Dispatches: %s, %siB\t", size_cnv(x, 64, s->i[0], 0),
	     size_cnv(y, 64, s->i_kb[0] + (s->i_b[0] >> 10), 1));
	outf(o, " Write Dispatches: %s, %siB\n", size_cnv(x, 64, s->i[1], 0),
	     size_cnv(y, 64, s->i_kb[1] + (s->i_b[1] >> 10), 1));
	outf(o, " Reads Requeued:  %s\t\t", size_cnv(x, 64, s->rq[0], 0));
	outf(o, " Writes Requeued:  %s\n", size_cnv(x, 64, s->rq[1], 0));
	outf(o, " Reads Completed: %s, %siB\t", size_cnv(x, 64, s->c[0], 0),
	     size_cnv(y, 64, s->c_kb[0] + (s->c_b[0] >> 10), 1));
	outf(o, " Writes Completed: %s, %siB\n", size_cnv(x, 64, s->c[1], 0),
	     size_cnv(y, 64, s->c_kb[1] + (s->c_b[1] >> 10), 1));
	outf(o, " Read Merges:     %s, %siB\t", size_cnv(x, 64, s->m[0], 0),
	     size_cnv(y, 64, s->m_kb[0] + (s->m_b[0] >> 10), 1));
	outf(o, " Write Merges:     %s, %siB\n", size_cnv(x, 64, s->m[1], 0),
	     size_cnv(y, 64, s->m_kb[1] + (s->m_b[1] >> 10), 1));
	if (d) {
		outf(o, " Read depth:      %'8u%8c\t", d->max_depth[0], ' ');
		outf(o, " Write depth:      %'8u\n", d->max_depth[1]);
	}
	if (s->pc_q[0] || s->pc_q[1] || s->pc_i[0] || s->pc_i[1] || s->pc_rq[0] || s->pc_rq[1] ||
	    s->pc_c[0] || s->pc_c[1]) {
		outf(o, " PC Reads Queued: %s, %siB\t", size_cnv(x, 64, s->pc_q[0], 0),
		     size_cnv(y, 64, s->pc_q_kb[0] + (s->pc_q_b[0] >> 10), 1));
		outf(o, " PC Writes Queued: %s, %siB\n", size_cnv(x, 64, s->pc_q[1], 0),
		     size_cnv(y, 64, s->pc_q_kb[1] + (s->pc_q_b[1] >> 10), 1));
		outf(o, " PC Read Disp.:   %s, %siB\t", size_cnv(x, 64, s->pc_i[0], 0),
		     size_cnv(y, 64, s->pc_i_kb[0] + (s->pc_i_b[0] >> 10), 1));
		outf(o, " PC Write Disp.:   %s, %siB\n", size_cnv(x, 64, s->pc_i[1], 0),
		     size_cnv(y, 64, s->pc_i_kb[1] + (s->pc_i_b[1] >> 10), 1));
		outf(o, " PC Reads Req.:   %s\t\t", size_cnv(x, 64, s->pc_rq[0], 0));
		outf(o, " PC Writes Req.:   %s\n", size_cnv(x, 64, s->pc_rq[1], 0));
		outf(o, " PC Reads Compl.: %s\t\t", size_cnv(x, 64, s->pc_c[0], 0));
		outf(o, " PC Writes Compl.: %s\n", size_cnv(x, 64, s->pc_c[1], 0));
	}
	outf(o, " IO unplugs:      %'8llu%8c\t", (unsigned long long)s->io_unplugs, ' ');
	outf(o, " Timer unplugs:    %'8llu\n", (unsigned long long)s->timer_unplugs);
}

static void ios_add(struct bp_ios *to, const struct bp_ios *from)
{
	uint64_t *t = (uint64_t *)to;
	const uint64_t *f = (const uint64_t *)from;

	for (size_t i = 0; i < sizeof(*to) / sizeof(uint64_t); i++)
		t[i] += f[i];
}

static void show_stats(struct bp_out *o, const struct bp_dev *devs, unsigned ndevs)
{
	for (unsigned i = 0; i < ndevs; i++) {
		const struct bp_dev *d = &devs[i];
		struct bp_ios total;
		unsigned with = 0;
		uint64_t msec, rrate = 0, wrate = 0;
		char name[32], line[46 + 1];

		memset(&total, 0, sizeof(total));
		if (i)
			bp_out_str(o, "\n");
		/* blkparse formats the name into 32 bytes, the line into 47 */
		snprintf(name, sizeof(name), "%s", d->name);
		for (unsigned c = 0; c < d->ncpus; c++) {
			if (!d->cpus[c].nelems)
				continue;
			ios_add(&total, &d->cpus[c].ios);
			snprintf(line, sizeof(line), "CPU%d (%s):", (int)c, name);
			dump_io_stats(o, d, &d->cpus[c].ios, line);
			with++;
		}
		if (with > 1) {
			bp_out_str(o, "\n");
			snprintf(line, sizeof(line), "Total (%s):", name);
			dump_io_stats(o, NULL, &total, line);
		}
		msec = (d->last_time - d->first_time) / 1000000;
		if (msec) {
			rrate = (1000 * total.c_kb[0] + total.c_b[0]) / msec;
			wrate = (1000 * total.c_kb[1] + total.c_b[1]) / msec;
		}
		outf(o, "\nThroughput (R/W): %'lluKiB/s / %'lluKiB/s\n", (unsigned long long)rrate,
		     (unsigned long long)wrate);
		outf(o, "Events (%.47s): %'llu entries\n", d->name, (unsigned long long)d->events);
		outf(o, "Skips: %'lu forward (%'llu - %5.1lf%%)\n", 0ul, 0ull, 0.0);
	}
}

/* The summaries' numbers are formatted in blkparse's locale: en_US if installed, else C. */
static locale_t stats_locale(void)
{
	locale_t l = newlocale(LC_NUMERIC_MASK, "en_US", (locale_t)0);

	return l ? l : newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

int bp_stats_print(struct bp_out *o, const struct bp_dev *devs, unsigned ndevs)
{
	locale_t l = stats_locale(), old;

	if (!l)
		return -ENOMEM;
	old = uselocale(l);
	show_stats(o, devs, ndevs);
	uselocale(old);
	freelocale(l);
	return 0;
}
