/* SPDX-License-Identifier: MIT */
/* manifest.json reading (validated, typed view) and atomic writing. */
#include "formats/manifest.h"

#include "common/fs.h"
#include "common/jsonint.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DEVS 4096

/* Typed getters: absent is fine (returns 0), present with the wrong type is an error. */
static int get_str(json_t *o, const char *key, const char **out, const char *ctx, struct iot_err *e)
{
	json_t *v = json_object_get(o, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return iot_err_set(e, -EINVAL, "manifest: %s%s: expected a string", ctx, key);
	*out = json_string_value(v);
	return 0;
}

static int get_int(json_t *o, const char *key, int64_t *out, int *have, const char *ctx,
                   struct iot_err *e)
{
	json_t *v = json_object_get(o, key);

	if (have)
		*have = 0;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v))
		return iot_err_set(e, -EINVAL, "manifest: %s%s: expected an integer", ctx, key);
	*out = json_integer_value(v);
	if (have)
		*have = 1;
	return 0;
}

/* A count: an integer >= 0, or past 2^63 the string of digits common/jsonint.h writes. */
static int get_u64(json_t *o, const char *key, uint64_t *out, const char *ctx, struct iot_err *e)
{
	json_t *v = json_object_get(o, key);
	int64_t i = 0;
	int ret;

	if (json_is_string(v) && !json_u64_get(v, out))
		return 0;
	if ((ret = get_int(o, key, &i, NULL, ctx, e)))
		return ret;
	if (i < 0)
		return iot_err_set(e, -EINVAL, "manifest: %s%s: negative count", ctx, key);
	*out = (uint64_t)i;
	return 0;
}

/*
 * A time or sector on the u64 axis: an integer, or past 2^63 the string of digits
 * common/jsonint.h writes; a negative integer is what manifests written before that held
 * for one past 2^63 (the u64 cast to a signed integer), read back as that u64.
 */
static int get_axis(json_t *o, const char *key, uint64_t *out, int *have, const char *ctx,
                    struct iot_err *e)
{
	json_t *v = json_object_get(o, key);

	*have = 0;
	if (!v || json_is_null(v))
		return 0;
	if (json_is_integer(v))
		*out = (uint64_t)json_integer_value(v);
	else if (json_u64_get(v, out))
		return iot_err_set(e, -EINVAL, "manifest: %s%s: expected an integer", ctx, key);
	*have = 1;
	return 0;
}

