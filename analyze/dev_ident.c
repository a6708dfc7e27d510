/* SPDX-License-Identifier: MIT */
/* Each device of an analysis with what its run's manifest says it is: key, role, group. */
#include "analyze/run_summary.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "formats/manifest.h"

int blk_ident_json(json_t *devices, const struct manifest *m, const char *host)
{
	json_t *d;
	size_t i;

	json_array_foreach(devices, i, d)
	{
		const char *dev = json_string_value(json_object_get(d, "dev"));
		const char *h = json_string_value(json_object_get(d, "host"));
		const struct manifest_dev *md = NULL;
		unsigned ma, mi;

		if (!dev || sscanf(dev, "%u,%u", &ma, &mi) != 2)
			continue;
		if (host && (!h || strcmp(h, host)))
			continue;
		md = manifest_dev_find(m, ma, mi);
		/* a manifest from before keys: its kernel name; no manifest: the device number */
		if (json_object_set_new(d, "key",
		                        json_string(md && md->key    ? md->key
		                                    : md && md->name ? md->name
		                                                     : dev)) ||
		    json_object_set_new(d, "role",
		                        md && md->role ? json_string(md->role) : json_null()) ||
		    json_object_set_new(d, "group",
		                        md && md->group ? json_string(md->group) : json_null()))
			return -ENOMEM;
	}
	return 0;
}
