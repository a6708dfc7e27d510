/* SPDX-License-Identifier: MIT */
/* The sweep definition: checks, sweep.json, cells and their paths, the plan, substitution. */
#include "sweep/sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonint.h"
#include "formats/outcheck.h"
#include "iotape_version.h"

extern char **environ;

static const char *const order_names[] = {
    [SWEEP_ORDER_SHUFFLED] = "shuffled",
    [SWEEP_ORDER_ROUNDS] = "rounds",
    [SWEEP_ORDER_SEQUENTIAL] = "sequential",
};

const char *sweep_order_name(enum sweep_order o)
{
	return o <= SWEEP_ORDER_SEQUENTIAL ? order_names[o] : "?";
}

int sweep_order_parse(const char *s, enum sweep_order *o)
{
	for (int i = 0; i <= SWEEP_ORDER_SEQUENTIAL; i++) {
		if (!strcmp(s, order_names[i])) {
			*o = (enum sweep_order)i;
			return 0;
		}
	}
	return -EINVAL;
}

void sweep_def_init(struct sweep_def *d)
{
	memset(d, 0, sizeof(*d));
	d->reps = 1;
	d->capture = true;
	d->wait_tracer_ns = SWEEP_WAIT_TRACER_NS;
}

static void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void sweep_def_release(struct sweep_def *d)
{
	for (size_t i = 0; i < d->nparams; i++)
		sweep_param_release(&d->param[i]);
	for (size_t i = 0; i < d->nmetrics; i++)
		sweep_metric_release(&d->metric[i]);
	free(d->metric);
	strv_free(d->cmd);
	strv_free(d->devs);
	strv_free(d->hosts);
	strv_free(d->capture_args);
	free(d->setup);
	free(d->teardown);
	free(d->iface);
	json_decref(d->argv);
	sweep_def_init(d);
}

size_t sweep_ncells(const struct sweep_def *d)
{
	size_t n = 1;

	for (size_t i = 0; i < d->nparams; i++)
		if (size_mul(n, d->param[i].n, &n))
			return SIZE_MAX;
	return n;
}

int sweep_check_output(const struct sweep_def *d, const char *dir, struct iot_err *e)
{
	const char *files[SWEEP_MAX_PARAMS];
	const struct out_spec out = {dir, OUT_DIR, "-o"};
	size_t n = 0;

	for (size_t i = 0; i < d->nparams; i++)
		if (d->param[i].file)
			files[n++] = d->param[i].file;
	return out_check(files, n, NULL, 0, &out, 1, e);
}

int sweep_def_check(const struct sweep_def *d, struct iot_err *e)
{
	size_t cells = sweep_ncells(d), runs;

	if (!d->cmd || !d->cmd[0])
		return iot_err_set(e, -EINVAL, "no COMMAND (give it after --)");
	if (d->reps < 1)
		return iot_err_set(e, -EINVAL, "--reps must be at least 1");
	bool hosts = d->hosts && d->hosts[0];

	if (d->capture && !(d->devs && d->devs[0]) && !d->iface && !hosts)
		return iot_err_set(e, -EINVAL,
		                   "nothing to capture: give -d DEV and/or -i IFACE, or --host, or "
		                   "--no-capture");
	if (!d->capture && ((d->devs && d->devs[0]) || d->iface || hosts ||
	                    (d->capture_args && d->capture_args[0])))
		return iot_err_set(e, -EINVAL,
		                   "--no-capture runs without tracing: -d, -i, --host and "
		                   "--capture-arg do not apply");
	/* as capture: the hosts capture, not this one */
	if (hosts && ((d->devs && d->devs[0]) || d->iface))
		return iot_err_set(e, -EINVAL,
		                   "--host captures on the hosts only: -d and -i do not go with it "
		                   "(give this host as a --host of its own)");
	for (size_t i = 0; i < d->nparams; i++) {
		if (!d->param[i].n)
			return iot_err_set(e, -EINVAL, "--param %s has no values",
			                   d->param[i].name);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(d->param[i].name, d->param[j].name))
				return iot_err_set(e, -EINVAL, "--param %s given twice",
				                   d->param[i].name);
		/* a run set's runs have their host as one more parameter */
		if (hosts && !strcmp(d->param[i].name, "host"))
			return iot_err_set(
			    e, -EINVAL, "--param host: with --host, 'host' names each run's host");
	}
	for (size_t i = 0; i < d->nmetrics; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(d->metric[i].name, d->metric[j].name))
				return iot_err_set(e, -EINVAL, "--metric %s given twice",
				                   d->metric[i].name);
	if (cells == SIZE_MAX || size_mul(cells, d->reps, &runs) || runs > SWEEP_MAX_RUNS)
		return iot_err_set(e, -E2BIG, "more than %d runs (cells x repetitions)",
		                   SWEEP_MAX_RUNS);
	return 0;
}

