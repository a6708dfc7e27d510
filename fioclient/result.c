/* SPDX-License-Identifier: MIT */
/* fio client replay: fio's JSON output read into results, and the results as JSON. */
#include "fioclient/fioclient.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonint.h"

const double fc_pct[FC_NPCT] = {50, 90, 99, 99.9};
const char *const fc_dir_name[FC_NDIR] = {"read", "write", "trim", "sync"};

/*
 * A count or time from fio's JSON: hostile or broken output may hold anything, so a negative
 * number or NaN is 0, and one past what 64 bits hold is UINT64_MAX (1e300 as an integer is
 * undefined behaviour). A double holds integers exactly to 2^53; fio writes integers anyway.
 */
static uint64_t u64_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (json_is_integer(v))
		return json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
	if (json_is_real(v)) {
		double d = json_real_value(v);

		if (!(d > 0))
			return 0;
		return d >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)d;
	}
	return 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void lat_of(json_t *clat, struct fc_lat *l)
{
	json_t *pct = json_object_get(clat, "percentile");

	l->n = u64_of(clat, "N");
	l->max = u64_of(clat, "max");
	l->mean = json_number_value(json_object_get(clat, "mean"));
	for (unsigned i = 0; i < FC_NPCT; i++) {
		char key[32];

		/* fio's keys: "50.000000", "99.900000" */
		snprintf(key, sizeof(key), "%.6f", fc_pct[i]);
		l->p[i] = json_number_value(json_object_get(pct, key));
	}
}

/* One entry of fio's client_stats into f. */
static void job_of(json_t *j, struct fc_fio *f)
{
	uint64_t err = u64_of(j, "error"), ms = u64_of(j, "job_runtime");

	f->have = true;
	f->error = err > INT_MAX ? INT_MAX : (int)err;
	/* milliseconds; past 2^64 ns (584 years) it stays at UINT64_MAX */
	f->runtime_ns = ms > UINT64_MAX / 1000000 ? UINT64_MAX : ms * 1000000;
	for (unsigned d = 0; d < FC_NDIR; d++) {
		json_t *dj = json_object_get(j, fc_dir_name[d]);

		if (!json_is_object(dj))
			continue;
		f->ios[d] = u64_of(dj, "total_ios");
		f->bytes[d] = u64_of(dj, "io_bytes");
		lat_of(json_object_get(dj, d == FC_SYNC ? "lat_ns" : "clat_ns"), &f->lat[d]);
	}
}

int fc_parse_output(const char *path, struct fc_result *res, struct iot_err *e)
{
	FILE *f = fopen(path, "r");
	char *text = NULL, *start;
	size_t len = 0;
	json_t *doc, *stats;
	json_error_t je;
	unsigned matched = 0;

	if (!f)
		return iot_err_set(e, -errno, "'%s': %s", path, strerror(errno));
	{
		char buf[65536];
		size_t n;

		while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
			char *t = realloc(text, len + n + 1);

			if (!t) {
				fclose(f);
				free(text);
				return iot_err_set(e, -ENOMEM, "out of memory");
			}
			text = t;
			memcpy(text + len, buf, n);
			len += n;
		}
	}
	fclose(f);
	if (!text)
		return iot_err_set(e, -EINVAL, "'%s': fio wrote nothing", path);
	text[len] = 0;
	/* fio's client puts its servers' notes ("<host> ...") before the document */
	start = text;
	while (start && *start != '{') {
		start = strchr(start, '\n');
		if (start)
			start++;
	}
	if (!start) {
		free(text);
		return iot_err_set(e, -EINVAL, "'%s': no JSON document from fio", path);
	}
	doc = json_loads(start, JSON_DISABLE_EOF_CHECK, &je);
	free(text);
	if (!doc)
		return iot_err_set(e, -EINVAL, "'%s': fio's JSON: %s (line %d)", path, je.text,
		                   je.line);
	stats = json_object_get(doc, "client_stats");
	for (size_t i = 0; i < json_array_size(stats); i++) {
		json_t *j = json_array_get(stats, i);
		const char *name = json_string_value(json_object_get(j, "jobname"));

		if (!name)
			continue;
		if (!strcmp(name, "All clients"))
			continue; /* fio 3.33 sums runtimes there and has no percentiles */
		/* job names are the devices' names, one job per device over all hosts */
		for (unsigned d = 0; d < res->ndevs; d++)
			if (!strcmp(res->devs[d].x.name, name) && !res->devs[d].fio.have) {
				job_of(j, &res->devs[d].fio);
				matched++;
				break;
			}
	}
	json_decref(doc);
	if (!matched)
		return iot_err_set(e, -EINVAL, "'%s': fio reported none of the jobs", path);
	fc_combine(res);
	return 0;
}

