/* SPDX-License-Identifier: MIT */
/* A run set's NFS calls seen from both ends, from the captures of its hosts as opened. */
#include "analyze/run_set_load.h"

#include <errno.h>

#include "analyze/nfs_ends.h"
#include "common/warnings.h"
#include "formats/pcap_src.h"

/* The capture at path read into x as its host h. 0 or -ENOMEM: what else goes wrong is warned. */
static int read_host(struct nfs_ends *x, unsigned h, const char *path, json_t *warnings)
{
	struct pcap_src *src = NULL;
	struct iot_err e;
	int ret, w = 0, partial = 0;

	/* a capture that cannot be read: its host's own analysis says why */
	if ((ret = pcap_src_open(&src, path, &e)) || (ret = nfs_ends_read(x, h, src, &partial, &e)))
		w = iot_warn_json(
		    warnings, "'%s': %s (the calls seen from both ends go without the rest of it)",
		    path, e.msg);
	else if (partial)
		w = iot_warn_json(warnings, "'%s': %s: its calls before are matched", path, e.msg);
	if (src)
		pcap_src_free(src);
	return ret == -ENOMEM || w == -ENOMEM ? -ENOMEM : 0;
}

int run_set_ends(const struct run_set_load *l, const struct run_summaries_host *hosts,
                 struct nfs_ends **out, json_t *warnings, struct iot_err *e)
{
	struct nfs_ends *x = NULL;
	unsigned ncap = 0;
	int ret = 0, h;

	*out = NULL;
	for (unsigned i = 0; i < l->n && !ret; i++) {
		if (!l->capture_path[i])
			continue;
		if (!x && (ret = nfs_ends_new(&x)))
			break;
		if ((h = nfs_ends_add_host(x, l->h[i].host.name, hosts[i].offset_ns,
		                           hosts[i].error_ns)) < 0)
			ret = h;
		else
			ret = read_host(x, (unsigned)h, l->capture_path[i], warnings);
		ncap++;
	}
	if (!ret && ncap > 1 && !(ret = nfs_ends_match(x))) {
		*out = x;
		return 0;
	}
	nfs_ends_free(x);
	if (ret == -E2BIG)
		return iot_err_set(e, ret, "at most %u hosts with packet captures",
		                   NFS_ENDS_MAX_HOSTS);
	return ret ? iot_err_set(e, ret, "out of memory") : 0;
}
