/* SPDX-License-Identifier: MIT */
/* The report's per-device graphs: sections keyed across runs, offsets, rates, latency, idle. */
#include "report/report_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/blk_idle.h"
#include "analyze/blk_timeline.h"
#include "common/units.h"
#include "common/xml.h"
#include "report/report_grid.h"
#include "report/report_svg.h"

/* One device of one run: its plotted points, idle shading and density grid. */
struct devrun {
	size_t run;                      /* index into the inputs */
	unsigned idx;                    /* the pass's device index */
	const struct rpt_grid_dev *grid; /* NULL: no issue with data */
	const struct bins *clock;        /* the grid's (the timeline's) */
	struct report_points p;
	struct svg_band *bands;
	size_t nbands;
};

/*
 * Idle shading from the sinks: each plotted point with idle time in the timeline's bins, darker
 * the idler it was, and every gap the idle sink lists (analyze's "longest") exactly, never
 * thinner than a pixel and a half. The data-* attributes carry the nanoseconds, so that a test
 * can hold the shading to analyze's figures.
 */
static int make_bands(struct devrun *dr, const struct blk_analysis *a, size_t hatch, double t0_s)
{
	const struct blk_idle_dev *g = blk_idle_dev(blk_analysis_sink(a, &blk_idle_ops), dr->idx);
	unsigned ngaps = g ? g->ntop : 0;
	uint64_t t0 = blk_analysis_start(a);
	size_t n = 0;

	dr->bands = calloc(dr->p.n + ngaps + 1, sizeof(*dr->bands));
	if (!dr->bands)
		return -ENOMEM;
	for (size_t j = 0; j < dr->p.n; j++) {
		double w = j + 1 < dr->p.n ? dr->p.x[j + 1] - dr->p.x[j] : 0, x0, x1;
		struct svg_band *b = &dr->bands[n];

		if (!dr->p.idle_ns[j])
			continue;
		if (j + 1 >= dr->p.n && j > 0)
			w = dr->p.x[j] - dr->p.x[j - 1];
		x0 = dr->p.x[j] - w / 2;
		x1 = dr->p.x[j] + w / 2;
		if (x0 < t0_s)
			x0 = t0_s;
		*b = (struct svg_band){x0, x1,   0.08 + 0.3 * dr->p.idle_frac[j], IDLE_COLOR, 0,
		                       "", hatch};
		snprintf(b->attrs, sizeof(b->attrs),
		         "class=\"idle\" data-run=\"%zu\" data-idle-ns=\"%llu\"", dr->run,
		         (unsigned long long)dr->p.idle_ns[j]);
		n++;
	}
	for (unsigned k = 0; k < ngaps; k++) {
		uint64_t s0 = g->top[k].start - t0, s1 = g->top[k].end - t0;
		struct svg_band *b = &dr->bands[n++];

		*b = (struct svg_band){(double)s0 / 1e9 + t0_s,
		                       (double)s1 / 1e9 + t0_s,
		                       0.25,
		                       pal_hex(PAL_GAP),
		                       1.5,
		                       "",
		                       hatch};
		snprintf(b->attrs, sizeof(b->attrs),
		         "class=\"idle-gap\" data-run=\"%zu\" data-start-ns=\"%llu\" "
		         "data-end-ns=\"%llu\"",
		         dr->run, (unsigned long long)s0, (unsigned long long)s1);
	}
	dr->nbands = n;
	return 0;
}

/* Density image of sector offsets over time for one run, on the shared axes. */
#define MAX_DOTS 3000u

/* Sparse data as dots (visible at any zoom), dense data as a density image. */
static char *offset_png(const struct bins *clock, const struct rpt_grid_dev *d, double t0_s,
                        double xmax_s, uint64_t smin, uint64_t smax, unsigned cols, unsigned rows,
                        struct svg_dot *dots, size_t *ndots)
{
	size_t nonzero = 0;
	uint32_t *cnt = calloc((size_t)cols * rows * 2, sizeof(*cnt));
	uint8_t *px = calloc((size_t)cols * rows, 4);
	uint32_t cmax = 1;
	double srange = (double)(smax - smin + 1);
	char *b64 = NULL;

