/* SPDX-License-Identifier: MIT */
/* Reducing a run's timeline bins to plotted points: per-point mean with the min/max of finer bins.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/blk_latency.h"
#include "analyze/blk_timeline.h"
#include "report/report_html.h"

#define POINT_ARRAYS(p)                                                                            \
	{                                                                                          \
		&(p)->x, &(p)->rd_mbps, &(p)->wr_mbps, &(p)->mbps, &(p)->mbps_lo, &(p)->mbps_hi,   \
		    &(p)->rd_iops, &(p)->wr_iops, &(p)->iops, &(p)->iops_lo, &(p)->iops_hi,        \
		    &(p)->seeks, &(p)->seeks_lo, &(p)->seeks_hi, &(p)->qd, &(p)->qd_lo,            \
		    &(p)->qd_hi, &(p)->p50, &(p)->p99, &(p)->idle_frac                             \
	}

void report_points_release(struct report_points *p)
{
	double **arrs[] = POINT_ARRAYS(p);

	for (size_t i = 0; i < sizeof(arrs) / sizeof(arrs[0]); i++) {
		free(*arrs[i]);
		*arrs[i] = NULL;
	}
	free(p->idle_ns);
	p->idle_ns = NULL;
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

uint64_t report_points_min_width(const struct blk_analysis *a, unsigned idx)
{
	const struct blk_timeline *tl = blk_analysis_sink(a, &blk_timeline_ops);
	uint64_t span = blk_analysis_end(a) - blk_analysis_start(a);
	uint64_t w = blk_timeline_interval(tl), nb = blk_timeline_nbins(tl), ios = 0;

	for (uint64_t k = 0; k < nb; k++)
		ios += blk_timeline_bin(tl, idx, k).ios;
	if (!w)
		w = 1;
	/* span * RPT_MIN_IOS / ios without overflow: a span near 2^64 ns needs no care here */
	while (w < UINT64_MAX / 2 &&
	       (double)w * (double)(ios ? ios : 1) < (double)RPT_MIN_IOS_PER_POINT * (double)span)
		w *= 2;
	return w;
}

/* One sub-interval of a point for the envelope: sums over whole bins of the timeline. */
struct sub {
	double bytes, ios, seeks, area;
	uint64_t dur;
};

static void sub_flush(struct report_points *p, size_t j, struct sub *s)
{
	double ks = (double)(s->dur ? s->dur : 1) / 1e9;

	p->mbps_lo[j] = minv(p->mbps_lo[j], s->bytes / ks / IOT_MIB);
	p->mbps_hi[j] = maxv(p->mbps_hi[j], s->bytes / ks / IOT_MIB);
	p->iops_lo[j] = minv(p->iops_lo[j], s->ios / ks);
	p->iops_hi[j] = maxv(p->iops_hi[j], s->ios / ks);
	p->seeks_lo[j] = minv(p->seeks_lo[j], s->seeks / ks);
	p->seeks_hi[j] = maxv(p->seeks_hi[j], s->seeks / ks);
	p->qd_lo[j] = minv(p->qd_lo[j], s->area / (double)(s->dur ? s->dur : 1));
	*s = (struct sub){0};
}

