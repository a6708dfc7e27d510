/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the manifest parser and the clock mapping on arbitrary bytes. */
#include <stdint.h>
#include <stdlib.h>

#include "formats/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct manifest m;
	struct iot_err e;

	if (manifest_parse((const char *)data, size, &m, &e))
		return 0;
	for (unsigned i = 0; i < m.ndevs; i++)
		if (!m.devs[i].name)
			abort(); /* a parsed device always has its name */
	(void)manifest_trace_to_real(&m, m.start_trace_ns);
	(void)manifest_trace_to_real(&m, INT64_MAX);
	(void)manifest_real_to_trace(&m, INT64_MIN);
	manifest_release(&m);
	return 0;
}