	if (!cnt || !px)
		goto out;
	for (uint64_t k = 0; k < d->ncell; k++) {
		double t = ((double)k + 0.5) * (double)clock->width / 1e9 + t0_s;
		unsigned c = (unsigned)(t / xmax_s * cols);

		if (c >= cols)
			c = cols - 1;
		for (unsigned i = 0; i < RPT_ROWS; i++) {
			uint32_t rd = d->cell[k][i][0], wr = d->cell[k][i][1];
			double s0, s1;
			unsigned r0, r1;

			if (!rd && !wr)
				continue;
			s0 = (double)(d->row_lo + ((uint64_t)i << d->shift));
			s1 = s0 + (double)(1ull << d->shift);
			if (s0 < (double)smin)
				s0 = (double)smin;
			if (s1 > (double)smax + 1)
				s1 = (double)smax + 1;
			r0 = (unsigned)((s0 - (double)smin) / srange * rows);
			r1 = (unsigned)ceil((s1 - (double)smin) / srange * rows);
			if (r0 >= rows)
				r0 = rows - 1;
			if (r1 <= r0)
				r1 = r0 + 1;
			if (r1 > rows)
				r1 = rows;
			for (unsigned y = r0; y < r1; y++) {
				uint32_t *p = &cnt[((size_t)y * cols + c) * 2];

				p[0] += rd;
				p[1] += wr;
				if (p[0] + p[1] > cmax)
					cmax = p[0] + p[1];
			}
		}
	}
	*ndots = 0;
	for (size_t i = 0; i < (size_t)cols * rows && nonzero <= MAX_DOTS; i++)
		nonzero += cnt[2 * i] + cnt[2 * i + 1] > 0;
	if (nonzero <= MAX_DOTS) {
		for (unsigned y = 0; y < rows; y++) {
			for (unsigned c = 0; c < cols; c++) {
				const uint32_t *p = &cnt[((size_t)y * cols + c) * 2];
				double tot = (double)p[0] + p[1];

				if (!tot)
					continue;
				dots[(*ndots)++] = (struct svg_dot){
				    ((double)c + 0.5) / cols * xmax_s,
				    ((double)smin + ((double)y + 0.5) / rows * srange) * 512,
				    p[1] > p[0] ? WRITE_COLOR : READ_COLOR,
				    0.5 + 0.5 * log1p(tot) / log1p(cmax)};
			}
		}
		goto out;
	}
	for (unsigned y = 0; y < rows; y++) {
		for (unsigned c = 0; c < cols; c++) {
			const uint32_t *p = &cnt[((size_t)y * cols + c) * 2];
			uint8_t *o = &px[((size_t)(rows - 1 - y) * cols + c) * 4];
			double tot = (double)p[0] + p[1], wf, a;

			if (!tot)
				continue;
			wf = p[1] / tot;
			a = 0.35 + 0.65 * log1p(tot) / log1p(cmax);
			o[0] = (uint8_t)(0x1f * (1 - wf) + 0xd6 * wf);
			o[1] = (uint8_t)(0x77 * (1 - wf) + 0x27 * wf);
			o[2] = (uint8_t)(0xb4 * (1 - wf) + 0x28 * wf);
			o[3] = (uint8_t)(255 * a);
		}
	}
	b64 = svg_png_base64(px, cols, rows);
out:
	free(cnt);
	free(px);
	return b64;
}

static void series_set(struct svg_series *s, const char *name, const char *color,
                       const struct report_points *p, const double *mean, const double *lo,
                       const double *hi, bool dashed)
{
	*s = (struct svg_series){name, color, p->n, p->x, mean, lo, hi, dashed};
}

/* What the section's runs span together: their idle bands into bands (room for all), the
 * sectors they touched, the highest p99 latency plotted. */
static void section_extent(const struct devrun *dr, size_t n, struct svg_band *bands,
                           uint64_t *smin, uint64_t *smax, double *latmax)
{
	size_t nb = 0;

	for (size_t i = 0; i < n; i++) {
		if (dr[i].nbands) /* none: maybe no array (memcpy takes no NULL) */
			memcpy(bands + nb, dr[i].bands, dr[i].nbands * sizeof(*bands));
		nb += dr[i].nbands;
		if (dr[i].grid) {
			if (dr[i].grid->min_sector < *smin)
				*smin = dr[i].grid->min_sector;
			if (dr[i].grid->max_sector > *smax)
				*smax = dr[i].grid->max_sector;
		}
		for (size_t j = 0; j < dr[i].p.n; j++)
			if (!isnan(dr[i].p.p99[j]) && dr[i].p.p99[j] > *latmax)
				*latmax = dr[i].p.p99[j];
	}
}

