/* SPDX-License-Identifier: MIT */
/* A replay through fio as text, from the result its JSON view (result.c) is written of. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/units.h"
#include "fioclient/fioclient.h"

static void lat_text(FILE *f, const struct fc_fio *fio)
{
	for (unsigned d = 0; d < FC_TRIM + 1; d++) {
		const struct fc_lat *l = &fio->lat[d];

		if (!l->n)
			continue;
		/* no percentiles (-1): fio gave none, or several devices' do not combine */
		if (l->p[0] < 0)
			fprintf(f, "    %-5s latency mean %.1f us  max %.1f us\n", fc_dir_name[d],
			        l->mean / 1e3, (double)l->max / 1e3);
		else
			fprintf(f,
			        "    %-5s latency p50 %.1f us  p90 %.1f us  p99 %.1f us  max %.1f "
			        "us\n",
			        fc_dir_name[d], l->p[0] / 1e3, l->p[1] / 1e3, l->p[2] / 1e3,
			        (double)l->max / 1e3);
	}
}

/* "R reads, W writes, T trims, S syncs" of the kinds there are */
static void ops_text(FILE *f, const uint64_t ops[FC_NDIR])
{
	const char *sep = "";

	for (unsigned d = 0; d < FC_NDIR; d++) {
		if (!ops[d])
			continue;
		fprintf(f, "%s%" PRIu64 " %ss", sep, ops[d], fc_dir_name[d]);
		sep = ", ";
	}
	if (!*sep)
		fprintf(f, "no IOs");
}

/* One device: the trace's side, then fio's. Adds its ops to t_ops, its span to *t_end. */
static void dev_text(FILE *f, const struct fc_opts *o, const struct fc_result *res,
                     const struct fc_dev *dv, uint64_t t_ops[FC_NDIR], uint64_t *t_end)
{
	const struct fc_slot *s = &o->slots[dv->slot];
	uint64_t span = dv->x.last_ns - res->t0;
	uint64_t ops[FC_NDIR] = {dv->x.ops[IOLOG_READ], dv->x.ops[IOLOG_WRITE],
	                         dv->x.ops[IOLOG_TRIM],
	                         dv->x.ops[IOLOG_SYNC] + dv->x.ops[IOLOG_DATASYNC]};
	char name[300], t[40];

	for (unsigned k = 0; k < FC_NDIR; k++)
		t_ops[k] += ops[k];
	if (span > *t_end)
		*t_end = span;
	fprintf(f, "  %s %s -> %s%s\n", fc_slot_name(s, name, sizeof(name)), dv->x.name, s->target,
	        dv->fio.have ? "" : ": no report from fio");
	fprintf(f, "    trace: ");
	ops_text(f, ops);
	fprintf(f, ", %.1f MiB, until %s s\n", (double)dv->x.bytes / IOT_MIB,
	        iot_fmt_secs(span, 3, t, sizeof(t)));
	if (dv->x.skipped_writes)
		fprintf(f, "    skipped %" PRIu64 " writes and trims (no --allow-writes)\n",
		        dv->x.skipped_writes);
	if (!dv->fio.have)
		return;
	fprintf(f, "    fio:   ");
	ops_text(f, dv->fio.ios);
	fprintf(f, ", %.1f MiB in %s s (ratio %.2f)",
	        ((double)dv->fio.bytes[0] + (double)dv->fio.bytes[1] + (double)dv->fio.bytes[2]) /
	            IOT_MIB,
	        iot_fmt_secs(dv->fio.runtime_ns, 3, t, sizeof(t)),
	        span ? (double)dv->fio.runtime_ns / (double)span : 0.0);
	if (dv->fio.error)
		fprintf(f, ", error %d (%s)", dv->fio.error, strerror(dv->fio.error));
	fprintf(f, "\n");
	lat_text(f, &dv->fio);
}

void fc_result_text(FILE *f, const struct fc_opts *o, const struct fc_result *res)
{
	uint64_t t_end = 0, t_ops[FC_NDIR] = {0};
	char t[40];

	fprintf(f, "replay of %s through fio on %u host slot(s), started together (fio --client)\n",
	        o->run, o->nslots);
	for (unsigned d = 0; d < res->ndevs; d++)
		dev_text(f, o, res, &res->devs[d], t_ops, &t_end);
	fprintf(f, "  all: trace ");
	ops_text(f, t_ops);
	fprintf(f, " until %s s; fio ", iot_fmt_secs(t_end, 3, t, sizeof(t)));
	ops_text(f, res->all.ios);
	fprintf(f, " in %s s\n", iot_fmt_secs(res->all.runtime_ns, 3, t, sizeof(t)));
	lat_text(f, &res->all);
	if (t_ops[FC_SYNC] && !res->all.ios[FC_SYNC])
		fprintf(f, "  (fio does an iolog's syncs without counting them)\n");
	if (res->unmapped)
		fprintf(f, "  skipped %" PRIu64 " IOs of devices no --map sends anywhere\n",
		        res->unmapped);
	fprintf(f, "  fio's output: %s, %s\n", res->fio_json, res->fio_log);
}
