/* SPDX-License-Identifier: MIT */
/* Engine registry: the engines by name. */
#include "replay/engine.h"

#include <string.h>

static const struct rp_engine_ops *const engines[] = {
    &rp_engine_uring,
    &rp_engine_psync,
    &rp_engine_null,
};

const struct rp_engine_ops *rp_engine_find(const char *name)
{
	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		if (!strcmp(engines[i]->name, name))
			return engines[i];
	/* fio's name for the thread-pool engine, and the word for it */
	if (!strcmp(name, "sync") || !strcmp(name, "fallback"))
		return &rp_engine_psync;
	return NULL;
}