/* What the graphs of one device section share: its runs (dr[0..n), the runs that have the
 * device), the time axis, every run's idle bands, and the series array each graph fills. */
struct section {
	struct emit *em;
	const struct report_input *in;
	struct devrun *dr;
	size_t n;
	bool multi; /* several runs: a series per run, in its colour */
	const char *devid;
	double xmax;
	uint64_t width; /* the interval */
	struct svg_series *ser;
	struct svg_band *bands;
	size_t nb;
	char id[128];
};

/* The graph DEVID-KEY over time of the section's first nseries series. */
static void time_chart(struct section *s, const char *key, const char *title, const char *unit,
                       size_t nseries)
{
	struct svg_chart c = {.id = s->id,
	                      .title = title,
	                      .ylabel = unit,
	                      .xmax = s->xmax,
	                      .series = s->ser,
	                      .nseries = nseries,
	                      .bands = s->bands,
	                      .nbands = s->nb};

	snprintf(s->id, sizeof(s->id), "%s-%s", s->devid, key);
	emit_chart(s->em, &c);
}

/* Sector offset over time: one density image per run, same axes, and beneath it what the rest
 * of the run did meanwhile. */
static void offset_charts(struct section *s, uint64_t smin, uint64_t smax)
{
	const char *rw_names[] = {"read", "write"}, *rw_colors[] = {READ_COLOR, WRITE_COLOR};
	const struct report_input *in = s->in;
	char title[256];

	for (size_t i = 0; i < s->n && smin <= smax; i++) {
		const struct devrun *dr = &s->dr[i];
		struct svg_dot *dots = malloc(MAX_DOTS * sizeof(*dots));
		size_t ndots = 0;
		char *png = dots && dr->grid
		                ? offset_png(dr->clock, dr->grid, in[dr->run].t0_s, s->xmax, smin,
		                             smax, 1000, 200, dots, &ndots)
		                : NULL;
		struct svg_image img = {png, (double)smin * 512, (double)(smax + 1) * 512};
		struct svg_chart c = {.id = s->id,
		                      .title = title,
		                      .ylabel = "offset",
		                      .xmax = s->xmax,
		                      .ymin = img.y0,
		                      .ymax = img.y1,
		                      .ybytes = true,
		                      .height = 260,
		                      .bands = dr->bands,
		                      .nbands = dr->nbands,
		                      .image = &img,
		                      .dots = dots,
		                      .ndots = ndots,
		                      .legend_names = rw_names,
		                      .legend_colors = rw_colors,
		                      .nlegend = 2};

		snprintf(s->id, sizeof(s->id), "%s-offset%s%zu", s->devid, s->multi ? "-run" : "",
		         s->multi ? dr->run + 1 : 0);
		if (!s->multi)
			snprintf(s->id, sizeof(s->id), "%s-offset", s->devid);
		snprintf(title, sizeof(title), "sector offset over time%s%s", s->multi ? ": " : "",
		         s->multi ? run_label(&in[dr->run]) : "");
		if (!dots)
			s->em->err = -ENOMEM;
		emit_chart(s->em, &c);
		free(png);
		free(dots);
		snprintf(s->id, sizeof(s->id), "%s-idle%s%zu", s->devid, s->multi ? "-run" : "",
		         s->multi ? dr->run + 1 : 0);
		if (!s->multi)
			snprintf(s->id, sizeof(s->id), "%s-idle", s->devid);
		if (!s->em->err)
			s->em->err = report_idle_chart(s->em, &in[dr->run], dr->idx, s->width,
			                               dr->bands, dr->nbands, s->id, s->xmax);
	}
}

/* Throughput and IOPS (a line per run when there are several, else the run's reads, writes and
 * dashed total), seeks and queue depth, each per interval, the interval named. */
