/* SPDX-License-Identifier: MIT */
/* The bpf backend's summary level: the kernel's maps read into summary.json. */
#include "capture/bpf_int.h"

#ifdef IOTAPE_HAVE_BPF

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blk.skel.h" /* generated at build time by bpftool (CMakeLists.txt) */
#include "common/clock.h"
#include "common/fs.h"
#include "common/jsonint.h"
#include "formats/rundir.h"

/* ---- the summary level: reading the maps, summary.json -------------------------------- */

int capbpf_sum_init(struct cap_backend_state *s, unsigned n, const char *rundir, struct iot_err *e)
{
	int ncpu = libbpf_num_possible_cpus();

	if (ncpu <= 0)
		return iot_err_set(e, -EINVAL, "bpf: cannot count the CPUs");
	s->ncpu = (unsigned)ncpu;
	s->nsd = n;
	if (!(s->rundir = strdup(rundir)) || !(s->sd = calloc(n ? n : 1, sizeof(*s->sd))) ||
	    !(s->bins_buf = calloc(s->ncpu, sizeof(*s->bins_buf))))
		return iot_err_set(e, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < n; i++)
		if (!(s->sd[i].snap =
		          calloc((size_t)IOT_SUM_RING * s->ncpu, sizeof(*s->sd[i].snap))))
			return iot_err_set(e, -ENOMEM, "out of memory");
	return 0;
}

/* After load: no issue seen yet, so the seek distance starts at the second. */
int capbpf_sum_maps(struct cap_backend_state *s, struct iot_err *e)
{
	struct iot_sum_dev init = {.last_end = ~0ull};

	for (uint32_t idx = 0; idx < s->nsd; idx++)
		if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.sum_devs), &idx, &init, BPF_ANY))
			return iot_err_set(e, -errno, "bpf: summary table: %s", strerror(errno));
	return 0;
}

int capbpf_sum_add_gap(struct cap_backend_state *s, const struct iot_bpf_gap *g)
{
	struct sum_dev *d;

	if (g->idx >= s->nsd)
		return 0;
	d = &s->sd[g->idx];
	if (d->ngaps == d->capgaps) {
		size_t cap = d->capgaps ? 2 * d->capgaps : 64;
		uint64_t(*n)[2] = realloc(d->gaps, cap * sizeof(*n));

		if (!n)
			return iot_err_set(&s->e, -ENOMEM, "bpf: out of memory");
		d->gaps = n;
		d->capgaps = cap;
	}
	d->gaps[d->ngaps][0] = g->start;
	d->gaps[d->ngaps][1] = g->end;
	d->ngaps++;
	return 0;
}

static int bin_done(struct cap_backend_state *s, struct sum_dev *d, const struct iot_sum_bin *b)
{
	uint64_t k = b->bin - 1;

	if (k >= d->nbins) {
		size_t n = (size_t)k + 64;
		uint64_t(*nb)[5];

		if (k > (1ull << 32) || !(nb = realloc(d->bins, n * sizeof(*nb))))
			return iot_err_set(&s->e, -ENOMEM, "bpf: out of memory for the timeline");
		memset(nb + d->nbins, 0, (n - d->nbins) * sizeof(*nb));
		d->bins = nb;
		d->nbins = n;
	}
	d->bins[k][0] += b->ios;
	d->bins[k][1] += b->write_ios;
	d->bins[k][2] += b->read_bytes;
	d->bins[k][3] += b->write_bytes;
	d->bins[k][4] += b->seeks;
	return 0;
}

/*
 * The kernel keeps IOT_SUM_RING bins per device and CPU; each slot holds its bin's counts
 * until a later bin takes it. Read every second, a slot's last read before it moved on holds
 * its bin's final counts (the bin ended long before): those are taken then, and at the end
 * every slot's last read.
 */
static int read_bins(struct cap_backend_state *s, int final)
{
	int fd = bpf_map__fd(s->skel->maps.sum_bins);

	for (unsigned i = 0; i < s->nsd; i++) {
		struct sum_dev *d = &s->sd[i];

		for (uint32_t slot = 0; slot < IOT_SUM_RING; slot++) {
			uint32_t key = i * IOT_SUM_RING + slot;

			if (bpf_map_lookup_elem(fd, &key, s->bins_buf))
				continue;
			for (unsigned c = 0; c < s->ncpu; c++) {
				struct iot_sum_bin *old = &d->snap[slot * s->ncpu + c];
				const struct iot_sum_bin *now = &s->bins_buf[c];
				int ret;

				if (old->bin && old->bin != now->bin && (ret = bin_done(s, d, old)))
					return ret;
				*old = *now;
				if (final && old->bin && (ret = bin_done(s, d, old)))
					return ret;
			}
		}
	}
	return 0;
}