void fc_combine(struct fc_result *res)
{
	struct fc_fio *a = &res->all;
	unsigned with[FC_NDIR] = {0};

	memset(a, 0, sizeof(*a));
	for (unsigned i = 0; i < res->ndevs; i++) {
		const struct fc_fio *f = &res->devs[i].fio;

		if (!f->have)
			continue;
		a->have = true;
		if (f->error && !a->error)
			a->error = f->error;
		/* the jobs started together: all of them took the longest one's time */
		if (f->runtime_ns > a->runtime_ns)
			a->runtime_ns = f->runtime_ns;
		for (unsigned d = 0; d < FC_NDIR; d++) {
			const struct fc_lat *l = &f->lat[d];
			struct fc_lat *al = &a->lat[d];

			a->ios[d] = sat_add(a->ios[d], f->ios[d]);
			a->bytes[d] = sat_add(a->bytes[d], f->bytes[d]);
			if (!l->n)
				continue;
			al->mean = (al->mean * (double)al->n + l->mean * (double)l->n) /
			           ((double)al->n + (double)l->n);
			al->n = sat_add(al->n, l->n);
			if (l->max > al->max)
				al->max = l->max;
			/* percentiles do not add up: those of the one device with IOs, else none */
			memcpy(al->p, l->p, sizeof(al->p));
			with[d]++;
		}
	}
	for (unsigned d = 0; d < FC_NDIR; d++)
		if (with[d] > 1)
			for (unsigned k = 0; k < FC_NPCT; k++)
				a->lat[d].p[k] = -1;
}

/* ---- the result as JSON ------------------------------------------------------------ */