static void rate_charts(struct section *s)
{
	const struct devrun *dr = s->dr;
	char wtxt[32], t_mbps[96], t_iops[96], t_seeks[96];
	size_t k = 0;

	iot_fmt_dur((double)s->width, wtxt, sizeof(wtxt));
	snprintf(t_mbps, sizeof(t_mbps), "throughput (per %s interval)", wtxt);
	snprintf(t_iops, sizeof(t_iops), "IOPS (per %s interval)", wtxt);
	snprintf(t_seeks, sizeof(t_seeks), "seeks per second (per %s interval)", wtxt);
	if (s->multi) {
		for (size_t i = 0; i < s->n; i++)
			series_set(&s->ser[k++], run_label(&s->in[dr[i].run]), run_color(dr[i].run),
			           &dr[i].p, dr[i].p.mbps, dr[i].p.mbps_lo, dr[i].p.mbps_hi, false);
		time_chart(s, "mbps", t_mbps, "MiB/s", k);
		for (k = 0; k < s->n; k++)
			series_set(&s->ser[k], run_label(&s->in[dr[k].run]), run_color(dr[k].run),
			           &dr[k].p, dr[k].p.iops, dr[k].p.iops_lo, dr[k].p.iops_hi, false);
		time_chart(s, "iops", t_iops, "IO/s", k);
	} else {
		const struct report_points *p = &dr[0].p;

		series_set(&s->ser[0], "read", READ_COLOR, p, p->rd_mbps, NULL, NULL, false);
		series_set(&s->ser[1], "write", WRITE_COLOR, p, p->wr_mbps, NULL, NULL, false);
		series_set(&s->ser[2], "total", pal_hex(PAL_TOTAL), p, p->mbps, p->mbps_lo,
		           p->mbps_hi, true);
		time_chart(s, "mbps", t_mbps, "MiB/s", 3);
		series_set(&s->ser[0], "read", READ_COLOR, p, p->rd_iops, NULL, NULL, false);
		series_set(&s->ser[1], "write", WRITE_COLOR, p, p->wr_iops, NULL, NULL, false);
		series_set(&s->ser[2], "total", pal_hex(PAL_TOTAL), p, p->iops, p->iops_lo,
		           p->iops_hi, true);
		time_chart(s, "iops", t_iops, "IO/s", 3);
	}
	for (size_t i = 0; i < s->n; i++)
		series_set(&s->ser[i], s->multi ? run_label(&s->in[dr[i].run]) : "seeks",
		           s->multi ? run_color(dr[i].run) : pal_hex(PAL_SEEKS), &dr[i].p,
		           dr[i].p.seeks, dr[i].p.seeks_lo, dr[i].p.seeks_hi, false);
	time_chart(s, "seeks", t_seeks, "seeks/s", s->n);
	for (size_t i = 0; i < s->n; i++)
		series_set(&s->ser[i], s->multi ? run_label(&s->in[dr[i].run]) : "depth",
		           s->multi ? run_color(dr[i].run) : pal_hex(PAL_DEPTH), &dr[i].p,
		           dr[i].p.qd, dr[i].p.qd_lo, dr[i].p.qd_hi, false);
	time_chart(s, "qdepth", "queue depth (issued, not completed; band: min mean .. max)",
	           "requests", s->n);
}

/* D2C latency p50 (solid) and p99 (dashed) per interval, in ms or us, whichever reads better
 * against the highest p99 (latmax, ns); names holds room for the series' 2n names. */
static void latency_chart(struct section *s, double latmax, char **names)
{
	double div = latmax >= 1e6 ? 1e6 : 1e3;
	size_t k = 0;

	for (size_t i = 0; i < s->n; i++) {
		for (size_t j = 0; j < s->dr[i].p.n; j++) {
			s->dr[i].p.p50[j] /= div;
			s->dr[i].p.p99[j] /= div;
		}
	}
	for (size_t i = 0; i < s->n; i++) {
		const char *label = s->multi ? run_label(&s->in[s->dr[i].run]) : "";
		const char *col = s->multi ? run_color(s->dr[i].run) : pal_hex(PAL_LATENCY);

		if (asprintf(&names[2 * i], "%s%sp50", label, s->multi ? " " : "") < 0)
			names[2 * i] = NULL;
		if (asprintf(&names[2 * i + 1], "%s%sp99", label, s->multi ? " " : "") < 0)
			names[2 * i + 1] = NULL;
		series_set(&s->ser[k++], names[2 * i], col, &s->dr[i].p, s->dr[i].p.p50, NULL, NULL,
		           false);
		series_set(&s->ser[k++], names[2 * i + 1], col, &s->dr[i].p, s->dr[i].p.p99, NULL,
		           NULL, true);
	}
	time_chart(s, "d2c", "D2C latency per interval (p50 solid, p99 dashed)",
	           latmax >= 1e6 ? "ms" : "us", k);
	for (size_t i = 0; i < 2 * s->n; i++)
		free(names[i]);
}