/* ---- sweep.json ---- */

static json_t *strv_json(char *const *v)
{
	json_t *a = json_array();

	for (size_t i = 0; v && v[i]; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *sweep_def_to_json(const struct sweep_def *d)
{
	json_t *root = json_object(), *params = json_array(), *metrics = json_array();

	json_object_set_new(root, "format", json_string(SWEEP_FORMAT));
	json_object_set_new(root, "format_version", json_integer(SWEEP_FORMAT_VERSION));
	json_object_set_new(root, "iotape_version", json_string(IOTAPE_VERSION));
	if (d->argv)
		json_object_set(root, "iotape_argv", d->argv);
	for (size_t i = 0; i < d->nparams; i++) {
		const struct sweep_param *p = &d->param[i];
		json_t *vals = json_array();

		for (size_t k = 0; k < p->n; k++)
			json_array_append_new(vals, json_string(p->v[k].text));
		json_array_append_new(params, json_pack("{s:s, s:o, s:b}", "name", p->name,
		                                        "values", vals, "log", p->log));
	}
	json_object_set_new(root, "params", params);
	json_object_set_new(root, "reps", json_integer(d->reps));
	json_object_set_new(root, "command", strv_json(d->cmd));
	json_object_set_new(root, "setup", str_or_null(d->setup));
	json_object_set_new(root, "teardown", str_or_null(d->teardown));
	json_object_set_new(root, "capture", json_boolean(d->capture));
	json_object_set_new(root, "devices", strv_json(d->devs));
	json_object_set_new(root, "interface", str_or_null(d->iface));
	json_object_set_new(root, "hosts", strv_json(d->hosts));
	json_object_set_new(root, "capture_args", strv_json(d->capture_args));
	for (size_t i = 0; i < d->nmetrics; i++)
		json_array_append_new(
		    metrics, json_pack("{s:s, s:s, s:s}", "name", d->metric[i].name,
		                       d->metric[i].kind == SWEEP_METRIC_JSON ? "json" : "regex",
		                       d->metric[i].expr, "unit", d->metric[i].unit));
	json_object_set_new(root, "metrics", metrics);
	json_object_set_new(root, "order", json_string(sweep_order_name(d->order)));
	json_object_set_new(root, "seed", json_u64(d->seed));
	json_object_set_new(root, "timeout_ns", json_u64(d->timeout_ns));
	json_object_set_new(root, "wait_tracer_ns", json_u64(d->wait_tracer_ns));
	return root;
}

/* A JSON array of strings into a NULL-terminated vector (NULL when absent or empty). */
static int strv_from(const json_t *a, const char *what, char ***out, struct iot_err *e)
{
	size_t n = json_is_array(a) ? json_array_size(a) : 0, i;
	const json_t *v;
	char **s;

	*out = NULL;
	if (a && !json_is_array(a) && !json_is_null(a))
		return iot_err_set(e, -EINVAL, "'%s' is not a list", what);
	if (!n)
		return 0;
	s = calloc(n + 1, sizeof(*s));
	if (!s)
		return iot_err_set(e, -ENOMEM, "out of memory");
	json_array_foreach(a, i, v)
	{
		if (!json_is_string(v) || !(s[i] = strdup(json_string_value(v)))) {
			strv_free(s);
			return iot_err_set(e, -EINVAL, "'%s'[%zu] is not a string", what, i);
		}
	}
	*out = s;
	return 0;
}

static int str_from(const json_t *o, const char *key, char **out, struct iot_err *e)
{
	const json_t *v = json_object_get(o, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return iot_err_set(e, -EINVAL, "'%s' is not a string", key);
	*out = strdup(json_string_value(v));
	return *out ? 0 : iot_err_set(e, -ENOMEM, "out of memory");
}

static int params_from(const json_t *a, struct sweep_def *d, struct iot_err *e)
{
	const json_t *p;
	size_t i;
	int ret;

	if (!json_is_array(a))
		return iot_err_set(e, -EINVAL, "'params' is not a list");
	if (json_array_size(a) > SWEEP_MAX_PARAMS)
		return iot_err_set(e, -EINVAL, "more than %d params", SWEEP_MAX_PARAMS);
	json_array_foreach(a, i, p)
	{
		const char *name = json_string_value(json_object_get(p, "name"));
		const json_t *vals = json_object_get(p, "values"), *v;
		struct sweep_param *sp = &d->param[d->nparams];
		size_t k;

		if (!name || !json_is_array(vals))
			return iot_err_set(e, -EINVAL, "params[%zu]: no name or values", i);
		memset(sp, 0, sizeof(*sp));
		if ((ret = sweep_name_check(name, e)))
			return ret;
		snprintf(sp->name, sizeof(sp->name), "%s", name);
		sp->log = json_is_true(json_object_get(p, "log"));
		d->nparams++;
		json_array_foreach(vals, k, v)
		{
			if (!json_is_string(v))
				return iot_err_set(e, -EINVAL,
				                   "params[%zu].values[%zu] is not a string", i, k);
			if ((ret = sweep_param_add(sp, json_string_value(v), e)))
				return ret;
		}
	}
	return 0;
}

static int metrics_from(const json_t *a, struct sweep_def *d, struct iot_err *e)
{
	const json_t *m;
	size_t i;

	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a) || json_array_size(a) > 256)
		return iot_err_set(e, -EINVAL, "'metrics' is not a list (of at most 256)");
	d->metric = calloc(json_array_size(a) + 1, sizeof(*d->metric));
	if (!d->metric)
		return iot_err_set(e, -ENOMEM, "out of memory");
	json_array_foreach(a, i, m)
	{
		const char *name = json_string_value(json_object_get(m, "name"));
		const char *re = json_string_value(json_object_get(m, "regex"));
		const char *js = json_string_value(json_object_get(m, "json"));
		const char *unit = json_string_value(json_object_get(m, "unit"));
		char *spec;
		int ret;

		if (!name || !(re || js))
			return iot_err_set(e, -EINVAL, "metrics[%zu]: no name, regex or json", i);
		if (asprintf(&spec, "%s%s%s=%s%s", name, unit && *unit ? ":" : "", unit ? unit : "",
		             js ? "json:" : "", js ? js : re) < 0)
			return iot_err_set(e, -ENOMEM, "out of memory");
		ret = sweep_metric_parse(spec, &d->metric[d->nmetrics], e);
		free(spec);
		if (ret)
			return ret;
		d->nmetrics++;
	}
	return 0;
}

int sweep_def_from_json(const json_t *j, struct sweep_def *d, struct iot_err *e)
{
	const char *fmt = json_string_value(json_object_get(j, "format"));
	const char *order = json_string_value(json_object_get(j, "order"));
	const json_t *reps = json_object_get(j, "reps"), *seed = json_object_get(j, "seed");
	const json_t *timeout = json_object_get(j, "timeout_ns");
	const json_t *wait = json_object_get(j, "wait_tracer_ns");
	int ret;

	sweep_def_init(d);
	if (!json_is_object(j) || !fmt || strcmp(fmt, SWEEP_FORMAT))
		return iot_err_set(e, -EINVAL, "not an iotape sweep (format is not '%s')",
		                   SWEEP_FORMAT);
	if (!json_is_integer(reps) || json_integer_value(reps) < 1 ||
	    json_integer_value(reps) > SWEEP_MAX_RUNS)
		return iot_err_set(e, -EINVAL, "'reps' is not a count");
	d->reps = (unsigned)json_integer_value(reps);
	d->capture = !json_is_false(json_object_get(j, "capture"));
	if (seed && json_u64_get(seed, &d->seed))
		return iot_err_set(e, -EINVAL, "'seed' is not a non-negative integer");
	if (timeout && json_u64_get(timeout, &d->timeout_ns))
		return iot_err_set(e, -EINVAL, "'timeout_ns' is not a non-negative integer");
	/* a sweep.json from before waits were kept: the default */
	if (wait && json_u64_get(wait, &d->wait_tracer_ns))
		return iot_err_set(e, -EINVAL, "'wait_tracer_ns' is not a non-negative integer");
	if (order && sweep_order_parse(order, &d->order))
		return iot_err_set(e, -EINVAL, "'order': '%s' is not an order", order);
	if ((ret = params_from(json_object_get(j, "params"), d, e)) ||
	    (ret = metrics_from(json_object_get(j, "metrics"), d, e)) ||
	    (ret = strv_from(json_object_get(j, "command"), "command", &d->cmd, e)) ||
	    (ret = strv_from(json_object_get(j, "devices"), "devices", &d->devs, e)) ||
	    (ret = strv_from(json_object_get(j, "hosts"), "hosts", &d->hosts, e)) ||
	    (ret = strv_from(json_object_get(j, "capture_args"), "capture_args", &d->capture_args,
	                     e)) ||
	    (ret = str_from(j, "setup", &d->setup, e)) ||
	    (ret = str_from(j, "teardown", &d->teardown, e)) ||
	    (ret = str_from(j, "interface", &d->iface, e)))
		return ret;
	if (json_is_array(json_object_get(j, "iotape_argv")))
		d->argv = json_incref(json_object_get(j, "iotape_argv"));
	return sweep_def_check(d, e);
}

/* ---- cells ---- */

void sweep_cell_index(const struct sweep_def *d, size_t cell, size_t *idx)
{
	for (size_t i = d->nparams; i-- > 0;) {
		idx[i] = cell % d->param[i].n;
		cell /= d->param[i].n;
	}
}

int sweep_cell_path(const struct sweep_def *d, size_t cell, char *buf, size_t cap)
{
	size_t idx[SWEEP_MAX_PARAMS], len = 0;

	sweep_cell_index(d, cell, idx);
	buf[0] = 0;
	for (size_t i = 0; i < d->nparams; i++) {
		char seg[SWEEP_SEGMENT_MAX + 1];

		if (sweep_path_escape(d->param[i].name, d->param[i].v[idx[i]].text, seg,
		                      sizeof(seg)) ||
		    len + strlen(seg) + 2 > cap)
			return -ENAMETOOLONG;
		len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? "/" : "", seg);
	}
	return 0;
}

