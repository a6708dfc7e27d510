/* SPDX-License-Identifier: MIT */
/* Reducing a run's bins to plotted points: per-point mean with the min/max of finer bins. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_html.h"

void report_points_release(struct report_points *p)
{
	double **arrs[] = {&p->x,       &p->rd_mbps, &p->wr_mbps,  &p->mbps,     &p->mbps_lo,
	                   &p->mbps_hi, &p->rd_iops, &p->wr_iops,  &p->iops,     &p->iops_lo,
	                   &p->iops_hi, &p->seeks,   &p->seeks_lo, &p->seeks_hi, &p->qd,
	                   &p->qd_lo,   &p->qd_hi,   &p->p50,      &p->p99,      &p->idle_frac};

	for (size_t i = 0; i < sizeof(arrs) / sizeof(arrs[0]); i++) {
		free(*arrs[i]);
		*arrs[i] = NULL;
	}
	p->n = 0;
}

static double minv(double a, double b)
{
	return isnan(a) || b < a ? b : a;
}

static double maxv(double a, double b)
{
	return isnan(a) || b > a ? b : a;
}

int report_points_make(const struct rpt_run *r, const struct rpt_dev *d, uint64_t width_ns,
                       struct report_points *p)
{
	double **arrs[] = {&p->x,       &p->rd_mbps, &p->wr_mbps,  &p->mbps,     &p->mbps_lo,
	                   &p->mbps_hi, &p->rd_iops, &p->wr_iops,  &p->iops,     &p->iops_lo,
	                   &p->iops_hi, &p->seeks,   &p->seeks_lo, &p->seeks_hi, &p->qd,
	                   &p->qd_lo,   &p->qd_hi,   &p->p50,      &p->p99,      &p->idle_frac};
	uint64_t span = rpt_run_span(r), f;
	uint32_t *lat;
	size_t n;

	memset(p, 0, sizeof(*p));
	if (width_ns < r->width)
		width_ns = r->width;
	f = width_ns / r->width;
	n = (size_t)(span / width_ns) + 1;
	if (span && span % width_ns == 0)
		n = (size_t)(span / width_ns);
	for (size_t i = 0; i < sizeof(arrs) / sizeof(arrs[0]); i++) {
		*arrs[i] = malloc(n * sizeof(double));
		if (!*arrs[i]) {
			report_points_release(p);
			return -ENOMEM;
		}
	}
	lat = malloc(RPT_LAT_BUCKETS * sizeof(*lat));
	if (!lat) {
		report_points_release(p);
		return -ENOMEM;
	}
	p->n = n;
	for (size_t j = 0; j < n; j++) {
		uint64_t t0 = j * width_ns, dur = span > t0 ? span - t0 : 0;
		double rd = 0, wr = 0, rio = 0, wio = 0, sk = 0, area = 0, idle = 0, secs;
		uint64_t latn = 0;

		if (dur > width_ns)
			dur = width_ns;
		if (!dur)
			dur = 1;
		secs = (double)dur / 1e9;
		p->mbps_lo[j] = p->mbps_hi[j] = p->iops_lo[j] = p->iops_hi[j] = NAN;
		p->seeks_lo[j] = p->seeks_hi[j] = p->qd_lo[j] = p->qd_hi[j] = NAN;
		memset(lat, 0, RPT_LAT_BUCKETS * sizeof(*lat));
		for (uint64_t k = j * f; k < (j + 1) * f && k < RPT_MAX_BINS; k++) {
			const struct rpt_bin *b = &d->bin[k];
			uint64_t kt0 = k * r->width, kd = span > kt0 ? span - kt0 : 0;
			double ks;

			if (kt0 > span)
				break;
			if (kd > r->width)
				kd = r->width;
			ks = (double)(kd ? kd : 1) / 1e9;
			rd += (double)b->rd_bytes;
			wr += (double)b->wr_bytes;
			rio += b->rd_ios;
			wio += b->wr_ios;
			sk += b->seeks;
			area += b->qd_area;
			idle += (double)b->idle_ns;
			p->mbps_lo[j] =
			    minv(p->mbps_lo[j], (double)(b->rd_bytes + b->wr_bytes) / ks / 1e6);
			p->mbps_hi[j] =
			    maxv(p->mbps_hi[j], (double)(b->rd_bytes + b->wr_bytes) / ks / 1e6);
			p->iops_lo[j] = minv(p->iops_lo[j], (b->rd_ios + b->wr_ios) / ks);
			p->iops_hi[j] = maxv(p->iops_hi[j], (b->rd_ios + b->wr_ios) / ks);
			p->seeks_lo[j] = minv(p->seeks_lo[j], b->seeks / ks);
			p->seeks_hi[j] = maxv(p->seeks_hi[j], b->seeks / ks);
			p->qd_lo[j] = minv(p->qd_lo[j], b->qd_area / (double)(kd ? kd : 1));
			p->qd_hi[j] = maxv(p->qd_hi[j], b->qd_max);
			latn += b->lat_n;
			for (unsigned i = 0; i < RPT_LAT_BUCKETS; i++)
				lat[i] += b->lat[i];
		}
		p->x[j] = ((double)t0 + (double)dur / 2) / 1e9;
		p->rd_mbps[j] = rd / secs / 1e6;
		p->wr_mbps[j] = wr / secs / 1e6;
		p->mbps[j] = (rd + wr) / secs / 1e6;
		p->rd_iops[j] = rio / secs;
		p->wr_iops[j] = wio / secs;
		p->iops[j] = (rio + wio) / secs;
		p->seeks[j] = sk / secs;
		p->qd[j] = area / (double)dur;
		p->idle_frac[j] = idle / (double)dur > 1 ? 1 : idle / (double)dur;
		p->p50[j] = latn ? (double)rpt_lat_quantile(lat, latn, 0.5) : NAN;
		p->p99[j] = latn ? (double)rpt_lat_quantile(lat, latn, 0.99) : NAN;
		if (f == 1) {
			/* nothing finer to show: the envelope would only repeat the line */
			p->mbps_lo[j] = p->mbps_hi[j] = p->iops_lo[j] = p->iops_hi[j] = NAN;
			p->seeks_lo[j] = p->seeks_hi[j] = NAN;
			p->qd_lo[j] = p->qd[j];
		}
	}
	free(lat);
	return 0;
}