/* All graphs of one device section: dr[0..n) are the runs that have the device. */
static void device_graphs(struct emit *em, const struct report_input *in, struct devrun *dr,
                          size_t n, const char *devid, double xmax, uint64_t width)
{
	struct section s = {.em = em,
	                    .in = in,
	                    .dr = dr,
	                    .n = n,
	                    .multi = n > 1,
	                    .devid = devid,
	                    .xmax = xmax,
	                    .width = width};
	/* names: a p50 and a p99 name per run */
	char **names = calloc(2 * n, sizeof(*names));
	uint64_t smin = UINT64_MAX, smax = 0;
	double latmax = 0;

	/* series: at most two per run (p50 and p99) or three for one run (read, write, total) */
	s.ser = calloc(2 * n + 2, sizeof(*s.ser));
	for (size_t i = 0; i < n; i++)
		s.nb += dr[i].nbands;
	s.bands = calloc(s.nb ? s.nb : 1, sizeof(*s.bands));
	if (!s.ser || !s.bands || !names) {
		em->err = -ENOMEM;
	} else {
		section_extent(dr, n, s.bands, &smin, &smax, &latmax);
		offset_charts(&s, smin, smax);
		rate_charts(&s);
		latency_chart(&s, latmax, names);
	}
	free(s.ser);
	free(s.bands);
	free(names);
}

/* " (loop0, ext4)": the device's kernel name and filesystem from the run's manifest */
static void device_name(FILE *f, const struct report_input *in, uint32_t dev)
{
	const json_t *devs = json_object_get(in->manifest, "devices"), *d;
	size_t k;

	json_array_foreach(devs, k, d)
	{
		const json_t *ma = json_object_get(d, "major"), *mi = json_object_get(d, "minor");
		const json_t *mt = json_array_get(json_object_get(d, "mounts"), 0);
		const char *name = json_string_value(json_object_get(d, "name"));
		const char *fs = json_string_value(json_object_get(mt, "fstype"));

		if (!json_is_integer(ma) || !json_is_integer(mi) || !name ||
		    json_integer_value(ma) != BLK_DEV_MAJOR(dev) ||
		    json_integer_value(mi) != BLK_DEV_MINOR(dev))
			continue;
		fputs(" (", f);
		xml_puts(f, name);
		if (fs) {
			fputs(", ", f);
			xml_puts(f, fs);
		}
		fputc(')', f);
		return;
	}
}

/* ": osd.0 journal, group osd.0 (key /img/j.img)": what the device is, from the summary */
static void device_heading(FILE *f, const json_t *d, const char *key)
{
	const char *role = json_string_value(json_object_get(d, "role"));
	const char *group = json_string_value(json_object_get(d, "group"));
	char mm[32];

	snprintf(mm, sizeof(mm), "%s",
	         json_string_value(json_object_get(d, "dev"))
	             ? json_string_value(json_object_get(d, "dev"))
	             : "");
	if (role) {
		fputs(": ", f);
		xml_puts(f, role);
	}
	if (group) {
		fputs(role ? ", group " : ": group ", f);
		xml_puts(f, group);
	}
	/* the key, when it says more than the role or the number */
	if (key && strcmp(key, mm) && (!role || strcmp(key, role))) {
		fputs(role || group ? "; key " : ": key ", f);
		xml_puts(f, key);
	}
}

/* How device idx of a run is known across runs: its summary's key (capture's, through the
 * manifest), else its number. */
static const char *device_key(const struct report_input *in, unsigned idx, char *buf, size_t len)
{
	const char *k = json_string_value(json_object_get(report_dev_json(in, idx), "key"));
	uint32_t dev = blk_analysis_device(in->blk, idx);

	if (k)
		return k;
	snprintf(buf, len, "%u,%u", BLK_DEV_MAJOR(dev), BLK_DEV_MINOR(dev));
	return buf;
}