static json_t *hist_json(struct cap_backend_state *s, unsigned idx, uint64_t seek[6])
{
	int fd = bpf_map__fd(s->skel->maps.sum_hist);
	struct iot_sum_hist *v = calloc(s->ncpu, sizeof(*v));
	uint64_t count = 0, sum = 0, min = UINT64_MAX, max = 0;
	json_t *b = json_array();
	uint32_t key = idx;

	if (!v || bpf_map_lookup_elem(fd, &key, v)) {
		free(v);
		return b;
	}
	for (unsigned i = 0; i < IOT_HIST_BUCKETS; i++) {
		uint64_t n = 0;

		for (unsigned c = 0; c < s->ncpu; c++)
			n += v[c].b[i];
		if (n)
			json_array_append_new(b, json_pack("[i, I]", i, (json_int_t)n));
	}
	for (unsigned c = 0; c < s->ncpu; c++) {
		seek[0] += v[c].transitions;
		seek[1] += v[c].seeks;
		seek[2] += v[c].sequential;
		seek[3] += v[c].forward;
		seek[4] += v[c].backward;
		seek[5] += v[c].seekwatcher;
		if (!v[c].count)
			continue;
		count += v[c].count;
		sum += v[c].sum;
		min = v[c].min < min ? v[c].min : min;
		max = v[c].max > max ? v[c].max : max;
	}
	free(v);
	return json_pack("{s:s, s:I, s:I, s:I, s:I, s:o}", "kind", "", "count", (json_int_t)count,
	                 "sum", (json_int_t)sum, "min", (json_int_t)(count ? min : 0), "max",
	                 (json_int_t)max, "buckets", b);
}

/* summary.json (docs/capture.md "summary.json"): written every minute and at the end, through
 * a temporary file renamed into place (no fsync: the run directory may be on a traced device) */
static int write_summary(struct cap_backend_state *s, uint64_t end_ns)
{
	json_t *root = json_object(), *devs = json_array();
	char path[4096], *text;
	int ret;

	json_object_set_new(root, "format", json_string("iotape-summary"));
	json_object_set_new(root, "format_version", json_integer(1));
	json_object_set_new(root, "trace_clock", json_string("mono"));
	json_object_set_new(root, "origin_ns", json_u64(s->skel->bss->origin_ns));
	json_object_set_new(root, "end_ns", json_u64(end_ns));
	json_object_set_new(root, "interval_ns", json_u64(s->interval_ns));
	json_object_set_new(root, "idle_threshold_ns", json_u64(s->idle_ns));
	for (unsigned i = 0; i < s->nsd; i++) {
		struct sum_dev *d = &s->sd[i];
		uint64_t seek[6] = {0};
		json_t *jd, *lat = hist_json(s, i, seek), *bins = json_array(),
		            *gaps = json_array();
		char dev[32];

		json_object_set_new(lat, "kind", json_string(d->bio_based ? "q2c" : "d2c"));
		for (size_t k = 0; k < d->nbins; k++)
			if (d->bins[k][0] || d->bins[k][4])
				json_array_append_new(
				    bins,
				    json_pack("[I, I, I, I, I, I]", (json_int_t)k,
				              (json_int_t)d->bins[k][0], (json_int_t)d->bins[k][1],
				              (json_int_t)d->bins[k][2], (json_int_t)d->bins[k][3],
				              (json_int_t)d->bins[k][4]));
		for (size_t k = 0; k < d->ngaps; k++)
			json_array_append_new(gaps, json_pack("[I, I]", (json_int_t)d->gaps[k][0],
			                                      (json_int_t)d->gaps[k][1]));
		snprintf(dev, sizeof(dev), "%u,%u", BLK_DEV_MAJOR(d->kdev), BLK_DEV_MINOR(d->kdev));
		jd = json_pack("{s:s, s:s, s:b, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:I}, s:o, s:o}",
		               "name", d->name, "dev", dev, "bio_based", d->bio_based, "latency",
		               lat, "seeks", "transitions", (json_int_t)seek[0], "count",
		               (json_int_t)seek[1], "sequential", (json_int_t)seek[2], "forward",
		               (json_int_t)seek[3], "backward", (json_int_t)seek[4], "seekwatcher",
		               (json_int_t)seek[5], "bins", bins, "gaps", gaps);
		json_array_append_new(devs, jd);
	}
	json_object_set_new(root, "devices", devs);
	snprintf(path, sizeof(path), "%s/" RUNDIR_SUMMARY, s->rundir);
	text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	if (!text)
		return iot_err_set(&s->e, -ENOMEM, "'%s': out of memory", path);
	ret = iot_write_file(path, text, strlen(text), 0, &s->e);
	free(text);
	return ret;
}

int capbpf_sum_tick(struct cap_backend_state *s, int final)
{
	uint64_t now = iot_now_ns();
	int ret = 0;

	/* a slot's last read must come after its bin ended and before the ring comes round to
	 * it again: a read every quarter of the ring, at most a second apart */
	if (!final && now - s->last_read < s->read_every)
		return 0;
	s->last_read = now;
	if ((ret = read_bins(s, final)))
		return ret;
	if (final || now - s->last_write >= 60000000000ull) {
		s->last_write = now;
		ret = write_summary(s, now);
	}
	return ret;
}

void capbpf_sum_free(struct cap_backend_state *s)
{
	for (unsigned i = 0; s->sd && i < s->nsd; i++) {
		free(s->sd[i].snap);
		free(s->sd[i].bins);
		free(s->sd[i].gaps);
	}
	free(s->sd);
	free(s->bins_buf);
	free(s->rundir);
}

#else

typedef int capbpf_not_built; /* not an empty translation unit */

#endif