int sweep_run_path(const struct sweep_def *d, size_t cell, unsigned rep, char *buf, size_t cap)
{
	size_t len;

	if (sweep_cell_path(d, cell, buf, cap))
		return -ENAMETOOLONG;
	len = strlen(buf);
	if ((size_t)snprintf(buf + len, cap - len, "%srep-%u", len ? "/" : "", rep) >= cap - len)
		return -ENAMETOOLONG;
	return 0;
}

json_t *sweep_cell_params(const struct sweep_def *d, size_t cell)
{
	size_t idx[SWEEP_MAX_PARAMS];
	json_t *o = json_object();

	sweep_cell_index(d, cell, idx);
	for (size_t i = 0; i < d->nparams; i++)
		json_object_set_new(o, d->param[i].name, json_string(d->param[i].v[idx[i]].text));
	return o;
}

/* ---- the plan ---- */

/* splitmix64: small, good enough to shuffle, and the same everywhere for a given seed */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int sweep_plan(const struct sweep_def *d, struct sweep_slot **out, size_t *n, struct iot_err *e)
{
	size_t cells = sweep_ncells(d), total, k = 0;
	uint64_t rs = d->seed;
	struct sweep_slot *s;
	size_t *perm;

	if (cells == SIZE_MAX || size_mul(cells, d->reps, &total) || total > SWEEP_MAX_RUNS)
		return iot_err_set(e, -E2BIG, "too many runs");
	s = calloc(total ? total : 1, sizeof(*s));
	perm = calloc(cells ? cells : 1, sizeof(*perm));
	if (!s || !perm) {
		free(s);
		free(perm);
		return iot_err_set(e, -ENOMEM, "out of memory");
	}
	if (d->order == SWEEP_ORDER_SEQUENTIAL) {
		for (size_t c = 0; c < cells; c++)
			for (unsigned r = 1; r <= d->reps; r++)
				s[k++] = (struct sweep_slot){c, r, r};
	} else {
		for (unsigned r = 1; r <= d->reps; r++) {
			for (size_t c = 0; c < cells; c++)
				perm[c] = c;
			/* Fisher-Yates; the modulo bias is irrelevant at these sizes */
			for (size_t c = cells; d->order == SWEEP_ORDER_SHUFFLED && c > 1; c--) {
				size_t j = (size_t)(next_rand(&rs) % c), t = perm[c - 1];

				perm[c - 1] = perm[j];
				perm[j] = t;
			}
			for (size_t c = 0; c < cells; c++)
				s[k++] = (struct sweep_slot){perm[c], r, r};
		}
	}
	free(perm);
	*out = s;
	*n = total;
	return 0;
}