/* The devices of a run with graphs: the first RPT_GRID_DEVICES the pass numbered. */
unsigned report_graphed(const struct blk_analysis *a)
{
	unsigned n = a ? blk_analysis_ndevices(a) : 0;

	return n < RPT_GRID_DEVICES ? n : RPT_GRID_DEVICES;
}

double report_span_s(const struct blk_analysis *a)
{
	return a ? (double)(blk_analysis_end(a) - blk_analysis_start(a)) / 1e9 : 0;
}

/* The devices' keys over every run, each once, in the order first seen; whether each run has
 * one device only (*one_each stays true then); the end of the longest run on the axis. 0 or
 * -ENOMEM (nothing kept then). */
static int section_keys(const struct report_input *in, size_t n, char ***keysp, size_t *nkeysp,
                        bool *one_each, double *xmax)
{
	char **keys = NULL;
	size_t nkeys = 0;

	for (size_t i = 0; i < n; i++) {
		const struct blk_analysis *a = in[i].blk;

		*one_each &= a && blk_analysis_ndevices(a) == 1;
		if (report_span_s(a) + in[i].t0_s > *xmax)
			*xmax = report_span_s(a) + in[i].t0_s;
		for (unsigned k = 0; k < report_graphed(a); k++) {
			char buf[32], **p;
			const char *key = device_key(&in[i], k, buf, sizeof(buf));
			size_t j;

			for (j = 0; j < nkeys; j++)
				if (!strcmp(keys[j], key))
					break;
			if (j < nkeys)
				continue;
			if (!(p = realloc(keys, (nkeys + 1) * sizeof(*keys))))
				goto nomem;
			keys = p;
			if (!(keys[nkeys] = strdup(key)))
				goto nomem;
			nkeys++;
		}
	}
	*keysp = keys;
	*nkeysp = nkeys;
	return 0;
nomem:
	for (size_t j = 0; j < nkeys; j++)
		free(keys[j]);
	free(keys);
	return -ENOMEM;
}

void report_devices_section(struct emit *em, const struct report_input *in, size_t n,
                            uint64_t width, double xmax_min)
{
	char **keys = NULL;
	uint32_t *secdev = NULL; /* each section's device number (the first run's) */
	size_t nkeys = 0, nsec;
	/* a run set's hosts: each host's devices its own, never merged with another's */
	bool one_each = !(n && in[0].host);
	double xmax = 0;

	if ((em->err = section_keys(in, n, &keys, &nkeys, &one_each, &xmax)))
		return;
	if (xmax < xmax_min)
		xmax = xmax_min;
	if (xmax <= 0)
		xmax = 1e-6;
	secdev = calloc(nkeys ? nkeys : 1, sizeof(*secdev));
	if (!secdev)
		em->err = -ENOMEM;
	/* every run traced one device: compare them on the same graphs whatever their names */
	nsec = one_each && n > 1 && nkeys ? 1 : nkeys;
	for (size_t j = 0; j < nsec && !em->err; j++) {
		struct devrun *dr = calloc(n, sizeof(*dr));
		const json_t *first = NULL;
		uint32_t dev = 0;
		uint64_t fine = 0, swidth;
		size_t m = 0;
		char devid[64];

		if (!dr) {
			em->err = -ENOMEM;
			break;
		}
		for (size_t i = 0; i < n && !em->err; i++) {
			const struct blk_analysis *a = in[i].blk;
			const struct rpt_grid *grid =
			    a ? blk_analysis_sink(a, &rpt_grid_ops) : NULL;

			for (unsigned k = 0; k < report_graphed(a); k++) {
				char buf[32];

				/* the same device in every run: the same key, never the same place
				 * in a list */
				if (!(one_each && n > 1) &&
				    strcmp(device_key(&in[i], k, buf, sizeof(buf)), keys[j]))
					continue;
				dr[m].run = i;
				dr[m].idx = k;
				dr[m].grid = grid ? rpt_grid_dev(grid, k) : NULL;
				dr[m].clock = grid ? &grid->clock : NULL;
				if (!m) {
					dev = blk_analysis_device(a, k);
					first = report_dev_json(&in[i], k);
				}
				if (report_points_min_width(a, k) > fine)
					fine = report_points_min_width(a, k);
				m++;
			}
		}
		/* one width for the section's runs: the widest any of them needs */
		swidth = fine > width ? fine : width;
		for (size_t i = 0; i < m && !em->err; i++) {
			const struct blk_analysis *a = in[dr[i].run].blk;

			double t0_s = in[dr[i].run].t0_s;

			if (report_points_make(a, dr[i].idx, swidth, fine, &dr[i].p)) {
				em->err = -ENOMEM;
				break;
			}
			report_points_shift(&dr[i].p, t0_s);
			if (make_bands(&dr[i], a, m > 1 ? dr[i].run + 1 : 0, t0_s)) {
				em->err = -ENOMEM;
				break;
			}
		}
		/* element ids by the first run's device number (one section per number, unless two
		 * runs' devices of one number are different devices) */
		secdev[j] = dev;
		snprintf(devid, sizeof(devid), "dev%u-%u", BLK_DEV_MAJOR(dev), BLK_DEV_MINOR(dev));
		for (size_t k = 0; k < j; k++) {
			if (secdev[k] != dev)
				continue;
			/* an earlier section of the same number: this one is told apart */
			snprintf(devid, sizeof(devid), "dev%u-%u-%zu", BLK_DEV_MAJOR(dev),
			         BLK_DEV_MINOR(dev), j);
			break;
		}
		fprintf(em->f, "<h2>Device %u,%u", BLK_DEV_MAJOR(dev), BLK_DEV_MINOR(dev));
		device_heading(em->f, first, keys[j]);
		if (m)
			device_name(em->f, &in[dr[0].run], dev);
		fprintf(em->f, "%s</h2>\n",
		        one_each && n > 1 ? " (and the one device of every other run)" : "");
		fprintf(em->f,
		        "<p class=\"note\">Shaded: idle time (no request outstanding for "
		        "at least the idle threshold); darker where an interval was idler, and "
		        "the longest gaps (as analyze lists them) exactly. "
		        "Bands around lines: minimum and maximum of the finer intervals "
		        "inside each plotted point. Plotted interval: %.6g ms.</p>\n",
		        (double)swidth / 1e6);
		if (!em->err)
			device_graphs(em, in, dr, m, devid, xmax, swidth);
		for (size_t i = 0; i < m && !em->err; i++)
			report_idle_table(em->f, &in[dr[i].run], dr[i].idx, m > 1);
		for (size_t i = 0; i < m; i++) {
			report_points_release(&dr[i].p);
			free(dr[i].bands);
		}
		free(dr);
	}
	for (size_t j = 0; j < nkeys; j++)
		free(keys[j]);
	free(keys);
	free(secdev);
}

