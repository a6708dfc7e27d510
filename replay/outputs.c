/* SPDX-License-Identifier: MIT */
/* A replay's outputs (--record, --capture) against its trace and its targets. */
#include "replay/replay.h"

#include <stdlib.h>

#include "formats/outcheck.h"

int replay_check_outputs(const struct replay_opts *o, const char *input, const char *capture_dir,
                         struct iot_err *e)
{
	const char **targets = calloc(o->nmaps + 1, sizeof(*targets));
	const struct out_spec outs[] = {{o->record_dir, OUT_DIR, "--record"},
	                                {capture_dir, OUT_DIR, "--capture"}};
	size_t n = 0;
	int ret;

	if (!targets)
		return iot_err_set(e, -ENOMEM, "out of memory");
	if (o->target)
		targets[n++] = o->target;
	for (unsigned i = 0; i < o->nmaps; i++)
		targets[n++] = o->maps[i].path;
	ret = out_check(&input, 1, targets, n, outs, 2, e);
	free(targets);
	return ret;
}