/* ---- substitution and environment ---- */

char *sweep_subst(const struct sweep_def *d, size_t cell, unsigned rep, const char *rundir,
                  const char *s)
{
	size_t idx[SWEEP_MAX_PARAMS], len = 0;
	char *out = NULL, repbuf[16];
	FILE *f;

	sweep_cell_index(d, cell, idx);
	snprintf(repbuf, sizeof(repbuf), "%u", rep);
	f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	while (*s) {
		const char *close = *s == '{' ? strchr(s + 1, '}') : NULL;
		const char *val = NULL;

		if (close) {
			size_t n = (size_t)(close - s - 1);

			for (size_t i = 0; i < d->nparams && !val; i++)
				if (strlen(d->param[i].name) == n &&
				    !strncmp(s + 1, d->param[i].name, n))
					val = d->param[i].v[idx[i]].text;
			if (!val && n == 3 && !strncmp(s + 1, "rep", 3))
				val = repbuf;
			if (!val && n == 3 && !strncmp(s + 1, "run", 3))
				val = rundir ? rundir : "";
		}
		if (val) {
			fputs(val, f);
			s = close + 1;
		} else {
			fputc(*s++, f);
		}
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

static int env_add(char **env, size_t *n, const char *name, const char *value)
{
	if (asprintf(&env[*n], "%s=%s", name, value) < 0)
		return -ENOMEM;
	(*n)++;
	return 0;
}

char **sweep_env(const struct sweep_def *d, size_t cell, unsigned rep, const char *sweepdir,
                 const char *rundir)
{
	size_t idx[SWEEP_MAX_PARAMS], nenv = 0, n = 0;
	char cellpath[4096], repbuf[16];
	char **env;

	sweep_cell_index(d, cell, idx);
	if (sweep_cell_path(d, cell, cellpath, sizeof(cellpath)))
		cellpath[0] = 0;
	snprintf(repbuf, sizeof(repbuf), "%u", rep);
	while (environ[nenv])
		nenv++;
	env = calloc(nenv + d->nparams + 5, sizeof(*env));
	if (!env)
		return NULL;
	/* ours, except what a parameter or the sweep sets */
	for (size_t i = 0; i < nenv; i++) {
		const char *eq = strchr(environ[i], '=');
		size_t nl = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
		bool replaced = !strncmp(environ[i], "IOTAPE_SWEEP_", 13);

		for (size_t p = 0; p < d->nparams && !replaced; p++)
			replaced = strlen(d->param[p].name) == nl &&
			           !strncmp(environ[i], d->param[p].name, nl);
		if (!replaced && !(env[n++] = strdup(environ[i])))
			goto oom;
	}
	for (size_t p = 0; p < d->nparams; p++)
		if (env_add(env, &n, d->param[p].name, d->param[p].v[idx[p]].text))
			goto oom;
	if (env_add(env, &n, "IOTAPE_SWEEP_DIR", sweepdir) ||
	    env_add(env, &n, "IOTAPE_SWEEP_RUN", rundir) ||
	    env_add(env, &n, "IOTAPE_SWEEP_CELL", cellpath) ||
	    env_add(env, &n, "IOTAPE_SWEEP_REP", repbuf))
		goto oom;
	return env;
oom:
	sweep_env_free(env);
	return NULL;
}

void sweep_env_free(char **env)
{
	strv_free(env);
}