static int get_obj(json_t *o, const char *key, json_t **out, const char *ctx, struct iot_err *e)
{
	json_t *v = json_object_get(o, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return iot_err_set(e, -EINVAL, "manifest: %s%s: expected an object", ctx, key);
	*out = v;
	return 0;
}

static int parse_pair(json_t *clock, const char *which, int64_t *real, int64_t *trace, int *have,
                      struct iot_err *e)
{
	json_t *p;
	int hr = 0, ht = 0, ret;
	char ctx[32];

	*have = 0;
	snprintf(ctx, sizeof(ctx), "clock.%s.", which);
	if ((ret = get_obj(clock, which, &p, "clock.", e)) || !p)
		return ret;
	if ((ret = get_int(p, "realtime_ns", real, &hr, ctx, e)) ||
	    (ret = get_int(p, "trace_ns", trace, &ht, ctx, e)))
		return ret;
	*have = hr && ht;
	return 0;
}

/* devices[].issued {ios, lo_sector, end_sector}: the sectors [lo, end) of ios requests */
static int parse_issued(json_t *o, struct blk_extent *x, const char *ctx, struct iot_err *e)
{
	uint64_t lo = 0, end = 0;
	int h1 = 0, h2 = 0, ret;
	char sub[64];

	snprintf(sub, sizeof(sub), "%sissued.", ctx);
	if ((ret = get_u64(o, "ios", &x->ios, sub, e)) ||
	    (ret = get_axis(o, "lo_sector", &lo, &h1, sub, e)) ||
	    (ret = get_axis(o, "end_sector", &end, &h2, sub, e)))
		return ret;
	/* end == lo only at the end of the u64 axis, where an IO's end saturates */
	if (x->ios && (!h1 || !h2 || end < lo))
		return iot_err_set(
		    e, -EINVAL,
		    "manifest: %sissued: no sectors [lo_sector, end_sector) for %llu "
		    "ios",
		    ctx, (unsigned long long)x->ios);
	x->lo = lo;
	x->hi = end;
	return 0;
}

static int parse_devs(json_t *arr, struct manifest *m, struct iot_err *e)
{
	size_t n;

	if (!arr || json_is_null(arr))
		return 0;
	if (!json_is_array(arr))
		return iot_err_set(e, -EINVAL, "manifest: devices: expected an array");
	n = json_array_size(arr);
	if (n > MAX_DEVS)
		return iot_err_set(e, -EINVAL, "manifest: devices: %zu entries is too many", n);
	m->devs = calloc(n ? n : 1, sizeof(*m->devs));
	if (!m->devs)
		return iot_err_set(e, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		json_t *d = json_array_get(arr, i), *mounts;
		struct manifest_dev *md = &m->devs[i];
		char ctx[48];
		int64_t ma = 0, mi = 0;
		uint64_t first = 0, last = 0;
		int ret, h1 = 0, h2 = 0;
		json_t *issued;

		snprintf(ctx, sizeof(ctx), "devices[%zu].", i);
		if (!json_is_object(d))
			return iot_err_set(e, -EINVAL, "manifest: devices[%zu]: expected an object",
			                   i);
		if ((ret = get_str(d, "name", &md->name, ctx, e)) ||
		    (ret = get_int(d, "major", &ma, NULL, ctx, e)) ||
		    (ret = get_int(d, "minor", &mi, NULL, ctx, e)) ||
		    (ret = get_str(d, "files", &md->files, ctx, e)) ||
		    (ret = get_u64(d, "events", &md->events, ctx, e)) ||
		    (ret = get_axis(d, "first_event_ns", &first, &h1, ctx, e)) ||
		    (ret = get_axis(d, "last_event_ns", &last, &h2, ctx, e)) ||
		    (ret = get_obj(d, "issued", &issued, ctx, e)) ||
		    (ret = get_str(d, "key", &md->key, ctx, e)) ||
		    (ret = get_str(d, "role", &md->role, ctx, e)) ||
		    (ret = get_str(d, "group", &md->group, ctx, e)))
			return ret;
		if (issued && (ret = parse_issued(issued, &md->issued, ctx, e)))
			return ret;
		md->have_span = h1 && h2 && issued && last >= first;
		md->first_event_ns = first;
		md->last_event_ns = last;
		if (!md->name)
			return iot_err_set(e, -EINVAL, "manifest: %sname: missing", ctx);
		/* the kernel's dev_t in blktrace records has 12 major and 20 minor bits */
		if (ma < 0 || ma > 0xfff || mi < 0 || mi > 0xfffff)
			return iot_err_set(e, -EINVAL,
			                   "manifest: %smajor:minor %lld:%lld out of range", ctx,
			                   (long long)ma, (long long)mi);
		md->major = (unsigned)ma;
		md->minor = (unsigned)mi;
		mounts = json_object_get(d, "mounts");
		if (mounts && !json_is_null(mounts)) {
			json_t *m0;

			if (!json_is_array(mounts))
				return iot_err_set(e, -EINVAL,
				                   "manifest: %smounts: expected an array", ctx);
			md->nmounts = (unsigned)json_array_size(mounts);
			m0 = json_array_get(mounts, 0);
			if (m0) {
				if (!json_is_object(m0))
					return iot_err_set(
					    e, -EINVAL, "manifest: %smounts[0]: expected an object",
					    ctx);
				if ((ret = get_str(m0, "fstype", &md->fstype, ctx, e)))
					return ret;
			}
		}
		m->ndevs = (unsigned)(i + 1);
	}
	return 0;
}

int manifest_parse(const char *buf, size_t len, struct manifest *m, struct iot_err *e)
{
	json_error_t je;
	json_t *o, *clock, *cmd, *net, *counts;
	const char *fmt;
	int64_t ver = 0, st = 0;
	int have = 0, h1 = 0, h2 = 0, ret;

	memset(m, 0, sizeof(*m));
	m->root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!m->root)
		return iot_err_set(e, -EINVAL, "manifest: line %d column %d: %s", je.line,
		                   je.column, je.text);
	o = m->root;
	if (!json_is_object(o)) {
		ret = iot_err_set(e, -EINVAL, "manifest: expected a JSON object");
		goto fail;
	}
	if ((ret = get_str(o, "format", &fmt, "", e)))
		goto fail;
	if (!fmt || strcmp(fmt, MANIFEST_FORMAT)) {
		ret = iot_err_set(e, -EINVAL, "manifest: format is '%s', not '" MANIFEST_FORMAT "'",
		                  fmt ? fmt : "(missing)");
		goto fail;
	}
	if ((ret = get_int(o, "format_version", &ver, &have, "", e)))
		goto fail;
	if (!have || ver < 1 || ver > MANIFEST_VERSION) {
		ret = iot_err_set(e, -EPROTO, "manifest: unsupported format_version %lld",
		                  (long long)ver);
		goto fail;
	}
	m->format_version = (unsigned)ver;
	if ((ret = get_str(o, "iotape_version", &m->iotape_version, "", e)))
		goto fail;
	{
		json_t *b = json_object_get(o, "backend");

		if (json_is_object(b)) {
			if ((ret = get_str(b, "name", &m->backend, "backend.", e)))
				goto fail;
		} else if (b && !json_is_null(b)) {
			ret = iot_err_set(e, -EINVAL, "manifest: backend: expected an object");
			goto fail;
		}
	}
	if ((ret = get_obj(o, "clock", &clock, "", e)))
		goto fail;
	if (clock &&
	    ((ret = parse_pair(clock, "start", &m->start_real_ns, &m->start_trace_ns, &h1, e)) ||
	     (ret = parse_pair(clock, "end", &m->end_real_ns, &m->end_trace_ns, &h2, e))))
		goto fail;
	m->have_clock = h1;
	if (h1 && !h2) {
		m->end_real_ns = m->start_real_ns;
		m->end_trace_ns = m->start_trace_ns;
	}
	if ((ret = get_obj(o, "command", &cmd, "", e)))
		goto fail;
	if (cmd && (ret = get_int(cmd, "exit_status", &st, &m->have_exit_status, "command.", e)))
		goto fail;
	m->exit_status = (int)st;
	if ((ret = parse_devs(json_object_get(o, "devices"), m, e)))
		goto fail;
	{
		json_t *t = json_object_get(o, "threads");

		if (t && !json_is_null(t) && !json_is_array(t)) {
			ret = iot_err_set(e, -EINVAL, "manifest: threads: expected an array");
			goto fail;
		}
	}
	if ((ret = get_obj(o, "network", &net, "", e)))
		goto fail;
	if (net && (ret = get_str(net, "file", &m->pcap_file, "network.", e)))
		goto fail;
	if ((ret = get_obj(o, "counts", &counts, "", e)))
		goto fail;
	if (counts && ((ret = get_u64(counts, "events", &m->events, "counts.", e)) ||
	               (ret = get_u64(counts, "lost", &m->lost, "counts.", e)) ||
	               (ret = get_u64(counts, "packets", &m->packets, "counts.", e)) ||
	               (ret = get_u64(counts, "packet_drops", &m->packet_drops, "counts.", e))))
		goto fail;
	return 0;
fail:
	manifest_release(m);
	return ret;
}