int report_points_make(const struct blk_analysis *a, unsigned idx, uint64_t width_ns,
                       uint64_t fine_ns, struct report_points *p)
{
	double **arrs[] = POINT_ARRAYS(p);
	const struct blk_timeline *tl = blk_analysis_sink(a, &blk_timeline_ops);
	const struct blk_latency *lt = blk_analysis_sink(a, &blk_latency_ops);
	uint64_t span = blk_analysis_end(a) - blk_analysis_start(a), f, g;
	uint64_t w = blk_timeline_interval(tl), nb = blk_timeline_nbins(tl);
	/* the D2C bins start where the timeline's do, as narrow or narrower: the timeline's
	 * devices share a budget of bins (bins_share()), the D2C's few devices need not */
	uint64_t lw = blk_latency_clock(lt)->width, r = w > lw ? w / lw : 1;
	struct hist_coarse *lat;
	size_t n;

	memset(p, 0, sizeof(*p));
	if (width_ns < w)
		width_ns = w;
	f = width_ns / w;
	/* the envelope's sub-intervals: whole bins, never wider than a point */
	g = fine_ns > w ? fine_ns / w : 1;
	if (g > f)
		g = f;
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
	p->idle_ns = calloc(n, sizeof(*p->idle_ns));
	lat = malloc(sizeof(*lat));
	if (!p->idle_ns || !lat) {
		free(lat);
		report_points_release(p);
		return -ENOMEM;
	}
	p->n = n;
	for (size_t j = 0; j < n; j++) {
		uint64_t t0 = j * width_ns, dur = span > t0 ? span - t0 : 0;
		uint64_t kend = j + 1 == n ? nb : (j + 1) * f;
		double rd = 0, wr = 0, rio = 0, wio = 0, sk = 0, area = 0, secs;
		struct sub s = {0};
		uint64_t idle = 0;

		if (kend > nb)
			kend = nb;
		if (dur > width_ns)
			dur = width_ns;
		if (!dur)
			dur = 1;
		secs = (double)dur / 1e9;
		p->mbps_lo[j] = p->mbps_hi[j] = p->iops_lo[j] = p->iops_hi[j] = NAN;
		p->seeks_lo[j] = p->seeks_hi[j] = p->qd_lo[j] = p->qd_hi[j] = NAN;
		memset(lat, 0, sizeof(*lat));
		/* the last point takes the bin of the last event too (it starts at the end) */
		for (uint64_t k = j * f; k < kend; k++) {
			struct blk_bin b = blk_timeline_bin(tl, idx, k);
			uint64_t kt0 = k * w, kd = span > kt0 ? span - kt0 : 0;

			if (kd > w)
				kd = w;
			rd += (double)b.read_bytes;
			wr += (double)b.write_bytes;
			rio += (double)(b.ios - b.write_ios);
			wio += (double)b.write_ios;
			sk += (double)b.seeks;
			area += (double)b.depth_area;
			idle += b.idle_ns;
			s.bytes += (double)(b.read_bytes + b.write_bytes);
			s.ios += (double)b.ios;
			s.seeks += (double)b.seeks;
			s.area += (double)b.depth_area;
			s.dur += kd;
			/* a bin past the end (the last event's, of no length) joins the sub
			 * before it: alone it would be a rate over nothing */
			if (((k - j * f + 1) % g == 0 || k + 1 == kend) && s.dur)
				sub_flush(p, j, &s);
			p->qd_hi[j] = maxv(p->qd_hi[j], (double)b.depth_max);
			for (uint64_t q = k * r; q < (k + 1) * r; q++) {
				const struct hist_coarse *h = blk_latency_bin(lt, idx, q);

				if (h)
					histc_merge(lat, h);
			}
		}
		p->x[j] = ((double)t0 + (double)dur / 2) / 1e9;
		p->rd_mbps[j] = rd / secs / IOT_MIB;
		p->wr_mbps[j] = wr / secs / IOT_MIB;
		p->mbps[j] = (rd + wr) / secs / IOT_MIB;
		p->rd_iops[j] = rio / secs;
		p->wr_iops[j] = wio / secs;
		p->iops[j] = (rio + wio) / secs;
		p->seeks[j] = sk / secs;
		p->qd[j] = area / (double)dur;
		p->idle_ns[j] = idle;
		p->idle_frac[j] = (double)idle / (double)dur > 1 ? 1 : (double)idle / (double)dur;
		p->p50[j] = lat->count ? (double)histc_quantile(lat, 0.5) : NAN;
		p->p99[j] = lat->count ? (double)histc_quantile(lat, 0.99) : NAN;
		if (f / g <= 1) {
			/* nothing finer to show: the envelope would only repeat the line */
			p->mbps_lo[j] = p->mbps_hi[j] = p->iops_lo[j] = p->iops_hi[j] = NAN;
			p->seeks_lo[j] = p->seeks_hi[j] = NAN;
			p->qd_lo[j] = p->qd[j];
		}
	}
	free(lat);
	return 0;
}

void report_points_shift(struct report_points *p, double s)
{
	for (size_t i = 0; s != 0 && i < p->n; i++)
		p->x[i] += s;
}