/* The plotted interval: a power-of-two multiple of every run's bin width, at most
 * max_points points over the longest run (or the --interval asked for, when coarser). */
uint64_t report_plot_width(const struct report_input *in, size_t n, const struct report_opts *o)
{
	uint64_t w = 1, span = 0;
	unsigned maxp = o->max_points ? o->max_points : 600;

	for (size_t i = 0; i < n; i++) {
		const struct blk_analysis *a = in[i].blk;
		uint64_t iw;

		if (!a)
			continue;
		iw = blk_timeline_interval(blk_analysis_sink(a, &blk_timeline_ops));
		if (iw > w)
			w = iw;
		if (blk_analysis_end(a) - blk_analysis_start(a) > span)
			span = blk_analysis_end(a) - blk_analysis_start(a);
	}
	if (o->interval_ns) {
		while (w < o->interval_ns)
			w *= 2;
		return w;
	}
	while (span / w > maxp)
		w *= 2;
	return w;
}

/* The interval device k of run i is plotted in: its section's (report_devices_section()), the
 * widest any run's device of that section needs, and never below the shared width. */
uint64_t report_plotted_width(const struct report_input *in, size_t n, uint64_t width, size_t i,
                              unsigned k)
{
	bool one_each = n > 1;
	uint64_t w = width;
	char kb[32], buf[32];
	const char *key = device_key(&in[i], k, kb, sizeof(kb));

	for (size_t j = 0; j < n; j++)
		one_each &= in[j].blk && blk_analysis_ndevices(in[j].blk) == 1;
	for (size_t j = 0; j < n; j++)
		for (unsigned d = 0; d < report_graphed(in[j].blk); d++)
			if ((one_each || !strcmp(device_key(&in[j], d, buf, sizeof(buf)), key)) &&
			    report_points_min_width(in[j].blk, d) > w)
				w = report_points_min_width(in[j].blk, d);
	return w;
}