int manifest_load(const char *path, struct manifest *m, struct iot_err *e)
{
	char file[PATH_MAX];
	struct stat st;
	char *buf;
	size_t got = 0;
	int fd, ret;

	memset(m, 0, sizeof(*m));
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		snprintf(file, sizeof(file), "%s/" MANIFEST_NAME, path);
	else
		snprintf(file, sizeof(file), "%s", path);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return iot_err_set(e, -errno, "'%s': %s", file, strerror(errno));
	if (fstat(fd, &st) || st.st_size > (64 << 20)) {
		close(fd);
		return iot_err_set(e, -EFBIG, "'%s': too large for a manifest", file);
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	ret = manifest_parse(buf, got, m, e);
	free(buf);
	if (ret)
		iot_err_prefix(e, "'%s'", file);
	return ret;
}

const struct manifest_dev *manifest_dev_find(const struct manifest *m, unsigned major,
                                             unsigned minor)
{
	for (unsigned i = 0; m && i < m->ndevs; i++)
		if (m->devs[i].major == major && m->devs[i].minor == minor)
			return &m->devs[i];
	return NULL;
}

const char *manifest_thread_process(const struct manifest *m, uint32_t pid)
{
	const json_t *t = m ? json_object_get(m->root, "threads") : NULL, *e;
	size_t i;

	json_array_foreach(t, i, e)
	{
		const json_t *p = json_object_get(e, "pid"), *c = json_object_get(e, "process");

		if (json_is_integer(p) && json_integer_value(p) == (json_int_t)pid &&
		    json_is_string(c))
			return json_string_value(c);
	}
	return NULL;
}

void manifest_release(struct manifest *m)
{
	free(m->devs);
	json_decref(m->root);
	memset(m, 0, sizeof(*m));
}

int manifest_save(const char *dir, json_t *root, struct iot_err *e)
{
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_ENSURE_ASCII);
	size_t len;
	int ret;

	if (!text)
		return iot_err_set(e, -ENOMEM, "manifest: cannot encode");
	len = strlen(text);
	text[len++] = '\n'; /* json_dumps's NUL becomes the final newline */
	ret = iot_write_atomic(dir, MANIFEST_NAME, text, len, e);
	free(text);
	return ret;
}

