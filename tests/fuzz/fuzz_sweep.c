/* SPDX-License-Identifier: MIT */
/* libFuzzer target: what a sweep reads back (result.json, sweep.json), metric extraction from
 * a command's output, and parameter specs. The first byte picks which. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy of the first line; *rest is what follows it. */
static char *first_line(const uint8_t *data, size_t size, const uint8_t **rest, size_t *rlen)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t len = nl ? (size_t)(nl - data) : size;
	char *s = malloc(len + 1);

	if (!s)
		return NULL;
	memcpy(s, data, len);
	s[len] = 0;
	*rest = nl ? nl + 1 : data + size;
	*rlen = size - (size_t)(*rest - data);
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iot_err e;
	const uint8_t *rest;
	size_t rlen;
	char *spec;

	if (!size)
		return 0;
	switch (data[0] % 4) {
	case 0: {
		struct sweep_result r;

		if (!sweep_result_parse((const char *)data + 1, size - 1, &r, &e)) {
			if (r.state <= SWEEP_RUN_PENDING || !r.metrics)
				abort();
			sweep_result_release(&r);
		}
		break;
	}
	case 1: {
		json_error_t je;
		json_t *j = json_loadb((const char *)data + 1, size - 1, 0, &je);
		struct sweep_def d;

		if (j && !sweep_def_from_json(j, &d, &e)) {
			char buf[4096];
			struct sweep_slot *plan;
			size_t n, cells = sweep_ncells(&d);

			/* every cell has a path, and the plan covers every run */
			for (size_t c = 0; c < cells && c < 64; c++)
				(void)sweep_cell_path(&d, c, buf, sizeof(buf));
			if (cells * d.reps <= 4096 && !sweep_plan(&d, &plan, &n, &e)) {
				if (n != cells * d.reps)
					abort();
				free(plan);
			}
			sweep_def_release(&d);
		} else if (j) {
			sweep_def_release(&d);
		}
		json_decref(j);
		break;
	}
	case 2: {
		struct sweep_metric m;
		double v;

		spec = first_line(data + 1, size - 1, &rest, &rlen);
		if (spec && !sweep_metric_parse(spec, &m, &e)) {
			(void)sweep_metric_eval(&m, (const char *)rest, rlen, (const char *)rest,
			                        rlen / 2, NULL, &v, &e);
			sweep_metric_release(&m);
		}
		free(spec);
		break;
	}
	case 3: {
		struct sweep_param p;

		spec = first_line(data + 1, size - 1, &rest, &rlen);
		/* values from files are not the fuzzer's business */
		if (spec && !strchr(spec, '@') && !sweep_param_parse(spec, &p, &e)) {
			char buf[256];

			for (size_t i = 0; i < p.n; i++)
				sweep_path_escape(p.name, p.v[i].text, buf, sizeof(buf));
			sweep_param_release(&p);
		}
		free(spec);
		break;
	}
	}
	return 0;
}