static json_t *lat_json(const struct fc_lat *l)
{
	json_t *o = json_object();

	json_object_set_new(o, "count", json_u64(l->n));
	json_object_set_new(o, "mean_ns", json_real(l->mean));
	/* -1: not known (several devices' percentiles do not combine) */
	json_object_set_new(o, "p50_ns", l->p[0] < 0 ? json_null() : json_real(l->p[0]));
	json_object_set_new(o, "p90_ns", l->p[1] < 0 ? json_null() : json_real(l->p[1]));
	json_object_set_new(o, "p99_ns", l->p[2] < 0 ? json_null() : json_real(l->p[2]));
	json_object_set_new(o, "p999_ns", l->p[3] < 0 ? json_null() : json_real(l->p[3]));
	json_object_set_new(o, "max_ns", json_u64(l->max));
	return o;
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

/* fio's side of a job (or of all): counts, bytes, runtime, rates, latencies. */
static json_t *fio_json(const struct fc_fio *f, uint64_t trace_ns)
{
	json_t *o = json_object(), *ops = json_object(), *lat = json_object();
	uint64_t ios = 0, bytes = 0;
	double secs = (double)f->runtime_ns / 1e9;

	for (unsigned d = 0; d < FC_NDIR; d++) {
		ios += f->ios[d];
		bytes += f->bytes[d];
		json_object_set_new(ops, fc_dir_name[d], json_u64(f->ios[d]));
		if (d != FC_SYNC && f->lat[d].n)
			json_object_set_new(lat, fc_dir_name[d], lat_json(&f->lat[d]));
	}
	json_object_set_new(o, "reported", json_boolean(f->have));
	json_object_set_new(o, "error", json_integer(f->error));
	json_object_set_new(o, "ios", json_u64(ios));
	json_object_set_new(o, "bytes", json_u64(bytes));
	json_object_set_new(o, "ops", ops);
	json_object_set_new(o, "duration_ns", json_u64(f->runtime_ns));
	json_object_set_new(o, "duration_ratio", json_real(ratio(f->runtime_ns, trace_ns)));
	json_object_set_new(o, "iops", json_real(secs > 0 ? (double)ios / secs : 0.0));
	json_object_set_new(o, "mb_per_s", json_real(secs > 0 ? (double)bytes / 1e6 / secs : 0.0));
	json_object_set_new(o, "latency", lat);
	return o;
}

/* The trace's side of a device: its IOs, and the time fio should take (since t0). */
static json_t *trace_json(const struct export_iolog_dev *x, uint64_t t0)
{
	json_t *o = json_object();

	json_object_set_new(o, "ios", json_u64(x->ios));
	json_object_set_new(o, "bytes", json_u64(x->bytes));
	json_object_set_new(o, "ops",
	                    json_pack("{sIsIsIsI}", "read", (json_int_t)x->ops[IOLOG_READ], "write",
	                              (json_int_t)x->ops[IOLOG_WRITE], "trim",
	                              (json_int_t)x->ops[IOLOG_TRIM], "sync",
	                              (json_int_t)(x->ops[IOLOG_SYNC] + x->ops[IOLOG_DATASYNC])));
	json_object_set_new(o, "start_ns", json_u64((x->first_ns - t0)));
	json_object_set_new(o, "duration_ns", json_u64((x->last_ns - t0)));
	json_object_set_new(o, "max_depth", json_integer(x->max_depth));
	json_object_set_new(o, "skipped", json_u64(x->skipped));
	json_object_set_new(o, "skipped_writes", json_u64(x->skipped_writes));
	json_object_set_new(o, "writes_as_reads", json_u64(x->writes_as_reads));
	return o;
}

json_t *fc_result_json(const struct fc_opts *o, const struct fc_result *res)
{
	json_t *root = json_object(), *hosts = json_array(), *opts = json_object(), *all;
	uint64_t t_ios = 0, t_bytes = 0, t_end = 0;

	json_object_set_new(opts, "run", json_string(o->run));
	json_object_set_new(opts, "from", json_string(o->xo.from_queue ? "queue" : "issue"));
	json_object_set_new(opts, "iolog_version", json_integer(o->xo.version));
	json_object_set_new(opts, "ioengine",
	                    json_string(o->xo.ioengine ? o->xo.ioengine : "libaio"));
	json_object_set_new(opts, "direct", json_boolean(!o->xo.buffered));
	json_object_set_new(opts, "replay_time_scale",
	                    json_integer(o->xo.time_scale ? o->xo.time_scale : 100));
	json_object_set_new(opts, "no_stall", json_boolean(o->xo.no_stall));
	json_object_set_new(opts, "writes",
	                    json_string(o->xo.writes == EXPORT_WRITES        ? "replayed"
	                                : o->xo.writes == EXPORT_WRITES_SKIP ? "skipped"
	                                                                     : "read instead"));
	json_object_set_new(opts, "dir", json_string(o->dir));
	json_object_set_new(root, "options", opts);
	for (unsigned s = 0; s < o->nslots; s++) {
		const struct fc_slot *sl = &o->slots[s];
		json_t *h = NULL, *devs;
		size_t k;

		/* one object per HOST:PORT, its slots' devices inside */
		json_array_foreach(hosts, k, h)
		{
			if (!strcmp(json_string_value(json_object_get(h, "host")), sl->host) &&
			    (unsigned)json_integer_value(json_object_get(h, "port")) == sl->port)
				break;
			h = NULL;
		}
		if (!h) {
			h = json_pack("{sssIso}", "host", sl->host, "port", (json_int_t)sl->port,
			              "devices", json_array());
			json_array_append_new(hosts, h);
		}
		devs = json_object_get(h, "devices");
		for (unsigned d = 0; d < res->ndevs; d++) {
			const struct fc_dev *dv = &res->devs[d];
			char devs_s[32];
			json_t *j;

			if (dv->slot != s)
				continue;
			snprintf(devs_s, sizeof(devs_s), "%u,%u", BLK_DEV_MAJOR(dv->x.dev),
			         BLK_DEV_MINOR(dv->x.dev));
			j = json_pack("{sssssss{}s{}}", "dev", devs_s, "name", dv->x.name, "target",
			              sl->target, "trace", "fio");
			json_object_set_new(j, "trace", trace_json(&dv->x, res->t0));
			json_object_set_new(j, "fio", fio_json(&dv->fio, dv->x.last_ns - res->t0));
			json_array_append_new(devs, j);
			t_ios += dv->x.ios;
			t_bytes += dv->x.bytes;
			if (dv->x.last_ns - res->t0 > t_end)
				t_end = dv->x.last_ns - res->t0;
		}
	}
	json_object_set_new(root, "hosts", hosts);
	all = json_object();
	json_object_set_new(all, "trace",
	                    json_pack("{sIsIsIsI}", "ios", (json_int_t)t_ios, "bytes",
	                              (json_int_t)t_bytes, "duration_ns", (json_int_t)t_end,
	                              "unmapped_ios", (json_int_t)res->unmapped));
	json_object_set_new(all, "fio", fio_json(&res->all, t_end));
	json_object_set_new(root, "combined", all);
	json_object_set_new(root, "fio",
	                    json_pack("{sisbssssss}", "status", res->fio_status, "stopped",
	                              res->stopped, "json", res->fio_json ? res->fio_json : "",
	                              "log", res->fio_log ? res->fio_log : "", "message",
	                              res->fio_msg));
	return root;
}