/* hostile manifests can hold any int64: saturate instead of overflowing */
static int64_t clamp_ns(double v)
{
	if (!(v > -9.2e18))
		return v != v ? 0 : INT64_MIN;
	if (v > 9.2e18)
		return INT64_MAX;
	return (int64_t)v;
}

/*
 * The offset (realtime - trace) at a point num/den of the way from the start pair to the end
 * pair (clamped to the run), to the nanosecond: integers, since doubles hold the realtime
 * clock's nanoseconds only to 256 ns. Hostile manifests can hold any int64: past what 128
 * bits hold exactly, doubles, saturated.
 */
static __int128 offset_at(const struct manifest *m, __int128 num, __int128 den)
{
	__int128 off0 = (__int128)m->start_real_ns - m->start_trace_ns;
	__int128 off1 = (__int128)m->end_real_ns - m->end_trace_ns;
	__int128 lim = (__int128)1 << 62, d = off1 - off0;

	if (den <= 0 || num <= 0)
		return off0;
	if (num > den)
		num = den;
	if (d > -lim && d < lim && den < lim)
		return off0 + d * num / den;
	return off0 + (__int128)clamp_ns((double)d * ((double)num / (double)den));
}

static int64_t sat_ns(__int128 v)
{
	return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

int64_t manifest_trace_to_real(const struct manifest *m, int64_t trace_ns)
{
	if (!m->have_clock)
		return 0;
	return sat_ns(trace_ns + offset_at(m, (__int128)trace_ns - m->start_trace_ns,
	                                   (__int128)m->end_trace_ns - m->start_trace_ns));
}

int64_t manifest_real_to_trace(const struct manifest *m, int64_t real_ns)
{
	if (!m->have_clock)
		return 0;
	return sat_ns(real_ns - offset_at(m, (__int128)real_ns - m->start_real_ns,
	                                  (__int128)m->end_real_ns - m->start_real_ns));
}
